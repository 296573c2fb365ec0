//! The test for trend over the paired sessions of a sweep.
//!
//! A sweep's levels are paired session by session: session `i` of every level shares the
//! domain, date, distractors and topology draws, so session `i` across the levels is a
//! *block*, and the question is whether accuracy moves with the level *within* blocks.
//!
//! The statistic is the stratified linear-trend statistic (the Cochran–Armitage trend
//! test extended to strata by Mantel, with every paired session a stratum):
//!
//! `T = Σᵢ Σₗ (xₗ − x̄) · yᵢₗ`
//!
//! where `xₗ` is the score of level `l` (its numeric value, or its position) and `yᵢₗ` the
//! task accuracy of session `i` at level `l`. Under the null hypothesis — the level does
//! not change a session's accuracy, so the `L` accuracies of a block are exchangeable —
//! every within-block permutation of `yᵢ` is equally likely. That gives
//!
//! * an exact conditional mean `E[T] = 0` and variance
//!   `Var[T] = Σᵢ Sxx · Σₗ (yᵢₗ − ȳᵢ)² / (L − 1)` with `Sxx = Σₗ (xₗ − x̄)²`, hence a
//!   normal approximation `z = T / √Var[T]` (good with a few dozen informative blocks);
//! * a Monte Carlo permutation p-value that needs no approximation: the blocks are
//!   shuffled independently `R` times with a fixed seed and `p = (1 + #{|T*| ≥ |T|}) /
//!   (R + 1)`.
//!
//! Blocks are the units: tasks of one session share context and are not independent,
//! and whole blocks are assumed independent of each other. With two levels the test is
//! the paired sign-flip test of the per-session differences. The effect size is the mean
//! within-block least-squares slope `b̄ = T / (n · Sxx)` (accuracy per unit of the level
//! score; with equal task counts it equals the pooled slope), with a 95% percentile
//! interval from resampling blocks.

use serde::{Deserialize, Serialize};

use crate::report::intervals::{Interval, SplitMix};

/// Within-block permutations of the permutation p-value.
pub const PERMUTATIONS: usize = 10_000;
/// Block resamples of the slope's interval.
pub const RESAMPLES: usize = 2_000;
/// Fixed seed of both, so a sweep's numbers are reproducible.
pub const SEED: u64 = 0x5EED_5EE9;

/// The trend test's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrendOptions {
    /// Within-block permutations.
    pub permutations: usize,
    /// Block resamples for the slope interval.
    pub resamples: usize,
    /// SplitMix64 seed.
    pub seed: u64,
}

impl Default for TrendOptions {
    fn default() -> Self {
        Self {
            permutations: PERMUTATIONS,
            resamples: RESAMPLES,
            seed: SEED,
        }
    }
}

/// The result of the trend test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trend {
    /// What was computed, in words.
    pub method: String,
    /// The level scores `xₗ`, in level order.
    pub scores: Vec<f64>,
    /// Blocks (paired sessions) used: scored at every level.
    pub blocks: u64,
    /// Mean within-block slope: change in task accuracy per unit of the level score.
    pub slope: f64,
    /// 95% percentile interval of the slope (blocks resampled).
    pub slope_ci95: Interval,
    /// The statistic `T`.
    pub statistic: f64,
    /// `T / √Var[T]` (0 when no block varies).
    pub z: f64,
    /// Two-sided p-value of the normal approximation.
    pub p_normal: f64,
    /// Two-sided Monte Carlo permutation p-value.
    pub p_permutation: f64,
    /// Permutations drawn.
    pub permutations: u64,
    /// Block resamples for the slope interval.
    pub resamples: u64,
    /// The seed of both.
    pub seed: u64,
}

/// The method sentence recorded with every result.
pub const METHOD: &str = "stratified linear trend test (Cochran-Armitage/Mantel) with each paired session as a stratum: statistic T = sum over sessions and levels of (score - mean score) x session task accuracy; p-values from within-session permutations of the levels (Monte Carlo) and from the normal approximation; slope = mean within-session least-squares slope, 95% interval by resampling paired sessions";

