//! Semantic validation for curated suites: does each task's graph
//! have the topology its declared type promises, and is the gold internally consistent?
//!
//! These checks go beyond what the official code needs (PROTOCOL §1.3 describes the
//! shapes informally) and are meant for datasets we write ourselves. They assume the
//! session passed the format checks of the loader; on an invalid session they may
//! report consequential problems.

use crate::json::Value;
use crate::outcome::TaskType;

use super::deps::reachability;
use super::model::{NodeKind, Session, Task};
use super::problem::{Problem, Sink};
use super::tools::tool_names;

/// Checks gold arguments of tool `name` against the session's converted `tools`:
/// `None` when they pass, otherwise the checker's verdict (the caller passes the official
/// argument checker; `protocol::semantic_problems_checked` does).
pub type ArgChecker<'a> = &'a dyn Fn(&Value, &str, &Value) -> Option<String>;

/// Semantic problems of `session` without the argument check.
pub fn semantic_problems(session: &Session) -> Vec<Problem> {
    semantic_problems_with(session, None)
}

/// Semantic problems of `session`; when `check_args` is given, every tool node's gold
/// arguments must pass it.
///
/// Rules (all errors):
/// - topology matches the declared type: Single-Tool = exactly one tool call; Parallel =
///   two or more calls, none depending (even transitively) on another; Sequential = two
///   or more calls forming a chain (every pair ordered by dependencies); Mixed = three
///   or more calls with both an ordered and an unordered pair; Clarify = at least one
///   ask, each ask unblocking at least one later call, and at least one call; Chat =
///   exactly one node, a prepare;
/// - ask nodes appear only in Clarify tasks, and each names an existing tool in
///   `arguments.tool_name` (or in each `arguments.tool_list[*].tool_name`) when it names one;
/// - the prepare node's `answer_type` is `"chat"` for Chat and `"tool"` otherwise;
/// - the prepare node depends, directly or not, on every other node (otherwise a text
///   reply at step 0 is correct and optimal, PROTOCOL §6 P2);
/// - (optional) gold arguments pass the argument checker.
///
/// Tool names missing from the tools (C4) are reported by the loader, not again here.
pub fn semantic_problems_with(
    session: &Session,
    check_args: Option<ArgChecker<'_>>,
) -> Vec<Problem> {
    let mut sink = session.sink();
    let names = tool_names(&session.tools);
    for task in &session.tasks {
        let path = session.node_list_path(task.position);
        check_topology(task, &path, &mut sink);
        check_prepare(task, &path, &mut sink);
        check_asks(task, &path, &names, &mut sink);
        if let Some(check) = check_args {
            for (j, node) in task.nodes.iter().enumerate() {
                if node.kind == NodeKind::Tool && names.contains(&node.name.as_str()) {
                    if let Some(verdict) = check(&session.tools, &node.name, &node.arguments) {
                        sink.error(
                            format!("{path}[{j}].action.arguments"),
                            format!(
                                "gold arguments of `{}` fail the argument checker: {verdict}",
                                node.name
                            ),
                        );
                    }
                }
            }
        }
    }
    sink.problems
}

fn check_topology(task: &Task, path: &str, sink: &mut Sink) {
    let reach = reachability(&task.nodes);
    let depends = |a: usize, b: usize| {
        reach
            .get(a)
            .and_then(|r| r.get(b))
            .copied()
            .unwrap_or(false)
    };
    let tools: Vec<usize> = kinds(task, NodeKind::Tool);
    let asks: Vec<usize> = kinds(task, NodeKind::Ask);
    let (mut ordered, mut unordered) = (0usize, 0usize);
    for (x, &a) in tools.iter().enumerate() {
        for &b in tools.iter().skip(x + 1) {
            if depends(a, b) || depends(b, a) {
                ordered += 1;
            } else {
                unordered += 1;
            }
        }
    }
    let ty = task.task_type;
    let name = ty.as_str();
    let calls = tools.len();
    let mut fail = |msg: String| sink.error(path, format!("{name} task: {msg}"));
    if ty != TaskType::Clarify && !asks.is_empty() {
        fail(format!(
            "has {} ask node(s); only Clarify tasks ask",
            asks.len()
        ));
    }
    match ty {
        TaskType::SingleTool if calls != 1 => {
            fail(format!("has {calls} tool calls; expected exactly one"))
        }
        TaskType::ParallelMultiTool if calls < 2 => {
            fail(format!("has {calls} tool calls; expected two or more"))
        }
        TaskType::ParallelMultiTool if ordered > 0 => {
            fail("some tool call depends on another; expected independent calls".into())
        }
        TaskType::SequentialMultiTool if calls < 2 => {
            fail(format!("has {calls} tool calls; expected two or more"))
        }
        TaskType::SequentialMultiTool if unordered > 0 => {
            fail("some tool calls are independent; expected a chain".into())
        }
        TaskType::MixedMultiTool if calls < 3 => {
            fail(format!("has {calls} tool calls; expected three or more"))
        }
        TaskType::MixedMultiTool if ordered == 0 || unordered == 0 => {
            fail("expected both dependent and independent tool calls".into())
        }
        TaskType::Clarify => {
            if asks.is_empty() {
                fail("has no ask node".into());
            }
            if calls == 0 {
                fail("has no tool call for the clarification to unblock".into());
            }
            for &a in &asks {
                if !tools.iter().any(|&t| depends(a, t)) {
                    fail(format!(
                        "ask node {a} does not come before any tool call that depends on it"
                    ));
                }
            }
        }
        TaskType::Chat
            if task.nodes.len() != 1
                || task.nodes.first().map(|n| n.kind) != Some(NodeKind::Prepare) =>
        {
            fail(format!(
                "has {} nodes; expected a single prepare_to_answer",
                task.nodes.len()
            ))
        }
        _ => {}
    }
}

