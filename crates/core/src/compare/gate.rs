//! The regression gate: is a candidate run worse than a baseline run of the same dataset,
//! with evidence rather than by a fixed threshold?
//!
//! **Rule.** The gate compares the two runs with [`compare_pair`] (baseline as A,
//! candidate as B: the same numbers `compare` prints) on one [`GateMetric`] and fails
//! only when both hold:
//! - the paired exact test (McNemar's exact test; with repeated trials the sign test on
//!   per-unit pass rates) gives `p < alpha`, and
//! - the upper bound of the paired session-bootstrap interval of candidate − baseline, at
//!   confidence `1 − alpha`, lies below `−margin`.
//!
//! With the defaults (`alpha` 0.05, margin 0 points) the interval is `compare`'s 95%
//! interval. Everything else passes and says why. The gate refuses to decide (an error,
//! not a verdict) when the runs cannot be compared or fewer sessions than `min_sessions`
//! were compared.
//!
//! **Metrics.** [`METRICS`] lists what can be gated: a per-task pass predicate on
//! [`TaskOutcome`] and whether tasks or whole sessions are the compared units. A new
//! metric is one entry.

use serde::{Deserialize, Serialize};

use super::paired::{compare_pair, Estimate, PairResult};
use super::runs::{CompareError, DatasetRef, RunInput};
use super::BootstrapOptions;
use crate::outcome::TaskOutcome;
use crate::report::intervals::Interval;

/// What a metric compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GateUnit {
    /// Each task is a unit: its pass rate over the run's trials.
    Task,
    /// Each session is a unit: it passes a trial when all its tasks pass in it.
    Session,
}

/// A metric the gate can decide on.
#[derive(Debug, Clone, Copy)]
pub struct GateMetric {
    /// Name on the command line (`--metric`).
    pub name: &'static str,
    /// Name in sentences (`task accuracy`).
    pub title: &'static str,
    /// The compared units.
    pub unit: GateUnit,
    /// Whether a scored task passes under this metric.
    pub passes: fn(&TaskOutcome) -> bool,
    /// Whether the metric reads ledger-environment runs (a wildtool extension, whose
    /// outcomes are `env_success`) rather than official ones; the two never mix.
    pub env: bool,
}

/// Every gateable metric; the first is the default.
pub const METRICS: &[GateMetric] = &[
    GateMetric {
        name: "task",
        title: "task accuracy",
        unit: GateUnit::Task,
        passes: |o| o.correct,
        env: false,
    },
    GateMetric {
        name: "session",
        title: "session accuracy",
        unit: GateUnit::Session,
        passes: |o| o.correct,
        env: false,
    },
    GateMetric {
        name: "names",
        title: "tool-name accuracy",
        unit: GateUnit::Task,
        passes: |o| o.name_correct,
        env: false,
    },
    GateMetric {
        name: "env_task",
        title: "env task success (ledger environment, a wildtool extension)",
        unit: GateUnit::Task,
        passes: |o| o.correct,
        env: true,
    },
    GateMetric {
        name: "env_session",
        title: "env session success (ledger environment, a wildtool extension)",
        unit: GateUnit::Session,
        passes: |o| o.correct,
        env: true,
    },
];

/// Why `metric` cannot gate these runs: an official metric on ledger-environment runs or
/// an env metric on official runs (`None` when they fit).
pub fn metric_mismatch(metric: &GateMetric, env_runs: bool) -> Option<String> {
    match (metric.env, env_runs) {
        (false, true) => Some(format!(
            "these are ledger-environment runs (a wildtool extension): --metric {} reads official runs; use --metric env_task or env_session",
            metric.name
        )),
        (true, false) => Some(format!(
            "--metric {} reads ledger-environment runs (env-result.jsonl); these are official runs: use task, session or names",
            metric.name
        )),
        _ => None,
    }
}

/// The metric named `name` (`None` when there is none).
pub fn metric_named(name: &str) -> Option<&'static GateMetric> {
    METRICS.iter().find(|m| m.name == name)
}

