//! Sweeps: one generated suite per level of one factor, every other factor held fixed
//! and the sessions paired across levels, each level run and scored; then accuracy
//! against the level with 95% intervals and a test for trend over the paired sessions.
//!
//! Pure: [`plan::SweepPlan`] says what to generate, the front doors run every level
//! (the CLI's `wildtool sweep`, the page's Sweep view) and hand the scored outcomes to
//! [`analyse`], which returns the typed [`SweepDoc`] (`sweep.json`); [`html`] draws the
//! table, the chart and the trend test from it for the terminal, `sweep.html` and the page.
//!
//! Counting follows the report's rule: only scored tasks count. Per level, task accuracy
//! has a 95% percentile interval from resampling sessions (tasks of a session share
//! context) and session accuracy a Wilson interval. The trend test ([`trend`]) uses the
//! paired sessions scored at every level.

pub mod env;
pub mod html;
pub mod plan;
pub mod trend;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::generate::GenerateError;
use crate::outcome::TaskOutcome;
use crate::report::intervals::{session_bootstrap, Interval};
use crate::report::{Rate, RunStatus, BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED};

pub use plan::SweepPlan;
pub use trend::{trend_test, Trend, TrendOptions};

/// The `sweep.json` version this build writes.
pub const SWEEP_VERSION: u64 = 1;

/// Why a sweep cannot be planned or its document read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SweepError {
    /// The factor, its levels or the fixed factors are unusable.
    #[error("{0}")]
    Plan(String),
    /// A level's suite cannot be generated.
    #[error(transparent)]
    Generate(GenerateError),
    /// A `sweep.json` that cannot be read.
    #[error("sweep.json: {0}")]
    Document(String),
}

/// One level's runs, as the front door scored them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LevelInput {
    /// The level's value (as given).
    pub value: String,
    /// The level's directory or label.
    pub dir: String,
    /// The fingerprint of the level's dataset (16 hex digits).
    pub fingerprint: String,
    /// The outcomes of every trial, one outcome per task of the level's dataset (unscored
    /// ones marked `incomplete`, see `report::fill_outcomes`); empty when the level was not
    /// run.
    pub trials: Vec<Vec<TaskOutcome>>,
    /// Ledger-environment levels: each trial's `ledger_env` metrics ([`env`]); empty for
    /// official levels.
    pub env_metrics: Vec<serde_json::Value>,
}

/// Everything [`analyse`] needs.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepInput<'a> {
    /// What was swept.
    pub plan: &'a SweepPlan,
    /// The model (or agent) label.
    pub model: String,
    /// One entry per level of the plan, in its order.
    pub levels: Vec<LevelInput>,
}

/// One level of a sweep, counted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LevelSummary {
    /// The level's value.
    pub value: String,
    /// Its score in the trend test.
    pub score: f64,
    /// Its directory (CLI) or label.
    pub dir: String,
    /// Its dataset's fingerprint.
    pub fingerprint: String,
    /// `done`, `partial`, `failed` (nothing scored) or `not run`.
    pub status: String,
    /// Trials run.
    pub trials: u64,
    /// Tasks scored (all trials).
    pub tasks_scored: u64,
    /// Tasks run (all trials).
    pub tasks_total: u64,
    /// Task accuracy over scored tasks (`None` when nothing was scored).
    pub task_accuracy: Option<f64>,
    /// 95% interval of task accuracy, resampling sessions (trials of a session together).
    pub task_ci95: Option<Interval>,
    /// Session accuracy (every task correct) over complete sessions of every trial, with
    /// its Wilson interval.
    pub session_accuracy: Option<Rate>,
    /// Ledger-environment levels: each trial's `ledger_env` metrics (absent for official
    /// levels).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env_metrics: Vec<serde_json::Value>,
}

/// `sweep.json`: a sweep's levels, their accuracy and the test for trend.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepDoc {
    /// Format marker and version ([`SWEEP_VERSION`]).
    pub wildtool_sweep: u64,
    /// The scorer version string.
    pub scorer: String,
    /// `ledger-env` when the levels ran in the ledger environment (an extension; absent
    /// for official sweeps).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// The swept factor.
    pub factor: String,
    /// The suite every level shares, as `name=value` text (seed, sessions per level, the
    /// factors held fixed).
    pub suite: String,
    /// The model (or agent) label.
    pub model: String,
    /// `done` (every level done), `partial` or `failed` (nothing scored).
    pub status: String,
    /// The levels in order.
    pub levels: Vec<LevelSummary>,
    /// Paired sessions (blocks) in the plan: the largest session count of a level.
    pub blocks_total: u64,
    /// The test for trend (`None` with fewer than two blocks scored at every level).
    pub trend: Option<Trend>,
    /// Notes for readers.
    pub notes: Vec<String>,
}

/// The notes every sweep document carries.
pub const NOTES: [&str; 4] = [
    "Every rate is over scored tasks; a level that is partial is counted over what was scored.",
    "Task-accuracy intervals resample sessions (their tasks share context); session-accuracy intervals are Wilson intervals.",
    "The trend test uses the paired sessions scored at every level; sessions of a level are paired with the same session index of every other level (same domain, date, distractors and topology draws).",
    "Generated suites support comparisons between levels and between models on the same suites, not claims about absolute real-world difficulty.",
];

