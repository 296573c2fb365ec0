//! The task state machine: replays the official step loop (PROTOCOL §2.5) for one task.
//!
//! It is sans-IO: the caller asks for the next request ([`TaskMachine::messages`]), obtains
//! a reply by whatever transport (a live endpoint, a built-in agent, or a recorded result
//! file) and feeds it back with [`TaskMachine::feed`]. The live runner and offline scoring
//! drive the same machine, so their labels cannot drift apart.

use crate::dataset::{NodeKind, Session, Task};
use crate::json::{dumps, Escape, Map, Value};

use super::history::{render_task_history, system_message, text_message, tool_message};
use super::ids::IdSource;
use super::paths::{Paths, PathsError};
use super::quirks::Quirk;
use super::reply::Reply;

/// Default cap on logged candidates after an action error (§2.6).
pub const DEFAULT_CANDIDATE_CAP: usize = 1000;

/// Error reason of an empty reply.
pub const REASON_EMPTY: &str = "tool_calls and content are None or empty";
/// Error reason when no candidate matches.
pub const REASON_NO_MATCH: &str = "action name not in candidate_answer_function_list";

/// How a step was classified.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepKind {
    /// Branch A: no content and no calls.
    Empty,
    /// Branch B accepted as a clarification.
    Ask,
    /// Branch B accepted as the final answer.
    Answer,
    /// Branch B with no pseudo candidate (or beyond the graph).
    TextRejected,
    /// Branch C accepted.
    ToolAccepted,
    /// Branch C with no matching candidate.
    ToolRejected,
    /// Branch C at a step beyond the graph.
    ToolBeyondGraph,
    /// Branch C with calls that could not be read.
    ParseFailed,
}

/// The official decision for one step.
#[derive(Debug, Clone, PartialEq)]
pub struct StepDecision {
    /// Step index.
    pub step: usize,
    /// Classification.
    pub kind: StepKind,
    /// `current_action_name_label == "correct"`.
    pub correct: bool,
    /// `error_reason`, when the step failed.
    pub error_reason: Option<String>,
    /// The `inference_answer` object, when the official code writes one.
    pub answer: Option<Value>,
    /// Gold node indexes matched at this step (path order).
    pub nodes: Vec<usize>,
    /// The task ended with this step.
    pub finished: bool,
}

/// Final state of a task.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskVerdict {
    /// `action_name_label == "correct"`.
    pub names_correct: bool,
    /// `is_optimal` as the inference loop writes it.
    pub optimal: bool,
    /// Steps taken (log keys).
    pub steps: usize,
    /// Gold nodes completed before the first failure (node-based AP, §7.2, before the
    /// argument check; the scorer subtracts nodes of steps with failing arguments).
    pub nodes_done: usize,
}

/// Errors constructing a task machine.
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum MachineError {
    /// The session has no task at that position.
    #[error("session {session} has no task {task}")]
    NoSuchTask {
        /// Session id.
        session: String,
        /// Task position.
        task: usize,
    },
    /// The task's gold graph is unusable (C9).
    #[error("session {session} task {task}: {source}")]
    Graph {
        /// Session id.
        session: String,
        /// Task position.
        task: usize,
        /// Why.
        source: PathsError,
    },
}

/// The official step loop for one task, fed reply by reply.
#[derive(Debug)]
pub struct TaskMachine<'s> {
    task: &'s Task,
    paths: Paths,
    min_length: usize,
    step: usize,
    messages: Vec<Value>,
    tools: Value,
    log: Map,
    latency: Vec<Value>,
    input_tokens: Vec<Value>,
    output_tokens: Vec<Value>,
    cached_input_tokens: Vec<Value>,
    verdict: Option<TaskVerdict>,
    nodes_done: usize,
    quirks: Vec<Quirk>,
    candidate_cap: usize,
    /// Live mode: keep the message list and the step log (replay mode only decides).
    record: bool,
}

