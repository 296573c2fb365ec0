//! The dashboard's standard charts, built from per-task outcomes.
//!
//! Incomplete tasks (transport failures) are left out of every denominator here: they
//! are not model errors and the page shows them separately. Intervals are Wilson 95%.

use super::stats::wilson95;
use super::{ChartKind, ChartSpec, Orientation, Point, Series};
use crate::outcome::{ErrorColumn, TaskOutcome, TaskType, TurnSubtype};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

fn scored(outcomes: &[TaskOutcome]) -> impl Iterator<Item = &TaskOutcome> {
    outcomes.iter().filter(|o| !o.incomplete)
}

/// Accuracy point with a Wilson interval, or missing when `total == 0`.
fn accuracy_point(correct: u64, total: u64) -> Point {
    match wilson95(correct, total) {
        Some((lo, hi)) => Point::with_interval(correct as f64 / total as f64, lo, hi),
        None => Point::missing(),
    }
}

fn accuracy_chart<K: Copy + PartialEq>(
    id: &str,
    title: &str,
    label: &str,
    keys: &[(K, String)],
    outcomes: &[TaskOutcome],
    key_of: impl Fn(&TaskOutcome) -> Option<K>,
    orientation: Orientation,
) -> ChartSpec {
    let points = keys
        .iter()
        .map(|(k, _)| {
            let (mut c, mut t) = (0u64, 0u64);
            for o in scored(outcomes).filter(|o| key_of(o) == Some(*k)) {
                t += 1;
                c += u64::from(o.correct);
            }
            accuracy_point(c, t)
        })
        .collect();
    ChartSpec {
        id: id.to_owned(),
        title: title.to_owned(),
        summary: None,
        categories: keys.iter().map(|(_, n)| n.clone()).collect(),
        series: vec![Series {
            name: label.to_owned(),
            points,
        }],
        kind: ChartKind::Bars,
        orientation,
        value_axis: "Task accuracy (95% CI)".to_owned(),
    }
}

/// Accuracy by task type (six types, official order).
pub fn accuracy_by_type(label: &str, outcomes: &[TaskOutcome]) -> ChartSpec {
    let keys: Vec<(TaskType, String)> = TaskType::ALL
        .iter()
        .map(|t| (*t, t.as_str().to_owned()))
        .collect();
    accuracy_chart(
        "by-type",
        "Accuracy by task type",
        label,
        &keys,
        outcomes,
        |o| Some(o.task_type),
        Orientation::Horizontal,
    )
}

/// Accuracy by task position in the session (Task 1–4).
pub fn accuracy_by_position(label: &str, outcomes: &[TaskOutcome]) -> ChartSpec {
    let keys: Vec<(u8, String)> = (0..4u8).map(|p| (p, format!("Task {}", p + 1))).collect();
    accuracy_chart(
        "by-position",
        "Accuracy by task position",
        label,
        &keys,
        outcomes,
        |o| Some(o.position),
        Orientation::Vertical,
    )
}

/// Accuracy by hidden-intent subtype (tasks 2–4).
pub fn accuracy_by_subtype(label: &str, outcomes: &[TaskOutcome]) -> ChartSpec {
    let keys: Vec<(TurnSubtype, String)> = TurnSubtype::ALL
        .iter()
        .map(|t| (*t, t.as_str().to_owned()))
        .collect();
    accuracy_chart(
        "by-subtype",
        "Accuracy by hidden-intent subtype",
        label,
        &keys,
        outcomes,
        |o| o.subtype,
        Orientation::Horizontal,
    )
}

/// Accuracy over all tasks of sessions with 0–3 instruction transitions.
pub fn accuracy_by_transitions(label: &str, outcomes: &[TaskOutcome]) -> ChartSpec {
    let keys: Vec<(u8, String)> = (0..4u8)
        .map(|k| {
            (
                k,
                format!("{k} transition{}", if k == 1 { "" } else { "s" }),
            )
        })
        .collect();
    accuracy_chart(
        "by-transitions",
        "Accuracy by instruction transitions",
        label,
        &keys,
        outcomes,
        |o| Some(o.transitions),
        Orientation::Vertical,
    )
}

/// Shares of the nine error columns among a run's failed, labelled tasks
/// (`None` when no task failed).
pub fn error_shares(outcomes: &[TaskOutcome]) -> Option<[f64; 9]> {
    let mut counts = [0u64; 9];
    for o in scored(outcomes).filter(|o| !o.correct) {
        if let Some(col) = o.error.map(|e| e.default_column()) {
            if let Some(slot) = ErrorColumn::ALL
                .iter()
                .position(|c| *c == col)
                .and_then(|i| counts.get_mut(i))
            {
                *slot += 1;
            }
        }
    }
    let total: u64 = counts.iter().sum();
    (total > 0).then(|| counts.map(|c| c as f64 / total as f64))
}