fn check_prepare(task: &Task, path: &str, sink: &mut Sink) {
    let expected = if task.task_type == TaskType::Chat {
        "chat"
    } else {
        "tool"
    };
    let reach = reachability(&task.nodes);
    for (j, node) in task.nodes.iter().enumerate() {
        if node.kind != NodeKind::Prepare {
            continue;
        }
        match node.answer_type() {
            Some(t) if t == expected => {}
            Some(t) => sink.error(
                format!("{path}[{j}].action.arguments.answer_type"),
                format!(
                    "answer_type `{t}` in a {} task; expected `{expected}`",
                    task.task_type.as_str()
                ),
            ),
            None => sink.error(
                format!("{path}[{j}].action.arguments.answer_type"),
                format!("prepare_to_answer has no string answer_type; expected `{expected}`"),
            ),
        }
        let missing: Vec<usize> = (0..task.nodes.len())
            .filter(|&i| {
                i != j
                    && !reach
                        .get(i)
                        .and_then(|r| r.get(j))
                        .copied()
                        .unwrap_or(false)
            })
            .collect();
        if !missing.is_empty() {
            sink.error(
                format!("{path}[{j}].dependency_list"),
                format!(
                    "prepare_to_answer does not depend on nodes {missing:?}; a text reply could \
                     finish the task before them (P2)"
                ),
            );
        }
    }
}

fn check_asks(task: &Task, path: &str, names: &[&str], sink: &mut Sink) {
    for (j, node) in task.nodes.iter().enumerate() {
        if node.kind != NodeKind::Ask {
            continue;
        }
        let mut named: Vec<(String, &str)> = Vec::new();
        if let Some(tool) = node.arguments.get("tool_name").and_then(Value::as_str) {
            named.push((format!("{path}[{j}].action.arguments.tool_name"), tool));
        }
        if let Some(list) = node.arguments.get("tool_list").and_then(Value::as_array) {
            for (k, entry) in list.iter().enumerate() {
                if let Some(tool) = entry.get("tool_name").and_then(Value::as_str) {
                    named.push((
                        format!("{path}[{j}].action.arguments.tool_list[{k}].tool_name"),
                        tool,
                    ));
                }
            }
        }
        for (p, tool) in named {
            if !names.contains(&tool) {
                sink.error(
                    p,
                    format!("ask names tool `{tool}`, which is not in the session's tools"),
                );
            }
        }
    }
}

fn kinds(task: &Task, kind: NodeKind) -> Vec<usize> {
    task.nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.kind == kind)
        .map(|(i, _)| i)
        .collect()
}

/// Problems of the C8 constraint (PROTOCOL §1.4): no step of a task's first optimal path
/// may mix an ask or prepare node with another node.
///
/// The first optimal path comes from the graph engine, passed in by the caller:
/// `first_optimal_path(task)` returns the steps (node indexes) or `None` when the task has
/// no complete path (already a C9 error).
pub fn mixed_step_problems(
    session: &Session,
    first_optimal_path: &dyn Fn(&Task) -> Option<Vec<Vec<usize>>>,
) -> Vec<Problem> {
    let mut sink = session.sink();
    for task in &session.tasks {
        let Some(steps) = first_optimal_path(task) else {
            continue;
        };
        for (k, step) in steps.iter().enumerate() {
            let pseudo = step
                .iter()
                .filter(|&&i| task.nodes.get(i).is_some_and(|n| n.kind.is_pseudo()))
                .count();
            if step.len() > 1 && pseudo > 0 {
                sink.error(
                    session.node_list_path(task.position),
                    format!(
                        "step {k} of the first optimal path, nodes {step:?}, mixes ask/prepare \
                         with other nodes; the official history rendering raises (C8)"
                    ),
                );
            }
        }
    }
    sink.problems
}
