//! The estimate of a run before it is made (`run --dry-run`): every task is walked along
//! its gold path with the gold agent, each step's request is rendered for the run's
//! provider, and its size gives the prompt tokens (`cost::estimate::tokens_of_bytes`);
//! the gold answer's size gives the completion tokens. Trials multiply.
//!
//! The estimate's stated error ([`RELATIVE_ERROR`]) covers the bytes-per-token rule for
//! English, JSON-heavy prompts; it does not cover a model that takes another number of
//! steps than the gold path, nor reasoning tokens (a reasoning model's completions can
//! cost several times the estimate), nor prompt caching (which only lowers the cost).

use serde::{Deserialize, Serialize};

use super::agents::GoldAgent;
use super::driver::{run_task, Responder, StepContext, TaskStats};
use super::provider::{ChatRequest, Endpoint, ProviderKind};
use super::retry::GaveUp;
use crate::cost::estimate::tokens_of_bytes;
use crate::cost::ModelPrice;
use crate::dataset::Session;
use crate::json::{dumps, Escape};
use crate::protocol::Reply;

/// The stated relative error of the estimate (either way).
pub const RELATIVE_ERROR: f64 = 0.3;

/// A run's estimate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunEstimate {
    /// Tasks (times trials).
    pub tasks: u64,
    /// Requests (gold-path steps times trials).
    pub requests: u64,
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Completion tokens.
    pub output_tokens: u64,
    /// The cost at the prices (`None` without prices).
    pub cost: Option<f64>,
    /// The stated relative error.
    pub relative_error: f64,
}

struct Measuring<'a> {
    provider: ProviderKind,
    endpoint: &'a Endpoint,
    model: &'a str,
    temperature: f64,
    prices: Option<&'a ModelPrice>,
    sums: std::sync::Mutex<(u64, u64, u64, f64)>,
}

impl Responder for Measuring<'_> {
    fn respond(&self, ctx: &StepContext<'_>, stats: &mut TaskStats) -> Result<Reply, GaveUp> {
        let request = self.provider.build(
            &ChatRequest {
                model: self.model,
                temperature: self.temperature,
                messages: ctx.messages,
                tools: ctx.tools,
            },
            self.endpoint,
        );
        let reply = GoldAgent.respond(ctx, stats)?;
        let output_bytes = [&reply.content, &reply.tool_calls]
            .iter()
            .filter(|v| !v.is_null())
            .map(|v| dumps(v, Escape::Utf8).len())
            .sum::<usize>();
        let (input, output) = (
            tokens_of_bytes(request.body.len()),
            tokens_of_bytes(output_bytes),
        );
        if let Ok(mut s) = self.sums.lock() {
            s.0 += 1;
            s.1 += input;
            s.2 += output;
            s.3 += self
                .prices
                .map_or(0.0, |p| p.request_cost(input, 0, output));
        }
        Ok(reply)
    }
}

/// Estimates `trials` trials of `sessions` with `provider` at `endpoint`.
pub fn estimate_run(
    sessions: &[&Session],
    trials: u32,
    provider: ProviderKind,
    endpoint: &Endpoint,
    model: &str,
    temperature: f64,
    prices: Option<&ModelPrice>,
) -> RunEstimate {
    let m = Measuring {
        provider,
        endpoint,
        model,
        temperature,
        prices,
        sums: std::sync::Mutex::new((0, 0, 0, 0.0)),
    };
    let mut tasks = 0u64;
    for s in sessions {
        for t in 0..s.tasks.len() {
            run_task(s, t, &m);
            tasks += 1;
        }
    }
    let (requests, input, output, cost) = m.sums.lock().map(|s| *s).unwrap_or_default();
    let k = u64::from(trials.max(1));
    RunEstimate {
        tasks: tasks * k,
        requests: requests * k,
        input_tokens: input * k,
        output_tokens: output * k,
        cost: prices.map(|_| cost * k as f64),
        relative_error: RELATIVE_ERROR,
    }
}
