//! What a failed task did, read from its scored log (one `score.jsonl` line): the model's
//! output at the first failing step in a canonical form (so two runs that answered the
//! same can be recognised), and the first argument it got wrong.

use std::collections::BTreeMap;

use crate::json::{dumps, loads, Escape, Value};
use crate::trace::diff::closest;
use crate::trace::{Call, Candidate};

/// What a failed task did at its first failing step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The model's output at that step, canonical: its calls as `name(arguments)` with the
    /// arguments' object keys sorted, the calls sorted and joined by `; `, or `text: …`
    /// for a reply without calls.
    pub answer: String,
    /// The first argument that differs from the closest gold action:
    /// `function.key = value` (the model's value, canonical), `function.key = value
    /// (extra)` or `function.key missing`; `None` when no paired call differs in an
    /// argument (a wrong function, a text reply).
    pub argument: Option<String>,
}

/// Failures of one trial keyed by (0-based session, task position).
pub type Failures = BTreeMap<(u32, u8), Failure>;

/// JSON text with every object's keys sorted (numbers and strings as `dumps` writes them).
pub fn canonical(v: &Value) -> String {
    match v {
        Value::Object(map) => {
            let mut pairs: Vec<(&str, String)> = map
                .iter()
                .map(|(k, v)| (k.as_str(), canonical(v)))
                .collect();
            crate::order::sort_by(&mut pairs, |a, b| a.0.cmp(b.0));
            let inner: Vec<String> = pairs
                .into_iter()
                .map(|(k, v)| format!("{}: {v}", dumps(&Value::str(k), Escape::Utf8)))
                .collect();
            format!("{{{}}}", inner.join(", "))
        }
        Value::Array(items) => {
            let inner: Vec<String> = items.iter().map(canonical).collect();
            format!("[{}]", inner.join(", "))
        }
        other => dumps(other, Escape::Utf8),
    }
}

fn canonical_text(arguments: &str) -> String {
    match loads(arguments) {
        Ok(v) => canonical(&v),
        Err(_) => arguments.trim().to_owned(),
    }
}

fn text_of(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::Str(s)) => s.clone(),
        Some(other) => dumps(other, Escape::Utf8),
    }
}

fn calls_of(v: Option<&Value>) -> Vec<Call> {
    let mut out = Vec::new();
    for c in v.and_then(Value::as_array).into_iter().flatten() {
        let f = c.get("function").unwrap_or(c);
        out.push(Call {
            name: text_of(f.get("name")),
            arguments: text_of(f.get("arguments")),
        });
    }
    out
}

/// The first top-level argument of `call` that differs from `gold`'s.
fn first_argument(call: &Call, gold: &Call) -> Option<String> {
    let model = loads(&call.arguments).ok()?;
    let gold_args = loads(&gold.arguments).ok()?;
    let (Some(m), Some(g)) = (model.as_object(), gold_args.as_object()) else {
        return None;
    };
    for (k, v) in m.iter() {
        match g.get(k) {
            None => return Some(format!("{}.{k} = {} (extra)", call.name, canonical(v))),
            Some(gv) if canonical(gv) != canonical(v) => {
                return Some(format!("{}.{k} = {}", call.name, canonical(v)))
            }
            Some(_) => {}
        }
    }
    let missing = g
        .iter()
        .find(|(k, _)| m.get(k).is_none())
        .map(|(k, _)| format!("{}.{k} missing", call.name));
    missing
}

fn step_failed(out: &Value) -> bool {
    let names = text_of(out.get("current_action_name_label"));
    let arguments = text_of(out.get("current_action_arguments_label"));
    names != "correct" || arguments == "error"
}

fn failure_of(task: &Value) -> Option<Failure> {
    let steps: Vec<&Value> = crate::trace::steps_of(task).collect();
    let step = steps
        .iter()
        .copied()
        .find(|s| s.get("inference_output").is_some_and(step_failed))
        .or_else(|| steps.last().copied())?;
    let out = step.get("inference_output")?;
    let calls = calls_of(out.get("tool_calls"));
    let answer = if calls.is_empty() {
        format!("text: {}", text_of(out.get("content")).trim())
    } else {
        let mut parts: Vec<String> = calls
            .iter()
            .map(|c| format!("{}({})", c.name, canonical_text(&c.arguments)))
            .collect();
        crate::order::sort(&mut parts);
        parts.join("; ")
    };
    let mut candidates = Vec::new();
    for (_, c) in step
        .get("inference_answer")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|m| m.iter())
    {
        candidates.push(Candidate {
            actions: calls_of(c.get("action")),
            observation: None,
        });
    }
    let argument = closest(&calls, &candidates).and_then(|d| {
        d.calls.iter().find_map(|cd| {
            let gold = cd.gold.as_ref().filter(|g| g.name == cd.call.name)?;
            first_argument(&cd.call, gold)
        })
    });
    Some(Failure { answer, argument })
}

/// The failures of every failed task of a `score.jsonl` text (lines that are not scored
/// sessions are passed over).
pub fn failures(score_text: &str) -> Failures {
    let mut out = Failures::new();
    crate::ci::junit::for_each_failed_task(score_text, |session, position, task| {
        if let Some(f) = failure_of(task) {
            out.insert((session, position), f);
        }
    });
    out
}
