//! Runs in the page, driven through the run engine: the state turns engine outputs into
//! effects (send, abort, wake at, step the built-in agents) and engine events into what
//! the page shows (progress, results so far, the checkpoint in the store) and, at the end,
//! into a scored run on the dashboard — or a failure shown where the user is looking.
//!
//! Checkpoint contract: every `Persist` line is stored under `ck/<id>/<seq>` in the order
//! the engine emits it (header first), exactly the lines of `checkpoint.jsonl`; resuming
//! constructs the engine with those lines, so only missing tasks run; the result file is
//! assembled from them by the core and scored afresh, as `wildtool run` does.

pub mod cassette;
pub mod engine;
pub mod hosts;
pub mod readers;
mod update;
pub mod view;

use crate::dashboard::{EndNote, ShownRun};
use crate::history::HistoryEntry;
use crate::run::engine::{Engine, ProgressSnapshot};
use crate::run::hosts::HostPool;
use crate::scoring::ScoreJob;
use wildtool_core::formats::meta::ConcurrencyMeta;
use wildtool_core::runner::redact::Redactor;

/// Tasks a built-in agent runs between two yields to the browser.
const AGENT_BUDGET: usize = 4;

/// Where a live run stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Dispatching.
    Running,
    /// Not dispatching.
    Paused,
    /// Scoring the assembled result file.
    Finishing,
    /// Over.
    Ended,
}

impl Phase {
    /// The automation hook `runState`.
    pub fn run_state(self) -> &'static str {
        match self {
            Phase::Running => "running",
            Phase::Paused => "paused",
            Phase::Finishing => "finishing",
            Phase::Ended => "done",
        }
    }
}

/// A run in the page.
pub struct LiveRun {
    /// History id.
    pub id: String,
    /// Model name and label.
    pub model: String,
    /// Provider or agent.
    pub provider: String,
    /// Phase.
    pub phase: Phase,
    /// Latest counters.
    pub progress: ProgressSnapshot,
    /// Checkpoint lines so far (header first).
    pub records: Vec<String>,
    /// Its history entry.
    pub entry: HistoryEntry,
    /// Results so far (sessions scored as they complete).
    pub sofar: Option<ShownRun>,
    /// How it ended (automation vocabulary and reason).
    pub end: Option<EndNote>,
    /// Last failure text.
    pub last_error: Option<String>,
    /// The key, redacted by value from every reply before the engine reads it (so that
    /// no error text, checkpoint line or view shows a key a server echoed back).
    pub redactor: Redactor,
    /// The host names requests go to and the browser's cap on requests in flight
    /// (endpoint runs).
    pub hosts: Option<HostPool>,
    /// The lowest concurrency limit so far.
    pub min_limit: usize,
    /// What the failed endpoint check found (its class), when the preflight failed.
    pub check: Option<&'static str>,
    /// An env run's history mode and counts (the ledger environment, an extension).
    pub env: Option<crate::env::EnvLive>,
    pub(crate) engine: Engine<'static>,
    decreases: u64,
    auth: Option<(String, String)>,
    agents: bool,
    wake_at: Option<f64>,
    sessions_job: ScoreJob,
    final_job: Option<ScoreJob>,
    /// Trials 2..k, scored after trial 1 (repeated trials).
    trial_jobs: Vec<ScoreJob>,
    /// Trials 2..k's result texts (for their manifest entries).
    trial_texts: Vec<String>,
    result_text: String,
    started_mono: f64,
    /// The run's cassette, recording or replaying.
    pub tape: Option<crate::run::cassette::Tape>,
}

impl LiveRun {
    /// When the run started (monotonic clock).
    pub fn started_at(&self) -> f64 {
        self.started_mono
    }

    /// True when the run streams its requests.
    pub fn streamed(&self) -> bool {
        self.engine.spec().stream()
    }

    /// True while the engine runs (running or paused).
    pub fn active(&self) -> bool {
        matches!(self.phase, Phase::Running | Phase::Paused)
    }

    /// The most requests the browser keeps in flight for this run, when that is fewer
    /// than the engine's current limit (six per host name over HTTP/1.1).
    pub fn browser_cap(&self) -> Option<usize> {
        self.hosts
            .as_ref()
            .and_then(HostPool::cap)
            .filter(|cap| *cap < self.progress.concurrency_limit)
    }

    /// Adaptive concurrency so far, and the browser's cap, for the run's metadata.
    pub fn concurrency_meta(&self) -> Option<ConcurrencyMeta> {
        let hosts = self.hosts.as_ref()?;
        let p = &self.progress;
        Some(ConcurrencyMeta {
            max: p.concurrency_max as u64,
            min: self.min_limit.min(p.concurrency_limit) as u64,
            final_limit: p.concurrency_limit as u64,
            decreases: self.decreases,
            browser_cap: hosts
                .cap()
                .filter(|cap| *cap < p.concurrency_max)
                .map(|c| c as u64),
        })
    }
}

fn settings_map(form: &crate::setup::SetupForm) -> Vec<(String, String)> {
    let mut m = Vec::new();
    for (k, v) in [
        ("provider", &form.provider),
        ("temperature", &form.temperature),
        ("concurrency", &form.concurrency),
        ("timeout", &form.timeout),
        ("retries", &form.retries),
        ("backoff", &form.backoff),
        ("trials", &form.trials),
    ] {
        m.push((k.to_owned(), v.clone()));
    }
    m.push(("preflight".into(), form.preflight.to_string()));
    if form.env {
        m.push(("env".into(), "true".into()));
        m.push(("history".into(), form.history.clone()));
    }
    if form.stream && !form.is_builtin() {
        m.push(("stream".into(), "true".into()));
    }
    m
}

/// The Setup choices and what a recording gave.
#[derive(Debug, Default)]
pub struct CassetteSetup {
    /// Record the next run.
    pub record: bool,
    /// An uploaded cassette to replay: its file name and text.
    pub replay: Option<(String, String)>,
    /// The last recorded cassette's text.
    pub recorded: Option<String>,
    /// The lab module could not be loaded: runs start without a manifest.
    pub no_lab: bool,
}
