//! The Gemini API's own format (`models/{model}:generateContent`): converts the
//! OpenAI-style message list the task machine builds into `contents` of `parts`, and the
//! response parts back into a [`Reply`].
//!
//! - `system` messages become `systemInstruction` (joined by blank lines).
//! - User messages become `user` contents with a `text` part; assistant messages become
//!   `model` contents with a `text` part (when non-empty) and one `functionCall` part per
//!   tool call, whose `args` are the parsed arguments (an object; unparseable or
//!   non-object arguments become `{}`).
//! - `tool` messages become `functionResponse` parts of a `user` content, in message
//!   order, with `response: {"output": <the tool message's text>}` so the model reads
//!   exactly the text an OpenAI-compatible model would.
//! - Call ids: Gemini pairs function responses with calls by position and name, not by id.
//!   Each tool message's `tool_call_id` is looked up among the calls of the preceding
//!   assistant message and the response is named after that call (falling back to the call
//!   at the same position). So a response keeps the call it answers in the official loop,
//!   including the official pairing of gold observations with the model's ids (PROTOCOL
//!   P5). No ids are sent. Calls in a response that carry no id get one from the task's id
//!   source (the official `toolu_bdrk_` form); a `functionCall.id` sent by the server is
//!   kept.
//! - Consecutive messages of the same kind are merged into one content; function
//!   responses and user text stay in separate `user` contents, so every task's user
//!   message starts a new turn.
//! - Thought signatures: a `functionCall` part's `thoughtSignature` is recorded on the call
//!   as `extra_content.google.thought_signature` (the form Gemini's OpenAI-compatible
//!   endpoint uses) and sent back on the same part, as Gemini 3 models require for the
//!   calls of the current turn. Gold history calls have none; they lie in earlier turns,
//!   which are not validated.
//! - `thought: true` text parts become the logged reasoning (not sent back).
//! - The API key travels in the `x-goog-api-key` header added by the transport
//!   ([`super::AuthStyle::XGoogApiKey`]); it is never part of the URL.

use crate::json::{dumps, loads, Escape, Map, Value};
use crate::protocol::{IdSource, Reply};

use super::{
    error_message, join_url, parse_body, ChatRequest, Endpoint, HttpRequest, ProviderError,
};

/// `POST {base}/models/{model}:generateContent` with `systemInstruction`, `contents`,
/// `tools` and `generationConfig.temperature`; nothing else (no output cap, no thinking
/// settings), as close to the official request as the format allows.
pub fn build_request(req: &ChatRequest<'_>, endpoint: &Endpoint) -> HttpRequest {
    let url = join_url(
        &endpoint.base_url,
        &format!("{}:generateContent", model_path(req.model)),
    );
    let (system, contents) = convert_messages(req.messages);
    let mut body = Map::new();
    if !system.is_empty() {
        let mut part = Map::new();
        part.insert("text", Value::Str(system));
        let mut si = Map::new();
        si.insert("parts", Value::Array(vec![Value::Object(part)]));
        body.insert("systemInstruction", Value::Object(si));
    }
    body.insert("contents", Value::Array(contents));
    let tools = convert_tools(req.tools);
    if !tools.is_empty() {
        body.insert("tools", Value::Array(tools));
    }
    let mut config = Map::new();
    config.insert("temperature", Value::Float(req.temperature));
    body.insert("generationConfig", Value::Object(config));
    HttpRequest {
        method: "POST",
        url,
        headers: vec![("content-type".to_owned(), "application/json".to_owned())],
        body: dumps(&Value::Object(body), Escape::Utf8),
    }
}

