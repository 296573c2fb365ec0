//! The planner: how small a drop the regression gate (`compare::gate`) can detect at a
//! given number of sessions and trials, and how many sessions a given drop needs — from a
//! pilot run (or two) of the same dataset.
//!
//! **The pilot model** ([`PilotKind`]) is what the pilot says about two runs that differ
//! by nothing but noise:
//! - *two pilot runs* (`--pilot-b`): their per-task values, session by session, taken as
//!   two runs without a true difference (under the null either is the baseline with
//!   probability ½ per session). This carries the discordance of the two systems and
//!   their session clustering as observed; the planned trials are assumed not to reduce
//!   it (the pilot cannot tell trial noise from per-task disagreement).
//! - *one pilot with trials*: every task passes each trial independently with its own
//!   probability `p`, chosen so that `p(1 − p)` is the unbiased estimate `c(n − c)/(n(n − 1))`
//!   from its `c` passes in `n` trials; runs differ by trial noise only, which the planned
//!   trials average; the design effect of session clustering is estimated from every pair
//!   of pilot trials (Σ session sums² / Σ task differences²).
//! - *one pilot of one trial*: no run-to-run information, so every task of a session
//!   passes independently with the session's rate (moment-matched the same way), drawn
//!   once per run; trials do not help. This is pessimistic for two similar systems: pass
//!   `--pilot-b` or pilot trials for a sharper plan.
//!
//! **The alternative** is a candidate that fails a random share of the tasks in every
//! trial and is the baseline elsewhere; **power** is that of the gate's rule by normal
//! approximation (see `power`), the smaller of its two tests. Sessions of the planned run
//! are taken to be like the pilot's (drawn from them).
//!
//! [`simulate`] checks a plan: pairs of runs drawn from the same model, each decided by
//! the gate's own exact test and session bootstrap.

mod model;
mod power;
mod simulate;

use serde::{Deserialize, Serialize};

use crate::compare::gate::GateRule;
use crate::compare::runs::{DatasetRef, RunInput};
use crate::compare::BootstrapOptions;

pub use model::PilotError;

/// Format tag of a plan document.
pub const PLAN_FORMAT: &str = "wildtool-plan-1";

/// Pilots with fewer sessions get a note that their noise estimate is rough.
pub const SMALL_PILOT: u64 = 30;

/// Largest number of trials per run a plan is made for.
pub const MAX_PLAN_TRIALS: u32 = 100;

/// Which pilot model a plan rests on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PilotKind {
    /// Two pilot runs.
    Pair,
    /// One pilot run with repeated trials.
    Trials,
    /// One pilot run of one trial.
    Single,
}

impl PilotKind {
    /// The model's assumption in one sentence.
    pub fn assumption(self) -> &'static str {
        match self {
            PilotKind::Pair => "the two pilot runs are taken as two runs without a true difference: their per-task disagreement and its session clustering are the noise the gate will see; more trials are assumed not to reduce it",
            PilotKind::Trials => "runs differ by trial noise only: each task passes each trial independently with its own probability (from the pilot's trials), tasks of a session clustered as between the pilot's trials; more trials average the noise",
            PilotKind::Single => "one run of one trial says nothing about run-to-run noise: each task is taken to pass independently with its session's rate, drawn once per run (pessimistic for two similar systems; give a second pilot or pilot trials)",
        }
    }
}

/// What to plan.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlanSettings {
    /// Sessions per planned run.
    pub sessions: u64,
    /// Trials per planned run.
    pub trials: u32,
    /// The gate's rule (its alpha and margin).
    pub rule: GateRule,
    /// The power asked for (0.8).
    pub power: f64,
    /// A drop in points to find the sessions for (the reverse question).
    pub difference_points: Option<f64>,
}

/// Why a plan cannot be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PlanError {
    /// The pilot is unusable.
    #[error(transparent)]
    Pilot(#[from] PilotError),
    /// A setting out of range.
    #[error("{0}")]
    Setting(String),
}

/// The pilot as the plan read it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PilotFacts {
    /// The model used.
    pub kind: PilotKind,
    /// Pilot A's label.
    pub a: String,
    /// Pilot B's label (two pilots).
    pub b: Option<String>,
    /// Pilot A's trials.
    pub trials_a: u32,
    /// Pilot B's trials.
    pub trials_b: Option<u32>,
    /// Sessions of the pilot used (scored completely, in both pilots).
    pub sessions: u64,
    /// Their tasks.
    pub tasks: u64,
    /// Mean tasks per session.
    pub tasks_per_session: f64,
    /// The candidate's modelled pass rate without a drop.
    pub accuracy: f64,
    /// Share of tasks whose values differ between the two pilots (two pilots), or the
    /// modelled chance that two one-trial runs differ on a task (one pilot).
    pub discordance: f64,
    /// The design effect of session clustering between pilot trials (one pilot with
    /// trials; `null` otherwise).
    pub design_effect: Option<f64>,
    /// The model's assumption.
    pub assumption: String,
}

