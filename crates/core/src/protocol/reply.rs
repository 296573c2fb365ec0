//! One model reply in the official step representation (PROTOCOL §2.4).

use crate::json::Value;

/// One model reply in the official step representation (§2.4).
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// `message.content` (a string or null).
    pub content: Value,
    /// `message.tool_calls` as returned (a list of `{"id", "function": {"arguments",
    /// "name"}, "type"}`, or null).
    pub tool_calls: Value,
    /// `message.reasoning_content` (a string or null).
    pub reasoning_content: Value,
    /// `usage.prompt_tokens` (null when the response had no usage, C11).
    pub input_tokens: Value,
    /// `usage.completion_tokens`.
    pub output_tokens: Value,
    /// Request time in seconds.
    pub latency: f64,
}

impl Reply {
    /// A text reply.
    pub fn text(content: impl Into<String>) -> Self {
        Reply {
            content: Value::Str(content.into()),
            tool_calls: Value::Null,
            reasoning_content: Value::Null,
            input_tokens: Value::Null,
            output_tokens: Value::Null,
            latency: 0.0,
        }
    }

    /// Rebuilds a reply from a recorded `inference_output` object.
    pub fn from_recorded_output(output: &Value) -> Self {
        let field = |k: &str| output.get(k).cloned().unwrap_or(Value::Null);
        Reply {
            content: field("content"),
            tool_calls: field("tool_calls"),
            reasoning_content: field("reasoning_content"),
            input_tokens: Value::Null,
            output_tokens: Value::Null,
            latency: 0.0,
        }
    }
}
