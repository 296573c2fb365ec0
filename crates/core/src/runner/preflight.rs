//! Preflight: one small request before a run — one tool, one user turn, in the official
//! request shape — whose answer says whether the endpoint can run the benchmark at all,
//! and if not, why and what fixes it. Pure: the engine sends [`request`] and feeds the
//! reply to [`classify_response`] (or a failure below HTTP to [`classify_network`]).
//!
//! The servers' error messages recognised here, and their fixes, are the reference;
//! `docs/providers.md` ("The endpoint check") summarises the classes for users.

use crate::json::Value;
use crate::protocol::SeededIds;

use super::http::NetworkKind;
use super::policy::{classify_status, FailureClass};
use super::provider::{
    error_message, parse_body, snippet, ChatRequest, Endpoint, HttpRequest, ProviderError,
    ProviderKind,
};
use super::registry;

/// What kind of problem a failed preflight found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PreflightClass {
    /// The key is missing, wrong or not allowed (401/403, or the provider's own code).
    Auth,
    /// The server does not serve this model name.
    ModelNotFound,
    /// The server (or this model on it) cannot answer with tool calls.
    NoToolSupport,
    /// The browser blocked the response (the server does not allow the page's origin).
    Cors,
    /// Nothing answered at the base URL.
    Unreachable,
    /// A 2xx answer that is not a usable reply of the chosen dialect.
    BadReply,
    /// Anything else (wrong URL path, quota, a rejected setting, an overloaded server …).
    Other,
}

impl PreflightClass {
    /// A short description for people.
    pub fn label(self) -> &'static str {
        match self {
            Self::Auth => "authentication failed",
            Self::ModelNotFound => "model not found",
            Self::NoToolSupport => "the server cannot do tool calls",
            Self::Cors => "blocked by the browser (CORS)",
            Self::Unreachable => "endpoint unreachable",
            Self::BadReply => "unusable reply",
            Self::Other => "endpoint not usable",
        }
    }
}

/// Why the endpoint cannot run the benchmark, and what would fix it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {reason}", class.label())]
pub struct PreflightFailure {
    /// The kind of problem.
    pub class: PreflightClass,
    /// What happened, with the server's own message where there is one.
    pub reason: String,
    /// What to change, when it is known.
    pub fix: Option<String>,
}

impl PreflightFailure {
    fn new(class: PreflightClass, reason: String, fix: Option<String>) -> Self {
        Self { class, reason, fix }
    }
}

/// The user turn of the preflight request.
pub const PREFLIGHT_PROMPT: &str = "What is the weather in Paris right now?";

/// The preflight tool, in the dataset's (OpenAI) tool form.
pub const PREFLIGHT_TOOLS: &str = r#"[{"type": "function", "function": {"name": "get_weather", "description": "Get the current weather for a city.", "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "City name."}}, "required": ["city"]}}}]"#;

/// The preflight request at the default temperature. Prefer [`request_at`] with the run's
/// temperature: some models accept only one temperature, and the preflight should fail
/// exactly as the run would.
pub fn request(provider: ProviderKind, endpoint: &Endpoint, model: &str) -> HttpRequest {
    request_at(provider, endpoint, model, registry::DEFAULTS.temperature)
}

/// The preflight request: one user turn and one tool, built by the provider mapping like
/// every task request (for OpenAI-compatible servers exactly the official body:
/// `messages`, `model`, `temperature`, `tools`).
pub fn request_at(
    provider: ProviderKind,
    endpoint: &Endpoint,
    model: &str,
    temperature: f64,
) -> HttpRequest {
    let mut user = crate::json::Map::new();
    user.insert("role", Value::str("user"));
    user.insert("content", Value::str(PREFLIGHT_PROMPT));
    let messages = [Value::Object(user)];
    let tools = crate::json::loads(PREFLIGHT_TOOLS).unwrap_or(Value::Array(Vec::new()));
    provider.build(
        &ChatRequest {
            model,
            temperature,
            messages: &messages,
            tools: &tools,
        },
        endpoint,
    )
}

/// Classifies the preflight's HTTP answer: `Ok` when the reply parses through the
/// provider mapping (a tool call or text — either way the server accepted the tools),
/// otherwise the problem and its fix.
pub fn classify_response(
    provider: ProviderKind,
    status: u16,
    body: &str,
) -> Result<(), PreflightFailure> {
    diagnose(provider, status, body).map_err(|d| d.failure)
}

/// Whether a failed preflight answer may heal and the request should be sent again under
/// the run's retry policy (429 rate limits, 5xx overloads, 408 …), rather than ending the
/// run at once. False for answers that name a lasting problem even with a transient status
/// (llama.cpp answers 500 without `--jinja`; an exhausted quota answers 429).
pub fn should_retry(provider: ProviderKind, status: u16, body: &str) -> bool {
    matches!(
        diagnose(provider, status, body),
        Err(Diagnosis {
            transient: true,
            ..
        })
    )
}

