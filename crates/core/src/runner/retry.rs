//! The retry loop, with IO injected: `attempt` performs one request, `wait` sleeps (and
//! reports cancellation). Shared by the native and browser drivers; tested with fakes.

use std::time::Duration;

use super::policy::{classify_status, parse_retry_after, FailureClass, Jitter, RetryPolicy};
use super::provider::ProviderKind;
use crate::protocol::{IdSource, Reply};

/// The outcome of one attempt.
#[derive(Debug, Clone, PartialEq)]
pub enum Attempt<T> {
    /// A usable reply.
    Done(T),
    /// A failed attempt.
    Failed {
        /// Whether another attempt can help.
        class: FailureClass,
        /// The server's `Retry-After`, if any.
        retry_after: Option<Duration>,
        /// What went wrong (for the incomplete record).
        message: String,
    },
}

/// Why a request was given up: the task becomes *incomplete (transport)*.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("gave up after {attempts} attempt(s): {last_error}")]
pub struct GaveUp {
    /// Attempts made.
    pub attempts: u32,
    /// The last failure, or `cancelled`.
    pub last_error: String,
    /// The run was cancelled.
    pub cancelled: bool,
}

impl Attempt<Reply> {
    /// The attempt after the run was cancelled (never retried).
    pub fn cancelled() -> Self {
        Attempt::Failed {
            class: FailureClass::Permanent,
            retry_after: None,
            message: "cancelled".to_owned(),
        }
    }

    /// A network-level failure (no response): retried.
    pub fn network(message: String) -> Self {
        Attempt::Failed {
            class: FailureClass::Transient,
            retry_after: None,
            message,
        }
    }

    /// One HTTP exchange mapped by `provider`: a reply, or a failure classified by its
    /// status (an unusable body with a 2xx status is transient), honouring `Retry-After`.
    /// Shared by the native and the browser transports.
    pub fn from_response(
        provider: ProviderKind,
        status: u16,
        body: &str,
        retry_after: Option<&str>,
        latency: f64,
        ids: &mut dyn IdSource,
    ) -> Self {
        match provider.parse_response(status, body, latency, ids) {
            Ok(reply) => Attempt::Done(reply),
            Err(e) => Attempt::Failed {
                class: if (200..300).contains(&status) {
                    FailureClass::Transient
                } else {
                    classify_status(status)
                },
                retry_after: retry_after.and_then(parse_retry_after),
                message: e.to_string(),
            },
        }
    }
}

/// Runs `attempt` until it succeeds, fails permanently, exhausts the policy's retries, or
/// `wait` reports cancellation (returns `false`). `on_retry` is called before each retry.
pub fn with_retries<T>(
    policy: &RetryPolicy,
    jitter: &mut Jitter,
    mut attempt: impl FnMut() -> Attempt<T>,
    mut wait: impl FnMut(Duration) -> bool,
    on_retry: impl FnMut(&str),
) -> Result<T, GaveUp> {
    // One retry loop: the synchronous form drives the async one with ready futures.
    super::exec::block_on(with_retries_async(
        policy,
        jitter,
        || std::future::ready(attempt()),
        |d| std::future::ready(wait(d)),
        on_retry,
    ))
}

