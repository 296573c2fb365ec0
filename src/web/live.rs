//! Live evaluation from the page: one task at a time through the official task state
//! machine, each step sent with the runner's browser transport (`fetch`, retries,
//! timeouts). The API key stays inside the [`LiveClient`] (WASM memory) and is never
//! returned, logged or stored.

use std::rc::Rc;
use std::time::Duration;

use serde::Deserialize;
use wasm_bindgen::prelude::*;

use crate::json::Value;
use crate::protocol::{IdSource, SeededIds, TaskMachine};
use crate::runner::checkpoint::TaskRecord;
use crate::runner::driver::task_seed;
use crate::runner::policy::RetryPolicy;
use crate::runner::provider::{Endpoint, ProviderKind};
use crate::runner::web::WebClient;

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
    600.0
}
fn default_retries() -> u32 {
    6
}
fn default_backoff() -> f64 {
    2.0
}

/// A model endpoint the page talks to.
#[wasm_bindgen]
pub struct LiveClient {
    client: Rc<WebClient>,
}

#[wasm_bindgen]
impl LiveClient {
    /// `config_json`: `{provider: "openai"|"anthropic", base_url, model, temperature,
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
            base_delay: Duration::from_secs_f64(c.backoff.clamp(0.0, 600.0)),
            timeout: Duration::from_secs_f64(c.timeout.clamp(0.001, 3600.0)),
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
            let run = drive(session, task, &client).await;
            to_json(&run).map(JsValue::from).map_err(JsValue::from)
        }))
    }
}

async fn drive(
    session: &'static crate::dataset::Session,
    task: usize,
    client: &WebClient,
) -> TaskRunJs {
    let mut run = TaskRunJs {
        line: session.line,
        task,
        record: None,
        incomplete: None,
        names_correct: false,
        requests: 0,
        retries: 0,
        input_tokens: 0,
        output_tokens: 0,
    };
    let seed = task_seed(session.line, task);
    let mut ids = SeededIds::new(seed);
    let mut machine = match TaskMachine::new(session, task, &mut ids as &mut dyn IdSource) {
        Ok(m) => m,
        Err(e) => {
            run.incomplete = Some(e.to_string());
            return run;
        }
    };
    while !machine.is_finished() {
        let step_seed = seed.wrapping_mul(31).wrapping_add(machine.step() as u64);
        let (reply, (requests, retries)) = client
            .complete(machine.messages(), machine.tools(), step_seed)
            .await;
        run.requests += requests;
        run.retries += retries;
        let reply = match reply {
            Ok(r) => r,
            Err(e) => {
                run.incomplete = Some(e.to_string());
                return run;
            }
        };
        let count = |v: &Value| v.as_i64().map(|x| x.max(0) as u64).unwrap_or(0);
        run.input_tokens += count(&reply.input_tokens);
        run.output_tokens += count(&reply.output_tokens);
        if machine.feed(&reply).is_none() {
            break;
        }
    }
    run.names_correct = machine.verdict().map(|v| v.names_correct).unwrap_or(false);
    run.record = machine.result().map(|result| {
        TaskRecord {
            id: session.id.clone(),
            line: session.line,
            task,
            result,
        }
        .to_line()
    });
    if run.record.is_none() {
        run.incomplete = Some("the task machine did not finish".to_owned());
    }
    run
}
