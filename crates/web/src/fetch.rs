//! The browser transport: the same provider mapping and retry policy as the native runner,
//! driving `fetch` from WebAssembly (window or worker scope). The key is held in memory
//! and attached per request; for Anthropic the direct-browser-access header is added by the
//! provider mapping (`Endpoint::browser`). Timeouts abort the fetch with an
//! `AbortController`. [`WebClient`] is an [`AsyncResponder`] for the per-task loop
//! ([`run_task_async`](wildtool_core::runner::driver::run_task_async)).

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use wildtool_core::json::Value;
use wildtool_core::protocol::{Reply, SeededIds};

use wildtool_core::runner::driver::{task_seed, AsyncResponder, StepContext, TaskStats};
use wildtool_core::runner::exec::LocalFuture;
use wildtool_core::runner::policy::{Jitter, RetryPolicy};
use wildtool_core::runner::provider::{
    AuthStyle, ChatRequest, Endpoint, HttpRequest, ProviderKind,
};
use wildtool_core::runner::retry::{with_retries_async, Attempt, GaveUp};

/// A response read through `fetch`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchResponse {
    /// Status code.
    pub status: u16,
    /// `Retry-After`, when the server exposes it (CORS `Access-Control-Expose-Headers`).
    pub retry_after: Option<String>,
    /// Body text.
    pub body: String,
}

fn js_error(e: JsValue) -> String {
    e.as_string()
        .or_else(|| js_sys::JSON::stringify(&e).ok().and_then(|s| s.as_string()))
        .unwrap_or_else(|| "fetch failed".to_owned())
}

/// `setTimeout(cb, ms)` in a window or a worker.
fn set_timeout(cb: &js_sys::Function, ms: i32) -> Result<i32, JsValue> {
    let global = js_sys::global();
    if let Some(w) = global.dyn_ref::<web_sys::Window>() {
        w.set_timeout_with_callback_and_timeout_and_arguments_0(cb, ms)
    } else if let Some(w) = global.dyn_ref::<web_sys::WorkerGlobalScope>() {
        w.set_timeout_with_callback_and_timeout_and_arguments_0(cb, ms)
    } else {
        Err(JsValue::from_str("no setTimeout in this scope"))
    }
}

/// Resolves after `d`.
pub async fn sleep(d: Duration) {
    let ms = i32::try_from(d.as_millis()).unwrap_or(i32::MAX);
    let promise = js_sys::Promise::new(&mut |resolve, _reject| {
        let _ = set_timeout(&resolve, ms);
    });
    let _ = JsFuture::from(promise).await;
}

/// Sends one request with `fetch`, aborting after `timeout`.
pub async fn fetch(
    req: &HttpRequest,
    auth: Option<(AuthStyle, &str)>,
    timeout: Duration,
) -> Result<FetchResponse, String> {
    let headers = web_sys::Headers::new().map_err(js_error)?;
    for (k, v) in &req.headers {
        headers.set(k, v).map_err(js_error)?;
    }
    if let Some((style, key)) = auth {
        let (name, value) = style.header(key);
        headers.set(name, &value).map_err(js_error)?;
    }
    let controller = web_sys::AbortController::new().map_err(js_error)?;
    let init = web_sys::RequestInit::new();
    init.set_method(req.method);
    init.set_headers(&headers);
    init.set_body(&JsValue::from_str(&req.body));
    init.set_signal(Some(&controller.signal()));
    let request = web_sys::Request::new_with_str_and_init(&req.url, &init).map_err(js_error)?;
    let abort = {
        let controller = controller.clone();
        Closure::once_into_js(move || controller.abort())
    };
    let ms = i32::try_from(timeout.as_millis()).unwrap_or(i32::MAX);
    if let Some(f) = abort.dyn_ref::<js_sys::Function>() {
        let _ = set_timeout(f, ms);
    }
    let global = js_sys::global();
    let promise = if let Some(w) = global.dyn_ref::<web_sys::Window>() {
        w.fetch_with_request(&request)
    } else if let Some(w) = global.dyn_ref::<web_sys::WorkerGlobalScope>() {
        w.fetch_with_request(&request)
    } else {
        return Err("no fetch in this scope".to_owned());
    };
    let resp: web_sys::Response = JsFuture::from(promise)
        .await
        .map_err(js_error)?
        .dyn_into()
        .map_err(js_error)?;
    let status = resp.status();
    let retry_after = resp.headers().get("retry-after").ok().flatten();
    let text = JsFuture::from(resp.text().map_err(js_error)?)
        .await
        .map_err(js_error)?;
    Ok(FetchResponse {
        status,
        retry_after,
        body: text.as_string().unwrap_or_default(),
    })
}

