//! The native driver (worker threads + channel) and the ureq transport running the core's
//! engine against a scripted local mock: request shape and key handling, the retry
//! behaviour on 429 / 5xx / hangs / malformed JSON / dropped connections, timeouts,
//! redirects, and cancellation from another thread.

use crate::mock_server;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::support::mini;
use mock_server::{Action, MockServer};
use wildtool::native::{Control, Driver, UreqTransport};
use wildtool_core::dataset::Session;
use wildtool_core::runner::engine::{
    BackendSettings, Engine, Event, RunEnd, RunSettings, RunSpec, RunStatus,
};
use wildtool_core::runner::provider::{AuthStyle, ProviderKind};

/// A text answer: every task of the mini fixture ends after one step with it.
const TEXT: &str = r#"{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Sure."},"finish_reason":"stop"}],"usage":{"prompt_tokens":11,"completion_tokens":7}}"#;

fn settings(server: &MockServer) -> RunSettings {
    RunSettings {
        concurrency: 1,
        timeout: 2.0,
        retries: 3,
        backoff: 0.01,
        preflight: false,
        ..RunSettings::new(
            "mock-model",
            "fp",
            BackendSettings::Http {
                provider: ProviderKind::OpenAi,
                base_url: server.base_url(),
                temperature: 0.0,
                browser: false,
            },
        )
    }
}

/// Runs the first session of mini (4 tasks) through the native driver.
fn drive(
    s: RunSettings,
    key: Option<&str>,
    control: Option<(Duration, Control)>,
) -> (RunEnd, Vec<Event>) {
    let ds = mini();
    let sessions: Vec<&Session> = ds.sessions.iter().take(1).collect();
    let spec = RunSpec::new(s).unwrap_or_else(|e| panic!("{e}"));
    let auth = key.map(|k| (AuthStyle::Bearer, k.to_owned()));
    let mut driver = Driver::new(Arc::new(UreqTransport::new(auth, 4)));
    let mut engine =
        Engine::new(&sessions, spec, &[], driver.now()).unwrap_or_else(|e| panic!("{e}"));
    if let Some((after, c)) = control {
        let controller = driver.controller();
        std::thread::spawn(move || {
            std::thread::sleep(after);
            controller.send(c);
        });
    }
    let mut events = Vec::new();
    let end = driver.run(&mut engine, |e| {
        events.push(e);
        Ok::<(), ()>(())
    });
    (end.unwrap_or_else(|()| panic!("no store here")), events)
}

/// A handler that plays `script` in order and then answers `TEXT`.
fn scripted(script: Vec<Action>) -> impl Fn(&mock_server::Request) -> Action + Send + Sync {
    let n = AtomicUsize::new(0);
    move |_| {
        script
            .get(n.fetch_add(1, Ordering::SeqCst))
            .cloned()
            .unwrap_or_else(|| Action::ok(TEXT))
    }
}

