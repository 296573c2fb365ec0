//! Runner overhead against a zero-latency local mock: requests per second through the
//! whole native path (engine, task state machines, request building, worker threads, HTTP
//! over loopback, response parsing, checkpoint lines) at concurrency 32: the bundled suite
//! run 16 times as trials (4,096 tasks). Ignored by default; run with
//! `cargo test --release --test it runner_overhead -- --ignored --nocapture`.

use crate::mock_server;

use std::sync::Arc;
use std::time::Instant;

use mock_server::{Action, MockServer};
use wildtool::native::{Driver, UreqTransport};
use wildtool_core::dataset::{load_dataset, Lang, Session};
use wildtool_core::runner::engine::{
    BackendSettings, Engine, Event, RunSettings, RunSpec, RunStatus,
};
use wildtool_core::runner::provider::ProviderKind;

/// A text answer: most tasks end after one step with it.
const TEXT: &str = r#"{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Sure."},"finish_reason":"stop"}],"usage":{"prompt_tokens":1200,"completion_tokens":20}}"#;

#[test]
#[ignore = "benchmark; run explicitly with --ignored --nocapture"]
fn requests_per_second_at_concurrency_32() {
    let server = MockServer::start(|_| Action::ok(TEXT));
    let ds = load_dataset(&crate::support::read("data/suite.jsonl"), Lang::En);
    let sessions: Vec<&Session> = ds.sessions.iter().collect();
    let spec = RunSpec::new(RunSettings {
        trials: 16,
        concurrency: 32,
        timeout: 10.0,
        preflight: false,
        ..RunSettings::new(
            "bench",
            "fp",
            BackendSettings::Http {
                provider: ProviderKind::OpenAi,
                base_url: server.base_url(),
                temperature: 0.0,
                browser: false,
            },
        )
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let mut driver = Driver::new(Arc::new(UreqTransport::new(None, 32)));
    let mut engine =
        Engine::new(&sessions, spec, &[], driver.now()).unwrap_or_else(|e| panic!("{e}"));
    let start = Instant::now();
    let mut lines = 0usize;
    let end = driver
        .run(&mut engine, |e| {
            if let Event::Persist(l) = e {
                lines += l.len();
            }
            Ok::<(), ()>(())
        })
        .unwrap_or_else(|()| panic!("no store"));
    let secs = start.elapsed().as_secs_f64();
    assert_eq!(end.status, RunStatus::Done);
    let requests = end.progress.requests;
    println!(
        "runner overhead: {requests} requests ({} tasks, {lines} checkpoint bytes) in {secs:.2}s = {:.0} req/s at concurrency 32",
        end.progress.done,
        requests as f64 / secs
    );
}
