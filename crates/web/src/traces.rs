//! The trace view's state (filters, what is open, how many rows) and the reading of a
//! scored session's log into display-ready steps: the messages the model saw, its
//! output, the gold candidates accepted at that step, the verdict and its reason.

use wildtool_core::json::{dumps, loads, Escape, Value};
use wildtool_core::outcome::TaskOutcome;

use crate::msg::Effect;
use crate::route::View;
use crate::state::AppState;

/// Rows shown per page of the trace list.
pub const PAGE: usize = 50;

/// Trace view state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceUi {
    /// Failed tasks only.
    pub failed_only: bool,
    /// Task type filter (official name, empty: all).
    pub task_type: String,
    /// Subtype filter (empty: all; `First turn` for first tasks).
    pub subtype: String,
    /// Error label filter (empty: all).
    pub error: String,
    /// Rows shown.
    pub limit: usize,
    /// Open tasks `(session, position)`.
    pub open_tasks: Vec<(u32, u8)>,
    /// Open steps `(session, position, step)`.
    pub open_steps: Vec<(u32, u8, usize)>,
}

impl Default for TraceUi {
    fn default() -> Self {
        TraceUi {
            failed_only: false,
            task_type: String::new(),
            subtype: String::new(),
            error: String::new(),
            limit: PAGE,
            open_tasks: Vec::new(),
            open_steps: Vec::new(),
        }
    }
}

/// The subtype as the filter names it.
pub fn subtype_name(o: &TaskOutcome) -> &'static str {
    o.subtype.map(|s| s.as_str()).unwrap_or("First turn")
}

fn parse_key(key: &str) -> Option<Vec<usize>> {
    key.split(':').map(|p| p.parse().ok()).collect()
}

impl TraceUi {
    /// Sets a filter (`failed`, `type`, `subtype`, `error`).
    pub fn set_filter(&mut self, name: &str, value: &str) {
        match name {
            "failed" => self.failed_only = value == "true",
            "type" => self.task_type = value.to_owned(),
            "subtype" => self.subtype = value.to_owned(),
            "error" => self.error = value.to_owned(),
            _ => return,
        }
        self.limit = PAGE;
    }

    /// Shows the next page of rows.
    pub fn more(&mut self) {
        self.limit += PAGE;
    }

    /// True when `o` passes the filters.
    pub fn matches(&self, o: &TaskOutcome) -> bool {
        (!self.failed_only || !o.correct)
            && (self.task_type.is_empty() || o.task_type.as_str() == self.task_type)
            && (self.subtype.is_empty() || subtype_name(o) == self.subtype)
            && (self.error.is_empty() || o.error.map(|e| e.as_str()) == Some(self.error.as_str()))
    }

    /// Opens or closes a step (`session:task:step`).
    pub fn toggle_step(&mut self, key: &str, open: bool) {
        if let Some(&[s, t, k]) = parse_key(key).as_deref() {
            let k = (s as u32, t as u8, k);
            self.open_steps.retain(|x| *x != k);
            if open {
                self.open_steps.push(k);
            }
        }
    }
}

impl AppState {
    /// Opens or closes a task's trace (`session:task`); the address names the open task.
    pub fn trace_task(&mut self, key: &str, open: bool) -> Vec<Effect> {
        let Some(&[s, t]) = parse_key(key).as_deref() else {
            return Vec::new();
        };
        let k = (s as u32, t as u8);
        self.traces.open_tasks.retain(|x| *x != k);
        if open {
            self.traces.open_tasks.push(k);
        }
        if self.route.view != View::Traces {
            return Vec::new();
        }
        if open {
            self.route.session = Some(s);
            self.route.task = Some(t);
        } else if self.route.session == Some(s) && self.route.task == Some(t) {
            self.route.session = None;
            self.route.task = None;
            self.route.step = None;
        }
        vec![Effect::ReplaceUrl(self.address())]
    }

    /// Opens the task and step the address names (deep links).
    pub fn open_route_trace(&mut self) {
        if let (Some(s), Some(t)) = (self.route.session, self.route.task) {
            self.traces.open_tasks.push((s as u32, t as u8));
            if let Some(k) = self.route.step {
                self.traces.open_steps.push((s as u32, t as u8, k));
            }
        }
    }
}

/// One message as the trace shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceMessage {
    /// Role.
    pub role: String,
    /// Text content.
    pub text: String,
    /// Tool calls as `name(arguments)`.
    pub calls: Vec<String>,
}

