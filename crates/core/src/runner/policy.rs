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

/// Parses a `Retry-After` header value given in seconds (`"3"`, `"1.5"`). HTTP dates need
/// the current time: see [`retry_after_secs`].
pub fn parse_retry_after(value: &str) -> Option<Duration> {
    retry_after_secs(value, f64::NAN).map(Duration::from_secs_f64)
}

/// Longest server-requested wait that is represented at all (longer ones are cut to it;
/// the user's settings cap them much further, see [`RetryPolicy::retry_after_cap`]).
const RETRY_AFTER_CEILING: f64 = 86_400.0;

/// The wait a `Retry-After` value asks for, in seconds: a number of seconds (`"3"`,
/// `"1.5"`), or an HTTP date (IMF-fixdate, RFC 850 or asctime form) read relative to
/// `now_unix` (Unix seconds; a date in the past asks for no wait). `None` for anything
/// else, and for a date when `now_unix` is not finite.
pub fn retry_after_secs(value: &str, now_unix: f64) -> Option<f64> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| secs.min(RETRY_AFTER_CEILING));
    }
    if !now_unix.is_finite() {
        return None;
    }
    let at = parse_http_date(value)? as f64;
    Some((at - now_unix).clamp(0.0, RETRY_AFTER_CEILING))
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// Parses an HTTP date into Unix seconds. Accepts the three forms HTTP allows:
/// `Sun, 06 Nov 1994 08:49:37 GMT` (IMF-fixdate), `Sunday, 06-Nov-94 08:49:37 GMT`
/// (RFC 850; two-digit years 70–99 are 19xx, 00–69 are 20xx) and
/// `Sun Nov  6 08:49:37 1994` (asctime). The weekday is not checked against the date.
pub fn parse_http_date(value: &str) -> Option<i64> {
    let value = value.trim();
    let (day, month, year, time) = if let Some((_, rest)) = value.split_once(',') {
        let parts: Vec<&str> = rest.split_whitespace().collect();
        match parts.as_slice() {
            [d, m, y, t, "GMT"] => (*d, *m, y.parse::<i64>().ok()?, *t),
            [dmy, t, "GMT"] => {
                let mut it = dmy.split('-');
                let (d, m, y) = (it.next()?, it.next()?, it.next()?);
                if it.next().is_some() || y.len() != 2 {
                    return None;
                }
                let yy = y.parse::<i64>().ok()?;
                (d, m, if yy < 70 { 2000 + yy } else { 1900 + yy }, *t)
            }
            _ => return None,
        }
    } else {
        match value.split_whitespace().collect::<Vec<_>>().as_slice() {
            [_, m, d, t, y] => (*d, *m, y.parse::<i64>().ok()?, *t),
            _ => return None,
        }
    };
    let day: i64 = day.parse().ok().filter(|d| (1..=31).contains(d))?;
    let month = MONTHS.iter().position(|m| *m == month)? as i64 + 1;
    if !(1..=9999).contains(&year) {
        return None;
    }
    let mut hms = time
        .split(':')
        .map(|p| (p.len() == 2).then(|| p.parse::<i64>().ok()).flatten());
    let (h, m, s) = (hms.next()??, hms.next()??, hms.next()??);
    if hms.next().is_some() || h > 23 || m > 59 || s > 60 {
        return None;
    }
    Some(days_from_civil(year, month, day) * 86_400 + h * 3_600 + m * 60 + s)
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Retry and timeout settings.
#[derive(Debug, Clone, PartialEq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (so `max_retries + 1` attempts at most).
    pub max_retries: u32,
    /// Delay before the first retry.
    pub base_delay: Duration,
    /// Upper bound of any computed delay.
    pub max_delay: Duration,
    /// Absolute upper bound of a server-requested `Retry-After` wait (the user's settings
    /// usually cap it further: [`RetryPolicy::retry_after_cap`]).
    pub max_retry_after: Duration,
    /// Fraction of the computed delay that is randomised (0 = none, 1 = "full jitter").
    pub jitter: f64,
    /// Per-request timeout.
    pub timeout: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: super::registry::DEFAULTS.retries,
            base_delay: Duration::from_secs_f64(super::registry::DEFAULTS.backoff_secs),
            max_delay: Duration::from_secs(120),
            max_retry_after: Duration::from_secs(300),
            jitter: 0.5,
            timeout: Duration::from_secs_f64(super::registry::DEFAULTS.timeout_secs),
        }
    }
}

impl RetryPolicy {
    /// The longest wait the policy's own backoff ever produces: `base · 2^(max_retries−1)`,
    /// at most `max_delay` (zero when no retry is allowed).
    pub fn longest_backoff(&self) -> Duration {
        if self.max_retries == 0 {
            return Duration::ZERO;
        }
        let exp = 2f64.powi(self.max_retries.saturating_sub(1).min(30) as i32);
        let secs = (self.base_delay.as_secs_f64() * exp).min(self.max_delay.as_secs_f64());
        Duration::from_secs_f64(secs.max(0.0))
    }