impl<'s> TaskMachine<'s> {
    /// Starts task `task` of `session`: builds the system message, the gold history of the
    /// earlier tasks (each along its first optimal path) and the user message.
    pub fn new(
        session: &'s Session,
        task: usize,
        ids: &mut dyn IdSource,
    ) -> Result<Self, MachineError> {
        Self::build(session, task, Some(ids))
    }

    /// A machine for offline replay: decisions only, no message list or log is built.
    pub fn for_replay(session: &'s Session, task: usize) -> Result<Self, MachineError> {
        Self::build(session, task, None)
    }

    fn build(
        session: &'s Session,
        task: usize,
        ids: Option<&mut dyn IdSource>,
    ) -> Result<Self, MachineError> {
        let record = ids.is_some();
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
        let mut quirks = Vec::new();
        let mut messages = Vec::new();
        if let Some(ids) = ids {
            messages.push(system_message(session));
            Self::render_history(session, task, ids, &mut messages, &mut quirks);
            messages.push(text_message(
                "user",
                Value::str(current.user_message.clone()),
            ));
        }
        let mut log = Map::new();
        log.insert("task_idx", Value::int(task as i64));
        log.insert(
            "begin_of_current_task",
            text_message("user", Value::str(current.user_message.clone())),
        );
        Ok(Self {
            task: current,
            min_length: paths.min_length(),
            paths,
            step: 0,
            messages,
            tools: if record {
                session.tools.clone()
            } else {
                Value::Null
            },
            log,
            latency: Vec::new(),
            input_tokens: Vec::new(),
            output_tokens: Vec::new(),
            cached_input_tokens: Vec::new(),
            verdict: None,
            nodes_done: 0,
            quirks,
            candidate_cap: DEFAULT_CANDIDATE_CAP,
            record,
        })
    }

    fn render_history(
        session: &Session,
        task: usize,
        ids: &mut dyn IdSource,
        messages: &mut Vec<Value>,
        quirks: &mut Vec<Quirk>,
    ) {
        for (k, earlier) in session.tasks.iter().take(task).enumerate() {
            match Paths::new(earlier) {
                Ok(p) => {
                    let (rendered, mixed) =
                        render_task_history(earlier, &p.first_optimal_path(), ids);
                    if mixed {
                        quirks.push(Quirk::C8MixedHistoryStep { task: k });
                    }
                    messages.extend(rendered);
                }
                Err(_) => {
                    // C9: the official code cannot render this history; render the user
                    // message alone so the conversation stays well formed.
                    quirks.push(Quirk::C9NoPath { task: k });
                    messages.push(text_message(
                        "user",
                        Value::str(earlier.user_message.clone()),
                    ));
                }
            }
        }
    }

    /// Sets the cap on logged candidates (§2.6).
    pub fn with_candidate_cap(mut self, cap: usize) -> Self {
        self.candidate_cap = cap.max(1);
        self
    }

    /// The messages of the next request.
    pub fn messages(&self) -> &[Value] {
        &self.messages
    }

    /// The tools of every request (after float→number conversion).
    pub fn tools(&self) -> &Value {
        &self.tools
    }

    /// The current step index.
    pub fn step(&self) -> usize {
        self.step
    }

    /// The fewest steps on any gold path.
    pub fn min_length(&self) -> usize {
        self.min_length
    }

    /// The final verdict, once the task has ended.
    pub fn verdict(&self) -> Option<&TaskVerdict> {
        self.verdict.as_ref()
    }

    /// True once the task has ended.
    pub fn is_finished(&self) -> bool {
        self.verdict.is_some()
    }

    /// Crash conditions of the official code met so far (§6).
    pub fn quirks(&self) -> &[Quirk] {
        &self.quirks
    }

