//! The page's run driver in headless Chromium: the page state, the core engine and the
//! real `fetch` transport against the local CORS mock (`tests/it/runner_mock_serve.rs`).
//! Run by `scripts/test-runner-wasm.sh`, which sets `WILDTOOL_MOCK_URL` at compile time;
//! without it the tests pass vacuously.
#![cfg(target_arch = "wasm32")]

use std::collections::VecDeque;

use wasm_bindgen_test::*;
use wildtool_web::field::Field;
use wildtool_web::msg::{Effect, FetchPurpose, Msg};
use wildtool_web::state::{AppState, Now};
use wildtool_web::views;

wasm_bindgen_test_configure!(run_in_browser);

const MOCK: Option<&str> = option_env!("WILDTOOL_MOCK_URL");
const MINI: &str = include_str!("../../../tests/fixtures/mini.jsonl");

fn now() -> Now {
    Now {
        mono: js_sys::Date::now() / 1000.0,
        unix_ms: js_sys::Date::now(),
    }
}

/// Carries out effects with the page's transport until nothing is left to do; timers
/// fire only when nothing else is pending (as in the browser, where they do not block).
async fn drive(state: &mut AppState, fx: Vec<Effect>) -> usize {
    let mut queue: VecDeque<Effect> = fx.into();
    let mut sent = 0;
    let mut wake: Option<f64> = None;
    loop {
        while let Some(e) = queue.pop_front() {
            let msg = match e {
                Effect::Send(out) => {
                    sent += 1;
                    let id = out.transmit.id.0;
                    Msg::Reply(id, wildtool_web::transport::fetch_reply(&out, None).await)
                }
                Effect::WakeAt(at) => {
                    wake = Some(at);
                    continue;
                }
                Effect::AgentsSoon => Msg::AgentStep,
                Effect::ContinueSoon => Msg::Continue,
                Effect::Fetch(_, FetchPurpose::Dataset) => {
                    Msg::Fetched(FetchPurpose::Dataset, Ok(MINI.to_owned()))
                }
                Effect::Fetch(_, p) => Msg::Fetched(p, Err("not served".into())),
                Effect::KvList(_, p) => Msg::Listed(p, Vec::new()),
                Effect::KvGet(_, p) => Msg::Got(p, None),
                // The test has no jieba module: characters stand in for words (for the
                // lab module, which scores, too).
                Effect::LoadJieba => {
                    let cut: wildtool_lab::score::Cut =
                        std::rc::Rc::new(|s: &str| Some(s.chars().map(String::from).collect()));
                    wildtool_lab::score::install_cut(cut.clone());
                    state.install_segmenter(cut);
                    Msg::JiebaLoaded(Ok(()))
                }
                // The lab module's calls, linked in (the page loads it as a second module);
                // its scorer is installed as the glue does when the module loads.
                Effect::Lab {
                    call,
                    input,
                    purpose,
                } => {
                    if !wildtool_web::scoring::ready() {
                        wildtool_web::scoring::install(std::rc::Rc::new(|input: &str| {
                            wildtool_lab::call("score", input).map_err(|e| e.to_string())
                        }));
                    }
                    match wildtool_lab::run(call, &input) {
                        Ok(output) => Msg::LabDone { purpose, output },
                        Err(e) => Msg::LabFailed {
                            purpose,
                            error: e.to_string(),
                        },
                    }
                }
                _ => continue,
            };
            queue.extend(state.update(msg, now()));
        }
        let active = state.run.as_ref().is_some_and(|r| r.active());
        match wake.take() {
            Some(at) if active => {
                let ms = ((at - now().mono) * 1000.0).clamp(0.0, 10_000.0) as u32;
                gloo_timers::future::TimeoutFuture::new(ms).await;
                queue.extend(state.update(Msg::Tick, now()));
            }
            _ => return sent,
        }
    }
}

async fn run(prefix: &str, provider: &str, key: &str) -> Option<(AppState, usize)> {
    let base = MOCK?;
    let href =
        format!("http://page/?provider={provider}&model=mock&concurrency=4&backoff=0.05&retries=3");
    let mut state = AppState::new(&href, None);
    let fx = state.start();
    drive(&mut state, fx).await;
    for (f, v) in [
        (Field::BaseUrl, format!("{base}/{prefix}/v1")),
        (Field::Key, key.to_owned()),
    ] {
        let fx = state.update(Msg::Set(f, v), now());
        drive(&mut state, fx).await;
    }
    let fx = state.update(Msg::Start, now());
    let sent = drive(&mut state, fx).await;
    Some((state, sent))
}

fn hook(state: &AppState, name: &str) -> String {
    let f = views::frame(state);
    match f.hooks.get(name) {
        Some(v) => v.clone(),
        None => format!(
            "(no {name}; status: {})",
            f.root
                .by_id("status")
                .map(|e| e.text_content())
                .unwrap_or_default()
        ),
    }
}

#[wasm_bindgen_test]
async fn a_page_run_goes_through_fetch_and_the_engine_to_the_end() {
    let Some((state, sent)) = run("ok", "openai", "k").await else {
        return;
    };
    assert_eq!(
        hook(&state, "runOutcome"),
        "done",
        "{}",
        hook(&state, "runError")
    );
    let h: serde_json::Value = serde_json::from_str(&hook(&state, "headline")).unwrap_or_default();
    assert_eq!(h["tasks_scored"], 32);
    assert!(sent > 32, "{sent} requests");
}

#[wasm_bindgen_test]
async fn rate_limits_and_server_errors_are_retried_through_cors() {
    for prefix in ["flaky429", "flaky500"] {
        let Some((state, _)) = run(prefix, "openai", "").await else {
            return;
        };
        assert_eq!(hook(&state, "runOutcome"), "done", "{prefix}");
        let retries = state.run.as_ref().map(|r| r.progress.retries).unwrap_or(0);
        assert!(retries > 0, "{prefix}: retries {retries}");
    }
}

#[wasm_bindgen_test]
async fn anthropic_from_the_browser_sends_the_access_header_and_a_wrong_key_fails() {
    let Some((ok, _)) = run("anthropic", "anthropic", "test-key").await else {
        return;
    };
    assert_eq!(hook(&ok, "runOutcome"), "done", "{}", hook(&ok, "runError"));
    let Some((bad, sent)) = run("anthropic", "anthropic", "wrong-key").await else {
        return;
    };
    assert_eq!(hook(&bad, "runOutcome"), "failed");
    assert!(
        hook(&bad, "runError").contains("400"),
        "{}",
        hook(&bad, "runError")
    );
    assert_eq!(sent, 1, "only the preflight was sent");
}
