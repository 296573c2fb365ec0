//! Live evaluation from the page: one task at a time through the runner's async task
//! driver (the official task state machine), each step sent with the runner's browser
//! transport (`fetch`, retries, timeouts). The API key stays inside the [`LiveClient`] (WASM memory) and is never
//! returned, logged or stored.

use std::rc::Rc;
use std::time::Duration;

use serde::Deserialize;
use wasm_bindgen::prelude::*;

use crate::fetch::WebClient;
use wildtool_core::registry;
use wildtool_core::runner::driver::run_task_async;
use wildtool_core::runner::policy::RetryPolicy;
use wildtool_core::runner::provider::{Endpoint, ProviderKind};

use super::to_json;
use super::workspace::{TaskRunJs, Workspace};

/// Endpoint settings from the setup panel (no key).
#[derive(Deserialize)]
struct LiveConfig {
    provider: String,
    base_url: String,
    model: String,
    #[serde(default)]
    temperature: f64,
    /// Seconds.
    #[serde(default = "default_timeout")]
    timeout: f64,
    #[serde(default = "default_retries")]
    retries: u32,
    /// Seconds.
    #[serde(default = "default_backoff")]
    backoff: f64,
}

fn default_timeout() -> f64 {
    registry::DEFAULTS.timeout_secs
}
fn default_retries() -> u32 {
    registry::DEFAULTS.retries
}
fn default_backoff() -> f64 {
    registry::DEFAULTS.backoff_secs
}

/// A model endpoint the page talks to.
#[wasm_bindgen]
pub struct LiveClient {
    client: Rc<WebClient>,
}

#[wasm_bindgen]
impl LiveClient {
    /// `config_json`: `{provider: "openai"|"anthropic"|"gemini", base_url, model, temperature,
    /// timeout, retries, backoff}`; `key` may be empty.
    #[wasm_bindgen(constructor)]
    pub fn new(config_json: &str, key: &str) -> Result<LiveClient, JsError> {
        let c: LiveConfig = serde_json::from_str(config_json)
            .map_err(|e| JsError::new(&format!("invalid endpoint settings: {e}")))?;
        let provider = ProviderKind::from_name(&c.provider)
            .ok_or_else(|| JsError::new(&format!("unknown provider {:?}", c.provider)))?;
        if c.base_url.trim().is_empty() {
            return Err(JsError::new("the base URL is empty"));
        }
        let policy = RetryPolicy {
            max_retries: c.retries,
            base_delay: Duration::from_secs_f64(c.backoff.clamp(
                registry::LIMITS.backoff_secs.0,
                registry::LIMITS.backoff_secs.1,
            )),
            timeout: Duration::from_secs_f64(c.timeout.clamp(
                registry::LIMITS.timeout_secs.0,
                registry::LIMITS.timeout_secs.1,
            )),
            ..RetryPolicy::default()
        };
        let key = (!key.is_empty()).then(|| key.to_owned());
        let endpoint = Endpoint {
            base_url: c.base_url.trim().to_owned(),
            browser: true,
        };
        Ok(LiveClient {
            client: Rc::new(WebClient::new(
                provider,
                endpoint,
                c.model,
                c.temperature,
                policy,
                key,
            )),
        })
    }

    /// Stops retries and new requests of every task in flight (they end incomplete).
    pub fn cancel(&self) {
        self.client.cancel.set(true);
    }

    /// Lets requests go again after [`LiveClient::cancel`] (pause → resume).
    pub fn resume(&self) {
        self.client.cancel.set(false);
    }

    /// Runs task `task` of session `line`; resolves to [`TaskRunJs`] JSON.
    #[wasm_bindgen(js_name = runTask)]
    pub fn run_task(
        &self,
        ws: &Workspace,
        line: usize,
        task: usize,
    ) -> Result<js_sys::Promise, JsError> {
        let session = ws.session(line)?;
        let client = self.client.clone();
        Ok(wasm_bindgen_futures::future_to_promise(async move {
            let run = run_task_async(session, task, &*client).await;
            to_json(&TaskRunJs::from(run))
                .map(JsValue::from)
                .map_err(JsValue::from)
        }))
    }
}
