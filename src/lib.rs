//! wildtool: evaluate how well a language model uses tools in multi-turn conversations,
//! on WildToolBench-format data, with exact parity to the official scorer.
//!
//! The crate is a sans-IO core (everything below except `runner::native`, `web` and the
//! binary) that builds and tests natively and for `wasm32-unknown-unknown`. See
//! `ARCHITECTURE.md` for the module map.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod chart;
pub mod checker;
pub mod dataset;
pub mod generate;
pub mod graph;
pub mod json;
pub mod outcome;
pub mod protocol;
pub mod report;
pub mod runner;
pub mod score;
pub mod share;
#[cfg(target_arch = "wasm32")]
pub mod web;

/// Identifies the scoring semantics: wildtool's version and the official evaluation code
/// it reproduces (WildToolBench commit 80a5f42). Carried in share links and reports.
pub const SCORER_VERSION: &str = concat!("wildtool-", env!("CARGO_PKG_VERSION"), "+wtb-80a5f42");
