//! Statistics over several runs of one dataset: repeated trials (pass^k, pass@k,
//! consistency) and paired comparisons of runs (exact McNemar test, paired session
//! bootstrap, per-category differences, per-task diffs), plus the leaderboard overlay
//! rule and the ranked table.
//!
//! Everything is a pure function of per-task [`crate::outcome::TaskOutcome`]s and the
//! dataset's [`crate::share::TaskShape`]s, so the CLI and the page compute the same
//! numbers. Rates follow the counting rule: only scored tasks count, and every document
//! says how many tasks were scored or left out.
//!
//! Entry points: [`trials::trials_report`] (`trials.json`), [`paired::compare_runs`] and
//! [`paired::compare_pair`] (`compare.json`), [`html::compare_html`] (`compare.html`),
//! [`leaderboard`] (official-dataset check and ranked table), [`gate`] (the regression
//! gate).

pub(crate) mod boot;
pub mod byj;
pub mod exact;
pub mod gate;
pub mod html;
pub mod leaderboard;
pub mod paired;
pub mod runs;
pub mod trials;

pub use paired::{compare_pair, compare_runs, CompareDoc, PairResult};
pub use runs::{CompareError, DatasetRef, RunInput, RunStatus};
pub use trials::{trials_report, TrialsDoc};

/// Resampling settings of the session bootstrap.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BootstrapOptions {
    /// Number of resamples (the default is 2,000).
    pub resamples: usize,
    /// SplitMix64 seed (the default is the report's fixed seed).
    pub seed: u64,
    /// Two-sided confidence level of the intervals (the default is 0.95). Documents keep
    /// the interval in their `ci95` fields whatever the level; only the gate asks for
    /// another one (1 − its alpha).
    pub level: f64,
}

impl Default for BootstrapOptions {
    fn default() -> Self {
        BootstrapOptions {
            resamples: crate::report::BOOTSTRAP_RESAMPLES,
            seed: crate::report::BOOTSTRAP_SEED,
            level: 0.95,
        }
    }
}
