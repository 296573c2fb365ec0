//! Anthropic Messages API: converts the OpenAI-style message list the task machine builds
//! into Messages form, and the response blocks back into a [`Reply`].
//!
//! - `system` messages become the top-level `system` string (joined by blank lines).
//! - Assistant `tool_calls` become `tool_use` blocks whose `input` is the parsed
//!   arguments (an object; unparseable or non-object arguments become `{}`).
//! - `tool` messages become `tool_result` blocks in a user turn; consecutive messages of
//!   the same role are merged so that user/assistant turns alternate, as the API requires.
//! - `reasoning_content` is not sent back (Anthropic thinking blocks need signatures).
//! - `max_tokens` is mandatory in this API and is fixed at [`MAX_TOKENS`] (the official
//!   harness sends none to OpenAI-compatible endpoints).

use crate::json::{dumps, loads, Escape, Map, Value};
use crate::protocol::Reply;

use super::{
    error_message, join_url, parse_body, token_count, ChatRequest, Endpoint, HttpRequest,
    ProviderError,
};

/// The `anthropic-version` header sent.
pub const API_VERSION: &str = "2023-06-01";
/// Every prompt token: `usage.input_tokens` counts only the tokens after the last cache
/// breakpoint, so the cache reads and writes are added (the counts of the other APIs).
fn prompt_tokens(usage: Option<&Value>) -> Value {
    let extra = |k: &str| {
        usage
            .and_then(|u| u.get(k))
            .and_then(Value::as_i64)
            .unwrap_or(0)
    };
    match token_count(usage, "input_tokens").as_i64() {
        Some(n) => Value::int(
            n.saturating_add(extra("cache_read_input_tokens"))
                .saturating_add(extra("cache_creation_input_tokens")),
        ),
        None => Value::Null,
    }
}

/// The `max_tokens` sent with every request.
pub const MAX_TOKENS: i64 = 4096;

/// `POST {base}/v1/messages` (or `{base}/messages` when the base already ends in `/v1`).
pub fn build_request(req: &ChatRequest<'_>, endpoint: &Endpoint) -> HttpRequest {
    let base = endpoint.base_url.trim_end_matches('/');
    let url = if base.ends_with("/v1") {
        join_url(base, "messages")
    } else {
        join_url(base, "v1/messages")
    };
    let (system, messages) = convert_messages(req.messages);
    let mut body = Map::new();
    body.insert("model", Value::str(req.model));
    body.insert("max_tokens", Value::int(MAX_TOKENS));
    if !system.is_empty() {
        body.insert("system", Value::Str(system));
    }
    body.insert("messages", Value::Array(messages));
    body.insert("tools", convert_tools(req.tools));
    body.insert("temperature", Value::Float(req.temperature));
    let mut headers = vec![
        ("content-type".to_owned(), "application/json".to_owned()),
        ("anthropic-version".to_owned(), API_VERSION.to_owned()),
    ];
    if endpoint.browser {
        headers.push((
            "anthropic-dangerous-direct-browser-access".to_owned(),
            "true".to_owned(),
        ));
    }
    HttpRequest {
        method: "POST",
        url,
        headers,
        body: dumps(&Value::Object(body), Escape::Utf8),
    }
}

/// OpenAI tools → `{name, description, input_schema}`.
pub fn convert_tools(tools: &Value) -> Value {
    let Some(list) = tools.as_array() else {
        return Value::Array(Vec::new());
    };
    Value::Array(
        list.iter()
            .map(|t| {
                let f = t.get("function").unwrap_or(t);
                let mut m = Map::new();
                m.insert("name", f.get("name").cloned().unwrap_or(Value::Null));
                if let Some(d) = f.get("description") {
                    m.insert("description", d.clone());
                }
                let schema = f.get("parameters").cloned().unwrap_or_else(|| {
                    let mut s = Map::new();
                    s.insert("type", Value::str("object"));
                    Value::Object(s)
                });
                m.insert("input_schema", schema);
                Value::Object(m)
            })
            .collect(),
    )
}

fn text_block(text: String) -> Value {
    let mut m = Map::new();
    m.insert("type", Value::str("text"));
    m.insert("text", Value::Str(text));
    Value::Object(m)
}

