//! `wildtool run --stream` end to end against the scripted mock model: the same
//! `score.jsonl`, `metric.json` and labels as the same run without streaming, the stream
//! switch on every request, first-token latency recorded; torn streams (closed mid-event,
//! an event over the body limit, a stream that never ends, a silent stream, an unknown
//! event type, an end before the last event) retried as transport failures and never
//! past the timeout; a server that always tears its streams leaves the tasks incomplete
//! (resumable), never scored as model errors.

use crate::mock_server;
use crate::runner_live::{
    asks_to_stream, assert_offline_score_matches, mini_path, model_server, preflight_reply, stderr,
    task_accuracy, tmp, Behaviour,
};

use std::path::Path;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mock_server::{Action, MockServer, Request, StreamEnd};
use wildtool_core::json::{loads, Value};
use wildtool_core::runner::provider::ProviderKind;
use wildtool_core::runner::stream::replay::events_for;

/// The event stream a correct server sends for the whole reply `body`.
pub(crate) fn as_stream(body: &str, piece: usize) -> Action {
    match events_for(ProviderKind::OpenAi, body, piece) {
        Ok(text) => Action::events(&text),
        Err(e) => Action::status(500, e),
    }
}

fn wildtool_run(server: &MockServer, out: &Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wildtool"))
        .args(["run", "--dataset"])
        .arg(mini_path())
        .args([
            "--model",
            "mock/model",
            "--base-url",
            &server.base_url(),
            "--out",
        ])
        .arg(out)
        .args(["--backoff", "0.01"])
        .args(extra)
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap_or_else(|e| panic!("spawn: {e}"))
}

fn json(path: &Path) -> Value {
    loads(&std::fs::read_to_string(path).unwrap_or_default()).unwrap_or(Value::Null)
}

fn at<'a>(v: &'a Value, path: &[&str]) -> &'a Value {
    path.iter().fold(v, |v, k| v.get(k).unwrap_or(&Value::Null))
}

/// A file's text with every `"latency": [...]` list blanked: request times are the one
/// thing no two runs share.
fn without_latency(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("\"latency\": [") {
        out.push_str(&rest[..i]);
        out.push_str("\"latency\": []");
        let tail = &rest[i..];
        rest = &tail[tail.find(']').map_or(tail.len(), |j| j + 1)..];
    }
    out.push_str(rest);
    out
}

fn same_scores(a: &Path, b: &Path) {
    let score = |d: &Path| std::fs::read_to_string(d.join("score.jsonl")).ok();
    let (x, y) = (score(a), score(b));
    assert!(
        x.as_deref().is_some_and(|s| s.contains("\"latency\": [0")),
        "score.jsonl written"
    );
    assert_eq!(
        x.as_deref().map(without_latency),
        y.as_deref().map(without_latency),
        "score.jsonl is the same with and without --stream (request times aside)"
    );
    let metric = |d: &Path| std::fs::read(d.join("metric.json")).ok();
    assert!(metric(a).is_some());
    assert_eq!(
        metric(a),
        metric(b),
        "metric.json is the same byte for byte"
    );
}

