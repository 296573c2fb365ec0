//! The page's HTTP transport for the run engine: one `fetch` per request, with an
//! `AbortController` the engine can fire (cancel, deadlines), no cookies, and redirects
//! not followed — a redirect comes back as status 0 and fails the request, so a key is
//! only ever sent to the endpoint it was typed for. A failed `fetch` is told apart as
//! blocked by CORS or unreachable by a second request without CORS (no headers, no key).

use gloo_timers::callback::Timeout;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use crate::engine::{HttpReply, HttpResponse, NetworkFailure, NetworkKind};
use crate::live::Outgoing;

fn js_message(e: &JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "unknown error".into())
}

fn network(kind: NetworkKind, message: String) -> HttpReply {
    HttpReply::Network(NetworkFailure { kind, message })
}

fn request(
    out: &Outgoing,
    controller: Option<&web_sys::AbortController>,
) -> Result<web_sys::Request, JsValue> {
    let headers = web_sys::Headers::new()?;
    for (k, v) in &out.transmit.request.headers {
        headers.set(k, v)?;
    }
    if let Some((k, v)) = &out.auth {
        headers.set(k, v)?;
    }
    let init = web_sys::RequestInit::new();
    init.set_method(out.transmit.request.method);
    init.set_headers(&headers);
    if !out.transmit.request.body.is_empty() {
        init.set_body(&JsValue::from_str(&out.transmit.request.body));
    }
    if let Some(c) = controller {
        init.set_signal(Some(&c.signal()));
    }
    init.set_redirect(web_sys::RequestRedirect::Manual);
    init.set_credentials(web_sys::RequestCredentials::Omit);
    web_sys::Request::new_with_str_and_init(&out.transmit.request.url, &init)
}

/// Sends `out` and reports what became of it, as the engine needs it.
pub async fn fetch_reply(
    out: &Outgoing,
    controller: Option<&web_sys::AbortController>,
) -> HttpReply {
    let aborted = || controller.is_some_and(|c| c.signal().aborted());
    let req = match request(out, controller) {
        Ok(r) => r,
        Err(e) => return network(NetworkKind::Other, js_message(&e)),
    };
    let Some(window) = web_sys::window() else {
        return network(NetworkKind::Other, "no window".into());
    };
    let resp = match JsFuture::from(window.fetch_with_request(&req)).await {
        Err(_) if aborted() => return HttpReply::Aborted,
        Err(e) => {
            let kind = if reachable(&out.transmit.request.url).await {
                NetworkKind::Cors
            } else {
                NetworkKind::Unreachable
            };
            let why = match kind {
                NetworkKind::Cors => {
                    "the server answered, but does not allow this page's origin (CORS)"
                }
                _ => "nothing answered at this address (is the server running?)",
            };
            return network(kind, format!("{}: {why}", js_message(&e)));
        }
        Ok(v) => match v.dyn_into::<web_sys::Response>() {
            Ok(r) => r,
            Err(e) => return network(NetworkKind::Other, js_message(&e)),
        },
    };
    let status = if resp.type_() == web_sys::ResponseType::Opaqueredirect {
        0
    } else {
        resp.status()
    };
    let header = |name: &str| resp.headers().get(name).ok().flatten();
    let (retry_after, location) = (header("retry-after"), header("location"));
    let body = match resp.text() {
        Ok(p) => JsFuture::from(p).await,
        Err(e) => Err(e),
    };
    match body {
        Ok(body) => HttpReply::Response(HttpResponse {
            status,
            body: body.as_string().unwrap_or_default(),
            retry_after,
            location,
            now_unix: js_sys::Date::now() / 1000.0,
        }),
        Err(_) if aborted() => HttpReply::Aborted,
        Err(e) => network(NetworkKind::Other, js_message(&e)),
    }
}

/// True when something answers at `url` (a `no-cors` GET: no headers, no key, an opaque
/// answer), within 5 s.
async fn reachable(url: &str) -> bool {
    let Some(window) = web_sys::window() else {
        return false;
    };
    let Ok(controller) = web_sys::AbortController::new() else {
        return false;
    };
    let init = web_sys::RequestInit::new();
    init.set_method("GET");
    init.set_mode(web_sys::RequestMode::NoCors);
    init.set_credentials(web_sys::RequestCredentials::Omit);
    init.set_signal(Some(&controller.signal()));
    let Ok(req) = web_sys::Request::new_with_str_and_init(url, &init) else {
        return false;
    };
    let timer = Timeout::new(5000, move || controller.abort());
    let ok = JsFuture::from(window.fetch_with_request(&req))
        .await
        .is_ok();
    drop(timer);
    ok
}
