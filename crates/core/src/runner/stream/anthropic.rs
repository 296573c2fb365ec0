//! Anthropic Messages streams (`"stream": true`): named events carrying a message built
//! block by block, reassembled into the body a non-streaming request would have returned.
//!
//! - `message_start` opens the message (its `usage` has the input tokens);
//!   `content_block_start` opens block `index` (`text`, `thinking`, `tool_use` …);
//!   `content_block_delta` adds to an open block: `text_delta` to a text block,
//!   `thinking_delta` (and `signature_delta`) to a thinking block, `input_json_delta` to a
//!   tool-use block; `content_block_stop` closes it; `message_delta` carries the stop reason
//!   and the output tokens; `message_stop` ends the stream; `ping` keeps it alive.
//! - A tool-use block's input is the concatenation of its `partial_json` fragments, parsed
//!   when the block closes (no fragment at all is the block's own `input`, usually `{}`).
//!   Input that is not a JSON object cannot be a non-streaming reply's input: the stream is
//!   malformed (servers that merge several calls into one block fail here).
//! - `error` events are [`StreamError::Api`]. A delta for a block that is not open, a
//!   delta of another block's kind, or a delta of an unknown type on a tool-use block is
//!   malformed. Event types the API may add later are ignored, as Anthropic's versioning
//!   policy asks of clients; they are listed in [`MessageStream::notes`].
//! - The stream is complete at `message_stop`.

use crate::json::{loads, Map, Value};

use super::super::provider::error_message;
use super::error::StreamError;
use super::sse::SseEvent;
use super::{Budget, Effect};

#[derive(Debug)]
struct Block {
    start: Map,
    kind: String,
    text: String,
    json: String,
    signature: Option<String>,
    open: bool,
}

/// The state of one Messages stream.
#[derive(Debug, Default)]
pub struct MessageStream {
    message: Option<Map>,
    blocks: Vec<(i64, Block)>,
    stop_reason: Option<Value>,
    stop_sequence: Option<Value>,
    usage: Map,
    done: bool,
    notes: Vec<String>,
}

impl MessageStream {
    /// An empty stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Events ignored as unknown, in order.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// True once `message_stop` came.
    pub fn finished(&self) -> bool {
        self.done
    }

    /// True when the stream may end here without losing anything.
    pub fn complete(&self) -> bool {
        self.done
    }

