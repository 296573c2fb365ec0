//! Gemini `streamGenerateContent?alt=sse` streams: `data:` events each holding a
//! `GenerateContentResponse` with the next parts, reassembled into the body
//! `generateContent` would have returned.
//!
//! - The parts of `candidates[0].content` are appended in order; a text part directly
//!   after a text part of the same kind (thought or not) extends it, so the text reads as
//!   one part; a `thoughtSignature` is kept on the part it came with (a signature arriving
//!   on an empty text part after a text part is moved onto it). `functionCall` parts come
//!   whole and are appended as they are.
//! - The latest `usageMetadata` is the reply's; `finishReason`, `promptFeedback`,
//!   `modelVersion` and `responseId` are kept.
//! - An `error` object is [`StreamError::Api`]; a named SSE event (Gemini sends none) is
//!   [`StreamError::UnknownEvent`].
//! - The stream is complete once a candidate has a `finishReason` (or the prompt was
//!   blocked); the server then closes it.

use crate::json::{loads, Map, Value};

use super::super::provider::error_message;
use super::error::StreamError;
use super::sse::SseEvent;
use super::{Budget, Effect};

/// One part being reassembled: text grows in place (no copy per piece).
#[derive(Debug)]
enum Part {
    Text {
        text: String,
        thought: bool,
        signature: Option<Value>,
    },
    Other(Map),
}

impl Part {
    fn into_map(self) -> Map {
        match self {
            Part::Other(m) => m,
            Part::Text {
                text,
                thought,
                signature,
            } => {
                let mut m = Map::new();
                m.insert("text", Value::Str(text));
                if thought {
                    m.insert("thought", Value::Bool(true));
                }
                if let Some(sig) = signature {
                    m.insert("thoughtSignature", sig);
                }
                m
            }
        }
    }
}

/// The state of one Gemini stream.
#[derive(Debug, Default)]
pub struct ContentStream {
    parts: Vec<Part>,
    role: Option<Value>,
    finish_reason: Option<Value>,
    candidate_extra: Map,
    top: Map,
    usage: Option<Value>,
    prompt_feedback: Option<Value>,
}

const SKIP_TOP: [&str; 3] = ["candidates", "usageMetadata", "promptFeedback"];
const SKIP_CANDIDATE: [&str; 3] = ["content", "finishReason", "index"];

fn is_text(part: &Map) -> bool {
    part.get("text").and_then(Value::as_str).is_some()
        && part
            .iter()
            .all(|(k, _)| matches!(k.as_str(), "text" | "thought" | "thoughtSignature"))
}

fn thought(part: &Map) -> bool {
    part.get("thought") == Some(&Value::Bool(true))
}

impl ContentStream {
    /// An empty stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Gemini streams have no final event: they end when the server closes them.
    pub fn finished(&self) -> bool {
        false
    }

    /// True when the stream may end here without losing anything.
    pub fn complete(&self) -> bool {
        self.finish_reason.is_some()
            || self
                .prompt_feedback
                .as_ref()
                .is_some_and(|f| f.get("blockReason").is_some())
    }