/// A plan: the pilot, the question and the answers (drops are proportions: 0.05 is 5
/// points).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanDoc {
    /// [`PLAN_FORMAT`].
    pub format: String,
    /// The pilot.
    pub pilot: PilotFacts,
    /// Sessions per planned run.
    pub sessions: u64,
    /// Trials per planned run.
    pub trials: u32,
    /// The gate's alpha.
    pub alpha: f64,
    /// The gate's margin in points.
    pub margin_points: f64,
    /// The power asked for.
    pub power: f64,
    /// The smallest drop the gate detects with that power at that size (`null`: not even
    /// a candidate that fails everything).
    pub min_detectable: Option<f64>,
    /// The drop asked about (the reverse question).
    pub difference: Option<f64>,
    /// Sessions that detect it with that power (`null`: no size does).
    pub sessions_needed: Option<u64>,
    /// The power for it at the planned size.
    pub power_at_sessions: Option<f64>,
    /// How the numbers are computed.
    pub method: String,
}

/// How the planner computes, in words.
pub const METHOD: &str = "normal approximation of the gate's two tests under the pilot model: the session-bootstrap interval of the paired difference (ratio estimate over sessions, variance of session sums) and the exact sign test on per-task differences (with continuity correction); the gate's power is the smaller of the two; the drop is a random share of tasks the candidate always fails";

fn check(settings: &PlanSettings) -> Result<(), PlanError> {
    settings
        .rule
        .check()
        .map_err(|e| PlanError::Setting(e.to_string()))?;
    if settings.sessions == 0 {
        return Err(PlanError::Setting(
            "--sessions must be at least 1".to_owned(),
        ));
    }
    if !(1..=MAX_PLAN_TRIALS).contains(&settings.trials) {
        return Err(PlanError::Setting(format!(
            "--trials must be from 1 to {MAX_PLAN_TRIALS}, not {}",
            settings.trials
        )));
    }
    if !(settings.power > settings.rule.alpha / 2.0 && settings.power < 1.0) {
        return Err(PlanError::Setting(format!(
            "--power must be between alpha/2 and 1 (exclusive), not {}",
            settings.power
        )));
    }
    if let Some(d) = settings.difference_points {
        if !(d > 0.0 && d <= 100.0) {
            return Err(PlanError::Setting(format!(
                "--difference must be more than 0 and at most 100 points, not {d}"
            )));
        }
    }
    Ok(())
}

/// A pilot read for planning (and for [`simulate`]).
#[derive(Debug, Clone)]
pub struct PlanPilot {
    pilot: model::Pilot,
    facts: PilotFacts,
}

impl PlanPilot {
    /// Reads pilot `a` (and `b`) on `dataset`.
    pub fn new(
        a: &RunInput,
        b: Option<&RunInput>,
        dataset: DatasetRef<'_>,
    ) -> Result<Self, PlanError> {
        let pilot = model::pilot(a, b, &dataset)?;
        let sessions = pilot.model.sessions() as u64;
        let tasks = pilot.model.tasks() as u64;
        let facts = PilotFacts {
            kind: pilot.kind,
            a: a.label.clone(),
            b: b.map(|r| r.label.clone()),
            trials_a: pilot.trials_a,
            trials_b: pilot.trials_b,
            sessions,
            tasks,
            tasks_per_session: tasks as f64 / sessions.max(1) as f64,
            accuracy: pilot.model.candidate_mean(),
            discordance: pilot.discordance,
            design_effect: pilot.design_effect,
            assumption: pilot.kind.assumption().to_owned(),
        };
        Ok(PlanPilot { pilot, facts })
    }

    /// What the plan read from the pilot.
    pub fn facts(&self) -> &PilotFacts {
        &self.facts
    }

    /// The gate's power to detect a drop of `difference` (a proportion) with `sessions`
    /// sessions and `trials` trials (normal approximation).
    pub fn power(&self, sessions: u64, trials: u32, difference: f64, rule: &GateRule) -> f64 {
        let model = &self.pilot.model;
        power::share_for(model, difference)
            .map(|f| {
                power::power(
                    &power::moments(model, trials, f),
                    sessions as f64,
                    rule.alpha,
                    rule.margin_points / 100.0,
                )
            })
            .unwrap_or(0.0)
    }
}

