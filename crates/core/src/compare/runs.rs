//! A run as the statistics see it: per-task pass counts over its trials, aligned with
//! the dataset's tasks, and the checks that make two runs comparable.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::outcome::{ErrorColumn, TaskOutcome};
use crate::share::TaskShape;

/// Largest number of trials of one run.
pub const MAX_TRIALS: usize = 1_000;

/// One run: its label, the fingerprint of the dataset it was scored on, and its outcomes
/// per trial.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunInput {
    /// Label shown for the run (model name or a user's name for it).
    pub label: String,
    /// Fingerprint of the dataset the run was scored on.
    pub fingerprint: u64,
    /// One outcome list per trial (a run without repeated trials has one). A list may hold
    /// every dataset task (unscored ones marked `incomplete`) or only the scored ones: a
    /// task that is absent or incomplete in a trial is unscored in that trial. When a list
    /// holds a task twice, the first entry counts.
    pub trials: Vec<Vec<TaskOutcome>>,
}

/// The dataset runs are compared on: its fingerprint and its tasks in dataset order.
#[derive(Debug, Clone, Copy)]
pub struct DatasetRef<'a> {
    /// Fingerprint of the dataset text.
    pub fingerprint: u64,
    /// Every task of the dataset (see `share::task_shapes`).
    pub shapes: &'a [TaskShape],
}

/// Why runs cannot be summarised or compared.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompareError {
    /// A run was scored on another dataset.
    #[error("run \"{label}\" was scored on a different dataset (fingerprint {run:016x}) than the one given (fingerprint {dataset:016x}); runs can only be compared on the same dataset file")]
    FingerprintMismatch {
        /// The run's label.
        label: String,
        /// The run's dataset fingerprint.
        run: u64,
        /// The dataset's fingerprint.
        dataset: u64,
    },
    /// Fewer than two runs.
    #[error("a comparison needs at least two runs ({found} given)")]
    TooFewRuns {
        /// Runs given.
        found: usize,
    },
    /// A run has no trials or too many.
    #[error("run \"{label}\" has {trials} trials (1 to {MAX_TRIALS} are accepted)")]
    BadTrialCount {
        /// The run's label.
        label: String,
        /// Trials found.
        trials: usize,
    },
    /// An outcome names a task the dataset does not have.
    #[error("run \"{label}\" has a result for session {session}, task {task}, which the dataset does not have")]
    UnknownTask {
        /// The run's label.
        label: String,
        /// 0-based session index.
        session: u32,
        /// 1-based task number.
        task: u32,
    },
    /// An outcome disagrees with the dataset about a task's static facts.
    #[error("run \"{label}\": session {session}, task {task} has another type, subtype, transition count or node count than in the dataset")]
    ShapeMismatch {
        /// The run's label.
        label: String,
        /// 0-based session index.
        session: u32,
        /// 1-based task number.
        task: u32,
    },
    /// Nothing of a run was scored: it has no rates to compare.
    #[error("run \"{label}\" has no scored task (a failed run has no rates to compare)")]
    NothingScored {
        /// The run's label.
        label: String,
    },
    /// Two runs have no scored task in common.
    #[error("runs \"{a}\" and \"{b}\" have no scored task in common")]
    NothingInCommon {
        /// First run.
        a: String,
        /// Second run.
        b: String,
    },
}

/// Run status under the counting rule (for several trials: `done` when every task is
/// scored in every trial).
pub use crate::report::RunStatus;

/// The dataset's sessions and tasks as index tables.
#[derive(Debug, Clone)]
pub(crate) struct Layout<'a> {
    pub(crate) shapes: &'a [TaskShape],
    /// Session (dataset order of first appearance) of each task.
    pub(crate) session_of: Vec<usize>,
    /// Task indices of each session.
    pub(crate) sessions: Vec<Vec<usize>>,
    index: HashMap<(u32, u8), usize>,
}

impl<'a> Layout<'a> {
    pub(crate) fn new(shapes: &'a [TaskShape]) -> Self {
        let mut index = HashMap::with_capacity(shapes.len());
        let mut session_index: HashMap<u32, usize> = HashMap::new();
        let mut sessions: Vec<Vec<usize>> = Vec::new();
        let mut session_of = Vec::with_capacity(shapes.len());
        for (i, s) in shapes.iter().enumerate() {
            index.entry((s.session, s.position)).or_insert(i);
            let next = sessions.len();
            let si = *session_index.entry(s.session).or_insert(next);
            if si == next {
                sessions.push(Vec::new());
            }
            if let Some(list) = sessions.get_mut(si) {
                list.push(i);
            }
            session_of.push(si);
        }
        Layout {
            shapes,
            session_of,
            sessions,
            index,
        }
    }

    pub(crate) fn tasks(&self) -> usize {
        self.shapes.len()
    }

    /// Dataset index of task `position` of session `session` (first occurrence).
    pub(crate) fn index_of(&self, session: u32, position: u8) -> Option<usize> {
        self.index.get(&(session, position)).copied()
    }
}

/// One run's per-task and per-session counts over its trials.
#[derive(Debug, Clone)]
pub(crate) struct Tally {
    pub(crate) label: String,
    pub(crate) trials: u32,
    /// Trials in which each task was scored.
    pub(crate) n: Vec<u32>,
    /// Trials in which each task passed.
    pub(crate) c: Vec<u32>,
    /// Trials in which each task failed with each published error column.
    pub(crate) errors: Vec<[u32; 9]>,
    /// Trials in which each session was scored (all its tasks scored).
    pub(crate) session_n: Vec<u32>,
    /// Trials in which each session passed (all its tasks correct).
    pub(crate) session_c: Vec<u32>,
}

