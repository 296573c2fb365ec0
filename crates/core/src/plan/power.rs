//! The gate's power under the pilot model, by normal approximation, and the two solvers:
//! the smallest detectable drop at a size, and the size that detects a drop.
//!
//! Under the alternative the candidate fails, in every trial, a random share `f` of the
//! tasks (each task independently) and behaves like the baseline elsewhere; the expected
//! drop is `Δ = f · c̄`, `c̄` being the candidate's mean pass rate without the drop.
//!
//! The gate fails only when both of its tests do, so its power is taken as the smaller of
//! the two tests' powers (they are strongly correlated):
//! - the interval test: the session-bootstrap interval of the ratio estimate
//!   `Σ_s D_s / Σ_s m_s` at confidence `1 − α` lies beyond the margin, with
//!   `Var ≈ V₁ / (N m̄²)`, `V₁` the per-session variance of `D_s − Δ m_s` under the
//!   alternative: power `Φ(√N m̄ (Δ − margin) / √V₁ − z₁₋α/₂)`;
//! - the exact sign test (McNemar's with one trial) on the per-task signs, as a normal
//!   test with continuity correction: power `Φ((N m̄ ē − 1 − z₁₋α/₂ √(N m̄ d̄)) / √(N V_S))`,
//!   `ē` the mean per-task sign (baseline ahead minus candidate ahead), `d̄` the share of
//!   tasks that differ and `V_S` the per-session variance of the summed signs.

use super::model::Model;
use crate::sweep::trend::erfc;