/// Makes the plan.
pub fn plan(pilot: &PlanPilot, settings: &PlanSettings) -> Result<PlanDoc, PlanError> {
    check(settings)?;
    let model = &pilot.pilot.model;
    let alpha = settings.rule.alpha;
    let margin = settings.rule.margin_points / 100.0;
    let min_detectable = power::min_detectable(
        model,
        settings.trials,
        settings.sessions as f64,
        alpha,
        margin,
        settings.power,
    );
    let difference = settings.difference_points.map(|d| d / 100.0);
    let sessions_needed = difference.and_then(|d| {
        power::sessions_needed(model, settings.trials, d, alpha, margin, settings.power)
    });
    let power_at_sessions =
        difference.map(|d| pilot.power(settings.sessions, settings.trials, d, &settings.rule));
    Ok(PlanDoc {
        format: PLAN_FORMAT.to_owned(),
        pilot: pilot.facts.clone(),
        sessions: settings.sessions,
        trials: settings.trials,
        alpha,
        margin_points: settings.rule.margin_points,
        power: settings.power,
        min_detectable,
        difference,
        sessions_needed,
        power_at_sessions,
        method: METHOD.to_owned(),
    })
}

/// The share of `reps` simulated gates (`sessions` sessions drawn from the pilot's,
/// `trials` trials per run, a drop of `difference`) that fail: the power the plan
/// predicts, checked with the gate's own tests. `None` when the candidate cannot lose
/// that much. Deterministic from `seed`.
#[allow(clippy::too_many_arguments)]
pub fn simulate(
    pilot: &PlanPilot,
    sessions: u64,
    trials: u32,
    difference: f64,
    rule: &GateRule,
    reps: usize,
    seed: u64,
    boot: &BootstrapOptions,
) -> Option<f64> {
    simulate::rejection_rate(
        &pilot.pilot.model,
        trials,
        usize::try_from(sessions).ok()?,
        difference,
        rule,
        reps,
        seed,
        boot,
    )
}

impl PlanDoc {
    /// The document as pretty-printed JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|_| "{}".to_owned())
    }

    /// The plan in a few lines for a terminal.
    pub fn summary_text(&self) -> String {
        use std::fmt::Write as _;
        let pct = crate::chart::format_percent;
        let mut out = String::new();
        let p = &self.pilot;
        let runs = match &p.b {
            Some(b) => format!("{} and {}", p.a, b),
            None => p.a.clone(),
        };
        let _ = writeln!(
            out,
            "pilot: {runs}; {} session(s), {} task(s) ({:.1} per session); accuracy {}; discordance {} of tasks{}",
            p.sessions,
            p.tasks,
            p.tasks_per_session,
            pct(p.accuracy),
            pct(p.discordance),
            p.design_effect
                .map(|d| format!("; design effect {d:.2}"))
                .unwrap_or_default()
        );
        let _ = writeln!(out, "model: {}", p.assumption);
        if p.sessions < SMALL_PILOT {
            let _ = writeln!(
                out,
                "note: a pilot of {} session(s) estimates the noise only roughly; the numbers below are uncertain by that much",
                p.sessions
            );
        }
        let gate = format!(
            "the gate (alpha {}, margin {} points)",
            self.alpha, self.margin_points
        );
        let size = format!("{} session(s) × {} trial(s)", self.sessions, self.trials);
        match self.min_detectable {
            Some(d) => {
                let _ = writeln!(
                    out,
                    "at {size}: {gate} detects a drop of {:.1} points or more with {:.0}% power",
                    d * 100.0,
                    self.power * 100.0
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "at {size}: {gate} cannot reach {:.0}% power for any drop, even a candidate that fails every task",
                    self.power * 100.0
                );
            }
        }
        if let Some(d) = self.difference {
            match self.sessions_needed {
                Some(n) => {
                    let _ = writeln!(
                        out,
                        "for a drop of {:.1} points: {n} session(s) (about {:.0} tasks) × {} trial(s) for {:.0}% power{}",
                        d * 100.0,
                        n as f64 * p.tasks_per_session,
                        self.trials,
                        self.power * 100.0,
                        self.power_at_sessions
                            .map(|x| format!("; at {} session(s) the power is {:.0}%", self.sessions, x * 100.0))
                            .unwrap_or_default()
                    );
                }
                None => {
                    let _ = writeln!(
                        out,
                        "for a drop of {:.1} points: no number of sessions reaches {:.0}% power (the drop is within the margin or larger than the candidate's accuracy)",
                        d * 100.0,
                        self.power * 100.0
                    );
                }
            }
        }
        out
    }
}
