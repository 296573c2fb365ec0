//! The environment loop for one task (gold history): a free loop in which tool calls are
//! executed by an environment instead of being answered with gold observations.
//!
//! ```text
//! messages = system + official gold history of tasks < t + user(english_tasks[t])
//! asks     = user_input of the gold ask nodes of t, along its first optimal path
//! for s in 0 .. cap (cap = 2·N_t + 2):
//!     reply = model(messages, tools)
//!     empty          → end "empty"
//!     tool calls     → append the assistant message as returned; the environment runs the
//!                      calls in emission order; one tool message per call with its own id
//!     text, asks ≠ ∅ → a clarifying question: append it and user(asks.pop_front())
//!     text, asks = ∅ → the final answer: end "answered"
//! end "step_cap"
//! ```
//!
//! The machine never executes a tool: after a tool-call reply it hands out the calls
//! ([`EnvMachine::pending`]) and waits for one answer object per call
//! ([`EnvMachine::answer_env`]), whose `content` string becomes the tool message. The
//! answers come from whoever implements the environment (the ledger module, natively in
//! the CLI or in the page's lab module); this module knows nothing of it. On the gold path
//! with gold arguments, the requests equal the official ones (when the calls of a step
//! come in name order, as the official loop pairs observations and ids by position).
//!
//! The result is the task's trace: `{"task", "end", "answer", "cap", "steps": [{"reply":
//! {"content", "tool_calls", "reasoning_content"}, "echo_reasoning", "latency",
//! "input_tokens", "output_tokens", "calls": [{"id", "tool", "args", <answer fields>}],
//! "user_input"?}]}`.

use std::collections::VecDeque;

use crate::dataset::{NodeKind, Session};
use crate::json::{Map, Value};

use super::history::{text_message, tool_message};
use super::ids::IdSource;
use super::machine::{MachineError, TaskMachine};
use super::paths::Paths;
use super::reply::Reply;

/// One tool call as the model sent it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The call id (echoed in its tool message).
    pub id: Value,
    /// `function.name` (empty when missing or not a string).
    pub name: String,
    /// `function.arguments` as sent (normally JSON text).
    pub arguments: Value,
}

/// Calls as JSON: `[{"id", "name", "arguments"}…]` (the environment's step queries).
pub fn calls_value(calls: &[ToolCall]) -> Value {
    Value::Array(
        calls
            .iter()
            .map(|c| {
                let mut m = Map::new();
                m.insert("id", c.id.clone());
                m.insert("name", Value::str(c.name.clone()));
                m.insert("arguments", c.arguments.clone());
                Value::Object(m)
            })
            .collect(),
    )
}

/// What the machine needs next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// The next model reply (send [`EnvMachine::messages`]).
    Reply,
    /// Answers to [`EnvMachine::pending`].
    Env,
    /// Nothing: the task has ended.
    Nothing,
}

/// An answer list that does not fit the pending calls.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the environment answered {got} call(s) of {want}, or an answer has no content text")]
pub struct AnswerMismatch {
    /// Calls pending.
    pub want: usize,
    /// Answers given.
    pub got: usize,
}

/// The environment loop of one task.
#[derive(Debug)]
pub struct EnvMachine {
    task: usize,
    messages: Vec<Value>,
    tools: Value,
    asks: VecDeque<Option<String>>,
    cap: usize,
    steps: Vec<Map>,
    pending: Vec<ToolCall>,
    prior: Vec<ToolCall>,
    end: Option<&'static str>,
    answer: Option<String>,
    /// Own history: each call record keeps its `content` (the tool message), so the
    /// conversation can be rebuilt from the trace.
    keep_content: bool,
}

fn call_of(v: &Value) -> Option<ToolCall> {
    let o = v.as_object()?;
    let f = o.get("function")?.as_object()?;
    Some(ToolCall {
        id: o.get("id").cloned().unwrap_or(Value::Null),
        name: f
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned(),
        arguments: f.get("arguments").cloned().unwrap_or(Value::Null),
    })
}

