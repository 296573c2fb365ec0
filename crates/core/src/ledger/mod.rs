//! The stateful ledger environment — a wildtool **extension**, never an official
//! WildToolBench metric. A deterministic, sans-IO Beancount ledger lives in memory; the
//! ledger tools compute their replies from it; each task is scored on the state it
//! leaves (equal to the expected state modulo ids and order, no double booking, no write
//! after a question, no premature write, no collateral change, no invalid intermediate
//! state) besides the path it took.
//!
//! - [`dec`], [`date`], [`model`]: exact decimals, dates, the state;
//! - [`text`] (canonical writer) and [`read`] (the documented subset reader);
//! - [`check`]: hard rules (a write is refused) and soft violations;
//! - [`tools`]: the tools, errors as observations with codes;
//! - [`scenario`]: the `ledger_env` field, the gold replay and strict replay;
//! - [`trace`], [`score`], [`metrics`]: traces, the task verdict, the run's metrics;
//! - [`run_file`]: `env-result.jsonl` and the scoring of a whole file;
//! - [`generated`]: generated `env=ledger` suites (observations computed by the
//!   environment);
//! - [`answer`]: the answer to the environment loop's tool calls (a pure function of
//!   serialisable input; the run engine never imports this module).
//!
//! Deterministic: no clock (the date is the session's), no randomness beyond seeded ids,
//! integer arithmetic and sorted maps only; the same bytes natively and in WebAssembly.

pub mod answer;
pub mod check;
pub mod date;
pub mod dec;
pub mod generated;
pub mod metrics;
pub mod model;
pub mod outcomes;
pub mod read;
pub mod report_html;
pub mod run_file;
pub mod scenario;
pub mod score;
pub mod text;
pub mod tools;
pub mod trace;
pub mod validate;

pub use model::Ledger;

/// The environment version, recorded in every env result and report; part of what the
/// output is a function of.
pub const ENV_VERSION: &str = "wildtool-ledger-env/1";
