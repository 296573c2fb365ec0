//! A server's model list, so front ends can offer model names: the request (key-free, like
//! every [`HttpRequest`]) and a parser for the list shapes servers answer with.
//!
//! Shapes read:
//! - OpenAI-compatible `GET /models`: `{"data": [{"id": …}, …]}` (OpenAI, vLLM, Ollama
//!   `/v1`, LM Studio, llama.cpp, OpenRouter, Groq, Together, DeepSeek, Mistral);
//!   Together also answers with a bare list `[{"id": …}, …]`;
//! - Anthropic `GET /v1/models`: `{"data": [{"type": "model", "id": …}], "has_more": …}`;
//! - Ollama `GET /api/tags`: `{"models": [{"name": …, "model": …}]}`;
//! - Gemini `GET /v1beta/models`: `{"models": [{"name": "models/…",
//!   "supportedGenerationMethods": […]}]}` (only models offering `generateContent` are
//!   listed, without the `models/` prefix).

use crate::json::Value;

use super::{
    anthropic, error_message, join_url, parse_body, Endpoint, HttpRequest, ProviderError,
    ProviderKind,
};

/// `GET` the endpoint's model list: `{base}/models` (OpenAI-compatible), `{base}/v1/models`
/// (Anthropic, or `{base}/models` when the base already ends in `/v1`) and
/// `{base}/models?pageSize=1000` (Gemini). The key is added by the transport as for model
/// requests.
pub fn request(provider: ProviderKind, endpoint: &Endpoint) -> HttpRequest {
    let base = endpoint.base_url.trim_end_matches('/');
    let mut headers = Vec::new();
    let url = match provider {
        ProviderKind::OpenAi => join_url(base, "models"),
        ProviderKind::Anthropic => {
            headers.push((
                "anthropic-version".to_owned(),
                anthropic::API_VERSION.to_owned(),
            ));
            if endpoint.browser {
                headers.push((
                    "anthropic-dangerous-direct-browser-access".to_owned(),
                    "true".to_owned(),
                ));
            }
            if base.ends_with("/v1") {
                join_url(base, "models")
            } else {
                join_url(base, "v1/models")
            }
        }
        ProviderKind::Gemini => join_url(base, "models?pageSize=1000"),
    };
    HttpRequest {
        method: "GET",
        url,
        headers,
        body: String::new(),
    }
}

/// The model names in a list body of any shape above, in the server's order, without
/// duplicates. A non-2xx status, an error body, a body that is not JSON or a body with no
/// recognisable list is an error (an empty list is not).
pub fn parse(status: u16, body: &str) -> Result<Vec<String>, ProviderError> {
    if !(200..300).contains(&status) {
        return Err(ProviderError::Status {
            status,
            body: super::snippet(body),
        });
    }
    let v = parse_body(body)?;
    if let Some(msg) = error_message(&v) {
        return Err(ProviderError::Api(msg));
    }
    let entries: Vec<&Value> = match (&v, v.get("data"), v.get("models")) {
        (Value::Array(list), _, _) => list.iter().collect(),
        (_, Some(Value::Array(data)), _) => data.iter().collect(),
        (_, _, Some(Value::Array(models))) => models.iter().collect(),
        _ => {
            return Err(ProviderError::Shape(
                "no `data` or `models` list".to_owned(),
            ))
        }
    };
    let mut names: Vec<String> = Vec::new();
    for entry in entries {
        if let Some(methods) = entry
            .get("supportedGenerationMethods")
            .and_then(Value::as_array)
        {
            if !methods
                .iter()
                .any(|m| m.as_str() == Some("generateContent"))
            {
                continue;
            }
        }
        let name = entry
            .get("id")
            .or_else(|| entry.get("name"))
            .or_else(|| entry.get("model"))
            .and_then(Value::as_str)
            .or(entry.as_str());
        let Some(name) = name else { continue };
        let name = name.strip_prefix("models/").unwrap_or(name).trim();
        if !name.is_empty() && !names.iter().any(|n| n == name) {
            names.push(name.to_owned());
        }
    }
    Ok(names)
}
