//! Retry policy (pure): which failures are retried, and how long to wait before the next
//! attempt (exponential backoff with jitter, honouring `Retry-After`). PROTOCOL §2.7 and H2:
//! the official driver retries 429/500/503 a few times; wildtool retries every transient
//! failure up to a cap and then records the task as *incomplete (transport)*.

use std::time::Duration;

/// How a failed attempt should be treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureClass {
    /// Worth another attempt (429, 5xx, 408, network errors, timeouts, garbled bodies).
    Transient,
    /// Retrying cannot help (400, 401, 403, 404, 422 …): the task is incomplete at once.
    Permanent,
}

/// Classifies an HTTP status of a failed response.
pub fn classify_status(status: u16) -> FailureClass {
    match status {
        408 | 409 | 425 | 429 => FailureClass::Transient,
        500..=599 => FailureClass::Transient,
        _ => FailureClass::Permanent,
    }
}

/// Parses a `Retry-After` header value given in seconds (`"3"`, `"1.5"`). HTTP dates are
/// not interpreted (the exponential backoff applies instead).
pub fn parse_retry_after(value: &str) -> Option<Duration> {
    let secs: f64 = value.trim().parse().ok()?;
    if secs.is_finite() && secs >= 0.0 {
        Some(Duration::from_secs_f64(secs.min(86_400.0)))
    } else {
        None
    }
}

/// Retry and timeout settings.
#[derive(Debug, Clone, PartialEq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (so `max_retries + 1` attempts at most).
    pub max_retries: u32,
    /// Delay before the first retry.
    pub base_delay: Duration,
    /// Upper bound of any computed delay (a `Retry-After` is honoured up to `max_retry_after`).
    pub max_delay: Duration,
    /// Upper bound of a server-requested `Retry-After` wait.
    pub max_retry_after: Duration,
    /// Fraction of the computed delay that is randomised (0 = none, 1 = "full jitter").
    pub jitter: f64,
    /// Per-request timeout.
    pub timeout: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: crate::registry::DEFAULTS.retries,
            base_delay: Duration::from_secs_f64(crate::registry::DEFAULTS.backoff_secs),
            max_delay: Duration::from_secs(120),
            max_retry_after: Duration::from_secs(300),
            jitter: 0.5,
            timeout: Duration::from_secs_f64(crate::registry::DEFAULTS.timeout_secs),
        }
    }
}

impl RetryPolicy {
    /// The wait before retry number `retry` (1-based), or `None` when the cap is reached.
    ///
    /// `unit` is a uniform random number in `[0, 1)` supplied by the caller (the policy
    /// stays deterministic for tests). The delay is `base · 2^(retry-1)` capped at
    /// `max_delay`, of which the `jitter` fraction is scaled by `unit`; a `Retry-After`
    /// from the server is a lower bound (capped at `max_retry_after`).
    pub fn delay(&self, retry: u32, retry_after: Option<Duration>, unit: f64) -> Option<Duration> {
        if retry == 0 || retry > self.max_retries {
            return None;
        }
        let exp = 2f64.powi(retry.saturating_sub(1).min(30) as i32);
        let full = (self.base_delay.as_secs_f64() * exp).min(self.max_delay.as_secs_f64());
        let jitter = self.jitter.clamp(0.0, 1.0);
        let unit = if unit.is_finite() {
            unit.clamp(0.0, 1.0)
        } else {
            0.0
        };
        let computed = full * (1.0 - jitter) + full * jitter * unit;
        let floor = retry_after
            .map(|d| d.min(self.max_retry_after).as_secs_f64())
            .unwrap_or(0.0);
        Some(Duration::from_secs_f64(computed.max(floor)))
    }
}

/// A tiny deterministic generator for jitter (xorshift64*), so runs need no RNG crate.
#[derive(Debug, Clone)]
pub struct Jitter {
    state: u64,
}

impl Jitter {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        Self {
            state: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
        }
    }

    /// The next number in `[0, 1)`.
    pub fn next_unit(&mut self) -> f64 {
        let mut x = self.state;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.state = x;
        (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> RetryPolicy {
        RetryPolicy {
            max_retries: 4,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(500),
            max_retry_after: Duration::from_secs(2),
            jitter: 0.0,
            timeout: Duration::from_secs(1),
        }
    }

    #[test]
    fn backoff_doubles_and_is_capped() {
        let p = policy();
        let ms = |r| p.delay(r, None, 0.0).map(|d| d.as_millis());
        assert_eq!(ms(1), Some(100));
        assert_eq!(ms(2), Some(200));
        assert_eq!(ms(3), Some(400));
        assert_eq!(ms(4), Some(500), "capped at max_delay");
        assert_eq!(ms(5), None, "retry cap reached");
        assert_eq!(ms(0), None);
    }

    #[test]
    fn jitter_scales_within_the_band() {
        let p = RetryPolicy {
            jitter: 0.5,
            ..policy()
        };
        let lo = p.delay(2, None, 0.0).map(|d| d.as_millis());
        let hi = p.delay(2, None, 0.999_999).map(|d| d.as_millis());
        assert_eq!(lo, Some(100));
        assert_eq!(hi, Some(199));
        let mut j = Jitter::new(3);
        for _ in 0..1000 {
            let u = j.next_unit();
            assert!((0.0..1.0).contains(&u));
        }
    }

    #[test]
    fn retry_after_is_a_floor_and_is_capped() {
        let p = policy();
        let d = p
            .delay(1, Some(Duration::from_secs(1)), 0.0)
            .map(|d| d.as_millis());
        assert_eq!(d, Some(1000));
        let d = p
            .delay(1, Some(Duration::from_secs(60)), 0.0)
            .map(|d| d.as_millis());
        assert_eq!(d, Some(2000), "capped at max_retry_after");
        assert_eq!(
            parse_retry_after(" 1.5 "),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), None);
        assert_eq!(parse_retry_after("-1"), None);
    }

    #[test]
    fn statuses_are_classified() {
        assert_eq!(classify_status(429), FailureClass::Transient);
        assert_eq!(classify_status(503), FailureClass::Transient);
        assert_eq!(classify_status(500), FailureClass::Transient);
        assert_eq!(classify_status(401), FailureClass::Permanent);
        assert_eq!(classify_status(400), FailureClass::Permanent);
    }
}