    /// What a complete stream ends with, for messages.
    pub fn missing(&self) -> &'static str {
        "a finishReason"
    }

    /// Reads one event.
    pub fn event(&mut self, ev: &SseEvent<'_>, budget: &mut Budget) -> Result<Effect, StreamError> {
        if let Some(kind) = ev.kind.filter(|k| *k != "message") {
            return Err(StreamError::UnknownEvent {
                event: ev.number,
                kind: kind.to_owned(),
            });
        }
        let v = loads(ev.data).map_err(|e| {
            StreamError::malformed(ev.number, None, format!("the data is not JSON ({e})"))
        })?;
        // Some gateways wrap the stream's responses in a list.
        let items: Vec<&Value> = match &v {
            Value::Array(list) => list.iter().collect(),
            other => vec![other],
        };
        let mut effect = Effect::default();
        for item in items {
            let Some(obj) = item.as_object() else {
                return Err(StreamError::malformed(
                    ev.number,
                    None,
                    format!("the data is a JSON {}, not an object", item.py_type_name()),
                ));
            };
            if let Some(message) = error_message(item) {
                return Err(StreamError::Api {
                    event: ev.number,
                    message,
                });
            }
            for (k, x) in obj.iter() {
                if !SKIP_TOP.contains(&k.as_str()) && !self.top.contains_key(k) {
                    self.top.insert(k.clone(), x.clone());
                }
            }
            if let Some(u) = obj.get("usageMetadata").filter(|u| u.as_object().is_some()) {
                self.usage = Some(u.clone());
            }
            if let Some(f) = obj.get("promptFeedback").filter(|f| !f.is_null()) {
                self.prompt_feedback = Some(f.clone());
            }
            let candidate = match obj.get("candidates") {
                None | Some(Value::Null) => continue,
                Some(Value::Array(c)) => c.first(),
                Some(_) => {
                    return Err(StreamError::malformed(
                        ev.number,
                        None,
                        "candidates is not a list",
                    ))
                }
            };
            let Some(candidate) = candidate.and_then(Value::as_object) else {
                continue;
            };
            for (k, x) in candidate.iter() {
                if !SKIP_CANDIDATE.contains(&k.as_str()) {
                    self.candidate_extra.insert(k.clone(), x.clone());
                }
            }
            if let Some(r) = candidate.get("finishReason").filter(|r| !r.is_null()) {
                self.finish_reason = Some(r.clone());
            }
            let content = candidate.get("content");
            if let Some(role) = content.and_then(|c| c.get("role")) {
                self.role.get_or_insert_with(|| role.clone());
            }
            let parts = content
                .and_then(|c| c.get("parts"))
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or(&[]);
            for part in parts {
                let Some(p) = part.as_object() else {
                    return Err(StreamError::malformed(
                        ev.number,
                        None,
                        "a part is not an object",
                    ));
                };
                effect.output |= self.push_part(p, budget)?;
            }
        }
        Ok(effect)
    }

    /// Appends one part; true when it carries model output.
    fn push_part(&mut self, p: &Map, budget: &mut Budget) -> Result<bool, StreamError> {
        if is_text(p) {
            let text = p.get("text").and_then(Value::as_str).unwrap_or("");
            budget.add(text.len())?;
            let sig = p.get("thoughtSignature");
            if let Some(Part::Text {
                text: last,
                thought: last_thought,
                signature,
            }) = self.parts.last_mut()
            {
                if *last_thought == thought(p) && (signature.is_none() || sig.is_none()) {
                    last.push_str(text);
                    if let Some(sig) = sig {
                        *signature = Some(sig.clone());
                    }
                    return Ok(!text.is_empty());
                }
            }
            self.parts.push(Part::Text {
                text: text.to_owned(),
                thought: thought(p),
                signature: sig.cloned(),
            });
            return Ok(!text.is_empty());
        }
        let size = crate::json::dumps(&Value::Object(p.clone()), crate::json::Escape::Utf8).len();
        budget.add(size)?;
        self.parts.push(Part::Other(p.clone()));
        Ok(p.contains_key("functionCall"))
    }

    /// The body a non-streaming request would have returned.
    pub fn body(self) -> Value {
        let mut body = Map::new();
        let any_candidate = !self.parts.is_empty() || self.finish_reason.is_some();
        if any_candidate {
            let mut content = Map::new();
            content.insert("role", self.role.unwrap_or_else(|| Value::str("model")));
            content.insert(
                "parts",
                Value::Array(
                    self.parts
                        .into_iter()
                        .map(|p| Value::Object(p.into_map()))
                        .collect(),
                ),
            );
            let mut candidate = Map::new();
            candidate.insert("content", Value::Object(content));
            if let Some(r) = self.finish_reason {
                candidate.insert("finishReason", r);
            }
            candidate.insert("index", Value::int(0));
            for (k, x) in self.candidate_extra.iter() {
                candidate.insert(k.clone(), x.clone());
            }
            body.insert("candidates", Value::Array(vec![Value::Object(candidate)]));
        }
        if let Some(f) = self.prompt_feedback {
            body.insert("promptFeedback", f);
        }
        if let Some(u) = self.usage {
            body.insert("usageMetadata", u);
        }
        for (k, x) in self.top.iter() {
            body.insert(k.clone(), x.clone());
        }
        Value::Object(body)
    }
}
