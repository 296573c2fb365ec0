//! `params_checker` (PROTOCOL §4.2): the official per-task argument pass, applied to a task
//! log in place so that the score file keeps the official key order and deletions.

use crate::json::{dumps, Escape, Map, RawJson, Value};

/// The names of the pseudo-actions (never checked as tool calls).
pub const PSEUDO_NAMES: [&str; 2] = ["ask_user_for_required_parameters", "prepare_to_answer"];

/// What the argument pass found for one task.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParamsOutcome {
    /// Some checked step had a failing verdict.
    pub args_error: bool,
    /// The step after the argument error was deleted and the name label forced (P7).
    pub forced_correct: bool,
    /// A step without `inference_answer` was met before the walk stopped (C1).
    pub missing_answer: bool,
    /// The first non-correct verdict, for the error taxonomy.
    pub first_bad_verdict: Option<String>,
}

/// Signature of the argument checker: `(step tools, name, predicted arguments, gold
/// arguments string) -> verdict`.
pub type CheckFn<'a> = dyn FnMut(&Value, &str, &Value, &str) -> String + 'a;

/// Sort key of a predicted call: `(function.name, raw function.arguments string)`.
fn predicted_key(call: &Value) -> (String, String) {
    let function = call.get("function");
    let name = function
        .and_then(|f| f.get("name"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let args = match function.and_then(|f| f.get("arguments")) {
        Some(Value::Str(s)) => s.clone(),
        Some(other) => dumps(other, Escape::Utf8),
        None => String::new(),
    };
    (name, args)
}

/// Sort key of a gold action: `(name, dumps-utf8 arguments string)`.
fn gold_key(action: &Value) -> (String, String) {
    let name = action
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let args = action
        .get("arguments")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    (name, args)
}

fn sort_by_key_stable(list: &mut [Value], key: fn(&Value) -> (String, String)) {
    let mut keyed: Vec<((String, String), Value)> =
        list.iter().map(|v| (key(v), v.clone())).collect();
    crate::order::sort_by(&mut keyed, |a, b| a.0.cmp(&b.0));
    for (slot, (_, v)) in list.iter_mut().zip(keyed) {
        *slot = v;
    }
}

/// The last tool list read from deferred text ([`Value::Raw`]) and its tree: the steps of a
/// session usually log the same list, so it is parsed once, not once per step. A list
/// whose text is the session's own tool list as the harness sends it (`dumps` of
/// [`Session::tools`](crate::dataset::Session::tools)) is not parsed at all: its tree is
/// the session's ([`ToolsCache::know`]).
#[derive(Debug, Default)]
pub struct ToolsCache<'d> {
    last: Option<(RawJson, Value)>,
    known: Option<(&'d Value, String)>,
}

impl<'d> ToolsCache<'d> {
    /// An empty cache.
    pub fn new() -> Self {
        Self {
            last: None,
            known: None,
        }
    }

    /// Makes `tools` (a session's tool list, which outlives the cache) the tree of any
    /// deferred list with the same text.
    pub fn know(&mut self, tools: &'d Value) {
        if !matches!(self.known, Some((t, _)) if std::ptr::eq(t, tools)) {
            self.known = Some((tools, crate::json::dumps(tools, crate::json::Escape::Utf8)));
        }
    }

    /// The tree of `raw`.
    fn get(&mut self, raw: &RawJson) -> &Value {
        // The same text parses to the same tree: `dumps` writes a parsed tree so that
        // `loads` gives it back.
        if let Some((tools, text)) = &self.known {
            if text.as_str() == raw.text() {
                return tools;
            }
        }
        let hit = matches!(&self.last, Some((text, _)) if text.text() == raw.text());
        if !hit {
            self.last = Some((raw.clone(), raw.value()));
        }
        match &self.last {
            Some((_, value)) => value,
            None => &EMPTY_TOOLS,
        }
    }
}

static EMPTY_TOOLS: Value = Value::Array(Vec::new());

/// Applies §4.2 to one task result object (`T` of the result file), producing `T'`.
///
/// `check` is the argument checker. The task object gets `label` at position 0 and, when
/// its name label is correct, `action_arguments_label` at position 1; checked steps get
/// `current_action_arguments_label` (and `current_action_arguments_check_result` on
/// failure); the step after the first argument error is deleted (P7).
pub fn params_checker(task: &mut Map, check: &mut CheckFn<'_>) -> ParamsOutcome {
    params_checker_cached(task, check, &mut ToolsCache::new())
}

/// [`params_checker`] reusing the tool lists parsed for earlier tasks.
pub fn params_checker_cached(
    task: &mut Map,
    check: &mut CheckFn<'_>,
    tools_cache: &mut ToolsCache<'_>,
) -> ParamsOutcome {
    let mut outcome = ParamsOutcome::default();
    let mut name_label_error = false;
    if let Some(Value::Object(log)) = task.get_mut("inference_log") {
        let step_keys: Vec<String> = log
            .keys()
            .filter(|k| k.starts_with("step_"))
            .cloned()
            .collect();
        for key in step_keys {
            if outcome.args_error {
                log.remove(&key);
                outcome.forced_correct = true;
                break;
            }
            let Some(Value::Object(step)) = log.get_mut(&key) else {
                outcome.missing_answer = true;
                name_label_error = true;
                break;
            };
            if !matches!(step.get("inference_answer"), Some(Value::Object(_))) {
                // C1: the official code raises KeyError here; wildtool treats the step as
                // a name-error step.
                outcome.missing_answer = true;
                name_label_error = true;
                break;
            }
            let label = step
                .get("inference_output")
                .and_then(|o| o.get("current_action_name_label"))
                .and_then(Value::as_str);
            if label == Some("error") {
                break;
            }
            if check_step(step, check, &mut outcome, tools_cache) {
                outcome.args_error = true;
            }
        }
    }
    if outcome.forced_correct {
        task.insert("action_name_label", Value::str("correct"));
    } else if name_label_error {
        task.insert("action_name_label", Value::str("error"));
    }
    let name_correct = task.get("action_name_label").and_then(Value::as_str) == Some("correct");
    if name_correct {
        let label = if outcome.args_error {
            "error"
        } else {
            "correct"
        };
        task.insert_at(1, "action_arguments_label", Value::str(label));
        if outcome.args_error {
            task.insert("is_optimal", Value::Bool(false));
        }
    }
    let correct = name_correct && !outcome.args_error;
    task.insert_at(
        0,
        "label",
        Value::str(if correct { "correct" } else { "error" }),
    );
    outcome
}

/// Checks one step whose names were accepted. Returns true on an argument error.
fn check_step(
    step: &mut Map,
    check: &mut CheckFn<'_>,
    outcome: &mut ParamsOutcome,
    tools_cache: &mut ToolsCache<'_>,
) -> bool {
    // Gold actions of candidate 0.
    let mut gold: Vec<Value> = match step
        .get("inference_answer")
        .and_then(|a| a.get("candidate_0_answer_function_list"))
        .and_then(|c| c.get("action"))
    {
        Some(Value::Array(actions)) => actions.clone(),
        _ => return false,
    };
    let first_is_pseudo = gold
        .first()
        .and_then(|a| a.get("name"))
        .and_then(Value::as_str)
        .is_some_and(|n| PSEUDO_NAMES.contains(&n));
    if first_is_pseudo || gold.is_empty() {
        return false;
    }
    let mut predicted: Vec<Value> = match step
        .get("inference_output")
        .and_then(|o| o.get("tool_calls"))
    {
        Some(Value::Array(calls)) => calls.clone(),
        _ => Vec::new(),
    };
    sort_by_key_stable(&mut predicted, predicted_key);
    sort_by_key_stable(&mut gold, gold_key);

    let tools = match step.get("inference_input").and_then(|i| i.get("tools")) {
        Some(Value::Raw(raw)) => tools_cache.get(raw),
        Some(tools) => tools,
        None => &EMPTY_TOOLS,
    };
    let mut verdicts = Vec::with_capacity(gold.len());
    for (p, g) in predicted.iter().zip(gold.iter()) {
        let name = g.get("name").and_then(Value::as_str).unwrap_or_default();
        let gold_args = g
            .get("arguments")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let pred_args = p
            .get("function")
            .and_then(|f| f.get("arguments"))
            .cloned()
            .unwrap_or(Value::Null);
        verdicts.push(check(tools, name, &pred_args, gold_args));
    }
    let failed = verdicts.iter().any(|v| v != "correct");
    if failed && outcome.first_bad_verdict.is_none() {
        outcome.first_bad_verdict = verdicts.iter().find(|v| *v != "correct").cloned();
    }

    if let Some(Value::Object(output)) = step.get_mut("inference_output") {
        if let Some(slot) = output.get_mut("tool_calls") {
            if matches!(slot, Value::Array(_)) {
                *slot = Value::Array(predicted);
            }
        }
        if failed {
            output.insert("current_action_arguments_label", Value::str("error"));
            output.insert(
                "current_action_arguments_check_result",
                Value::Array(verdicts.into_iter().map(Value::Str).collect()),
            );
        } else {
            output.insert("current_action_arguments_label", Value::str("correct"));
        }
    }
    if let Some(Value::Object(answer)) = step.get_mut("inference_answer") {
        if let Some(Value::Object(cand)) = answer.get_mut("candidate_0_answer_function_list") {
            cand.insert("action", Value::Array(gold));
        }
    }
    failed
}
