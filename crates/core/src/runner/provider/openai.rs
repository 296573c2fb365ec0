//! OpenAI-compatible Chat Completions (PROTOCOL §2.4).

use crate::json::{dumps, Escape, Map, Value};
use crate::protocol::{IdSource, Reply};

use super::{
    error_message, join_url, parse_body, token_count, ChatRequest, Endpoint, HttpRequest,
    ProviderError,
};

/// `POST {base}/chat/completions` with `{"messages", "model", "temperature", "tools"}`:
/// no `tool_choice`, no `max_tokens`, no streaming, as the official harness sends.
pub fn build_request(req: &ChatRequest<'_>, endpoint: &Endpoint) -> HttpRequest {
    let mut body = Map::new();
    body.insert("messages", Value::Array(req.messages.to_vec()));
    body.insert("model", Value::str(req.model));
    body.insert("temperature", Value::Float(req.temperature));
    body.insert("tools", req.tools.clone());
    HttpRequest {
        method: "POST",
        url: join_url(&endpoint.base_url, "chat/completions"),
        headers: vec![("content-type".to_owned(), "application/json".to_owned())],
        body: dumps(&Value::Object(body), Escape::Utf8),
    }
}

/// Reads `choices[0].message` and `usage` into a [`Reply`].
///
/// Tolerated variations (servers named in `docs/providers.md`, "Reply shapes"):
/// - content: a string, null, missing, or a list of parts; `text` parts are joined into
///   the content and `thinking` parts (Mistral) into the reasoning;
/// - tool calls: missing or empty `tool_calls`; calls wrapped in `function` or flat
///   `{name, arguments}` entries (llama.cpp's early output); arguments as text, as an
///   object (re-encoded as dumps-utf8 text), or absent/null/empty (recorded as `"{}"`);
///   missing call ids (taken from `ids`), integer ids (kept as text); a call's
///   `extra_content` (Gemini's thought signature) is kept so that it is sent back;
/// - reasoning: `reasoning_content` (sent back after a tool-call step, as the official
///   loop does), else `reasoning` or thinking parts (logged only);
/// - extra fields; `finish_reason: "length"`.
///
/// An `{"error": …}` body (even with status 200) is [`ProviderError::Api`].
pub fn parse_response(
    body: &str,
    latency: f64,
    ids: &mut dyn IdSource,
) -> Result<Reply, ProviderError> {
    let v = parse_body(body)?;
    if let Some(msg) = error_message(&v) {
        return Err(ProviderError::Api(msg));
    }
    let message = v
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .and_then(|c| c.get("message"))
        .ok_or_else(|| ProviderError::Shape("no choices[0].message".to_owned()))?;
    if message.as_object().is_none() {
        return Err(ProviderError::Shape(
            "choices[0].message is not an object".to_owned(),
        ));
    }
    let mut part_reasoning: Option<String> = None;
    let content = match message.get("content") {
        Some(Value::Str(s)) => Value::Str(s.clone()),
        Some(Value::Array(parts)) => {
            let mut text = String::new();
            for part in parts {
                match part.get("type").and_then(Value::as_str) {
                    Some("thinking") => part_reasoning
                        .get_or_insert_with(String::new)
                        .push_str(&thinking_text(part.get("thinking"))),
                    _ => {
                        if let Some(t) = part.get("text").and_then(Value::as_str).or(part.as_str())
                        {
                            text.push_str(t);
                        }
                    }
                }
            }
            Value::Str(text)
        }
        _ => Value::Null,
    };
    let tool_calls = match message.get("tool_calls") {
        Some(Value::Array(calls)) => {
            Value::Array(calls.iter().map(|c| normalise_call(c, ids)).collect())
        }
        _ => Value::Null,
    };
    let (reasoning_content, echo_reasoning) = match message.get("reasoning_content") {
        Some(Value::Str(s)) => (Value::Str(s.clone()), true),
        _ => match (message.get("reasoning"), part_reasoning) {
            (Some(Value::Str(s)), _) => (Value::Str(s.clone()), false),
            (_, Some(s)) => (Value::Str(s), false),
            _ => (Value::Null, false),
        },
    };
    let usage = v.get("usage");
    Ok(Reply {
        content,
        tool_calls,
        reasoning_content,
        echo_reasoning,
        input_tokens: token_count(usage, "prompt_tokens"),
        output_tokens: token_count(usage, "completion_tokens"),
        cached_input_tokens: token_count(
            usage.and_then(|u| u.get("prompt_tokens_details")),
            "cached_tokens",
        ),
        latency,
    })
}

/// The text of a thinking part's `thinking` field: a string, or a list of text chunks.
fn thinking_text(v: Option<&Value>) -> String {
    match v {
        Some(Value::Str(s)) => s.clone(),
        Some(Value::Array(chunks)) => chunks
            .iter()
            .filter_map(|c| c.get("text").and_then(Value::as_str).or(c.as_str()))
            .collect(),
        _ => String::new(),
    }
}

/// One call in the official logged shape `{"id", "function": {"arguments", "name"}, "type"}`
/// (plus `extra_content` when the server sent one). A call that is not an object is kept
/// as is (the task machine reports the parse failure the official loop would).
pub fn normalise_call(call: &Value, ids: &mut dyn IdSource) -> Value {
    let Some(obj) = call.as_object() else {
        return call.clone();
    };
    let id = match obj.get("id") {
        Some(Value::Str(s)) if !s.is_empty() => Value::Str(s.clone()),
        Some(n @ Value::Int(_)) => Value::Str(dumps(n, Escape::Utf8)),
        _ => Value::Str(ids.next_id()),
    };
    // llama.cpp's early output puts `name` and `arguments` directly in the entry.
    let function = match obj.get("function") {
        Some(f @ Value::Object(_)) => Some(f),
        _ if obj.contains_key("name") => Some(call),
        _ => None,
    };
    let name = function
        .and_then(|f| f.get("name"))
        .cloned()
        .unwrap_or(Value::Null);
    let arguments = match function.and_then(|f| f.get("arguments")) {
        Some(Value::Str(s)) if s.trim().is_empty() => Value::str("{}"),
        Some(Value::Str(s)) => Value::Str(s.clone()),
        // OpenRouter leaves `arguments` out when a tool has no required parameter.
        Some(Value::Null) | None => Value::str("{}"),
        Some(other) => Value::Str(dumps(other, Escape::Utf8)),
    };
    let mut f = Map::new();
    f.insert("arguments", arguments);
    f.insert("name", name);
    let mut out = Map::new();
    out.insert("id", id);
    out.insert("function", Value::Object(f));
    out.insert(
        "type",
        obj.get("type")
            .cloned()
            .filter(|t| !t.is_null())
            .unwrap_or(Value::str("function")),
    );
    if let Some(extra) = obj.get("extra_content").filter(|e| !e.is_null()) {
        out.insert("extra_content", extra.clone());
    }
    Value::Object(out)
}
