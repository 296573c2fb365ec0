//! Gold history rendering (PROTOCOL §2.2, §2.3) and the tool list sent to the model (§2.1).

use crate::dataset::{NodeKind, Session, Task};
use crate::json::{dumps, Escape, Map, Value};

use super::ids::IdSource;

/// A `{"role", "content"}` message.
pub fn text_message(role: &str, content: Value) -> Value {
    let mut m = Map::new();
    m.insert("role", Value::str(role));
    m.insert("content", content);
    Value::Object(m)
}

/// A history/live `{"role": "tool", "content", "tool_call_id"}` message.
pub fn tool_message(content: Value, id: Value) -> Value {
    let mut m = text_message("tool", content);
    if let Value::Object(map) = &mut m {
        map.insert("tool_call_id", id);
    }
    m
}

/// The system message `Current Date: <env_info>`.
pub fn system_message(session: &Session) -> Value {
    text_message(
        "system",
        Value::Str(format!("Current Date: {}", session.env_info)),
    )
}

/// Renders the gold history of one earlier task along `path` (its first optimal path).
///
/// Returns the messages and whether a step mixed pseudo nodes with other nodes (C8; the
/// official code raises, wildtool renders pseudo messages in node order and then the
/// step's tool calls and results).
pub fn render_task_history(
    task: &Task,
    path: &[Vec<usize>],
    ids: &mut dyn IdSource,
) -> (Vec<Value>, bool) {
    let mut out = vec![text_message("user", Value::str(task.user_message.clone()))];
    let mut mixed = false;
    for step in path {
        let nodes: Vec<_> = step.iter().filter_map(|&i| task.nodes.get(i)).collect();
        let pseudo = nodes.iter().filter(|n| n.kind.is_pseudo()).count();
        if pseudo > 0 && nodes.len() > 1 {
            mixed = true;
        }
        let mut calls = Vec::new();
        let mut results = Vec::new();
        for node in nodes {
            match node.kind {
                NodeKind::Ask => {
                    out.push(text_message("assistant", node.observation.clone()));
                    let reply = node
                        .user_input
                        .clone()
                        .map(Value::Str)
                        .unwrap_or(Value::Null);
                    out.push(text_message("user", reply));
                }
                NodeKind::Prepare => out.push(text_message("assistant", node.observation.clone())),
                NodeKind::Tool => {
                    let id = ids.next_id();
                    let mut function = Map::new();
                    function.insert("name", Value::str(node.name.clone()));
                    function.insert(
                        "arguments",
                        Value::Str(dumps(&node.arguments, Escape::Utf8)),
                    );
                    let mut call = Map::new();
                    call.insert("type", Value::str("function"));
                    call.insert("function", Value::Object(function));
                    call.insert("id", Value::str(id.clone()));
                    calls.push(Value::Object(call));
                    // Double encoding (§2.3): a string observation becomes a JSON literal.
                    let content = Value::Str(dumps(&node.observation, Escape::Utf8));
                    results.push(tool_message(content, Value::Str(id)));
                }
            }
        }
        if !calls.is_empty() {
            let mut assistant = Map::new();
            assistant.insert("role", Value::str("assistant"));
            assistant.insert("content", Value::str(""));
            assistant.insert("tool_calls", Value::Array(calls));
            out.push(Value::Object(assistant));
            out.extend(results);
        }
    }
    (out, mixed)
}