    /// What a complete stream ends with, for messages.
    pub fn missing(&self) -> &'static str {
        "a message_stop event"
    }

    /// Reads one event.
    pub fn event(&mut self, ev: &SseEvent<'_>, budget: &mut Budget) -> Result<Effect, StreamError> {
        let v = loads(ev.data).map_err(|e| {
            StreamError::malformed(ev.number, ev.kind, format!("the data is not JSON ({e})"))
        })?;
        let kind = v
            .get("type")
            .and_then(Value::as_str)
            .or(ev.kind)
            .unwrap_or("")
            .to_owned();
        let name = Some(kind.as_str());
        let bad = |detail: String| StreamError::malformed(ev.number, name, detail);
        let mut effect = Effect::default();
        match kind.as_str() {
            "ping" => {}
            "error" => {
                return Err(StreamError::Api {
                    event: ev.number,
                    message: error_message(&v).unwrap_or_else(|| "an error".to_owned()),
                })
            }
            "message_start" => {
                if self.message.is_some() {
                    return Err(bad("a second message_start".to_owned()));
                }
                let Some(m) = v.get("message").and_then(Value::as_object) else {
                    return Err(bad("no message object".to_owned()));
                };
                if let Some(u) = m.get("usage").and_then(Value::as_object) {
                    for (k, x) in u.iter() {
                        self.usage.insert(k.clone(), x.clone());
                    }
                }
                self.message = Some(m.clone());
            }
            "content_block_start" => {
                let index = self.index(&v).map_err(&bad)?;
                let Some(block) = v.get("content_block").and_then(Value::as_object) else {
                    return Err(bad("no content_block object".to_owned()));
                };
                if self.blocks.iter().any(|(i, _)| *i == index) {
                    return Err(bad(format!("block {index} was already started")));
                }
                let kind = block
                    .get("type")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned();
                let text = block
                    .get(if kind == "thinking" {
                        "thinking"
                    } else {
                        "text"
                    })
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned();
                budget.add(text.len())?;
                effect.output = kind == "tool_use" || !text.is_empty();
                self.blocks.push((
                    index,
                    Block {
                        start: block.clone(),
                        kind,
                        text,
                        json: String::new(),
                        signature: None,
                        open: true,
                    },
                ));
            }
            "content_block_delta" => {
                let index = self.index(&v).map_err(&bad)?;
                let Some(block) = self.open_block(index) else {
                    return Err(bad(format!("a delta for block {index}, which is not open")));
                };
                let delta = v.get("delta").unwrap_or(&Value::Null);
                let dkind = delta.get("type").and_then(Value::as_str).unwrap_or("");
                let field = |key: &str| delta.get(key).and_then(Value::as_str).unwrap_or("");
                let tool = block.kind == "tool_use" || block.kind == "server_tool_use";
                match dkind {
                    "text_delta" if block.kind == "text" => {
                        let t = field("text");
                        budget.add(t.len())?;
                        effect.output = !t.is_empty();
                        block.text.push_str(t);
                    }
                    "thinking_delta" if block.kind == "thinking" => {
                        let t = field("thinking");
                        budget.add(t.len())?;
                        effect.output = !t.is_empty();
                        block.text.push_str(t);
                    }
                    "signature_delta" if block.kind == "thinking" => {
                        block
                            .signature
                            .get_or_insert_with(String::new)
                            .push_str(field("signature"));
                    }
                    "input_json_delta" if tool => {
                        let t = field("partial_json");
                        budget.add(t.len())?;
                        effect.output = true;
                        block.json.push_str(t);
                    }
                    "text_delta" | "thinking_delta" | "signature_delta" | "input_json_delta" => {
                        return Err(bad(format!(
                            "a {dkind} for block {index}, which is a {} block",
                            block.kind
                        )))
                    }
                    other if tool => {
                        return Err(bad(format!(
                            "a delta of unknown type {other:?} for tool_use block {index}"
                        )))
                    }
                    other => self.notes.push(format!(
                        "event {}: a delta of unknown type {other:?} for block {index} was ignored",
                        ev.number
                    )),
                }
            }
            "content_block_stop" => {
                let index = self.index(&v).map_err(&bad)?;
                let Some(block) = self.open_block(index) else {
                    return Err(bad(format!("a stop for block {index}, which is not open")));
                };
                block.open = false;
            }
            "message_delta" => {
                let delta = v.get("delta");
                if let Some(r) = delta.and_then(|d| d.get("stop_reason")) {
                    self.stop_reason = Some(r.clone());
                }
                if let Some(s) = delta.and_then(|d| d.get("stop_sequence")) {
                    self.stop_sequence = Some(s.clone());
                }
                if let Some(u) = v.get("usage").and_then(Value::as_object) {
                    for (k, x) in u.iter().filter(|(_, x)| !x.is_null()) {
                        self.usage.insert(k.clone(), x.clone());
                    }
                }
            }
            "message_stop" => self.done = true,
            other => self.notes.push(format!(
                "event {}: an event of unknown type {other:?} was ignored",
                ev.number
            )),
        }
        Ok(effect)
    }

    /// Block `index`, while it is open.
    fn open_block(&mut self, index: i64) -> Option<&mut Block> {
        self.blocks
            .iter_mut()
            .find(|(i, _)| *i == index)
            .map(|(_, b)| b)
            .filter(|b| b.open)
    }

    fn index(&self, v: &Value) -> Result<i64, String> {
        if self.message.is_none() {
            return Err("a block event before message_start".to_owned());
        }
        v.get("index")
            .and_then(Value::as_i64)
            .ok_or_else(|| "no block index".to_owned())
    }

    /// The body a non-streaming request would have returned; the input of every tool-use
    /// block is parsed here (`event` is the number of the last event, for messages).
    pub fn body(self, event: usize) -> Result<Value, StreamError> {
        let mut blocks = self.blocks;
        crate::order::sort_by_key(&mut blocks, |(i, _)| *i);
        let mut content = Vec::with_capacity(blocks.len());
        for (index, b) in blocks {
            let mut out = b.start;
            match b.kind.as_str() {
                "text" => out.insert("text", Value::Str(b.text)),
                "thinking" => {
                    out.insert("thinking", Value::Str(b.text));
                    if let Some(sig) = b.signature {
                        out.insert("signature", Value::Str(sig));
                    }
                }
                "tool_use" | "server_tool_use" if !b.json.trim().is_empty() => {
                    let input = loads(&b.json).ok().filter(|i| i.as_object().is_some());
                    let Some(input) = input else {
                        let name = out.get("name").and_then(Value::as_str).unwrap_or("");
                        let shown: String = b.json.chars().take(200).collect();
                        return Err(StreamError::malformed(
                            event,
                            Some("content_block_stop"),
                            format!(
                                "the input of tool_use block {index} ({name}) is not one JSON object: {shown}"
                            ),
                        ));
                    };
                    out.insert("input", input);
                }
                _ => {}
            }
            content.push(Value::Object(out));
        }
        let mut body = self.message.unwrap_or_default();
        body.insert("content", Value::Array(content));
        body.insert("stop_reason", self.stop_reason.unwrap_or(Value::Null));
        if let Some(s) = self.stop_sequence {
            body.insert("stop_sequence", s);
        }
        body.insert("usage", Value::Object(self.usage));
        Ok(Value::Object(body))
    }
}
