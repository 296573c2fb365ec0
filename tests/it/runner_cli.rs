//! `wildtool run` on the run engine, end to end against local mocks: settings and URLs
//! refused with exit 2, `Retry-After` dates honoured within the user's cap, Ctrl-C during a
//! retry wait or a hanging request, the circuit breaker, adaptive concurrency against a
//! server that rate-limits above 4 concurrent requests, repeated trials that `wildtool
//! score` reproduces, and preflight failures (exit 4) before any task reaches the server.

use crate::mock_server;
use crate::runner_live::{
    assert_offline_score_matches, mini, mini_path, model_reply, model_server, stderr,
    task_accuracy, tmp, Behaviour,
};

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use mock_server::{Action, MockServer, Request};
use wildtool_core::json::{loads, Value};

fn wildtool(args: &[&str], out: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wildtool"))
        .arg("run")
        .arg("--dataset")
        .arg(mini_path())
        .arg("--out")
        .arg(out)
        .args(args)
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap_or_else(|e| panic!("spawn: {e}"))
}

fn json(path: &Path) -> Value {
    loads(&std::fs::read_to_string(path).unwrap_or_default()).unwrap_or(Value::Null)
}

fn num(v: Option<&Value>) -> f64 {
    match v {
        Some(Value::Float(f)) => *f,
        Some(v) => v.as_i64().map(|i| i as f64).unwrap_or(f64::NAN),
        None => f64::NAN,
    }
}