fn column_index(col: ErrorColumn) -> usize {
    ErrorColumn::ALL.iter().position(|c| *c == col).unwrap_or(0)
}

impl Tally {
    /// Counts `run` against the dataset layout (the fingerprint is checked by the caller).
    pub(crate) fn new(run: &RunInput, layout: &Layout<'_>) -> Result<Self, CompareError> {
        let trials = run.trials.len();
        if trials == 0 || trials > MAX_TRIALS {
            return Err(CompareError::BadTrialCount {
                label: run.label.clone(),
                trials,
            });
        }
        let tasks = layout.tasks();
        let mut tally = Tally {
            label: run.label.clone(),
            trials: trials as u32,
            n: vec![0; tasks],
            c: vec![0; tasks],
            errors: vec![[0; 9]; tasks],
            session_n: vec![0; layout.sessions.len()],
            session_c: vec![0; layout.sessions.len()],
        };
        let mut seen = vec![false; tasks];
        let mut passed = vec![false; tasks];
        for list in &run.trials {
            seen.iter_mut().for_each(|s| *s = false);
            passed.iter_mut().for_each(|p| *p = false);
            for o in list {
                let Some(&i) = layout.index.get(&(o.session, o.position)) else {
                    return Err(CompareError::UnknownTask {
                        label: run.label.clone(),
                        session: o.session,
                        task: u32::from(o.position) + 1,
                    });
                };
                let shape = layout.shapes.get(i);
                if !shape.is_some_and(|s| s.matches(o)) {
                    return Err(CompareError::ShapeMismatch {
                        label: run.label.clone(),
                        session: o.session,
                        task: u32::from(o.position) + 1,
                    });
                }
                if o.incomplete || seen.get(i).copied().unwrap_or(true) {
                    continue;
                }
                if let Some(s) = seen.get_mut(i) {
                    *s = true;
                }
                if let Some(p) = passed.get_mut(i) {
                    *p = o.correct;
                }
                if let Some(n) = tally.n.get_mut(i) {
                    *n += 1;
                }
                if o.correct {
                    if let Some(c) = tally.c.get_mut(i) {
                        *c += 1;
                    }
                } else if let Some(label) = o.error {
                    if let Some(slot) = tally
                        .errors
                        .get_mut(i)
                        .and_then(|e| e.get_mut(column_index(label.default_column())))
                    {
                        *slot += 1;
                    }
                }
            }
            for (si, members) in layout.sessions.iter().enumerate() {
                let scored = members
                    .iter()
                    .all(|&t| seen.get(t).copied().unwrap_or(false));
                if scored {
                    if let Some(n) = tally.session_n.get_mut(si) {
                        *n += 1;
                    }
                    if members
                        .iter()
                        .all(|&t| passed.get(t).copied().unwrap_or(false))
                    {
                        if let Some(c) = tally.session_c.get_mut(si) {
                            *c += 1;
                        }
                    }
                }
            }
        }
        Ok(tally)
    }

    /// Tasks scored in at least one trial.
    pub(crate) fn tasks_scored(&self) -> usize {
        self.n.iter().filter(|n| **n > 0).count()
    }

    /// Status under the counting rule.
    pub(crate) fn status(&self) -> RunStatus {
        let scored = self.tasks_scored();
        if scored == 0 {
            RunStatus::Failed
        } else if self.n.iter().all(|n| *n == self.trials) {
            RunStatus::Done
        } else {
            RunStatus::Partial
        }
    }

    /// Pass rate of task `i` over its scored trials (`None` when never scored).
    pub(crate) fn rate(&self, i: usize) -> Option<f64> {
        let n = self.n.get(i).copied().unwrap_or(0);
        (n > 0).then(|| f64::from(self.c.get(i).copied().unwrap_or(0)) / f64::from(n))
    }

    /// Share of task `i`'s scored trials that failed with error column `k`.
    pub(crate) fn error_rate(&self, i: usize, k: usize) -> Option<f64> {
        let n = self.n.get(i).copied().unwrap_or(0);
        (n > 0).then(|| {
            f64::from(
                self.errors
                    .get(i)
                    .and_then(|e| e.get(k))
                    .copied()
                    .unwrap_or(0),
            ) / f64::from(n)
        })
    }

    /// Session pass rate over the trials in which session `s` was scored.
    pub(crate) fn session_rate(&self, s: usize) -> Option<f64> {
        let n = self.session_n.get(s).copied().unwrap_or(0);
        (n > 0).then(|| f64::from(self.session_c.get(s).copied().unwrap_or(0)) / f64::from(n))
    }
}

/// Checks a run's fingerprint against the dataset's.
pub(crate) fn check_fingerprint(
    run: &RunInput,
    dataset: &DatasetRef<'_>,
) -> Result<(), CompareError> {
    if run.fingerprint == dataset.fingerprint {
        Ok(())
    } else {
        Err(CompareError::FingerprintMismatch {
            label: run.label.clone(),
            run: run.fingerprint,
            dataset: dataset.fingerprint,
        })
    }
}

/// Makes labels unique by appending ` (2)`, ` (3)` … to repeats, in order.
pub fn unique_labels(labels: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(labels.len());
    for label in labels {
        let mut candidate = label.clone();
        let mut k = 2;
        while out.contains(&candidate) {
            candidate = format!("{label} ({k})");
            k += 1;
        }
        out.push(candidate);
    }
    out
}
