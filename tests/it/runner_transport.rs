//! The live transport against a scripted local mock: request shape, key handling, and the
//! retry behaviour on 429 / 5xx / hangs / malformed JSON / dropped connections.

use crate::mock_server;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mock_server::{Action, MockServer};
use wildtool::native::{LiveResponder, UreqTransport};
use wildtool_core::json::{loads, Value};
use wildtool_core::runner::policy::RetryPolicy;
use wildtool_core::runner::provider::{AuthStyle, Endpoint, ProviderKind};

const CALL: &str = r#"{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Paris\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":11,"completion_tokens":7}}"#;

fn policy(timeout_ms: u64) -> RetryPolicy {
    RetryPolicy {
        max_retries: 3,
        base_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(50),
        max_retry_after: Duration::from_secs(2),
        jitter: 0.0,
        timeout: Duration::from_millis(timeout_ms),
    }
}

fn client(server: &MockServer, timeout_ms: u64) -> LiveResponder {
    LiveResponder {
        provider: ProviderKind::OpenAi,
        endpoint: Endpoint {
            base_url: server.base_url(),
            browser: false,
        },
        model: "mock-model".to_owned(),
        temperature: 0.0,
        policy: policy(timeout_ms),
        transport: Box::new(UreqTransport::new(
            Some((AuthStyle::Bearer, "sk-secret-123".to_owned())),
            4,
        )),
        cancel: Arc::new(AtomicBool::new(false)),
    }
}

fn messages() -> (Vec<Value>, Value) {
    let m =
        vec![loads(r#"{"role": "user", "content": "Weather in Paris?"}"#).unwrap_or(Value::Null)];
    let t = loads(r#"[{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]"#).unwrap_or(Value::Null);
    (m, t)
}

/// A handler that plays `script` in order and then answers `CALL`.
fn scripted(script: Vec<Action>) -> impl Fn(&mock_server::Request) -> Action + Send + Sync {
    let n = AtomicUsize::new(0);
    move |_| {
        script
            .get(n.fetch_add(1, Ordering::SeqCst))
            .cloned()
            .unwrap_or_else(|| Action::ok(CALL))
    }
}

#[test]
fn sends_the_official_body_with_the_key_only_in_the_header() {
    let server = MockServer::start(|_| Action::ok(CALL));
    let (m, t) = messages();
    let (reply, counts) = client(&server, 2000).complete(&m, &t, 1);
    let reply = reply.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(counts.requests, 1);
    assert_eq!(reply.input_tokens, Value::int(11));
    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    assert_eq!(reqs[0].path, "/v1/chat/completions");
    assert_eq!(
        reqs[0].header("authorization"),
        Some("Bearer sk-secret-123")
    );
    assert_eq!(
        reqs[0].body,
        r#"{"messages": [{"role": "user", "content": "Weather in Paris?"}], "model": "mock-model", "temperature": 0.0, "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]}"#
    );
    let t = UreqTransport::new(Some((AuthStyle::Bearer, "sk-secret-123".to_owned())), 1);
    assert!(
        !format!("{t:?}").contains("sk-secret"),
        "Debug never prints the key"
    );
}

#[test]
fn honours_retry_after_on_429() {
    let server = MockServer::start(scripted(vec![Action::rate_limited("0.3")]));
    let (m, t) = messages();
    let start = Instant::now();
    let (reply, counts) = client(&server, 2000).complete(&m, &t, 1);
    assert!(reply.is_ok());
    assert_eq!(
        counts,
        wildtool::native::StepCounts {
            requests: 2,
            retries: 1
        }
    );
    assert!(
        start.elapsed() >= Duration::from_millis(300),
        "waited {:?}",
        start.elapsed()
    );
}

#[test]
fn recovers_from_5xx_malformed_json_error_bodies_and_dropped_connections() {
    let server = MockServer::start(scripted(vec![
        Action::status(500, "oops"),
        Action::ok("{not json"),
        Action::ok(r#"{"error": {"message": "upstream overloaded"}}"#),
        Action::Drop,
    ]));
    let mut c = client(&server, 2000);
    c.policy.max_retries = 4;
    let (m, t) = messages();
    let (reply, counts) = c.complete(&m, &t, 1);
    assert!(reply.is_ok(), "{reply:?}");
    assert_eq!(counts.requests, 5);
    assert_eq!(counts.retries, 4);
}

#[test]
fn a_hang_past_the_timeout_is_retried() {
    let server = MockServer::start(scripted(vec![Action::Hang(Duration::from_millis(1500))]));
    let (m, t) = messages();
    let start = Instant::now();
    let (reply, counts) = client(&server, 200).complete(&m, &t, 1);
    assert!(reply.is_ok(), "{reply:?}");
    assert_eq!(counts.retries, 1);
    assert!(
        start.elapsed() < Duration::from_millis(1400),
        "took {:?}",
        start.elapsed()
    );
}

#[test]
fn gives_up_after_the_cap_and_at_once_on_permanent_errors() {
    let server = MockServer::start(|_| Action::status(503, "down"));
    let (m, t) = messages();
    let (reply, counts) = client(&server, 2000).complete(&m, &t, 1);
    let err = reply.err().map(|e| (e.attempts, e.cancelled));
    assert_eq!(err, Some((4, false)));
    assert_eq!(counts.requests, 4);

    let server = MockServer::start(|_| Action::status(401, r#"{"error": {"message": "bad key"}}"#));
    let (reply, counts) = client(&server, 2000).complete(&m, &t, 1);
    assert!(reply.is_err());
    assert_eq!(counts.requests, 1, "401 is not retried");
}

#[test]
fn cancellation_stops_waiting() {
    let server = MockServer::start(|_| Action::rate_limited("30"));
    let c = client(&server, 2000);
    let cancel = c.cancel.clone();
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(150));
        cancel.store(true, Ordering::SeqCst);
    });
    let (m, t) = messages();
    let start = Instant::now();
    let (reply, _) = c.complete(&m, &t, 1);
    let _ = stopper.join();
    assert!(matches!(reply, Err(e) if e.cancelled));
    assert!(start.elapsed() < Duration::from_secs(2));
}
