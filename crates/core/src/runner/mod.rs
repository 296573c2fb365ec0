//! The live runner: evaluates a model endpoint or a built-in agent with the official
//! protocol. Everything here is sans-IO; the transports (native `ureq` in the `wildtool`
//! crate, browser `fetch` in `wildtool-web`) are adapters.
//!
//! - [`provider`]: request/response mapping for OpenAI-compatible, Anthropic and Gemini
//!   APIs; [`preflight`]: the one-request endpoint check before a run.
//! - [`policy`]: retry classification and backoff; [`progress`]: the live progress model.
//! - [`exec`]: executor plumbing; [`driver`]: the per-task loop; [`agents`]: built-in
//!   agents; [`checkpoint`]: checkpoint records and result assembly; [`plan`]: run
//!   bookkeeping.

pub mod agents;
pub mod checkpoint;
pub mod driver;
pub mod endpoint_url;
pub mod engine;
pub mod exec;
pub mod http;
pub mod plan;
pub mod policy;
pub mod preflight;
pub mod progress;
pub mod provider;
pub mod retry;
pub mod select;
