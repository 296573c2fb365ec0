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
/// Tolerated variations: null, missing or list-of-parts content; missing or empty
/// `tool_calls`; arguments sent as an object (re-encoded as dumps-utf8 text); missing call
/// ids (taken from `ids`); extra fields; `finish_reason: "length"`. An `{"error": …}` body
/// (even with status 200) is [`ProviderError::Api`].
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
    let content = match message.get("content") {
        Some(Value::Str(s)) => Value::Str(s.clone()),
        Some(Value::Array(parts)) => Value::Str(
            parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str).or_else(|| p.as_str()))
                .collect::<String>(),
        ),
        _ => Value::Null,
    };
    let tool_calls = match message.get("tool_calls") {
        Some(Value::Array(calls)) => {
            Value::Array(calls.iter().map(|c| normalise_call(c, ids)).collect())
        }
        _ => Value::Null,
    };
    let reasoning_content = match message.get("reasoning_content") {
        Some(Value::Str(s)) => Value::Str(s.clone()),
        _ => Value::Null,
    };
    let usage = v.get("usage");
    Ok(Reply {
        content,
        tool_calls,
        reasoning_content,
        input_tokens: token_count(usage, "prompt_tokens"),
        output_tokens: token_count(usage, "completion_tokens"),
        latency,
    })
}

/// One call in the official logged shape `{"id", "function": {"arguments", "name"}, "type"}`.
/// A call that is not an object is kept as is (the task machine reports the parse failure
/// the official loop would).
pub fn normalise_call(call: &Value, ids: &mut dyn IdSource) -> Value {
    let Some(obj) = call.as_object() else {
        return call.clone();
    };
    let id = match obj.get("id") {
        Some(Value::Str(s)) if !s.is_empty() => Value::Str(s.clone()),
        _ => Value::Str(ids.next_id()),
    };
    let function = obj.get("function");
    let name = function
        .and_then(|f| f.get("name"))
        .cloned()
        .unwrap_or(Value::Null);
    let arguments = match function.and_then(|f| f.get("arguments")) {
        Some(Value::Str(s)) => Value::Str(s.clone()),
        Some(Value::Null) | None => Value::Null,
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
    Value::Object(out)
}
