//! A live endpoint as a [`Responder`]: provider mapping + transport + retries.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use wildtool_core::json::Value;
use wildtool_core::protocol::{Reply, SeededIds};
use wildtool_core::runner::driver::{task_seed, Responder, StepContext, TaskStats};
use wildtool_core::runner::policy::{Jitter, RetryPolicy};
use wildtool_core::runner::provider::{ChatRequest, Endpoint, ProviderKind};
use wildtool_core::runner::retry::{with_retries, Attempt, GaveUp};

use super::transport::Transport;

/// An OpenAI-compatible or Anthropic endpoint.
pub struct LiveResponder {
    /// API dialect.
    pub provider: ProviderKind,
    /// Where to send requests.
    pub endpoint: Endpoint,
    /// Model name sent in every request.
    pub model: String,
    /// Temperature sent in every request.
    pub temperature: f64,
    /// Timeouts and retries.
    pub policy: RetryPolicy,
    /// The HTTP client (holds the key).
    pub transport: Box<dyn Transport>,
    /// Set to stop waiting and give up.
    pub cancel: Arc<AtomicBool>,
}

/// Sleeps `d` in short slices; false when cancelled.
pub fn interruptible_sleep(d: Duration, cancel: &AtomicBool) -> bool {
    let end = Instant::now() + d;
    loop {
        if cancel.load(Ordering::Relaxed) {
            return false;
        }
        let now = Instant::now();
        if now >= end {
            return true;
        }
        std::thread::sleep((end - now).min(Duration::from_millis(50)));
    }
}

/// Requests and retries of one step.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StepCounts {
    /// Requests sent.
    pub requests: u64,
    /// Retries.
    pub retries: u64,
}

impl LiveResponder {
    /// One step: builds the request, sends it with retries, maps the response. `seed`
    /// makes jitter and generated call ids reproducible.
    pub fn complete(
        &self,
        messages: &[Value],
        tools: &Value,
        seed: u64,
    ) -> (Result<Reply, GaveUp>, StepCounts) {
        let req = ChatRequest {
            model: &self.model,
            temperature: self.temperature,
            messages,
            tools,
        };
        let http = self.provider.build(&req, &self.endpoint);
        let mut jitter = Jitter::new(seed);
        let mut ids = SeededIds::new(seed.wrapping_add(0x5EED));
        let mut retries = 0u64;
        let mut requests = 0u64;
        let result = with_retries(
            &self.policy,
            &mut jitter,
            || {
                if self.cancel.load(Ordering::Relaxed) {
                    return Attempt::cancelled();
                }
                requests += 1;
                let started = Instant::now();
                match self.transport.send(&http, self.policy.timeout) {
                    Err(e) => Attempt::network(e.to_string()),
                    Ok(resp) => Attempt::from_response(
                        self.provider,
                        resp.status,
                        &resp.body,
                        resp.retry_after.as_deref(),
                        started.elapsed().as_secs_f64(),
                        &mut ids,
                    ),
                }
            },
            |d| interruptible_sleep(d, &self.cancel),
            |_| retries += 1,
        );
        (result, StepCounts { requests, retries })
    }
}

impl Responder for LiveResponder {
    fn respond(&self, ctx: &StepContext<'_>, stats: &mut TaskStats) -> Result<Reply, GaveUp> {
        let seed = task_seed(ctx.session.line, ctx.task) ^ ((ctx.step as u64) << 48);
        let (result, counts) = self.complete(ctx.messages, ctx.tools, seed);
        stats.requests += counts.requests;
        stats.retries += counts.retries;
        result
    }
}