/// The names of [`METRICS`], for messages and help.
pub fn metric_names() -> Vec<&'static str> {
    METRICS.iter().map(|m| m.name).collect()
}

/// The gate's settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GateRule {
    /// Significance level of the paired test; the interval's confidence is `1 − alpha`.
    pub alpha: f64,
    /// How far below the baseline (in points, 0–100) the interval's upper bound must lie.
    pub margin_points: f64,
    /// Fewest compared sessions the gate decides on.
    pub min_sessions: u64,
}

impl Default for GateRule {
    fn default() -> Self {
        GateRule {
            alpha: 0.05,
            margin_points: 0.0,
            min_sessions: 0,
        }
    }
}

impl GateRule {
    /// Checks the settings: `alpha` strictly between 0 and 1, a finite margin from 0 to
    /// 100 points.
    pub fn check(&self) -> Result<(), GateError> {
        if !(self.alpha > 0.0 && self.alpha < 1.0) {
            return Err(GateError::Setting(format!(
                "--alpha must be between 0 and 1 (exclusive), not {}",
                self.alpha
            )));
        }
        if !(self.margin_points.is_finite() && (0.0..=100.0).contains(&self.margin_points)) {
            return Err(GateError::Setting(format!(
                "--margin must be from 0 to 100 points, not {}",
                self.margin_points
            )));
        }
        Ok(())
    }

    /// The bootstrap settings the gate uses: `base` at confidence `1 − alpha`.
    pub fn bootstrap(&self, base: &BootstrapOptions) -> BootstrapOptions {
        BootstrapOptions {
            level: 1.0 - self.alpha,
            ..*base
        }
    }
}

/// Why the gate cannot decide.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GateError {
    /// A setting out of range.
    #[error("{0}")]
    Setting(String),
    /// The runs cannot be compared (another dataset, nothing scored, nothing in common).
    #[error(transparent)]
    Compare(#[from] CompareError),
    /// The metric has no compared unit (e.g. no session was scored in both runs).
    #[error("no {unit} was scored in both runs, so {metric} cannot be compared")]
    NoUnits {
        /// The metric's title.
        metric: &'static str,
        /// `task` or `session`.
        unit: &'static str,
    },
    /// Fewer sessions than `--min-sessions` were compared.
    #[error("only {sessions} session(s) were scored in both runs; the gate needs at least {min} (--min-sessions) to decide")]
    TooFewSessions {
        /// Sessions compared.
        sessions: u64,
        /// The minimum asked for.
        min: u64,
    },
}

/// How the gate decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GateOutcome {
    /// The candidate is worse with evidence: the gate fails.
    Regression,
    /// The candidate is worse with evidence, but not by more than the margin.
    WithinMargin,
    /// No evidence that the candidate is worse.
    NoSignificantRegression,
}

impl GateOutcome {
    /// Whether the gate fails (exit code 1).
    pub fn fails(self) -> bool {
        matches!(self, GateOutcome::Regression)
    }
}

/// The gate's verdict with the numbers it rests on (all candidate − baseline).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GateVerdict {
    /// The decision.
    pub outcome: GateOutcome,
    /// The metric's name.
    pub metric: String,
    /// The metric in words.
    pub metric_title: String,
    /// Baseline run label.
    pub baseline: String,
    /// Candidate run label.
    pub candidate: String,
    /// Candidate − baseline, as a proportion (−0.012 is −1.2 points).
    pub difference: f64,
    /// Its paired session-bootstrap interval at `level`.
    pub interval: Interval,
    /// The interval's confidence (`1 − alpha`).
    pub level: f64,
    /// The paired exact test's two-sided p-value.
    pub p: f64,
    /// Units where the baseline is ahead.
    pub baseline_ahead: u64,
    /// Units where the candidate is ahead.
    pub candidate_ahead: u64,
    /// Baseline's value over the compared units.
    pub baseline_value: f64,
    /// Candidate's value over the compared units.
    pub candidate_value: f64,
    /// Units compared (tasks or sessions).
    pub units: u64,
    /// Sessions compared.
    pub sessions: u64,
    /// Tasks compared.
    pub tasks: u64,
    /// Dataset tasks left out (unscored in either run).
    pub dropped: u64,
    /// The settings.
    pub alpha: f64,
    /// The margin in points.
    pub margin_points: f64,
    /// The decision in one line.
    pub reason: String,
}

