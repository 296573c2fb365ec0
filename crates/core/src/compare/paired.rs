//! Paired comparison of runs on the same dataset: discordant counts with an exact test,
//! session-bootstrap intervals for the differences in task and session accuracy, paired
//! per-category differences and the per-task diff table — the `compare.json` document.
//!
//! Only tasks scored in both runs are compared (the counting rule: an unscored task has
//! no outcome to pair); `dropped` says how many of the dataset's tasks were left out.
//!
//! Each task's value in a run is its pass rate over the run's scored trials — 0 or 1 for
//! a run without repeated trials. Then:
//! - `a_only` counts tasks whose pass rate is higher in A, `b_only` higher in B,
//!   `both_correct` tasks passed in every trial of both, `neither` tasks passed in no
//!   trial of either, `ties` tasks with equal rates strictly between 0 and 1 (always 0
//!   without trials). With one trial each this is the usual 2×2 table.
//! - `mcnemar_p` is the exact two-sided binomial test of `a_only` against `b_only`: the
//!   exact McNemar test with one trial each, the exact sign test on per-task pass rates
//!   with trials.
//! - Deltas are A − B of the mean per-task value (task accuracy) and of the mean
//!   per-session pass rate (session accuracy: a session passes a trial when all its tasks
//!   pass in it), over the compared tasks and sessions; intervals are 95% percentile
//!   intervals of a paired bootstrap that resamples sessions with their tasks (both runs'
//!   values move together), with a fixed seed.

use serde::{Deserialize, Serialize};

use super::boot::Units;
use super::exact::mcnemar_exact;
use super::runs::{
    check_fingerprint, unique_labels, CompareError, DatasetRef, Layout, RunInput, RunStatus, Tally,
};
use super::trials::BootstrapInfo;
use super::BootstrapOptions;
use crate::outcome::{ErrorColumn, TaskType, TurnSubtype};
use crate::report::intervals::Interval;
use crate::share::TaskShape;

/// Format tag of `compare.json`.
pub const COMPARE_FORMAT: &str = "wildtool-compare-1";

/// A difference with its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// Point estimate (A − B).
    pub estimate: f64,
    /// Paired session-bootstrap 95% interval.
    pub ci95: Interval,
}

/// A rate of each run of a pair.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PairRates {
    /// Run A's value.
    pub a: f64,
    /// Run B's value.
    pub b: f64,
}

/// The breakdowns of `report::RunReport`, compared pairwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CategoryGroup {
    /// Task type (six official types plus `Multi-Tool`).
    TaskType,
    /// Task position in the session (`"1"`–`"4"`).
    Position,
    /// Hidden-intent subtype (plus `First Turn`, `Subsequent Turn`).
    Subtype,
    /// Instruction transitions of the session (`"0"`–`"3"`).
    Transitions,
    /// Published error column: the share of compared tasks failing with it.
    ErrorClass,
}

impl CategoryGroup {
    /// Every group, in display order.
    pub const ALL: [CategoryGroup; 5] = [
        CategoryGroup::TaskType,
        CategoryGroup::Position,
        CategoryGroup::Subtype,
        CategoryGroup::Transitions,
        CategoryGroup::ErrorClass,
    ];

    /// Display title.
    pub fn title(self) -> &'static str {
        match self {
            CategoryGroup::TaskType => "Task type",
            CategoryGroup::Position => "Task position",
            CategoryGroup::Subtype => "Hidden-intent subtype",
            CategoryGroup::Transitions => "Instruction transitions",
            CategoryGroup::ErrorClass => "Error class (share of tasks)",
        }
    }

    /// Whether a higher value is better (accuracy) or worse (error share).
    pub fn higher_is_better(self) -> bool {
        !matches!(self, CategoryGroup::ErrorClass)
    }
}

/// One category's paired difference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CategoryDelta {
    /// The breakdown.
    pub group: CategoryGroup,
    /// The key `report::RunReport` uses for it.
    pub key: String,
    /// Display label.
    pub label: String,
    /// Compared tasks in the category.
    pub tasks: u64,
    /// Mean value of each run (`null` when the category has no compared task).
    pub rates: Option<PairRates>,
    /// A − B with its paired interval (`null` when the category has no compared task).
    pub delta: Option<Estimate>,
    /// Tasks whose value is higher in A.
    pub a_higher: u64,
    /// Tasks whose value is higher in B.
    pub b_higher: u64,
    /// Exact two-sided binomial test of `a_higher` against `b_higher` (not corrected for
    /// the number of categories).
    pub p: f64,
}