/// [`with_retries`] for async transports (the browser's `fetch`): `attempt` and `wait`
/// return futures. Same policy, same outcomes.
pub async fn with_retries_async<T, A, AF, W, WF>(
    policy: &RetryPolicy,
    jitter: &mut Jitter,
    mut attempt: A,
    mut wait: W,
    mut on_retry: impl FnMut(&str),
) -> Result<T, GaveUp>
where
    A: FnMut() -> AF,
    AF: std::future::Future<Output = Attempt<T>>,
    W: FnMut(Duration) -> WF,
    WF: std::future::Future<Output = bool>,
{
    let mut attempts = 0u32;
    loop {
        attempts += 1;
        match attempt().await {
            Attempt::Done(t) => return Ok(t),
            Attempt::Failed {
                class,
                retry_after,
                message,
            } => {
                let delay = match class {
                    FailureClass::Permanent => None,
                    FailureClass::Transient => {
                        policy.delay(attempts, retry_after, jitter.next_unit())
                    }
                };
                let Some(delay) = delay else {
                    return Err(GaveUp {
                        attempts,
                        last_error: message,
                        cancelled: false,
                    });
                };
                on_retry(&message);
                if !wait(delay).await {
                    return Err(GaveUp {
                        attempts,
                        last_error: "cancelled".to_owned(),
                        cancelled: true,
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> RetryPolicy {
        RetryPolicy {
            max_retries: 3,
            base_delay: Duration::from_millis(10),
            max_delay: Duration::from_secs(1),
            max_retry_after: Duration::from_secs(5),
            jitter: 0.0,
            timeout: Duration::from_secs(1),
        }
    }

    fn fail(class: FailureClass, retry_after: Option<u64>) -> Attempt<u8> {
        Attempt::Failed {
            class,
            retry_after: retry_after.map(Duration::from_secs),
            message: "boom".to_owned(),
        }
    }

    #[test]
    fn transient_failures_are_retried_with_backoff_and_retry_after() {
        let mut script = vec![
            fail(FailureClass::Transient, Some(2)),
            fail(FailureClass::Transient, None),
            Attempt::Done(7),
        ]
        .into_iter();
        let mut waits = Vec::new();
        let mut retries = 0;
        let r = with_retries(
            &policy(),
            &mut Jitter::new(1),
            || script.next().unwrap_or(Attempt::Done(0)),
            |d| {
                waits.push(d.as_millis());
                true
            },
            |_| retries += 1,
        );
        assert_eq!(r, Ok(7));
        // Retry-After 2 s is capped at the longest own backoff (10 ms · 2^2 = 40 ms).
        assert_eq!(waits, vec![40, 20]);
        assert_eq!(retries, 2);
    }

    #[test]
    fn the_cap_and_permanent_failures_give_up() {
        let mut n = 0;
        let r = with_retries(
            &policy(),
            &mut Jitter::new(1),
            || {
                n += 1;
                fail(FailureClass::Transient, None)
            },
            |_| true,
            |_| {},
        );
        assert_eq!(
            r,
            Err(GaveUp {
                attempts: 4,
                last_error: "boom".to_owned(),
                cancelled: false
            })
        );
        assert_eq!(n, 4, "1 attempt + 3 retries");
        let r = with_retries(
            &policy(),
            &mut Jitter::new(1),
            || fail(FailureClass::Permanent, None),
            |_| true,
            |_| {},
        );
        assert_eq!(r.map_err(|e| e.attempts), Err(1));
    }

    /// Polls a future that never pends (the fakes below are ready at once).
    fn block_on<F: std::future::Future>(f: F) -> F::Output {
        let mut f = std::pin::pin!(f);
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        loop {
            if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) {
                return v;
            }
        }
    }

    #[test]
    fn the_async_loop_behaves_like_the_sync_one() {
        let mut script = vec![fail(FailureClass::Transient, Some(1)), Attempt::Done(5)].into_iter();
        let mut waits = Vec::new();
        let r = block_on(with_retries_async(
            &policy(),
            &mut Jitter::new(1),
            || std::future::ready(script.next().unwrap_or(Attempt::Done(0))),
            |d| {
                waits.push(d.as_millis());
                std::future::ready(true)
            },
            |_| {},
        ));
        assert_eq!(r, Ok(5));
        assert_eq!(waits, vec![40]);
        let r = block_on(with_retries_async(
            &policy(),
            &mut Jitter::new(1),
            || std::future::ready(fail(FailureClass::Transient, None)),
            |_| std::future::ready(true),
            |_| {},
        ));
        assert_eq!(r.map_err(|e| e.attempts), Err(4));
    }

    #[test]
    fn cancellation_during_a_wait_stops() {
        let r = with_retries(
            &policy(),
            &mut Jitter::new(1),
            || fail(FailureClass::Transient, None),
            |_| false,
            |_| {},
        );
        assert!(matches!(
            r,
            Err(GaveUp {
                cancelled: true,
                attempts: 1,
                ..
            })
        ));
    }
}
