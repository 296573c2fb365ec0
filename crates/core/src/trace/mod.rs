//! Reading a scored session (one `score.jsonl` line) for diagnosis: each task's steps as
//! display-ready values (the messages the model saw, its output, the gold candidates
//! accepted at that step, the verdict and its reasons), the task's recorded tokens and
//! latency, and the text a trace search looks through. [`diff`] pairs the model's calls
//! with the closest gold candidate and marks what differs in their arguments.
//!
//! Everything here reads the official log layout (PROTOCOL §2.5, §4.2) field by field: a
//! missing or odd field gives an empty value, never an error, so any scored line can be
//! shown.

pub mod diff;

use crate::json::{dumps, loads, Escape, Map, Value};

/// One tool call: its name and its arguments as recorded (usually JSON text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    /// Function name.
    pub name: String,
    /// Arguments as recorded: the JSON text the model sent (or the gold's `dumps`).
    pub arguments: String,
}

/// One message as a trace shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// Role (`system`, `user`, `assistant`, `tool`).
    pub role: String,
    /// Text content (empty when none).
    pub text: String,
    /// Tool calls.
    pub calls: Vec<Call>,
}

/// One gold candidate accepted at a step (`candidate_k_answer_function_list`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// The candidate's gold actions in logged order.
    pub actions: Vec<Call>,
    /// The observation the harness would have answered with, when logged.
    pub observation: Option<String>,
}

/// One step of a task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// Name label (`correct`, `error`; empty when not logged).
    pub names: String,
    /// Arguments label (empty when the arguments were not checked).
    pub arguments: String,
    /// Correct at this step (name correct, arguments correct or unchecked).
    pub correct: bool,
    /// Verdict reasons: the error reason and the failing argument checks.
    pub reasons: Vec<String>,
    /// The model's output.
    pub output: Message,
    /// Reasoning text, when logged.
    pub reasoning: Option<String>,
    /// Gold candidates accepted at this step, in logged order.
    pub candidates: Vec<Candidate>,
    /// The messages the model saw.
    pub seen: Vec<Message>,
}

/// What a trace's list of steps shows of a step before it is opened: its labels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepHead {
    /// Name label (`correct`, `error`; empty when not logged).
    pub names: String,
    /// Arguments label (empty when the arguments were not checked).
    pub arguments: String,
    /// Correct at this step (name correct, arguments correct or unchecked).
    pub correct: bool,
}

/// A task's trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaskTrace {
    /// The session's result is an error string.
    SessionError(String),
    /// No record for this task.
    Missing,
    /// The task's steps and labels.
    Steps {
        /// Final label.
        label: String,
        /// Final name label.
        names: String,
        /// Optimal path.
        optimal: bool,
        /// Steps in logged order, by their labels ([`step_text`] and [`read_step`] give
        /// one in full).
        steps: Vec<StepHead>,
    },
}

/// A task's recorded usage: the sums of its `input_token_count`, `output_token_count`
/// and `latency` entries.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Usage {
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Completion tokens.
    pub output_tokens: u64,
    /// Seconds spent waiting for replies.
    pub latency: f64,
    /// Requests (latency entries).
    pub requests: u32,
}

impl Usage {
    /// Prompt and completion tokens together.
    pub fn tokens(&self) -> u64 {
        self.input_tokens + self.output_tokens
    }
}

/// What a trace list needs about one task without opening it.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskDigest {
    /// Recorded tokens and latency.
    pub usage: Usage,
    /// Lower-cased text of the task's own messages, calls, gold candidates and verdicts,
    /// for search.
    pub text: String,
}

fn as_text(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::Str(s)) => s.clone(),
        Some(other) => dumps(other, Escape::Utf8),
    }
}

fn call(v: &Value) -> Call {
    let f = v.get("function").unwrap_or(v);
    Call {
        name: as_text(f.get("name")),
        arguments: as_text(f.get("arguments")),
    }
}

fn calls(v: Option<&Value>) -> Vec<Call> {
    let mut out = Vec::new();
    for c in v.and_then(Value::as_array).into_iter().flatten() {
        out.push(call(c));
    }
    out
}

