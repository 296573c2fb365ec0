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
    /// The reply's reasoning text (a string or null), logged as
    /// `inference_output.reasoning_content`: the server's `reasoning_content`, or the same
    /// text read from another field (`reasoning`, thinking content parts or blocks).
    pub reasoning_content: Value,
    /// Whether the next request's assistant message carries `reasoning_content` after a
    /// tool-call step, as the official loop does. True only when the server itself sent a
    /// `reasoning_content` field: reasoning read from elsewhere is logged but not sent back,
    /// since some servers reject the unknown field.
    pub echo_reasoning: bool,
    /// `usage.prompt_tokens` (null when the response had no usage, C11).
    pub input_tokens: Value,
    /// `usage.completion_tokens`.
    pub output_tokens: Value,
    /// Prompt tokens the server reported as read from its cache, included in
    /// `input_tokens` (null when not reported). Not part of the official step record:
    /// wildtool keeps it in the checkpoint's usage extension, for pricing.
    pub cached_input_tokens: Value,
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
            echo_reasoning: false,
            input_tokens: Value::Null,
            output_tokens: Value::Null,
            cached_input_tokens: Value::Null,
            latency: 0.0,
        }
    }

    /// Rebuilds a reply from a recorded `inference_output` object (a recorded reasoning
    /// text is echoed, as the official loop would).
    pub fn from_recorded_output(output: &Value) -> Self {
        let field = |k: &str| output.get(k).cloned().unwrap_or(Value::Null);
        let reasoning_content = field("reasoning_content");
        Reply {
            content: field("content"),
            tool_calls: field("tool_calls"),
            echo_reasoning: !reasoning_content.is_null(),
            reasoning_content,
            input_tokens: Value::Null,
            output_tokens: Value::Null,
            cached_input_tokens: Value::Null,
            latency: 0.0,
        }
    }
}