impl EnvMachine {
    /// Starts task `task` of `session`: the same first request as the official loop.
    pub fn new(
        session: &Session,
        task: usize,
        ids: &mut dyn IdSource,
    ) -> Result<Self, MachineError> {
        let official = TaskMachine::new(session, task, ids)?;
        let current = session
            .tasks
            .get(task)
            .ok_or_else(|| MachineError::NoSuchTask {
                session: session.id.clone(),
                task,
            })?;
        let paths = Paths::new(current).map_err(|source| MachineError::Graph {
            session: session.id.clone(),
            task,
            source,
        })?;
        let mut asks = VecDeque::new();
        for step in paths.first_optimal_path() {
            for i in step {
                if let Some(n) = current.nodes.get(i) {
                    if n.kind == NodeKind::Ask {
                        asks.push_back(n.user_input.clone());
                    }
                }
            }
        }
        Ok(Self {
            task,
            messages: official.messages().to_vec(),
            tools: official.tools().clone(),
            asks,
            cap: 2 * current.nodes.len() + 2,
            steps: Vec::new(),
            pending: Vec::new(),
            prior: Vec::new(),
            end: None,
            answer: None,
            keep_content: false,
        })
    }

    /// Starts task `task` of `session` in own history: the messages are the model's own
    /// conversation over the earlier tasks (rebuilt from their traces, `earlier[k]` the
    /// trace of task `k`, recorded by machines of this kind) followed by the task's user
    /// message, and the calls already executed span the earlier tasks.
    pub fn own(
        session: &Session,
        task: usize,
        ids: &mut dyn IdSource,
        earlier: &[Value],
    ) -> Result<Self, OwnHistoryError> {
        let mut m = Self::new(session, task, ids).map_err(OwnHistoryError::Machine)?;
        m.keep_content = true;
        if task == 0 {
            return Ok(m);
        }
        if earlier.len() < task {
            return Err(OwnHistoryError::Missing {
                task: earlier.len(),
            });
        }
        let (messages, prior) = conversation(session, &earlier[..task])?;
        let user = m.messages.last().cloned().unwrap_or(Value::Null);
        m.messages = messages;
        m.messages.push(user);
        m.prior = prior;
        Ok(m)
    }

    /// The conversation so far (the next request's messages; once the task has ended,
    /// everything the model saw and said in it).
    pub fn conversation(&self) -> &[Value] {
        &self.messages
    }

    /// The messages of the next request.
    pub fn messages(&self) -> &[Value] {
        &self.messages
    }

    /// The tools of every request.
    pub fn tools(&self) -> &Value {
        &self.tools
    }

    /// The current step (replies fed so far).
    pub fn step(&self) -> usize {
        self.steps.len()
    }

    /// The task position.
    pub fn task(&self) -> usize {
        self.task
    }

    /// What the machine needs next.
    pub fn need(&self) -> Need {
        if self.end.is_some() {
            Need::Nothing
        } else if self.pending.is_empty() {
            Need::Reply
        } else {
            Need::Env
        }
    }

    /// True once the task has ended.
    pub fn is_finished(&self) -> bool {
        self.end.is_some()
    }

    /// The calls waiting for the environment.
    pub fn pending(&self) -> &[ToolCall] {
        &self.pending
    }

    /// The calls already executed in this task, in order.
    pub fn prior(&self) -> &[ToolCall] {
        &self.prior
    }

    fn finish(&mut self, end: &'static str) {
        self.end = Some(end);
    }

    fn check_cap(&mut self) {
        if self.end.is_none() && self.pending.is_empty() && self.steps.len() >= self.cap {
            self.finish("step_cap");
        }
    }

