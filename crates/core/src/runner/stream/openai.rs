//! OpenAI-compatible Chat Completions streams (`"stream": true`): `data:` events of
//! `chat.completion.chunk` objects, ended by `data: [DONE]`, reassembled into the body a
//! non-streaming request would have returned.
//!
//! How a chunk is read (the rules a correct client follows, with what servers are known
//! to send):
//! - `choices[0].delta` carries the new text (`content`), reasoning (`reasoning_content`
//!   or `reasoning`) and tool-call fragments; other choices are ignored; `finish_reason`
//!   may come on any chunk (or, from some servers, not at all); a chunk with `usage`
//!   (asked for with `stream_options.include_usage`, and sent by some servers anyway)
//!   gives the token counts, its `choices` usually empty.
//! - Tool-call fragments are merged by `index`. `id`, `type` and `function.name` are
//!   taken from the first fragment that has them (servers such as TGI repeat them on every
//!   fragment; a repeat is ignored); `function.arguments` fragments are concatenated in
//!   order, so a whole call in one fragment (llama.cpp, Ollama) and a call spread over many
//!   read the same. A fragment at an index already in use that carries a different `id`
//!   starts a new call (Ollama sent every call at index 0); a fragment without an index
//!   continues the latest call unless it starts one (it has an `id` or a name of its own).
//!   These recoveries are listed in [`ChatStream::notes`].
//! - An `error` object in a chunk (vLLM, SGLang and others report failures mid-stream this
//!   way), or an `event: error`, is [`StreamError::Api`]; any other named event is
//!   [`StreamError::UnknownEvent`] (chat streams have no named events).
//! - Text that stays empty is recorded as `null`, as a non-streaming reply without text
//!   is (servers send `"content": ""` on their first and last chunks).
//! - The stream is complete at `data: [DONE]`, or when it ends after a `finish_reason`.
//!
//! The reassembled body keeps the first chunk's top-level fields (`id`, `model`,
//! `system_fingerprint`, and extras such as llama.cpp's `timings`) and the choice's extra
//! fields (vLLM's `stop_reason`, SGLang's `matched_stop`), so that it can be read and
//! recognised as the non-streaming body is.

use crate::json::{dumps, loads, Escape, Map, Value};

use super::super::provider::{error_message, mask_echoed_key};
use super::error::StreamError;
use super::sse::SseEvent;
use super::{Budget, Effect};

/// One tool call being reassembled.
#[derive(Debug, Default)]
struct Call {
    id: Option<String>,
    kind: Option<Value>,
    name: Option<String>,
    arguments: String,
    extra_content: Option<Value>,
}

/// The state of one Chat Completions stream.
#[derive(Debug, Default)]
pub struct ChatStream {
    top: Map,
    choice_extra: Map,
    role: Option<String>,
    content: String,
    reasoning_content: Option<String>,
    reasoning: Option<String>,
    calls: Vec<Call>,
    /// The call each `index` currently points at.
    slots: Vec<(i64, usize)>,
    finish_reason: Option<Value>,
    usage: Option<Value>,
    done: bool,
    notes: Vec<String>,
}

const SKIP_TOP: [&str; 4] = ["choices", "usage", "object", "error"];
const SKIP_CHOICE: [&str; 4] = ["index", "delta", "finish_reason", "logprobs"];

fn id_text(v: Option<&Value>) -> Option<String> {
    match v {
        Some(Value::Str(s)) if !s.is_empty() => Some(s.clone()),
        Some(n @ Value::Int(_)) => Some(dumps(n, Escape::Utf8)),
        _ => None,
    }
}

fn nonempty_str(v: Option<&Value>) -> Option<&str> {
    v.and_then(Value::as_str).filter(|s| !s.is_empty())
}

/// Text of a delta's `content`: a string, or the `text` of a list of parts.
fn delta_text(v: Option<&Value>) -> Option<String> {
    match v {
        Some(Value::Str(s)) => Some(s.clone()),
        Some(Value::Array(parts)) => Some(
            parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str).or(p.as_str()))
                .collect(),
        ),
        _ => None,
    }
}

impl ChatStream {
    /// An empty stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Irregularities a correct client recovers from, in the order they were met.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// True once the stream said it is over (`[DONE]`).
    pub fn finished(&self) -> bool {
        self.done
    }

    /// True when the stream may end here without losing anything.
    pub fn complete(&self) -> bool {
        self.done || self.finish_reason.is_some()
    }

