//! The browser transport of the runner in headless Chromium against the local mock
//! (`tests/runner_mock_serve.rs`, with CORS). Run by `scripts/test-runner-wasm.sh`, which
//! sets `WILDTOOL_MOCK_URL` at compile time; without it the tests pass vacuously.
#![cfg(target_arch = "wasm32")]

use std::rc::Rc;
use std::time::Duration;

use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;
use wildtool_core::json::{loads, Value};
use wildtool_core::runner::policy::RetryPolicy;
use wildtool_core::runner::provider::{Endpoint, ProviderKind};
use wildtool_web::fetch::WebClient;

wasm_bindgen_test_configure!(run_in_browser);

const MOCK: Option<&str> = option_env!("WILDTOOL_MOCK_URL");

fn client(prefix: &str, provider: ProviderKind, key: Option<&str>) -> Option<WebClient> {
    let base = MOCK?;
    let policy = RetryPolicy {
        max_retries: 3,
        base_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(50),
        max_retry_after: Duration::from_secs(2),
        jitter: 0.0,
        timeout: Duration::from_secs(5),
    };
    Some(WebClient::new(
        provider,
        Endpoint {
            base_url: format!("{base}/{prefix}/v1"),
            browser: true,
        },
        "mock".to_owned(),
        0.0,
        policy,
        key.map(str::to_owned),
    ))
}

fn conversation() -> (Vec<Value>, Value) {
    let m = vec![
        loads(r#"{"role": "system", "content": "Current Date: 2024-06-15"}"#)
            .unwrap_or(Value::Null),
        loads(r#"{"role": "user", "content": "Weather in Paris?"}"#).unwrap_or(Value::Null),
    ];
    let t = loads(r#"[{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]"#).unwrap_or(Value::Null);
    (m, t)
}

#[wasm_bindgen_test]
async fn fetch_maps_an_openai_reply() {
    let Some(c) = client("ok", ProviderKind::OpenAi, Some("k")) else {
        return;
    };
    let (m, t) = conversation();
    let (reply, (requests, retries)) = c.complete(&m, &t, 1).await;
    let reply = reply.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((requests, retries), (1, 0));
    assert_eq!(reply.input_tokens, Value::int(11));
    assert!(reply.tool_calls.as_array().is_some_and(|c| c.len() == 1));
}

#[wasm_bindgen_test]
async fn retry_after_is_honoured_through_cors() {
    let Some(c) = client("flaky429", ProviderKind::OpenAi, None) else {
        return;
    };
    let (m, t) = conversation();
    let start = js_sys::Date::now();
    let (reply, (requests, retries)) = c.complete(&m, &t, 1).await;
    assert!(reply.is_ok());
    assert_eq!((requests, retries), (2, 1));
    assert!(
        js_sys::Date::now() - start >= 190.0,
        "Retry-After 0.2 s was read"
    );
    let Some(c) = client("flaky500", ProviderKind::OpenAi, None) else {
        return;
    };
    let (reply, (_, retries)) = c.complete(&m, &t, 1).await;
    assert!(reply.is_ok());
    assert_eq!(retries, 1);
}

#[wasm_bindgen_test]
async fn anthropic_from_the_browser_sends_the_access_header() {
    let Some(c) = client("anthropic", ProviderKind::Anthropic, Some("test-key")) else {
        return;
    };
    let (m, t) = conversation();
    let (reply, _) = c.complete(&m, &t, 1).await;
    assert_eq!(reply.map(|r| r.content), Ok(Value::str("Hi from Claude")));
}

#[wasm_bindgen_test]
async fn throughput_at_concurrency_32() {
    let Some(c) = client("ok", ProviderKind::OpenAi, None) else {
        return;
    };
    let c = Rc::new(c);
    let conv = Rc::new(conversation());
    const TOTAL: usize = 2000;
    const WIDTH: usize = 32;
    let start = js_sys::Date::now();
    let workers = js_sys::Array::new();
    for w in 0..WIDTH {
        let c = c.clone();
        let conv = conv.clone();
        workers.push(&wasm_bindgen_futures::future_to_promise(async move {
            let mut ok = 0u32;
            for i in (w..TOTAL).step_by(WIDTH) {
                if c.complete(&conv.0, &conv.1, i as u64).await.0.is_ok() {
                    ok += 1;
                }
            }
            Ok(JsValue::from(ok))
        }));
    }
    let done = wasm_bindgen_futures::JsFuture::from(js_sys::Promise::all(&workers))
        .await
        .unwrap_or(JsValue::NULL);
    let ok: f64 = js_sys::Array::from(&done)
        .iter()
        .filter_map(|v| v.as_f64())
        .sum();
    let secs = (js_sys::Date::now() - start) / 1000.0;
    assert_eq!(ok as usize, TOTAL);
    console_log!("browser runner overhead: {TOTAL} requests in {secs:.2}s = {:.0} req/s at concurrency {WIDTH}", TOTAL as f64 / secs);
}

#[wasm_bindgen_test]
async fn the_async_scheduler_runs_a_dataset_through_fetch_and_survives_5xx() {
    use std::cell::Cell;
    use wildtool_core::dataset::{load_dataset, Lang, Session};
    use wildtool_core::runner::checkpoint::MemoryStore;
    use wildtool_core::runner::plan::RunConfig;
    use wildtool_core::runner::schedule::execute_async;

    let loaded = load_dataset(include_str!("../../../tests/fixtures/mini.jsonl"), Lang::En);
    let sessions: Vec<&Session> = loaded.sessions.iter().collect();
    for prefix in ["ok", "flaky500"] {
        let Some(c) = client(prefix, ProviderKind::OpenAi, None) else {
            return;
        };
        let mut store = MemoryStore::default();
        let config = RunConfig {
            model: "mock",
            dataset_fingerprint: "fp",
            concurrency: 8,
        };
        let now = || js_sys::Date::now() / 1000.0;
        let summary = execute_async(
            &sessions,
            &c,
            &mut store,
            config,
            &Cell::new(false),
            &now,
            &mut |_, _| {},
        )
        .await;
        let summary = summary.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(summary.progress.done, 32, "{prefix}");
        assert!(
            summary.incomplete.is_empty(),
            "{prefix}: transport faults are retried, not model errors"
        );
        assert_eq!(summary.assembled.sessions, 8);
        assert_eq!(store.lines.len(), 33, "header + one line per task");
        if prefix == "flaky500" {
            assert!(summary.progress.retries > 0);
        }
    }
}
