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
    // Longest own backoff 100 ms · 2^2 = 400 ms: a Retry-After of 0.2 s is honoured.
    let policy = RetryPolicy {
        max_retries: 3,
        base_delay: Duration::from_millis(100),
        max_delay: Duration::from_secs(1),
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
async fn the_engine_runs_a_dataset_through_fetch_and_survives_5xx() {
    use wildtool_core::dataset::{load_dataset, Lang, Session};
    use wildtool_core::runner::engine::{
        BackendSettings, Engine, Event, RunSettings, RunSpec, RunStatus,
    };
    use wildtool_core::runner::http::{HttpReply, HttpResponse, NetworkFailure, NetworkKind};
    use wildtool_web::fetch::{fetch, sleep};

    let Some(base) = MOCK else {
        return;
    };
    let loaded = load_dataset(include_str!("../../../tests/fixtures/mini.jsonl"), Lang::En);
    let sessions: Vec<&Session> = loaded.sessions.iter().collect();
    let now = || js_sys::Date::now() / 1000.0;
    for prefix in ["ok", "flaky500"] {
        let spec = RunSpec::new(RunSettings {
            concurrency: 8,
            timeout: 5.0,
            retries: 3,
            backoff: 0.01,
            ..RunSettings::new(
                "mock",
                "fp",
                BackendSettings::Http {
                    provider: ProviderKind::OpenAi,
                    base_url: format!("{base}/{prefix}/v1"),
                    temperature: 0.0,
                    browser: true,
                },
            )
        })
        .unwrap_or_else(|e| panic!("{e}"));
        let mut engine = Engine::new(&sessions, spec, &[], now()).unwrap_or_else(|e| panic!("{e}"));
        let mut lines = 0;
        let mut end = None;
        while end.is_none() {
            engine.handle_timeout(now());
            let mut batch = Vec::new();
            while let Some(t) = engine.poll_transmit(now()) {
                batch.push(t);
            }
            let idle = batch.is_empty();
            for t in batch {
                let reply = match fetch(&t.request, None, Duration::from_secs(5)).await {
                    Ok(r) => HttpReply::Response(HttpResponse {
                        status: r.status,
                        body: r.body,
                        retry_after: r.retry_after,
                        location: None,
                        now_unix: now(),
                    }),
                    Err(message) => HttpReply::Network(NetworkFailure {
                        kind: NetworkKind::Other,
                        message,
                    }),
                };
                engine.handle_reply(t.id, reply, now());
            }
            while let Some(e) = engine.poll_event() {
                match e {
                    Event::Persist(_) => lines += 1,
                    Event::Finished(e) => end = Some(e),
                    _ => {}
                }
            }
            if end.is_none() && idle {
                let wait = engine.poll_timeout().map_or(0.01, |t| (t - now()).max(0.0));
                sleep(Duration::from_secs_f64(wait)).await;
            }
        }
        let end = end.unwrap_or_else(|| panic!("no end"));
        assert_eq!(end.status, RunStatus::Done, "{prefix}: {:?}", end.reason);
        assert_eq!(end.progress.done, 32, "{prefix}");
        assert!(
            end.incomplete.is_empty(),
            "{prefix}: transport faults are retried, not model errors"
        );
        assert_eq!(end.trials[0].sessions, 8);
        assert_eq!(lines, 33, "header + one line per task");
        if prefix == "flaky500" {
            assert!(end.progress.retries > 0);
        }
    }
}