/// Runs the test on `rows` (one block per row, one accuracy per level, in the order of
/// `scores`). `None` when there are fewer than two levels, fewer than two blocks, a row
/// of the wrong length, a non-finite number, or scores that are all equal.
pub fn trend_test(scores: &[f64], rows: &[Vec<f64>], opts: TrendOptions) -> Option<Trend> {
    let levels = scores.len();
    if levels < 2
        || rows.len() < 2
        || scores.iter().any(|x| !x.is_finite())
        || rows
            .iter()
            .any(|r| r.len() != levels || r.iter().any(|y| !y.is_finite()))
    {
        return None;
    }
    let mean_x = scores.iter().sum::<f64>() / levels as f64;
    let centred: Vec<f64> = scores.iter().map(|x| x - mean_x).collect();
    let sxx: f64 = centred.iter().map(|c| c * c).sum();
    if sxx <= 0.0 {
        return None;
    }
    let block_stat = |row: &[f64]| -> f64 { centred.iter().zip(row).map(|(c, y)| c * y).sum() };
    let stats: Vec<f64> = rows.iter().map(|r| block_stat(r)).collect();
    let statistic: f64 = stats.iter().sum();
    let variance: f64 = rows
        .iter()
        .map(|r| {
            let mean = r.iter().sum::<f64>() / levels as f64;
            let ss: f64 = r.iter().map(|y| (y - mean) * (y - mean)).sum();
            sxx * ss / (levels as f64 - 1.0)
        })
        .sum();
    let (z, p_normal) = if variance > 0.0 {
        let z = statistic / variance.sqrt();
        (z, two_sided_normal_p(z))
    } else {
        (0.0, 1.0)
    };
    let n = rows.len() as f64;
    let slope = statistic / (n * sxx);

    // Permutation p-value: every block shuffled on its own.
    let mut rng = SplitMix(opts.seed);
    let tolerance = 1e-9 * (1.0 + statistic.abs());
    let mut extreme = 0u64;
    let mut buffer = vec![0.0; levels];
    for _ in 0..opts.permutations {
        let mut t = 0.0;
        for row in rows {
            buffer.copy_from_slice(row);
            for k in (1..levels).rev() {
                buffer.swap(k, rng.below(k + 1));
            }
            t += block_stat(&buffer);
        }
        if t.abs() >= statistic.abs() - tolerance {
            extreme += 1;
        }
    }
    let p_permutation = (1.0 + extreme as f64) / (1.0 + opts.permutations as f64);

    // Slope interval: blocks resampled with replacement.
    let mut slopes: Vec<f64> = Vec::with_capacity(opts.resamples);
    for _ in 0..opts.resamples {
        let mut t = 0.0;
        for _ in 0..rows.len() {
            t += stats.get(rng.below(rows.len())).copied().unwrap_or(0.0);
        }
        slopes.push(t / (n * sxx));
    }
    slopes.sort_by(f64::total_cmp);
    let at = |q: f64| -> f64 {
        let last = slopes.len().saturating_sub(1);
        let idx = ((q * last as f64).round() as usize).min(last);
        slopes.get(idx).copied().unwrap_or(slope)
    };
    Some(Trend {
        method: METHOD.to_owned(),
        scores: scores.to_vec(),
        blocks: rows.len() as u64,
        slope,
        slope_ci95: Interval {
            lo: at(0.025),
            hi: at(0.975),
        },
        statistic,
        z,
        p_normal,
        p_permutation: p_permutation.min(1.0),
        permutations: opts.permutations as u64,
        resamples: opts.resamples as u64,
        seed: opts.seed,
    })
}

/// Two-sided p-value of a standard normal statistic: `P(|Z| ≥ |z|) = erfc(|z| / √2)`.
pub fn two_sided_normal_p(z: f64) -> f64 {
    if !z.is_finite() {
        return if z.is_nan() { 1.0 } else { 0.0 };
    }
    erfc(z.abs() / std::f64::consts::SQRT_2).clamp(0.0, 1.0)
}

/// The complementary error function for `x ≥ 0` (negative `x` mirrored), to about 1e-14
/// relative: below 3 from the everywhere-positive series
/// `erf x = (2/√π) e^{−x²} Σ 2ⁿ x^{2n+1} / (1·3···(2n+1))`, above it from the continued
/// fraction `erfc x = e^{−x²}/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + …))))`, evaluated
/// from the tail.
pub fn erfc(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x < 0.0 {
        return 2.0 - erfc(-x);
    }
    let two_over_sqrt_pi = std::f64::consts::FRAC_2_SQRT_PI;
    if x < 3.0 {
        let x2 = x * x;
        let mut term = x;
        let mut sum = x;
        let mut n = 0.0;
        while term > sum * 1e-17 {
            n += 1.0;
            term *= 2.0 * x2 / (2.0 * n + 1.0);
            sum += term;
            if n > 500.0 {
                break;
            }
        }
        1.0 - two_over_sqrt_pi * (-x2).exp() * sum
    } else {
        if x > 27.0 {
            return 0.0;
        }
        let mut tail = x;
        for k in (1..=80).rev() {
            tail = x + (k as f64 / 2.0) / tail;
        }
        (-x * x).exp() / (std::f64::consts::PI.sqrt() * tail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erfc_matches_reference_values() {
        // Reference values (CPython's math.erfc).
        let cases = [
            (0.0, 1.0),
            (0.5, 0.479_500_122_186_953_5),
            (1.0, 0.157_299_207_050_285_1),
            (2.0, 0.004_677_734_981_047_266),
            (2.9, 4.109_787_809_945_886e-5),
            (3.0, 2.209_049_699_858_544e-5),
            (4.0, 1.541_725_790_028_002e-8),
            (6.0, 2.151_973_671_249_892e-17),
        ];
        for (x, want) in cases {
            let got = erfc(x);
            assert!(
                ((got - want) / want).abs() < 1e-10,
                "erfc({x}) = {got}, want {want}"
            );
        }
        assert!((erfc(-1.0) - (2.0 - 0.157_299_207_050_285_1)).abs() < 1e-12);
        // z = 1.959964: two-sided 5%.
        assert!((two_sided_normal_p(1.959_963_984_540_054) - 0.05).abs() < 1e-9);
    }

    #[test]
    fn no_variation_gives_no_evidence() {
        let rows = vec![vec![1.0, 1.0, 1.0]; 5];
        let t = trend_test(&[0.0, 1.0, 2.0], &rows, TrendOptions::default());
        let t = t.unwrap_or_else(|| panic!("a result"));
        assert_eq!((t.z, t.p_normal, t.p_permutation), (0.0, 1.0, 1.0));
        assert_eq!(t.slope, 0.0);
        assert!(trend_test(
            &[1.0, 1.0],
            &[vec![0.0, 1.0], vec![1.0, 0.5]],
            TrendOptions::default()
        )
        .is_none());
        assert!(trend_test(&[0.0, 1.0], &rows[..1], TrendOptions::default()).is_none());
    }
}