/// One step of a task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceStep {
    /// Step name in the log (`step_1` …).
    pub name: String,
    /// Name label.
    pub names: String,
    /// Arguments label.
    pub arguments: String,
    /// Correct at this step.
    pub correct: bool,
    /// Verdict reasons.
    pub reasons: Vec<String>,
    /// The model's output.
    pub output: TraceMessage,
    /// Reasoning text.
    pub reasoning: Option<String>,
    /// Gold candidates accepted at this step.
    pub gold: Vec<String>,
    /// Messages the model saw.
    pub seen: Vec<TraceMessage>,
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
        /// Name label.
        names: String,
        /// Optimal path.
        optimal: bool,
        /// Steps.
        steps: Vec<TraceStep>,
    },
}

fn as_text(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::Str(s)) => s.clone(),
        Some(other) => dumps(other, Escape::Utf8),
    }
}

fn message(v: &Value) -> TraceMessage {
    let calls = v
        .get("tool_calls")
        .and_then(Value::as_array)
        .map(|calls| {
            calls
                .iter()
                .map(|c| {
                    let f = c.get("function");
                    format!(
                        "→ {}({})",
                        as_text(f.and_then(|f| f.get("name"))),
                        as_text(f.and_then(|f| f.get("arguments")))
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    TraceMessage {
        role: as_text(v.get("role")),
        text: as_text(v.get("content")),
        calls,
    }
}

/// Reads task `position` of a `score.jsonl` line.
pub fn task_trace(score_line: &str, position: usize) -> TaskTrace {
    let Ok(session) = loads(score_line) else {
        return TaskTrace::Missing;
    };
    let results = session.get("results");
    if let Some(Value::Str(e)) = results {
        return TaskTrace::SessionError(e.clone());
    }
    let Some(task) = results
        .and_then(Value::as_array)
        .and_then(|a| a.get(position))
    else {
        return TaskTrace::Missing;
    };
    let mut steps = Vec::new();
    if let Some(log) = task.get("inference_log").and_then(Value::as_object) {
        for (name, step) in log.iter() {
            if !name.starts_with("step_") {
                continue;
            }
            let out = step.get("inference_output");
            let get = |k: &str| out.and_then(|o| o.get(k));
            let names = as_text(get("current_action_name_label"));
            let arguments = as_text(get("current_action_arguments_label"));
            let correct = names == "correct" && (arguments.is_empty() || arguments == "correct");
            let mut reasons = Vec::new();
            let why = as_text(get("error_reason"));
            if !why.is_empty() {
                reasons.push(why);
            }
            if let Some(checks) =
                get("current_action_arguments_check_result").and_then(Value::as_array)
            {
                let checks: Vec<String> = checks.iter().map(|c| as_text(Some(c))).collect();
                if checks.iter().any(|c| c != "correct") {
                    reasons.push(format!("argument checks: {}", checks.join("; ")));
                }
            }
            let output = TraceMessage {
                role: "assistant".into(),
                text: as_text(get("content")),
                calls: message(out.unwrap_or(&Value::Null)).calls,
            };
            let reasoning = Some(as_text(get("reasoning_content"))).filter(|r| !r.is_empty());
            let gold = step
                .get("inference_answer")
                .and_then(Value::as_object)
                .map(|cands| {
                    cands
                        .iter()
                        .map(|(k, cand)| {
                            let actions = cand
                                .get("action")
                                .and_then(Value::as_array)
                                .map(|a| {
                                    a.iter()
                                        .map(|x| {
                                            format!(
                                                "{}({})",
                                                as_text(x.get("name")),
                                                as_text(x.get("arguments"))
                                            )
                                        })
                                        .collect::<Vec<_>>()
                                        .join(", ")
                                })
                                .unwrap_or_default();
                            let obs = cand
                                .get("observation")
                                .map(|o| format!("\n  observation: {}", as_text(Some(o))))
                                .unwrap_or_default();
                            format!("{k}: {actions}{obs}")
                        })
                        .collect()
                })
                .unwrap_or_default();
            let seen = step
                .get("inference_input")
                .and_then(|i| i.get("messages"))
                .and_then(Value::as_array)
                .map(|m| m.iter().map(message).collect())
                .unwrap_or_default();
            steps.push(TraceStep {
                name: name.to_owned(),
                names,
                arguments,
                correct,
                reasons,
                output,
                reasoning,
                gold,
                seen,
            });
        }
    }
    TaskTrace::Steps {
        label: as_text(task.get("label")),
        names: as_text(task.get("action_name_label")),
        optimal: matches!(task.get("is_optimal"), Some(Value::Bool(true))),
        steps,
    }
}
