//! Own-history runs (`wildtool run --history own`): the gold agent scores 100% in both
//! history modes on the bundled suite (canned environment, and the ledger environment for
//! its ledger sessions); a scripted model that fails task k+1 exactly when its own history
//! shows it failed task k has an error-propagation share of 100% in own history and none
//! in gold history; the self-conditioning figure of that pair equals a recomputation from
//! the two runs' per-task labels; `wildtool score` refuses own-history files.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use crate::mock_server::{Action, MockServer};
use crate::runner_live::{locate, preflight_reply, tmp};
use wildtool_core::dataset::{load_dataset, Lang, LoadedDataset};
use wildtool_core::json::{dumps, loads, Escape, Map, Value};
use wildtool_core::runner::agents::GoldAgent;
use wildtool_core::runner::driver::{Responder, StepContext, TaskStats};

fn suite() -> String {
    format!("{}/data/suite.jsonl", env!("CARGO_MANIFEST_DIR"))
}

fn wt(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_wildtool"))
        .args(args)
        .env_remove("OPENAI_API_KEY")
        .output()
        .expect("spawn")
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

fn json(p: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(p).expect("read")).expect("json")
}

fn all_correct(tasks: &serde_json::Value) -> bool {
    tasks
        .as_array()
        .is_some_and(|t| !t.is_empty() && t.iter().all(|x| x["correct"] == true))
}