    /// Feeds the reply to the current request and applies the official decision.
    ///
    /// Feeding a finished machine returns `None`.
    pub fn feed(&mut self, reply: &Reply) -> Option<StepDecision> {
        if self.is_finished() {
            return None;
        }
        let s = self.step;
        if !self.record {
            let decision = self.decide(reply);
            self.settle(&decision);
            return Some(decision);
        }
        let mut input = Map::new();
        input.insert("messages", Value::Array(self.messages.clone()));
        input.insert("tools", self.tools.clone());
        let mut output = Map::new();
        output.insert("reasoning_content", reply.reasoning_content.clone());
        output.insert("content", reply.content.clone());
        output.insert("tool_calls", reply.tool_calls.clone());
        self.latency.push(Value::Float(reply.latency));
        self.input_tokens.push(reply.input_tokens.clone());
        self.output_tokens.push(reply.output_tokens.clone());
        self.cached_input_tokens
            .push(reply.cached_input_tokens.clone());

        let decision = self.decide(reply);
        output.insert(
            "current_action_name_label",
            Value::str(if decision.correct { "correct" } else { "error" }),
        );
        if let Some(reason) = &decision.error_reason {
            output.insert("error_reason", Value::str(reason.clone()));
        }
        let mut step = Map::new();
        step.insert("inference_input", Value::Object(input));
        step.insert("inference_output", Value::Object(output));
        if let Some(answer) = &decision.answer {
            step.insert("inference_answer", answer.clone());
        }
        self.log.insert(format!("step_{s}"), Value::Object(step));
        self.settle(&decision);
        Some(decision)
    }

    /// Ends the task or advances the step after a decision.
    fn settle(&mut self, decision: &StepDecision) {
        let s = self.step;
        if decision.finished {
            let optimal = decision.correct && s + 1 == self.min_length;
            self.verdict = Some(TaskVerdict {
                names_correct: decision.correct,
                optimal,
                steps: s + 1,
                nodes_done: self.nodes_done,
            });
        } else {
            self.step += 1;
        }
    }

    /// The cached prompt tokens of each recorded step, as reported (kept out of `T`).
    pub fn cached_input_tokens(&self) -> &[Value] {
        &self.cached_input_tokens
    }

    /// The task result object `T` of the result file (§2.5), once finished.
    pub fn result(&self) -> Option<Value> {
        let verdict = self.verdict.as_ref()?;
        let mut t = Map::new();
        t.insert(
            "action_name_label",
            Value::str(if verdict.names_correct {
                "correct"
            } else {
                "error"
            }),
        );
        t.insert("is_optimal", Value::Bool(verdict.optimal));
        t.insert("inference_log", Value::Object(self.log.clone()));
        t.insert("latency", Value::Array(self.latency.clone()));
        t.insert("input_token_count", Value::Array(self.input_tokens.clone()));
        t.insert(
            "output_token_count",
            Value::Array(self.output_tokens.clone()),
        );
        Some(Value::Object(t))
    }

    fn fail(&self, kind: StepKind, reason: String, answer: Option<Value>) -> StepDecision {
        StepDecision {
            step: self.step,
            kind,
            correct: false,
            error_reason: Some(reason),
            answer,
            nodes: Vec::new(),
            finished: true,
        }
    }

    fn decide(&mut self, reply: &Reply) -> StepDecision {
        let s = self.step;
        let calls = match &reply.tool_calls {
            Value::Array(calls) if !calls.is_empty() => Some(calls),
            _ => None,
        };
        let has_text = matches!(&reply.content, Value::Str(c) if !c.is_empty());
        match calls {
            None if !has_text => self.fail(StepKind::Empty, REASON_EMPTY.to_owned(), None),
            None => self.decide_text(reply),
            Some(calls) => {
                let parsed = match parse_calls(calls) {
                    Ok(parsed) => parsed,
                    Err(message) => {
                        if message.starts_with(C10_PREFIX) {
                            self.quirks.push(Quirk::C10NullName { step: s });
                        }
                        return self.fail(
                            StepKind::ParseFailed,
                            format!("parse tool_calls failed, error: {message}"),
                            None,
                        );
                    }
                };
                if s >= self.task.nodes.len() {
                    return self.fail(
                        StepKind::ToolBeyondGraph,
                        format!("current step: {s}, idx_list is None"),
                        None,
                    );
                }
                let names: Vec<&str> = parsed.iter().map(|c| c.name.as_str()).collect();
                match self.paths.match_tool_call(s, &names) {
                    Some((nodes, short_paths)) => {
                        if short_paths {
                            self.quirks.push(Quirk::C5ShortAlivePath { step: s });
                        }
                        self.accept_tool_step(reply, &parsed, nodes)
                    }
                    None => {
                        let answer = self.candidate_log(s);
                        self.fail(StepKind::ToolRejected, REASON_NO_MATCH.to_owned(), answer)
                    }
                }
            }
        }
    }

