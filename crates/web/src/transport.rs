//! The page's HTTP transport for the run engine: one `fetch` per request, with an
//! `AbortController` the engine can fire (cancel, deadlines), no cookies, and redirects
//! not followed — a redirect comes back as status 0 and fails the request, so a key is
//! only ever sent to the endpoint it was typed for. A failed `fetch` is told apart as
//! blocked by CORS or unreachable by a second request without CORS (no headers, no key).
//! A body is read as a stream and no further than the core's reply limit (nor at all when
//! `Content-Length` announces more): an oversized body is reported as
//! [`HttpReply::TooLarge`] and its request aborted. A streamed request's body is handed
//! over chunk by chunk as it arrives ([`fetch_streamed`]), for the core to reassemble and
//! limit; aborting its controller stops the read at once.

use gloo_timers::callback::Timeout;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use crate::msg::AuxRequest;
use crate::msg::{Outgoing, StreamIn};
use crate::run::engine::{HttpReply, HttpResponse, NetworkFailure, NetworkKind};
use wildtool_core::input::limits::MAX_REPLY_BODY_BYTES;
use wildtool_core::runner::endpoint_url::browser_blocked_port as blocked_port;
use wildtool_core::runner::http::HttpHead;
use wildtool_core::runner::http::HttpRequest;

/// How long a request beside the run (model list, host-name probe) may take, in ms.
const AUX_TIMEOUT_MS: u32 = 8_000;

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
    req: &HttpRequest,
    auth: Option<&(String, String)>,
    controller: Option<&web_sys::AbortController>,
) -> Result<web_sys::Request, JsValue> {
    let headers = web_sys::Headers::new()?;
    for (k, v) in &req.headers {
        headers.set(k, v)?;
    }
    if let Some((k, v)) = auth {
        headers.set(k, v)?;
    }
    let init = web_sys::RequestInit::new();
    init.set_method(req.method);
    init.set_headers(&headers);
    if !req.body.is_empty() {
        init.set_body(&JsValue::from_str(&req.body));
    }
    if let Some(c) = controller {
        init.set_signal(Some(&c.signal()));
    }
    init.set_redirect(web_sys::RequestRedirect::Manual);
    init.set_credentials(web_sys::RequestCredentials::Omit);
    web_sys::Request::new_with_str_and_init(&req.url, &init)
}

/// What reading a body gave.
enum Body {
    Text(String),
    TooLarge(u64),
    Failed(JsValue),
}

/// The next chunk of a body: `Ok(None)` at its end.
async fn next_chunk(
    reader: &web_sys::ReadableStreamDefaultReader,
) -> Result<Option<js_sys::Uint8Array>, JsValue> {
    loop {
        let chunk = JsFuture::from(reader.read()).await?;
        let field = |name: &str| js_sys::Reflect::get(&chunk, &JsValue::from_str(name));
        if field("done").ok().and_then(|d| d.as_bool()).unwrap_or(true) {
            return Ok(None);
        }
        if let Some(part) = field("value")
            .ok()
            .and_then(|v| v.dyn_into::<js_sys::Uint8Array>().ok())
        {
            return Ok(Some(part));
        }
    }
}

/// Reads `resp`'s body as UTF-8 text (invalid bytes replaced, a leading byte-order mark
/// dropped, as `Response.text()` does), stopping beyond the reply limit.
async fn read_body(resp: &web_sys::Response) -> Body {
    let Some(stream) = resp.body() else {
        return Body::Text(String::new());
    };
    let reader: web_sys::ReadableStreamDefaultReader = stream.get_reader().unchecked_into();
    let mut bytes: Vec<u8> = Vec::new();
    loop {
        let part = match next_chunk(&reader).await {
            Ok(Some(p)) => p,
            Ok(None) => break,
            Err(e) => return Body::Failed(e),
        };
        let len = part.length() as usize;
        if bytes.len() + len > MAX_REPLY_BODY_BYTES {
            let _ = reader.cancel();
            return Body::TooLarge((bytes.len() + len) as u64);
        }
        let start = bytes.len();
        bytes.resize(start + len, 0);
        part.copy_to(&mut bytes[start..]);
    }
    let text = String::from_utf8_lossy(&bytes);
    Body::Text(text.strip_prefix('\u{feff}').unwrap_or(&text).to_owned())
}

