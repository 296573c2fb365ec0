//! `wildtool run` end to end against a scripted OpenAI-compatible mock on 127.0.0.1: the
//! mock plays a model derived from the gold answers (optionally corrupted), with injected
//! transport faults. Asserts scores, retry behaviour, that transport failures never become
//! model errors, resume of incomplete tasks, that the key is never written, and that the
//! live labels equal an offline `wildtool score` of the run's own result file.

use crate::mock_server;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mock_server::{Action, MockServer, Request};
use wildtool_core::dataset::{load_dataset, Lang, LoadedDataset};
use wildtool_core::json::{dumps, loads, Escape, Map, Value};
use wildtool_core::runner::agents::GoldAgent;
use wildtool_core::runner::driver::{Responder, StepContext, TaskStats};

pub(crate) use crate::support::tmp;

pub(crate) fn mini_path() -> PathBuf {
    crate::support::fixture("mini.jsonl")
}

pub(crate) fn mini() -> Arc<LoadedDataset> {
    let text = std::fs::read_to_string(mini_path()).unwrap_or_default();
    Arc::new(load_dataset(&text, Lang::En))
}

/// How the mock model deviates from gold.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Behaviour {
    Gold,
    WrongNames,
    BadArguments,
    TextOnly,
    ReversedParallel,
}

