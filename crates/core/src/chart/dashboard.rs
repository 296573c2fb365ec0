//! The dashboard's standard charts, read from a run's [`RunReport`].
//!
//! The report is the one place outcomes are counted (unscored tasks are in no
//! denominator); the charts only lay its numbers out, so a chart, the headline, the share
//! link's dashboard and the HTML report cannot disagree. Intervals are the report's
//! Wilson 95% intervals.

use super::{ChartKind, ChartSpec, Orientation, Point, Series};
use crate::outcome::{ErrorColumn, TaskType, TurnSubtype};
use crate::report::{Rate, RunReport};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A rate as a chart point: missing when nothing was scored.
fn rate_point(rate: Option<&Rate>) -> Point {
    match rate {
        Some(r) if r.total > 0 => Point::with_interval(r.rate, r.ci95.lo, r.ci95.hi),
        _ => Point::missing(),
    }
}

/// A rate as a comparison value: `None` when nothing was scored.
fn rate_value(rate: Option<&Rate>) -> Option<f64> {
    rate.filter(|r| r.total > 0).map(|r| r.rate)
}

fn accuracy_chart(
    id: &str,
    title: &str,
    label: &str,
    keys: &[(String, String)],
    rates: &BTreeMap<String, Rate>,
    orientation: Orientation,
) -> ChartSpec {
    ChartSpec {
        id: id.to_owned(),
        title: title.to_owned(),
        summary: None,
        categories: keys.iter().map(|(_, n)| n.clone()).collect(),
        series: vec![Series {
            name: label.to_owned(),
            points: keys.iter().map(|(k, _)| rate_point(rates.get(k))).collect(),
        }],
        kind: ChartKind::Bars,
        orientation,
        value_axis: "Task accuracy (95% CI)".to_owned(),
    }
}

/// Accuracy by task type (six types, official order).
pub fn accuracy_by_type(label: &str, report: &RunReport) -> ChartSpec {
    let keys: Vec<(String, String)> = TaskType::ALL
        .iter()
        .map(|t| (t.as_str().to_owned(), t.as_str().to_owned()))
        .collect();
    accuracy_chart(
        "by-type",
        "Accuracy by task type",
        label,
        &keys,
        &report.by_type,
        Orientation::Horizontal,
    )
}

/// Accuracy by task position in the session (Task 1–4).
pub fn accuracy_by_position(label: &str, report: &RunReport) -> ChartSpec {
    let keys: Vec<(String, String)> = (1..=4u8)
        .map(|p| (p.to_string(), format!("Task {p}")))
        .collect();
    accuracy_chart(
        "by-position",
        "Accuracy by task position",
        label,
        &keys,
        &report.by_position,
        Orientation::Vertical,
    )
}

/// Accuracy by hidden-intent subtype (tasks 2–4).
pub fn accuracy_by_subtype(label: &str, report: &RunReport) -> ChartSpec {
    let keys: Vec<(String, String)> = TurnSubtype::ALL
        .iter()
        .map(|t| (t.as_str().to_owned(), t.as_str().to_owned()))
        .collect();
    accuracy_chart(
        "by-subtype",
        "Accuracy by hidden-intent subtype",
        label,
        &keys,
        &report.by_subtype,
        Orientation::Horizontal,
    )
}

/// Accuracy over all tasks of sessions with 0–3 instruction transitions. The title names
/// the factor once and the ticks are its bare values, so a phone-width label is never
/// a word broken in two.
pub fn accuracy_by_transitions(label: &str, report: &RunReport) -> ChartSpec {
    let keys: Vec<(String, String)> = (0..4u8).map(|k| (k.to_string(), k.to_string())).collect();
    accuracy_chart(
        "by-transitions",
        "Accuracy by instruction transitions in the session",
        label,
        &keys,
        &report.by_transitions,
        Orientation::Vertical,
    )
}

/// Shares of the nine error columns among a run's failed, labelled scored tasks, in
/// [`ErrorColumn::ALL`] order (`None` when no scored task failed with a label).
pub fn error_shares(report: &RunReport) -> Option<[f64; 9]> {
    if report.errors.failed == 0 {
        return None;
    }
    let mut shares = [0.0; 9];
    for (slot, col) in shares.iter_mut().zip(ErrorColumn::ALL.iter()) {
        *slot = report
            .errors
            .columns
            .iter()
            .find(|(name, _, _)| name == col.as_str())
            .map(|c| c.2)
            .unwrap_or(0.0);
    }
    Some(shares)
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

/// A run's [`ComparisonRow`], read from its report (rates over scored tasks; a category
/// without scored tasks is `None`).
pub fn summarize(label: &str, report: &RunReport) -> ComparisonRow {
    let by = |k: &str| rate_value(report.by_type.get(k));
    ComparisonRow {
        label: label.to_owned(),
        values: vec![
            rate_value(Some(&report.task_accuracy)),
            rate_value(Some(&report.session_accuracy)),
            by(TaskType::SingleTool.as_str()),
            by("Multi-Tool"),
            by(TaskType::Clarify.as_str()),
            by(TaskType::Chat.as_str()),
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    // Through `Value`, like every other JSON the page reads (one deserializer in the module).
    let v: serde_json::Value = serde_json::from_str(json)?;
    LeaderboardFile::deserialize(&v).map(|f| f.models)
}

/// The four per-category accuracy charts and the run's error breakdown.
pub fn standard_charts(label: &str, report: &RunReport) -> Vec<ChartSpec> {
    vec![
        accuracy_by_type(label, report),
        accuracy_by_position(label, report),
        accuracy_by_subtype(label, report),
        accuracy_by_transitions(label, report),
        error_breakdown(&[(label.to_owned(), error_shares(report))]),
    ]
}