/// Sends `req` (with `auth` attached) and waits for the response head; a failure is the
/// reply to report. `diagnose` tells a failed `fetch` apart as CORS or unreachable with a
/// second request.
async fn open(
    req: &HttpRequest,
    auth: Option<&(String, String)>,
    controller: Option<&web_sys::AbortController>,
    diagnose: bool,
) -> Result<web_sys::Response, HttpReply> {
    let aborted = || controller.is_some_and(|c| c.signal().aborted());
    let request =
        request(req, auth, controller).map_err(|e| network(NetworkKind::Other, js_message(&e)))?;
    let Some(window) = web_sys::window() else {
        return Err(network(NetworkKind::Other, "no window".into()));
    };
    match JsFuture::from(window.fetch_with_request(&request)).await {
        Err(_) if aborted() => Err(HttpReply::Aborted),
        // A port the browser refuses is not a server that is down.
        Err(e) if blocked_port(&req.url).is_some() => Err(network(
            NetworkKind::Blocked,
            format!(
                "{}: port {}",
                js_message(&e),
                blocked_port(&req.url).unwrap_or(0)
            ),
        )),
        Err(e) if !diagnose => Err(network(NetworkKind::Other, js_message(&e))),
        Err(e) => {
            let kind = if reachable(&req.url).await {
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
            Err(network(kind, format!("{}: {why}", js_message(&e))))
        }
        Ok(v) => v
            .dyn_into::<web_sys::Response>()
            .map_err(|e| network(NetworkKind::Other, js_message(&e))),
    }
}

/// The status and the headers the engine reads (an opaque redirect is status 0).
fn head_of(resp: &web_sys::Response) -> HttpHead {
    let header = |name: &str| resp.headers().get(name).ok().flatten();
    HttpHead {
        status: if resp.type_() == web_sys::ResponseType::Opaqueredirect {
            0
        } else {
            resp.status()
        },
        retry_after: header("retry-after"),
        location: header("location"),
        now_unix: js_sys::Date::now() / 1000.0,
    }
}

/// Sends `req` (with `auth` attached) and reports what became of it, as the engine needs
/// it; `diagnose` tells a failed `fetch` apart as CORS or unreachable with a second
/// request.
async fn fetch_http(
    req: &HttpRequest,
    auth: Option<&(String, String)>,
    controller: Option<&web_sys::AbortController>,
    diagnose: bool,
) -> HttpReply {
    let aborted = || controller.is_some_and(|c| c.signal().aborted());
    let resp = match open(req, auth, controller, diagnose).await {
        Ok(r) => r,
        Err(reply) => return reply,
    };
    let HttpHead {
        status,
        retry_after,
        location,
        ..
    } = head_of(&resp);
    let header = |name: &str| resp.headers().get(name).ok().flatten();
    let announced = header("content-length")
        .and_then(|v| v.trim().parse::<f64>().ok())
        .map(|n| n as u64);
    let too_large = |size: u64| {
        if let Some(c) = controller {
            c.abort();
        }
        HttpReply::TooLarge { status, size }
    };
    if let Some(size) = announced.filter(|n| *n > MAX_REPLY_BODY_BYTES as u64) {
        return too_large(size);
    }
    match read_body(&resp).await {
        Body::Text(body) => HttpReply::Response(HttpResponse {
            status,
            body,
            retry_after,
            location,
            now_unix: js_sys::Date::now() / 1000.0,
            latency: None,
        }),
        Body::TooLarge(size) => too_large(size),
        Body::Failed(_) if aborted() => HttpReply::Aborted,
        Body::Failed(e) => network(NetworkKind::Other, js_message(&e)),
    }
}

/// Sends a request of the live run and reports what became of it.
pub async fn fetch_reply(
    out: &Outgoing,
    controller: Option<&web_sys::AbortController>,
) -> HttpReply {
    fetch_http(&out.transmit.request, out.auth.as_ref(), controller, true).await
}

/// Sends a streamed request and hands its response to `part` as it arrives: the head,
/// each chunk, the end. A failure (no response, a read that failed) is returned as the
/// reply to report; once the request is aborted, nothing more is read or handed over.
pub async fn fetch_streamed(
    req: &HttpRequest,
    auth: Option<&(String, String)>,
    controller: Option<&web_sys::AbortController>,
    diagnose: bool,
    part: &dyn Fn(StreamIn),
) -> Option<HttpReply> {
    let aborted = || controller.is_some_and(|c| c.signal().aborted());
    let resp = match open(req, auth, controller, diagnose).await {
        Ok(r) => r,
        Err(reply) => return Some(reply),
    };
    part(StreamIn::Head(head_of(&resp)));
    let Some(body) = resp.body() else {
        part(StreamIn::End);
        return None;
    };
    let reader: web_sys::ReadableStreamDefaultReader = body.get_reader().unchecked_into();
    loop {
        if aborted() {
            let _ = reader.cancel();
            return None;
        }
        match next_chunk(&reader).await {
            Ok(Some(chunk)) if !aborted() => part(StreamIn::Bytes(chunk.to_vec())),
            Ok(Some(_)) => {}
            Ok(None) => {
                part(StreamIn::End);
                return None;
            }
            Err(_) if aborted() => return None,
            Err(e) => {
                return Some(network(
                    NetworkKind::Other,
                    format!("reading the stream: {}", js_message(&e)),
                ))
            }
        }
    }
}

/// Sends a request of the streaming probe: streamed or whole, given up after its timeout.
pub async fn fetch_probe(send: &crate::msg::ProbeSend, part: &dyn Fn(crate::msg::ProbeIn)) {
    use crate::msg::ProbeIn;
    let controller = web_sys::AbortController::new().ok();
    let timer = controller
        .clone()
        .map(|c| Timeout::new(send.timeout_ms, move || c.abort()));
    let failed = if send.stream {
        fetch_streamed(
            &send.request,
            send.auth.as_ref(),
            controller.as_ref(),
            false,
            &|p| part(ProbeIn::Stream(p)),
        )
        .await
    } else {
        Some(
            fetch_http(
                &send.request,
                send.auth.as_ref(),
                controller.as_ref(),
                false,
            )
            .await,
        )
    };
    let timed_out = controller.as_ref().is_some_and(|c| c.signal().aborted());
    drop(timer);
    match (failed, timed_out) {
        (_, true) => part(ProbeIn::Reply(network(
            NetworkKind::Timeout,
            format!("no answer within {} s", send.timeout_ms / 1000),
        ))),
        (Some(reply), false) => part(ProbeIn::Reply(reply)),
        (None, false) => {}
    }
}

/// Sends a request beside the run (no diagnosis of failures), given up after a few
/// seconds.
pub async fn fetch_aux(aux: &AuxRequest) -> HttpReply {
    let controller = web_sys::AbortController::new().ok();
    let timer = controller
        .clone()
        .map(|c| Timeout::new(AUX_TIMEOUT_MS, move || c.abort()));
    let reply = fetch_http(&aux.request, aux.auth.as_ref(), controller.as_ref(), false).await;
    drop(timer);
    reply
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