/// How one task compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DiffClass {
    /// Passed in every trial of both runs.
    Both,
    /// Higher pass rate in A (with one trial: A passed, B failed).
    AOnly,
    /// Higher pass rate in B (with one trial: A failed, B passed).
    BOnly,
    /// Passed in no trial of either run.
    Neither,
    /// Equal pass rates strictly between 0 and 1 (only with trials).
    Tie,
}

/// One row of the per-task diff table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskDiff {
    /// 0-based session index (the `N` of the result id `…_N`).
    pub session: u32,
    /// 0-based task position in the session.
    pub position: u8,
    /// Task type.
    pub task_type: TaskType,
    /// A's pass rate over its scored trials.
    pub a: f64,
    /// B's pass rate.
    pub b: f64,
    /// A's scored trials of this task.
    pub a_trials: u32,
    /// B's scored trials.
    pub b_trials: u32,
    /// The class.
    pub class: DiffClass,
}

/// The comparison of two runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairResult {
    /// Label of run A.
    pub a: String,
    /// Label of run B.
    pub b: String,
    /// Tasks compared (scored in both runs).
    pub tasks: u64,
    /// Tasks in the dataset.
    pub tasks_total: u64,
    /// Dataset tasks left out because one run (or both) did not score them.
    pub dropped: u64,
    /// Sessions compared (scored in both runs).
    pub sessions: u64,
    /// See [`DiffClass::Both`].
    pub both_correct: u64,
    /// See [`DiffClass::AOnly`].
    pub a_only: u64,
    /// See [`DiffClass::BOnly`].
    pub b_only: u64,
    /// See [`DiffClass::Neither`].
    pub neither: u64,
    /// See [`DiffClass::Tie`].
    pub ties: u64,
    /// Exact two-sided test of `a_only` against `b_only`.
    pub mcnemar_p: f64,
    /// Compared sessions with a higher session pass rate in A (with one trial: A passed
    /// the session, B did not).
    #[serde(default)]
    pub session_a_only: u64,
    /// Compared sessions with a higher session pass rate in B.
    #[serde(default)]
    pub session_b_only: u64,
    /// Exact two-sided test of `session_a_only` against `session_b_only` (1 when no
    /// session differs).
    #[serde(default = "no_evidence")]
    pub session_mcnemar_p: f64,
    /// Task accuracy of each run over the compared tasks.
    pub task_accuracy: PairRates,
    /// Session accuracy of each run over the compared sessions (`null` without any).
    pub session_accuracy: Option<PairRates>,
    /// A − B task accuracy.
    pub task_accuracy_delta: Estimate,
    /// A − B session accuracy (`null` without compared sessions).
    pub session_accuracy_delta: Option<Estimate>,
    /// Per-category differences.
    pub categories: Vec<CategoryDelta>,
    /// Every compared task, in dataset order.
    pub diff: Vec<TaskDiff>,
}

fn no_evidence() -> f64 {
    1.0
}

/// One run of a comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    /// Label (made unique within the comparison).
    pub label: String,
    /// Trials.
    pub trials: u32,
    /// Tasks scored in at least one trial.
    pub tasks_scored: u64,
    /// Status under the counting rule.
    pub status: RunStatus,
    /// The run's cost, when its reports carry one (set by the caller from them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<crate::cost::CostFigures>,
}

/// The dataset of a comparison.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompareDataset {
    /// Fingerprint (16 hex digits).
    pub fingerprint: String,
    /// Tasks.
    pub tasks: u64,
    /// Sessions.
    pub sessions: u64,
}

/// The statistics used, in words (shown next to the numbers).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Method {
    /// The significance test.
    pub test: String,
    /// What is compared with repeated trials.
    pub trials: String,
    /// The bootstrap.
    pub bootstrap: BootstrapInfo,
}

/// The `compare.json` document: every pair of the given runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompareDoc {
    /// [`COMPARE_FORMAT`].
    pub format: String,
    /// Scorer version.
    pub scorer: String,
    /// The dataset.
    pub dataset: CompareDataset,
    /// The runs, in the order given.
    pub runs: Vec<RunSummary>,
    /// The statistics used.
    pub method: Method,
    /// Every pair (i < j) in input order: (1, 2), (1, 3), …, (2, 3), …
    pub pairs: Vec<PairResult>,
}

