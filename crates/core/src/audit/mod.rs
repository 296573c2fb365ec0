//! The item audit: which dataset tasks look wrong, read from several runs of one dataset.
//!
//! For every task ("item") it counts the runs and trials that pass and fail it, the error
//! classes and the first wrong argument of the failures, and the groups of runs that gave
//! the same wrong answer; it fits a Rasch model ([`fit`]) for a difficulty per item and
//! reports each item's discrimination (the point-biserial correlation of its responses
//! with the fitted abilities). Items are ranked by how many of four signs of a broken item
//! they show:
//!
//! - `never_passed`: no scored response is correct;
//! - `shared_argument`: at least two runs fail it and every failing run (with failure
//!   details) gets the same argument wrong with the same value in at least one trial;
//! - `shared_error`: at least two runs fail it and one error class is among every failing
//!   run's failures;
//! - `agree_against_gold`: at least two runs gave the same wrong answer (the same calls
//!   with the same arguments) at the first failing step.
//!
//! Ties are broken by the number of agreeing runs, then failing runs (more first), then
//! pass rate (lower first), difficulty (higher first) and dataset order. Items every
//! response passes are marked `always_passed` (too easy to tell models apart), not
//! suspicious. Everything is a pure function of the runs' outcomes and failure details,
//! so the CLI (`wildtool audit`) and the page compute the same document.

pub mod failures;
pub mod fit;
pub mod markdown;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::outcome::TaskOutcome;
use crate::share::TaskShape;

pub use failures::{failures, Failure, Failures};

/// One run as the audit reads it.
#[derive(Debug, Clone, Default)]
pub struct AuditRun {
    /// Label shown for the run.
    pub label: String,
    /// One outcome list per trial (see `compare::RunInput` for what counts as scored).
    pub trials: Vec<Vec<TaskOutcome>>,
    /// Failure details per trial, from its `score.jsonl` (empty when it is not at hand).
    pub failures: Vec<Failures>,
}

/// Why an audit cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuditError {
    /// No run, or no scored response at all.
    #[error("an audit needs at least one run with scored tasks")]
    NoResponses,
}

/// Format version of the audit document.
pub const AUDIT_FORMAT: u32 = 1;

/// How many runs gave one wrong answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Agreement {
    /// The answer (see [`Failure::answer`]).
    pub answer: String,
    /// The runs that gave it, in run order.
    pub runs: Vec<String>,
}

/// An error class and the runs whose failures of the item include it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ErrorRuns {
    /// The raw error label (`param_value`, …).
    pub class: String,
    /// Runs, in run order.
    pub runs: Vec<String>,
}

/// One audited item.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Item {
    /// Session number, 1-based as shown.
    pub session: u32,
    /// Task number in the session, 1-based.
    pub task: u8,
    /// Task type.
    pub task_type: String,
    /// Scored responses (trials of all runs).
    pub responses: usize,
    /// Correct responses.
    pub passes: usize,
    /// `passes / responses` (0 without responses).
    pub pass_rate: f64,
    /// Runs with at least one scored response.
    pub runs: usize,
    /// Runs with at least one correct response.
    pub runs_passing: usize,
    /// Runs with at least one failed response.
    pub runs_failing: usize,
    /// Error classes of the failures with their runs, most runs first.
    pub errors: Vec<ErrorRuns>,
    /// The error class every failing run shares (two runs or more).
    pub shared_error: Option<String>,
    /// The wrong argument every failing run with details shares (two runs or more).
    pub shared_argument: Option<String>,
    /// The largest group of two or more runs that gave the same wrong answer.
    pub agreement: Option<Agreement>,
    /// Rasch difficulty (logits; higher is harder).
    pub difficulty: f64,
    /// Point-biserial correlation of the responses with the fitted abilities.
    pub discrimination: f64,
    /// Signs shown (`never_passed`, `shared_argument`, `shared_error`,
    /// `agree_against_gold`), or `always_passed`.
    pub flags: Vec<&'static str>,
}

impl Item {
    /// How many of the four signs of a broken item it shows.
    pub fn suspicion(&self) -> usize {
        self.flags.iter().filter(|f| **f != ALWAYS_PASSED).count()
    }
}

/// The flag of an item every response passes.
pub const ALWAYS_PASSED: &str = "always_passed";