    /// The longest server-requested wait that is honoured:
    /// `min(longest_backoff, timeout, max_retry_after)`. A server cannot make a run wait
    /// longer than the user's own backoff settings would, nor longer than one request may
    /// take.
    pub fn retry_after_cap(&self) -> Duration {
        self.longest_backoff()
            .min(self.timeout)
            .min(self.max_retry_after)
    }

    /// The wait before retry number `retry` (1-based), or `None` when the cap is reached.
    ///
    /// `unit` is a uniform random number in `[0, 1)` supplied by the caller (the policy
    /// stays deterministic for tests). The delay is `base · 2^(retry-1)` capped at
    /// `max_delay`, of which the `jitter` fraction is scaled by `unit`; a `Retry-After`
    /// from the server is a lower bound, itself capped at [`RetryPolicy::retry_after_cap`]:
    /// the wait is `max(backoff, min(retry_after, cap))`.
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
            .map(|d| d.min(self.retry_after_cap()).as_secs_f64())
            .unwrap_or(0.0);
        Some(Duration::from_secs_f64(computed.max(floor).max(0.0)))
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
    fn retry_after_is_a_floor_capped_by_the_users_settings() {
        // Longest own backoff: 100 ms · 2^3 = 800 ms, cut to max_delay 500 ms.
        let p = RetryPolicy {
            max_delay: Duration::from_secs(10),
            ..policy()
        };
        assert_eq!(p.longest_backoff(), Duration::from_millis(800));
        assert_eq!(p.retry_after_cap(), Duration::from_millis(800));
        let ms = |p: &RetryPolicy, ra: u64| {
            p.delay(1, Some(Duration::from_millis(ra)), 0.0)
                .map(|d| d.as_millis())
        };
        assert_eq!(ms(&p, 300), Some(300), "honoured below the cap");
        assert_eq!(
            ms(&p, 60_000),
            Some(800),
            "capped at the longest own backoff"
        );
        assert_eq!(ms(&policy(), 60_000), Some(500), "which max_delay caps");
        let short = RetryPolicy {
            timeout: Duration::from_millis(250),
            ..p.clone()
        };
        assert_eq!(ms(&short, 60_000), Some(250), "and the timeout caps");
        let tight = RetryPolicy {
            max_retry_after: Duration::from_millis(100),
            ..p.clone()
        };
        assert_eq!(ms(&tight, 60_000), Some(100), "and max_retry_after caps");
        let none = RetryPolicy {
            max_retries: 0,
            ..p
        };
        assert_eq!(none.retry_after_cap(), Duration::ZERO);
        assert_eq!(
            parse_retry_after(" 1.5 "),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), None);
        assert_eq!(parse_retry_after("-1"), None);
        assert_eq!(parse_retry_after("inf"), None);
        assert_eq!(parse_retry_after("NaN"), None);
    }

    #[test]
    fn http_dates_in_all_three_forms() {
        // 1994-11-06 08:49:37 UTC = 784111777 (RFC 9110's example date).
        for form in [
            "Sun, 06 Nov 1994 08:49:37 GMT",
            "Sunday, 06-Nov-94 08:49:37 GMT",
            "Sun Nov  6 08:49:37 1994",
        ] {
            assert_eq!(parse_http_date(form), Some(784_111_777), "{form}");
        }
        assert_eq!(parse_http_date("Thu, 01 Jan 1970 00:00:00 GMT"), Some(0));
        assert_eq!(
            parse_http_date("Tue, 29 Feb 2028 23:59:59 GMT"),
            Some(1_835_481_599)
        );
        assert_eq!(
            parse_http_date("Monday, 01-Jan-24 00:00:00 GMT"),
            Some(1_704_067_200)
        );
        for bad in [
            "",
            "Sun, 06 Nov 1994 08:49:37 PST",
            "Sun, 06 Foo 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 8:49:37 GMT",
            "Sun, 06 Nov 1994 24:00:00 GMT",
            "Sun, 32 Nov 1994 08:49:37 GMT",
            "Sun Nov  6 08:49:37",
            "soon",
        ] {
            assert_eq!(parse_http_date(bad), None, "{bad:?}");
        }
        let now = 784_111_777.0 - 42.0;
        assert_eq!(
            retry_after_secs("Sun, 06 Nov 1994 08:49:37 GMT", now),
            Some(42.0)
        );
        assert_eq!(
            retry_after_secs("Sun, 06 Nov 1994 08:49:37 GMT", now + 100.0),
            Some(0.0),
            "a date in the past asks for no wait"
        );
        assert_eq!(
            retry_after_secs("Sun, 06 Nov 1994 08:49:37 GMT", f64::NAN),
            None
        );
        assert_eq!(retry_after_secs("7", now), Some(7.0));
        assert_eq!(retry_after_secs("1e300", now), Some(86_400.0));
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