/// Error-taxonomy breakdown: one 100% stacked bar per run (`rows` = label and shares).
pub fn error_breakdown(rows: &[(String, Option<[f64; 9]>)]) -> ChartSpec {
    let series = ErrorColumn::ALL
        .iter()
        .enumerate()
        .map(|(k, col)| Series {
            name: col.as_str().to_owned(),
            points: rows
                .iter()
                .map(|(_, shares)| match shares.and_then(|s| s.get(k).copied()) {
                    Some(v) => Point::new(v),
                    None => Point::missing(),
                })
                .collect(),
        })
        .collect();
    ChartSpec {
        id: "errors".to_owned(),
        title: "Error taxonomy (share of failed tasks)".to_owned(),
        summary: None,
        categories: rows.iter().map(|(l, _)| l.clone()).collect(),
        series,
        kind: ChartKind::Stacked100,
        orientation: Orientation::Horizontal,
        value_axis: "Share of failed tasks".to_owned(),
    }
}

/// Categories of the comparison chart.
pub const COMPARISON_CATEGORIES: [&str; 6] = [
    "Task",
    "Session",
    "Single-Tool",
    "Multi-Tool",
    "Clarify",
    "Chat",
];

/// One row of the comparison chart: a label and values aligned with
/// [`COMPARISON_CATEGORIES`] (proportions in `0..=1`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComparisonRow {
    /// Model or run label.
    pub label: String,
    /// Values aligned with [`COMPARISON_CATEGORIES`].
    pub values: Vec<Option<f64>>,
}

/// Summarises a run into a [`ComparisonRow`] (session accuracy counts a session as
/// correct when all its scored tasks are).
pub fn summarize(label: &str, outcomes: &[TaskOutcome]) -> ComparisonRow {
    let ratio = |f: &dyn Fn(&TaskOutcome) -> bool| {
        let (mut c, mut t) = (0u64, 0u64);
        for o in scored(outcomes).filter(|o| f(o)) {
            t += 1;
            c += u64::from(o.correct);
        }
        (t > 0).then(|| c as f64 / t as f64)
    };
    let mut sessions: BTreeMap<u32, bool> = BTreeMap::new();
    for o in scored(outcomes) {
        let e = sessions.entry(o.session).or_insert(true);
        *e &= o.correct;
    }
    let session = (!sessions.is_empty())
        .then(|| sessions.values().filter(|v| **v).count() as f64 / sessions.len() as f64);
    ComparisonRow {
        label: label.to_owned(),
        values: vec![
            ratio(&|_| true),
            session,
            ratio(&|o| o.task_type == TaskType::SingleTool),
            ratio(&|o| o.task_type.is_multi()),
            ratio(&|o| o.task_type == TaskType::Clarify),
            ratio(&|o| o.task_type == TaskType::Chat),
        ],
    }
}

/// Grouped bar chart comparing runs and published models (one series per row).
pub fn comparison(rows: &[ComparisonRow]) -> ChartSpec {
    ChartSpec {
        id: "comparison".to_owned(),
        title: "Comparison with the published leaderboard".to_owned(),
        summary: None,
        categories: COMPARISON_CATEGORIES
            .iter()
            .map(|c| (*c).to_owned())
            .collect(),
        series: rows
            .iter()
            .map(|r| Series {
                name: r.label.clone(),
                points: r
                    .values
                    .iter()
                    .map(|v| v.map(Point::new).unwrap_or_default())
                    .collect(),
            })
            .collect(),
        kind: ChartKind::Bars,
        orientation: Orientation::Horizontal,
        value_axis: "Accuracy".to_owned(),
    }
}

/// One model of the published leaderboard (`data/paper-leaderboard.json`, percent values).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct LeaderboardModel {
    /// Model name as published.
    pub model: String,
    /// Task accuracy (%).
    pub task: Option<f64>,
    /// Session accuracy (%).
    pub session: Option<f64>,
    /// Single-Tool accuracy (%).
    pub single: Option<f64>,
    /// Multi-Tool accuracy (%).
    pub multi: Option<f64>,
    /// Clarify accuracy (%).
    pub clarify: Option<f64>,
    /// Chat accuracy (%).
    pub chat: Option<f64>,
}

impl LeaderboardModel {
    /// The model as a comparison row (percent → proportion).
    pub fn to_row(&self) -> ComparisonRow {
        let p = |v: Option<f64>| v.map(|x| x / 100.0);
        ComparisonRow {
            label: self.model.clone(),
            values: vec![
                p(self.task),
                p(self.session),
                p(self.single),
                p(self.multi),
                p(self.clarify),
                p(self.chat),
            ],
        }
    }
}

#[derive(Deserialize)]
struct LeaderboardFile {
    models: Vec<LeaderboardModel>,
}

/// Parses the `models` array of the leaderboard reference JSON.
pub fn parse_leaderboard(json: &str) -> Result<Vec<LeaderboardModel>, serde_json::Error> {
    serde_json::from_str::<LeaderboardFile>(json).map(|f| f.models)
}

/// The four per-category accuracy charts and the run's error breakdown.
pub fn standard_charts(label: &str, outcomes: &[TaskOutcome]) -> Vec<ChartSpec> {
    vec![
        accuracy_by_type(label, outcomes),
        accuracy_by_position(label, outcomes),
        accuracy_by_subtype(label, outcomes),
        accuracy_by_transitions(label, outcomes),
        error_breakdown(&[(label.to_owned(), error_shares(outcomes))]),
    ]
}
