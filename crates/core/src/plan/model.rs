//! The pilot model: what a pilot says about how two runs of the planned size will differ
//! when nothing changed, in one of three forms (see the module documentation of
//! [`super`]).

use crate::compare::runs::{check_fingerprint, CompareError, DatasetRef, Layout, Tally};
use crate::compare::RunInput;

use super::PilotKind;

/// The pilot model the planner and the simulation share.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Model {
    /// Every task passes independently with its own probability, in both runs. With
    /// `per_trial`, each trial of a run draws again (trial noise, averaged over the
    /// planned trials); without it each run draws a task once and every trial repeats it.
    /// `de` is the design effect of session clustering on the run-to-run differences.
    Bernoulli {
        sessions: Vec<Vec<f64>>,
        per_trial: bool,
        de: f64,
    },
    /// Two pilot runs' per-task values, session by session; under the null either run is
    /// the baseline with probability ½ (a random sign per session).
    Pairs { sessions: Vec<Vec<(f64, f64)>> },
}

/// A pilot read into a model, with its facts.
#[derive(Debug, Clone)]
pub(crate) struct Pilot {
    pub(crate) kind: PilotKind,
    pub(crate) model: Model,
    pub(crate) trials_a: u32,
    pub(crate) trials_b: Option<u32>,
    /// Share of tasks whose values differ between the two pilots (pairs), or between two
    /// trials of the pilot (trials), or the modelled chance that two runs differ (single).
    pub(crate) discordance: f64,
    /// The design effect estimated from the pilot (`None` when the model has none).
    pub(crate) design_effect: Option<f64>,
}

/// Why a pilot cannot be planned from.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PilotError {
    /// The runs do not fit the dataset.
    #[error(transparent)]
    Compare(#[from] CompareError),
    /// No session was scored completely (in both pilots).
    #[error("no session of the pilot was scored completely{}; a plan needs whole sessions", if *.pair { " in both runs" } else { "" })]
    NoSessions {
        /// Two pilots were given.
        pair: bool,
    },
}

/// A probability whose Bernoulli variance `p(1 − p)` is `v` (at most ¼), on the side of
/// `side` (a task that mostly passes stays above ½).
fn moment_matched(v: f64, side: f64) -> f64 {
    let v = v.clamp(0.0, 0.25);
    let low = (1.0 - (1.0 - 4.0 * v).max(0.0).sqrt()) / 2.0;
    if side > 0.5 {
        1.0 - low
    } else {
        low
    }
}

/// The unbiased estimate of `p(1 − p)` from `c` passes in `n` draws (0 for `n < 2`).
fn unbiased_pq(c: u32, n: u32) -> f64 {
    if n < 2 {
        return 0.0;
    }
    let (c, n) = (f64::from(c), f64::from(n));
    c * (n - c) / (n * (n - 1.0))
}

/// Per-trial pass marks of one run: `marks[t][i]` is `Some(passed)` when dataset task `i`
/// was scored in trial `t` (first entry counts, as in the tally).
fn marks(run: &RunInput, layout: &Layout<'_>) -> Vec<Vec<Option<bool>>> {
    run.trials
        .iter()
        .map(|list| {
            let mut m = vec![None; layout.tasks()];
            for o in list {
                if o.incomplete {
                    continue;
                }
                if let Some(i) = layout.index_of(o.session, o.position) {
                    if let Some(slot) = m.get_mut(i) {
                        if slot.is_none() {
                            *slot = Some(o.correct);
                        }
                    }
                }
            }
            m
        })
        .collect()
}

/// The design effect of session clustering seen between pairs of trials of one run:
/// Σ (session sum of differences)² / Σ (task differences)², over every pair of trials
/// and every session both scored in full. `None` when no task differs.
fn trial_pair_design_effect(marks: &[Vec<Option<bool>>], layout: &Layout<'_>) -> Option<f64> {
    let (mut cluster, mut tasks) = (0.0f64, 0.0f64);
    for (t, mt) in marks.iter().enumerate() {
        for mu in marks.iter().skip(t + 1) {
            for members in &layout.sessions {
                let diffs: Option<Vec<f64>> = members
                    .iter()
                    .map(|&i| {
                        let x = mt.get(i).copied().flatten()?;
                        let y = mu.get(i).copied().flatten()?;
                        Some(f64::from(u8::from(x)) - f64::from(u8::from(y)))
                    })
                    .collect();
                if let Some(d) = diffs {
                    let sum: f64 = d.iter().sum();
                    cluster += sum * sum;
                    tasks += d.iter().map(|x| x * x).sum::<f64>();
                }
            }
        }
    }
    (tasks > 0.0).then(|| cluster / tasks)
}

