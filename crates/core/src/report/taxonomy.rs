//! Error taxonomy of failed tasks (PROTOCOL §8): one raw label per failed task, mapped to
//! the nine published columns in a separate, versioned step.

use crate::json::Value;
use crate::outcome::{ErrorColumn, RawErrorLabel};

/// Version of the raw-label → column mapping reported next to any error distribution.
pub const MAPPING_VERSION: &str = "wildtool-taxonomy-v1 (PROTOCOL §8.2/§8.3 defaults)";

const ASK: &str = "ask_user_for_required_parameters";
const PREPARE: &str = "prepare_to_answer";

/// The raw parameter label of an argument verdict (§8.3).
pub fn param_label(verdict: &str) -> RawErrorLabel {
    if verdict.contains("args type inconsistent")
        || verdict.contains("value type inconsistent")
        || verdict.contains("args invalid json format")
    {
        RawErrorLabel::ParamType
    } else if verdict.contains("args not defined")
        || (verdict.contains("args keys mismatch") && verdict.contains("extra:"))
    {
        RawErrorLabel::ParamHallucination
    } else if verdict.contains("required args missing")
        || verdict.contains("required nested args missing")
    {
        RawErrorLabel::MissingRequired
    } else {
        RawErrorLabel::ParamValue
    }
}

/// The first failing argument verdict of a scored task log, if any (§8.3).
pub fn first_bad_verdict(task: &Value) -> Option<String> {
    let log = task.get("inference_log")?.as_object()?;
    for (key, step) in log.iter() {
        if !key.starts_with("step_") {
            continue;
        }
        let output = step.get("inference_output")?;
        if output
            .get("current_action_arguments_label")
            .and_then(Value::as_str)
            == Some("error")
        {
            let verdicts = output
                .get("current_action_arguments_check_result")?
                .as_array()?;
            return verdicts
                .iter()
                .filter_map(Value::as_str)
                .find(|v| *v != "correct")
                .map(str::to_owned);
        }
    }
    None
}

/// Classifies a failed, scored task (`T'` after §4.2) by the first matching rule of §8.2.
///
/// `gold` is the task's gold node names in list order; `tool_names` the session's tools.
pub fn classify(task: &Value, gold: &[&str], tool_names: &[&str]) -> RawErrorLabel {
    if task.get("action_arguments_label").and_then(Value::as_str) == Some("error") {
        return first_bad_verdict(task)
            .map(|v| param_label(&v))
            .unwrap_or(RawErrorLabel::ParamValue);
    }
    let steps: Vec<&Value> = task
        .get("inference_log")
        .and_then(Value::as_object)
        .map(|log| {
            log.iter()
                .filter(|(k, _)| k.starts_with("step_"))
                .map(|(_, v)| v)
                .collect()
        })
        .unwrap_or_default();
    let calls_of = |step: &Value| -> Vec<String> {
        match step
            .get("inference_output")
            .and_then(|o| o.get("tool_calls"))
        {
            Some(Value::Array(calls)) => calls
                .iter()
                .map(|c| {
                    c.get("function")
                        .and_then(|f| f.get("name"))
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned()
                })
                .collect(),
            _ => Vec::new(),
        }
    };
    let mut pred: Vec<String> = Vec::new();
    for step in &steps {
        let calls = calls_of(step);
        if calls.is_empty() {
            pred.push(ASK.to_owned());
        } else {
            pred.extend(calls);
        }
    }
    // Rule 1
    if steps.len() == 1 && steps.first().is_some_and(|s| calls_of(s).is_empty()) {
        return RawErrorLabel::Refusal;
    }
    // Rule 2
    if gold == [PREPARE] {
        return RawErrorLabel::WrongRefusal;
    }
    // Rule 3
    let failing_reason = steps.iter().rev().find_map(|s| {
        s.get("inference_output")
            .and_then(|o| o.get("error_reason"))
            .and_then(Value::as_str)
    });
    if failing_reason.is_some_and(|r| r.starts_with("parse tool_calls failed")) {
        return RawErrorLabel::ParseError;
    }
    // Rule 4
    for step in &steps {
        if calls_of(step)
            .iter()
            .any(|n| !tool_names.contains(&n.as_str()))
        {
            return RawErrorLabel::NameHallucination;
        }
    }
    let gold_has_ask = gold.contains(&ASK);
    let pred_has_ask = pred.iter().any(|p| p == ASK);
    // Rule 5
    if gold_has_ask && !pred_has_ask {
        return RawErrorLabel::MissingInfo;
    }
    // Rule 6
    if pred.len() + 1 > gold.len() {
        return RawErrorLabel::Redundant;
    }
    // Rule 7: multiset differences.
    let mut gold_left: Vec<&str> = gold.to_vec();
    let mut pred_extra: Vec<&str> = Vec::new();
    for p in &pred {
        if let Some(pos) = gold_left.iter().position(|g| g == p) {
            gold_left.remove(pos);
        } else {
            pred_extra.push(p);
        }
    }
    if gold_left.contains(&ASK) {
        RawErrorLabel::MissingInfo
    } else if !pred_extra.is_empty() {
        if pred.iter().any(|p| !gold.contains(&p.as_str())) {
            RawErrorLabel::WrongFunction
        } else {
            RawErrorLabel::Redundant
        }
    } else {
        RawErrorLabel::EarlyStop
    }
}