/// A live endpoint from the browser.
#[derive(Debug)]
pub struct WebClient {
    /// API dialect.
    pub provider: ProviderKind,
    /// Where to send (`browser` should be true).
    pub endpoint: Endpoint,
    /// Model name.
    pub model: String,
    /// Temperature.
    pub temperature: f64,
    /// Timeouts and retries.
    pub policy: RetryPolicy,
    /// The API key (memory only).
    key: Option<String>,
    /// Set to give up at the next wait.
    pub cancel: Rc<Cell<bool>>,
}

impl WebClient {
    /// A client; the key stays in memory.
    pub fn new(
        provider: ProviderKind,
        endpoint: Endpoint,
        model: String,
        temperature: f64,
        policy: RetryPolicy,
        key: Option<String>,
    ) -> Self {
        Self {
            provider,
            endpoint,
            model,
            temperature,
            policy,
            key,
            cancel: Rc::new(Cell::new(false)),
        }
    }

    /// One step with retries; returns the reply and `(requests, retries)`.
    pub async fn complete(
        &self,
        messages: &[Value],
        tools: &Value,
        seed: u64,
    ) -> (Result<Reply, GaveUp>, (u64, u64)) {
        let req = ChatRequest {
            model: &self.model,
            temperature: self.temperature,
            messages,
            tools,
        };
        let http = self.provider.build(&req, &self.endpoint);
        let mut jitter = Jitter::new(seed);
        let ids = std::cell::RefCell::new(SeededIds::new(seed.wrapping_add(0x5EED)));
        let requests = Cell::new(0u64);
        let mut retries = 0u64;
        let auth = self.key.as_deref().map(|k| (self.provider.auth(), k));
        let result = with_retries_async(
            &self.policy,
            &mut jitter,
            || {
                let http = &http;
                let ids = &ids;
                let requests = &requests;
                async move {
                    if self.cancel.get() {
                        return Attempt::cancelled();
                    }
                    requests.set(requests.get() + 1);
                    let started = js_sys::Date::now();
                    match fetch(http, auth, self.policy.timeout).await {
                        Err(message) => Attempt::network(message),
                        Ok(resp) => Attempt::from_response(
                            self.provider,
                            resp.status,
                            &resp.body,
                            resp.retry_after.as_deref(),
                            (js_sys::Date::now() - started) / 1000.0,
                            &mut *ids.borrow_mut(),
                        ),
                    }
                }
            },
            |d| {
                let cancel = self.cancel.clone();
                async move {
                    sleep(d).await;
                    !cancel.get()
                }
            },
            |_| retries += 1,
        )
        .await;
        (result, (requests.get(), retries))
    }
}

impl AsyncResponder for WebClient {
    fn respond<'a>(
        &'a self,
        ctx: StepContext<'a>,
    ) -> LocalFuture<'a, (Result<Reply, GaveUp>, TaskStats)> {
        Box::pin(async move {
            let seed = task_seed(ctx.session.line, ctx.task) ^ ((ctx.step as u64) << 48);
            let (reply, (requests, retries)) = self.complete(ctx.messages, ctx.tools, seed).await;
            (reply, TaskStats { requests, retries })
        })
    }
}