/// One run's summary.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunSummary {
    /// Label.
    pub label: String,
    /// Trials.
    pub trials: usize,
    /// Scored responses.
    pub responses: usize,
    /// Correct responses.
    pub passes: usize,
    /// Mean fitted ability of its trials (logits).
    pub ability: f64,
    /// Whether failure details were at hand.
    pub details: bool,
}

/// The fit's settings and convergence.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FitSummary {
    /// `rasch-map-jml`.
    pub model: &'static str,
    /// Prior standard deviation of abilities and difficulties.
    pub prior_sd: f64,
    /// Sweeps made.
    pub sweeps: usize,
    /// Whether the tolerance was reached.
    pub converged: bool,
}

/// Counts of the items with each flag.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct FlagCounts {
    /// Items.
    pub items: usize,
    /// Items without a scored response.
    pub unscored: usize,
    /// `never_passed`.
    pub never_passed: usize,
    /// `always_passed`.
    pub always_passed: usize,
    /// `shared_argument`.
    pub shared_argument: usize,
    /// `shared_error`.
    pub shared_error: usize,
    /// `agree_against_gold`.
    pub agree_against_gold: usize,
}

/// The audit document (`audit.json`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditDoc {
    /// [`AUDIT_FORMAT`].
    pub wildtool_audit: u32,
    /// Dataset fingerprint (16 hex digits).
    pub dataset: String,
    /// Runs in argument order.
    pub runs: Vec<RunSummary>,
    /// The fit.
    pub fit: FitSummary,
    /// Flag counts.
    pub summary: FlagCounts,
    /// Items with at least one scored response, most suspicious first.
    pub items: Vec<Item>,
}

/// The first outcome of each task in a trial's list, keyed like the shapes.
fn by_task(outcomes: &[TaskOutcome]) -> BTreeMap<(u32, u8), &TaskOutcome> {
    let mut map = BTreeMap::new();
    for o in outcomes {
        map.entry((o.session, o.position)).or_insert(o);
    }
    map
}

/// Pushes `label` to the runs of `key` once.
fn add_run(map: &mut Vec<(String, Vec<usize>)>, key: &str, run: usize) {
    match map.iter_mut().find(|(k, _)| k == key) {
        Some((_, runs)) => {
            if !runs.contains(&run) {
                runs.push(run);
            }
        }
        None => map.push((key.to_owned(), vec![run])),
    }
}