impl CompareDoc {
    /// The document as pretty-printed JSON (what `compare.json` holds).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|_| "{}".to_owned())
    }
}

/// Which value of a task a category compares.
#[derive(Clone, Copy)]
enum Metric {
    Accuracy,
    Error(usize),
}

struct CategoryDef {
    group: CategoryGroup,
    key: String,
    label: String,
    member: Box<dyn Fn(&TaskShape) -> bool>,
    metric: Metric,
}

fn categories() -> Vec<CategoryDef> {
    let mut out: Vec<CategoryDef> = Vec::new();
    for t in TaskType::ALL {
        out.push(CategoryDef {
            group: CategoryGroup::TaskType,
            key: t.as_str().to_owned(),
            label: t.as_str().to_owned(),
            member: Box::new(move |s: &TaskShape| s.task_type == t),
            metric: Metric::Accuracy,
        });
    }
    out.push(CategoryDef {
        group: CategoryGroup::TaskType,
        key: "Multi-Tool".to_owned(),
        label: "Multi-Tool".to_owned(),
        member: Box::new(|s: &TaskShape| s.task_type.is_multi()),
        metric: Metric::Accuracy,
    });
    for p in 0..4u8 {
        out.push(CategoryDef {
            group: CategoryGroup::Position,
            key: (p + 1).to_string(),
            label: format!("Task {}", p + 1),
            member: Box::new(move |s: &TaskShape| s.position == p),
            metric: Metric::Accuracy,
        });
    }
    out.push(CategoryDef {
        group: CategoryGroup::Subtype,
        key: "First Turn".to_owned(),
        label: "First Turn".to_owned(),
        member: Box::new(|s: &TaskShape| s.position == 0),
        metric: Metric::Accuracy,
    });
    out.push(CategoryDef {
        group: CategoryGroup::Subtype,
        key: "Subsequent Turn".to_owned(),
        label: "Subsequent Turn".to_owned(),
        member: Box::new(|s: &TaskShape| s.position > 0),
        metric: Metric::Accuracy,
    });
    for st in TurnSubtype::ALL {
        out.push(CategoryDef {
            group: CategoryGroup::Subtype,
            key: st.as_str().to_owned(),
            label: st.as_str().to_owned(),
            member: Box::new(move |s: &TaskShape| s.position > 0 && s.subtype == Some(st)),
            metric: Metric::Accuracy,
        });
    }
    for k in 0..4u8 {
        out.push(CategoryDef {
            group: CategoryGroup::Transitions,
            key: k.to_string(),
            label: format!("{k} transition{}", if k == 1 { "" } else { "s" }),
            member: Box::new(move |s: &TaskShape| s.transitions == k),
            metric: Metric::Accuracy,
        });
    }
    for (i, col) in ErrorColumn::ALL.iter().enumerate() {
        out.push(CategoryDef {
            group: CategoryGroup::ErrorClass,
            key: col.as_str().to_owned(),
            label: col.as_str().to_owned(),
            member: Box::new(|_: &TaskShape| true),
            metric: Metric::Error(i),
        });
    }
    out
}

fn classify(a: f64, b: f64) -> DiffClass {
    if a > b {
        DiffClass::AOnly
    } else if b > a {
        DiffClass::BOnly
    } else if a >= 1.0 {
        DiffClass::Both
    } else if a <= 0.0 {
        DiffClass::Neither
    } else {
        DiffClass::Tie
    }
}