/// The resource path of a model: `gemini-x` → `models/gemini-x`; a name that already has
/// a collection (`models/…`, `tunedModels/…`) is kept. Characters outside the URL's
/// unreserved set (and `/`) are percent-encoded, so a model name cannot change the host or
/// the method.
pub fn model_path(model: &str) -> String {
    let m = model.trim().trim_start_matches('/');
    let path = if m.contains('/') {
        m.to_owned()
    } else {
        format!("models/{m}")
    };
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// OpenAI tools → one `{"functionDeclarations": [{name, description, parametersJsonSchema}]}`
/// tool. The schema is passed unchanged as JSON Schema (`parametersJsonSchema`), not
/// converted to the API's OpenAPI subset, so the model sees the dataset's schema as is.
pub fn convert_tools(tools: &Value) -> Vec<Value> {
    let Some(list) = tools.as_array() else {
        return Vec::new();
    };
    if list.is_empty() {
        return Vec::new();
    }
    let declarations = list
        .iter()
        .map(|t| {
            let f = t.get("function").unwrap_or(t);
            let mut m = Map::new();
            m.insert("name", f.get("name").cloned().unwrap_or(Value::Null));
            if let Some(d) = f.get("description") {
                m.insert("description", d.clone());
            }
            if let Some(p) = f.get("parameters") {
                m.insert("parametersJsonSchema", p.clone());
            }
            Value::Object(m)
        })
        .collect();
    let mut tool = Map::new();
    tool.insert("functionDeclarations", Value::Array(declarations));
    vec![Value::Object(tool)]
}

fn content_text(v: Option<&Value>) -> String {
    match v {
        Some(Value::Str(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => dumps(other, Escape::Utf8),
    }
}

fn text_part(text: String) -> Value {
    let mut m = Map::new();
    m.insert("text", Value::Str(text));
    Value::Object(m)
}

/// The thought signature recorded on a call (`extra_content.google.thought_signature`).
fn call_signature(call: &Value) -> Option<&Value> {
    call.get("extra_content")
        .and_then(|e| e.get("google"))
        .and_then(|g| g.get("thought_signature"))
        .filter(|s| matches!(s, Value::Str(_)))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    UserText,
    FunctionResponses,
    Model,
}

/// Splits the system prompt off and converts the rest to `contents`.
pub fn convert_messages(messages: &[Value]) -> (String, Vec<Value>) {
    let mut system: Vec<String> = Vec::new();
    let mut contents: Vec<(Kind, Vec<Value>)> = Vec::new();
    // The calls of the latest assistant message (id, name), and how many tool messages
    // have answered it so far.
    let mut pending: Vec<(Value, Value)> = Vec::new();
    let mut answered = 0usize;
    for msg in messages {
        let role = msg.get("role").and_then(Value::as_str).unwrap_or("user");
        let (kind, parts) = match role {
            "system" => {
                system.push(content_text(msg.get("content")));
                continue;
            }
            "tool" => {
                let id = msg.get("tool_call_id").unwrap_or(&Value::Null);
                let name = pending
                    .iter()
                    .find(|(call_id, _)| !id.is_null() && call_id == id)
                    .or_else(|| pending.get(answered))
                    .map(|(_, name)| name.clone())
                    .unwrap_or_else(|| Value::str(""));
                answered += 1;
                let mut response = Map::new();
                response.insert("output", Value::Str(content_text(msg.get("content"))));
                let mut fr = Map::new();
                fr.insert("name", name);
                fr.insert("response", Value::Object(response));
                let mut part = Map::new();
                part.insert("functionResponse", Value::Object(fr));
                (Kind::FunctionResponses, vec![Value::Object(part)])
            }
            "assistant" => {
                let mut parts = Vec::new();
                let text = content_text(msg.get("content"));
                if !text.is_empty() {
                    parts.push(text_part(text));
                }
                pending.clear();
                answered = 0;
                if let Some(calls) = msg.get("tool_calls").and_then(Value::as_array) {
                    for call in calls {
                        let f = call.get("function");
                        let name = f
                            .and_then(|f| f.get("name"))
                            .cloned()
                            .unwrap_or(Value::Null);
                        let args = match f.and_then(|f| f.get("arguments")) {
                            Some(Value::Str(s)) => {
                                loads(s).ok().filter(|v| v.as_object().is_some())
                            }
                            Some(v @ Value::Object(_)) => Some(v.clone()),
                            _ => None,
                        }
                        .unwrap_or_else(|| Value::Object(Map::new()));
                        pending
                            .push((call.get("id").cloned().unwrap_or(Value::Null), name.clone()));
                        let mut fc = Map::new();
                        fc.insert("name", name);
                        fc.insert("args", args);
                        let mut part = Map::new();
                        part.insert("functionCall", Value::Object(fc));
                        if let Some(sig) = call_signature(call) {
                            part.insert("thoughtSignature", sig.clone());
                        }
                        parts.push(Value::Object(part));
                    }
                }
                (Kind::Model, parts)
            }
            _ => (
                Kind::UserText,
                vec![text_part(content_text(msg.get("content")))],
            ),
        };
        if parts.is_empty() {
            continue;
        }
        match contents.last_mut() {
            Some((k, existing)) if *k == kind => existing.extend(parts),
            _ => contents.push((kind, parts)),
        }
    }
    let out = contents
        .into_iter()
        .map(|(kind, parts)| {
            let mut m = Map::new();
            let role = if kind == Kind::Model { "model" } else { "user" };
            m.insert("role", Value::str(role));
            m.insert("parts", Value::Array(parts));
            Value::Object(m)
        })
        .collect();
    (system.join("\n\n"), out)
}

/// `candidates[0].content.parts` → [`Reply`]: text parts are concatenated into `content`,
/// `thought: true` text parts into the logged reasoning, `functionCall` parts become calls
/// with dumps-utf8 `args` as arguments (and the part's thought signature kept on the
/// call). `usageMetadata.promptTokenCount` is the input count; the output count is
/// `candidatesTokenCount` plus `thoughtsTokenCount` (what the API bills as output, and what
/// OpenAI-compatible servers report as `completion_tokens`).
///
/// A response without candidates whose prompt was blocked (`promptFeedback`), or a
/// candidate without content (a safety stop), is an empty reply: the model produced
/// nothing, as an OpenAI-compatible `content_filter` finish would record.
pub fn parse_response(
    body: &str,
    latency: f64,
    ids: &mut dyn IdSource,
) -> Result<Reply, ProviderError> {
    let v = parse_body(body)?;
    if let Some(msg) = error_message(&v) {
        return Err(ProviderError::Api(msg));
    }
    let first = v
        .get("candidates")
        .and_then(Value::as_array)
        .and_then(|c| c.first());
    let parts: &[Value] = match first {
        Some(candidate) if candidate.as_object().is_some() => candidate
            .get("content")
            .and_then(|c| c.get("parts"))
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or(&[]),
        Some(_) => {
            return Err(ProviderError::Shape(
                "candidates[0] is not an object".to_owned(),
            ))
        }
        None if v.get("promptFeedback").is_some() => &[],
        None => return Err(ProviderError::Shape("no candidates".to_owned())),
    };
    let mut text: Option<String> = None;
    let mut thoughts: Option<String> = None;
    let mut calls = Vec::new();
    for part in parts {
        if let Some(fc) = part.get("functionCall") {
            let args = fc
                .get("args")
                .filter(|a| !a.is_null())
                .cloned()
                .unwrap_or_else(|| Value::Object(Map::new()));
            let mut f = Map::new();
            f.insert("arguments", Value::Str(dumps(&args, Escape::Utf8)));
            f.insert("name", fc.get("name").cloned().unwrap_or(Value::Null));
            let id = match fc.get("id") {
                Some(Value::Str(s)) if !s.is_empty() => s.clone(),
                _ => ids.next_id(),
            };
            let mut c = Map::new();
            c.insert("id", Value::Str(id));
            c.insert("function", Value::Object(f));
            c.insert("type", Value::str("function"));
            if let Some(sig @ Value::Str(_)) = part.get("thoughtSignature") {
                let mut google = Map::new();
                google.insert("thought_signature", sig.clone());
                let mut extra = Map::new();
                extra.insert("google", Value::Object(google));
                c.insert("extra_content", Value::Object(extra));
            }
            calls.push(Value::Object(c));
        } else if let Some(t) = part.get("text").and_then(Value::as_str) {
            let target = if part.get("thought") == Some(&Value::Bool(true)) {
                &mut thoughts
            } else {
                &mut text
            };
            target.get_or_insert_with(String::new).push_str(t);
        }
    }
    let usage = v.get("usageMetadata");
    let count = |key: &str| usage.and_then(|u| u.get(key)).and_then(Value::as_i64);
    let output = match (count("candidatesTokenCount"), count("thoughtsTokenCount")) {
        (None, None) => Value::Null,
        (a, b) => Value::int(a.unwrap_or(0).saturating_add(b.unwrap_or(0))),
    };
    Ok(Reply {
        content: text.map(Value::Str).unwrap_or(Value::Null),
        tool_calls: if calls.is_empty() {
            Value::Null
        } else {
            Value::Array(calls)
        },
        reasoning_content: thoughts.map(Value::Str).unwrap_or(Value::Null),
        echo_reasoning: false,
        input_tokens: count("promptTokenCount")
            .map(Value::int)
            .unwrap_or(Value::Null),
        output_tokens: output,
        cached_input_tokens: count("cachedContentTokenCount")
            .map(Value::int)
            .unwrap_or(Value::Null),
        latency,
    })
}