/// Classifies a request that got no HTTP answer.
pub fn classify_network(
    provider: ProviderKind,
    kind: NetworkKind,
    message: &str,
) -> PreflightFailure {
    let detail = if message.trim().is_empty() {
        String::new()
    } else {
        format!(" ({})", snippet(message.trim()))
    };
    match kind {
        NetworkKind::Cors => PreflightFailure::new(
            PreflightClass::Cors,
            format!("the browser blocked the endpoint's answer: the server does not allow this page's origin{detail}"),
            Some(match provider {
                ProviderKind::Anthropic => "the page already sends Anthropic's browser-access header: check the base URL, or run with the CLI".to_owned(),
                _ => "allow this page's origin on the server (Ollama: OLLAMA_ORIGINS=<origin>; LM Studio: lms server start --cors; vLLM: --allowed-origins), or run with the CLI".to_owned(),
            }),
        ),
        NetworkKind::Unreachable => PreflightFailure::new(
            PreflightClass::Unreachable,
            format!("nothing answered at the base URL{detail}"),
            Some("check that the server is running and the base URL's scheme, host and port (local defaults: Ollama 11434, vLLM 8000, LM Studio 1234, llama.cpp 8080)".to_owned()),
        ),
        NetworkKind::Blocked => PreflightFailure::new(
            PreflightClass::Unreachable,
            format!("the browser refuses to connect to this port, which browsers block as unsafe{detail}"),
            Some("serve the endpoint on another port, such as 8000 (browsers block ports such as 9, 6000 and 6667)".to_owned()),
        ),
        NetworkKind::Timeout => PreflightFailure::new(
            PreflightClass::Other,
            format!("no answer within the request timeout{detail}"),
            Some("raise the timeout (a local server may still be loading the model) or check the server".to_owned()),
        ),
        NetworkKind::Other => PreflightFailure::new(
            PreflightClass::Other,
            format!("the request failed{detail}"),
            None,
        ),
    }
}

struct Diagnosis {
    failure: PreflightFailure,
    transient: bool,
}

fn fail(class: PreflightClass, reason: String, fix: Option<String>) -> Result<(), Diagnosis> {
    Err(Diagnosis {
        failure: PreflightFailure::new(class, reason, fix),
        transient: false,
    })
}

fn diagnose(provider: ProviderKind, status: u16, body: &str) -> Result<(), Diagnosis> {
    let ok_status = (200..300).contains(&status);
    if ok_status {
        let mut ids = SeededIds::new(0);
        match provider.parse_response(status, body, 0.0, &mut ids) {
            Ok(_) => return Ok(()),
            Err(ProviderError::Api(message)) => {
                if let Some(d) = by_message(provider, status, &message) {
                    return Err(d);
                }
                return fail(
                    PreflightClass::Other,
                    format!("HTTP {status} with an error: {}", snippet(&message)),
                    None,
                );
            }
            Err(e) => {
                return fail(
                    PreflightClass::BadReply,
                    format!(
                        "HTTP {status}, but not a usable {} reply: {e}",
                        registry::provider(provider).label
                    ),
                    Some(format!(
                        "check that the base URL points at the API itself (OpenAI-compatible servers usually end in /v1) and that the provider is right (this request was built for '{}')",
                        provider.name()
                    )),
                );
            }
        }
    }
    let message = error_text(body);
    if let Some(d) = by_message(provider, status, &message) {
        return Err(d);
    }
    let shown = if message.is_empty() {
        String::new()
    } else {
        format!(": {}", snippet(&message))
    };
    match status {
        401 | 403 => fail(
            PreflightClass::Auth,
            format!("HTTP {status}{shown}"),
            Some(key_fix(provider)),
        ),
        404 => fail(
            PreflightClass::Other,
            format!("HTTP 404 for the request path{shown}"),
            Some(format!(
                "check the base URL: it should be the API root ({}), without /chat/completions",
                match provider {
                    ProviderKind::OpenAi =>
                        "OpenAI-compatible servers usually end in /v1".to_owned(),
                    _ => format!(
                        "default {}",
                        registry::provider(provider).default_base_url.unwrap_or("")
                    ),
                }
            )),
        ),
        _ if classify_status(status) == FailureClass::Transient => Err(Diagnosis {
            failure: PreflightFailure::new(
                PreflightClass::Other,
                format!("the server is busy or failing (HTTP {status}){shown}"),
                Some("try again later, or lower the concurrency".to_owned()),
            ),
            transient: true,
        }),
        _ => fail(PreflightClass::Other, format!("HTTP {status}{shown}"), None),
    }
}

