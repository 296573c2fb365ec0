//! Repeated trials: pass^k (τ²-bench), pass@k, the session form of pass^k, per-task
//! consistency and their session-bootstrap intervals — the `trials.json` document.
//!
//! For a task scored in `n` trials of which `c` passed:
//! - pass^j = C(c, j) / C(n, j): the chance that `j` of its trials drawn without
//!   replacement all passed (0 when `j > c`);
//! - pass@j = 1 − C(n − c, j) / C(n, j): the chance that at least one of them passed.
//!
//! The run's value for `j` is the mean over the tasks with at least `j` scored trials.
//! A task with fewer than `j` scored trials (a trial that never finished for it, for
//! example after an interrupted resume) has no defined value for that `j` and is left out
//! of that `j`'s mean — never counted as a failure or a success; `tasks_per_j` says how
//! many tasks each value averages. A session passes a trial when it was scored in that
//! trial (all its tasks finished) and all its tasks passed; `session_pass_hat_k` applies
//! the same formula to sessions.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::boot::Units;
use super::byj::ByJ;
use super::exact::{all_pass_ratio, any_pass_ratio};
use super::runs::{
    check_fingerprint, CompareError, DatasetRef, Layout, RunInput, RunStatus, Tally,
};
use super::BootstrapOptions;
use crate::outcome::TaskType;
use crate::report::intervals::Interval;

/// Format tag of `trials.json`.
pub const TRIALS_FORMAT: &str = "wildtool-trials-1";

/// Tasks that passed in all, some or none of their scored trials.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Consistency {
    /// Passed in every scored trial.
    pub all: u64,
    /// Passed in some but not all.
    pub some: u64,
    /// Passed in none.
    pub none: u64,
}

impl Consistency {
    fn add(&mut self, c: u32, n: u32) {
        if n == 0 {
            return;
        }
        if c == n {
            self.all += 1;
        } else if c == 0 {
            self.none += 1;
        } else {
            self.some += 1;
        }
    }
}

/// Consistency overall and by task type.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ConsistencyBreakdown {
    /// Over every task scored at least once.
    pub overall: Consistency,
    /// Per task type (official names, every type present).
    pub by_type: BTreeMap<String, Consistency>,
}

/// How the intervals were computed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BootstrapInfo {
    /// The resampled unit (`"session"`).
    pub unit: String,
    /// Number of resamples.
    pub resamples: u64,
    /// Random seed (SplitMix64).
    pub seed: u64,
    /// Interval kind.
    pub interval: String,
}

impl BootstrapInfo {
    pub(crate) fn of(opts: &BootstrapOptions) -> Self {
        BootstrapInfo {
            unit: "session".to_owned(),
            resamples: opts.resamples as u64,
            seed: opts.seed,
            interval: format!("{} percentile", level_percent(opts.level)),
        }
    }
}

/// A confidence level as a percentage: `95%`, `99%`, `97.5%`.
pub(crate) fn level_percent(level: f64) -> String {
    let pct = level * 100.0;
    if (pct - pct.round()).abs() < 1e-9 {
        format!("{:.0}%", pct.round())
    } else {
        format!("{pct}%")
    }
}

/// The `trials.json` document of a run with repeated trials.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrialsDoc {
    /// [`TRIALS_FORMAT`].
    pub format: String,
    /// Scorer version of the outcomes.
    pub scorer: String,
    /// Run label.
    pub label: String,
    /// Dataset fingerprint (16 hex digits).
    pub dataset_fingerprint: String,
    /// Tasks in the dataset.
    pub tasks: u64,
    /// Trials run (k).
    pub trials: u32,
    /// Tasks scored in at least one trial.
    pub tasks_scored: u64,
    /// Sessions in the dataset.
    pub sessions: u64,
    /// Sessions scored in at least one trial.
    pub sessions_scored: u64,
    /// `done` when every task was scored in every trial, `partial` otherwise (`failed`
    /// when nothing was scored; then every rate is `null`).
    pub status: RunStatus,
    /// Number of tasks by how many trials scored them (`{"3": 250, "2": 6}`; tasks never
    /// scored are under `"0"`).
    pub tasks_by_trial_count: BTreeMap<u32, u64>,
    /// Task accuracy of each trial over the tasks scored in it (`null` when none).
    pub task_accuracy_by_trial: Vec<Option<f64>>,
    /// pass^j for j = 1..=k (`null` when no task has j scored trials).
    pub pass_hat_k: ByJ<Option<f64>>,
    /// pass@j for j = 1..=k.
    pub pass_at_k: ByJ<Option<f64>>,
    /// Session pass^j for j = 1..=k.
    pub session_pass_hat_k: ByJ<Option<f64>>,
    /// Tasks averaged into pass^j and pass@j (tasks with at least j scored trials).
    pub tasks_per_j: ByJ<u64>,
    /// Sessions averaged into session pass^j.
    pub sessions_per_j: ByJ<u64>,
    /// Session-bootstrap 95% intervals of pass^j.
    pub pass_hat_k_ci95: ByJ<Option<Interval>>,
    /// Session-bootstrap 95% intervals of pass@j.
    pub pass_at_k_ci95: ByJ<Option<Interval>>,
    /// Session-bootstrap 95% intervals of session pass^j.
    pub session_pass_hat_k_ci95: ByJ<Option<Interval>>,
    /// Tasks that passed in all / some / none of their scored trials.
    pub consistency: ConsistencyBreakdown,
    /// How the intervals were computed.
    pub bootstrap: BootstrapInfo,
}

