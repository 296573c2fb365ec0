//! The session bootstrap shared by the trial curves and the paired comparisons.
//!
//! Sessions are the resampling units (a session's tasks share context, so they are not
//! independent). Every statistic is a ratio `Σ sum / Σ count` over the resampled units,
//! so one pass over the resamples serves many statistics ("slots") at once, all from the
//! same draws. Intervals are percentile intervals (95% unless asked otherwise),
//! deterministic for a given seed.

use crate::report::intervals::{Interval, SplitMix};

/// Per-unit contributions to each slot: `sum` and `count`, unit-major.
#[derive(Debug, Clone)]
pub(crate) struct Units {
    slots: usize,
    sums: Vec<f64>,
    counts: Vec<f64>,
}

impl Units {
    /// `units` units with `slots` statistics each, all zero.
    pub(crate) fn new(units: usize, slots: usize) -> Self {
        Units {
            slots,
            sums: vec![0.0; units * slots],
            counts: vec![0.0; units * slots],
        }
    }

    /// Adds `value` (one observation) to `slot` of `unit`.
    pub(crate) fn add(&mut self, unit: usize, slot: usize, value: f64) {
        if slot >= self.slots {
            return;
        }
        let at = unit * self.slots + slot;
        if let (Some(s), Some(c)) = (self.sums.get_mut(at), self.counts.get_mut(at)) {
            *s += value;
            *c += 1.0;
        }
    }

    fn len(&self) -> usize {
        self.sums.len().checked_div(self.slots).unwrap_or(0)
    }

    /// The point estimate of each slot over all units (`None` without observations).
    pub(crate) fn estimates(&self) -> Vec<Option<f64>> {
        let mut sums = vec![0.0; self.slots];
        let mut counts = vec![0.0; self.slots];
        for u in 0..self.len() {
            self.accumulate(u, &mut sums, &mut counts);
        }
        sums.iter()
            .zip(&counts)
            .map(|(s, c)| (*c > 0.0).then(|| s / c))
            .collect()
    }

    fn accumulate(&self, unit: usize, sums: &mut [f64], counts: &mut [f64]) {
        let from = unit * self.slots;
        let (Some(us), Some(uc)) = (
            self.sums.get(from..from + self.slots),
            self.counts.get(from..from + self.slots),
        ) else {
            return;
        };
        for ((acc, v), (acc_c, c)) in sums.iter_mut().zip(us).zip(counts.iter_mut().zip(uc)) {
            *acc += v;
            *acc_c += c;
        }
    }

    /// Two-sided percentile intervals at `level` (0.95 for 95%) of every slot over
    /// `resamples` resamples of the units (drawn with replacement, as many as there are
    /// units). A slot without observations in a resample skips that resample; a slot with
    /// none at all gets `None`.
    pub(crate) fn bootstrap(
        &self,
        resamples: usize,
        seed: u64,
        level: f64,
    ) -> Vec<Option<Interval>> {
        let units = self.len();
        let mut draws: Vec<Vec<f64>> = vec![Vec::with_capacity(resamples); self.slots];
        if units > 0 {
            let mut rng = SplitMix(seed);
            let mut sums = vec![0.0; self.slots];
            let mut counts = vec![0.0; self.slots];
            for _ in 0..resamples {
                sums.iter_mut().for_each(|v| *v = 0.0);
                counts.iter_mut().for_each(|v| *v = 0.0);
                for _ in 0..units {
                    self.accumulate(rng.below(units), &mut sums, &mut counts);
                }
                for ((d, s), c) in draws.iter_mut().zip(&sums).zip(&counts) {
                    if *c > 0.0 {
                        d.push(s / c);
                    }
                }
            }
        }
        draws
            .into_iter()
            .map(|d| percentile_interval(d, level))
            .collect()
    }
}

/// The `(1 − level)/2` and `(1 + level)/2` order statistics (nearest rank on `len − 1`, as
/// the report's bootstrap does): the 2.5% and 97.5% ones for `level` 0.95.
fn percentile_interval(mut values: Vec<f64>, level: f64) -> Option<Interval> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let last = values.len() - 1;
    let at = |q: f64| {
        let idx = ((q * last as f64).round() as usize).min(last);
        values.get(idx).copied().unwrap_or(0.0)
    };
    // 95% uses the literal quantiles, so its ranks never move by a rounding of 1 − level.
    let (lo, hi) = if (level - 0.95).abs() < 1e-12 {
        (0.025, 0.975)
    } else {
        let tail = ((1.0 - level) / 2.0).clamp(0.0, 0.5);
        (tail, 1.0 - tail)
    };
    Some(Interval {
        lo: at(lo),
        hi: at(hi),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratio_of_sums_and_reproducible_intervals() {
        let mut u = Units::new(3, 2);
        u.add(0, 0, 1.0);
        u.add(0, 0, 0.0);
        u.add(1, 0, 1.0);
        u.add(2, 1, 0.5);
        let est = u.estimates();
        assert_eq!(est, vec![Some(2.0 / 3.0), Some(0.5)]);
        let a = u.bootstrap(500, 7, 0.95);
        assert_eq!(a, u.bootstrap(500, 7, 0.95));
        // Slot 1 has one observation: every resample that sees it gives 0.5.
        assert_eq!(
            a.get(1).copied().flatten(),
            Some(Interval { lo: 0.5, hi: 0.5 })
        );
        let slot0 = a
            .first()
            .copied()
            .flatten()
            .unwrap_or(Interval { lo: 9.0, hi: 9.0 });
        assert!(slot0.lo >= 0.0 && slot0.hi <= 1.0 && slot0.lo <= slot0.hi);
        assert_eq!(Units::new(0, 2).bootstrap(10, 1, 0.95), vec![None, None]);
    }
}
