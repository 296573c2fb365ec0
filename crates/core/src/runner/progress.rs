//! The live progress model of a run (pure): counts, rate and ETA from a caller-supplied
//! clock, so it is identical natively, in the browser and in tests.

/// Counters of a run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Progress {
    /// Tasks to run in this invocation (excluding those resumed from a checkpoint).
    pub total: u64,
    /// Tasks finished in this invocation (with a model verdict).
    pub done: u64,
    /// Tasks given up for transport reasons (re-runnable; never model errors).
    pub incomplete: u64,
    /// Tasks skipped because a checkpoint already had them.
    pub resumed: u64,
    /// Tasks whose names were judged correct by the inference loop so far.
    pub names_correct: u64,
    /// Requests sent (including retries).
    pub requests: u64,
    /// Retries.
    pub retries: u64,
    /// Sum of prompt tokens reported by the endpoint.
    pub input_tokens: u64,
    /// Sum of completion tokens reported by the endpoint.
    pub output_tokens: u64,
    /// Seconds since the start when the counters were last updated.
    pub elapsed: f64,
}

/// A point-in-time view for display.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    /// Finished + incomplete tasks.
    pub settled: u64,
    /// Tasks to run.
    pub total: u64,
    /// Settled tasks per second.
    pub rate: f64,
    /// Estimated seconds to go (`None` before the first task settles).
    pub eta: Option<f64>,
}

impl Progress {
    /// A model for `total` tasks, `resumed` of which were already done.
    pub fn new(total: u64, resumed: u64) -> Self {
        Self {
            total,
            resumed,
            ..Self::default()
        }
    }

    /// Tasks that will not be worked on again in this invocation.
    pub fn settled(&self) -> u64 {
        self.done + self.incomplete
    }

    /// Rate and ETA at `elapsed` seconds since the start.
    pub fn snapshot(&self, elapsed: f64) -> Snapshot {
        let settled = self.settled();
        let rate = if elapsed > 0.0 {
            settled as f64 / elapsed
        } else {
            0.0
        };
        let remaining = self.total.saturating_sub(settled);
        let eta = if settled == 0 || rate <= 0.0 {
            None
        } else {
            Some(remaining as f64 / rate)
        };
        Snapshot {
            settled,
            total: self.total,
            rate,
            eta,
        }
    }

    /// One plain log line (used when stderr is not a terminal).
    pub fn line(&self, elapsed: f64) -> String {
        let s = self.snapshot(elapsed);
        let eta = s
            .eta
            .map(|e| format!("{e:.0}s"))
            .unwrap_or_else(|| "?".to_owned());
        format!(
            "[{}/{}] {:.2} task/s eta {} | names ok {} | incomplete {} | retries {} | tokens {}+{}",
            s.settled,
            s.total,
            s.rate,
            eta,
            self.names_correct,
            self.incomplete,
            self.retries,
            self.input_tokens,
            self.output_tokens
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_and_eta_follow_the_fake_clock() {
        let mut p = Progress::new(10, 2);
        assert_eq!(p.snapshot(0.0).eta, None);
        p.done = 3;
        p.incomplete = 1;
        let s = p.snapshot(8.0);
        assert_eq!(s.settled, 4);
        assert!((s.rate - 0.5).abs() < 1e-12);
        assert_eq!(s.eta, Some(12.0));
        assert!(p.line(8.0).starts_with("[4/10] 0.50 task/s eta 12s"));
    }
}