    /// Feeds the reply to the current request. Ignored once finished or while calls are
    /// pending.
    pub fn feed(&mut self, reply: &Reply) -> Need {
        if self.need() != Need::Reply {
            return self.need();
        }
        let mut step = Map::new();
        let mut r = Map::new();
        r.insert("content", reply.content.clone());
        r.insert("tool_calls", reply.tool_calls.clone());
        r.insert("reasoning_content", reply.reasoning_content.clone());
        step.insert("reply", Value::Object(r));
        step.insert("echo_reasoning", Value::Bool(reply.echo_reasoning));
        step.insert("latency", Value::Float(reply.latency));
        step.insert("input_tokens", reply.input_tokens.clone());
        step.insert("output_tokens", reply.output_tokens.clone());
        let calls = match &reply.tool_calls {
            Value::Array(c) if !c.is_empty() => Some(c),
            _ => None,
        };
        let text = match &reply.content {
            Value::Str(s) if !s.is_empty() => Some(s.clone()),
            _ => None,
        };
        match (calls, text) {
            (Some(calls), _) => {
                let parsed: Option<Vec<ToolCall>> = calls.iter().map(call_of).collect();
                match parsed {
                    Some(parsed) => {
                        let mut assistant = Map::new();
                        assistant.insert("role", Value::str("assistant"));
                        if reply.echo_reasoning && !reply.reasoning_content.is_null() {
                            assistant.insert("reasoning_content", reply.reasoning_content.clone());
                        }
                        assistant.insert("content", reply.content.clone());
                        assistant.insert("tool_calls", reply.tool_calls.clone());
                        self.messages.push(Value::Object(assistant));
                        self.pending = parsed;
                        self.steps.push(step);
                    }
                    None => {
                        self.steps.push(step);
                        self.finish("parse_failed");
                    }
                }
            }
            (None, Some(text)) => {
                self.messages
                    .push(text_message("assistant", Value::Str(text.clone())));
                match self.asks.pop_front() {
                    Some(user_input) => {
                        let ui = user_input.map(Value::Str).unwrap_or(Value::Null);
                        self.messages.push(text_message("user", ui.clone()));
                        step.insert("user_input", ui);
                        self.steps.push(step);
                    }
                    None => {
                        self.steps.push(step);
                        self.answer = Some(text);
                        self.finish("answered");
                    }
                }
            }
            (None, None) => {
                self.steps.push(step);
                self.finish("empty");
            }
        }
        self.check_cap();
        self.need()
    }

    /// Takes the environment's answers to the pending calls (one object per call, in
    /// order, each with a `content` string): appends the tool messages and records the
    /// calls in the trace.
    pub fn answer_env(&mut self, answers: Vec<Value>) -> Result<Need, AnswerMismatch> {
        let want = self.pending.len();
        let ok = answers.len() == want
            && answers
                .iter()
                .all(|a| a.get("content").and_then(Value::as_str).is_some());
        if !ok || want == 0 {
            return Err(AnswerMismatch {
                want,
                got: answers.len(),
            });
        }
        let calls = std::mem::take(&mut self.pending);
        let mut records = Vec::with_capacity(want);
        for (c, a) in calls.iter().zip(answers) {
            let content = a
                .get("content")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned();
            let mut rec = Map::new();
            if self.keep_content {
                rec.insert("content", Value::Str(content.clone()));
            }
            self.messages
                .push(tool_message(Value::Str(content), c.id.clone()));
            rec.insert("id", c.id.clone());
            rec.insert("tool", Value::str(c.name.clone()));
            rec.insert("args", c.arguments.clone());
            if let Value::Object(fields) = a {
                for (k, v) in fields.iter() {
                    if k != "content" {
                        rec.insert(k.clone(), v.clone());
                    }
                }
            }
            records.push(Value::Object(rec));
        }
        self.prior.extend(calls);
        if let Some(last) = self.steps.last_mut() {
            last.insert("calls", Value::Array(records));
        }
        self.check_cap();
        Ok(self.need())
    }

    /// The task's trace, once it has ended.
    pub fn result(&self) -> Option<Value> {
        let end = self.end?;
        let mut m = Map::new();
        m.insert("task", Value::int(self.task as i64));
        m.insert("end", Value::str(end));
        m.insert(
            "answer",
            self.answer.clone().map(Value::Str).unwrap_or(Value::Null),
        );
        m.insert("cap", Value::int(self.cap as i64));
        m.insert(
            "steps",
            Value::Array(self.steps.iter().cloned().map(Value::Object).collect()),
        );
        Some(Value::Object(m))
    }
}

/// [`EnvMachine::own`] with the error as text (the run engine's own-history starter).
pub fn start_own(
    session: &Session,
    task: usize,
    ids: &mut dyn IdSource,
    earlier: &[Value],
) -> Result<EnvMachine, String> {
    EnvMachine::own(session, task, ids, earlier).map_err(|e| e.to_string())
}

