//! Built-in agents that need no endpoint: `gold`, `baseline` and `replay`.

use std::collections::HashMap;

use crate::dataset::{NodeKind, Task};
use crate::json::{dumps, loads, Escape, Map, Value};
use crate::protocol::{Paths, Reply};

use super::driver::{Responder, StepContext, TaskStats};
use super::retry::GaveUp;

fn call(id: String, name: &str, arguments: String) -> Value {
    let mut f = Map::new();
    f.insert("arguments", Value::Str(arguments));
    f.insert("name", Value::str(name));
    let mut c = Map::new();
    c.insert("id", Value::Str(id));
    c.insert("function", Value::Object(f));
    c.insert("type", Value::str("function"));
    Value::Object(c)
}

fn calls_reply(calls: Vec<Value>) -> Reply {
    let mut r = Reply::text("");
    r.content = Value::Null;
    r.tool_calls = Value::Array(calls);
    r
}

fn text_of(v: &Value) -> String {
    match v {
        Value::Str(s) => s.clone(),
        other => dumps(other, Escape::Utf8),
    }
}

fn gave_up(message: String) -> GaveUp {
    GaveUp {
        attempts: 0,
        last_error: message,
        cancelled: false,
    }
}

/// Answers along the first optimal gold path: the tool nodes of a step as tool calls with
/// dumps-utf8 gold arguments; a pseudo step as text equal to its gold observation.
#[derive(Debug, Default, Clone, Copy)]
pub struct GoldAgent;

impl GoldAgent {
    fn step_reply(task: &Task, step: usize) -> Result<Reply, GaveUp> {
        let paths = Paths::new(task).map_err(|e| gave_up(format!("gold agent: {e}")))?;
        let path = paths.first_optimal_path();
        let Some(nodes) = path.get(step) else {
            return Err(gave_up(format!("gold agent: no gold step {step}")));
        };
        let nodes: Vec<_> = nodes.iter().filter_map(|&i| task.nodes.get(i)).collect();
        let tools: Vec<Value> = nodes
            .iter()
            .filter(|n| n.kind == NodeKind::Tool)
            .enumerate()
            .map(|(j, n)| {
                call(
                    format!("call_gold_{step}_{j}"),
                    &n.name,
                    dumps(&n.arguments, Escape::Utf8),
                )
            })
            .collect();
        if !tools.is_empty() {
            return Ok(calls_reply(tools));
        }
        let text = nodes
            .iter()
            .find(|n| n.kind.is_pseudo())
            .map(|n| text_of(&n.observation))
            .unwrap_or_default();
        Ok(Reply::text(text))
    }
}

impl Responder for GoldAgent {
    fn respond(&self, ctx: &StepContext<'_>, stats: &mut TaskStats) -> Result<Reply, GaveUp> {
        stats.requests += 1;
        let task = ctx
            .session
            .tasks
            .get(ctx.task)
            .ok_or_else(|| gave_up("gold agent: no such task".to_owned()))?;
        Self::step_reply(task, ctx.step)
    }
}

/// A deterministic word-overlap heuristic (a floor to compare models against):
///
/// 1. At step 0, score every tool by the number of distinct words (lower-case
///    alphanumeric runs of 3+ characters) shared by the current user message and the
///    tool's name (split at `_`) plus description.
/// 2. If the best tool shares at least [`BaselineAgent::MIN_OVERLAP`] words (ties: first
///    tool), call it once with its required arguments filled from the message: an `enum`
///    value mentioned in the message (else the first), the first number for
///    integer/number, `true` for booleans, `[]` / `{}` for arrays/objects, and for strings
///    the longest capitalised word of the message (else the whole message).
/// 3. Otherwise, and at every later step, answer with the fixed text
///    [`BaselineAgent::ANSWER`].
#[derive(Debug, Default, Clone, Copy)]
pub struct BaselineAgent;

impl BaselineAgent {
    /// Words a tool must share with the message to be called.
    pub const MIN_OVERLAP: usize = 2;
    /// The text reply.
    pub const ANSWER: &'static str = "Here is the information you asked for.";

