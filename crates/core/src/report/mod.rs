//! Metrics the paper reports but the released code does not compute (PROTOCOL §7, §8):
//! intervals, instruction-transition and hidden-intent breakdowns, node-based progress,
//! optimal-path rates and the error taxonomy. Everything here is a pure function of the
//! per-task [`TaskOutcome`]s, so a dashboard rebuilt from a share link shows the same
//! numbers as the run that produced it.
//!
//! [`RunReport`] is the one place outcomes are counted. The counting rule: a task is
//! *scored* when its outcome is not `incomplete`; every rate is over scored tasks only;
//! the report also says how many tasks there were ([`RunReport::tasks_total`]) and the
//! run's [`RunStatus`], so every view can say "n of N tasks scored". Pass one outcome per
//! dataset task (see [`fill_outcomes`]) so that `tasks_total` is the dataset's; a share
//! link carries exactly that list, so its recipient computes the same report.

pub mod glossary;
pub mod intervals;
pub mod summary;
pub mod taxonomy;

use std::collections::BTreeMap;

use crate::order::map_from;

use serde::{Deserialize, Serialize};

use crate::outcome::{ErrorColumn, RawErrorLabel, TaskOutcome, TaskType, TurnSubtype};
use crate::share::TaskShape;
use intervals::{session_bootstrap, wilson, Interval};

/// Bootstrap resamples used for the task-accuracy interval.
pub const BOOTSTRAP_RESAMPLES: usize = 2000;
/// Fixed bootstrap seed, so reports are reproducible.
pub const BOOTSTRAP_SEED: u64 = 0x5EED_2026;

/// A run's status under the counting rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Every task scored.
    Done,
    /// Some tasks scored, some not (a cancelled run, transport failures, a result file
    /// covering part of the dataset).
    Partial,
    /// Nothing scored: there are no rates to show.
    Failed,
}

impl RunStatus {
    /// The status of a run with `scored` of `total` tasks scored.
    pub fn of(scored: u64, total: u64) -> Self {
        if scored == 0 {
            RunStatus::Failed
        } else if scored >= total {
            RunStatus::Done
        } else {
            RunStatus::Partial
        }
    }

    /// `done`, `partial` or `failed`.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Done => "done",
            RunStatus::Partial => "partial",
            RunStatus::Failed => "failed",
        }
    }
}

/// An accuracy with its count and 95% Wilson interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Rate {
    /// `correct / total` (0.0 when empty).
    pub rate: f64,
    /// Numerator.
    pub correct: u64,
    /// Denominator.
    pub total: u64,
    /// 95% Wilson interval.
    pub ci95: Interval,
}

impl Rate {
    /// Builds a rate from counts.
    pub fn new(correct: u64, total: u64) -> Self {
        let rate = if total == 0 {
            0.0
        } else {
            correct as f64 / total as f64
        };
        Rate {
            rate,
            correct,
            total,
            ci95: wilson(correct, total),
        }
    }
}

#[derive(Default, Clone, Copy)]
struct Count {
    correct: u64,
    total: u64,
}

impl Count {
    fn add(&mut self, ok: bool) {
        self.total += 1;
        self.correct += u64::from(ok);
    }
    fn rate(self) -> Rate {
        Rate::new(self.correct, self.total)
    }
}

/// Error-taxonomy counts (§8).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorBreakdown {
    /// Mapping version used for `columns`.
    pub mapping: String,
    /// Failed scored tasks with a label (the percentage denominator).
    pub failed: u64,
    /// Counts per raw label (snake_case), all labels present.
    pub raw: BTreeMap<String, u64>,
    /// `(column title, count, share of failed)` in the paper's column order.
    pub columns: Vec<(String, u64, f64)>,
}

/// Progress rates: the official step-based rate and node-based AP (§7.2).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    /// Official `progress_info` rate: logged steps / gold nodes.
    pub step_based: f64,
    /// Node-based AP: gold nodes completed before the first failure / gold nodes.
    pub ap_nodes: f64,
    /// Gold nodes (denominator of both).
    pub nodes: u64,
}

