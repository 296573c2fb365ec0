//! The preflight: one small request (one tool, one user turn) sent before any task, and
//! the classification of its answer, so an endpoint that cannot work stops the run with a
//! reason and a fix before any task is sent.

use crate::json::{loads, Value};
use crate::protocol::SeededIds;

use super::http::NetworkKind;
use super::provider::{snippet, ChatRequest, Endpoint, HttpRequest, ProviderKind};

/// What kind of problem a failed preflight found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PreflightClass {
    /// The key was refused.
    Auth,
    /// The endpoint does not know the model.
    ModelNotFound,
    /// The server cannot do tool calls as configured.
    NoToolSupport,
    /// The browser blocked the request (cross-origin rules).
    Cors,
    /// Nothing answered.
    Unreachable,
    /// A success status with a body the provider mapping cannot read.
    BadReply,
    /// Anything else.
    Other,
}

/// A failed preflight: what, why, and what to do about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreflightFailure {
    /// The kind of problem.
    pub class: PreflightClass,
    /// What went wrong, for the user.
    pub reason: String,
    /// How to fix it, when known.
    pub fix: Option<String>,
}

const PREFLIGHT_TOOLS: &str = r#"[{"type": "function", "function": {"name": "get_weather", "description": "Get the current weather for a city.", "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "City name."}}, "required": ["city"]}}}]"#;

/// The preflight request: the official request shape with one tool and one user turn.
pub fn request(provider: ProviderKind, endpoint: &Endpoint, model: &str) -> HttpRequest {
    let messages = vec![
        loads(r#"{"role": "user", "content": "What is the weather in Paris?"}"#)
            .unwrap_or(Value::Null),
    ];
    let tools = loads(PREFLIGHT_TOOLS).unwrap_or(Value::Null);
    provider.build(
        &ChatRequest {
            model,
            temperature: 0.0,
            messages: &messages,
            tools: &tools,
        },
        endpoint,
    )
}

fn failure(class: PreflightClass, reason: String, fix: Option<&str>) -> PreflightFailure {
    PreflightFailure {
        class,
        reason,
        fix: fix.map(str::to_owned),
    }
}

/// Classifies the preflight's response: `Ok` when the endpoint is usable (a success status
/// whose body the provider mapping reads).
pub fn classify_response(
    provider: ProviderKind,
    status: u16,
    body: &str,
) -> Result<(), PreflightFailure> {
    let shown = snippet(body);
    match status {
        200..=299 => provider
            .parse_response(status, body, 0.0, &mut SeededIds::new(0))
            .map(|_| ())
            .map_err(|e| {
                failure(
                    PreflightClass::BadReply,
                    format!("the endpoint answered, but not in the expected format: {e}"),
                    Some("check that the base URL and the provider match the server"),
                )
            }),
        401 | 403 => Err(failure(
            PreflightClass::Auth,
            format!("authentication failed (HTTP {status}): {shown}"),
            Some("check the API key"),
        )),
        404 => Err(failure(
            PreflightClass::ModelNotFound,
            format!("model or endpoint not found (HTTP 404): {shown}"),
            Some("check the model name and the base URL"),
        )),
        0 | 300..=399 => Err(failure(
            PreflightClass::Other,
            format!(
                "the endpoint answered with a redirect (HTTP {status}); redirects are not followed"
            ),
            Some("use the final URL as the base URL"),
        )),
        400 | 422 if body.to_lowercase().contains("tool") => Err(failure(
            PreflightClass::NoToolSupport,
            format!("the server refused the tool-calling request (HTTP {status}): {shown}"),
            Some("enable tool calling on the server, or pick a model that supports tools"),
        )),
        _ => Err(failure(
            PreflightClass::Other,
            format!("HTTP {status}: {shown}"),
            None,
        )),
    }
}

/// Classifies a preflight that got no response.
pub fn classify_network(
    _provider: ProviderKind,
    kind: NetworkKind,
    message: &str,
) -> PreflightFailure {
    match kind {
        NetworkKind::Cors => failure(
            PreflightClass::Cors,
            format!("the browser blocked the request: {message}"),
            Some("allow this page's origin in the server's CORS settings"),
        ),
        NetworkKind::Timeout => failure(
            PreflightClass::Unreachable,
            format!("the endpoint did not answer in time: {message}"),
            Some("check that the server is running, or raise the timeout"),
        ),
        NetworkKind::Unreachable | NetworkKind::Other => failure(
            PreflightClass::Unreachable,
            format!("the endpoint is unreachable: {message}"),
            Some("check the base URL and that the server is running"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_map_to_classes() {
        let p = ProviderKind::OpenAi;
        let ok = r#"{"choices": [{"message": {"role": "assistant", "content": "hi"}}]}"#;
        assert_eq!(classify_response(p, 200, ok), Ok(()));
        let class = |s, b| classify_response(p, s, b).err().map(|f| f.class);
        assert_eq!(class(200, "{nope"), Some(PreflightClass::BadReply));
        assert_eq!(class(401, "{}"), Some(PreflightClass::Auth));
        assert_eq!(class(404, "{}"), Some(PreflightClass::ModelNotFound));
        assert_eq!(
            class(400, r#"{"error": "tool choice requires flags"}"#),
            Some(PreflightClass::NoToolSupport)
        );
        assert_eq!(class(500, "x"), Some(PreflightClass::Other));
        assert_eq!(
            classify_network(p, NetworkKind::Cors, "blocked").class,
            PreflightClass::Cors
        );
        let req = request(
            p,
            &Endpoint {
                base_url: "http://x/v1".to_owned(),
                browser: false,
            },
            "m",
        );
        assert!(req.body.contains("get_weather") && req.url.ends_with("/chat/completions"));
    }
}