#[test]
fn sends_the_official_body_with_the_key_only_in_the_header() {
    let server = MockServer::start(|_| Action::ok(TEXT));
    let (end, events) = drive(settings(&server), Some("sk-secret-123"), None);
    assert_eq!(end.status, RunStatus::Done);
    assert_eq!(end.progress.requests, 4);
    assert_eq!(end.progress.input_tokens, 44);
    let reqs = server.requests();
    assert_eq!(reqs.len(), 4);
    for r in &reqs {
        assert_eq!(r.path, "/v1/chat/completions");
        assert_eq!(r.header("authorization"), Some("Bearer sk-secret-123"));
        assert!(!r.body.contains("sk-secret"));
        assert!(r
            .body
            .starts_with(r#"{"messages": [{"role": "system", "content": "Current Date: "#));
        assert!(r
            .body
            .contains(r#""model": "mock-model", "temperature": 0.0, "tools": ["#));
    }
    let persisted = events
        .iter()
        .filter(|e| matches!(e, Event::Persist(_)))
        .count();
    assert_eq!(persisted, 5, "header + 4 records");
    let t = UreqTransport::new(Some((AuthStyle::Bearer, "sk-secret-123".to_owned())), 1);
    assert!(
        !format!("{t:?}").contains("sk-secret"),
        "Debug never prints the key"
    );
}

#[test]
fn honours_retry_after_on_429() {
    let server = MockServer::start(scripted(vec![Action::rate_limited("0.3")]));
    // Backoff 0.1 s, 3 retries: Retry-After is honoured up to 0.4 s.
    let s = RunSettings {
        backoff: 0.1,
        ..settings(&server)
    };
    let (end, _) = drive(s, None, None);
    assert_eq!(end.status, RunStatus::Done);
    assert_eq!((end.progress.requests, end.progress.retries), (5, 1));
    let reqs = server.requests();
    let gap = reqs[1].at.duration_since(reqs[0].at);
    assert!(gap >= Duration::from_millis(300), "waited {gap:?}");
    assert!(gap < Duration::from_millis(900), "waited {gap:?}");
}

#[test]
fn recovers_from_5xx_malformed_json_error_bodies_and_dropped_connections() {
    let server = MockServer::start(scripted(vec![
        Action::status(500, "oops"),
        Action::ok("{not json"),
        Action::ok(r#"{"error": {"message": "upstream overloaded"}}"#),
        Action::Drop,
    ]));
    let s = RunSettings {
        retries: 4,
        ..settings(&server)
    };
    let (end, _) = drive(s, None, None);
    assert_eq!(end.status, RunStatus::Done, "{:?}", end.incomplete);
    assert_eq!((end.progress.requests, end.progress.retries), (8, 4));
}

#[test]
fn a_hang_past_the_timeout_is_retried() {
    let server = MockServer::start(scripted(vec![Action::Hang(Duration::from_millis(1500))]));
    let s = RunSettings {
        timeout: 0.2,
        ..settings(&server)
    };
    let start = Instant::now();
    let (end, _) = drive(s, None, None);
    assert_eq!(end.status, RunStatus::Done);
    assert_eq!(end.progress.retries, 1);
    assert!(
        start.elapsed() < Duration::from_millis(1400),
        "took {:?}",
        start.elapsed()
    );
}

#[test]
fn gives_up_after_the_cap_and_at_once_on_permanent_errors() {
    let server = MockServer::start(|_| Action::status(503, "down"));
    let (end, _) = drive(settings(&server), None, None);
    assert_eq!(end.status, RunStatus::Failed);
    assert_eq!(end.progress.requests, 16, "1 attempt + 3 retries per task");
    assert!(end.incomplete[0]
        .reason
        .starts_with("gave up after 4 attempt(s): HTTP 503"));

    let server = MockServer::start(|_| Action::status(401, r#"{"error": {"message": "bad key"}}"#));
    let (end, _) = drive(settings(&server), None, None);
    assert_eq!(end.progress.requests, 4, "401 is not retried");
}

#[test]
fn redirects_are_not_followed_and_the_key_stays_home() {
    let elsewhere = MockServer::start(|_| Action::ok(TEXT));
    let target = format!("{}/chat/completions", elsewhere.base_url());
    for code in [301u16, 302, 307, 308] {
        let target = target.clone();
        let server = MockServer::start(move |_| Action::Respond {
            status: code,
            headers: vec![("Location".to_owned(), target.clone())],
            body: String::new(),
        });
        let (end, _) = drive(settings(&server), Some("sk-stay-home"), None);
        assert_eq!(end.progress.requests, 4, "{code}: not retried");
        assert!(
            end.incomplete.iter().all(|t| t.reason.contains("redirect")),
            "{code}"
        );
        assert_eq!(server.requests().len(), 4);
    }
    assert!(
        elsewhere.requests().is_empty(),
        "nothing reached the other origin"
    );
}

#[test]
fn cancel_from_another_thread_ends_a_retry_wait_and_a_hang_at_once() {
    // A 30 s Retry-After within a 30 s cap (backoff 10 s, timeout 60 s).
    let server = MockServer::start(|_| Action::rate_limited("30"));
    let s = RunSettings {
        backoff: 10.0,
        timeout: 60.0,
        ..settings(&server)
    };
    let start = Instant::now();
    let (end, _) = drive(
        s.clone(),
        None,
        Some((Duration::from_millis(300), Control::Cancel)),
    );
    assert_eq!(end.status, RunStatus::Cancelled);
    assert!(
        start.elapsed() < Duration::from_millis(1300),
        "took {:?}",
        start.elapsed()
    );

    let server = MockServer::start(|_| Action::Hang(Duration::from_secs(30)));
    let s = RunSettings {
        timeout: 60.0,
        ..settings(&server)
    };
    let start = Instant::now();
    let (end, _) = drive(s, None, Some((Duration::from_millis(300), Control::Cancel)));
    assert_eq!(end.status, RunStatus::Cancelled);
    assert_eq!(end.incomplete.len(), 1, "the task in flight");
    assert!(
        start.elapsed() < Duration::from_millis(1300),
        "took {:?}",
        start.elapsed()
    );
}

#[test]
fn pause_holds_new_tasks_until_resume() {
    let server = MockServer::start(|_| {
        std::thread::sleep(Duration::from_millis(100));
        Action::ok(TEXT)
    });
    let ds = mini();
    let sessions: Vec<&Session> = ds.sessions.iter().take(1).collect();
    let spec = RunSpec::new(settings(&server)).unwrap_or_else(|e| panic!("{e}"));
    let mut driver = Driver::new(Arc::new(UreqTransport::new(None, 1)));
    let mut engine =
        Engine::new(&sessions, spec, &[], driver.now()).unwrap_or_else(|e| panic!("{e}"));
    let controller = driver.controller();
    controller.send(Control::Pause);
    let resumer = driver.controller();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(600));
        resumer.send(Control::Resume);
    });
    let start = Instant::now();
    let end = driver
        .run(&mut engine, |_| Ok::<(), ()>(()))
        .unwrap_or_else(|()| panic!("no store"));
    assert_eq!(end.status, RunStatus::Done);
    let reqs = server.requests();
    assert_eq!(reqs.len(), 4);
    // The first task may have started before the pause arrived; the others waited.
    assert!(
        reqs[1].at.duration_since(start) >= Duration::from_millis(550),
        "second task started {:?} after the start",
        reqs[1].at.duration_since(start)
    );
}
