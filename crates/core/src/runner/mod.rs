//! The live runner: evaluates a model endpoint or a built-in agent with the official
//! protocol. Everything here is sans-IO; the transports (native `ureq` in the `wildtool`
//! crate, browser `fetch` in `wildtool-web`) are adapters.
//!
//! - [`provider`]: request/response mapping for OpenAI-compatible, Anthropic and Gemini
//!   APIs; [`preflight`]: the one-request endpoint check before a run.
//! - [`policy`]: retry classification and backoff; [`progress`]: the live progress model.
//! - `checkpoint`, `agents`, `driver`: the task driver, built-in agents and checkpoint
//!   records (need the task state machine).

pub mod agents;
pub mod checkpoint;
pub mod driver;
pub mod endpoint_url;
pub mod http;
pub mod plan;
pub mod policy;
pub mod preflight;
pub mod progress;
pub mod provider;
pub mod retry;
pub mod schedule;
pub mod select;
