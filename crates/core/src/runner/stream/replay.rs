//! The event stream a correct server sends for a whole reply: the inverse of the
//! reassembly, for mock servers, benchmarks and tests. Text and arguments are cut into
//! pieces of `piece` characters (at least 1), as servers stream tokens.
//!
//! - OpenAI-compatible: a role chunk, content and `reasoning_content` pieces, each call as
//!   a fragment with its index, id, type and name followed by argument pieces, a chunk with
//!   the finish reason, a usage chunk (when the body has usage), `data: [DONE]`.
//! - Anthropic: `message_start`, one block per content block (`text_delta`,
//!   `thinking_delta`, `input_json_delta` pieces), `message_delta`, `message_stop`.
//! - Gemini: one event per text piece and per other part; the finish reason and usage on
//!   the last event.

use crate::json::{dumps, loads, Escape, Map, Value};

use super::super::provider::ProviderKind;

fn pieces(text: &str, piece: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars
        .chunks(piece.max(1))
        .map(|c| c.iter().collect())
        .collect()
}

fn obj(pairs: Vec<(&str, Value)>) -> Value {
    let mut m = Map::new();
    for (k, v) in pairs {
        m.insert(k, v);
    }
    Value::Object(m)
}

fn data(out: &mut String, v: &Value) {
    out.push_str("data: ");
    out.push_str(&dumps(v, Escape::Utf8));
    out.push_str("\n\n");
}

fn named(out: &mut String, name: &str, v: &Value) {
    out.push_str("event: ");
    out.push_str(name);
    out.push('\n');
    data(out, v);
}

/// The event stream for the non-streaming body `body` of `provider`; an error names what
/// in the body could not be streamed.
pub fn events_for(provider: ProviderKind, body: &str, piece: usize) -> Result<String, String> {
    let v = loads(body).map_err(|e| format!("the body is not JSON: {e}"))?;
    match provider {
        ProviderKind::OpenAi => openai(&v, piece),
        ProviderKind::Anthropic => anthropic(&v, piece),
        ProviderKind::Gemini => gemini(&v, piece),
    }
}

fn openai(v: &Value, piece: usize) -> Result<String, String> {
    let choice = v
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .ok_or("no choices[0]")?;
    let message = choice.get("message").ok_or("no choices[0].message")?;
    let chunk = |delta: Value, finish: Value| {
        obj(vec![
            ("object", Value::str("chat.completion.chunk")),
            (
                "choices",
                Value::Array(vec![obj(vec![
                    ("index", Value::int(0)),
                    ("delta", delta),
                    ("finish_reason", finish),
                ])]),
            ),
        ])
    };
    let mut out = String::new();
    data(
        &mut out,
        &chunk(
            obj(vec![
                ("role", Value::str("assistant")),
                ("content", Value::str("")),
            ]),
            Value::Null,
        ),
    );
    for key in ["reasoning_content", "content"] {
        if let Some(text) = message.get(key).and_then(Value::as_str) {
            for p in pieces(text, piece) {
                data(
                    &mut out,
                    &chunk(obj(vec![(key, Value::Str(p))]), Value::Null),
                );
            }
        }
    }
    let calls = message
        .get("tool_calls")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for (i, call) in calls.iter().enumerate() {
        let f = call.get("function").unwrap_or(&Value::Null);
        let fragment = |pairs: Vec<(&str, Value)>, function: Value| {
            let mut all = vec![("index", Value::int(i as i64))];
            all.extend(pairs);
            all.push(("function", function));
            obj(vec![("tool_calls", Value::Array(vec![obj(all)]))])
        };
        let mut head = Vec::new();
        if let Some(id) = call.get("id") {
            head.push(("id", id.clone()));
        }
        head.push(("type", Value::str("function")));
        let name = f.get("name").cloned().unwrap_or(Value::Null);
        let first = obj(vec![("name", name), ("arguments", Value::str(""))]);
        data(&mut out, &chunk(fragment(head, first), Value::Null));
        let args = match f.get("arguments") {
            Some(Value::Str(s)) => s.clone(),
            Some(other) => dumps(other, Escape::Utf8),
            None => String::new(),
        };
        for p in pieces(&args, piece) {
            let f = obj(vec![("arguments", Value::Str(p))]);
            data(&mut out, &chunk(fragment(Vec::new(), f), Value::Null));
        }
    }
    let finish = choice
        .get("finish_reason")
        .filter(|r| !r.is_null())
        .cloned()
        .unwrap_or_else(|| Value::str("stop"));
    data(&mut out, &chunk(obj(Vec::new()), finish));
    if let Some(usage) = v.get("usage").filter(|u| !u.is_null()) {
        data(
            &mut out,
            &obj(vec![
                ("object", Value::str("chat.completion.chunk")),
                ("choices", Value::Array(Vec::new())),
                ("usage", usage.clone()),
            ]),
        );
    }
    out.push_str("data: [DONE]\n\n");
    Ok(out)
}

