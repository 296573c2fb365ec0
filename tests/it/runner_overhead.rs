//! Runner overhead against a zero-latency local mock: requests per second through the
//! whole native path (request building, HTTP over loopback, response parsing, retry
//! wrapper) at concurrency 32. Ignored by default; run with
//! `cargo test --release --test runner_overhead -- --ignored --nocapture`.

use crate::mock_server;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mock_server::{Action, MockServer};
use wildtool::native::{run_pool, LiveResponder, UreqTransport};
use wildtool_core::json::{loads, Value};
use wildtool_core::runner::policy::RetryPolicy;
use wildtool_core::runner::provider::{Endpoint, ProviderKind};

const REPLY: &str = r#"{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Paris\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":1200,"completion_tokens":20}}"#;

fn conversation() -> (Vec<Value>, Value) {
    // A mid-session request: system, 3 earlier tasks with tool calls and results, user.
    let mut m = vec![loads(
        r#"{"role": "system", "content": "Current Date: 2024-06-15 09:30:12 Saturday"}"#,
    )
    .unwrap_or(Value::Null)];
    for i in 0..3 {
        m.push(loads(&format!(r#"{{"role": "user", "content": "Task {i}: what is the weather in Paris and Berlin tomorrow morning?"}}"#)).unwrap_or(Value::Null));
        m.push(loads(r#"{"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}, "id": "toolu_bdrk_01234567890123456789abcd"}]}"#).unwrap_or(Value::Null));
        m.push(loads(r#"{"role": "tool", "content": "\"{\\\"temp\\\": 21.5, \\\"condition\\\": \\\"sunny\\\", \\\"humidity\\\": 40}\"", "tool_call_id": "toolu_bdrk_01234567890123456789abcd"}"#).unwrap_or(Value::Null));
        m.push(loads(r#"{"role": "assistant", "content": "It will be sunny and 21.5 degrees in Paris."}"#).unwrap_or(Value::Null));
    }
    m.push(loads(r#"{"role": "user", "content": "And in Madrid?"}"#).unwrap_or(Value::Null));
    let tools = loads(r#"[{"type": "function", "function": {"name": "get_weather", "description": "Get the current weather for a city.", "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "City name."}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, "required": ["city"]}}}, {"type": "function", "function": {"name": "search_flights", "description": "Search flights between two cities on a date.", "parameters": {"type": "object", "properties": {"origin": {"type": "string"}, "destination": {"type": "string"}, "date": {"type": "string"}}, "required": ["origin", "destination", "date"]}}}]"#).unwrap_or(Value::Null);
    (m, tools)
}

#[test]
#[ignore = "benchmark; run explicitly with --ignored --nocapture"]
fn requests_per_second_at_concurrency_32() {
    let server = MockServer::start(|_| Action::ok(REPLY));
    let client = LiveResponder {
        provider: ProviderKind::OpenAi,
        endpoint: Endpoint {
            base_url: server.base_url(),
            browser: false,
        },
        model: "bench".to_owned(),
        temperature: 0.0,
        policy: RetryPolicy {
            timeout: Duration::from_secs(10),
            ..RetryPolicy::default()
        },
        transport: Box::new(UreqTransport::new(None, 32)),
        cancel: Arc::new(AtomicBool::new(false)),
    };
    let (messages, tools) = conversation();
    let jobs: Vec<u64> = (0..4000).collect();
    // Warm up the connection pool.
    run_pool(
        &jobs[..64],
        32,
        &AtomicBool::new(false),
        |&i| client.complete(&messages, &tools, i).0.is_ok(),
        |_, _| {},
    );
    let start = Instant::now();
    let mut ok = 0usize;
    run_pool(
        &jobs,
        32,
        &AtomicBool::new(false),
        |&i| client.complete(&messages, &tools, i).0.is_ok(),
        |_, r| ok += usize::from(r),
    );
    let secs = start.elapsed().as_secs_f64();
    assert_eq!(ok, jobs.len());
    let body = wildtool_core::runner::provider::ProviderKind::OpenAi
        .build(
            &wildtool_core::runner::provider::ChatRequest {
                model: "bench",
                temperature: 0.0,
                messages: &messages,
                tools: &tools,
            },
            &Endpoint {
                base_url: String::new(),
                browser: false,
            },
        )
        .body
        .len();
    println!("runner overhead: {} requests in {secs:.2}s = {:.0} req/s at concurrency 32 (request body {body} bytes)", jobs.len(), jobs.len() as f64 / secs);
}