    fn words(text: &str) -> Vec<String> {
        let mut out: Vec<String> = text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.chars().count() >= 3)
            .map(str::to_lowercase)
            .collect();
        crate::order::sort(&mut out);
        out.dedup();
        out
    }

    fn pick<'t>(message: &str, tools: &'t Value) -> Option<&'t Value> {
        let msg = Self::words(message);
        let mut best: Option<(usize, &Value)> = None;
        for tool in tools.as_array()?.iter() {
            let f = tool.get("function").unwrap_or(tool);
            let name = f.get("name").and_then(Value::as_str).unwrap_or("");
            let desc = f.get("description").and_then(Value::as_str).unwrap_or("");
            let words = Self::words(&format!("{} {desc}", name.replace('_', " ")));
            let score = words
                .iter()
                .filter(|w| msg.binary_search(w).is_ok())
                .count();
            if score >= Self::MIN_OVERLAP && best.is_none_or(|(b, _)| score > b) {
                best = Some((score, f));
            }
        }
        best.map(|(_, f)| f)
    }

    fn fill(message: &str, schema: &Value) -> Value {
        let mut args = Map::new();
        let props = schema.get("properties");
        let required = schema
            .get("required")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let lower = message.to_lowercase();
        let number = message
            .split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .find(|w| !w.is_empty() && w.chars().any(|c| c.is_ascii_digit()));
        let proper = message
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.chars().next().is_some_and(char::is_uppercase))
            .max_by_key(|w| w.len());
        for key in required.iter().filter_map(Value::as_str) {
            let spec = props.and_then(|p| p.get(key));
            let ty = spec
                .and_then(|s| s.get("type"))
                .and_then(Value::as_str)
                .unwrap_or("string");
            let value = if let Some(options) =
                spec.and_then(|s| s.get("enum")).and_then(Value::as_array)
            {
                options
                    .iter()
                    .find(|o| {
                        o.as_str()
                            .is_some_and(|s| lower.contains(&s.to_lowercase()))
                    })
                    .or_else(|| options.first())
                    .cloned()
                    .unwrap_or(Value::Null)
            } else {
                match ty {
                    "integer" => Value::int(
                        number
                            .and_then(|n| n.split('.').next()?.parse().ok())
                            .unwrap_or(1),
                    ),
                    "number" => Value::Float(number.and_then(|n| n.parse().ok()).unwrap_or(1.0)),
                    "boolean" => Value::Bool(true),
                    "array" => Value::Array(Vec::new()),
                    "object" => Value::Object(Map::new()),
                    _ => Value::str(proper.unwrap_or(message)),
                }
            };
            args.insert(key, value);
        }
        Value::Object(args)
    }
}

impl Responder for BaselineAgent {
    fn respond(&self, ctx: &StepContext<'_>, stats: &mut TaskStats) -> Result<Reply, GaveUp> {
        stats.requests += 1;
        let message = ctx
            .session
            .tasks
            .get(ctx.task)
            .map(|t| t.user_message.as_str())
            .unwrap_or("");
        if ctx.step == 0 {
            if let Some(f) = Self::pick(message, ctx.tools) {
                let name = f.get("name").and_then(Value::as_str).unwrap_or("");
                let schema = f.get("parameters").cloned().unwrap_or(Value::Null);
                let args = Self::fill(message, &schema);
                return Ok(calls_reply(vec![call(
                    "call_baseline_0".to_owned(),
                    name,
                    dumps(&args, Escape::Utf8),
                )]));
            }
        }
        Ok(Reply::text(Self::ANSWER))
    }
}

/// Re-feeds the model outputs (and latencies and token counts) of an earlier result file.
/// Sessions whose result is an error string (C2) or missing cannot be replayed: their
/// tasks end incomplete.
#[derive(Debug, Default, Clone)]
pub struct ReplayAgent {
    results: HashMap<String, Vec<Value>>,
}

/// A result file that cannot be read for replay.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("replay file line {line}: {message}")]
pub struct ReplayFileError {
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl ReplayAgent {
    /// Reads an official result file (JSON Lines). Later lines with the same id win.
    pub fn from_text(text: &str) -> Result<Self, ReplayFileError> {
        let mut results = HashMap::new();
        for (i, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let err = |message: String| ReplayFileError {
                line: i + 1,
                message,
            };
            let v = loads(line).map_err(|e| err(e.to_string()))?;
            let id = v
                .get("id")
                .and_then(Value::as_str)
                .ok_or_else(|| err("no string id".to_owned()))?;
            if let Some(tasks) = v.get("result").and_then(Value::as_array) {
                results.insert(id.to_owned(), tasks.clone());
            }
        }
        Ok(Self { results })
    }

    /// Number of sessions available.
    pub fn sessions(&self) -> usize {
        self.results.len()
    }
}

impl Responder for ReplayAgent {
    fn respond(&self, ctx: &StepContext<'_>, stats: &mut TaskStats) -> Result<Reply, GaveUp> {
        stats.requests += 1;
        let task = self
            .results
            .get(&ctx.session.id)
            .and_then(|r| r.get(ctx.task))
            .ok_or_else(|| {
                gave_up(format!(
                    "replay: no recorded result for {} task {}",
                    ctx.session.id, ctx.task
                ))
            })?;
        let output = task
            .get("inference_log")
            .and_then(|l| l.get(&format!("step_{}", ctx.step)))
            .and_then(|s| s.get("inference_output"))
            .ok_or_else(|| {
                gave_up(format!(
                    "replay: {} task {} has no step_{}",
                    ctx.session.id, ctx.task, ctx.step
                ))
            })?;
        let mut reply = Reply::from_recorded_output(output);
        let at = |key: &str| {
            task.get(key)
                .and_then(Value::as_array)
                .and_then(|a| a.get(ctx.step))
                .cloned()
        };
        reply.input_tokens = at("input_token_count").unwrap_or(Value::Null);
        reply.output_tokens = at("output_token_count").unwrap_or(Value::Null);
        reply.latency = match at("latency") {
            Some(Value::Float(f)) => f,
            Some(Value::Int(i)) => match i {
                crate::json::PyInt::Small(n) => n as f64,
                crate::json::PyInt::Big(_) => 0.0,
            },
            _ => 0.0,
        };
        Ok(reply)
    }
}
