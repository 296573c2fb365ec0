//! First-token latency: the time from sending a streamed request to the first chunk that
//! carried model output, summarised over a run.

/// A summary of latencies, in seconds.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LatencySummary {
    /// How many requests were measured.
    pub count: u64,
    /// The median (the mean of the two middle values for an even count).
    pub median: f64,
    /// The 90th percentile (nearest rank).
    pub p90: f64,
    /// The arithmetic mean.
    pub mean: f64,
    /// The largest.
    pub max: f64,
}

/// Latencies collected one at a time, kept sorted.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Latencies {
    sorted: Vec<f64>,
    sum: f64,
}

impl Latencies {
    /// No measurement yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one measurement (negative or non-finite values are ignored).
    pub fn push(&mut self, seconds: f64) {
        if !seconds.is_finite() || seconds < 0.0 {
            return;
        }
        let at = self.sorted.partition_point(|x| *x <= seconds);
        self.sorted.insert(at, seconds);
        self.sum += seconds;
    }

    /// The summary, `None` before the first measurement.
    pub fn summary(&self) -> Option<LatencySummary> {
        let n = self.sorted.len();
        let last = *self.sorted.last()?;
        let median = if n % 2 == 1 {
            self.sorted[n / 2]
        } else {
            (self.sorted[n / 2 - 1] + self.sorted[n / 2]) / 2.0
        };
        let rank = (n * 9).div_ceil(10).max(1);
        Some(LatencySummary {
            count: n as u64,
            median,
            p90: self.sorted[rank - 1],
            mean: self.sum / n as f64,
            max: last,
        })
    }
}

impl LatencySummary {
    /// `first token 0.42 s median (p90 0.80 s, 12 requests)`.
    pub fn describe(&self) -> String {
        format!(
            "first token {:.2} s median (p90 {:.2} s, {} request{})",
            self.median,
            self.p90,
            self.count,
            if self.count == 1 { "" } else { "s" }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_is_order_free_and_exact() {
        let mut a = Latencies::new();
        assert_eq!(a.summary(), None);
        for x in [0.5, 0.1, 0.9, 0.3, f64::NAN, -1.0] {
            a.push(x);
        }
        let s = a.summary().expect("some");
        assert_eq!(s.count, 4);
        assert_eq!(s.median, 0.4);
        assert_eq!(s.p90, 0.9);
        assert_eq!(s.max, 0.9);
        assert!((s.mean - 0.45).abs() < 1e-12);
        let mut b = Latencies::new();
        for x in [0.9, 0.3, 0.5, 0.1] {
            b.push(x);
        }
        assert_eq!(a, b);
        assert_eq!(
            s.describe(),
            "first token 0.40 s median (p90 0.90 s, 4 requests)"
        );
    }
}
