//! The data card of a generated suite: the distribution of every factor, computed from the
//! sessions themselves (graph shapes, tool lists, clarification nodes, dialogue turns) and,
//! where the official format has no field for it, from the `generated` record.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::dataset::{NodeKind, Session, Task};
use crate::json::{dumps, Escape, Value};
use crate::outcome::TaskType;

use super::spec::MixedShape;

/// The `generated` record of a session, when it has one.
pub fn record(session: &Session) -> Option<&Value> {
    session.raw.get("generated")
}

/// Direct dependencies among the tool-call nodes of a task, as `(from, to)` pairs of
/// positions among the tool calls.
fn tool_edges(task: &Task) -> (usize, Vec<(usize, usize)>) {
    let tools: Vec<usize> = (0..task.nodes.len())
        .filter(|&i| task.nodes.get(i).is_some_and(|n| n.kind == NodeKind::Tool))
        .collect();
    let pos = |i: usize| tools.iter().position(|&t| t == i);
    let mut edges = Vec::new();
    for (b, &i) in tools.iter().enumerate() {
        for &d in task
            .nodes
            .get(i)
            .map(|n| n.dependencies.as_slice())
            .unwrap_or(&[])
        {
            if let Some(a) = pos(d) {
                edges.push((a, b));
            }
        }
    }
    (tools.len(), edges)
}

/// The mixed shape of a task's tool graph, when it is one of the generator's shapes.
pub fn mixed_shape(task: &Task) -> Option<MixedShape> {
    let (n, mut e) = tool_edges(task);
    e.sort_unstable();
    match (n, e.as_slice()) {
        (3, [(a, b)]) if a != b => Some(MixedShape::ChainSide),
        (3, [(a, b), (c, d)]) if a == c && b != d => Some(MixedShape::FanOut),
        (3, [(a, b), (c, d)]) if b == d && a != c => Some(MixedShape::FanIn),
        (4, [(a, b), (c, d)]) if a != c && b != d && *a != *d && *c != *b => {
            Some(MixedShape::TwoChains)
        }
        _ => None,
    }
}

/// Length of the longest dependency chain among a task's tool calls.
pub fn chain_depth(task: &Task) -> usize {
    let (n, e) = tool_edges(task);
    let mut depth = vec![1usize; n];
    // Calls only depend on earlier calls in generated data; iterate to a fixed point
    // so any order works.
    for _ in 0..n {
        for &(a, b) in &e {
            let d = depth.get(a).copied().unwrap_or(1) + 1;
            if let Some(x) = depth.get_mut(b) {
                *x = (*x).max(d);
            }
        }
    }
    depth.into_iter().max().unwrap_or(0)
}

/// Asks of a task (clarification rounds).
pub fn rounds(task: &Task) -> usize {
    task.nodes
        .iter()
        .filter(|n| n.kind == NodeKind::Ask)
        .count()
}

/// Tools offered but never called in the session.
pub fn distractors(session: &Session) -> usize {
    let called: std::collections::BTreeSet<&str> = session
        .tasks
        .iter()
        .flat_map(|t| t.nodes.iter())
        .filter(|n| n.kind == NodeKind::Tool)
        .map(|n| n.name.as_str())
        .collect();
    session.tool_names().len().saturating_sub(called.len())
}

/// The user turns of a session, each as (user text, whole exchange text), in order:
/// every task message and every clarification reply starts a turn.
pub fn turns(session: &Session) -> Vec<(String, String)> {
    let text = |v: &Value| match v {
        Value::Str(s) => s.clone(),
        other => dumps(other, Escape::Utf8),
    };
    let mut out: Vec<(String, String)> = Vec::new();
    for task in &session.tasks {
        let mut user = task.user_message.clone();
        let mut content = user.clone();
        for n in &task.nodes {
            match n.kind {
                NodeKind::Ask => {
                    content.push(' ');
                    content.push_str(&text(&n.observation));
                    out.push((user, content));
                    user = n.user_input.clone().unwrap_or_default();
                    content = user.clone();
                }
                NodeKind::Tool => {
                    content.push(' ');
                    content.push_str(&dumps(&n.arguments, Escape::Utf8));
                    content.push(' ');
                    content.push_str(&dumps(&n.observation, Escape::Utf8));
                }
                NodeKind::Prepare => {
                    content.push(' ');
                    content.push_str(&text(&n.observation));
                }
            }
        }
        out.push((user, content));
    }
    out
}

/// User turn index of each task's message.
pub fn message_turns(session: &Session) -> Vec<usize> {
    let mut at = 0;
    session
        .tasks
        .iter()
        .map(|t| {
            let here = at;
            at += 1 + rounds(t);
            here
        })
        .collect()
}

/// For a task that refers back to `key`: the distance in user turns from the last earlier
/// turn whose exchange states `key` (`None` when no earlier turn does).
pub fn reference_distance(session: &Session, task: usize, key: &str) -> Option<usize> {
    let start = *message_turns(session).get(task)?;
    let t = turns(session);
    (0..start)
        .rev()
        .find(|&i| t.get(i).is_some_and(|(_, c)| c.contains(key)))
        .map(|i| start - i)
}