/// Audits `runs` over the dataset's tasks `shapes` (fingerprint `fingerprint`).
pub fn audit(
    runs: &[AuditRun],
    shapes: &[TaskShape],
    fingerprint: u64,
) -> Result<AuditDoc, AuditError> {
    // Respondents: (run, trial).
    let mut owner = Vec::new();
    let mut responses: Vec<Vec<Option<bool>>> = Vec::new();
    let mut outcome_maps = Vec::new();
    for (r, run) in runs.iter().enumerate() {
        for trial in &run.trials {
            let map = by_task(trial);
            responses.push(
                shapes
                    .iter()
                    .map(|s| {
                        map.get(&(s.session, s.position))
                            .filter(|o| !o.incomplete)
                            .map(|o| o.correct)
                    })
                    .collect(),
            );
            outcome_maps.push(map);
            owner.push(r);
        }
    }
    if responses.iter().all(|row| row.iter().all(Option::is_none)) {
        return Err(AuditError::NoResponses);
    }
    let fitted = fit::rasch(&responses, shapes.len());
    let label = |r: usize| runs.get(r).map(|x| x.label.clone()).unwrap_or_default();
    let labels = |rs: &[usize]| rs.iter().map(|r| label(*r)).collect::<Vec<_>>();
    let mut items = Vec::new();
    let mut counts = FlagCounts {
        items: shapes.len(),
        ..FlagCounts::default()
    };
    for (i, shape) in shapes.iter().enumerate() {
        let key = (shape.session, shape.position);
        let column: Vec<Option<bool>> = responses
            .iter()
            .map(|row| row.get(i).copied().flatten())
            .collect();
        let answered = column.iter().flatten().count();
        if answered == 0 {
            counts.unscored += 1;
            continue;
        }
        let passes = column.iter().flatten().filter(|c| **c).count();
        let (mut passing, mut failing, mut answering) = (Vec::new(), Vec::new(), Vec::new());
        let mut errors: Vec<(String, Vec<usize>)> = Vec::new();
        let mut arguments: Vec<(String, Vec<usize>)> = Vec::new();
        let mut answers: Vec<(String, Vec<usize>)> = Vec::new();
        let mut failing_with_details = Vec::new();
        for (resp, y) in column.iter().enumerate() {
            let Some(y) = *y else { continue };
            let r = owner.get(resp).copied().unwrap_or(0);
            let list = if y { &mut passing } else { &mut failing };
            if !list.contains(&r) {
                list.push(r);
            }
            if !answering.contains(&r) {
                answering.push(r);
            }
            if y {
                continue;
            }
            if let Some(e) = outcome_maps
                .get(resp)
                .and_then(|m| m.get(&key))
                .and_then(|o| o.error)
            {
                add_run(&mut errors, e.as_str(), r);
            }
            let trial = resp - owner.iter().position(|o| *o == r).unwrap_or(resp);
            let details = runs.get(r).and_then(|run| run.failures.get(trial));
            if let Some(f) = details.and_then(|d| d.get(&key)) {
                if !failing_with_details.contains(&r) {
                    failing_with_details.push(r);
                }
                add_run(&mut answers, &f.answer, r);
                if let Some(a) = &f.argument {
                    add_run(&mut arguments, a, r);
                }
            }
        }
        crate::order::sort_by(&mut errors, |a, b| b.1.len().cmp(&a.1.len()));
        let shared = |groups: &[(String, Vec<usize>)], of: &[usize]| {
            groups
                .iter()
                .find(|(_, rs)| of.len() >= 2 && of.iter().all(|r| rs.contains(r)))
                .map(|(k, _)| k.clone())
        };
        let shared_error = shared(&errors, &failing);
        let shared_argument = shared(&arguments, &failing_with_details);
        let agreement = answers
            .iter()
            .filter(|(_, rs)| rs.len() >= 2)
            .fold(None::<&(String, Vec<usize>)>, |best, g| match best {
                Some(b) if b.1.len() >= g.1.len() => Some(b),
                _ => Some(g),
            })
            .map(|(answer, rs)| Agreement {
                answer: answer.clone(),
                runs: labels(rs),
            });
        let mut flags = Vec::new();
        if passes == 0 {
            flags.push("never_passed");
            counts.never_passed += 1;
        }
        if shared_argument.is_some() {
            flags.push("shared_argument");
            counts.shared_argument += 1;
        }
        if shared_error.is_some() {
            flags.push("shared_error");
            counts.shared_error += 1;
        }
        if agreement.is_some() {
            flags.push("agree_against_gold");
            counts.agree_against_gold += 1;
        }
        if passes == answered {
            flags.push(ALWAYS_PASSED);
            counts.always_passed += 1;
        }
        items.push(Item {
            session: shape.session + 1,
            task: shape.position + 1,
            task_type: shape.task_type.as_str().to_owned(),
            responses: answered,
            passes,
            pass_rate: passes as f64 / answered as f64,
            runs: answering.len(),
            runs_passing: passing.len(),
            runs_failing: failing.len(),
            errors: errors
                .iter()
                .map(|(class, rs)| ErrorRuns {
                    class: class.clone(),
                    runs: labels(rs),
                })
                .collect(),
            shared_error,
            shared_argument,
            agreement,
            difficulty: fitted.difficulty.get(i).copied().unwrap_or(0.0),
            discrimination: fit::point_biserial(&column, &fitted.ability),
            flags,
        });
    }
    crate::order::sort_by(&mut items, rank);
    let run_summaries = runs
        .iter()
        .enumerate()
        .map(|(r, run)| {
            let mine: Vec<usize> = (0..owner.len())
                .filter(|k| owner.get(*k) == Some(&r))
                .collect();
            let row = |k: &usize| responses.get(*k).map(Vec::as_slice).unwrap_or(&[]);
            let ability = if mine.is_empty() {
                0.0
            } else {
                mine.iter()
                    .filter_map(|k| fitted.ability.get(*k))
                    .sum::<f64>()
                    / mine.len() as f64
            };
            RunSummary {
                label: run.label.clone(),
                trials: run.trials.len(),
                responses: mine.iter().map(|k| row(k).iter().flatten().count()).sum(),
                passes: mine
                    .iter()
                    .map(|k| row(k).iter().flatten().filter(|c| **c).count())
                    .sum(),
                ability,
                details: !run.failures.is_empty(),
            }
        })
        .collect();
    Ok(AuditDoc {
        wildtool_audit: AUDIT_FORMAT,
        dataset: format!("{fingerprint:016x}"),
        runs: run_summaries,
        fit: FitSummary {
            model: "rasch-map-jml",
            prior_sd: fit::PRIOR_SD,
            sweeps: fitted.sweeps,
            converged: fitted.converged,
        },
        summary: counts,
        items,
    })
}

