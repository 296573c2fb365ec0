//! The inputs of the ledger environment's lab calls (an extension, never official
//! numbers). The environment, its scoring and its views live in the lab module only: the
//! app shell sends the sessions' dataset lines and the recorded traces and gets text back.

use serde::{Deserialize, Serialize};

/// One dataset session as the lab module reads it again: its 0-based index in the
/// dataset and its line (the session's JSON text).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnvSession {
    /// 0-based session index (`Session::index`).
    pub line: usize,
    /// The session's dataset line.
    pub text: String,
}

/// The end of an environment run in the page ([`crate::Call::EnvFinish`]): the engine's
/// assembled session lines become `env-result.jsonl`, scored into `env-report.json` by
/// the function `wildtool env-score` runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnvFinishInput {
    /// Dataset fingerprint (16 hex digits).
    pub fingerprint: String,
    /// Model name.
    pub model: String,
    /// `gold` or `own`.
    pub history: String,
    /// The run's end state (`done`, `partial`, `cancelled`, `failed`).
    pub status: String,
    /// Tasks of the run's env sessions.
    pub tasks_total: u64,
    /// Sessions without `ledger_env` (skipped).
    pub sessions_without_env: u64,
    /// The run's env sessions.
    pub sessions: Vec<EnvSession>,
    /// The engine's assembled result lines (`{"id", "result": [trace…]}` per session).
    pub assembled: String,
}

/// An `env-result.jsonl` to score ([`crate::Call::EnvScore`]): an upload, a stored run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnvScoreInput {
    /// Dataset fingerprint (16 hex digits).
    pub fingerprint: String,
    /// The dataset's env sessions.
    pub sessions: Vec<EnvSession>,
    /// The file's text.
    pub result: String,
}

/// The dashboard's "Extension: ledger environment" section ([`crate::Call::EnvView`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EnvViewInput {
    /// The run's env summary (JSON text, as [`crate::Call::EnvScore`] gives it or a share
    /// link carries it).
    pub summary: String,
    /// Chart width in CSS pixels.
    pub width: f64,
    /// Smallest chart text in pixels (0: the standard sizes).
    pub min_font: f64,
}

/// One task of an env run ([`crate::Call::EnvTask`], [`crate::Call::EnvExport`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnvTaskInput {
    /// Dataset fingerprint (16 hex digits).
    pub fingerprint: String,
    /// The task's session.
    pub session: EnvSession,
    /// The run's `env-result.jsonl` header line and the session's line.
    pub result: String,
    /// Task position, 0-based.
    pub task: usize,
    /// For an export: `actual`, `expected` or `diff`.
    #[serde(default)]
    pub which: String,
}

/// One env run of a comparison ([`EnvCompareInput`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnvCompareRun {
    /// Its label (as the history shows it).
    pub label: String,
    /// Its `env-result.jsonl` (gold history) or `own-result.jsonl` (own history).
    pub result: String,
}

/// Env runs compared ([`crate::Call::EnvCompareView`]): each run's result file scored, the
/// runs paired on `env_success` as `wildtool compare` pairs env runs, the env metrics side
/// by side, and — with a gold-history and an own-history run — the self-conditioning
/// figure on `env_success`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EnvCompareInput {
    /// Dataset fingerprint (16 hex digits).
    pub fingerprint: String,
    /// Every task of the dataset, in dataset order (`share::task_shapes`).
    pub shapes: Vec<wildtool_core::share::TaskShape>,
    /// The dataset's env sessions.
    pub sessions: Vec<EnvSession>,
    /// The runs, in the order chosen.
    pub runs: Vec<EnvCompareRun>,
}
