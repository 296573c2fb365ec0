//! Confidence intervals: Wilson score intervals for proportions and a session-level
//! bootstrap for task accuracy (sessions are the independent units: their tasks share
//! context).

use serde::{Deserialize, Serialize};

/// z for a two-sided 95% interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// A proportion with its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// Lower bound.
    pub lo: f64,
    /// Upper bound.
    pub hi: f64,
}

/// Wilson score interval for `k` successes out of `n` (95%). `n == 0` gives `[0, 1]`.
pub fn wilson(k: u64, n: u64) -> Interval {
    if n == 0 {
        return Interval { lo: 0.0, hi: 1.0 };
    }
    let n_f = n as f64;
    let p = k as f64 / n_f;
    let z2 = Z95 * Z95;
    let denom = 1.0 + z2 / n_f;
    let centre = (p + z2 / (2.0 * n_f)) / denom;
    let half = Z95 * (p * (1.0 - p) / n_f + z2 / (4.0 * n_f * n_f)).sqrt() / denom;
    // The bounds are exactly 0 and 1 at the extremes; avoid rounding residue there.
    let lo = if k == 0 {
        0.0
    } else {
        (centre - half).max(0.0)
    };
    let hi = if k >= n {
        1.0
    } else {
        (centre + half).min(1.0)
    };
    Interval { lo, hi }
}

/// Deterministic SplitMix64 stream for resampling.
#[derive(Debug, Clone)]
pub(crate) struct SplitMix(pub(crate) u64);

impl SplitMix {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub(crate) fn below(&mut self, n: usize) -> usize {
        // n is small (sessions); the modulo bias is negligible at 64 bits.
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Percentile bootstrap (95%) of task accuracy, resampling whole sessions.
///
/// `sessions` holds `(correct tasks, tasks)` per session. Deterministic for a given seed.
pub fn session_bootstrap(sessions: &[(u32, u32)], resamples: usize, seed: u64) -> Interval {
    let n = sessions.len();
    if n == 0 || resamples == 0 {
        return Interval { lo: 0.0, hi: 1.0 };
    }
    // Every session at the same rate (an all-correct or all-wrong run, say): every
    // resample's k / t is that rate as the same fraction, and IEEE division of the exact
    // integers rounds it to the same double, so the loop below would find the interval
    // [rate, rate].
    if let Some(&(c0, t0)) = sessions.first() {
        let same = sessions
            .iter()
            .all(|&(c, t)| t > 0 && u64::from(c) * u64::from(t0) == u64::from(c0) * u64::from(t));
        if same {
            let rate = f64::from(c0) / f64::from(t0);
            return Interval { lo: rate, hi: rate };
        }
    }
    let mut rng = SplitMix(seed);
    let mut stats: Vec<f64> = Vec::with_capacity(resamples);
    for _ in 0..resamples {
        let (mut k, mut t) = (0u64, 0u64);
        for _ in 0..n {
            if let Some(&(c, total)) = sessions.get(rng.below(n)) {
                k += u64::from(c);
                t += u64::from(total);
            }
        }
        stats.push(if t == 0 { 0.0 } else { k as f64 / t as f64 });
    }
    crate::order::sort_by(&mut stats, f64::total_cmp);
    let at = |q: f64| -> f64 {
        let idx = ((q * (stats.len() - 1) as f64).round() as usize).min(stats.len() - 1);
        stats.get(idx).copied().unwrap_or(0.0)
    };
    Interval {
        lo: at(0.025),
        hi: at(0.975),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_known_values() {
        // 18/32: p = 0.5625; Wilson 95% = [0.393256, 0.718347] (reference formula in Python).
        let i = wilson(18, 32);
        assert!((i.lo - 0.393_256).abs() < 1e-5, "{i:?}");
        assert!((i.hi - 0.718_347).abs() < 1e-5, "{i:?}");
        let zero = wilson(0, 10);
        assert_eq!(zero.lo, 0.0);
        assert!((zero.hi - 0.27753).abs() < 1e-4);
        assert_eq!(wilson(0, 0), Interval { lo: 0.0, hi: 1.0 });
        let all = wilson(10, 10);
        assert_eq!(all.hi, 1.0);
    }

    #[test]
    fn bootstrap_brackets_the_point_estimate_and_is_deterministic() {
        let sessions: Vec<(u32, u32)> = (0..64).map(|i| ((i % 5) as u32, 4)).collect();
        let point = sessions.iter().map(|s| s.0).sum::<u32>() as f64 / 256.0;
        let a = session_bootstrap(&sessions, 1000, 42);
        assert!(a.lo < point && point < a.hi, "{a:?} vs {point}");
        assert_eq!(a, session_bootstrap(&sessions, 1000, 42));
        let constant: Vec<(u32, u32)> = vec![(4, 4); 10];
        let c = session_bootstrap(&constant, 200, 1);
        assert_eq!((c.lo, c.hi), (1.0, 1.0));
    }

    #[test]
    fn one_rate_everywhere_gives_the_loops_interval() {
        for sessions in [
            vec![(4u32, 4u32), (3, 3), (1, 1), (2, 2)],
            vec![(0, 4), (0, 1), (0, 3)],
            vec![(1, 2), (2, 4), (1, 2), (3, 6)],
            vec![(1, 3), (2, 6), (1, 3)],
        ] {
            let fast = session_bootstrap(&sessions, 500, 7);
            // The same sessions with one odd one out take the loop; the loop's interval
            // for the uniform sessions is computed here by hand.
            let mut rng = SplitMix(7);
            let mut stats = Vec::new();
            for _ in 0..500 {
                let (mut k, mut t) = (0u64, 0u64);
                for _ in 0..sessions.len() {
                    let (c, total) = sessions[rng.below(sessions.len())];
                    k += u64::from(c);
                    t += u64::from(total);
                }
                stats.push(k as f64 / t as f64);
            }
            assert!(
                stats.iter().all(|&x| x == fast.lo && x == fast.hi),
                "{sessions:?}"
            );
        }
    }
}
