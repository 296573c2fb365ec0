//! A task's environment trace as the environment loop records it (the checkpoint record
//! of an env run and the `steps` of an `env-result.jsonl` task), read back field by field
//! with errors that name the field.

use crate::json::{Map, Value};
use crate::protocol::Reply;

/// One tool call of a step and the result the environment gave.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceCall {
    /// The call id the model sent.
    pub id: Value,
    /// Tool name.
    pub tool: String,
    /// Arguments as sent (JSON text, normally).
    pub args: Value,
    /// The observation returned.
    pub result: Value,
}

/// One step: the reply and what followed it.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceStep {
    /// The model's reply.
    pub reply: Reply,
    /// The calls it made, in emission order.
    pub calls: Vec<TraceCall>,
    /// The user's answer injected after a clarifying question.
    pub user_input: Option<String>,
}

/// How a task's loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// A final text answer.
    Answered,
    /// An empty reply.
    Empty,
    /// The step cap was reached.
    StepCap,
    /// Tool calls that could not be read.
    ParseFailed,
}

impl End {
    /// `answered`, `empty`, `step_cap`, `parse_failed`.
    pub fn as_str(self) -> &'static str {
        match self {
            End::Answered => "answered",
            End::Empty => "empty",
            End::StepCap => "step_cap",
            End::ParseFailed => "parse_failed",
        }
    }

    /// Reads the spelling.
    pub fn parse(s: &str) -> Option<Self> {
        [End::Answered, End::Empty, End::StepCap, End::ParseFailed]
            .into_iter()
            .find(|e| e.as_str() == s)
    }
}

/// A task's trace.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskTrace {
    /// Task position.
    pub task: usize,
    /// How it ended.
    pub end: End,
    /// The final answer, when it ended with one.
    pub answer: Option<String>,
    /// The steps.
    pub steps: Vec<TraceStep>,
}

/// A trace that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct TraceError {
    /// JSON path of the field.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

fn err(path: impl Into<String>, message: impl Into<String>) -> TraceError {
    TraceError {
        path: path.into(),
        message: message.into(),
    }
}

impl TaskTrace {
    /// Reads a trace object (`path` names it in errors).
    pub fn from_value(v: &Value, path: &str) -> Result<Self, TraceError> {
        let o = v
            .as_object()
            .ok_or_else(|| err(path, "must be an object"))?;
        let task = o
            .get("task")
            .and_then(Value::as_i64)
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| err(format!("{path}.task"), "must be a task position"))?;
        let end = o
            .get("end")
            .and_then(Value::as_str)
            .and_then(End::parse)
            .ok_or_else(|| {
                err(
                    format!("{path}.end"),
                    "must be answered, empty, step_cap or parse_failed",
                )
            })?;
        let answer = match o.get("answer") {
            None | Some(Value::Null) => None,
            Some(Value::Str(s)) => Some(s.clone()),
            Some(_) => return Err(err(format!("{path}.answer"), "must be a string")),
        };
        let list = o
            .get("steps")
            .and_then(Value::as_array)
            .ok_or_else(|| err(format!("{path}.steps"), "must be a list"))?;
        let mut steps = Vec::with_capacity(list.len());
        for (i, s) in list.iter().enumerate() {
            let sp = format!("{path}.steps[{i}]");
            let so = s.as_object().ok_or_else(|| err(&sp, "must be an object"))?;
            let r = so
                .get("reply")
                .ok_or_else(|| err(format!("{sp}.reply"), "is missing"))?;
            let mut reply = Reply::from_recorded_output(r);
            reply.echo_reasoning = matches!(so.get("echo_reasoning"), Some(Value::Bool(true)));
            let user_input = match so.get("user_input") {
                None | Some(Value::Null) => None,
                Some(Value::Str(s)) => Some(s.clone()),
                Some(_) => return Err(err(format!("{sp}.user_input"), "must be a string")),
            };
            let mut calls = Vec::new();
            if let Some(cs) = so.get("calls") {
                let cs = cs
                    .as_array()
                    .ok_or_else(|| err(format!("{sp}.calls"), "must be a list"))?;
                for (j, c) in cs.iter().enumerate() {
                    let cp = format!("{sp}.calls[{j}]");
                    let co = c.as_object().ok_or_else(|| err(&cp, "must be an object"))?;
                    let tool = co
                        .get("tool")
                        .and_then(Value::as_str)
                        .ok_or_else(|| err(format!("{cp}.tool"), "must be a string"))?;
                    calls.push(TraceCall {
                        id: co.get("id").cloned().unwrap_or(Value::Null),
                        tool: tool.to_owned(),
                        args: co.get("args").cloned().unwrap_or(Value::Null),
                        result: co
                            .get("result")
                            .cloned()
                            .ok_or_else(|| err(format!("{cp}.result"), "is missing"))?,
                    });
                }
            }
            steps.push(TraceStep {
                reply,
                calls,
                user_input,
            });
        }
        Ok(Self {
            task,
            end,
            answer,
            steps,
        })
    }
}

/// The recorded reply fields of a step (`content`, `tool_calls`, `reasoning_content`).
pub fn reply_value(reply: &Reply) -> Value {
    let mut m = Map::new();
    m.insert("content", reply.content.clone());
    m.insert("tool_calls", reply.tool_calls.clone());
    m.insert("reasoning_content", reply.reasoning_content.clone());
    Value::Object(m)
}
