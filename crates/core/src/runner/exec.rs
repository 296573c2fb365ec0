//! Executor plumbing for the legacy future-based per-task loop: a boxed local future and
//! a trivial executor for futures whose awaits are always ready. Depends on nothing else
//! in the runner.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// A boxed future that need not be `Send`.
pub type LocalFuture<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

/// Drives a future whose awaits are always ready (synchronous responders). A future that
/// pends is polled again at once, so use a real executor for real IO.
pub fn block_on<F: Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    let mut cx = Context::from_waker(std::task::Waker::noop());
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}