#[derive(Default, Clone, Copy)]
struct SessionCount {
    correct: u32,
    scored: u32,
}

/// Counts every level and runs the trend test (`opts`: its permutations, resamples and
/// seed). Deterministic.
pub fn analyse(input: &SweepInput<'_>, opts: TrendOptions) -> SweepDoc {
    let scores = input.plan.scores();
    let mut levels = Vec::new();
    // Per level: session index -> pooled counts over trials.
    let mut per_session: Vec<BTreeMap<u32, SessionCount>> = Vec::new();
    let mut blocks_total = 0u64;
    for (i, value) in input.plan.levels.iter().enumerate() {
        let level = input.levels.get(i);
        let trials: &[Vec<TaskOutcome>] = level.map(|l| l.trials.as_slice()).unwrap_or(&[]);
        let mut sessions: BTreeMap<u32, SessionCount> = BTreeMap::new();
        let mut complete_sessions = 0u64;
        let mut correct_sessions = 0u64;
        let (mut scored, mut total, mut correct) = (0u64, 0u64, 0u64);
        let mut indices = std::collections::BTreeSet::new();
        for trial in trials {
            let mut in_trial: BTreeMap<u32, (bool, bool)> = BTreeMap::new();
            for o in trial {
                total += 1;
                indices.insert(o.session);
                let entry = in_trial.entry(o.session).or_insert((true, true));
                if o.incomplete {
                    entry.0 = false;
                    continue;
                }
                scored += 1;
                correct += u64::from(o.correct);
                entry.1 &= o.correct;
                let s = sessions.entry(o.session).or_default();
                s.scored += 1;
                s.correct += u32::from(o.correct);
            }
            for (complete, all_correct) in in_trial.values() {
                if *complete {
                    complete_sessions += 1;
                    correct_sessions += u64::from(*all_correct);
                }
            }
        }
        blocks_total = blocks_total.max(indices.len() as u64);
        let status = if trials.is_empty() {
            "not run".to_owned()
        } else {
            RunStatus::of(scored, total).as_str().to_owned()
        };
        let counts: Vec<(u32, u32)> = sessions.values().map(|s| (s.correct, s.scored)).collect();
        levels.push(LevelSummary {
            value: value.clone(),
            score: scores.get(i).copied().unwrap_or(i as f64),
            dir: level
                .map(|l| l.dir.clone())
                .unwrap_or_else(|| input.plan.dir_name(i)),
            fingerprint: level.map(|l| l.fingerprint.clone()).unwrap_or_default(),
            status,
            trials: trials.len() as u64,
            tasks_scored: scored,
            tasks_total: total,
            task_accuracy: (scored > 0).then(|| correct as f64 / scored as f64),
            task_ci95: (scored > 0)
                .then(|| session_bootstrap(&counts, BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED)),
            session_accuracy: (complete_sessions > 0)
                .then(|| Rate::new(correct_sessions, complete_sessions)),
            env_metrics: level.map(|l| l.env_metrics.clone()).unwrap_or_default(),
        });
        per_session.push(sessions);
    }

    // Blocks: sessions scored at every level.
    let rows: Vec<Vec<f64>> = match per_session.first() {
        Some(first) => first
            .keys()
            .filter_map(|index| {
                per_session
                    .iter()
                    .map(|level| {
                        level
                            .get(index)
                            .filter(|s| s.scored > 0)
                            .map(|s| f64::from(s.correct) / f64::from(s.scored))
                    })
                    .collect::<Option<Vec<f64>>>()
            })
            .collect(),
        None => Vec::new(),
    };
    let trend = trend_test(&scores, &rows, opts);

    let scored_levels = levels.iter().filter(|l| l.tasks_scored > 0).count();
    let status = if scored_levels == 0 {
        "failed"
    } else if levels.iter().all(|l| l.status == "done") {
        "done"
    } else {
        "partial"
    };
    let env = input.plan.is_ledger();
    let mut notes: Vec<String> = NOTES.iter().map(|s| (*s).to_owned()).collect();
    if env {
        notes.insert(0, env::ENV_NOTE.to_owned());
    }
    if trend.is_none() {
        notes.push(format!(
            "No trend test: {} paired session(s) are scored at every level (at least 2 are needed, with at least two levels of different score).",
            rows.len()
        ));
    }
    SweepDoc {
        wildtool_sweep: SWEEP_VERSION,
        scorer: crate::SCORER_VERSION.to_owned(),
        mode: env.then(|| env::ENV_MODE.to_owned()),
        factor: input.plan.factor.name().to_owned(),
        suite: input.plan.base.to_text(),
        model: input.model.clone(),
        status: status.to_owned(),
        levels,
        blocks_total,
        trend,
        notes,
    }
}

impl SweepDoc {
    /// The document as pretty-printed JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Reads a `sweep.json` (any version up to [`SWEEP_VERSION`]).
    pub fn parse(text: &str) -> Result<Self, SweepError> {
        let doc: SweepDoc =
            serde_json::from_str(text).map_err(|e| SweepError::Document(e.to_string()))?;
        if doc.wildtool_sweep == 0 || doc.wildtool_sweep > SWEEP_VERSION {
            return Err(SweepError::Document(format!(
                "version {} is not supported (this build reads up to {SWEEP_VERSION})",
                doc.wildtool_sweep
            )));
        }
        Ok(doc)
    }
}