/// Compares two tallied runs on one layout.
fn compare_tallies(
    ta: &Tally,
    tb: &Tally,
    layout: &Layout<'_>,
    opts: &BootstrapOptions,
) -> Result<PairResult, CompareError> {
    let cats = categories();
    // Units: sessions with at least one compared task or compared as a session.
    let mut unit_of_session: Vec<Option<usize>> = vec![None; layout.sessions.len()];
    let mut units_len = 0usize;
    for (s, members) in layout.sessions.iter().enumerate() {
        let any_task = members
            .iter()
            .any(|&i| ta.rate(i).is_some() && tb.rate(i).is_some());
        let session = ta.session_rate(s).is_some() && tb.session_rate(s).is_some();
        if any_task || session {
            if let Some(slot) = unit_of_session.get_mut(s) {
                *slot = Some(units_len);
            }
            units_len += 1;
        }
    }
    // Slots: 0 task delta, 1 session delta, 2 + c category deltas; a and b means are
    // plain sums kept beside.
    let slots = 2 + cats.len();
    let mut units = Units::new(units_len, slots);
    let mut sums_a = vec![0.0f64; slots];
    let mut sums_b = vec![0.0f64; slots];
    let mut counts = vec![0u64; slots];
    let mut higher = vec![(0u64, 0u64); slots];
    let mut diff = Vec::new();
    let (mut both, mut a_only, mut b_only, mut neither, mut ties) = (0u64, 0, 0, 0, 0);

    let mut record = |slot: usize, unit: usize, a: f64, b: f64| {
        units.add(unit, slot, a - b);
        if let (Some(sa), Some(sb), Some(c), Some(h)) = (
            sums_a.get_mut(slot),
            sums_b.get_mut(slot),
            counts.get_mut(slot),
            higher.get_mut(slot),
        ) {
            *sa += a;
            *sb += b;
            *c += 1;
            if a > b {
                h.0 += 1;
            } else if b > a {
                h.1 += 1;
            }
        }
    };

    for (i, shape) in layout.shapes.iter().enumerate() {
        let (Some(ra), Some(rb)) = (ta.rate(i), tb.rate(i)) else {
            continue;
        };
        let session = layout.session_of.get(i).copied().unwrap_or(0);
        let Some(unit) = unit_of_session.get(session).copied().flatten() else {
            continue;
        };
        let class = classify(ra, rb);
        match class {
            DiffClass::Both => both += 1,
            DiffClass::AOnly => a_only += 1,
            DiffClass::BOnly => b_only += 1,
            DiffClass::Neither => neither += 1,
            DiffClass::Tie => ties += 1,
        }
        diff.push(TaskDiff {
            session: shape.session,
            position: shape.position,
            task_type: shape.task_type,
            a: ra,
            b: rb,
            a_trials: ta.n.get(i).copied().unwrap_or(0),
            b_trials: tb.n.get(i).copied().unwrap_or(0),
            class,
        });
        record(0, unit, ra, rb);
        for (c, def) in cats.iter().enumerate() {
            if !(def.member)(shape) {
                continue;
            }
            let (va, vb) = match def.metric {
                Metric::Accuracy => (ra, rb),
                Metric::Error(k) => (
                    ta.error_rate(i, k).unwrap_or(0.0),
                    tb.error_rate(i, k).unwrap_or(0.0),
                ),
            };
            record(2 + c, unit, va, vb);
        }
    }
    for s in 0..layout.sessions.len() {
        if let (Some(ra), Some(rb), Some(unit)) = (
            ta.session_rate(s),
            tb.session_rate(s),
            unit_of_session.get(s).copied().flatten(),
        ) {
            record(1, unit, ra, rb);
        }
    }
    let tasks = counts.first().copied().unwrap_or(0);
    if tasks == 0 {
        return Err(CompareError::NothingInCommon {
            a: ta.label.clone(),
            b: tb.label.clone(),
        });
    }
    let estimates = units.estimates();
    let intervals = units.bootstrap(opts.resamples, opts.seed, opts.level);
    let estimate = |slot: usize| -> Option<Estimate> {
        let e = estimates.get(slot).copied().flatten()?;
        let ci95 = intervals.get(slot).copied().flatten()?;
        Some(Estimate { estimate: e, ci95 })
    };
    let rates = |slot: usize| -> Option<PairRates> {
        let n = counts.get(slot).copied().filter(|n| *n > 0)? as f64;
        Some(PairRates {
            a: sums_a.get(slot).copied().unwrap_or(0.0) / n,
            b: sums_b.get(slot).copied().unwrap_or(0.0) / n,
        })
    };
    let session_higher = higher.get(1).copied().unwrap_or((0, 0));
    let task_accuracy_delta = estimate(0).ok_or_else(|| CompareError::NothingInCommon {
        a: ta.label.clone(),
        b: tb.label.clone(),
    })?;
    let categories = cats
        .iter()
        .enumerate()
        .map(|(c, def)| {
            let slot = 2 + c;
            let (ah, bh) = higher.get(slot).copied().unwrap_or((0, 0));
            CategoryDelta {
                group: def.group,
                key: def.key.clone(),
                label: def.label.clone(),
                tasks: counts.get(slot).copied().unwrap_or(0),
                rates: rates(slot),
                delta: estimate(slot),
                a_higher: ah,
                b_higher: bh,
                p: mcnemar_exact(ah, bh),
            }
        })
        .collect();
    Ok(PairResult {
        a: ta.label.clone(),
        b: tb.label.clone(),
        tasks,
        tasks_total: layout.tasks() as u64,
        dropped: layout.tasks() as u64 - tasks,
        sessions: counts.get(1).copied().unwrap_or(0),
        both_correct: both,
        a_only,
        b_only,
        neither,
        ties,
        mcnemar_p: mcnemar_exact(a_only, b_only),
        session_a_only: session_higher.0,
        session_b_only: session_higher.1,
        session_mcnemar_p: mcnemar_exact(session_higher.0, session_higher.1),
        task_accuracy: rates(0).unwrap_or(PairRates { a: 0.0, b: 0.0 }),
        session_accuracy: rates(1),
        task_accuracy_delta,
        session_accuracy_delta: estimate(1),
        categories,
        diff,
    })
}

