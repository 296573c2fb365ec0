//! Provider adapters: pure mapping between the official step representation and the HTTP
//! requests/responses of model APIs (no IO; shared by the native and browser transports).
//!
//! - [`openai`]: OpenAI-compatible Chat Completions (OpenAI, vLLM, Ollama `/v1`, llama.cpp
//!   server, OpenRouter, DeepSeek, Together, Groq). The body is exactly what the official
//!   harness sends (PROTOCOL §2.4): `messages`, `model`, `temperature`, `tools`.
//! - [`anthropic`]: the Anthropic Messages API (conversion of the message list, `tool_use` /
//!   `tool_result` blocks, separate system prompt).
//!
//! The API key is never part of an [`HttpRequest`]: the transport adds it from memory
//! according to [`ProviderKind::auth`], so a logged request cannot leak it.

pub mod anthropic;
pub mod openai;

use crate::json::{JsonError, Value};
use crate::protocol::{IdSource, Reply};

/// Which API dialect an endpoint speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderKind {
    /// OpenAI-compatible Chat Completions.
    OpenAi,
    /// Anthropic Messages.
    Anthropic,
}

/// How the transport attaches the API key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthStyle {
    /// `Authorization: Bearer <key>`.
    Bearer,
    /// `x-api-key: <key>`.
    XApiKey,
}

impl AuthStyle {
    /// The header (lower-case name, value) that carries `key` in this style. Transports
    /// attach exactly this, so a new style needs no transport change.
    pub fn header(self, key: &str) -> (&'static str, String) {
        match self {
            AuthStyle::Bearer => ("authorization", format!("Bearer {key}")),
            AuthStyle::XApiKey => ("x-api-key", key.to_owned()),
        }
    }
}

impl ProviderKind {
    /// Parses `openai` / `anthropic`.
    pub fn from_name(s: &str) -> Option<Self> {
        match s {
            "openai" => Some(Self::OpenAi),
            "anthropic" => Some(Self::Anthropic),
            _ => None,
        }
    }

    /// The header that carries the API key.
    pub fn auth(self) -> AuthStyle {
        match self {
            Self::OpenAi => AuthStyle::Bearer,
            Self::Anthropic => AuthStyle::XApiKey,
        }
    }

    /// Builds the HTTP request for one step.
    pub fn build(self, req: &ChatRequest<'_>, endpoint: &Endpoint) -> HttpRequest {
        match self {
            Self::OpenAi => openai::build_request(req, endpoint),
            Self::Anthropic => anthropic::build_request(req, endpoint),
        }
    }

    /// Maps a response (status + body) to a [`Reply`]; `ids` supplies tool-call ids the
    /// server left out; `latency` is the request time in seconds.
    pub fn parse_response(
        self,
        status: u16,
        body: &str,
        latency: f64,
        ids: &mut dyn IdSource,
    ) -> Result<Reply, ProviderError> {
        if !(200..300).contains(&status) {
            return Err(ProviderError::Status {
                status,
                body: snippet(body),
            });
        }
        match self {
            Self::OpenAi => openai::parse_response(body, latency, ids),
            Self::Anthropic => anthropic::parse_response(body, latency),
        }
    }
}

/// Where requests go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// Base URL, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:8000/v1`.
    pub base_url: String,
    /// Running inside a browser (adds Anthropic's direct-browser-access header).
    pub browser: bool,
}

/// One step's request in provider-neutral form (the official fields, §2.4).
#[derive(Debug, Clone, Copy)]
pub struct ChatRequest<'a> {
    /// Model name.
    pub model: &'a str,
    /// Sampling temperature (official default 0.0).
    pub temperature: f64,
    /// The OpenAI-style message list built by the task machine.
    pub messages: &'a [Value],
    /// The tool list (OpenAI `{"type": "function", "function": {…}}` form).
    pub tools: &'a Value,
}

/// A transport-neutral HTTP request (never holds the API key).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpRequest {
    /// Always `POST` here.
    pub method: &'static str,
    /// Full URL.
    pub url: String,
    /// Headers other than the key.
    pub headers: Vec<(String, String)>,
    /// JSON body.
    pub body: String,
}

/// A response that is not a usable model reply. The scheduler treats every variant as a
/// transport failure (retried, then *incomplete*), never as a model error.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProviderError {
    /// Non-2xx status.
    #[error("HTTP {status}: {body}")]
    Status {
        /// Status code.
        status: u16,
        /// Start of the body.
        body: String,
    },
    /// The body is not JSON.
    #[error("response body is not JSON ({source}): {body}")]
    NotJson {
        /// Parse error.
        source: JsonError,
        /// Start of the body.
        body: String,
    },
    /// The body is an API error object (some servers send these with status 200).
    #[error("API error: {0}")]
    Api(String),
    /// JSON without the expected shape.
    #[error("unexpected response shape: {0}")]
    Shape(String),
}

/// The first 300 characters of a body, for error messages.
pub(crate) fn snippet(body: &str) -> String {
    let mut s: String = body.chars().take(300).collect();
    if body.chars().nth(300).is_some() {
        s.push('…');
    }
    s
}

/// Parses a body, mapping failure to [`ProviderError::NotJson`].
pub(crate) fn parse_body(body: &str) -> Result<Value, ProviderError> {
    crate::json::loads(body).map_err(|source| ProviderError::NotJson {
        source,
        body: snippet(body),
    })
}

/// The message of an `{"error": …}` body, if it is one.
pub(crate) fn error_message(v: &Value) -> Option<String> {
    let err = v.get("error")?;
    if err.is_null() {
        return None;
    }
    Some(match err {
        Value::Str(s) => s.clone(),
        other => other
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| crate::json::dumps(other, crate::json::Escape::Utf8)),
    })
}

/// A token count field as logged: an integer, or null when absent (C11).
pub(crate) fn token_count(usage: Option<&Value>, key: &str) -> Value {
    match usage.and_then(|u| u.get(key)) {
        Some(v @ Value::Int(_)) => v.clone(),
        _ => Value::Null,
    }
}

/// Joins a base URL and a path without doubling slashes.
pub(crate) fn join_url(base: &str, path: &str) -> String {
    format!(
        "{}/{}",
        base.trim_end_matches('/'),
        path.trim_start_matches('/')
    )
}

#[cfg(test)]
mod tests;