/// Own-history conversation that cannot be rebuilt from the earlier traces.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum OwnHistoryError {
    /// The task cannot start at all.
    #[error(transparent)]
    Machine(MachineError),
    /// An earlier task has no trace.
    #[error("task {task} has no trace, so the own history of the later tasks is unknown")]
    Missing {
        /// The first task without a trace.
        task: usize,
    },
    /// An earlier trace does not replay.
    #[error("the trace of task {task} does not replay: {message}")]
    Trace {
        /// Task position.
        task: usize,
        /// What went wrong.
        message: String,
    },
}

/// The reply of a recorded environment step (`{"reply": {"content", "tool_calls",
/// "reasoning_content"}, "echo_reasoning", "latency", "input_tokens", "output_tokens"}`).
pub fn trace_reply(step: &Value) -> Reply {
    let r = step.get("reply");
    let field = |k: &str| r.and_then(|r| r.get(k)).cloned().unwrap_or(Value::Null);
    Reply {
        content: field("content"),
        tool_calls: field("tool_calls"),
        reasoning_content: field("reasoning_content"),
        echo_reasoning: matches!(step.get("echo_reasoning"), Some(Value::Bool(true))),
        input_tokens: step.get("input_tokens").cloned().unwrap_or(Value::Null),
        output_tokens: step.get("output_tokens").cloned().unwrap_or(Value::Null),
        cached_input_tokens: Value::Null,
        latency: match step.get("latency") {
            Some(Value::Float(f)) => *f,
            Some(v) => v.as_i64().map_or(0.0, |i| i as f64),
            None => 0.0,
        },
    }
}

/// The own-history conversation after the traces of tasks `0..traces.len()` (each
/// recorded by an own-history machine): the messages as the model last saw them, and
/// every call executed, in order. The traces are replayed through the machine itself, so
/// the conversation is exactly what the run sent.
pub fn conversation(
    session: &Session,
    traces: &[Value],
) -> Result<(Vec<Value>, Vec<ToolCall>), OwnHistoryError> {
    replay_own(session, traces, &mut |_| {})
}

/// The size in bytes (`dumps`, UTF-8) of the messages of every request the own-history
/// loop sent for these traces, in order.
pub fn request_bytes(session: &Session, traces: &[Value]) -> Result<Vec<usize>, OwnHistoryError> {
    let mut sizes = Vec::new();
    replay_own(session, traces, &mut |m| {
        sizes.push(crate::json::dumps(&Value::Array(m.to_vec()), crate::json::Escape::Utf8).len())
    })?;
    Ok(sizes)
}

fn replay_own(
    session: &Session,
    traces: &[Value],
    sent: &mut dyn FnMut(&[Value]),
) -> Result<(Vec<Value>, Vec<ToolCall>), OwnHistoryError> {
    let mut messages: Vec<Value> = Vec::new();
    let mut prior: Vec<ToolCall> = Vec::new();
    for (k, trace) in traces.iter().enumerate() {
        let bad = |message: &str| OwnHistoryError::Trace {
            task: k,
            message: message.to_owned(),
        };
        let mut ids = super::ids::SeededIds::new(0);
        let mut m = EnvMachine::new(session, k, &mut ids).map_err(OwnHistoryError::Machine)?;
        m.keep_content = true;
        if k > 0 {
            let user = m.messages.last().cloned().unwrap_or(Value::Null);
            m.messages = std::mem::take(&mut messages);
            m.messages.push(user);
            m.prior = std::mem::take(&mut prior);
        }
        let steps = trace
            .get("steps")
            .and_then(Value::as_array)
            .ok_or_else(|| bad("steps must be a list"))?;
        for step in steps {
            if m.need() != Need::Reply {
                return Err(bad("more steps than the loop took"));
            }
            sent(&m.messages);
            if m.feed(&trace_reply(step)) == Need::Env {
                let calls = step
                    .get("calls")
                    .and_then(Value::as_array)
                    .ok_or_else(|| bad("a tool-call step has no calls"))?;
                m.answer_env(calls.clone())
                    .map_err(|e| bad(&e.to_string()))?;
            }
        }
        if !m.is_finished() {
            return Err(bad("the trace ends before its task did"));
        }
        messages = m.messages;
        prior = m.prior;
    }
    Ok((messages, prior))
}