fn message(v: &Value) -> Message {
    Message {
        role: as_text(v.get("role")),
        text: as_text(v.get("content")),
        calls: calls(v.get("tool_calls")),
    }
}

fn messages_of(step: &Value) -> impl Iterator<Item = &Value> {
    step.get("inference_input")
        .and_then(|i| i.get("messages"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

pub(crate) fn steps_of(task: &Value) -> impl Iterator<Item = &Value> {
    task.get("inference_log")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(Map::iter)
        .filter(|(k, _)| k.starts_with("step_"))
        .map(|(_, v)| v)
}

fn head(v: &Value) -> StepHead {
    let out = v.get("inference_output");
    let names = as_text(out.and_then(|o| o.get("current_action_name_label")));
    let arguments = as_text(out.and_then(|o| o.get("current_action_arguments_label")));
    let correct = names == "correct" && (arguments.is_empty() || arguments == "correct");
    StepHead {
        names,
        arguments,
        correct,
    }
}

/// A step; the messages the model saw only `with_seen` (they repeat the whole history).
fn step(v: &Value, with_seen: bool) -> Step {
    let out = v.get("inference_output");
    let get = |k: &str| out.and_then(|o| o.get(k));
    let StepHead {
        names,
        arguments,
        correct,
    } = head(v);
    let mut reasons = Vec::new();
    let why = as_text(get("error_reason"));
    if !why.is_empty() {
        reasons.push(why);
    }
    if let Some(checks) = get("current_action_arguments_check_result").and_then(Value::as_array) {
        let checks: Vec<String> = checks.iter().map(|c| as_text(Some(c))).collect();
        if checks.iter().any(|c| c != "correct") {
            reasons.push(format!("argument checks: {}", checks.join("; ")));
        }
    }
    let mut candidates = Vec::new();
    for (_, c) in v
        .get("inference_answer")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(Map::iter)
    {
        candidates.push(Candidate {
            actions: calls(c.get("action")),
            observation: c.get("observation").map(|o| as_text(Some(o))),
        });
    }
    let mut seen = Vec::new();
    for m in messages_of(v).filter(|_| with_seen) {
        seen.push(message(m));
    }
    Step {
        names,
        arguments,
        correct,
        reasons,
        output: Message {
            role: "assistant".into(),
            text: as_text(get("content")),
            calls: calls(get("tool_calls")),
        },
        reasoning: Some(as_text(get("reasoning_content"))).filter(|r| !r.is_empty()),
        candidates,
        seen,
    }
}

fn tasks_of(session: &Value) -> Result<&[Value], String> {
    match session.get("results") {
        Some(Value::Str(e)) => Err(e.clone()),
        Some(Value::Array(a)) => Ok(a),
        _ => Ok(&[]),
    }
}

/// Reads task `position` (0-based) of a `score.jsonl` (or `result.jsonl`) line: its labels
/// and its steps' labels ([`step_text`] and [`read_step`] give one step in full).
pub fn task_trace(score_line: &str, position: usize) -> TaskTrace {
    let Ok(session) = loads(score_line) else {
        return TaskTrace::Missing;
    };
    let task = match tasks_of(&session) {
        Err(e) => return TaskTrace::SessionError(e),
        Ok(tasks) => match tasks.get(position) {
            Some(t) => t,
            None => return TaskTrace::Missing,
        },
    };
    TaskTrace::Steps {
        label: as_text(task.get("label")),
        names: as_text(task.get("action_name_label")),
        optimal: matches!(task.get("is_optimal"), Some(Value::Bool(true))),
        steps: steps_of(task).map(head).collect(),
    }
}

/// The logged JSON of step `k` (0-based, in log order) of task `position` of a score line.
pub fn step_text(score_line: &str, position: usize, k: usize) -> Option<String> {
    let session = loads(score_line).ok()?;
    let task = tasks_of(&session).ok()?.get(position)?;
    let text = steps_of(task).nth(k).map(|v| dumps(v, Escape::Utf8));
    text
}

/// One logged step in full (with the messages the model saw), from [`step_text`].
pub fn read_step(text: &str) -> Option<Step> {
    loads(text)
        .ok()
        .filter(|v| v.as_object().is_some())
        .map(|v| step(&v, true))
}

/// A task's recorded usage.
pub fn usage(task: &Value) -> Usage {
    let ints = |key: &str| -> u64 {
        task.get(key)
            .and_then(Value::as_array)
            .map(|xs| {
                xs.iter()
                    .filter_map(Value::as_i64)
                    .map(|x| x.max(0) as u64)
                    .sum()
            })
            .unwrap_or(0)
    };
    let latencies = task.get("latency").and_then(Value::as_array);
    let latency = latencies
        .into_iter()
        .flatten()
        .filter_map(|x| match x {
            Value::Float(f) if f.is_finite() => Some(f.max(0.0)),
            Value::Int(_) => x.as_i64().map(|i| i.max(0) as f64),
            _ => None,
        })
        .sum();
    Usage {
        input_tokens: ints("input_token_count"),
        output_tokens: ints("output_token_count"),
        latency,
        requests: latencies.map_or(0, |l| u32::try_from(l.len()).unwrap_or(u32::MAX)),
    }
}

fn push_calls(out: &mut String, calls: &[Call]) {
    for c in calls {
        out.push_str(&c.name);
        out.push('(');
        out.push_str(&c.arguments);
        out.push_str(")\n");
    }
}

/// The text a search looks through for one task: the task's own messages (from its user
/// turn on: the model's calls, tool observations, answers), every step's output,
/// reasoning, verdict and reasons, and the gold candidates' calls — lower-cased.
pub fn search_text(task: &Value) -> String {
    let mut out = String::new();
    if let Some(last) = steps_of(task).last() {
        let seen: Vec<&Value> = messages_of(last).collect();
        let from = seen
            .iter()
            .rposition(|m| m.get("role").and_then(Value::as_str) == Some("user"))
            .unwrap_or(0);
        for m in seen.into_iter().skip(from).map(message) {
            out.push_str(&m.text);
            out.push('\n');
            push_calls(&mut out, &m.calls);
        }
    }
    for v in steps_of(task) {
        let s = step(v, false);
        out.push_str(&s.output.text);
        out.push('\n');
        push_calls(&mut out, &s.output.calls);
        if let Some(r) = &s.reasoning {
            out.push_str(r);
            out.push('\n');
        }
        for r in &s.reasons {
            out.push_str(r);
            out.push('\n');
        }
        out.push_str(if s.correct { "correct\n" } else { "error\n" });
        for c in &s.candidates {
            push_calls(&mut out, &c.actions);
        }
    }
    out.to_lowercase()
}

/// The recorded usage of every task of a scored session line, in task order (empty for an
/// error string or an unreadable line).
pub fn session_usage(score_line: &str) -> Vec<Usage> {
    let Ok(session) = loads(score_line) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for t in tasks_of(&session).unwrap_or(&[]) {
        out.push(usage(t));
    }
    out
}

/// Digests of every task of a scored session line, in task order (empty for an error
/// string or an unreadable line).
pub fn session_digests(score_line: &str) -> Vec<TaskDigest> {
    let Ok(session) = loads(score_line) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for t in tasks_of(&session).unwrap_or(&[]) {
        out.push(TaskDigest {
            usage: usage(t),
            text: search_text(t),
        });
    }
    out
}

/// True when every word of `query` occurs in one of `texts`, case ignored; a quoted
/// phrase (`"task 2"`) counts as one word. `texts` are expected lower-cased already, as
/// [`search_text`] gives them. An empty query matches everything.
pub fn matches_query(texts: &[&str], query: &str) -> bool {
    let q = query.to_lowercase();
    let mut words = Vec::new();
    for (i, part) in q.split('"').enumerate() {
        if i % 2 == 1 {
            words.extend(Some(part.trim()).filter(|p| !p.is_empty()));
        } else {
            words.extend(part.split_whitespace());
        }
    }
    words.iter().all(|w| texts.iter().any(|t| t.contains(w)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = r#"{"id": "wild_tool_bench_0", "results": [{"label": "error", "action_name_label": "correct", "is_optimal": false, "inference_log": {"task_idx": 0, "begin_of_current_task": {"role": "user", "content": "Weather in Paris?"}, "step_0": {"inference_input": {"messages": [{"role": "system", "content": "sys"}, {"role": "user", "content": "Earlier task"}, {"role": "assistant", "content": "Done."}, {"role": "user", "content": "Weather in Paris?"}]}, "inference_output": {"reasoning_content": "Look it up.", "content": null, "tool_calls": [{"id": "c0", "function": {"arguments": "{\"city\": \"Pariss\"}", "name": "get_weather"}, "type": "function"}], "current_action_name_label": "correct", "current_action_arguments_label": "error", "current_action_arguments_check_result": ["error: value mismatch"]}, "inference_answer": {"candidate_0_answer_function_list": {"action": [{"arguments": "{\"city\": \"Paris\"}", "name": "get_weather"}], "observation": "18C"}}}}, "latency": [0.5, 1.25], "input_token_count": [100, 120], "output_token_count": [10, null]}, {"label": "correct"}]}"#;

    #[test]
    fn a_task_reads_into_steps_with_candidates_and_reasons() {
        let TaskTrace::Steps {
            label,
            names,
            optimal,
            steps,
        } = task_trace(LINE, 0)
        else {
            panic!("steps expected")
        };
        assert_eq!(
            (label.as_str(), names.as_str(), optimal),
            ("error", "correct", false)
        );
        assert_eq!(steps.len(), 1);
        assert_eq!(
            steps[0],
            StepHead {
                names: "correct".into(),
                arguments: "error".into(),
                correct: false
            }
        );
        let s = read_step(&step_text(LINE, 0, 0).expect("step 0")).expect("a step");
        assert!(!s.correct);
        assert_eq!(s.reasons, vec!["argument checks: error: value mismatch"]);
        assert_eq!(s.output.calls[0].name, "get_weather");
        assert_eq!(s.output.calls[0].arguments, r#"{"city": "Pariss"}"#);
        assert_eq!(s.candidates.len(), 1);
        assert_eq!(s.candidates[0].observation.as_deref(), Some("18C"));
        assert_eq!(s.seen.len(), 4);
        assert_eq!(s.seen[3].text, "Weather in Paris?");
        assert_eq!(step_text(LINE, 0, 1), None);
        assert_eq!(read_step("[1]"), None);
        assert_eq!(s.reasoning.as_deref(), Some("Look it up."));
        assert_eq!(task_trace(LINE, 5), TaskTrace::Missing);
        assert_eq!(task_trace("not json", 0), TaskTrace::Missing);
        assert_eq!(
            task_trace(r#"{"id": "x", "results": "boom"}"#, 0),
            TaskTrace::SessionError("boom".into())
        );
    }

    #[test]
    fn usage_sums_tokens_and_latency_and_skips_nulls() {
        let d = session_digests(LINE);
        assert_eq!(d.len(), 2);
        let u = d[0].usage;
        assert_eq!(
            (u.input_tokens, u.output_tokens, u.tokens()),
            (220, 10, 230)
        );
        assert!((u.latency - 1.75).abs() < 1e-12);
        assert_eq!(u.requests, 2);
        assert_eq!(d[1].usage, Usage::default());
    }

    #[test]
    fn search_text_holds_the_task_not_the_earlier_history() {
        let d = session_digests(LINE);
        let t = &d[0].text;
        for needle in [
            "weather in paris?",
            "pariss",
            "get_weather",
            "value mismatch",
            "look it up",
        ] {
            assert!(t.contains(needle), "{needle} in {t}");
        }
        assert!(!t.contains("earlier task"), "{t}");
        assert!(matches_query(&[t], "PARISS  Mismatch"));
        assert!(matches_query(&["london"], ""));
        assert!(!matches_query(&[t], "pariss london"));
        assert!(matches_query(&[t, "london"], "pariss london"));
        assert!(matches_query(&["task 2 of 4"], "\"Task 2\""));
        assert!(!matches_query(&["task 12 2"], "\"task 2\" 4"));
        assert!(!matches_query(&["task 12, 2"], "\"task 2\""));
    }
}
