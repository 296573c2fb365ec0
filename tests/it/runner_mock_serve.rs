//! Serves the scripted mock on a fixed port for the browser tests of the runner
//! (`crates/web/tests/runner_wasm.rs`, driven by `scripts/test-runner-wasm.sh`). Ignored by default;
//! it stops after `/shutdown` or 300 seconds. Under `/flaky429/` and `/flaky500/` the
//! first request with a given body fails (429 with `Retry-After: 0.2`, or 500).

use crate::mock_server;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mock_server::{Action, MockServer};

const CALL: &str = r#"{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Paris\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":11,"completion_tokens":7}}"#;
const MESSAGE: &str = r#"{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"Hi from Claude"}],"usage":{"input_tokens":3,"output_tokens":4}}"#;

#[test]
#[ignore = "helper server for the browser tests"]
fn serve_for_browser_tests() {
    let port: u16 = std::env::var("WILDTOOL_MOCK_PORT")
        .ok()
        .and_then(|p| p.parse().ok())
        .unwrap_or(18765);
    let stop = Arc::new(AtomicBool::new(false));
    let counts: Mutex<HashMap<String, usize>> = Mutex::new(HashMap::new());
    let stop2 = stop.clone();
    let _server = MockServer::start_on(port, move |req| {
        let n = counts
            .lock()
            .map(|mut c| {
                let e = c.entry(format!("{}\n{}", req.path, req.body)).or_insert(0);
                *e += 1;
                *e
            })
            .unwrap_or(1);
        match req.path.as_str() {
            "/shutdown" => {
                stop2.store(true, Ordering::SeqCst);
                Action::ok("{}")
            }
            p if p.starts_with("/flaky429/") && n == 1 => Action::rate_limited("0.2"),
            p if p.starts_with("/flaky500/") && n == 1 => Action::status(500, "internal"),
            "/anthropic/v1/messages" => {
                if req.header("anthropic-dangerous-direct-browser-access") == Some("true")
                    && req.header("x-api-key") == Some("test-key")
                {
                    Action::ok(MESSAGE)
                } else {
                    Action::status(
                        400,
                        r#"{"type":"error","error":{"message":"missing browser header or key"}}"#,
                    )
                }
            }
            _ => Action::ok(CALL),
        }
    })
    .unwrap_or_else(|e| panic!("port {port}: {e}"));
    println!("mock serving on 127.0.0.1:{port}");
    let start = Instant::now();
    while !stop.load(Ordering::SeqCst) && start.elapsed() < Duration::from_secs(300) {
        std::thread::sleep(Duration::from_millis(50));
    }
}
