//! Dataset statistics (the `validate` summary and the `stats` table): pure data plus a
//! plain-text renderer.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde::Serialize;

use crate::outcome::{TaskType, TurnSubtype};

use super::model::{NodeKind, Session};

/// Counts over a set of sessions.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Stats {
    /// Sessions counted.
    pub sessions: usize,
    /// Processed tasks.
    pub tasks: usize,
    /// Tasks per type, indexed by [`TaskType::code`] (order of [`TaskType::ALL`]).
    pub task_types: [usize; 6],
    /// Tasks per hidden-intent subtype, indexed by [`TurnSubtype::code`].
    pub subtypes: [usize; 3],
    /// Tasks after the first whose subtype is missing (only in invalid data).
    pub subtypes_missing: usize,
    /// Gold nodes, pseudo nodes included.
    pub nodes: usize,
    /// Real tool-call nodes.
    pub tool_calls: usize,
    /// Ask nodes.
    pub ask_nodes: usize,
    /// Distinct tool names defined across all sessions' tools.
    pub distinct_tools: usize,
    /// Distinct tool names called by some gold node.
    pub distinct_called_tools: usize,
    /// Sessions per number of instruction transitions (PROTOCOL §7.3), index 0..=3.
    pub transitions: [usize; 4],
    /// Tasks per number of real tool calls.
    pub calls_per_task: BTreeMap<usize, usize>,
    /// Sessions per optional `domain` field.
    pub domains: BTreeMap<String, usize>,
    /// Sessions without a `domain` field.
    pub sessions_without_domain: usize,
}

impl Stats {
    /// Counts `sessions`.
    pub fn from_sessions(sessions: &[Session]) -> Self {
        let mut s = Stats {
            sessions: sessions.len(),
            ..Stats::default()
        };
        let mut defined: BTreeSet<&str> = BTreeSet::new();
        let mut called: BTreeSet<&str> = BTreeSet::new();
        for session in sessions {
            defined.extend(session.tool_names());
            let k = usize::from(session.transitions()).min(3);
            if let Some(slot) = s.transitions.get_mut(k) {
                *slot += 1;
            }
            match &session.domain {
                Some(d) => *s.domains.entry(d.clone()).or_insert(0) += 1,
                None => s.sessions_without_domain += 1,
            }
            for task in &session.tasks {
                s.tasks += 1;
                if let Some(slot) = s.task_types.get_mut(usize::from(task.task_type.code())) {
                    *slot += 1;
                }
                match task.subtype {
                    Some(st) => {
                        if let Some(slot) = s.subtypes.get_mut(usize::from(st.code())) {
                            *slot += 1;
                        }
                    }
                    None if task.position > 0 => s.subtypes_missing += 1,
                    None => {}
                }
                s.nodes += task.nodes.len();
                let calls = task.tool_call_count();
                s.tool_calls += calls;
                s.ask_nodes += task
                    .nodes
                    .iter()
                    .filter(|n| n.kind == NodeKind::Ask)
                    .count();
                *s.calls_per_task.entry(calls).or_insert(0) += 1;
                called.extend(
                    task.nodes
                        .iter()
                        .filter(|n| n.kind == NodeKind::Tool)
                        .map(|n| n.name.as_str()),
                );
            }
        }
        s.distinct_tools = defined.len();
        s.distinct_called_tools = called.len();
        s
    }

    /// Tasks of type `t`.
    pub fn type_count(&self, t: TaskType) -> usize {
        self.task_types
            .get(usize::from(t.code()))
            .copied()
            .unwrap_or(0)
    }

    /// Tasks of the three Multi-Tool types together.
    pub fn multi_tool_count(&self) -> usize {
        TaskType::ALL
            .iter()
            .filter(|t| t.is_multi())
            .map(|&t| self.type_count(t))
            .sum()
    }

    /// Tasks with subtype `st`.
    pub fn subtype_count(&self, st: TurnSubtype) -> usize {
        self.subtypes
            .get(usize::from(st.code()))
            .copied()
            .unwrap_or(0)
    }

    /// The short summary `wildtool validate` prints for a valid file: sessions, tasks,
    /// nodes, distinct tools, counts per task type and subtype.
    pub fn render_summary(&self) -> String {
        let mut out = String::new();
        self.render_totals(&mut out);
        self.render_types(&mut out);
        self.render_subtypes(&mut out);
        out
    }

    /// The full distribution table `wildtool stats` prints: the summary plus instruction
    /// transitions, calls per task and domains.
    pub fn render_table(&self) -> String {
        let mut out = self.render_summary();
        let rows: Vec<(String, usize)> = self
            .transitions
            .iter()
            .enumerate()
            .map(|(k, &n)| (k.to_string(), n))
            .collect();
        section(
            &mut out,
            "instruction transitions",
            "sessions",
            &rows,
            self.sessions,
        );
        let rows: Vec<(String, usize)> = self
            .calls_per_task
            .iter()
            .map(|(k, &n)| (k.to_string(), n))
            .collect();
        section(&mut out, "tool calls per task", "tasks", &rows, self.tasks);
        if !self.domains.is_empty() {
            let mut rows: Vec<(String, usize)> =
                self.domains.iter().map(|(d, &n)| (d.clone(), n)).collect();
            if self.sessions_without_domain > 0 {
                rows.push(("(none)".into(), self.sessions_without_domain));
            }
            section(&mut out, "domain", "sessions", &rows, self.sessions);
        }
        out
    }

    fn render_totals(&self, out: &mut String) {
        let rows = [
            ("sessions", self.sessions),
            ("tasks", self.tasks),
            ("nodes", self.nodes),
            ("tool calls", self.tool_calls),
            ("ask nodes", self.ask_nodes),
            ("distinct tools", self.distinct_tools),
            ("distinct tools called", self.distinct_called_tools),
        ];
        for (label, n) in rows {
            let _ = writeln!(out, "{label:<28}{n:>8}");
        }
    }

    fn render_types(&self, out: &mut String) {
        let mut rows: Vec<(String, usize)> = TaskType::ALL
            .iter()
            .map(|&t| (t.as_str().to_owned(), self.type_count(t)))
            .collect();
        rows.push(("(all Multi-Tool)".into(), self.multi_tool_count()));
        section(out, "task type", "tasks", &rows, self.tasks);
    }

    fn render_subtypes(&self, out: &mut String) {
        let mut rows: Vec<(String, usize)> = TurnSubtype::ALL
            .iter()
            .map(|&st| (st.as_str().to_owned(), self.subtype_count(st)))
            .collect();
        if self.subtypes_missing > 0 {
            rows.push(("(missing)".into(), self.subtypes_missing));
        }
        let total: usize = rows.iter().map(|(_, n)| n).sum();
        section(out, "turn subtype (tasks 2-4)", "tasks", &rows, total);
    }
}

/// Appends a titled block of `label  count  share` rows.
fn section(out: &mut String, title: &str, unit: &str, rows: &[(String, usize)], total: usize) {
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
