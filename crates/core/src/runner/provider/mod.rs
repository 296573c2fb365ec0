//! Provider adapters: pure mapping between the official step representation and the HTTP
//! requests/responses of model APIs (no IO; shared by the native and browser transports).
//!
//! - [`openai`]: OpenAI-compatible Chat Completions (OpenAI, vLLM, Ollama `/v1`, llama.cpp
//!   server, OpenRouter, DeepSeek, Together, Groq). The body is exactly what the official
//!   harness sends (PROTOCOL §2.4): `messages`, `model`, `temperature`, `tools`.
//! - [`anthropic`]: the Anthropic Messages API (conversion of the message list, `tool_use` /
//!   `tool_result` blocks, separate system prompt).
//! - [`gemini`]: the Gemini API's own `generateContent` format (`contents` of `parts`,
//!   `functionCall` / `functionResponse` parts, `systemInstruction`).
//! - [`models`]: a server's model list (`/models` and friends) for the page's model field.
//!
//! The API key is never part of an [`HttpRequest`]: the transport adds it from memory
//! according to [`ProviderKind::auth`], so a logged request cannot leak it.

pub mod anthropic;
pub mod gemini;
pub mod models;
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
    /// Google Gemini `generateContent`.
    Gemini,
}

/// How the transport attaches the API key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthStyle {
    /// `Authorization: Bearer <key>`.
    Bearer,
    /// `x-api-key: <key>`.
    XApiKey,
    /// `x-goog-api-key: <key>` (Gemini; never a `key=` URL parameter).
    XGoogApiKey,
}

impl AuthStyle {
    /// The header (lower-case name, value) that carries `key` in this style. Transports
    /// attach exactly this, so a new style needs no transport change.
    pub fn header(self, key: &str) -> (&'static str, String) {
        match self {
            AuthStyle::Bearer => ("authorization", format!("Bearer {key}")),
            AuthStyle::XApiKey => ("x-api-key", key.to_owned()),
            AuthStyle::XGoogApiKey => ("x-goog-api-key", key.to_owned()),
        }
    }
}

impl ProviderKind {
    /// Every dialect, in the order front ends list them.
    pub const ALL: [ProviderKind; 3] = [Self::OpenAi, Self::Anthropic, Self::Gemini];

    /// Parses `openai` / `anthropic` / `gemini`.
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == s)
    }

    /// The name used on the command line, in settings and in links.
    pub fn name(self) -> &'static str {
        match self {
            Self::OpenAi => "openai",
            Self::Anthropic => "anthropic",
            Self::Gemini => "gemini",
        }
    }

    /// The header that carries the API key.
    pub fn auth(self) -> AuthStyle {
        match self {
            Self::OpenAi => AuthStyle::Bearer,
            Self::Anthropic => AuthStyle::XApiKey,
            Self::Gemini => AuthStyle::XGoogApiKey,
        }
    }

    /// Builds the HTTP request for one step.
    pub fn build(self, req: &ChatRequest<'_>, endpoint: &Endpoint) -> HttpRequest {
        match self {
            Self::OpenAi => openai::build_request(req, endpoint),
            Self::Anthropic => anthropic::build_request(req, endpoint),
            Self::Gemini => gemini::build_request(req, endpoint),
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
            Self::Gemini => gemini::parse_response(body, latency, ids),
        }
    }
}

impl serde::Serialize for ProviderKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
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
    /// `POST` for model requests, `GET` for model lists.
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

/// The first 300 characters of a body, for error messages, with any API key a server
/// echoed back masked (see [`mask_echoed_key`]).
pub(crate) fn snippet(body: &str) -> String {
    let body = mask_echoed_key(body);
    let mut s: String = body.chars().take(300).collect();
    if body.chars().nth(300).is_some() {
        s.push('…');
    }
    s
}

/// Masks the key some servers quote in their 401 message ("Incorrect API key provided:
/// KEY."), which for short keys is the whole key, so that error texts can be shown and
/// stored.
pub fn mask_echoed_key(text: &str) -> String {
    const MARK: &str = "api key provided:";
    let lower = text.to_ascii_lowercase();
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    let mut from = 0;
    while let Some(i) = lower[from..].find(MARK) {
        let start = from + i + MARK.len();
        let rest = &text[start..];
        let lead = rest.len() - rest.trim_start().len();
        let token_start = start + lead;
        let token_len = text[token_start..]
            .find(|c: char| c.is_whitespace())
            .unwrap_or(text.len() - token_start);
        let mut token_end = token_start + token_len;
        // Keep a sentence-ending period outside the mask.
        if text[token_start..token_end].ends_with('.') {
            token_end -= 1;
        }
        out.push_str(&text[last..token_start]);
        if token_end > token_start {
            out.push_str("<key>");
        }
        last = token_end;
        from = token_end.max(start);
    }
    out.push_str(&text[last..]);
    out
}

/// Parses a body, mapping failure to [`ProviderError::NotJson`].
pub(crate) fn parse_body(body: &str) -> Result<Value, ProviderError> {
    crate::json::loads(body).map_err(|source| ProviderError::NotJson {
        source,
        body: snippet(body),
    })
}

/// The message of an `{"error": …}` body, if it is one (an echoed key masked).
pub(crate) fn error_message(v: &Value) -> Option<String> {
    let err = v.get("error")?;
    if err.is_null() {
        return None;
    }
    let text = match err {
        Value::Str(s) => s.clone(),
        other => other
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| crate::json::dumps(other, crate::json::Escape::Utf8)),
    };
    Some(mask_echoed_key(&text))
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
