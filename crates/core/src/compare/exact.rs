//! Exact small-sample arithmetic: the two-sided binomial (sign / exact McNemar) test and
//! the hypergeometric ratios behind pass^k and pass@k.

/// Largest `n` for which binomial coefficients are summed exactly in `u128`
/// (`C(127, 63) < 2^127`); larger `n` are summed in log space.
const EXACT_MAX_N: u64 = 127;

/// Two-sided exact McNemar test on the discordant counts `b` (A right, B wrong) and `c`
/// (A wrong, B right).
///
/// Under the null hypothesis each discordant pair is equally likely to go either way, so
/// `min(b, c)` follows Binomial(`b + c`, ½); the p-value is twice the lower tail, capped at
/// 1 (the usual "doubled one-sided" definition, which for p = ½ is also the sum of all
/// outcomes at most as likely as the observed one). No discordant pairs give 1.
///
/// Exact in `u128` up to 127 discordant pairs; beyond that the tail is summed in log space
/// (relative error about 1e-12).
pub fn mcnemar_exact(b: u64, c: u64) -> f64 {
    let n = b.saturating_add(c);
    let k = b.min(c);
    if n == 0 {
        return 1.0;
    }
    let p = if n <= EXACT_MAX_N {
        exact_lower_tail(n, k)
    } else {
        log_lower_tail(n, k)
    };
    (2.0 * p).min(1.0)
}

/// `P(X <= k)` for X ~ Binomial(n, ½), summing exact integer coefficients.
fn exact_lower_tail(n: u64, k: u64) -> f64 {
    let mut coef: u128 = 1; // C(n, 0)
    let mut sum: u128 = 1;
    for i in 0..k {
        // C(n, i + 1) = C(n, i) · (n − i) / (i + 1). Dividing out the common factor g of
        // C(n, i) and i + 1 first leaves a divisor that must divide n − i, so every step
        // is exact and no intermediate exceeds the result (at most C(127, 63) < 2^127).
        let num = u128::from(n - i);
        let den = u128::from(i + 1);
        let g = gcd(coef, den);
        coef = (coef / g) * (num / (den / g));
        sum += coef;
    }
    // 2^n as f64 is exact; the ratio rounds once.
    sum as f64 / 2f64.powi(n as i32)
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// `P(X <= k)` for X ~ Binomial(n, ½) in log space (large `n`).
fn log_lower_tail(n: u64, k: u64) -> f64 {
    let ln2n = n as f64 * std::f64::consts::LN_2;
    let mut log_coef = 0.0f64; // ln C(n, 0)
    let mut terms = Vec::with_capacity(k as usize + 1);
    terms.push(log_coef - ln2n);
    for i in 0..k {
        log_coef += ((n - i) as f64).ln() - ((i + 1) as f64).ln();
        terms.push(log_coef - ln2n);
    }
    let max = terms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !max.is_finite() {
        return 0.0;
    }
    let sum: f64 = terms.iter().map(|t| (t - max).exp()).sum();
    (max + sum.ln()).exp().min(1.0)
}

/// `C(c, j) / C(n, j)`: the probability that `j` trials drawn without replacement from `n`
/// trials of which `c` passed all passed. `None` when `j > n` (undefined); 0 when `j > c`;
/// 1 when `j == 0`.
pub fn all_pass_ratio(c: u32, n: u32, j: u32) -> Option<f64> {
    if j > n || c > n {
        return None;
    }
    if j > c {
        return Some(0.0);
    }
    // Π_{i<j} (c − i) / (n − i): every factor is in (0, 1], so the product never overflows.
    let mut r = 1.0f64;
    for i in 0..j {
        r *= f64::from(c - i) / f64::from(n - i);
    }
    Some(r)
}

/// `1 − C(n − c, j) / C(n, j)`: the probability that at least one of `j` trials drawn
/// without replacement from `n` trials (`c` passed) passed. `None` when `j > n`.
pub fn any_pass_ratio(c: u32, n: u32, j: u32) -> Option<f64> {
    if c > n {
        return None;
    }
    all_pass_ratio(n - c, n, j).map(|none| 1.0 - none)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mcnemar_small_cases() {
        // 5 vs 15: 2 · (1 + 20 + 190 + 1140 + 4845 + 15504) / 2^20 = 43400 / 1048576.
        assert!((mcnemar_exact(5, 15) - 43_400.0 / 1_048_576.0).abs() < 1e-15);
        assert_eq!(mcnemar_exact(15, 5), mcnemar_exact(5, 15));
        assert_eq!(mcnemar_exact(0, 0), 1.0);
        assert_eq!(mcnemar_exact(3, 3), 1.0);
        // 0 vs 1: 2 · ½ = 1.
        assert_eq!(mcnemar_exact(0, 1), 1.0);
        // 0 vs 6: 2 / 64.
        assert_eq!(mcnemar_exact(0, 6), 2.0 / 64.0);
    }

    #[test]
    fn log_space_agrees_with_exact_near_the_switch() {
        for (n, k) in [(100u64, 30u64), (127, 50), (127, 63), (60, 0)] {
            let a = exact_lower_tail(n, k);
            let b = log_lower_tail(n, k);
            assert!(
                (a - b).abs() <= 1e-12 * a.max(1e-300),
                "{n} {k}: {a} vs {b}"
            );
        }
    }

    #[test]
    fn ratios() {
        assert_eq!(all_pass_ratio(2, 4, 1), Some(0.5));
        // C(2,2)/C(4,2) = 1/6.
        assert!((all_pass_ratio(2, 4, 2).unwrap_or(0.0) - 1.0 / 6.0).abs() < 1e-15);
        assert_eq!(all_pass_ratio(2, 4, 3), Some(0.0));
        assert_eq!(all_pass_ratio(2, 4, 5), None);
        assert_eq!(all_pass_ratio(0, 0, 0), Some(1.0));
        // 1 − C(2,2)/C(4,2) = 5/6.
        assert!((any_pass_ratio(2, 4, 2).unwrap_or(0.0) - 5.0 / 6.0).abs() < 1e-15);
        assert_eq!(any_pass_ratio(2, 4, 3), Some(1.0));
        assert_eq!(any_pass_ratio(0, 4, 4), Some(0.0));
        assert_eq!(any_pass_ratio(5, 4, 1), None);
    }
}
