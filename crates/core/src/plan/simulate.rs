//! The check of a plan by simulation: pairs of runs drawn from the pilot model, with a
//! drop, each decided by the gate's own rule (exact test and session bootstrap).

use super::model::Model;
use super::power::share_for;
use crate::compare::boot::Units;
use crate::compare::exact::mcnemar_exact;
use crate::compare::gate::{fails, GateRule};
use crate::compare::BootstrapOptions;
use crate::report::intervals::SplitMix;

/// A uniform number in [0, 1).
fn unit(rng: &mut SplitMix) -> f64 {
    (rng.next() >> 11) as f64 / (1u64 << 53) as f64
}

/// The mean of `k` Bernoulli(`p`) draws.
fn trials_mean(rng: &mut SplitMix, p: f64, k: u32) -> f64 {
    let passed = (0..k).filter(|_| unit(rng) < p).count();
    passed as f64 / f64::from(k.max(1))
}

/// The share of `reps` simulated gates of `sessions` sessions and `trials` trials per run
/// that fail when the candidate's expected drop is `delta` (`None` when the candidate
/// cannot lose that much). Sessions are drawn from the pilot's with replacement.
#[allow(clippy::too_many_arguments)]
pub(crate) fn rejection_rate(
    model: &Model,
    trials: u32,
    sessions: usize,
    delta: f64,
    rule: &GateRule,
    reps: usize,
    seed: u64,
    boot: &BootstrapOptions,
) -> Option<f64> {
    let f = share_for(model, delta)?;
    let pool = model.sessions();
    if pool == 0 || sessions == 0 || reps == 0 {
        return None;
    }
    let mut rng = SplitMix(seed);
    let mut failed = 0usize;
    for _ in 0..reps {
        let mut units = Units::new(sessions, 1);
        let (mut base_ahead, mut cand_ahead) = (0u64, 0u64);
        for u in 0..sessions {
            let s = rng.below(pool);
            let mut pairs: Vec<(f64, f64)> = Vec::new();
            match model {
                Model::Bernoulli {
                    sessions: all,
                    per_trial,
                    ..
                } => {
                    let k = if *per_trial { trials.max(1) } else { 1 };
                    for &p in all.get(s).map(Vec::as_slice).unwrap_or(&[]) {
                        let w = trials_mean(&mut rng, p, k);
                        let c = trials_mean(&mut rng, p, k);
                        pairs.push((w, c));
                    }
                }
                Model::Pairs { sessions: all } => {
                    let flip = unit(&mut rng) < 0.5;
                    for &(a, b) in all.get(s).map(Vec::as_slice).unwrap_or(&[]) {
                        pairs.push(if flip { (b, a) } else { (a, b) });
                    }
                }
            }
            for (w, mut c) in pairs {
                if unit(&mut rng) < f {
                    c = 0.0;
                }
                // A − B is baseline − candidate, as the gate compares them.
                units.add(u, 0, w - c);
                if w > c {
                    base_ahead += 1;
                } else if c > w {
                    cand_ahead += 1;
                }
            }
        }
        let p = mcnemar_exact(base_ahead, cand_ahead);
        let interval = units
            .bootstrap(boot.resamples, boot.seed, 1.0 - rule.alpha)
            .first()
            .copied()
            .flatten();
        // Candidate − baseline's upper bound is −(A − B)'s lower bound.
        if interval.is_some_and(|i| fails(p, -i.lo, rule)) {
            failed += 1;
        }
    }
    Some(failed as f64 / reps as f64)
}