/// The gold agent on the bundled suite in own history, with `extra` options.
fn own_gold_run(out: &Path, extra: &[&str]) {
    let suite = suite();
    let mut args = vec![
        "run",
        "--dataset",
        &suite,
        "--provider",
        "gold",
        "--history",
        "own",
    ];
    args.extend_from_slice(extra);
    let out = s(out);
    args.extend(["--out", &out]);
    let o = wt(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn the_gold_agent_scores_everything_in_both_history_modes() {
    let own = tmp("own-gold");
    let o = wt(&[
        "run",
        "--dataset",
        &suite(),
        "--provider",
        "gold",
        "--history",
        "own",
        "--out",
        &s(&own),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("Extension (own history)"), "{stdout}");
    let r = json(&own.join("own-report.json"));
    assert_eq!(r["format"], "wildtool-own-report/1");
    assert!(all_correct(&r["report"]["tasks"]));
    assert_eq!(r["report"]["tasks_scored"], r["report"]["tasks_total"]);
    let html = std::fs::read_to_string(own.join("own-report.html")).expect("html");
    assert!(html.contains("Extension (own history)"));
    assert!(!own.join("score.jsonl").exists() && !own.join("metric.json").exists());

    let ledger = tmp("own-gold-ledger");
    own_gold_run(&ledger, &["--env", "ledger"]);
    let r = json(&ledger.join("own-report.json"));
    assert!(all_correct(&r["report"]["tasks"]));
    let env = &r["ledger_env"];
    assert_eq!(env["sessions"], 16);
    assert_eq!(env["session_verdict"]["final_ledger_correct"], 16);
    assert_eq!(env["metrics"]["env_task_success"]["value"], 1.0);
    assert_eq!(env["missing_prerequisite_tasks"], 0);

    // Gold history (the official protocol) on the same suite.
    let gold = tmp("own-gold-official");
    let o = wt(&[
        "run",
        "--dataset",
        &suite(),
        "--provider",
        "gold",
        "--out",
        &s(&gold),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(all_correct(&json(&gold.join("report.json"))["tasks"]));

    // Own-history files are not official results.
    for f in ["own-result.jsonl", "own-report.json"] {
        let o = wt(&[
            "score",
            "--dataset",
            &suite(),
            "--results",
            &s(&own.join(f)),
            "--out",
            &s(&tmp("own-score-refused")),
        ]);
        assert_eq!(o.status.code(), Some(2), "{f}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("own-history run"),
            "{f}"
        );
    }
}

const WRONG: &str = "wrong_tool_xyz";

/// Whether the conversation shows the model's failure in task `task - 1`.
fn failed_before(ds: &LoadedDataset, line: usize, task: usize, messages: &[Value]) -> bool {
    let Some(session) = ds.sessions.iter().find(|s| s.index == line) else {
        return false;
    };
    let (Some(prev), Some(cur)) = (
        session.tasks.get(task.wrapping_sub(1)),
        session.tasks.get(task),
    ) else {
        return false;
    };
    let text = |m: &Value| {
        m.get("content")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    let from = messages.iter().position(|m| text(m) == prev.user_message);
    let to = messages.iter().rposition(|m| text(m) == cur.user_message);
    let (Some(from), Some(to)) = (from, to) else {
        return false;
    };
    messages[from..to]
        .iter()
        .any(|m| dumps(m, Escape::Utf8).contains(WRONG))
}

/// The scripted model: fails task 0 of even sessions (a call to a tool that does not
/// exist, then an apology), fails task k+1 exactly when its history shows it failed task
/// k, and otherwise answers along the gold path.
fn propagating(ds: &LoadedDataset, body: &str) -> Option<String> {
    if let Some(p) = preflight_reply(body) {
        return Some(p);
    }
    let req = loads(body).ok()?;
    let messages = req.get("messages")?.as_array()?.clone();
    let tools = req.get("tools")?.clone();
    let (line, task, step) = locate(ds, &messages)?;
    let fail =
        (task == 0 && line % 2 == 0) || (task > 0 && failed_before(ds, line, task, &messages));
    let mut message = Map::new();
    message.insert("role", Value::str("assistant"));
    if fail && step == 0 {
        let mut f = Map::new();
        f.insert("name", Value::str(WRONG));
        f.insert("arguments", Value::str("{}"));
        let mut c = Map::new();
        c.insert("id", Value::Str(format!("call_{line}_{task}")));
        c.insert("type", Value::str("function"));
        c.insert("function", Value::Object(f));
        message.insert("content", Value::Null);
        message.insert("tool_calls", Value::Array(vec![Value::Object(c)]));
    } else if fail {
        message.insert("content", Value::str("Sorry, that did not work."));
    } else {
        gold_message(ds, (line, task, step), &messages, &tools, &mut message)?;
    }
    Some(completion(message))
}

/// The gold agent's reply at (session line, task, step), into `message`.
fn gold_message(
    ds: &LoadedDataset,
    (line, task, step): (usize, usize, usize),
    messages: &[Value],
    tools: &Value,
    message: &mut Map,
) -> Option<()> {
    let session = ds.sessions.iter().find(|s| s.index == line)?;
    let ctx = StepContext {
        session,
        task,
        step,
        messages,
        tools,
    };
    let reply = GoldAgent.respond(&ctx, &mut TaskStats::default()).ok()?;
    message.insert("content", reply.content.clone());
    if let Value::Array(cs) = &reply.tool_calls {
        message.insert("tool_calls", Value::Array(cs.clone()));
    }
    Some(())
}

/// A chat completion body with `message`.
fn completion(message: Map) -> String {
    format!(
        r#"{{"id": "chatcmpl-mock", "object": "chat.completion", "model": "mock", "choices": [{{"index": 0, "message": {}, "finish_reason": "stop"}}], "usage": {{"prompt_tokens": 10, "completion_tokens": 5}}}}"#,
        dumps(&Value::Object(message), Escape::Utf8)
    )
}

fn mock_run(server: &MockServer, out: &Path, own: bool) {
    let mut args = vec![
        "run".to_owned(),
        "--dataset".into(),
        suite(),
        "--sessions".into(),
        "0-7".into(),
        "--model".into(),
        "mock/model".into(),
        "--base-url".into(),
        server.base_url(),
        "--out".into(),
        s(out),
        "--concurrency".into(),
        "4".into(),
        "--timeout".into(),
        "10".into(),
    ];
    if own {
        args.extend(["--history".to_owned(), "own".to_owned()]);
    }
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = wt(&refs);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// (session, position, correct, transitions) of a scored task.
type Label = (u64, u64, bool, u64);

/// The scored tasks of a report's outcome list.
fn labels(tasks: &serde_json::Value) -> Vec<Label> {
    tasks
        .as_array()
        .expect("tasks")
        .iter()
        .filter(|t| t["incomplete"] == false)
        .map(|t| {
            (
                t["session"].as_u64().unwrap_or(0),
                t["position"].as_u64().unwrap_or(0),
                t["correct"] == true,
                t["transitions"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

#[test]
fn errors_propagate_in_own_history_only_and_the_figure_is_its_labels() {
    let text = std::fs::read_to_string(suite()).expect("suite");
    let ds = Arc::new(load_dataset(&text, Lang::En));
    let server = MockServer::start(move |req| match propagating(&ds, &req.body) {
        Some(b) => Action::ok(b),
        None => Action::status(
            400,
            r#"{"error": {"message": "mock could not place the request"}}"#,
        ),
    });
    let gold = tmp("own-prop-gold");
    let own = tmp("own-prop-own");
    mock_run(&server, &gold, false);
    mock_run(&server, &own, true);

    let r = json(&own.join("own-report.json"));
    let p = &r["propagation"];
    assert!(
        p["failures_with_predecessor"].as_u64().unwrap_or(0) > 0,
        "{p}"
    );
    assert_eq!(p["share"], 1.0, "{p}");
    let own_labels = labels(&r["report"]["tasks"]);
    let gold_labels = labels(&json(&gold.join("report.json"))["tasks"]);
    assert_eq!(own_labels.len(), 32);
    assert_eq!(gold_labels.len(), 32);
    // Even sessions fail every task in own history, only the first in gold history.
    for &(sess, pos, ok, _) in &own_labels {
        assert_eq!(ok, sess % 2 == 1, "own history: session {sess} task {pos}");
    }
    for &(sess, pos, ok, _) in &gold_labels {
        assert_eq!(
            ok,
            !(sess % 2 == 0 && pos == 0),
            "gold history: session {sess} task {pos}"
        );
    }

    let cmp = tmp("own-prop-compare");
    let o = wt(&[
        "compare",
        &s(&gold),
        &s(&own),
        "--dataset",
        &suite(),
        "--out",
        &s(&cmp),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let fig = json(&cmp.join("self-conditioning.json"));
    assert_eq!(fig["propagation_own"]["share"], 1.0);
    assert_eq!(fig["propagation_gold"]["failures_with_predecessor"], 0);
    assert!(fig["propagation_gold"]["share"].is_null());
    assert!(std::fs::read_to_string(cmp.join("compare.html"))
        .expect("html")
        .contains("self-conditioning"));

    // Recompute by position and by transitions from the per-task labels.
    let find = |sess: u64, pos: u64| {
        gold_labels
            .iter()
            .find(|g| g.0 == sess && g.1 == pos)
            .map(|g| g.2)
            .expect("paired")
    };
    let check = |group: &str, key_of: &dyn Fn(&Label) -> String| {
        for c in fig[group].as_array().expect("group") {
            let key = c["key"].as_str().expect("key").to_owned();
            let members: Vec<_> = own_labels.iter().filter(|o| key_of(o) == key).collect();
            assert_eq!(
                c["tasks"].as_u64(),
                Some(members.len() as u64),
                "{group} {key}"
            );
            if members.is_empty() {
                continue;
            }
            let n = members.len() as f64;
            let own_rate = members.iter().filter(|o| o.2).count() as f64 / n;
            let gold_rate = members.iter().filter(|o| find(o.0, o.1)).count() as f64 / n;
            let d = c["delta"]["estimate"].as_f64().expect("delta");
            assert!(
                (d - (own_rate - gold_rate)).abs() < 1e-12,
                "{group} {key}: {d}"
            );
            let a_higher = members.iter().filter(|o| o.2 && !find(o.0, o.1)).count() as u64;
            let b_higher = members.iter().filter(|o| !o.2 && find(o.0, o.1)).count() as u64;
            assert_eq!(c["a_higher"].as_u64(), Some(a_higher));
            assert_eq!(c["b_higher"].as_u64(), Some(b_higher));
            let p = wildtool_core::compare::exact::mcnemar_exact(a_higher, b_higher);
            assert!((c["p"].as_f64().expect("p") - p).abs() < 1e-12);
        }
    };
    check("by_position", &|o| (o.1 + 1).to_string());
    check("by_transitions", &|o| o.3.to_string());

    // The overall difference and both propagation shares, recomputed from the labels.
    let n = own_labels.len() as f64;
    let own_rate = own_labels.iter().filter(|o| o.2).count() as f64 / n;
    let gold_rate = gold_labels.iter().filter(|g| g.2).count() as f64 / n;
    let d = fig["task_accuracy_delta"]["estimate"]
        .as_f64()
        .expect("overall delta");
    assert!((d - (own_rate - gold_rate)).abs() < 1e-12, "{d}");
    let share = |labels: &[Label]| {
        let failed: Vec<&Label> = labels.iter().filter(|l| l.1 > 0 && !l.2).collect();
        let following = failed
            .iter()
            .filter(|f| labels.iter().any(|e| e.0 == f.0 && e.1 < f.1 && !e.2))
            .count() as u64;
        (failed.len() as u64, following)
    };
    for (key, labels) in [
        ("propagation_own", &own_labels),
        ("propagation_gold", &gold_labels),
    ] {
        let (with_pred, following) = share(labels);
        assert_eq!(
            fig[key]["failures_with_predecessor"].as_u64(),
            Some(with_pred),
            "{key}"
        );
        assert_eq!(
            fig[key]["following_failure"].as_u64(),
            Some(following),
            "{key}"
        );
    }
}

#[test]
fn own_history_trials_give_pass_hat_k() {
    let own = tmp("own-trials");
    own_gold_run(&own, &["--trials", "2"]);
    let t = json(&own.join("own-trials.json"));
    assert!(t["extension"]
        .as_str()
        .is_some_and(|e| e.starts_with("Extension (own history)")));
    assert_eq!(t["trials"]["trials"], 2);
    assert_eq!(t["trials"]["tasks_scored"], 256);
    assert_eq!(t["trials"]["pass_hat_k"]["1"], 1.0);
    assert_eq!(t["trials"]["pass_hat_k"]["2"], 1.0);
    for k in 1..=2 {
        assert!(own.join(format!("trial-{k}/own-report.json")).is_file());
    }
    // Not an official file either.
    let o = wt(&[
        "score",
        "--dataset",
        &suite(),
        "--results",
        &s(&own.join("own-trials.json")),
        "--out",
        &s(&tmp("own-trials-score")),
    ]);
    assert_ne!(o.status.code(), Some(0));
}

/// pass^k over an own-history ledger run's trials, recomputed from each trial's per-task
/// env verdicts (`own-result.jsonl` scored by the core): (pass^1, pass^2, pass@2).
fn env_pass_rates(run: &Path, ds: &LoadedDataset) -> (f64, f64, f64) {
    use wildtool_core::ledger::run_file::SessionEnv;
    use wildtool_core::own::ledger_own::score_session;
    let mut passes: std::collections::BTreeMap<(usize, usize), u32> = Default::default();
    for trial in 1..=2 {
        let text = std::fs::read_to_string(run.join(format!("trial-{trial}/own-result.jsonl")))
            .expect("own-result");
        for line in text.lines().skip(1) {
            let v = loads(line).expect("line");
            let id = v.get("id").and_then(Value::as_str).expect("id");
            let session = ds.sessions.iter().find(|s| s.id == id).expect("session");
            let env = SessionEnv::of(session).expect("env").expect("ledger_env");
            let tasks = v.get("tasks").and_then(Value::as_array).expect("tasks");
            let scored = score_session(session, &env, tasks).expect("scored");
            for t in &scored.tasks {
                *passes.entry((session.index, t.task)).or_default() += u32::from(t.env_success);
            }
        }
    }
    let n = passes.len() as f64;
    let mean = |f: &dyn Fn(u32) -> f64| passes.values().map(|c| f(*c)).sum::<f64>() / n;
    (
        mean(&|c| f64::from(c) / 2.0),
        mean(&|c| f64::from(u32::from(c == 2))),
        mean(&|c| f64::from(u32::from(c >= 1))),
    )
}

#[test]
fn own_history_ledger_trials_give_pass_hat_k_on_env_success() {
    // The gold agent: every ledger task succeeds in every trial.
    let gold = tmp("own-env-trials-gold");
    own_gold_run(
        &gold,
        &["--env", "ledger", "--sessions", "0-15", "--trials", "2"],
    );
    let t = json(&gold.join("own-trials.json"));
    let env = &t["ledger_env"];
    assert!(env["extension"]
        .as_str()
        .is_some_and(|e| e.contains("ledger environment")));
    assert_eq!(env["trials"]["trials"], 2);
    assert_eq!(env["trials"]["tasks_scored"], 64);
    assert_eq!(env["trials"]["pass_hat_k"]["2"], 1.0);
    assert_eq!(env["trials"]["session_pass_hat_k"]["2"], 1.0);

    // A noisy model: in even sessions it fails each task once (the first time it is
    // asked, in whichever trial that is) and follows the gold path otherwise.
    let text = std::fs::read_to_string(suite()).expect("suite");
    let ds = Arc::new(load_dataset(&text, Lang::En));
    let seen = Arc::new(std::sync::Mutex::new(std::collections::BTreeSet::new()));
    let mock_ds = ds.clone();
    let server = MockServer::start(move |req| {
        let body = preflight_reply(&req.body).or_else(|| {
            let r = loads(&req.body).ok()?;
            let messages = r.get("messages")?.as_array()?.clone();
            let (line, task, step) = locate(&mock_ds, &messages)?;
            let first = step == 0 && seen.lock().ok()?.insert((line, task));
            let mut message = Map::new();
            message.insert("role", Value::str("assistant"));
            if first && line % 2 == 0 {
                message.insert("content", Value::str("Sorry, I cannot do that."));
            } else {
                let tools = r.get("tools")?;
                gold_message(&mock_ds, (line, task, step), &messages, tools, &mut message)?;
            }
            Some(completion(message))
        });
        match body {
            Some(b) => Action::ok(b),
            None => Action::status(400, r#"{"error": {"message": "unplaced"}}"#),
        }
    });
    let noisy = tmp("own-env-trials-noisy");
    let o = wt(&[
        "run",
        "--dataset",
        &suite(),
        "--sessions",
        "0-7",
        "--model",
        "mock/model",
        "--base-url",
        &server.base_url(),
        "--history",
        "own",
        "--env",
        "ledger",
        "--trials",
        "2",
        "--concurrency",
        "4",
        "--timeout",
        "10",
        "--out",
        &s(&noisy),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("env_success over 2 trials: pass^2"),
        "{stdout}"
    );
    let t = json(&noisy.join("own-trials.json"));
    let trials = &t["ledger_env"]["trials"];
    assert_eq!(trials["tasks_scored"], 32);
    let (p1, p2, at2) = env_pass_rates(&noisy, &ds);
    let got = |key: &str, j: &str| trials[key][j].as_f64().expect("rate");
    assert!((got("pass_hat_k", "1") - p1).abs() < 1e-12, "{trials}");
    assert!((got("pass_hat_k", "2") - p2).abs() < 1e-12, "{trials}");
    assert!((got("pass_at_k", "2") - at2).abs() < 1e-12, "{trials}");
    assert!(p2 < p1 && p1 < at2, "noise shows: {p2} < {p1} < {at2}");
    // The official-style trials stay beside it, not mixed with it.
    assert!(t["trials"]["pass_hat_k"]["2"].is_number());
}

/// `wildtool verify` on a run directory: (exit code, the ✗ lines).
fn verify_run(run: &Path) -> (Option<i32>, Vec<String>, String) {
    let o = wt(&["verify", &s(run), "--dataset", &suite()]);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let failed = out
        .lines()
        .filter(|l| l.starts_with('✗'))
        .map(str::to_owned)
        .collect();
    (o.status.code(), failed, out)
}

#[test]
fn an_own_history_run_writes_a_manifest_that_verify_checks_claim_by_claim() {
    let run = tmp("own-verify");
    own_gold_run(&run, &["--env", "ledger", "--trials", "2"]);
    let m = json(&run.join("manifest.json"));
    assert_eq!(m["kind"], "own:ledger");
    assert_eq!(m["settings"]["history_mode"], "own");
    assert_eq!(m["settings"]["env"], "ledger");
    let outputs = m["outputs"].as_array().expect("outputs");
    assert_eq!(outputs.len(), 2);
    for (k, o) in outputs.iter().enumerate() {
        assert_eq!(o["dir"], format!("trial-{}", k + 1));
        let dir = run.join(format!("trial-{}", k + 1));
        for name in ["own-result.jsonl", "own-report.json"] {
            let bytes = std::fs::read(dir.join(name)).expect("read");
            assert_eq!(
                o["files"][name],
                wildtool_core::provenance::sha256_hex(&bytes),
                "{name}"
            );
        }
        // The claims are the report's own numbers.
        let r = json(&dir.join("own-report.json"));
        assert_eq!(
            o["claims"]["task_accuracy.rate"],
            r["report"]["report"]["task_accuracy"]["rate"]
        );
        assert_eq!(o["claims"]["ledger_env.session_verdict.rate"], 1.0);
    }

    // A genuine run: every claim holds.
    let (code, failed, out) = verify_run(&run);
    assert_eq!(code, Some(0), "{out}");
    assert!(failed.is_empty(), "{out}");
    assert!(out.contains("✓ trial-2/own-report.json"), "{out}");
    assert!(out.contains("✓ trial-1/headline"), "{out}");

    // One claimed number changed in one trial's report: exactly that file fails.
    let copy = tmp("own-verify-claim");
    copy_run(&run, &copy);
    let report = copy.join("trial-2/own-report.json");
    let text = std::fs::read_to_string(&report).expect("read");
    let changed = text.replacen(
        "\"final_ledger_correct\": 16",
        "\"final_ledger_correct\": 15",
        1,
    );
    assert_ne!(changed, text);
    std::fs::write(&report, changed).expect("write");
    let (code, failed, out) = verify_run(&copy);
    assert_eq!(code, Some(1), "{out}");
    assert_eq!(failed.len(), 1, "{out}");
    assert!(failed[0].starts_with("✗ trial-2/own-report.json"), "{out}");
    assert!(failed[0].contains("final_ledger_correct"), "{out}");

    // One reply changed in the result file: its hash and the re-scored report fail.
    let copy = tmp("own-verify-reply");
    copy_run(&run, &copy);
    let result = copy.join("trial-1/own-result.jsonl");
    let text = std::fs::read_to_string(&result).expect("read");
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let mut line: serde_json::Value = serde_json::from_str(&lines[1]).expect("session line");
    let call = first_call_name(&mut line["tasks"]).expect("a task with a tool call");
    *call = serde_json::Value::from(WRONG);
    lines[1] = serde_json::to_string(&line).expect("json");
    std::fs::write(&result, lines.join("\n") + "\n").expect("write");
    let (code, failed, out) = verify_run(&copy);
    assert_eq!(code, Some(1), "{out}");
    let names: Vec<&str> = failed
        .iter()
        .map(|l| l.trim_start_matches("✗ ").split(':').next().unwrap_or(""))
        .collect();
    assert!(names.contains(&"trial-1/own-result.jsonl sha256"), "{out}");
    assert!(names.contains(&"trial-1/own-report.json"), "{out}");
    assert!(names.iter().all(|n| n.starts_with("trial-1/")), "{out}");
}

/// Copies a run directory (two levels).
fn copy_run(from: &Path, to: &Path) {
    for e in std::fs::read_dir(from).expect("dir").flatten() {
        let p = e.path();
        if p.is_dir() {
            let sub = to.join(e.file_name());
            std::fs::create_dir_all(&sub).expect("mkdir");
            for f in std::fs::read_dir(&p).expect("dir").flatten() {
                std::fs::copy(f.path(), sub.join(f.file_name())).expect("copy");
            }
        } else {
            std::fs::copy(&p, to.join(e.file_name())).expect("copy");
        }
    }
}

/// The name of the first tool call in a session line's task traces.
fn first_call_name(tasks: &mut serde_json::Value) -> Option<&mut serde_json::Value> {
    fn find(v: &mut serde_json::Value) -> Option<&mut serde_json::Value> {
        match v {
            serde_json::Value::Object(map) => {
                if map.get("name").is_some_and(|n| n.is_string()) && map.contains_key("arguments") {
                    return map.get_mut("name");
                }
                map.values_mut().find_map(find)
            }
            serde_json::Value::Array(items) => items.iter_mut().find_map(find),
            _ => None,
        }
    }
    find(tasks)
}