/// The report of one run (`report.json`, the dashboard, the charts, the share link's
/// dashboard and the HTML report): every rate is over scored tasks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    /// `done` (every task scored), `partial` or `failed` (nothing scored).
    pub status: RunStatus,
    /// Tasks scored: the denominator of every task rate.
    pub tasks_scored: u64,
    /// Tasks of the run (scored and unscored).
    pub tasks_total: u64,
    /// Tasks not scored (their session is incomplete or has no result).
    pub tasks_unscored: u64,
    /// Tasks scored (the same number as `tasks_scored`, kept for older readers).
    pub tasks: u64,
    /// Sessions with a scored task.
    pub sessions: u64,
    /// Task accuracy with Wilson interval.
    pub task_accuracy: Rate,
    /// Session-bootstrap 95% interval of task accuracy.
    pub task_accuracy_bootstrap95: Interval,
    /// Session accuracy (every task correct) with Wilson interval.
    pub session_accuracy: Rate,
    /// Accuracy per task type (official names) plus `Multi-Tool`.
    pub by_type: BTreeMap<String, Rate>,
    /// Accuracy per task position `"1".."4"`.
    pub by_position: BTreeMap<String, Rate>,
    /// Accuracy per hidden-intent subtype, plus `First Turn` and `Subsequent Turn`.
    pub by_subtype: BTreeMap<String, Rate>,
    /// Accuracy over all tasks of sessions with k instruction transitions, `"0".."3"`.
    pub by_transitions: BTreeMap<String, Rate>,
    /// Optimal-path rate for Parallel, Mixed and both (`Total`).
    pub optimal: BTreeMap<String, Rate>,
    /// Progress for Sequential, Mixed and both (`Total`).
    pub progress: BTreeMap<String, Progress>,
    /// Error taxonomy over failed scored tasks.
    pub errors: ErrorBreakdown,
    /// Tasks not scored (the same number as `tasks_unscored`, kept for older readers):
    /// never finished for transport reasons, cancelled, or without a result. They are
    /// not model errors and are in no denominator.
    pub incomplete: u64,
}