/// The column of a raw label under the default mapping.
pub fn column(label: RawErrorLabel) -> ErrorColumn {
    label.default_column()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::loads;

    fn task(steps: &str, extra: &str) -> Value {
        let text = format!(
            r#"{{"action_name_label": "error"{extra}, "inference_log": {{"task_idx": 0, {steps}}}}}"#
        );
        loads(&text).expect("test task parses")
    }

    fn call(name: &str) -> String {
        format!(
            r#"{{"id": "x", "function": {{"name": "{name}", "arguments": "{{}}"}}, "type": "function"}}"#
        )
    }

    fn step(i: usize, calls: &[&str], reason: Option<&str>) -> String {
        let calls = if calls.is_empty() {
            "null".to_owned()
        } else {
            format!(
                "[{}]",
                calls.iter().map(|c| call(c)).collect::<Vec<_>>().join(", ")
            )
        };
        let reason = reason
            .map(|r| format!(r#", "error_reason": "{r}""#))
            .unwrap_or_default();
        format!(
            r#""step_{i}": {{"inference_output": {{"content": "t", "tool_calls": {calls}{reason}}}}}"#
        )
    }

    #[test]
    fn rules_apply_in_order() {
        let tools = ["a", "b", "c"];
        let gold_ab = ["a", "b", PREPARE];
        // Rule 1: only a text step 0.
        assert_eq!(
            classify(&task(&step(0, &[], None), ""), &gold_ab, &tools),
            RawErrorLabel::Refusal
        );
        // Rule 2: chat gold answered with a call.
        assert_eq!(
            classify(&task(&step(0, &["a"], Some("x")), ""), &[PREPARE], &tools),
            RawErrorLabel::WrongRefusal
        );
        // Rule 3: parse failure.
        let t = task(
            &step(0, &["a"], Some("parse tool_calls failed, error: 'id'")),
            "",
        );
        assert_eq!(classify(&t, &gold_ab, &tools), RawErrorLabel::ParseError);
        // Rule 4: unknown tool name.
        assert_eq!(
            classify(&task(&step(0, &["zzz"], Some("x")), ""), &gold_ab, &tools),
            RawErrorLabel::NameHallucination
        );
        // Rule 5: ask needed, never asked.
        let gold_ask = [ASK, "a", PREPARE];
        assert_eq!(
            classify(&task(&step(0, &["a"], Some("x")), ""), &gold_ask, &tools),
            RawErrorLabel::MissingInfo
        );
        // Rule 6: too many predicted actions.
        let steps = [step(0, &["a"], None), step(1, &["a"], Some("x"))].join(", ");
        assert_eq!(
            classify(&task(&steps, ""), &["a", PREPARE], &tools),
            RawErrorLabel::Redundant
        );
        // Rule 7: wrong function.
        assert_eq!(
            classify(&task(&step(0, &["c"], Some("x")), ""), &gold_ab, &tools),
            RawErrorLabel::WrongFunction
        );
        // Rule 7: a text step counts as an ask, which is not a gold name → wrong function.
        let steps = [step(0, &["a"], None), step(1, &[], Some("x"))].join(", ");
        let gold_abc = ["a", "b", "c", PREPARE];
        assert_eq!(
            classify(&task(&steps, ""), &gold_abc, &tools),
            RawErrorLabel::WrongFunction
        );
        // Rule 7: early stop — only gold names predicted, but not all of them (b before a).
        assert_eq!(
            classify(&task(&step(0, &["b"], Some("x")), ""), &gold_ab, &tools),
            RawErrorLabel::EarlyStop
        );
    }

    #[test]
    fn argument_errors_take_precedence_and_map_by_verdict() {
        let t = task(
            r#""step_0": {"inference_output": {"tool_calls": null, "current_action_arguments_label": "error", "current_action_arguments_check_result": ["correct", "error_match: args keys mismatch (extra: ['x'])"]}}"#,
            r#", "action_arguments_label": "error""#,
        );
        assert_eq!(
            classify(&t, &["a", PREPARE], &["a"]),
            RawErrorLabel::ParamHallucination
        );
        assert_eq!(
            param_label("error_schema: nested args type inconsistent"),
            RawErrorLabel::ParamType
        );
        assert_eq!(
            param_label("error: args invalid json format"),
            RawErrorLabel::ParamType
        );
        assert_eq!(
            param_label("error_schema: required args missing"),
            RawErrorLabel::MissingRequired
        );
        assert_eq!(
            param_label("error_match: args keys mismatch (missing: ['u'])"),
            RawErrorLabel::ParamValue
        );
        assert_eq!(
            param_label("error_match: value mismatch at 'x'"),
            RawErrorLabel::ParamValue
        );
        assert_eq!(
            column(RawErrorLabel::MissingRequired),
            ErrorColumn::ParamValueError
        );
    }
}