/// True for the preflight request (the only one without the dataset's system message).
fn is_preflight(r: &Request) -> bool {
    !r.body.starts_with(r#"{"messages": [{"role": "system""#)
}

/// An HTTP date (IMF-fixdate) for Unix time `t`.
fn http_date(t: u64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let days = (t / 86_400) as i64;
    let secs = t % 86_400;
    // Civil date from days since 1970-01-01 (proleptic Gregorian).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{}, {day:02} {} {year} {:02}:{:02}:{:02} GMT",
        DAYS[(days % 7) as usize],
        MONTHS[(month - 1) as usize],
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

#[test]
fn the_http_date_helper_is_right() {
    assert_eq!(http_date(784_111_777), "Sun, 06 Nov 1994 08:49:37 GMT");
    assert_eq!(http_date(1_835_481_599), "Tue, 29 Feb 2028 23:59:59 GMT");
}

#[test]
fn out_of_range_settings_and_bad_urls_exit_2_before_any_request() {
    let server = MockServer::start(|_| Action::status(500, "no request should arrive"));
    let base = server.base_url();
    let out = tmp("cli-usage");
    for (flag, value, expect) in [
        (
            "--timeout",
            "inf",
            "invalid timeout inf: expected a number of seconds from 0.1 to 3600",
        ),
        ("--timeout", "1e300", "invalid timeout 1e300"),
        ("--timeout", "NaN", "invalid timeout NaN"),
        ("--timeout", "-5", "invalid timeout -5.0"),
        (
            "--backoff",
            "1e300",
            "invalid backoff 1e300: expected a number of seconds from 0 to 600",
        ),
        ("--backoff", "inf", "invalid backoff inf"),
        (
            "--concurrency",
            "0",
            "invalid concurrency 0: expected a whole number from 1 to 256",
        ),
        ("--trials", "0", "invalid trials 0"),
        ("--retries", "21", "invalid retries 21"),
        ("--temperature", "NaN", "invalid temperature NaN"),
    ] {
        let arg = format!("{flag}={value}");
        let o = wildtool(&["--base-url", &base, "--model", "m", &arg], &out);
        assert_eq!(o.status.code(), Some(2), "{flag} {value}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(expect),
            "{flag} {value}: {}",
            stderr(&o)
        );
    }
    for url in ["not a url", "file:///x", "ftp://x", "http://"] {
        let start = Instant::now();
        let o = wildtool(&["--base-url", url, "--model", "m"], &out);
        assert_eq!(o.status.code(), Some(2), "{url}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("invalid base URL"),
            "{url}: {}",
            stderr(&o)
        );
        assert!(start.elapsed() < Duration::from_secs(5), "{url}: at once");
    }
    let o = wildtool(&["--base-url", &base, "--model", ""], &out);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("model name is empty"), "{}", stderr(&o));
    let o = wildtool(&["--base-url", &base], &out);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--model is required"), "{}", stderr(&o));
    assert!(server.requests().is_empty(), "nothing was sent");
    let _ = std::fs::remove_dir_all(&out);
}

/// A gold mock whose first task request answers 429 with `Retry-After: retry_after()`.
fn rate_limited_once(retry_after: impl Fn() -> String + Send + Sync + 'static) -> MockServer {
    let ds = mini();
    let first = AtomicUsize::new(0);
    MockServer::start(move |req| {
        if !is_preflight(req) && first.fetch_add(1, Ordering::SeqCst) == 0 {
            return Action::Respond {
                status: 429,
                headers: vec![("Retry-After".to_owned(), retry_after())],
                body: r#"{"error": {"message": "slow down"}}"#.to_owned(),
            };
        }
        match model_reply(&ds, &req.body, Behaviour::Gold) {
            Some(body) => Action::ok(body),
            None => Action::status(400, "{}"),
        }
    })
}

/// Seconds between the rejected request and its retry.
fn retry_gap(server: &MockServer) -> f64 {
    let reqs: Vec<Request> = server
        .requests()
        .into_iter()
        .filter(|r| !is_preflight(r))
        .collect();
    let first = reqs.first().unwrap_or_else(|| panic!("no task request"));
    let again = reqs[1..]
        .iter()
        .find(|r| r.body == first.body)
        .unwrap_or_else(|| panic!("no retry"));
    again.at.duration_since(first.at).as_secs_f64()
}

#[test]
fn retry_after_as_an_http_date_is_honoured_and_capped() {
    // Backoff 1 s, 3 retries: the cap is 4 s. The date is 3 s ahead (whole seconds, so
    // 2–3 s from now).
    let server = rate_limited_once(|| http_date(unix_now() + 3));
    let out = tmp("cli-date");
    let o = wildtool(
        &[
            "--base-url",
            &server.base_url(),
            "--model",
            "m",
            "--sessions",
            "0",
            "--concurrency",
            "1",
            "--backoff",
            "1",
            "--retries",
            "3",
        ],
        &out,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let gap = retry_gap(&server);
    assert!(
        (1.9..3.6).contains(&gap),
        "waited {gap}s for a date 2-3 s ahead"
    );
    // An hour ahead, with backoff 0.1 s and 3 retries: capped at 0.4 s.
    let server = rate_limited_once(|| http_date(unix_now() + 3600));
    let _ = std::fs::remove_dir_all(&out);
    let o = wildtool(
        &[
            "--base-url",
            &server.base_url(),
            "--model",
            "m",
            "--sessions",
            "0",
            "--concurrency",
            "1",
            "--backoff",
            "0.1",
            "--retries",
            "3",
        ],
        &out,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let gap = retry_gap(&server);
    assert!((0.35..1.2).contains(&gap), "waited {gap}s, capped at 0.4 s");
    let _ = std::fs::remove_dir_all(&out);
}

/// Starts a run, waits until `ready` holds for the server's requests, sends SIGINT and
/// returns the time the process took to exit after it, with its output.
fn interrupt(
    server: &MockServer,
    args: &[&str],
    out: &Path,
    ready: impl Fn(&[Request]) -> bool,
) -> (Duration, Output) {
    let child = Command::new(env!("CARGO_BIN_EXE_wildtool"))
        .arg("run")
        .arg("--dataset")
        .arg(mini_path())
        .arg("--out")
        .arg(out)
        .args(["--base-url", &server.base_url(), "--model", "m"])
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn: {e}"));
    let start = Instant::now();
    while !ready(&server.requests()) {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the run never got going"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(200));
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let signalled = Instant::now();
    assert!(sent.is_ok_and(|s| s.success()), "kill -INT failed");
    let o = child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("wait: {e}"));
    (signalled.elapsed(), o)
}

#[test]
fn ctrl_c_during_a_retry_wait_or_a_hanging_request_exits_within_a_second() {
    // Every request is rate-limited for 60 s; backoff 20 s lets the server's wait stand.
    let server = MockServer::start(|_| Action::rate_limited("60"));
    let out = tmp("cli-cancel-wait");
    let (took, o) = interrupt(
        &server,
        &[
            "--backoff",
            "20",
            "--retries",
            "5",
            "--concurrency",
            "2",
            "--no-preflight",
        ],
        &out,
        |r| r.len() >= 2,
    );
    assert!(
        took < Duration::from_secs(1),
        "exited {took:?} after Ctrl-C"
    );
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("interrupted"), "{}", stderr(&o));
    assert_eq!(
        json(&out.join("run.json"))
            .get("status")
            .and_then(Value::as_str),
        Some("cancelled")
    );

    // A request that hangs (timeout 600 s).
    let server = MockServer::start(|_| Action::Hang(Duration::from_secs(60)));
    let out2 = tmp("cli-cancel-hang");
    let (took, o) = interrupt(&server, &["--concurrency", "1"], &out2, |r| !r.is_empty());
    assert!(
        took < Duration::from_secs(1),
        "exited {took:?} after Ctrl-C"
    );
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&out);
    let _ = std::fs::remove_dir_all(&out2);
}

#[test]
fn the_circuit_breaker_stops_a_run_that_cannot_succeed() {
    let server = MockServer::start(|_| {
        Action::status(
            401,
            r#"{"error": {"message": "Incorrect API key provided"}}"#,
        )
    });
    let out = tmp("cli-breaker");
    let o = wildtool(
        &[
            "--base-url",
            &server.base_url(),
            "--model",
            "m",
            "--concurrency",
            "1",
            "--no-preflight",
        ],
        &out,
    );
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("run failed: stopped after 5 tasks in a row"),
        "{err}"
    );
    assert!(
        err.contains("HTTP 401") && err.contains("fix: check the API key"),
        "{err}"
    );
    assert_eq!(
        server.requests().len(),
        5,
        "401 is not retried; the 6th task never starts"
    );
    let run = json(&out.join("run.json"));
    assert_eq!(run.get("status").and_then(Value::as_str), Some("failed"));
    let ckpt = std::fs::read_to_string(out.join("checkpoint.jsonl")).unwrap_or_default();
    assert_eq!(ckpt.lines().count(), 1, "only the header");
    let inc = json(&out.join("incomplete.json"));
    assert_eq!(
        inc.get("tasks").and_then(Value::as_array).map(Vec::len),
        Some(5)
    );
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_20_mb_reply_is_not_read_nor_retried_and_the_limit_is_named() {
    // 20 MB of text in a well-formed reply, once with Content-Length (refused before
    // reading) and once chunked (reading stops at the limit).
    let reply = format!(
        r#"{{"choices": [{{"index": 0, "message": {{"role": "assistant", "content": "{}"}}, "finish_reason": "stop"}}]}}"#,
        "x".repeat(20 * 1024 * 1024)
    );
    for chunked in [false, true] {
        let body = reply.clone();
        let server = MockServer::start(move |_| {
            if chunked {
                Action::Chunked {
                    status: 200,
                    body: body.clone(),
                }
            } else {
                Action::ok(body.clone())
            }
        });
        let out = tmp(&format!("cli-20mb-{chunked}"));
        let started = Instant::now();
        let o = wildtool(
            &[
                "--base-url",
                &server.base_url(),
                "--model",
                "m",
                "--concurrency",
                "1",
                "--no-preflight",
            ],
            &out,
        );
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(3), "chunked {chunked}: {err}");
        assert!(
            err.contains("the limit for a reply body is 16777216 bytes (16.0 MiB)"),
            "chunked {chunked}: {err}"
        );
        // Not retried; the same failure five tasks in a row stops the run.
        assert_eq!(server.requests().len(), 5, "chunked {chunked}: {err}");
        let ckpt = std::fs::read_to_string(out.join("checkpoint.jsonl")).unwrap_or_default();
        assert_eq!(ckpt.lines().count(), 1, "nothing recorded");
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{:?}",
            started.elapsed()
        );
        let _ = std::fs::remove_dir_all(&out);
    }
}