/// The ranking of the module docs.
fn rank(a: &Item, b: &Item) -> std::cmp::Ordering {
    let agreeing = |x: &Item| x.agreement.as_ref().map_or(0, |g| g.runs.len());
    b.suspicion()
        .cmp(&a.suspicion())
        .then(agreeing(b).cmp(&agreeing(a)))
        .then(b.runs_failing.cmp(&a.runs_failing))
        .then(a.pass_rate.total_cmp(&b.pass_rate))
        .then(b.difficulty.total_cmp(&a.difficulty))
        .then(a.session.cmp(&b.session))
        .then(a.task.cmp(&b.task))
}

impl AuditDoc {
    /// `audit.json` text.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|_| "{}".to_owned())
    }

    /// The items showing at least one sign of a broken item, in rank order.
    pub fn suspicious(&self) -> impl Iterator<Item = &Item> {
        self.items.iter().filter(|i| i.suspicion() > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::{RawErrorLabel, TaskType};

    fn shape(session: u32) -> TaskShape {
        TaskShape {
            session,
            position: 0,
            task_type: TaskType::SingleTool,
            subtype: None,
            transitions: 0,
            nodes_total: 1,
            min_length: 1,
        }
    }

    fn outcome(session: u32, correct: bool) -> TaskOutcome {
        TaskOutcome {
            error: (!correct).then_some(RawErrorLabel::ParamValue),
            ..crate::outcome::sample_outcome(session, correct)
        }
    }

    fn run(label: &str, correct: &[bool], answer: &str) -> AuditRun {
        let outcomes = correct
            .iter()
            .enumerate()
            .map(|(i, c)| outcome(i as u32, *c))
            .collect();
        let mut failures = Failures::new();
        for (i, c) in correct.iter().enumerate() {
            if !c {
                failures.insert(
                    (i as u32, 0),
                    Failure {
                        answer: format!("{answer}{i}"),
                        argument: Some(format!("f.x = {i}")),
                    },
                );
            }
        }
        AuditRun {
            label: label.into(),
            trials: vec![outcomes],
            failures: vec![failures],
        }
    }

    #[test]
    fn the_fit_is_finite_converges_and_orders_items_by_their_passes() {
        let y = vec![
            vec![Some(true), Some(true), Some(false)],
            vec![Some(true), Some(false), Some(false)],
            vec![Some(true), None, Some(false)],
        ];
        let f = fit::rasch(&y, 3);
        assert!(f.converged);
        assert!(f.difficulty.iter().all(|b| b.is_finite()));
        assert!(f.difficulty[0] < f.difficulty[1] && f.difficulty[1] < f.difficulty[2]);
        assert!(f.ability[0] > f.ability[1]);
        assert_eq!(
            fit::point_biserial(&[Some(true), Some(true)], &[1.0, 2.0]),
            0.0
        );
    }

    #[test]
    fn shared_failures_rank_first_and_a_lone_failure_shows_no_sign() {
        // Item 2 is failed by both runs with the same answer; item 1 only by run b.
        let a = run("a", &[true, true, false], "same");
        let b = run("b", &[true, false, false], "same");
        let shapes: Vec<TaskShape> = (0..3).map(shape).collect();
        let doc = audit(&[a, b], &shapes, 7).unwrap();
        let first = &doc.items[0];
        assert_eq!((first.session, first.task), (3, 1));
        assert_eq!(
            first.flags,
            [
                "never_passed",
                "shared_argument",
                "shared_error",
                "agree_against_gold"
            ]
        );
        let lone = doc.items.iter().find(|i| i.session == 2).unwrap();
        assert!(lone.flags.is_empty());
        assert_eq!(doc.summary.always_passed, 1);
        assert_eq!(doc.dataset, "0000000000000007");
        assert!(doc.markdown("d").contains("| 1 | 3 | 1 |"));
        assert_eq!(audit(&[], &shapes, 7), Err(AuditError::NoResponses));
    }

    #[test]
    fn markdown_escapes_text_from_runs() {
        assert_eq!(markdown::escape("<b>|x_y\n"), "&lt;b&gt;\\|x\\_y ");
    }
}