fn content_text(v: Option<&Value>) -> String {
    match v {
        Some(Value::Str(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => dumps(other, Escape::Utf8),
    }
}

/// Splits the system prompt off and converts the rest to alternating turns of blocks.
pub fn convert_messages(messages: &[Value]) -> (String, Vec<Value>) {
    let mut system: Vec<String> = Vec::new();
    let mut turns: Vec<(String, Vec<Value>)> = Vec::new();
    for msg in messages {
        let role = msg.get("role").and_then(Value::as_str).unwrap_or("user");
        let (turn_role, blocks) = match role {
            "system" => {
                system.push(content_text(msg.get("content")));
                continue;
            }
            "tool" => {
                let mut b = Map::new();
                b.insert("type", Value::str("tool_result"));
                b.insert(
                    "tool_use_id",
                    msg.get("tool_call_id").cloned().unwrap_or(Value::Null),
                );
                b.insert("content", Value::Str(content_text(msg.get("content"))));
                ("user", vec![Value::Object(b)])
            }
            "assistant" => {
                let mut blocks = Vec::new();
                let text = content_text(msg.get("content"));
                if !text.is_empty() {
                    blocks.push(text_block(text));
                }
                if let Some(calls) = msg.get("tool_calls").and_then(Value::as_array) {
                    for call in calls {
                        let f = call.get("function");
                        let input = match f.and_then(|f| f.get("arguments")) {
                            Some(Value::Str(s)) => {
                                loads(s).ok().filter(|v| v.as_object().is_some())
                            }
                            Some(v @ Value::Object(_)) => Some(v.clone()),
                            _ => None,
                        }
                        .unwrap_or_else(|| Value::Object(Map::new()));
                        let mut b = Map::new();
                        b.insert("type", Value::str("tool_use"));
                        b.insert("id", call.get("id").cloned().unwrap_or(Value::Null));
                        b.insert(
                            "name",
                            f.and_then(|f| f.get("name"))
                                .cloned()
                                .unwrap_or(Value::Null),
                        );
                        b.insert("input", input);
                        blocks.push(Value::Object(b));
                    }
                }
                ("assistant", blocks)
            }
            _ => ("user", vec![text_block(content_text(msg.get("content")))]),
        };
        if blocks.is_empty() {
            continue;
        }
        match turns.last_mut() {
            Some((r, existing)) if r == turn_role => existing.extend(blocks),
            _ => turns.push((turn_role.to_owned(), blocks)),
        }
    }
    let out = turns
        .into_iter()
        .map(|(role, blocks)| {
            let mut m = Map::new();
            m.insert("role", Value::Str(role));
            m.insert("content", Value::Array(blocks));
            Value::Object(m)
        })
        .collect();
    (system.join("\n\n"), out)
}

/// Response `content` blocks → [`Reply`]: `text` blocks are concatenated into `content`,
/// `tool_use` blocks become calls with dumps-utf8 `input` as arguments, `thinking` blocks
/// become the logged reasoning (not sent back); `usage.input_tokens` / `output_tokens` are the counts.
pub fn parse_response(body: &str, latency: f64) -> Result<Reply, ProviderError> {
    let v = parse_body(body)?;
    if v.get("type").and_then(Value::as_str) == Some("error") || v.get("content").is_none() {
        return Err(match error_message(&v) {
            Some(m) => ProviderError::Api(m),
            None => ProviderError::Shape("no content blocks".to_owned()),
        });
    }
    let blocks = v
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| ProviderError::Shape("content is not a list".to_owned()))?;
    let mut text: Option<String> = None;
    let mut thinking: Option<String> = None;
    let mut calls = Vec::new();
    for block in blocks {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => text
                .get_or_insert_with(String::new)
                .push_str(block.get("text").and_then(Value::as_str).unwrap_or("")),
            Some("thinking") => thinking
                .get_or_insert_with(String::new)
                .push_str(block.get("thinking").and_then(Value::as_str).unwrap_or("")),
            Some("tool_use") => {
                let mut f = Map::new();
                let input = block
                    .get("input")
                    .cloned()
                    .unwrap_or_else(|| Value::Object(Map::new()));
                f.insert("arguments", Value::Str(dumps(&input, Escape::Utf8)));
                f.insert("name", block.get("name").cloned().unwrap_or(Value::Null));
                let mut c = Map::new();
                c.insert("id", block.get("id").cloned().unwrap_or(Value::Null));
                c.insert("function", Value::Object(f));
                c.insert("type", Value::str("function"));
                calls.push(Value::Object(c));
            }
            _ => {}
        }
    }
    let usage = v.get("usage");
    Ok(Reply {
        content: text.map(Value::Str).unwrap_or(Value::Null),
        tool_calls: if calls.is_empty() {
            Value::Null
        } else {
            Value::Array(calls)
        },
        reasoning_content: thinking.map(Value::Str).unwrap_or(Value::Null),
        // Thinking blocks are logged; sending them back would need their signatures.
        echo_reasoning: false,
        input_tokens: prompt_tokens(usage),
        output_tokens: token_count(usage, "output_tokens"),
        cached_input_tokens: token_count(usage, "cache_read_input_tokens"),
        latency,
    })
}