    fn decide_text(&mut self, reply: &Reply) -> StepDecision {
        let s = self.step;
        if s >= self.task.nodes.len() {
            self.quirks.push(Quirk::C6TextBeyondGraph { step: s });
            return self.fail(StepKind::TextRejected, REASON_NO_MATCH.to_owned(), None);
        }
        let Some(text_match) = self.paths.match_text(s) else {
            let answer = self.candidate_log(s);
            return self.fail(StepKind::TextRejected, REASON_NO_MATCH.to_owned(), answer);
        };
        if text_match.multi_node {
            self.quirks.push(Quirk::C7MultiNodePseudo { step: s });
        }
        let Some(node) = self.task.nodes.get(text_match.pseudo) else {
            return self.fail(StepKind::TextRejected, REASON_NO_MATCH.to_owned(), None);
        };
        let mut cand = Map::new();
        cand.insert(
            "action",
            Value::Array(vec![gold_action(&node.name, &node.arguments)]),
        );
        cand.insert("observation", node.observation.clone());
        self.push_message(text_message("assistant", reply.content.clone()));
        let is_ask = node.kind == NodeKind::Ask;
        if is_ask {
            let user_input = node
                .user_input
                .clone()
                .map(Value::Str)
                .unwrap_or(Value::Null);
            cand.insert("user_input", user_input.clone());
            self.push_message(text_message("user", user_input));
        }
        self.nodes_done += 1;
        let mut answer = Map::new();
        answer.insert("candidate_0_answer_function_list", Value::Object(cand));
        StepDecision {
            step: s,
            kind: if is_ask {
                StepKind::Ask
            } else {
                StepKind::Answer
            },
            correct: true,
            error_reason: None,
            answer: Some(Value::Object(answer)),
            nodes: vec![text_match.pseudo],
            finished: !is_ask,
        }
    }

    fn accept_tool_step(
        &mut self,
        reply: &Reply,
        parsed: &[ParsedCall],
        nodes: Vec<usize>,
    ) -> StepDecision {
        let s = self.step;
        let mut assistant = Map::new();
        assistant.insert("role", Value::str("assistant"));
        if reply.echo_reasoning && !reply.reasoning_content.is_null() {
            assistant.insert("reasoning_content", reply.reasoning_content.clone());
        }
        assistant.insert("content", reply.content.clone());
        assistant.insert("tool_calls", reply.tool_calls.clone());
        self.push_message(Value::Object(assistant));

        let sorted = self.name_sorted(&nodes);
        for (j, &idx) in sorted.iter().enumerate() {
            let Some(node) = self.task.nodes.get(idx) else {
                continue;
            };
            let content = match &node.observation {
                Value::Str(s) => Value::Str(s.clone()),
                other => Value::Str(dumps(other, Escape::Utf8)),
            };
            let id = parsed.get(j).map(|c| c.id.clone()).unwrap_or(Value::Null);
            self.push_message(tool_message(content, id));
        }
        self.nodes_done += nodes.len();
        let actions: Vec<Value> = sorted
            .iter()
            .filter_map(|&i| self.task.nodes.get(i))
            .map(|n| gold_action(&n.name, &n.arguments))
            .collect();
        let mut cand = Map::new();
        cand.insert("action", Value::Array(actions));
        let mut answer = Map::new();
        answer.insert("candidate_0_answer_function_list", Value::Object(cand));
        StepDecision {
            step: s,
            kind: StepKind::ToolAccepted,
            correct: true,
            error_reason: None,
            answer: Some(Value::Object(answer)),
            nodes,
            finished: false,
        }
    }

