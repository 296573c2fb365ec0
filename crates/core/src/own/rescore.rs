//! An own-history run's report re-made from its result file: the one function behind
//! what `wildtool run --history own` writes (`own-report.json`) and what
//! `wildtool verify` recomputes to check it, so the two can never count differently.
//!
//! The ledger environment's sessions are known from the file itself: its header names
//! the environment (`canned`, or `ledger+canned` for a run with `--env ledger`), and in a
//! ledger run every scored session with a `ledger_env` field was answered by the ledger.

use std::collections::BTreeMap;

use crate::dataset::LoadedDataset;
use crate::formats::report_doc::{ReportDataset, ReportDoc};
use crate::ledger::run_file::SessionEnv;
use crate::score::{ArgChecker, ScoreOptions};

use super::ledger_own;
use super::run_file::{report_doc, report_json, score_text, OwnScored};

/// The header's environment of an own-history run with the ledger environment.
pub const LEDGER_ENVIRONMENT: &str = "ledger+canned";

/// An own-history run re-scored from its `own-result.jsonl`.
#[derive(Debug)]
pub struct OwnRescored {
    /// The labels, traces and counters.
    pub scored: OwnScored,
    /// The official-style report of the labels.
    pub doc: ReportDoc,
    /// The ledger sessions' environments (empty for a run without `--env ledger`).
    pub envs: BTreeMap<usize, SessionEnv>,
    /// The ledger sessions' own-history env metrics (`None` without ledger sessions).
    pub ledger_env: Option<serde_json::Value>,
    /// `own-report.json`, as the run writes it.
    pub report_json: String,
}

/// Re-scores `text` (an `own-result.jsonl`) against `dataset` (whose fingerprint is
/// `fingerprint`; `dataset_file` is the dataset's file name as the report names it).
pub fn rescore(
    dataset: &LoadedDataset,
    fingerprint: &str,
    dataset_file: Option<String>,
    text: &str,
    checker: &dyn ArgChecker,
    options: ScoreOptions,
) -> Result<OwnRescored, String> {
    let scored = score_text(dataset, fingerprint, text, checker, options)?;
    let mut envs = BTreeMap::new();
    if scored.head.environment == LEDGER_ENVIRONMENT {
        for index in scored.traces.keys() {
            let Some(session) = dataset.session_at(*index) else {
                continue;
            };
            if let Some(env) = SessionEnv::of(session).map_err(|e| e.to_string())? {
                envs.insert(*index, env);
            }
        }
    }
    let doc = report_doc(
        &scored,
        ReportDataset {
            file: dataset_file,
            fingerprint: fingerprint.to_owned(),
            sessions: dataset.line_count as u64,
            problems: dataset.problems.len() as u64,
        },
    );
    let ledger_env = ledger_own::metrics_json(dataset, &envs, &scored.traces);
    let report_json = report_json(&scored, &doc, ledger_env.clone());
    Ok(OwnRescored {
        scored,
        doc,
        envs,
        ledger_env,
        report_json,
    })
}