/// The rule itself: the exact test's `p` below alpha and the upper bound `upper` of the
/// interval of candidate − baseline below −margin.
pub(crate) fn fails(p: f64, upper: f64, rule: &GateRule) -> bool {
    p < rule.alpha && upper < -rule.margin_points / 100.0
}

/// `run` with every scored task's `correct` replaced by the metric's pass predicate.
fn project(run: &RunInput, metric: &GateMetric) -> RunInput {
    RunInput {
        label: run.label.clone(),
        fingerprint: run.fingerprint,
        trials: run
            .trials
            .iter()
            .map(|list| {
                list.iter()
                    .map(|o| TaskOutcome {
                        correct: (metric.passes)(o),
                        ..o.clone()
                    })
                    .collect()
            })
            .collect(),
    }
}

/// Compares `candidate` with `baseline` on `metric` (`opts` at the rule's level) and
/// decides. The pair's A is the baseline, as in `compare BASELINE CANDIDATE`.
pub fn gate_runs(
    baseline: &RunInput,
    candidate: &RunInput,
    dataset: DatasetRef<'_>,
    metric: &GateMetric,
    rule: &GateRule,
    opts: &BootstrapOptions,
) -> Result<(PairResult, GateVerdict), GateError> {
    rule.check()?;
    let pair = compare_pair(
        &project(baseline, metric),
        &project(candidate, metric),
        dataset,
        &rule.bootstrap(opts),
    )?;
    let verdict = decide(&pair, metric, rule)?;
    Ok((pair, verdict))
}

/// The gate's decision on a comparison of baseline (A) and candidate (B) whose intervals
/// were computed at confidence `1 − rule.alpha`.
pub fn decide(
    pair: &PairResult,
    metric: &GateMetric,
    rule: &GateRule,
) -> Result<GateVerdict, GateError> {
    rule.check()?;
    if pair.sessions < rule.min_sessions {
        return Err(GateError::TooFewSessions {
            sessions: pair.sessions,
            min: rule.min_sessions,
        });
    }
    let (delta, p, base_ahead, cand_ahead, values, units): (Estimate, f64, u64, u64, _, u64) =
        match metric.unit {
            GateUnit::Task => (
                pair.task_accuracy_delta,
                pair.mcnemar_p,
                pair.a_only,
                pair.b_only,
                Some(pair.task_accuracy),
                pair.tasks,
            ),
            GateUnit::Session => {
                let delta = pair.session_accuracy_delta.ok_or(GateError::NoUnits {
                    metric: metric.title,
                    unit: "session",
                })?;
                (
                    delta,
                    pair.session_mcnemar_p,
                    pair.session_a_only,
                    pair.session_b_only,
                    pair.session_accuracy,
                    pair.sessions,
                )
            }
        };
    // A − B is baseline − candidate; the gate speaks of candidate − baseline.
    let difference = -delta.estimate;
    let interval = Interval {
        lo: -delta.ci95.hi,
        hi: -delta.ci95.lo,
    };
    let significant = p < rule.alpha && interval.hi < 0.0;
    let outcome = if fails(p, interval.hi, rule) {
        GateOutcome::Regression
    } else if significant {
        GateOutcome::WithinMargin
    } else {
        GateOutcome::NoSignificantRegression
    };
    let level = 1.0 - rule.alpha;
    let numbers = format!(
        "{}, {} interval {} to {}, p {}",
        points(difference),
        super::trials::level_percent(level),
        points_bare(interval.lo),
        points_bare(interval.hi),
        p_text(p)
    );
    let reason = match outcome {
        GateOutcome::Regression => format!("regression: {numbers}"),
        GateOutcome::WithinMargin => format!(
            "no regression beyond the margin of {} points: {numbers}",
            trim_number(rule.margin_points)
        ),
        GateOutcome::NoSignificantRegression if difference > 0.0 => {
            format!("no regression (the candidate is ahead): {numbers}")
        }
        GateOutcome::NoSignificantRegression => {
            format!("no significant regression: {numbers}")
        }
    };
    let values = values.unwrap_or(super::paired::PairRates { a: 0.0, b: 0.0 });
    Ok(GateVerdict {
        outcome,
        metric: metric.name.to_owned(),
        metric_title: metric.title.to_owned(),
        baseline: pair.a.clone(),
        candidate: pair.b.clone(),
        difference,
        interval,
        level,
        p,
        baseline_ahead: base_ahead,
        candidate_ahead: cand_ahead,
        baseline_value: values.a,
        candidate_value: values.b,
        units,
        sessions: pair.sessions,
        tasks: pair.tasks,
        dropped: pair.dropped,
        alpha: rule.alpha,
        margin_points: rule.margin_points,
        reason,
    })
}