impl RunReport {
    /// Computes the report from per-task outcomes (any order). Outcomes marked
    /// `incomplete` are unscored: they count towards `tasks_total` only. Give one outcome
    /// per task of the run (see [`fill_outcomes`]) so that `tasks_total` is right.
    pub fn from_outcomes(outcomes: &[TaskOutcome]) -> Self {
        let mut task = Count::default();
        let mut by_type: BTreeMap<&'static str, Count> = BTreeMap::new();
        let mut by_position: BTreeMap<String, Count> = BTreeMap::new();
        let mut by_subtype: BTreeMap<&'static str, Count> = BTreeMap::new();
        let mut by_transitions: BTreeMap<String, Count> = BTreeMap::new();
        let mut optimal: BTreeMap<&'static str, Count> = BTreeMap::new();
        let mut progress: BTreeMap<&'static str, (u64, u64, u64)> = BTreeMap::new();
        let mut sessions: BTreeMap<u32, (u32, u32)> = BTreeMap::new();
        let mut raw: BTreeMap<&'static str, u64> =
            map_from(RawErrorLabel::ALL.iter().map(|l| (l.as_str(), 0)));
        let mut columns: BTreeMap<ErrorColumn, u64> = BTreeMap::new();
        let mut failed_labelled = 0u64;
        let mut incomplete = 0u64;

        for t in TaskType::ALL {
            by_type.insert(t.as_str(), Count::default());
        }
        by_type.insert("Multi-Tool", Count::default());
        for p in 1..=4 {
            by_position.insert(p.to_string(), Count::default());
        }
        for k in 0..=3 {
            by_transitions.insert(k.to_string(), Count::default());
        }
        by_subtype.insert("First Turn", Count::default());
        by_subtype.insert("Subsequent Turn", Count::default());
        for s in TurnSubtype::ALL {
            by_subtype.insert(s.as_str(), Count::default());
        }

        for o in outcomes {
            if o.incomplete {
                incomplete += 1;
                continue;
            }
            task.add(o.correct);
            let entry = sessions.entry(o.session).or_default();
            entry.0 += u32::from(o.correct);
            entry.1 += 1;
            by_type
                .entry(o.task_type.as_str())
                .or_default()
                .add(o.correct);
            if o.task_type.is_multi() {
                by_type.entry("Multi-Tool").or_default().add(o.correct);
            }
            by_position
                .entry((o.position as usize + 1).to_string())
                .or_default()
                .add(o.correct);
            by_transitions
                .entry(o.transitions.to_string())
                .or_default()
                .add(o.correct);
            if o.position == 0 {
                by_subtype.entry("First Turn").or_default().add(o.correct);
            } else {
                by_subtype
                    .entry("Subsequent Turn")
                    .or_default()
                    .add(o.correct);
                if let Some(s) = o.subtype {
                    by_subtype.entry(s.as_str()).or_default().add(o.correct);
                }
            }
            if matches!(
                o.task_type,
                TaskType::ParallelMultiTool | TaskType::MixedMultiTool
            ) {
                optimal
                    .entry(o.task_type.as_str())
                    .or_default()
                    .add(o.optimal);
                optimal.entry("Total").or_default().add(o.optimal);
            }
            if matches!(
                o.task_type,
                TaskType::SequentialMultiTool | TaskType::MixedMultiTool
            ) {
                for key in [o.task_type.as_str(), "Total"] {
                    let e = progress.entry(key).or_default();
                    e.0 += u64::from(o.steps_logged);
                    e.1 += u64::from(o.nodes_done);
                    e.2 += u64::from(o.nodes_total);
                }
            }
            if let (false, Some(label)) = (o.correct, o.error) {
                failed_labelled += 1;
                *raw.entry(label.as_str()).or_default() += 1;
                *columns.entry(label.default_column()).or_default() += 1;
            }
        }

        let session_counts: Vec<(u32, u32)> = sessions.values().copied().collect();
        let session_ok = session_counts.iter().filter(|(c, t)| c == t).count() as u64;
        let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        let total = outcomes.len() as u64;
        RunReport {
            status: RunStatus::of(task.total, total),
            tasks_scored: task.total,
            tasks_total: total,
            tasks_unscored: incomplete,
            tasks: task.total,
            sessions: session_counts.len() as u64,
            task_accuracy: task.rate(),
            task_accuracy_bootstrap95: session_bootstrap(
                &session_counts,
                BOOTSTRAP_RESAMPLES,
                BOOTSTRAP_SEED,
            ),
            session_accuracy: Rate::new(session_ok, session_counts.len() as u64),
            by_type: map_from(by_type.into_iter().map(|(k, c)| (k.to_owned(), c.rate()))),
            by_position: map_from(by_position.into_iter().map(|(k, c)| (k, c.rate()))),
            by_subtype: map_from(
                by_subtype
                    .into_iter()
                    .map(|(k, c)| (k.to_owned(), c.rate())),
            ),
            by_transitions: map_from(by_transitions.into_iter().map(|(k, c)| (k, c.rate()))),
            optimal: map_from(
                ["Total", "Parallel Multi-Tool", "Mixed Multi-Tool"].map(|k| {
                    (
                        k.to_owned(),
                        optimal.get(k).copied().unwrap_or_default().rate(),
                    )
                }),
            ),
            progress: map_from(
                ["Total", "Sequential Multi-Tool", "Mixed Multi-Tool"].map(|k| {
                    let (steps, done, nodes) = progress.get(k).copied().unwrap_or_default();
                    (
                        k.to_owned(),
                        Progress {
                            step_based: ratio(steps, nodes),
                            ap_nodes: ratio(done, nodes),
                            nodes,
                        },
                    )
                }),
            ),
            errors: ErrorBreakdown {
                mapping: taxonomy::MAPPING_VERSION.to_owned(),
                failed: failed_labelled,
                raw: map_from(raw.into_iter().map(|(k, n)| (k.to_owned(), n))),
                columns: ErrorColumn::ALL
                    .iter()
                    .map(|c| {
                        let n = columns.get(c).copied().unwrap_or(0);
                        (c.as_str().to_owned(), n, ratio(n, failed_labelled))
                    })
                    .collect(),
            },
            incomplete,
        }
    }
}

/// One outcome per task of `shapes` (dataset order): the scored outcome when there is one
/// (the first for a task given twice), else an unscored (`incomplete`) outcome. This is
/// the list a report, a share link and a run export are built from, so all of them agree
/// on `tasks_total`. Outcomes of tasks the dataset does not have are dropped.
pub fn fill_outcomes(shapes: &[TaskShape], outcomes: &[TaskOutcome]) -> Vec<TaskOutcome> {
    let mut by_key: BTreeMap<(u32, u8), &TaskOutcome> = BTreeMap::new();
    for o in outcomes {
        by_key.entry((o.session, o.position)).or_insert(o);
    }
    shapes
        .iter()
        .map(|s| match by_key.get(&(s.session, s.position)) {
            Some(o) => (*o).clone(),
            None => s.unscored(),
        })
        .collect()
}
