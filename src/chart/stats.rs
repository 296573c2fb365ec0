//! Small statistics for chart inputs.

/// Wilson score 95% interval for `successes` out of `total` (z = 1.96).
///
/// Returns `None` when `total` is 0 or `successes > total`.
pub fn wilson95(successes: u64, total: u64) -> Option<(f64, f64)> {
    if total == 0 || successes > total {
        return None;
    }
    let n = total as f64;
    let p = successes as f64 / n;
    let z = 1.959_963_984_540_054_f64;
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = z * ((p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt()) / denom;
    Some(((centre - half).max(0.0), (centre + half).min(1.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_known_values() {
        let (lo, hi) = wilson95(50, 100).unwrap_or((0.0, 0.0));
        assert!(
            (lo - 0.4038).abs() < 1e-3 && (hi - 0.5962).abs() < 1e-3,
            "{lo} {hi}"
        );
        let (lo, hi) = wilson95(0, 10).unwrap_or((1.0, 1.0));
        assert_eq!(lo, 0.0);
        assert!(hi > 0.2 && hi < 0.35);
        assert!(wilson95(1, 0).is_none());
        assert!(wilson95(3, 2).is_none());
    }
}