/// The error message of a body: `error.message`, `error` (string), `message`, `detail`,
/// or the start of the raw text.
fn error_text(body: &str) -> String {
    let Ok(v) = parse_body(body) else {
        let t = body.trim();
        // An HTML error page says nothing useful beyond its status.
        return if t.starts_with('<') {
            String::new()
        } else {
            snippet(t)
        };
    };
    if let Some(m) = error_message(&v) {
        return m;
    }
    for key in ["message", "detail"] {
        match v.get(key) {
            Some(Value::Str(s)) => return s.clone(),
            Some(other @ (Value::Array(_) | Value::Object(_))) => {
                return crate::json::dumps(other, crate::json::Escape::Utf8)
            }
            _ => {}
        }
    }
    snippet(body.trim())
}

fn key_fix(provider: ProviderKind) -> String {
    format!(
        "check the API key (the CLI reads ${} unless --api-key-env names another variable; the page uses its key field)",
        registry::provider(provider).key_env
    )
}

fn contains_any(hay: &str, needles: &[&str]) -> bool {
    needles.iter().any(|n| hay.contains(n))
}

/// The classes recognised from a server's own words, whatever the status.
fn by_message(provider: ProviderKind, status: u16, message: &str) -> Option<Diagnosis> {
    let m = message.to_lowercase();
    let shown = snippet(message);
    let reason = format!("HTTP {status}: {shown}");
    let found = |class, fix: Option<String>| {
        Some(Diagnosis {
            failure: PreflightFailure::new(class, reason.clone(), fix),
            transient: false,
        })
    };
    use PreflightClass::*;
    // Tool support first: some of these answers are 404s or 500s.
    if contains_any(&m, &["enable-auto-tool-choice", "tool-call-parser"]) {
        return found(NoToolSupport, Some("restart vLLM with --enable-auto-tool-choice --tool-call-parser PARSER (the parser for the model family, e.g. hermes for Qwen, llama3_json for Llama 3.1+, mistral for Mistral)".to_owned()));
    }
    if contains_any(&m, &["--jinja", "unsupported param: tools"]) {
        return found(
            NoToolSupport,
            Some("restart llama-server with --jinja".to_owned()),
        );
    }
    if m.contains("does not support tools") {
        return found(NoToolSupport, Some("this Ollama model's template has no tool support: pick a model tagged \"tools\" on ollama.com (e.g. qwen3, llama3.1)".to_owned()));
    }
    if m.contains("support tool use") {
        return found(NoToolSupport, Some("choose an OpenRouter model whose endpoints support tools (openrouter.ai/models?supported_parameters=tools)".to_owned()));
    }
    if contains_any(
        &m,
        &[
            "does not support tool",
            "doesn't support tool",
            "tool use is not supported",
            "tools are not supported",
            "tools is not supported",
            "tool calling is not supported",
            "not support function calling",
            "function calling is not",
            "function calling not",
        ],
    ) {
        return found(
            NoToolSupport,
            Some("use a model (and server settings) with tool calling".to_owned()),
        );
    }
    if contains_any(
        &m,
        &[
            "api key not valid",
            "api_key_invalid",
            "invalid api key",
            "invalid_api_key",
            "incorrect api key",
            "invalid x-api-key",
            "authentication_error",
            "authentication fails",
            "no auth credentials",
            "missing authentication",
            "unauthorized",
            "unauthenticated",
        ],
    ) || (status == 401 || status == 403) && !m.contains("model")
    {
        return found(Auth, Some(key_fix(provider)));
    }
    let model_words = contains_any(
        &m,
        &[
            "model_not_found",
            "model not found",
            "model not exist",
            "not a valid model",
            "invalid model",
            "unknown model",
            "no such model",
        ],
    ) || (m.contains("model")
        && contains_any(&m, &["does not exist", "not found", "not_found"]));
    if model_words || (status == 404 && m.contains("model")) {
        let fix = if m.contains("try pulling") {
            "pull it first (ollama pull NAME) or pick one of the server's models".to_owned()
        } else {
            "check the model name; the server's model list shows the names it serves".to_owned()
        };
        return found(ModelNotFound, Some(fix));
    }
    if (status == 401 || status == 403) && m.contains("model") {
        return found(
            Auth,
            Some(format!(
                "this key may not use this model; {}",
                key_fix(provider)
            )),
        );
    }
    if m.contains("temperature")
        && contains_any(&m, &["unsupported", "not support", "only the default"])
    {
        return found(
            Other,
            Some(
                "this model rejects the temperature: run with the temperature it accepts (often 1)"
                    .to_owned(),
            ),
        );
    }
    if status == 402
        || contains_any(
            &m,
            &[
                "insufficient_quota",
                "exceeded your current quota",
                "insufficient credits",
                "insufficient balance",
                "billing",
            ],
        )
    {
        return found(
            Other,
            Some(
                "the account has no quota or credit left: add credit or use another key".to_owned(),
            ),
        );
    }
    None
}
