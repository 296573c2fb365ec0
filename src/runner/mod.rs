//! The live runner (issue 3): evaluates a model endpoint or a built-in agent with the
//! official protocol.
//!
//! Layers, from pure to IO:
//! - [`provider`]: request/response mapping for OpenAI-compatible and Anthropic APIs.
//! - [`policy`]: retry classification and backoff; [`progress`]: the live progress model.
//! - `checkpoint`, `agents`, `driver`: the sans-IO task driver, built-in agents and
//!   checkpoint records (need the task state machine).
//! - `native`: the threaded scheduler with a `ureq` transport and a file checkpoint store
//!   (native builds with the `cli` feature only).

pub mod agents;
pub mod checkpoint;
pub mod driver;
pub mod endpoint_url;
#[cfg(all(feature = "cli", not(target_arch = "wasm32")))]
pub mod native;
pub mod plan;
pub mod policy;
pub mod progress;
pub mod provider;
pub mod retry;
pub mod schedule;
pub mod select;
#[cfg(target_arch = "wasm32")]
pub mod web;