fn tallies(
    runs: &[RunInput],
    dataset: &DatasetRef<'_>,
    layout: &Layout<'_>,
) -> Result<Vec<Tally>, CompareError> {
    let labels = unique_labels(&runs.iter().map(|r| r.label.clone()).collect::<Vec<_>>());
    runs.iter()
        .zip(labels)
        .map(|(run, label)| {
            check_fingerprint(run, dataset)?;
            let mut t = Tally::new(run, layout)?;
            t.label = label;
            if t.tasks_scored() == 0 {
                return Err(CompareError::NothingScored { label: t.label });
            }
            Ok(t)
        })
        .collect()
}

/// Compares two runs (A − B). Both must carry the dataset's fingerprint.
pub fn compare_pair(
    a: &RunInput,
    b: &RunInput,
    dataset: DatasetRef<'_>,
    opts: &BootstrapOptions,
) -> Result<PairResult, CompareError> {
    let layout = Layout::new(dataset.shapes);
    let t = tallies(&[a.clone(), b.clone()], &dataset, &layout)?;
    match t.as_slice() {
        [ta, tb] => compare_tallies(ta, tb, &layout, opts),
        _ => Err(CompareError::TooFewRuns { found: t.len() }),
    }
}

/// Compares every pair of `runs` (at least two) on `dataset`: the `compare.json` document.
/// Repeated labels get ` (2)`, ` (3)` … appended.
pub fn compare_runs(
    runs: &[RunInput],
    dataset: DatasetRef<'_>,
    opts: &BootstrapOptions,
) -> Result<CompareDoc, CompareError> {
    if runs.len() < 2 {
        return Err(CompareError::TooFewRuns { found: runs.len() });
    }
    let layout = Layout::new(dataset.shapes);
    let t = tallies(runs, &dataset, &layout)?;
    let mut pairs = Vec::new();
    for (i, ta) in t.iter().enumerate() {
        for tb in t.iter().skip(i + 1) {
            pairs.push(compare_tallies(ta, tb, &layout, opts)?);
        }
    }
    Ok(CompareDoc {
        format: COMPARE_FORMAT.to_owned(),
        scorer: crate::SCORER_VERSION.to_owned(),
        dataset: CompareDataset {
            fingerprint: format!("{:016x}", dataset.fingerprint),
            tasks: layout.tasks() as u64,
            sessions: layout.sessions.len() as u64,
        },
        runs: t
            .iter()
            .map(|t| RunSummary {
                label: t.label.clone(),
                trials: t.trials,
                tasks_scored: t.tasks_scored() as u64,
                status: t.status(),
                cost: None,
            })
            .collect(),
        method: Method {
            test: "exact two-sided binomial test on the tasks where the runs differ (McNemar's exact test; with repeated trials, the sign test on per-task pass rates)".to_owned(),
            trials: "each task's value is its pass rate over the run's scored trials; a session's value is the share of trials in which all its tasks passed".to_owned(),
            bootstrap: BootstrapInfo::of(opts),
        },
        pairs,
    })
}
