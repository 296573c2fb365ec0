//! The ledger environment in the page (an extension, never an official number). The
//! environment, its scoring and its views live in the lab module; this file only carries
//! messages:
//!
//! - **Runs.** An env run is the same engine run (`Engine::new_env`: resume, retries,
//!   cancel, the built-in agents) over the dataset's sessions with `ledger_env`. Each
//!   batch of tool calls the engine hands out is sent as a step query to the lab module's
//!   `env_step` — synchronously, once the module is loaded (`env_info` loads it before the
//!   run starts) — and the answers go back into the engine. At the end the engine's
//!   assembled session lines go to `env_finish`, which writes `env-result.jsonl` and
//!   `env-report.json` with the CLI's functions.
//! - **Showing.** The dashboard shows an env run as its "Extension: ledger environment"
//!   section (`env_view`, from the run's summary), never beside official numbers; the
//!   traces view shows one task with its ledger diff (`env_task`); the downloads are
//!   `env_export`; the share link (`#e1.…`) carries the summary.
//! - **Offline.** An uploaded `env-result.jsonl` is scored by `env_score`, giving the
//!   CLI's `env-report.json` byte for byte.

pub mod compare;
pub mod sweep;
mod update;
pub mod view;

use serde_json::Value as Json;
use wildtool_contract::env::EnvSession;
use wildtool_contract::Call;
use wildtool_core::json::{dumps, Escape, Map, Value};

use crate::ui::Node;

/// The step query's format marker (the environment's step function reads it).
const STEP_FORMAT: &str = "wildtool-env-step/1";

/// The history kind of an env run.
pub const ENV_KIND: &str = "extension: ledger env";

/// The history key of an env run's `env-result.jsonl`.
pub fn result_key(id: &str) -> String {
    format!("envres/{id}")
}

/// Calls a lab function synchronously (installed by the glue once the module is loaded).
pub type SyncCall = std::rc::Rc<dyn Fn(Call, &str) -> Result<String, String>>;

/// An env run as the page shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct EnvShown {
    /// History id.
    pub id: String,
    /// Label.
    pub label: String,
    /// `gold` or `own`.
    pub history: String,
    /// `env-result.jsonl` (none for a run opened from a link).
    pub result: Option<String>,
    /// `env-report.json`.
    pub report: Option<String>,
    /// The summary the section is drawn from (JSON text).
    pub summary: String,
    /// The share link text (`e1.…`).
    pub link: String,
    /// `envHeadline`: the displayed strings of env task and session success (JSON).
    pub headline: String,
    /// The run's `manifest.json`, for a run made in this page.
    pub manifest: Option<String>,
}

impl EnvShown {
    /// The result file's name: `own-result.jsonl` in own history (the CLI's name for that
    /// format), `env-result.jsonl` otherwise.
    pub fn result_name(&self) -> &'static str {
        if self.history == "own" {
            "own-result.jsonl"
        } else {
            "env-result.jsonl"
        }
    }
}

/// The page's env state.
#[derive(Default)]
pub struct EnvState {
    /// Synchronous lab calls, once the module is loaded.
    pub sync: Option<SyncCall>,
    /// The environment's version (from the lab module).
    pub version: Option<String>,
    /// The own-history loop's and the environment's versions (from the lab module).
    pub own_version: Option<String>,
    /// A run waiting for the module: its resume entry and stored lines.
    pub awaiting: Option<(Option<crate::history::HistoryEntry>, Vec<String>)>,
    /// The env run on the dashboard.
    pub shown: Option<EnvShown>,
    /// The opened task (session index, task), 0-based.
    pub task: Option<(usize, usize)>,
    /// Input of the last section and task calls (asked again only when it changes).
    asked_view: Option<String>,
    asked_task: Option<String>,
    /// Latest answers.
    pub view: Option<Result<String, String>>,
    /// The opened task's view.
    pub task_view: Option<Result<String, String>>,
    /// Summed milliseconds and count of step calls (the env step cost in the page).
    pub step_ms: (f64, u64),
    /// The file name of the download asked for.
    export_name: Option<String>,
    /// A stored run being opened (history id).
    opening: Option<String>,
    /// An env share link being opened.
    link: Option<String>,
    /// Env runs chosen for the comparison: their result files.
    pub compared: compare::EnvCompared,
}

/// A clock for the step cost (milliseconds; the page's monotonic clock).
#[cfg(target_arch = "wasm32")]
fn clock_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or(0.0)
}

/// A clock for the step cost (milliseconds).
#[cfg(not(target_arch = "wasm32"))]
fn clock_ms() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or(0.0)
}

/// The setup's ledger-environment choice before a ledger sweep (given back after it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedEnvChoice {
    pub(crate) env: bool,
    pub(crate) history: String,
}

/// A ledger level's run once over: its dataset and `env-result.jsonl`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvLevel {
    /// The level's suite (JSON Lines).
    pub dataset: String,
    /// Its `env-result.jsonl`.
    pub result: String,
}

/// What an env run adds to a live run.
#[derive(Debug, Clone, PartialEq)]
pub struct EnvLive {
    /// `gold` or `own`.
    pub history: String,
    /// Sessions without `ledger_env` (skipped).
    pub skipped: u64,
    /// Tasks of the env sessions.
    pub tasks: u64,
}

fn session_text(s: &wildtool_core::dataset::Session) -> EnvSession {
    EnvSession {
        line: s.index,
        text: dumps(&s.raw, Escape::Utf8),
    }
}

/// A JSON value read by the page's one JSON reader as the engine's value (objects keep
/// their order; numbers stay integers or floats).
fn core_value(v: &Json) -> Value {
    match v {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => Value::int(i),
            (None, Some(f)) => Value::Float(f),
            _ => Value::Null,
        },
        Json::String(s) => Value::Str(s.clone()),
        Json::Array(a) => Value::Array(a.iter().map(core_value).collect()),
        Json::Object(o) => {
            let mut m = Map::new();
            for (k, x) in o {
                m.insert(k.clone(), core_value(x));
            }
            Value::Object(m)
        }
    }
}

fn parse(text: &str) -> Json {
    serde_json::from_str(text).unwrap_or(Json::Null)
}

impl EnvState {
    /// The version an env run's checkpoint header names (the CLI's, for each history).
    pub fn version_for(&self, history: &str) -> String {
        match history {
            "own" => self.own_version.clone(),
            _ => self.version.clone(),
        }
        .unwrap_or_default()
    }
}

fn shown_of(id: &str, label: &str, history: &str, v: &Json) -> EnvShown {
    let text = |k: &str| v.get(k).and_then(Json::as_str).map(str::to_owned);
    let summary = text("summary").unwrap_or_default();
    let s = parse(&summary);
    let headline = s.get("headline").cloned().unwrap_or(Json::Null);
    EnvShown {
        id: id.to_owned(),
        label: label.to_owned(),
        history: history.to_owned(),
        result: text("result"),
        report: text("report"),
        link: text("link").unwrap_or_default(),
        headline: headline.to_string(),
        summary,
        manifest: None,
    }
}

fn lab_node(answer: Option<&Result<String, String>>, id: &str, loading: &str) -> Node {
    crate::placement::lab_answer(answer, id, loading)
}