fn anthropic(v: &Value, piece: usize) -> Result<String, String> {
    let blocks = v
        .get("content")
        .and_then(Value::as_array)
        .ok_or("no content blocks")?;
    let mut start = v.as_object().cloned().unwrap_or_default();
    start.insert("content", Value::Array(Vec::new()));
    start.insert("stop_reason", Value::Null);
    let usage = v.get("usage").cloned().unwrap_or(Value::Null);
    let mut out = String::new();
    named(
        &mut out,
        "message_start",
        &obj(vec![
            ("type", Value::str("message_start")),
            ("message", Value::Object(start)),
        ]),
    );
    for (i, b) in blocks.iter().enumerate() {
        let index = Value::int(i as i64);
        let kind = b.get("type").and_then(Value::as_str).unwrap_or("");
        let (empty, field, delta_kind, text) = match kind {
            "text" => (
                obj(vec![("type", Value::str("text")), ("text", Value::str(""))]),
                "text",
                "text_delta",
                b.get("text")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
            ),
            "thinking" => (
                obj(vec![
                    ("type", Value::str("thinking")),
                    ("thinking", Value::str("")),
                ]),
                "thinking",
                "thinking_delta",
                b.get("thinking")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
            ),
            "tool_use" => {
                let mut e = b.as_object().cloned().unwrap_or_default();
                e.insert("input", Value::Object(Map::new()));
                let input = b.get("input").cloned().unwrap_or(Value::Null);
                (
                    Value::Object(e),
                    "partial_json",
                    "input_json_delta",
                    dumps(&input, Escape::Utf8),
                )
            }
            _ => (b.clone(), "", "", String::new()),
        };
        named(
            &mut out,
            "content_block_start",
            &obj(vec![
                ("type", Value::str("content_block_start")),
                ("index", index.clone()),
                ("content_block", empty),
            ]),
        );
        if !delta_kind.is_empty() {
            for p in pieces(&text, piece) {
                named(
                    &mut out,
                    "content_block_delta",
                    &obj(vec![
                        ("type", Value::str("content_block_delta")),
                        ("index", index.clone()),
                        (
                            "delta",
                            obj(vec![
                                ("type", Value::str(delta_kind)),
                                (field, Value::Str(p)),
                            ]),
                        ),
                    ]),
                );
            }
        }
        named(
            &mut out,
            "content_block_stop",
            &obj(vec![
                ("type", Value::str("content_block_stop")),
                ("index", index),
            ]),
        );
    }
    let output = usage.get("output_tokens").cloned().unwrap_or(Value::Null);
    named(
        &mut out,
        "message_delta",
        &obj(vec![
            ("type", Value::str("message_delta")),
            (
                "delta",
                obj(vec![(
                    "stop_reason",
                    v.get("stop_reason").cloned().unwrap_or(Value::Null),
                )]),
            ),
            ("usage", obj(vec![("output_tokens", output)])),
        ]),
    );
    named(
        &mut out,
        "message_stop",
        &obj(vec![("type", Value::str("message_stop"))]),
    );
    Ok(out)
}

fn gemini(v: &Value, piece: usize) -> Result<String, String> {
    let candidate = v
        .get("candidates")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .ok_or("no candidates[0]")?;
    let parts = candidate
        .get("content")
        .and_then(|c| c.get("parts"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut events: Vec<Value> = Vec::new();
    for part in &parts {
        match part.get("text").and_then(Value::as_str) {
            Some(text) if part.as_object().is_some_and(|o| o.len() <= 2) => {
                for p in pieces(text, piece) {
                    let mut m = part.as_object().cloned().unwrap_or_default();
                    m.insert("text", Value::Str(p));
                    events.push(Value::Object(m));
                }
            }
            _ => events.push(part.clone()),
        }
    }
    let last = events.len().saturating_sub(1);
    let mut out = String::new();
    if events.is_empty() {
        events.push(obj(vec![("text", Value::str(""))]));
    }
    for (i, part) in events.into_iter().enumerate() {
        let mut cand = vec![(
            "content",
            obj(vec![
                ("parts", Value::Array(vec![part])),
                ("role", Value::str("model")),
            ]),
        )];
        let mut top = Vec::new();
        if i == last {
            if let Some(r) = candidate.get("finishReason") {
                cand.push(("finishReason", r.clone()));
            }
            if let Some(u) = v.get("usageMetadata") {
                top.push(("usageMetadata", u.clone()));
            }
        }
        let mut all = vec![("candidates", Value::Array(vec![obj(cand)]))];
        all.extend(top);
        out.push_str("data: ");
        out.push_str(&dumps(&obj(all), Escape::Utf8));
        out.push_str("\r\n\r\n");
    }
    Ok(out)
}