    /// What a complete stream ends with, for messages.
    pub fn missing(&self) -> &'static str {
        "data: [DONE] or a finish_reason"
    }

    /// Reads one event.
    pub fn event(&mut self, ev: &SseEvent<'_>, budget: &mut Budget) -> Result<Effect, StreamError> {
        match ev.kind {
            None | Some("message") => {}
            Some("error") => {
                let message = loads(ev.data)
                    .ok()
                    .and_then(|v| error_message(&v).or_else(|| text_field(&v, "message")))
                    .unwrap_or_else(|| mask_echoed_key(ev.data.trim()));
                return Err(StreamError::Api {
                    event: ev.number,
                    message,
                });
            }
            Some(other) => {
                return Err(StreamError::UnknownEvent {
                    event: ev.number,
                    kind: other.to_owned(),
                })
            }
        }
        if ev.data.trim() == "[DONE]" {
            self.done = true;
            return Ok(Effect::default());
        }
        if self.done {
            self.notes.push(format!(
                "event {} came after data: [DONE] and was ignored",
                ev.number
            ));
            return Ok(Effect::default());
        }
        let chunk = loads(ev.data).map_err(|e| {
            StreamError::malformed(ev.number, None, format!("the data is not JSON ({e})"))
        })?;
        let Some(obj) = chunk.as_object() else {
            return Err(StreamError::malformed(
                ev.number,
                None,
                format!("the data is a JSON {}, not an object", chunk.py_type_name()),
            ));
        };
        if let Some(message) = error_message(&chunk) {
            return Err(StreamError::Api {
                event: ev.number,
                message,
            });
        }
        if obj.get("object").and_then(Value::as_str) == Some("error") {
            return Err(StreamError::Api {
                event: ev.number,
                message: text_field(&chunk, "message").unwrap_or_else(|| "an error".to_owned()),
            });
        }
        for (k, v) in obj.iter() {
            if !SKIP_TOP.contains(&k.as_str()) && !self.top.contains_key(k) {
                self.top.insert(k.clone(), v.clone());
            }
        }
        if let Some(usage) = obj.get("usage").filter(|u| u.as_object().is_some()) {
            self.usage = Some(usage.clone());
        }
        let choice = match obj.get("choices") {
            None | Some(Value::Null) => return Ok(Effect::default()),
            Some(Value::Array(choices)) => choices
                .iter()
                .find(|c| c.get("index").and_then(Value::as_i64) == Some(0))
                .or_else(|| choices.first().filter(|c| c.get("index").is_none())),
            Some(_) => {
                return Err(StreamError::malformed(
                    ev.number,
                    None,
                    "choices is not a list",
                ))
            }
        };
        let Some(choice) = choice else {
            return Ok(Effect::default());
        };
        let Some(cobj) = choice.as_object() else {
            return Err(StreamError::malformed(
                ev.number,
                None,
                "choices[0] is not an object",
            ));
        };
        for (k, v) in cobj.iter() {
            if !SKIP_CHOICE.contains(&k.as_str()) && !self.choice_extra.contains_key(k) {
                self.choice_extra.insert(k.clone(), v.clone());
            }
        }
        if let Some(reason) = cobj.get("finish_reason").filter(|r| !r.is_null()) {
            self.finish_reason = Some(reason.clone());
        }
        let mut effect = Effect::default();
        let delta = match cobj.get("delta") {
            None | Some(Value::Null) => return Ok(effect),
            Some(d @ Value::Object(_)) => d,
            Some(_) => {
                return Err(StreamError::malformed(
                    ev.number,
                    None,
                    "choices[0].delta is not an object",
                ))
            }
        };
        if let Some(role) = nonempty_str(delta.get("role")) {
            self.role.get_or_insert_with(|| role.to_owned());
        }
        if let Some(text) = delta_text(delta.get("content")) {
            budget.add(text.len())?;
            effect.output |= !text.is_empty();
            self.content.push_str(&text);
        }
        for (key, slot) in [
            ("reasoning_content", &mut self.reasoning_content),
            ("reasoning", &mut self.reasoning),
        ] {
            if let Some(text) = delta.get(key).and_then(Value::as_str) {
                budget.add(text.len())?;
                effect.output |= !text.is_empty();
                slot.get_or_insert_with(String::new).push_str(text);
            }
        }
        let fragments: Vec<&Value> = match delta.get("tool_calls") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(list)) => list.iter().collect(),
            // Early TGI releases sent one fragment as an object.
            Some(one @ Value::Object(_)) => vec![one],
            Some(_) => {
                return Err(StreamError::malformed(
                    ev.number,
                    None,
                    "delta.tool_calls is not a list",
                ))
            }
        };
        for fragment in fragments {
            self.fragment(fragment, ev.number, budget)?;
            effect.output = true;
        }
        Ok(effect)
    }

    /// Merges one tool-call fragment.
    fn fragment(
        &mut self,
        fragment: &Value,
        event: usize,
        budget: &mut Budget,
    ) -> Result<(), StreamError> {
        if fragment.as_object().is_none() {
            return Err(StreamError::malformed(
                event,
                None,
                "a tool_calls entry is not an object",
            ));
        }
        let index = fragment.get("index").and_then(Value::as_i64);
        let id = id_text(fragment.get("id"));
        let function = fragment.get("function").filter(|f| f.as_object().is_some());
        let name = nonempty_str(function.and_then(|f| f.get("name")));
        let current = match index {
            Some(i) => self.slots.iter().find(|(k, _)| *k == i).map(|(_, c)| *c),
            None => self.calls.len().checked_sub(1),
        };
        let starts_new = match current.and_then(|c| self.calls.get(c)) {
            None => true,
            Some(call) => {
                let other_id = matches!((&id, &call.id), (Some(a), Some(b)) if a != b);
                let own_name = index.is_none() && name.is_some() && call.name.is_some();
                other_id || own_name
            }
        };
        let at = if starts_new {
            if current.is_some() {
                self.notes.push(match index {
                    Some(i) => format!(
                        "event {event}: index {i} was reused by a call with another id; read as a new call"
                    ),
                    None => format!("event {event}: a call without an index; read as a new call"),
                });
            }
            self.calls.push(Call::default());
            let c = self.calls.len() - 1;
            if let Some(i) = index {
                match self.slots.iter_mut().find(|(k, _)| *k == i) {
                    Some(slot) => slot.1 = c,
                    None => self.slots.push((i, c)),
                }
            }
            c
        } else {
            current.unwrap_or(0)
        };
        let Some(call) = self.calls.get_mut(at) else {
            return Ok(());
        };
        if call.id.is_none() {
            call.id = id;
        }
        if call.kind.is_none() {
            call.kind = fragment.get("type").filter(|t| !t.is_null()).cloned();
        }
        if let Some(n) = name {
            match &call.name {
                None => {
                    budget.add(n.len())?;
                    call.name = Some(n.to_owned());
                }
                Some(existing) if existing != n => self.notes.push(format!(
                    "event {event}: call {at} was named {existing:?} and then {n:?}; the first name is kept"
                )),
                Some(_) => {}
            }
        }
        if let Some(extra) = fragment.get("extra_content").filter(|e| !e.is_null()) {
            call.extra_content = Some(extra.clone());
        }
        match function.and_then(|f| f.get("arguments")) {
            Some(Value::Str(s)) => {
                budget.add(s.len())?;
                call.arguments.push_str(s);
            }
            Some(v @ (Value::Object(_) | Value::Array(_))) => {
                let text = dumps(v, Escape::Utf8);
                budget.add(text.len())?;
                call.arguments.push_str(&text);
            }
            _ => {}
        }
        Ok(())
    }

    /// The body a non-streaming request would have returned.
    pub fn body(self) -> Value {
        let mut message = Map::new();
        message.insert(
            "role",
            Value::Str(self.role.unwrap_or_else(|| "assistant".to_owned())),
        );
        message.insert(
            "content",
            if self.content.is_empty() {
                Value::Null
            } else {
                Value::Str(self.content)
            },
        );
        for (key, text) in [
            ("reasoning_content", self.reasoning_content),
            ("reasoning", self.reasoning),
        ] {
            if let Some(t) = text.filter(|t| !t.is_empty()) {
                message.insert(key, Value::Str(t));
            }
        }
        if !self.calls.is_empty() {
            let calls = self
                .calls
                .into_iter()
                .map(|c| {
                    let mut f = Map::new();
                    f.insert("name", c.name.map(Value::Str).unwrap_or(Value::Null));
                    f.insert("arguments", Value::Str(c.arguments));
                    let mut call = Map::new();
                    if let Some(id) = c.id {
                        call.insert("id", Value::Str(id));
                    }
                    call.insert("type", c.kind.unwrap_or_else(|| Value::str("function")));
                    call.insert("function", Value::Object(f));
                    if let Some(extra) = c.extra_content {
                        call.insert("extra_content", extra);
                    }
                    Value::Object(call)
                })
                .collect();
            message.insert("tool_calls", Value::Array(calls));
        }
        let mut choice = Map::new();
        choice.insert("index", Value::int(0));
        choice.insert("message", Value::Object(message));
        choice.insert("finish_reason", self.finish_reason.unwrap_or(Value::Null));
        for (k, v) in self.choice_extra.iter() {
            choice.insert(k.clone(), v.clone());
        }
        let mut body = Map::new();
        for (k, v) in self.top.iter() {
            body.insert(k.clone(), v.clone());
        }
        body.insert("object", Value::str("chat.completion"));
        body.insert("choices", Value::Array(vec![Value::Object(choice)]));
        if let Some(usage) = self.usage {
            body.insert("usage", usage);
        }
        Value::Object(body)
    }
}

fn text_field(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(mask_echoed_key)
}