#[test]
fn adaptive_concurrency_finishes_against_a_rate_limit_without_a_retry_storm() {
    // The server serves at most 4 requests at a time (each takes 40 ms) and answers 429
    // to any request beyond that.
    let ds = mini();
    let serving = Arc::new(AtomicUsize::new(0));
    let peak = Arc::new(AtomicUsize::new(0));
    let (s2, p2) = (serving.clone(), peak.clone());
    let server = MockServer::start(move |req| {
        let now = s2.fetch_add(1, Ordering::SeqCst) + 1;
        if now > 4 {
            s2.fetch_sub(1, Ordering::SeqCst);
            return Action::status(429, r#"{"error": {"message": "too many requests"}}"#);
        }
        p2.fetch_max(now, Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(40));
        let reply = model_reply(&ds, &req.body, Behaviour::Gold);
        s2.fetch_sub(1, Ordering::SeqCst);
        match reply {
            Some(body) => Action::ok(body),
            None => Action::status(400, "{}"),
        }
    });
    let out = tmp("cli-aimd");
    let o = wildtool(
        &[
            "--base-url",
            &server.base_url(),
            "--model",
            "m",
            "--concurrency",
            "32",
            "--retries",
            "20",
            "--backoff",
            "0.05",
        ],
        &out,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(task_accuracy(&out), 1.0);
    assert!(peak.load(Ordering::SeqCst) <= 4);
    let run = json(&out.join("run.json"));
    let c = run.get("concurrency").cloned().unwrap_or(Value::Null);
    let counters = run.get("counters").cloned().unwrap_or(Value::Null);
    let retries = num(counters.get("retries"));
    let requests = num(counters.get("requests"));
    assert_eq!(num(c.get("max")), 32.0);
    assert!(num(c.get("min_limit")) <= 4.0, "{c:?}");
    assert!(num(c.get("decreases")) >= 3.0, "{c:?}");
    // Bound: the first burst (at most 32 − 4 = 28 rejected), then about one rejection per
    // probe above the server's limit; the answered requests are about 60.
    assert!(
        retries <= 28.0 + (requests - retries) / 2.0,
        "{retries} retries for {requests} requests ({c:?})"
    );
    assert!(
        stderr(&o).contains("concurrency: lowered"),
        "{}",
        stderr(&o)
    );
    // The run's metadata in report.json records it too.
    let meta = json(&out.join("report.json"))
        .get("run")
        .and_then(|r| r.get("concurrency"))
        .cloned()
        .unwrap_or(Value::Null);
    assert_eq!(num(meta.get("max")), 32.0, "{meta:?}");
    assert_eq!(num(meta.get("min")), num(c.get("min_limit")), "{meta:?}");
    assert_eq!(
        num(meta.get("decreases")),
        num(c.get("decreases")),
        "{meta:?}"
    );
    assert_offline_score_matches(&out);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn trials_write_per_trial_files_that_score_reproduces_and_trials_json() {
    // Answers vary between trials: a step is answered wrongly when a hash of its request
    // and of how often that request was seen says so (bodies of later tasks differ
    // between trials through their history ids; first tasks repeat).
    let ds = mini();
    let seen: Mutex<HashMap<String, usize>> = Mutex::new(HashMap::new());
    let server = MockServer::start(move |req| {
        let n = seen
            .lock()
            .map(|mut s| {
                let e = s.entry(req.body.clone()).or_insert(0);
                *e += 1;
                *e
            })
            .unwrap_or(1);
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (req.body.as_str(), n).hash(&mut h);
        let behaviour = if h.finish() % 3 == 0 {
            Behaviour::WrongNames
        } else {
            Behaviour::Gold
        };
        match model_reply(&ds, &req.body, behaviour) {
            Some(body) => Action::ok(body),
            None => Action::status(400, "{}"),
        }
    });
    let out = tmp("cli-trials");
    let o = wildtool(
        &[
            "--base-url",
            &server.base_url(),
            "--model",
            "m",
            "--trials",
            "3",
            "--sessions",
            "0-3",
            "--concurrency",
            "4",
        ],
        &out,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!out.join("result.jsonl").exists(), "per-trial files only");
    let mut results = Vec::new();
    let mut accuracies = Vec::new();
    for t in 1..=3 {
        let dir = out.join(format!("trial-{t}"));
        for f in ["result.jsonl", "score.jsonl", "metric.json", "report.json"] {
            assert!(dir.join(f).is_file(), "trial-{t}/{f}");
        }
        assert_offline_score_matches(&dir);
        results.push(std::fs::read_to_string(dir.join("result.jsonl")).unwrap_or_default());
        accuracies.push(task_accuracy(&dir));
        assert_eq!(results[t - 1].lines().count(), 4);
    }
    assert!(
        results[0] != results[1] || results[1] != results[2],
        "the trials differ"
    );
    let ckpt = std::fs::read_to_string(out.join("checkpoint.jsonl")).unwrap_or_default();
    assert_eq!(ckpt.lines().count(), 1 + 3 * 16);
    assert_eq!(ckpt.matches("\"trial\": 2,").count(), 16);
    assert_eq!(ckpt.matches("\"trial\": 3,").count(), 16);
    let trials = json(&out.join("trials.json"));
    assert_eq!(num(trials.get("trials")), 3.0);
    let by_trial: Vec<f64> = trials
        .get("task_accuracy_by_trial")
        .and_then(Value::as_array)
        .map(|a| a.iter().map(|v| num(Some(v))).collect())
        .unwrap_or_default();
    for (a, b) in by_trial.iter().zip(&accuracies) {
        assert!((a - b).abs() < 1e-9, "{by_trial:?} vs {accuracies:?}");
    }
    let mean = accuracies.iter().sum::<f64>() / 3.0;
    let pass1 = num(trials.get("pass_hat_k").and_then(|p| p.get("1")));
    assert!(
        (pass1 - mean).abs() < 1e-9,
        "pass^1 {pass1} = mean accuracy {mean}"
    );
    // Resume per trial: drop trial 2's records; the rerun does exactly those 16 tasks.
    let kept: Vec<&str> = ckpt
        .lines()
        .filter(|l| !l.contains("\"trial\": 2,"))
        .collect();
    std::fs::write(out.join("checkpoint.jsonl"), kept.join("\n") + "\n").unwrap_or_default();
    let o = wildtool(
        &[
            "--base-url",
            &server.base_url(),
            "--model",
            "m",
            "--trials",
            "3",
            "--sessions",
            "0-3",
            "--concurrency",
            "4",
        ],
        &out,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("16 task(s) finished now, 32 resumed"),
        "{}",
        stderr(&o)
    );
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_failed_preflight_exits_4_before_any_task_is_sent() {
    let out = tmp("cli-preflight");
    let cases: Vec<(u16, &str, &str)> = vec![
        (
            401,
            r#"{"error": {"message": "Incorrect API key provided"}}"#,
            "authentication failed",
        ),
        (
            404,
            r#"{"error": {"message": "The model `m` does not exist"}}"#,
            "not found",
        ),
        (
            400,
            r#"{"error": {"message": "\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set"}}"#,
            "tool",
        ),
    ];
    for (code, body, expect) in cases {
        let body = body.to_owned();
        let server = MockServer::start(move |_| Action::status(code, body.clone()));
        let o = wildtool(&["--base-url", &server.base_url(), "--model", "m"], &out);
        assert_eq!(o.status.code(), Some(4), "{code}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(
            err.contains("preflight failed") && err.contains(expect),
            "{code}: {err}"
        );
        assert!(err.contains("fix: "), "{code}: {err}");
        let reqs = server.requests();
        assert_eq!(reqs.len(), 1, "{code}: only the preflight");
        assert!(is_preflight(&reqs[0]));
        assert!(!out.join("result.jsonl").exists());
    }
    // Nothing listening: unreachable, at once.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or(9);
    let start = Instant::now();
    let o = wildtool(
        &[
            "--base-url",
            &format!("http://127.0.0.1:{port}/v1"),
            "--model",
            "m",
        ],
        &out,
    );
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(stderr(&o).contains("unreachable"), "{}", stderr(&o));
    assert!(start.elapsed() < Duration::from_secs(10));
    // A redirect: refused, and the key never reaches the other origin.
    let elsewhere = MockServer::start(|_| Action::ok("{}"));
    let target = format!("{}/chat/completions", elsewhere.base_url());
    let server = MockServer::start(move |_| Action::Respond {
        status: 307,
        headers: vec![("Location".to_owned(), target.clone())],
        body: String::new(),
    });
    let o = Command::new(env!("CARGO_BIN_EXE_wildtool"))
        .args(["run", "--dataset"])
        .arg(mini_path())
        .arg("--out")
        .arg(&out)
        .args([
            "--base-url",
            &server.base_url(),
            "--model",
            "m",
            "--api-key-env",
            "WT_REDIRECT_KEY",
        ])
        .env("WT_REDIRECT_KEY", "sk-never-elsewhere")
        .output()
        .unwrap_or_else(|e| panic!("spawn: {e}"));
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(stderr(&o).contains("redirect"), "{}", stderr(&o));
    assert!(elsewhere.requests().is_empty());
    // --no-preflight skips it: the tasks themselves are sent (and fail).
    let server = MockServer::start(|_| Action::status(401, "{}"));
    let o = wildtool(
        &[
            "--base-url",
            &server.base_url(),
            "--model",
            "m",
            "--no-preflight",
            "--concurrency",
            "1",
        ],
        &out,
    );
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(server.requests().iter().all(|r| !is_preflight(r)));
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_gold_model_behind_the_engine_still_matches_offline_scoring() {
    let server = model_server(Behaviour::Gold, |_, _| None);
    let out = tmp("cli-gold");
    let o = wildtool(
        &[
            "--base-url",
            &server.base_url(),
            "--model",
            "m",
            "--concurrency",
            "8",
        ],
        &out,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(task_accuracy(&out), 1.0);
    assert_offline_score_matches(&out);
    let reqs = server.requests();
    assert_eq!(reqs.iter().filter(|r| is_preflight(r)).count(), 1);
    assert!(is_preflight(&reqs[0]), "the preflight comes first");
    let run = json(&out.join("run.json"));
    assert_eq!(run.get("status").and_then(Value::as_str), Some("done"));
    assert_eq!(num(run.get("tasks_scored")), 32.0);
    let _ = std::fs::remove_dir_all(&out);
}
