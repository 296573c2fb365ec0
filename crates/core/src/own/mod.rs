//! Own-history runs, a wildtool extension: every task of a session continues the model's
//! own conversation (its earlier calls, the observations it got, its answers) instead of
//! the official gold history, so errors can carry from one task into the next.
//!
//! - [`canned`]: the canned environment that lets any session run this way (a call that
//!   matches a gold node of the task by name gets that node's gold observation; any other
//!   call gets a documented error observation).
//! - [`run_file`]: `own-result.jsonl` (the traces), its official-style labels (each
//!   task's trace replayed through the official task machine and argument checker), and
//!   `own-report.json`.
//! - [`figure`]: the self-conditioning figure (a gold-history run against an own-history
//!   run of the same model and dataset) and the error-propagation share.
//! - [`ledger_own`]: ledger sessions in own history: per-task expectations through the id
//!   mapping, and the session verdict on the final ledger.
//!
//! Nothing here is an official number: every document carries [`OWN_LABEL`] and its own
//! format marker, and the official commands refuse own-history files.

pub mod canned;
pub mod figure;
pub mod ledger_own;
pub mod rescore;
pub mod run_file;

/// The label every own-history output carries.
pub const OWN_LABEL: &str =
    "Extension (own history): each task saw the model's own earlier turns; not a WildToolBench metric";

/// The own-history loop's version (part of every own-history checkpoint and result).
pub const OWN_VERSION: &str = "wildtool-own-history/1";
