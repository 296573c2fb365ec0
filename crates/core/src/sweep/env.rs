//! Sweeps of ledger-environment suites (`env=ledger`, e.g. `--factor challenge=…`): each
//! level runs in the ledger environment, and its `env-result.jsonl` is scored here the
//! way `wildtool env-score` scores it. The level's outcomes are its tasks' `env_success`
//! (so the sweep's task and session rates, and its trend test, are on `env_success`), and
//! its env metrics (`write_after_question_rate` and the rest of `env-report.json`'s
//! `ledger_env`) are kept per trial. The CLI reads the files; the page hands the lab the
//! same texts: the same function of the same bytes.

use crate::dataset::{fingerprint_hex, load_dataset, Lang};
use crate::json::{dumps, Escape};
use crate::ledger::outcomes::env_outcomes;
use crate::ledger::run_file::score_file;
use crate::outcome::TaskOutcome;

/// The label of env sweeps (`SweepDoc::mode`).
pub const ENV_MODE: &str = "ledger-env";

/// The note env sweeps carry.
pub const ENV_NOTE: &str = "Extension: ledger environment (not a WildToolBench metric). Each level ran in the ledger environment: task accuracy is env_task_success, session accuracy env_session_success (all four tasks env_success), and the trend test is on env_success; env_metrics lists each trial's ledger_env metrics of env-report.json (write_after_question_rate and the others).";

/// The env metrics shown per level, in order: key and label.
pub const SHOWN: [(&str, &str); 7] = [
    ("env_task_success", "env task success"),
    ("write_after_question_rate", "write after question"),
    ("unexpected_write_rate", "unexpected write"),
    ("double_booking_rate", "double booking"),
    ("premature_write_rate", "premature write"),
    ("state_accuracy", "state accuracy"),
    ("answer_fact_recall", "answer fact recall"),
];

/// One trial of a level, scored.
#[derive(Debug, Clone, PartialEq)]
pub struct EnvTrial {
    /// One outcome per task of the dataset (`correct` = `env_success`; unscored ones
    /// incomplete).
    pub outcomes: Vec<TaskOutcome>,
    /// `env-report.json`'s `ledger_env` metrics.
    pub metrics: serde_json::Value,
    /// The header's model name.
    pub model: String,
    /// The header's status (`done`, `partial`, …).
    pub status: String,
}

/// Scores one trial's `env-result.jsonl` text against the level's dataset text.
pub fn env_trial(dataset: &str, result: &str, lang: Lang) -> Result<EnvTrial, String> {
    let loaded = load_dataset(dataset, lang);
    let scored = score_file(&loaded.sessions, &fingerprint_hex(dataset), result, false)
        .map_err(|e| e.to_string())?;
    let metrics = serde_json::from_str(&dumps(&scored.metrics.to_value(), Escape::Utf8))
        .map_err(|e| e.to_string())?;
    Ok(EnvTrial {
        outcomes: env_outcomes(&loaded, &scored.sessions),
        metrics,
        model: scored.head.model_name,
        status: scored.head.status,
    })
}

/// A metric of a `ledger_env` object as table text: `12.5% (3/24)`, or `—`.
pub fn metric_cell(metrics: &serde_json::Value, key: &str) -> String {
    let m = &metrics[key];
    match (
        m["value"].as_f64(),
        m["numerator"].as_u64(),
        m["denominator"].as_u64(),
    ) {
        (Some(v), Some(n), Some(d)) => {
            format!("{} ({n}/{d})", crate::chart::format_percent(v))
        }
        _ => "—".to_owned(),
    }
}