/// Reads one pilot run, or two, into a model.
pub(crate) fn pilot(
    a: &RunInput,
    b: Option<&RunInput>,
    dataset: &DatasetRef<'_>,
) -> Result<Pilot, PilotError> {
    let layout = Layout::new(dataset.shapes);
    check_fingerprint(a, dataset)?;
    let ta = Tally::new(a, &layout)?;
    if ta.tasks_scored() == 0 {
        return Err(CompareError::NothingScored {
            label: a.label.clone(),
        }
        .into());
    }
    let complete = |t: &Tally, s: usize| {
        layout.sessions.get(s).is_some_and(|members| {
            !members.is_empty() && members.iter().all(|&i| t.rate(i).is_some())
        })
    };
    if let Some(b) = b {
        check_fingerprint(b, dataset)?;
        let tb = Tally::new(b, &layout)?;
        if tb.tasks_scored() == 0 {
            return Err(CompareError::NothingScored {
                label: b.label.clone(),
            }
            .into());
        }
        let mut sessions = Vec::new();
        let (mut differ, mut tasks) = (0u64, 0u64);
        for (s, members) in layout.sessions.iter().enumerate() {
            if !(complete(&ta, s) && complete(&tb, s)) {
                continue;
            }
            let pairs: Vec<(f64, f64)> = members
                .iter()
                .map(|&i| (ta.rate(i).unwrap_or(0.0), tb.rate(i).unwrap_or(0.0)))
                .collect();
            tasks += pairs.len() as u64;
            differ += pairs.iter().filter(|(x, y)| x != y).count() as u64;
            sessions.push(pairs);
        }
        if sessions.is_empty() {
            return Err(PilotError::NoSessions { pair: true });
        }
        return Ok(Pilot {
            kind: PilotKind::Pair,
            model: Model::Pairs { sessions },
            trials_a: ta.trials,
            trials_b: Some(tb.trials),
            discordance: differ as f64 / tasks.max(1) as f64,
            design_effect: None,
        });
    }
    let kept: Vec<usize> = (0..layout.sessions.len())
        .filter(|&s| complete(&ta, s))
        .collect();
    if kept.is_empty() {
        return Err(PilotError::NoSessions { pair: false });
    }
    if ta.trials >= 2 {
        let marks = marks(a, &layout);
        let mut sessions = Vec::new();
        let mut disc = 0.0;
        let mut tasks = 0usize;
        for &s in &kept {
            let probs: Vec<f64> = layout.sessions[s]
                .iter()
                .map(|&i| {
                    let (n, c) = (
                        ta.n.get(i).copied().unwrap_or(0),
                        ta.c.get(i).copied().unwrap_or(0),
                    );
                    let side = if n > 0 {
                        f64::from(c) / f64::from(n)
                    } else {
                        0.0
                    };
                    moment_matched(unbiased_pq(c, n), side)
                })
                .collect();
            tasks += probs.len();
            disc += probs.iter().map(|p| 2.0 * p * (1.0 - p)).sum::<f64>();
            sessions.push(probs);
        }
        let de = trial_pair_design_effect(&marks, &layout);
        return Ok(Pilot {
            kind: PilotKind::Trials,
            model: Model::Bernoulli {
                sessions,
                per_trial: true,
                de: de.unwrap_or(1.0),
            },
            trials_a: ta.trials,
            trials_b: None,
            discordance: disc / tasks.max(1) as f64,
            design_effect: de,
        });
    }
    // One run of one trial: each session's tasks pass independently with the session's
    // rate, drawn once per run.
    let (mut all_c, mut all_n) = (0u32, 0u32);
    for &s in &kept {
        for &i in &layout.sessions[s] {
            all_c += ta.c.get(i).copied().unwrap_or(0);
            all_n += 1;
        }
    }
    let overall = unbiased_pq(all_c, all_n);
    let overall_rate = f64::from(all_c) / f64::from(all_n.max(1));
    let mut sessions = Vec::new();
    let mut disc = 0.0;
    let mut tasks = 0usize;
    for &s in &kept {
        let members = &layout.sessions[s];
        let m = members.len() as u32;
        let c: u32 = members
            .iter()
            .map(|&i| ta.c.get(i).copied().unwrap_or(0))
            .sum();
        let p = if m >= 2 {
            moment_matched(unbiased_pq(c, m), f64::from(c) / f64::from(m))
        } else {
            moment_matched(overall, overall_rate)
        };
        disc += f64::from(m) * 2.0 * p * (1.0 - p);
        tasks += m as usize;
        sessions.push(vec![p; m as usize]);
    }
    Ok(Pilot {
        kind: PilotKind::Single,
        model: Model::Bernoulli {
            sessions,
            per_trial: false,
            de: 1.0,
        },
        trials_a: ta.trials,
        trials_b: None,
        discordance: disc / tasks.max(1) as f64,
        design_effect: None,
    })
}

impl Model {
    /// Sessions in the model.
    pub(crate) fn sessions(&self) -> usize {
        match self {
            Model::Bernoulli { sessions, .. } => sessions.len(),
            Model::Pairs { sessions } => sessions.len(),
        }
    }

    /// Tasks in the model.
    pub(crate) fn tasks(&self) -> usize {
        match self {
            Model::Bernoulli { sessions, .. } => sessions.iter().map(Vec::len).sum(),
            Model::Pairs { sessions } => sessions.iter().map(Vec::len).sum(),
        }
    }

    /// The candidate's expected pass rate per task when nothing changed: the largest drop
    /// there is to detect.
    pub(crate) fn candidate_mean(&self) -> f64 {
        let (sum, n) = match self {
            Model::Bernoulli { sessions, .. } => sessions
                .iter()
                .flatten()
                .fold((0.0, 0usize), |(s, n), p| (s + p, n + 1)),
            Model::Pairs { sessions } => sessions
                .iter()
                .flatten()
                .fold((0.0, 0usize), |(s, n), (a, b)| (s + (a + b) / 2.0, n + 1)),
        };
        if n == 0 {
            0.0
        } else {
            sum / n as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moment_matching_keeps_the_variance_and_the_side() {
        for (v, side) in [
            (0.09, 0.8),
            (0.09, 0.2),
            (0.25, 0.6),
            (0.0, 1.0),
            (0.0, 0.0),
        ] {
            let p = moment_matched(v, side);
            assert!((p * (1.0 - p) - v).abs() < 1e-12, "{v} {side} {p}");
            assert_eq!(p > 0.5, side > 0.5 && v < 0.25);
        }
        // 2 of 4: unbiased p(1 − p) = 2·2/(4·3) = 1/3 > ¼, clamped to ½.
        assert_eq!(moment_matched(unbiased_pq(2, 4), 0.5), 0.5);
        assert_eq!(unbiased_pq(3, 1), 0.0);
    }
}
