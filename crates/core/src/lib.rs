//! wildtool: evaluate how well a language model uses tools in multi-turn conversations,
//! on WildToolBench-format data, with exact parity to the official scorer.
//!
//! This crate is the sans-IO core: no files, network, clock, terminal or DOM. It builds and
//! tests natively and for `wasm32-unknown-unknown`; the CLI (the root `wildtool` crate) and
//! the page (`wildtool-web`) are thin adapters around it. See `ARCHITECTURE.md` for the
//! module map and the invariants.

#![forbid(unsafe_code)]
#![warn(missing_docs)]
// No panic is reachable from a file, a reply or a URL: the core returns errors instead.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::unreachable,
        clippy::todo,
        clippy::unimplemented
    )
)]

pub mod audit;
pub mod chart;
pub mod checker;
pub mod ci;
pub mod compare;
pub mod cost;
pub mod dataset;
pub mod formats;
pub mod generate;
pub mod graph;
pub mod input;
pub mod json;
pub mod ledger;
pub mod order;
pub mod outcome;
pub mod own;
pub mod plan;
pub mod protocol;
pub mod provenance;
pub mod report;
pub mod runner;
pub mod score;
pub mod share;
pub mod sweep;
pub mod trace;

/// Identifies the scoring semantics: wildtool's version and the official evaluation code
/// it reproduces (WildToolBench commit 80a5f42). Carried in share links and reports.
pub const SCORER_VERSION: &str = concat!("wildtool-", env!("CARGO_PKG_VERSION"), "+wtb-80a5f42");
