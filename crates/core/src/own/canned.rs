//! The canned environment: how a session without an executable environment answers the
//! model's tool calls in own history. For each call of a step, among the gold tool nodes
//! of the current task with the call's name:
//!
//! 1. the first whose gold arguments equal the call's (parsed JSON, Python equality), else
//! 2. the first of them in node order,
//!
//! and the answer is that node's gold observation, as the official history renders it
//! (`dumps` of the observation, so a string observation is a JSON literal). A call that
//! matches no gold node gets an error observation (never a missing tool message, which
//! real APIs reject): `{"status": "error", "error": {"code", "message"}}` with code
//! [`UNKNOWN_TOOL`] when the session offers no tool of that name, [`NO_OBSERVATION`] when
//! it does but the task's gold path never calls it. The answer is a pure function of the
//! session, the task and the call: earlier calls do not change it.

use crate::dataset::{NodeKind, Session};
use crate::json::{dumps, loads, py_eq, Escape, Map, Value};
use crate::protocol::ToolCall;

/// Error code: the session has no tool of the called name.
pub const UNKNOWN_TOOL: &str = "UNKNOWN_TOOL";
/// Error code: the tool exists but the task's gold path never calls it.
pub const NO_OBSERVATION: &str = "NO_CANNED_OBSERVATION";

fn tool_offered(session: &Session, name: &str) -> bool {
    session.tools.as_array().is_some_and(|list| {
        list.iter().any(|t| {
            t.get("name").and_then(Value::as_str) == Some(name)
                || t.get("function")
                    .and_then(|f| f.get("name"))
                    .and_then(Value::as_str)
                    == Some(name)
        })
    })
}

/// The error observation for an unanswerable call.
pub fn error_observation(code: &str, message: &str) -> Value {
    let mut e = Map::new();
    e.insert("code", Value::str(code));
    e.insert("message", Value::str(message));
    let mut m = Map::new();
    m.insert("status", Value::str("error"));
    m.insert("error", Value::Object(e));
    Value::Object(m)
}

/// The canned answer to one call of task `task`: `{"content", "result", "canned":
/// "gold" | "error", "node"?}`.
pub fn answer_one(session: &Session, task: usize, call: &ToolCall) -> Value {
    let nodes: Vec<(usize, &crate::dataset::Node)> = session
        .tasks
        .get(task)
        .map(|t| {
            t.nodes
                .iter()
                .enumerate()
                .filter(|(_, n)| n.kind == NodeKind::Tool && n.name == call.name)
                .collect()
        })
        .unwrap_or_default();
    let args = match &call.arguments {
        Value::Str(s) => loads(s).ok(),
        other => Some(other.clone()),
    };
    let chosen = nodes
        .iter()
        .find(|(_, n)| args.as_ref().is_some_and(|a| py_eq(a, &n.arguments)))
        .or_else(|| nodes.first());
    let mut m = Map::new();
    match chosen {
        Some((i, n)) => {
            m.insert("content", Value::Str(dumps(&n.observation, Escape::Utf8)));
            m.insert("result", n.observation.clone());
            m.insert("canned", Value::str("gold"));
            m.insert("node", Value::int(*i as i64));
        }
        None => {
            let result = if tool_offered(session, &call.name) {
                error_observation(
                    NO_OBSERVATION,
                    &format!(
                        "no observation for {:?}: this environment answers only the calls the task's gold path makes",
                        call.name
                    ),
                )
            } else {
                error_observation(
                    UNKNOWN_TOOL,
                    &format!("there is no tool named {:?}", call.name),
                )
            };
            m.insert("content", Value::Str(dumps(&result, Escape::Utf8)));
            m.insert("result", result);
            m.insert("canned", Value::str("error"));
        }
    }
    Value::Object(m)
}

/// The canned answers to the calls of one step (one object per call, in order).
pub fn answer(session: &Session, task: usize, calls: &[ToolCall]) -> Vec<Value> {
    calls.iter().map(|c| answer_one(session, task, c)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::load_dataset;

    #[test]
    fn gold_names_get_gold_observations_and_others_coded_errors() {
        let text = include_str!("../../../../data/suite.jsonl");
        let ds = load_dataset(text, crate::dataset::Lang::En);
        let (session, t, node) = ds
            .sessions
            .iter()
            .find_map(|s| {
                s.tasks.iter().enumerate().find_map(|(t, task)| {
                    task.nodes
                        .iter()
                        .find(|n| n.kind == NodeKind::Tool)
                        .map(|n| (s, t, n.clone()))
                })
            })
            .expect("a tool node");
        let call = |name: &str| ToolCall {
            id: Value::str("c1"),
            name: name.to_owned(),
            arguments: Value::str("{}"),
        };
        let a = answer_one(session, t, &call(&node.name));
        assert_eq!(a.get("result"), Some(&node.observation));
        assert_eq!(
            a.get("content").and_then(Value::as_str),
            Some(dumps(&node.observation, Escape::Utf8).as_str())
        );
        let e = answer_one(session, t, &call("no_such_tool_anywhere"));
        assert_eq!(
            e.get("result")
                .and_then(|r| r.get("error"))
                .and_then(|r| r.get("code"))
                .and_then(Value::as_str),
            Some(UNKNOWN_TOOL)
        );
        assert!(e.get("content").and_then(Value::as_str).is_some());
    }
}
