//! Small statistics for chart inputs: the report's Wilson interval, as an `Option`.

use crate::report::intervals::wilson;

/// Wilson score 95% interval for `successes` out of `total` — the same function the
/// report uses, so charts and numbers agree.
///
/// Returns `None` when `total` is 0 or `successes > total`.
pub fn wilson95(successes: u64, total: u64) -> Option<(f64, f64)> {
    if total == 0 || successes > total {
        return None;
    }
    let i = wilson(successes, total);
    Some((i.lo, i.hi))
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
