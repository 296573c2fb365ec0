//! The engine's two feedback controllers: adaptive concurrency (additive increase,
//! multiplicative decrease) and the circuit breaker.

use super::event::{ConcurrencyStats, RequestId};

/// Adaptive concurrency.
///
/// - Decrease: a response with status 429, 503 or 529, or any failed response carrying
///   `Retry-After`, halves the limit (rounding down, never below 1). Signals from requests
///   sent before the last decrease belong to the same episode and are ignored, so one
///   burst of rejections halves the limit once.
/// - Increase: after as many successful responses as the current limit (one "window"),
///   the limit grows by 1, up to the configured maximum.
#[derive(Debug, Clone)]
pub(crate) struct Aimd {
    enabled: bool,
    max: usize,
    limit: usize,
    min_limit: usize,
    successes: usize,
    decreases: u64,
    /// Requests with an id below this were sent before the last decrease.
    epoch: RequestId,
}

impl Aimd {
    pub(crate) fn new(max: usize, enabled: bool) -> Self {
        let max = max.max(1);
        Self {
            enabled,
            max,
            limit: max,
            min_limit: max,
            successes: 0,
            decreases: 0,
            epoch: RequestId(0),
        }
    }

    pub(crate) fn limit(&self) -> usize {
        self.limit
    }

    pub(crate) fn max(&self) -> usize {
        self.max
    }

    /// A rate-limiting signal from request `id`; `next` is the id the next request will get.
    pub(crate) fn on_congestion(&mut self, id: RequestId, next: RequestId) {
        if !self.enabled || id < self.epoch {
            return;
        }
        if self.limit > 1 {
            self.limit /= 2;
            self.min_limit = self.min_limit.min(self.limit);
            self.decreases += 1;
        }
        self.successes = 0;
        self.epoch = next;
    }

    /// A usable response.
    pub(crate) fn on_success(&mut self) {
        if !self.enabled || self.limit >= self.max {
            return;
        }
        self.successes += 1;
        if self.successes >= self.limit {
            self.limit += 1;
            self.successes = 0;
        }
    }

    pub(crate) fn stats(&self) -> ConcurrencyStats {
        ConcurrencyStats {
            max: self.max,
            min_limit: self.min_limit,
            final_limit: self.limit,
            decreases: self.decreases,
        }
    }
}

/// Stops a run when the same non-retryable failure ends `threshold` tasks in a row.
///
/// Only tasks given up at once for a non-retryable response count; the failure's identity
/// is its status plus its message with digits masked, letters lower-cased and white space
/// collapsed (so request ids and timestamps do not make two equal failures differ). Any
/// other settled task (finished, or given up for another reason) ends the row.
#[derive(Debug, Clone)]
pub(crate) struct Breaker {
    threshold: u32,
    signature: Option<String>,
    count: u32,
}

impl Breaker {
    pub(crate) fn new(threshold: u32) -> Self {
        Self {
            threshold,
            signature: None,
            count: 0,
        }
    }

    /// The identity of a failure.
    pub(crate) fn signature(status: u16, message: &str) -> String {
        let mut s = format!("{status}:");
        let mut space = false;
        for c in message.chars().take(300) {
            if c.is_whitespace() {
                space = true;
                continue;
            }
            if space {
                s.push(' ');
                space = false;
            }
            if c.is_ascii_digit() {
                s.push('#');
            } else {
                s.extend(c.to_lowercase());
            }
        }
        s
    }

    /// A task given up for a non-retryable failure; true when the breaker trips.
    pub(crate) fn on_permanent(&mut self, signature: String) -> bool {
        if self.signature.as_deref() == Some(signature.as_str()) {
            self.count += 1;
        } else {
            self.signature = Some(signature);
            self.count = 1;
        }
        self.threshold > 0 && self.count >= self.threshold
    }

    /// Any other settled task.
    pub(crate) fn on_other(&mut self) {
        self.signature = None;
        self.count = 0;
    }

    pub(crate) fn count(&self) -> u32 {
        self.count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aimd_halves_once_per_episode_and_grows_by_one_per_window() {
        let mut a = Aimd::new(32, true);
        a.on_congestion(RequestId(5), RequestId(40));
        assert_eq!(a.limit(), 16);
        a.on_congestion(RequestId(39), RequestId(41));
        assert_eq!(a.limit(), 16, "sent before the decrease: same episode");
        a.on_congestion(RequestId(40), RequestId(50));
        assert_eq!(a.limit(), 8);
        for _ in 0..7 {
            a.on_success();
        }
        assert_eq!(a.limit(), 8);
        a.on_success();
        assert_eq!(a.limit(), 9, "one window of successes adds one");
        for _ in 0..1000 {
            a.on_success();
        }
        assert_eq!(a.limit(), 32, "never above the maximum");
        for i in 0..10 {
            a.on_congestion(RequestId(100 + i * 10), RequestId(105 + i * 10));
        }
        assert_eq!(a.limit(), 1, "never below 1");
        let s = a.stats();
        assert_eq!(
            (s.max, s.min_limit, s.final_limit, s.decreases),
            (32, 1, 1, 7)
        );
        let mut off = Aimd::new(4, false);
        off.on_congestion(RequestId(0), RequestId(1));
        assert_eq!(off.limit(), 4);
    }

    #[test]
    fn the_breaker_counts_equal_failures_in_a_row() {
        let sig = |m: &str| Breaker::signature(401, m);
        assert_eq!(
            sig("HTTP 401:  Invalid key req_123"),
            sig("http 401: invalid   key REQ_987")
        );
        assert_ne!(sig("bad key"), Breaker::signature(403, "bad key"));
        let mut b = Breaker::new(3);
        assert!(!b.on_permanent(sig("x 1")));
        assert!(!b.on_permanent(sig("x 2")));
        b.on_other();
        assert!(!b.on_permanent(sig("x 3")));
        assert!(!b.on_permanent(sig("y")));
        assert!(!b.on_permanent(sig("y")));
        assert!(b.on_permanent(sig("y")));
        assert_eq!(b.count(), 3);
        let mut off = Breaker::new(0);
        assert!((0..100).all(|_| !off.on_permanent(sig("z"))));
    }
}