fn bump(map: &mut BTreeMap<String, usize>, key: impl Into<String>) {
    *map.entry(key.into()).or_insert(0) += 1;
}

/// Factor distributions of a set of sessions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FactorCounts {
    /// Specs recorded in the sessions (normally one).
    pub specs: BTreeMap<String, usize>,
    /// Parallel tasks per width.
    pub width: BTreeMap<String, usize>,
    /// Sequential tasks per depth.
    pub depth: BTreeMap<String, usize>,
    /// Mixed tasks per shape.
    pub shape: BTreeMap<String, usize>,
    /// Clarify tasks per number of rounds.
    pub rounds: BTreeMap<String, usize>,
    /// First clarifications per missing-parameter class.
    pub missing: BTreeMap<String, usize>,
    /// Sessions per number of distractor tools.
    pub distractors: BTreeMap<String, usize>,
    /// Long-range tasks per distance in user turns (from the dialogue).
    pub distance: BTreeMap<String, usize>,
    /// Stated values per argument style.
    pub args: BTreeMap<String, usize>,
}

impl FactorCounts {
    /// Counts `sessions`; `None` when none was generated.
    pub fn from_sessions(sessions: &[Session]) -> Option<Self> {
        if !sessions.iter().any(|s| record(s).is_some()) {
            return None;
        }
        let mut c = Self::default();
        for s in sessions {
            let rec = record(s);
            if let Some(spec) = rec.and_then(|r| r.get("spec")).and_then(Value::as_str) {
                bump(&mut c.specs, spec);
            }
            bump(&mut c.distractors, distractors(s).to_string());
            let metas = rec
                .and_then(|r| r.get("tasks"))
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            for (i, t) in s.tasks.iter().enumerate() {
                let meta = metas.get(i);
                match t.task_type {
                    TaskType::ParallelMultiTool => {
                        bump(&mut c.width, t.tool_call_count().to_string())
                    }
                    TaskType::SequentialMultiTool => bump(&mut c.depth, chain_depth(t).to_string()),
                    TaskType::MixedMultiTool => bump(
                        &mut c.shape,
                        mixed_shape(t).map(MixedShape::name).unwrap_or("other"),
                    ),
                    TaskType::Clarify => {
                        bump(&mut c.rounds, rounds(t).to_string());
                        if let Some(class) = meta
                            .and_then(|m| m.get("asked"))
                            .and_then(Value::as_array)
                            .and_then(|a| a.first())
                            .and_then(|a| a.get("class"))
                            .and_then(Value::as_str)
                        {
                            bump(&mut c.missing, class);
                        }
                    }
                    _ => {}
                }
                if t.subtype == Some(crate::outcome::TurnSubtype::LongRangeDependency) {
                    let key = meta
                        .and_then(|m| m.get("link"))
                        .and_then(|l| l.get("key"))
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    let d = reference_distance(s, i, key)
                        .map(|d| d.to_string())
                        .unwrap_or_else(|| "(not found)".into());
                    bump(&mut c.distance, d);
                }
                for said in meta
                    .and_then(|m| m.get("said"))
                    .and_then(Value::as_array)
                    .map(Vec::as_slice)
                    .unwrap_or(&[])
                {
                    let style = said.get("style").and_then(Value::as_str).unwrap_or("?");
                    let class = said.get("class").and_then(Value::as_str).unwrap_or("?");
                    bump(&mut c.args, format!("{class} {style}"));
                }
            }
        }
        Some(c)
    }

    /// The text table `wildtool stats` appends for a generated suite.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out);
        let _ = writeln!(out, "generated suite");
        for (spec, n) in &self.specs {
            let _ = writeln!(out, "spec ({n} sessions): {spec}");
        }
        let sections: [(&str, &str, &BTreeMap<String, usize>); 8] = [
            ("parallel width", "tasks", &self.width),
            ("sequential depth", "tasks", &self.depth),
            ("mixed shape", "tasks", &self.shape),
            ("clarification rounds", "tasks", &self.rounds),
            ("missing parameter (1st ask)", "tasks", &self.missing),
            ("distractor tools", "sessions", &self.distractors),
            ("long-range distance (turns)", "tasks", &self.distance),
            ("stated values (class, style)", "values", &self.args),
        ];
        for (title, unit, rows) in sections {
            let total: usize = rows.values().sum();
            let _ = writeln!(out);
            let _ = writeln!(out, "{title:<28}{unit:>8}{:>8}", "share");
            for (label, n) in rows {
                let share = if total == 0 {
                    0.0
                } else {
                    100.0 * *n as f64 / total as f64
                };
                let _ = writeln!(out, "{label:<28}{n:>8}{share:>7.1}%");
            }
        }
        out
    }
}