    fn push_message(&mut self, message: Value) {
        if self.record {
            self.messages.push(message);
        }
    }

    /// Node indexes stable-sorted by name.
    fn name_sorted(&self, nodes: &[usize]) -> Vec<usize> {
        let mut sorted = nodes.to_vec();
        crate::order::sort_by(&mut sorted, |a, b| {
            let na = self
                .task
                .nodes
                .get(*a)
                .map(|n| n.name.as_str())
                .unwrap_or_default();
            let nb = self
                .task
                .nodes
                .get(*b)
                .map(|n| n.name.as_str())
                .unwrap_or_default();
            na.cmp(nb)
        });
        sorted
    }

    /// §2.6: one candidate per alive path with a step `s`, duplicates included, capped.
    fn candidate_log(&self, s: usize) -> Option<Value> {
        let (candidates, truncated) = self.paths.candidates(s, self.candidate_cap);
        if candidates.is_empty() {
            return None;
        }
        let mut answer = Map::new();
        for (i, nodes) in candidates.iter().enumerate() {
            let sorted = self.name_sorted(nodes);
            let mut cand = Map::new();
            let actions: Vec<Value> = sorted
                .iter()
                .filter_map(|&k| self.task.nodes.get(k))
                .map(|n| gold_action(&n.name, &n.arguments))
                .collect();
            cand.insert("action", Value::Array(actions));
            for node in sorted.iter().filter_map(|&k| self.task.nodes.get(k)) {
                if node.kind.is_pseudo() {
                    cand.insert("observation", node.observation.clone());
                    if node.kind == NodeKind::Ask {
                        let ui = node
                            .user_input
                            .clone()
                            .map(Value::Str)
                            .unwrap_or(Value::Null);
                        cand.insert("user_input", ui);
                    }
                }
            }
            answer.insert(
                format!("candidate_{i}_answer_function_list"),
                Value::Object(cand),
            );
        }
        if truncated {
            answer.insert("candidates_truncated", Value::Bool(true));
        }
        Some(Value::Object(answer))
    }
}

/// `{"arguments": dumps-utf8(arguments), "name"}` as logged in `inference_answer`.
fn gold_action(name: &str, arguments: &Value) -> Value {
    let mut m = Map::new();
    m.insert("arguments", Value::Str(dumps(arguments, Escape::Utf8)));
    m.insert("name", Value::str(name));
    Value::Object(m)
}

/// One readable tool call of a reply.
#[derive(Debug, Clone)]
struct ParsedCall {
    id: Value,
    name: String,
}

const C10_PREFIX: &str = "function.name is not a string";

/// Reads `id`, `function.name` and `function.arguments` of each call as the official code
/// does; the error message imitates Python's `str()` of the exception.
fn parse_calls(calls: &[Value]) -> Result<Vec<ParsedCall>, String> {
    calls
        .iter()
        .map(|call| {
            let obj = subscript(call)?;
            let id = obj.get("id").cloned().ok_or_else(|| "'id'".to_owned())?;
            let function = obj.get("function").ok_or_else(|| "'function'".to_owned())?;
            let fobj = subscript(function)?;
            let name = fobj.get("name").ok_or_else(|| "'name'".to_owned())?;
            fobj.get("arguments")
                .ok_or_else(|| "'arguments'".to_owned())?;
            let name = match name {
                Value::Str(s) => s.clone(),
                other => return Err(format!("{C10_PREFIX} ({})", other.py_type_name())),
            };
            Ok(ParsedCall { id, name })
        })
        .collect()
}

/// Python's error for `x["key"]` on a non-dict.
fn subscript(v: &Value) -> Result<&Map, String> {
    match v {
        Value::Object(m) => Ok(m),
        Value::Str(_) => Err("string indices must be integers, not 'str'".to_owned()),
        Value::Array(_) => Err("list indices must be integers or slices, not str".to_owned()),
        other => Err(format!(
            "'{}' object is not subscriptable",
            other.py_type_name()
        )),
    }
}