impl GateVerdict {
    /// The figures behind the decision in one line (metric, units, settings, values).
    pub fn context(&self) -> String {
        format!(
            "{} over {} task(s) in {} session(s) scored in both runs ({} left out); baseline {}, candidate {}; {} ahead in {}, {} ahead in {}; alpha {}, margin {} points",
            self.metric_title,
            self.tasks,
            self.sessions,
            self.dropped,
            crate::chart::format_percent(self.baseline_value),
            crate::chart::format_percent(self.candidate_value),
            self.baseline,
            self.baseline_ahead,
            self.candidate,
            self.candidate_ahead,
            trim_number(self.alpha),
            trim_number(self.margin_points),
        )
    }
}

/// A difference in points with its sign: `−1.2 points`, `+0.4 points`, `0.0 points`.
pub fn points(v: f64) -> String {
    format!("{} points", points_bare(v))
}

/// A difference in points with its sign and no unit: `−1.2`, `+0.4`, `0.0`.
pub fn points_bare(v: f64) -> String {
    let pp = crate::chart::delta::format_pp(v);
    pp.trim_end_matches(" pp").to_owned()
}

/// `= 0.41`, `= 0.032`, `= 0.0004`, `< 0.0001`: two significant digits.
pub fn p_text(p: f64) -> String {
    if !p.is_finite() {
        return "n/a".to_owned();
    }
    if p < 0.0001 {
        return "< 0.0001".to_owned();
    }
    if p >= 0.995 {
        return "= 1.0".to_owned();
    }
    let digits = if p >= 0.1 {
        2
    } else {
        // Two significant digits: 0.032, 0.0041.
        (2.0 - p.log10().floor()) as usize - 1
    };
    format!("= {:.*}", digits.min(5), p)
}

/// A number without trailing zeros (`0.05`, `2`, `2.5`).
fn trim_number(v: f64) -> String {
    let s = format!("{v:.6}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(points(-0.012), "\u{2212}1.2 points");
        assert_eq!(points(0.016), "+1.6 points");
        assert_eq!(points(0.0001), "0.0 points");
        assert_eq!(p_text(0.41), "= 0.41");
        assert_eq!(p_text(0.032), "= 0.032");
        assert_eq!(p_text(0.0041), "= 0.0041");
        assert_eq!(p_text(0.00003), "< 0.0001");
        assert_eq!(p_text(1.0), "= 1.0");
        assert_eq!(trim_number(0.05), "0.05");
        assert_eq!(trim_number(2.0), "2");
    }

    #[test]
    fn settings_are_checked() {
        let bad = |alpha: f64, margin: f64| {
            GateRule {
                alpha,
                margin_points: margin,
                min_sessions: 0,
            }
            .check()
            .is_err()
        };
        assert!(bad(0.0, 0.0));
        assert!(bad(1.0, 0.0));
        assert!(bad(f64::NAN, 0.0));
        assert!(bad(0.05, -1.0));
        assert!(bad(0.05, 101.0));
        assert!(!bad(0.05, 2.5));
        assert!(metric_named("task").is_some());
        assert!(metric_named("nope").is_none());
        assert_eq!(METRICS.first().map(|m| m.name), Some("task"));
    }
}