/// Finds (session line, task, step) of a request from its messages.
pub(crate) fn locate(ds: &LoadedDataset, messages: &[Value]) -> Option<(usize, usize, usize)> {
    let content = |m: &Value| {
        m.get("content")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    let role = |m: &Value| {
        m.get("role")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    let system = content(messages.first()?);
    let first_user = content(messages.get(1)?);
    let session = ds.sessions.iter().find(|s| {
        system == format!("Current Date: {}", s.env_info)
            && s.tasks
                .first()
                .is_some_and(|t| t.user_message == first_user)
    })?;
    let mut k = 0;
    let mut start = 0;
    for (i, m) in messages.iter().enumerate() {
        if role(m) == "user"
            && session
                .tasks
                .get(k)
                .is_some_and(|t| t.user_message == content(m))
        {
            k += 1;
            start = i;
        }
    }
    let step = messages
        .iter()
        .skip(start)
        .filter(|m| role(m) == "assistant")
        .count();
    Some((session.index, k.checked_sub(1)?, step))
}

/// A valid answer to the preflight (the one request without the dataset's system
/// message), or `None` for dataset requests.
pub(crate) fn preflight_reply(body: &str) -> Option<String> {
    let req = loads(body).ok()?;
    let first = req.get("messages")?.as_array()?.first()?.clone();
    if first.get("role").and_then(Value::as_str) == Some("system") {
        return None;
    }
    Some(r#"{"id": "chatcmpl-preflight", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": null, "tool_calls": [{"id": "call_p", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]}, "finish_reason": "tool_calls"}]}"#.to_owned())
}

pub(crate) fn model_reply(ds: &LoadedDataset, body: &str, behaviour: Behaviour) -> Option<String> {
    if let Some(p) = preflight_reply(body) {
        return Some(p);
    }
    let req = loads(body).ok()?;
    let messages = req.get("messages")?.as_array()?.clone();
    let tools = req.get("tools")?.clone();
    let (line, task, step) = locate(ds, &messages)?;
    let session = ds.sessions.iter().find(|s| s.index == line)?;
    let ctx = StepContext {
        session,
        task,
        step,
        messages: &messages,
        tools: &tools,
    };
    let reply = GoldAgent.respond(&ctx, &mut TaskStats::default()).ok()?;
    let mut message = Map::new();
    message.insert("role", Value::str("assistant"));
    let mut calls = reply.tool_calls.as_array().cloned();
    let mut content = reply.content.clone();
    match behaviour {
        Behaviour::Gold => {}
        Behaviour::WrongNames => {
            calls = Some(vec![loads(r#"{"id": "call_x", "type": "function", "function": {"name": "no_such_tool", "arguments": "{}"}}"#).ok()?]);
        }
        Behaviour::BadArguments => {
            if let Some(cs) = calls.as_mut() {
                for c in cs.iter_mut() {
                    if let Some(f) = c
                        .as_object_mut()
                        .and_then(|o| o.get_mut("function"))
                        .and_then(Value::as_object_mut)
                    {
                        f.insert("arguments", Value::str(r#"{"zzz_unknown": 1}"#));
                    }
                }
            }
        }
        Behaviour::TextOnly => {
            calls = None;
            content = Value::str("Let me think about that.");
        }
        Behaviour::ReversedParallel => {
            if let Some(cs) = calls.as_mut() {
                cs.reverse();
            }
        }
    }
    message.insert("content", content);
    if let Some(cs) = calls {
        message.insert("tool_calls", Value::Array(cs));
    }
    let resp = format!(
        r#"{{"id": "chatcmpl-mock", "object": "chat.completion", "model": "mock", "choices": [{{"index": 0, "message": {}, "finish_reason": "stop"}}], "usage": {{"prompt_tokens": {}, "completion_tokens": 5}}}}"#,
        dumps(&Value::Object(message), Escape::Utf8),
        official_len(body) / 4
    );
    Some(resp)
}

/// A mock model; `fault(request, attempt_of_this_body)` may inject a transport fault.
pub(crate) fn model_server(
    behaviour: Behaviour,
    fault: impl Fn(&Request, usize) -> Option<Action> + Send + Sync + 'static,
) -> MockServer {
    let ds = mini();
    let attempts: Mutex<HashMap<String, usize>> = Mutex::new(HashMap::new());
    MockServer::start(move |req| {
        let n = attempts
            .lock()
            .map(|mut a| {
                let e = a.entry(req.body.clone()).or_insert(0);
                *e += 1;
                *e
            })
            .unwrap_or(1);
        if let Some(action) = fault(req, n) {
            return action;
        }
        match model_reply(&ds, &req.body, behaviour) {
            Some(body) if asks_to_stream(&req.body) => crate::runner_stream::as_stream(&body, 5),
            Some(body) => Action::ok(body),
            None => Action::status(
                400,
                r#"{"error": {"message": "mock could not place the request"}}"#,
            ),
        }
    })
}

/// The length of a request body without the stream switch (the mock's prompt tokens are a
/// function of it, so that a streamed request counts as the same prompt).
fn official_len(body: &str) -> usize {
    let streamed = format!(
        ", {}}}",
        wildtool_core::runner::stream::request::OPENAI_STREAM_MEMBERS
    );
    match body.strip_suffix(&streamed) {
        Some(head) => head.len() + 1,
        None => body.len(),
    }
}

/// True when a request body carries the stream switch.
pub(crate) fn asks_to_stream(body: &str) -> bool {
    loads(body)
        .ok()
        .and_then(|v| v.get("stream").cloned())
        .is_some_and(|s| s == Value::Bool(true))
}

pub(crate) fn run(server: &MockServer, out: &Path, extra: &[&str], key: Option<&str>) -> Output {
    run_at(&server.base_url(), &mini_path(), out, extra, key)
}

/// [`run`] against any base URL (a stopped mock's, for offline replays) and dataset.
pub(crate) fn run_at(
    base_url: &str,
    dataset: &Path,
    out: &Path,
    extra: &[&str],
    key: Option<&str>,
) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_wildtool"));
    cmd.args(["run", "--dataset"])
        .arg(dataset)
        .args(["--model", "mock/model", "--base-url", base_url, "--out"])
        .arg(out);
    cmd.args([
        "--timeout",
        "0.5",
        "--backoff",
        "0.01",
        "--retries",
        "3",
        "--concurrency",
        "4",
    ])
    .args(extra);
    cmd.env_remove("OPENAI_API_KEY");
    if let Some(k) = key {
        cmd.env("WT_TEST_KEY", k)
            .args(["--api-key-env", "WT_TEST_KEY"]);
    }
    cmd.output().unwrap_or_else(|e| panic!("spawn: {e}"))
}

pub(crate) fn task_accuracy(out: &Path) -> f64 {
    let m = loads(&std::fs::read_to_string(out.join("metric.json")).unwrap_or_default())
        .unwrap_or(Value::Null);
    match m
        .get("total_info")
        .and_then(|t| t.get("task"))
        .and_then(|t| t.get("accuracy"))
    {
        Some(Value::Float(f)) => *f,
        Some(v) => v.as_i64().map(|i| i as f64).unwrap_or(-1.0),
        None => -1.0,
    }
}

/// The run's own score equals an offline `wildtool score` of its result file, and the
/// labels written live agree with the offline decisions.
pub(crate) fn assert_offline_score_matches(out: &Path) {
    let offline = out.join("offline");
    let o = Command::new(env!("CARGO_BIN_EXE_wildtool"))
        .args(["score", "--dataset"])
        .arg(mini_path())
        .arg("--results")
        .arg(out.join("result.jsonl"))
        .arg("--out")
        .arg(&offline)
        .output()
        .unwrap_or_else(|e| panic!("spawn: {e}"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for f in ["score.jsonl", "metric.json"] {
        assert_eq!(
            std::fs::read(out.join(f)).ok(),
            std::fs::read(offline.join(f)).ok(),
            "{f}"
        );
    }
    let report = loads(&std::fs::read_to_string(out.join("report.json")).unwrap_or_default())
        .unwrap_or(Value::Null);
    let dis = report
        .get("scoring")
        .and_then(|s| s.get("label_disagreements"))
        .and_then(Value::as_i64);
    assert_eq!(dis, Some(0), "live labels equal the offline decisions");
}

pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn gold_model_with_transport_faults_scores_everything() {
    // Every 3rd distinct request fails on its first attempt, cycling through 429 with
    // Retry-After, 500, a dropped connection, malformed JSON and a hang past the timeout.
    let server = model_server(Behaviour::Gold, |req, attempt| {
        if attempt > 1 || req.index % 3 != 0 {
            return None;
        }
        Some(match (req.index / 3) % 5 {
            0 => Action::rate_limited("0.05"),
            1 => Action::status(500, "internal"),
            2 => Action::Drop,
            3 => Action::ok("{\"choices\": [ broken"),
            _ => Action::Hang(Duration::from_millis(1200)),
        })
    });
    let out = tmp("gold-faults");
    let o = run(&server, &out, &[], None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        task_accuracy(&out),
        1.0,
        "transport faults never become model errors"
    );
    let log = stderr(&o);
    assert!(log.contains("0 incomplete"), "{log}");
    assert!(!log.contains(" 0 retr"), "retries happened: {log}");
    assert_offline_score_matches(&out);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn model_errors_are_scored_as_model_errors() {
    for (name, behaviour) in [
        ("wrong-names", Behaviour::WrongNames),
        ("bad-args", Behaviour::BadArguments),
        ("text-only", Behaviour::TextOnly),
        ("reversed", Behaviour::ReversedParallel),
    ] {
        let server = model_server(behaviour, |_, _| None);
        let out = tmp(name);
        let o = run(&server, &out, &[], None);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let acc = task_accuracy(&out);
        match behaviour {
            Behaviour::WrongNames => assert_eq!(acc, 0.0, "{name}"),
            Behaviour::BadArguments | Behaviour::TextOnly => {
                assert!(acc > 0.0 && acc < 1.0, "{name}: {acc}")
            }
            _ => assert_eq!(
                acc, 1.0,
                "{name}: same-name pairing and name sorting make order irrelevant"
            ),
        }
        assert_offline_score_matches(&out);
        let _ = std::fs::remove_dir_all(&out);
    }
}

#[test]
fn exhausted_retries_leave_tasks_incomplete_and_a_rerun_resumes_them() {
    // Session 2 is unreachable: every request 503s.
    let ds = mini();
    let s2_first = ds
        .sessions
        .iter()
        .find(|s| s.index == 2)
        .and_then(|s| s.tasks.first())
        .map(|t| t.user_message.clone())
        .unwrap_or_default();
    let needle = dumps(&Value::str(s2_first), Escape::Utf8);
    let down = model_server(Behaviour::Gold, move |req, _| {
        req.body
            .contains(&needle)
            .then(|| Action::status(503, "down"))
    });
    let out = tmp("incomplete");
    let o = run(&down, &out, &[], None);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let result = std::fs::read_to_string(out.join("result.jsonl")).unwrap_or_default();
    assert_eq!(
        result.lines().count(),
        7,
        "the incomplete session is left out"
    );
    assert!(!result.contains("\"wild_tool_bench_2\""));
    let inc = loads(&std::fs::read_to_string(out.join("incomplete.json")).unwrap_or_default())
        .unwrap_or(Value::Null);
    assert_eq!(
        inc.get("tasks").and_then(Value::as_array).map(Vec::len),
        Some(4)
    );
    assert_eq!(
        task_accuracy(&out),
        1.0,
        "incomplete tasks are not model errors"
    );

    let up = model_server(Behaviour::Gold, |_, _| None);
    let o = run(&up, &out, &[], None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("4 task(s) finished now, 28 resumed"),
        "{}",
        stderr(&o)
    );
    assert!(!out.join("incomplete.json").exists());
    assert_eq!(
        std::fs::read_to_string(out.join("result.jsonl"))
            .unwrap_or_default()
            .lines()
            .count(),
        8
    );
    assert_eq!(task_accuracy(&out), 1.0);
    assert_offline_score_matches(&out);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn the_api_key_is_sent_but_never_written() {
    let key = "sk-wildtool-leak-check-7f3a9c";
    let server = model_server(Behaviour::Gold, |_, _| None);
    let out = tmp("key");
    let o = run(&server, &out, &["--sessions", "0-1"], Some(key));
    assert!(o.status.success(), "{}", stderr(&o));
    let reqs = server.requests();
    assert!(!reqs.is_empty());
    assert!(reqs
        .iter()
        .all(|r| r.header("authorization") == Some(&format!("Bearer {key}"))));
    assert!(reqs.iter().all(|r| !r.body.contains(key)));
    let mut files = 0;
    for entry in std::fs::read_dir(&out).into_iter().flatten().flatten() {
        let bytes = std::fs::read(entry.path()).unwrap_or_default();
        assert!(
            !String::from_utf8_lossy(&bytes).contains(key),
            "{} contains the key",
            entry.path().display()
        );
        files += 1;
    }
    assert!(files >= 5, "checkpoint, result, score, metric, report");
    assert!(!String::from_utf8_lossy(&o.stdout).contains(key) && !stderr(&o).contains(key));
    let _ = std::fs::remove_dir_all(&out);
}

/// A mock that plays gold answers, each after `delay_ms`.
pub(crate) fn slow_gold_server(delay_ms: u64) -> MockServer {
    let ds = mini();
    MockServer::start(move |req| {
        std::thread::sleep(Duration::from_millis(delay_ms));
        match model_reply(&ds, &req.body, Behaviour::Gold) {
            Some(body) => Action::ok(body),
            None => Action::status(400, "{}"),
        }
    })
}

/// Starts `wildtool run` on mini.jsonl against `server` (concurrency 2) without waiting.
pub(crate) fn spawn_run(
    server: &MockServer,
    out: &std::path::Path,
    stderr: std::process::Stdio,
) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_wildtool"))
        .args(["run", "--dataset"])
        .arg(mini_path())
        .args([
            "--model",
            "mock/model",
            "--base-url",
            &server.base_url(),
            "--concurrency",
            "2",
            "--out",
        ])
        .arg(out)
        .stderr(stderr)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn: {e}"))
}

#[test]
fn a_real_kill_mid_run_loses_only_in_flight_tasks() {
    // Each reply takes 60 ms, so the run is still going when it is killed.
    let slow = slow_gold_server(60);
    let out = tmp("kill");
    let mut child = spawn_run(&slow, &out, std::process::Stdio::null());
    std::thread::sleep(Duration::from_millis(1000));
    let _ = child.kill();
    let _ = child.wait();
    let ckpt = std::fs::read_to_string(out.join("checkpoint.jsonl")).unwrap_or_default();
    let saved = ckpt.lines().count().saturating_sub(1);
    assert!(
        saved > 0 && saved < 32,
        "killed mid-run with {saved} task(s) saved"
    );
    assert!(!out.join("result.jsonl").exists());

    let server = model_server(Behaviour::Gold, |_, _| None);
    let o = run(&server, &out, &[], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let expected = format!("{} task(s) finished now, {saved} resumed", 32 - saved);
    assert!(stderr(&o).contains(&expected), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(", tokens "),
        "the endpoint's usage is counted: {}",
        stderr(&o)
    );
    assert_eq!(task_accuracy(&out), 1.0);
    assert_offline_score_matches(&out);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn ctrl_c_stops_cleanly_and_the_run_resumes() {
    let slow = slow_gold_server(120);
    let out = tmp("sigint");
    let child = spawn_run(&slow, &out, std::process::Stdio::piped());
    std::thread::sleep(Duration::from_millis(900));
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    assert!(sent.is_ok_and(|s| s.success()), "kill -INT failed");
    let o = child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("wait: {e}"));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        o.status.code(),
        Some(3),
        "interrupted runs exit with the incomplete code: {err}"
    );
    assert!(err.contains("interrupted"), "{err}");
    let ckpt = std::fs::read_to_string(out.join("checkpoint.jsonl")).unwrap_or_default();
    let saved = ckpt.lines().count().saturating_sub(1);
    assert!(saved > 0 && saved < 32, "{saved} task(s) saved");

    let server = model_server(Behaviour::Gold, |_, _| None);
    let o = run(&server, &out, &[], None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(task_accuracy(&out), 1.0);
    assert_offline_score_matches(&out);
    let _ = std::fs::remove_dir_all(&out);
}