#[test]
fn a_streamed_run_scores_exactly_like_the_same_run_without_streaming() {
    for behaviour in [Behaviour::Gold, Behaviour::BadArguments] {
        let server = model_server(behaviour, |_, _| None);
        let plain = tmp("stream-plain");
        let o = wildtool_run(&server, &plain, &["--retries", "3", "--concurrency", "4"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let before = server.requests().len();
        let streamed = tmp("stream-streamed");
        let o = wildtool_run(
            &server,
            &streamed,
            &["--retries", "3", "--concurrency", "4", "--stream"],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(stderr(&o).contains("stream: first token"), "{}", stderr(&o));
        same_scores(&plain, &streamed);
        assert_offline_score_matches(&streamed);
        let requests = server.requests();
        assert!(
            requests[before..].iter().all(|r| asks_to_stream(&r.body)),
            "every request of the streamed run carries the stream switch"
        );
        assert!(requests[..before].iter().all(|r| !asks_to_stream(&r.body)));
        let run = json(&streamed.join("run.json"));
        assert_eq!(at(&run, &["settings", "stream"]), &Value::Bool(true));
        let first = at(&run, &["counters", "first_token_seconds", "count"]).as_i64();
        assert!(first.is_some_and(|n| n > 0), "{run}");
        let report = json(&streamed.join("report.json"));
        assert!(
            at(&report, &["run", "stream", "first_token", "median"]) != &Value::Null,
            "report.json records that the run streamed"
        );
        let plain_report = json(&plain.join("report.json"));
        assert_eq!(at(&plain_report, &["run", "stream"]), &Value::Null);
        if behaviour == Behaviour::Gold {
            assert_eq!(task_accuracy(&streamed), 1.0);
        }
    }
}

/// The server's correct stream for `req`, cut as `kind` says.
fn torn(req: &Request, kind: usize, huge_sent: &AtomicBool) -> Option<Action> {
    let ds = crate::runner_live::mini();
    let body = crate::runner_live::model_reply(&ds, &req.body, Behaviour::Gold)?;
    let text = events_for(ProviderKind::OpenAi, &body, 5).ok()?;
    let bytes = text.as_bytes();
    let cut = bytes.len() / 2;
    let mid = cut + bytes[cut..].iter().position(|b| *b == b'{').unwrap_or(0) + 1;
    Some(match kind {
        // Closed in the middle of an event.
        0 => Action::Stream {
            status: 200,
            chunks: vec![bytes[..mid].to_vec()],
            gap: Duration::ZERO,
            end: StreamEnd::Drop,
        },
        // An event over the body limit (sent once per run: it is 17 MB).
        1 if !huge_sent.swap(true, Ordering::SeqCst) => {
            let mut huge = b"data: \"".to_vec();
            huge.resize(17 * 1024 * 1024, b'x');
            Action::Stream {
                status: 200,
                chunks: vec![huge],
                gap: Duration::ZERO,
                end: StreamEnd::Complete,
            }
        }
        // A stream that never ends (keep-alive comments only).
        2 => Action::Stream {
            status: 200,
            chunks: vec![bytes[..text.find("\n\n").unwrap_or(0) + 2].to_vec()],
            gap: Duration::ZERO,
            end: StreamEnd::KeepAlive {
                every: Duration::from_millis(100),
                for_at_most: Duration::from_secs(20),
            },
        },
        // An event of an unknown type.
        3 => Action::events(&format!(
            "event: tool_call_generating\ndata: {{}}\n\n{text}"
        )),
        // Silence after the first event.
        4 => Action::Stream {
            status: 200,
            chunks: vec![bytes[..text.find("\n\n").unwrap_or(0) + 2].to_vec()],
            gap: Duration::ZERO,
            end: StreamEnd::KeepAlive {
                every: Duration::from_secs(8),
                for_at_most: Duration::from_secs(9),
            },
        },
        // Ended at an event boundary before data: [DONE].
        _ => Action::events(&text[..text.find("\n\n").unwrap_or(0) + 2]),
    })
}

#[test]
fn torn_streams_are_retried_as_transport_failures_within_the_timeouts() {
    let huge_sent = Arc::new(AtomicBool::new(false));
    let kinds = Arc::new(std::sync::Mutex::new(0usize));
    let server = model_server(Behaviour::Gold, move |req, attempt| {
        if attempt > 1 || !asks_to_stream(&req.body) || preflight_reply(&req.body).is_some() {
            return None;
        }
        let kind = kinds.lock().map(|mut k| {
            *k += 1;
            *k % 6
        });
        torn(req, kind.unwrap_or(0), &huge_sent)
    });
    let out = tmp("stream-torn");
    let start = Instant::now();
    let o = wildtool_run(
        &server,
        &out,
        &[
            "--stream",
            "--timeout",
            "3",
            "--stream-idle-timeout",
            "0.5",
            "--retries",
            "2",
            "--concurrency",
            "4",
        ],
    );
    let took = start.elapsed();
    assert!(
        o.status.success(),
        "every task done after retries: {}",
        stderr(&o)
    );
    assert_eq!(
        task_accuracy(&out),
        1.0,
        "torn streams never become model errors"
    );
    let run = json(&out.join("run.json"));
    let retries = at(&run, &["counters", "retries"]).as_i64().unwrap_or(0);
    assert!(retries >= 6, "each torn stream was retried: {run}");
    // Every failure is bounded by its timeout (3 s for the endless stream, 0.5 s for the
    // silent one); with 4 requests in flight the whole run stays well under a serial sum.
    assert!(took < Duration::from_secs(60), "took {took:?}");
}

#[test]
fn a_server_that_always_tears_its_streams_leaves_tasks_incomplete_with_the_reason() {
    let server = MockServer::start(|req| {
        if preflight_reply(&req.body).is_some() {
            return as_stream(&preflight_reply(&req.body).unwrap_or_default(), 4);
        }
        Action::Stream {
            status: 200,
            chunks: vec![b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel".to_vec()],
            gap: Duration::ZERO,
            end: StreamEnd::Drop,
        }
    });
    let out = tmp("stream-always-torn");
    let o = wildtool_run(
        &server,
        &out,
        &[
            "--stream",
            "--timeout",
            "2",
            "--retries",
            "1",
            "--sessions",
            "0",
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(3),
        "incomplete, resumable: {}",
        stderr(&o)
    );
    let incomplete = std::fs::read_to_string(out.join("incomplete.json")).unwrap_or_default();
    assert!(
        incomplete.contains(
            "gave up after 2 attempt(s): the event stream was cut in the middle of event 1"
        ),
        "{incomplete}"
    );
}

#[test]
fn a_stream_that_never_ends_is_given_up_at_the_request_timeout() {
    let server = MockServer::start(|req| {
        if preflight_reply(&req.body).is_some() {
            return as_stream(&preflight_reply(&req.body).unwrap_or_default(), 4);
        }
        Action::Stream {
            status: 200,
            chunks: vec![
                b"data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"}}]}\n\n"
                    .to_vec(),
            ],
            gap: Duration::ZERO,
            end: StreamEnd::KeepAlive {
                every: Duration::from_millis(50),
                for_at_most: Duration::from_secs(30),
            },
        }
    });
    let out = tmp("stream-endless");
    let start = Instant::now();
    let o = wildtool_run(
        &server,
        &out,
        &[
            "--stream",
            "--timeout",
            "1.5",
            "--retries",
            "0",
            "--sessions",
            "0",
            "--concurrency",
            "1",
        ],
    );
    let took = start.elapsed();
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let incomplete = std::fs::read_to_string(out.join("incomplete.json")).unwrap_or_default();
    assert!(
        incomplete.contains("timed out: no response within 1.5s"),
        "{incomplete}"
    );
    // One session of a few tasks, each given up after 1.5 s, one at a time.
    assert!(took < Duration::from_secs(4 * 2 + 5), "took {took:?}");
}