impl TrialsDoc {
    /// The document as pretty-printed JSON (what `trials.json` holds).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|_| "{}".to_owned())
    }
}

/// Builds the `trials.json` document from a run's per-trial outcome lists.
///
/// `run.trials[t]` holds the outcomes of trial `t + 1` (see [`RunInput`] for what counts
/// as scored). The run's fingerprint must be the dataset's.
pub fn trials_report(
    run: &RunInput,
    dataset: DatasetRef<'_>,
    opts: &BootstrapOptions,
) -> Result<TrialsDoc, CompareError> {
    check_fingerprint(run, &dataset)?;
    let layout = Layout::new(dataset.shapes);
    let tally = Tally::new(run, &layout)?;
    let k = tally.trials as usize;

    // Slots: pass^j (0..k), pass@j (k..2k), session pass^j (2k..3k).
    let mut units = Units::new(layout.sessions.len(), 3 * k);
    let mut tasks_per_j = vec![0u64; k];
    let mut sessions_per_j = vec![0u64; k];
    let mut consistency = ConsistencyBreakdown {
        overall: Consistency::default(),
        by_type: TaskType::ALL
            .iter()
            .map(|t| (t.as_str().to_owned(), Consistency::default()))
            .collect(),
    };
    let mut by_count: BTreeMap<u32, u64> = BTreeMap::new();
    for (i, shape) in dataset.shapes.iter().enumerate() {
        let (n, c) = (
            tally.n.get(i).copied().unwrap_or(0),
            tally.c.get(i).copied().unwrap_or(0),
        );
        *by_count.entry(n).or_default() += 1;
        consistency.overall.add(c, n);
        if let Some(entry) = consistency.by_type.get_mut(shape.task_type.as_str()) {
            entry.add(c, n);
        }
        let unit = layout.session_of.get(i).copied().unwrap_or(0);
        for j in 1..=k {
            let jj = j as u32;
            if let (Some(hat), Some(at)) = (all_pass_ratio(c, n, jj), any_pass_ratio(c, n, jj)) {
                units.add(unit, j - 1, hat);
                units.add(unit, k + j - 1, at);
                if let Some(slot) = tasks_per_j.get_mut(j - 1) {
                    *slot += 1;
                }
            }
        }
    }
    for s in 0..layout.sessions.len() {
        let (n, c) = (
            tally.session_n.get(s).copied().unwrap_or(0),
            tally.session_c.get(s).copied().unwrap_or(0),
        );
        for j in 1..=k {
            if let Some(hat) = all_pass_ratio(c, n, j as u32) {
                units.add(s, 2 * k + j - 1, hat);
                if let Some(slot) = sessions_per_j.get_mut(j - 1) {
                    *slot += 1;
                }
            }
        }
    }
    let estimates = units.estimates();
    let intervals = units.bootstrap(opts.resamples, opts.seed, opts.level);
    let slice = |from: usize| -> ByJ<Option<f64>> {
        ByJ((from..from + k)
            .map(|i| estimates.get(i).copied().flatten())
            .collect())
    };
    let slice_ci = |from: usize| -> ByJ<Option<Interval>> {
        ByJ((from..from + k)
            .map(|i| intervals.get(i).copied().flatten())
            .collect())
    };

    let task_accuracy_by_trial = run
        .trials
        .iter()
        .map(|list| {
            let single = RunInput {
                label: String::new(),
                fingerprint: run.fingerprint,
                trials: vec![list.clone()],
            };
            let t = Tally::new(&single, &layout).ok()?;
            let scored: u32 = t.n.iter().sum();
            (scored > 0).then(|| f64::from(t.c.iter().sum::<u32>()) / f64::from(scored))
        })
        .collect();

    Ok(TrialsDoc {
        format: TRIALS_FORMAT.to_owned(),
        scorer: crate::SCORER_VERSION.to_owned(),
        label: run.label.clone(),
        dataset_fingerprint: format!("{:016x}", dataset.fingerprint),
        tasks: dataset.shapes.len() as u64,
        trials: tally.trials,
        tasks_scored: tally.tasks_scored() as u64,
        sessions: layout.sessions.len() as u64,
        sessions_scored: tally.session_n.iter().filter(|n| **n > 0).count() as u64,
        status: tally.status(),
        tasks_by_trial_count: by_count,
        task_accuracy_by_trial,
        pass_hat_k: slice(0),
        pass_at_k: slice(k),
        session_pass_hat_k: slice(2 * k),
        tasks_per_j: ByJ(tasks_per_j),
        sessions_per_j: ByJ(sessions_per_j),
        pass_hat_k_ci95: slice_ci(0),
        pass_at_k_ci95: slice_ci(k),
        session_pass_hat_k_ci95: slice_ci(2 * k),
        consistency,
        bootstrap: BootstrapInfo::of(opts),
    })
}
