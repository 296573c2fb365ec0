//! Re-deriving the action-name labels of a recorded task by replaying its model outputs
//! through the task state machine (wildtool never trusts recorded labels).

use crate::dataset::Session;
use crate::json::{Map, Value};
use crate::protocol::{Quirk, Reply, StepDecision, TaskMachine};

/// What replaying one recorded task found.
#[derive(Debug, Clone, Default)]
pub struct ReplayOutcome {
    /// Decisions in step order.
    pub decisions: Vec<StepDecision>,
    /// The recorded labels, reasons, answers or step count differed from the replay.
    pub disagreed: bool,
    /// The log ended before the task did (truncated record).
    pub truncated_log: bool,
    /// The gold graph could not be used (C9): every step is an action error.
    pub no_path: bool,
    /// Official crash conditions met.
    pub quirks: Vec<Quirk>,
    /// The task's min_length (0 when unknown).
    pub min_length: usize,
}

fn label_of(decision: &StepDecision) -> &'static str {
    if decision.correct {
        "correct"
    } else {
        "error"
    }
}

/// Replays `task` (a result-file task object `T`) against task `position` of `session`,
/// rewriting its labels, error reasons and `inference_answer`s in place to the official
/// decisions, and its `action_name_label` / `is_optimal`.
pub fn replay_task(
    session: &Session,
    position: usize,
    task: &mut Map,
    candidate_cap: usize,
) -> ReplayOutcome {
    let mut out = ReplayOutcome::default();
    let machine =
        TaskMachine::for_replay(session, position).map(|m| m.with_candidate_cap(candidate_cap));
    let mut machine = match machine {
        Ok(m) => Some(m),
        Err(_) => {
            out.no_path = true;
            out.quirks.push(Quirk::C9NoPath { task: position });
            None
        }
    };
    if let Some(m) = &machine {
        out.min_length = m.min_length();
    }
    let Some(Value::Object(log)) = task.get_mut("inference_log") else {
        out.disagreed = true;
        out.truncated_log = true;
        set_task_labels(task, false, false);
        return out;
    };
    let step_keys: Vec<String> = log
        .keys()
        .filter(|k| k.starts_with("step_"))
        .cloned()
        .collect();
    let mut finished = false;
    let mut names_correct = false;
    let mut optimal = false;
    for key in step_keys {
        if finished {
            // The recorded log goes on after the official loop would have stopped.
            log.remove(&key);
            out.disagreed = true;
            continue;
        }
        let Some(Value::Object(step)) = log.get_mut(&key) else {
            out.disagreed = true;
            finished = true;
            continue;
        };
        let reply =
            Reply::from_recorded_output(step.get("inference_output").unwrap_or(&Value::Null));
        let decision = match machine.as_mut() {
            Some(m) => m.feed(&reply),
            None => None,
        };
        let decision = decision.unwrap_or_else(|| forced_error(out.decisions.len()));
        patch_step(step, &decision, &mut out.disagreed);
        if decision.finished {
            finished = true;
            names_correct = decision.correct;
            optimal = machine
                .as_ref()
                .and_then(|m| m.verdict())
                .map(|v| v.optimal)
                .unwrap_or(false);
        }
        out.decisions.push(decision);
    }
    if !finished {
        out.truncated_log = true;
        out.disagreed = true;
    }
    if let Some(m) = &machine {
        out.quirks.extend_from_slice(m.quirks());
    }
    let recorded_name = task
        .get("action_name_label")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let recorded_optimal = task.get("is_optimal").cloned();
    if recorded_name.as_deref() != Some(if names_correct { "correct" } else { "error" })
        || recorded_optimal != Some(Value::Bool(optimal))
    {
        out.disagreed = true;
    }
    set_task_labels(task, names_correct, optimal);
    out
}

/// A name error used when the graph is unusable (C9).
fn forced_error(step: usize) -> StepDecision {
    StepDecision {
        step,
        kind: crate::protocol::StepKind::ToolRejected,
        correct: false,
        error_reason: Some(crate::protocol::REASON_NO_MATCH.to_owned()),
        answer: None,
        nodes: Vec::new(),
        finished: true,
    }
}

fn set_task_labels(task: &mut Map, names_correct: bool, optimal: bool) {
    task.insert(
        "action_name_label",
        Value::str(if names_correct { "correct" } else { "error" }),
    );
    task.insert("is_optimal", Value::Bool(optimal));
}

/// Writes the decision into a recorded step, noting any difference.
fn patch_step(step: &mut Map, decision: &StepDecision, disagreed: &mut bool) {
    if let Some(Value::Object(output)) = step.get_mut("inference_output") {
        let label = Value::str(label_of(decision));
        if output.get("current_action_name_label") != Some(&label) {
            *disagreed = true;
        }
        output.insert("current_action_name_label", label);
        match &decision.error_reason {
            Some(reason) => {
                let reason = Value::str(reason.clone());
                if output.get("error_reason") != Some(&reason) {
                    *disagreed = true;
                }
                output.insert("error_reason", reason);
            }
            None => {
                if output.remove("error_reason").is_some() {
                    *disagreed = true;
                }
            }
        }
    }
    match &decision.answer {
        Some(answer) => {
            if step.get("inference_answer") != Some(answer) {
                *disagreed = true;
            }
            step.insert("inference_answer", answer.clone());
        }
        None => {
            if step.remove("inference_answer").is_some() {
                *disagreed = true;
            }
        }
    }
}