/// The standard normal distribution function.
pub(crate) fn phi(x: f64) -> f64 {
    if x.is_nan() {
        return 0.0;
    }
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

/// The standard normal quantile (bisection on [`phi`], to 1e-12).
pub(crate) fn phi_inv(p: f64) -> f64 {
    let p = p.clamp(1e-15, 1.0 - 1e-15);
    let (mut lo, mut hi) = (-40.0f64, 40.0f64);
    for _ in 0..200 {
        let mid = (lo + hi) / 2.0;
        if phi(mid) < p {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo < 1e-12 {
            break;
        }
    }
    (lo + hi) / 2.0
}

/// Per-session moments of the two statistics for one drop.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Moments {
    /// The expected drop Δ.
    pub(crate) delta: f64,
    /// Mean tasks per session.
    pub(crate) m_bar: f64,
    /// Per-session variance of `D_s − Δ m_s`.
    pub(crate) v_mean: f64,
    /// Mean per-task sign (baseline ahead − candidate ahead).
    pub(crate) e_sign: f64,
    /// Share of tasks whose values differ.
    pub(crate) disc: f64,
    /// Per-session variance of the summed signs.
    pub(crate) v_sign: f64,
}

/// `P(X > Y)` and `P(X = Y)` for independent `X, Y` ~ Binomial(k, p).
fn ahead_and_tie(p: f64, k: u32) -> (f64, f64) {
    if p <= 0.0 || p >= 1.0 || k == 0 {
        return (0.0, 1.0);
    }
    let q = 1.0 - p;
    let mut pmf = Vec::with_capacity(k as usize + 1);
    let mut coef = 1.0f64;
    for j in 0..=k {
        if j > 0 {
            coef *= f64::from(k - j + 1) / f64::from(j);
        }
        pmf.push(coef * p.powi(j as i32) * q.powi((k - j) as i32));
    }
    let tie: f64 = pmf.iter().map(|x| x * x).sum::<f64>().min(1.0);
    ((1.0 - tie) / 2.0, tie)
}

/// One session's sums for a statistic: mean, variance (given the session), tasks.
#[derive(Default, Clone, Copy)]
struct SessionSums {
    mean: f64,
    var: f64,
    tasks: f64,
}

/// `mean_s [var_s + (mean_s − center · m_s)²]` with `center = Σ mean_s / Σ m_s`, over
/// weighted sessions.
fn pooled(sessions: &[(SessionSums, f64)]) -> (f64, f64) {
    let weight: f64 = sessions.iter().map(|(_, w)| w).sum();
    if weight <= 0.0 {
        return (0.0, 0.0);
    }
    let total: f64 = sessions.iter().map(|(s, w)| s.mean * w).sum();
    let tasks: f64 = sessions.iter().map(|(s, w)| s.tasks * w).sum();
    let center = if tasks > 0.0 { total / tasks } else { 0.0 };
    let v = sessions
        .iter()
        .map(|(s, w)| w * (s.var + (s.mean - center * s.tasks).powi(2)))
        .sum::<f64>()
        / weight;
    (center, v)
}

/// The moments at drop share `f` (0 ≤ f ≤ 1) with `trials` trials per run.
pub(crate) fn moments(model: &Model, trials: u32, f: f64) -> Moments {
    let f = f.clamp(0.0, 1.0);
    let mut mean_rows: Vec<(SessionSums, f64)> = Vec::new();
    let mut sign_rows: Vec<(SessionSums, f64)> = Vec::new();
    let mut disc_sum = 0.0;
    let mut disc_weight = 0.0;
    match model {
        Model::Bernoulli {
            sessions,
            per_trial,
            de,
        } => {
            let k = if *per_trial { trials.max(1) } else { 1 };
            let kf = f64::from(k);
            for probs in sessions {
                let (mut dm, mut sm) = (SessionSums::default(), SessionSums::default());
                let mut noise_m = 0.0;
                let mut noise_s = 0.0;
                for &p in probs {
                    let q = 1.0 - p;
                    // D = c − w per task (candidate − baseline), as the ratio estimate.
                    dm.mean += -f * p;
                    noise_m += (2.0 - f) * p * q / kf;
                    dm.var += f * (1.0 - f) * p * p;
                    // Sign s = +1 when the baseline is ahead.
                    let (ahead, tie) = ahead_and_tie(p, k);
                    let fail_all = 1.0 - q.powi(k as i32);
                    let plus = (1.0 - f) * ahead + f * fail_all;
                    let minus = (1.0 - f) * ahead;
                    let e = plus - minus;
                    let d = plus + minus;
                    sm.mean += e;
                    noise_s += d - e * e;
                    disc_sum += (1.0 - f) * (1.0 - tie) + f * fail_all;
                    disc_weight += 1.0;
                }
                dm.var += de * noise_m;
                sm.var += de * noise_s;
                dm.tasks = probs.len() as f64;
                sm.tasks = dm.tasks;
                mean_rows.push((dm, 1.0));
                sign_rows.push((sm, 1.0));
            }
        }
        Model::Pairs { sessions } => {
            for pairs in sessions {
                for flip in [false, true] {
                    let (mut dm, mut sm) = (SessionSums::default(), SessionSums::default());
                    for &(a, b) in pairs {
                        let (w, c) = if flip { (b, a) } else { (a, b) };
                        dm.mean += c * (1.0 - f) - w;
                        dm.var += f * (1.0 - f) * c * c;
                        let kept = (w - c).signum() * f64::from(u8::from(w != c));
                        let lost = f64::from(u8::from(w > 0.0));
                        let e = (1.0 - f) * kept + f * lost;
                        let sq = (1.0 - f) * kept.abs() + f * lost;
                        sm.mean += e;
                        sm.var += sq - e * e;
                        disc_sum += sq;
                        disc_weight += 1.0;
                    }
                    dm.tasks = pairs.len() as f64;
                    sm.tasks = dm.tasks;
                    mean_rows.push((dm, 0.5));
                    sign_rows.push((sm, 0.5));
                }
            }
        }
    }
    let (center, v_mean) = pooled(&mean_rows);
    let (e_sign, v_sign) = pooled(&sign_rows);
    let weight: f64 = mean_rows.iter().map(|(_, w)| w).sum();
    let m_bar = if weight > 0.0 {
        mean_rows.iter().map(|(s, w)| s.tasks * w).sum::<f64>() / weight
    } else {
        0.0
    };
    Moments {
        delta: -center,
        m_bar,
        v_mean,
        e_sign,
        disc: if disc_weight > 0.0 {
            disc_sum / disc_weight
        } else {
            0.0
        },
        v_sign,
    }
}

/// The gate's power with `sessions` sessions, from the moments of a drop.
pub(crate) fn power(m: &Moments, sessions: f64, alpha: f64, margin: f64) -> f64 {
    let z = phi_inv(1.0 - alpha / 2.0);
    let n = sessions.max(0.0);
    let tasks = n * m.m_bar;
    if tasks <= 0.0 {
        return 0.0;
    }
    let signal = n.sqrt() * m.m_bar * (m.delta - margin);
    let interval = if m.v_mean > 0.0 {
        phi(signal / m.v_mean.sqrt() - z)
    } else if m.delta > margin {
        1.0
    } else {
        0.0
    };
    let drift = tasks * m.e_sign - 1.0 - z * (tasks * m.disc).sqrt();
    let sign = if m.v_sign > 0.0 {
        phi(drift / (n * m.v_sign).sqrt())
    } else if drift > 0.0 {
        1.0
    } else {
        0.0
    };
    interval.min(sign)
}

/// Drop share `f` of an expected drop `delta` (`None` when the candidate cannot lose that
/// much).
pub(crate) fn share_for(model: &Model, delta: f64) -> Option<f64> {
    let c = model.candidate_mean();
    (c > 0.0 && delta <= c + 1e-12).then(|| (delta / c).min(1.0))
}

/// The smallest drop detected with probability `target` at `sessions` sessions (`None`
/// when even losing every task would not be).
pub(crate) fn min_detectable(
    model: &Model,
    trials: u32,
    sessions: f64,
    alpha: f64,
    margin: f64,
    target: f64,
) -> Option<f64> {
    let top = model.candidate_mean();
    let at = |delta: f64| {
        share_for(model, delta)
            .map(|f| power(&moments(model, trials, f), sessions, alpha, margin))
            .unwrap_or(0.0)
    };
    if top <= margin || at(top) < target {
        return None;
    }
    let (mut lo, mut hi) = (margin.max(0.0), top);
    for _ in 0..60 {
        let mid = (lo + hi) / 2.0;
        if at(mid) >= target {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi)
}

/// The fewest sessions that detect a drop of `delta` with probability `target` (`None`
/// when no size does, e.g. a drop within the margin).
pub(crate) fn sessions_needed(
    model: &Model,
    trials: u32,
    delta: f64,
    alpha: f64,
    margin: f64,
    target: f64,
) -> Option<u64> {
    let f = share_for(model, delta)?;
    if delta <= margin {
        return None;
    }
    let m = moments(model, trials, f);
    const MOST: u64 = 100_000_000;
    if power(&m, MOST as f64, alpha, margin) < target {
        return None;
    }
    let (mut lo, mut hi) = (0u64, MOST);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if power(&m, mid as f64, alpha, margin) >= target {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_functions() {
        assert!((phi(0.0) - 0.5).abs() < 1e-15);
        assert!((phi(1.959_963_984_540_054) - 0.975).abs() < 1e-12);
        assert!((phi_inv(0.975) - 1.959_963_984_540_054).abs() < 1e-9);
        assert!((phi_inv(0.8) - 0.841_621_233_572_914_3).abs() < 1e-9);
    }

    #[test]
    fn binomial_ties() {
        // Bin(1, ½): X > Y with ¼, tie ½.
        let (a, t) = ahead_and_tie(0.5, 1);
        assert!((a - 0.25).abs() < 1e-15 && (t - 0.5).abs() < 1e-15);
        // Bin(2, ½): pmf ¼ ½ ¼, tie = 1/16 + 1/4 + 1/16 = 3/8.
        let (a, t) = ahead_and_tie(0.5, 2);
        assert!((t - 0.375).abs() < 1e-15 && (a - 0.3125).abs() < 1e-15);
        assert_eq!(ahead_and_tie(1.0, 3), (0.0, 1.0));
    }

    #[test]
    fn textbook_mcnemar_case() {
        // 1,000 independent one-task sessions, every task passing with ½ in both runs:
        // discordance ½, so the textbook McNemar Δ at 80% power is about
        // (1.96 + 0.84)·√(½ / N) ≈ 0.063 for N = 1,000 (the continuity correction adds
        // about 1 / N).
        let model = Model::Bernoulli {
            sessions: vec![vec![0.5]; 1000],
            per_trial: false,
            de: 1.0,
        };
        let mde = min_detectable(&model, 1, 1000.0, 0.05, 0.0, 0.8).unwrap_or(0.0);
        assert!(mde > 0.060 && mde < 0.066, "{mde}");
        let n = sessions_needed(&model, 1, mde, 0.05, 0.0, 0.8).unwrap_or(0);
        assert!((999..=1001).contains(&n), "{n}");
        assert_eq!(sessions_needed(&model, 1, 0.0, 0.05, 0.0, 0.8), None);
        assert_eq!(min_detectable(&model, 1, 1.0, 0.05, 0.0, 0.8), None);
    }
}
