//! One input type per lab call ([`crate::Call`]). The shell serialises them, the lab
//! module deserialises them: both sides use these types, so they cannot drift apart.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use wildtool_core::chart::dashboard::ComparisonRow;
use wildtool_core::outcome::TaskOutcome;
use wildtool_core::share::TaskShape;

/// The dashboard's charts ([`crate::Call::DashboardCharts`]): the run's own charts from
/// its report, the comparison chart (this run, then `others`) and the error classes'
/// trace links.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChartsInput {
    /// The run's label.
    pub label: String,
    /// One outcome per dataset task (unscored tasks `incomplete`).
    pub outcomes: Vec<TaskOutcome>,
    /// The comparison chart's rows after this run.
    pub others: Vec<ComparisonRow>,
    /// Chart width in CSS pixels.
    pub width: f64,
    /// Smallest chart text in pixels (0: the standard sizes).
    pub min_font: f64,
}

/// One chart of the dashboard as a file ([`crate::Call::ChartFile`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChartFileInput {
    /// The charts.
    pub charts: ChartsInput,
    /// The chart's id (`by-type` …, `comparison`).
    pub id: String,
}

/// A run's share link ([`crate::Call::ShareEncode`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShareEncodeInput {
    /// The run's label.
    pub label: String,
    /// The dataset's fingerprint.
    pub fingerprint: u64,
    /// Every task of the dataset, in dataset order.
    pub shapes: Vec<TaskShape>,
    /// One outcome per dataset task.
    pub outcomes: Vec<TaskOutcome>,
}

/// The outcomes of a share link ([`crate::Call::ShareDecode`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShareDecodeInput {
    /// The link text (the fragment without `#`).
    pub link: String,
    /// The loaded dataset's fingerprint (the link's must be the same).
    pub fingerprint: u64,
    /// Every task of the dataset, in dataset order.
    pub shapes: Vec<TaskShape>,
}

/// What a link's header says ([`crate::Call::LinkHeader`]'s answer; its input is the link
/// text as a JSON string): which dataset it needs and what it carries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkHeader {
    /// A comparison link (`v2.…`) rather than one run's share link (`v1.…`).
    pub pair: bool,
    /// Version string of the scorer that produced the outcomes.
    pub scorer_version: String,
    /// The run's model label (a comparison link: run A's).
    pub label: String,
    /// Run B's label (a comparison link; empty for one run's link).
    pub label_b: String,
    /// Fingerprint of the dataset the link's runs were scored on.
    pub fingerprint: u64,
    /// Number of tasks of that dataset.
    pub task_count: u32,
}

/// The history list ([`crate::Call::HistoryList`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistoryInput {
    /// The history has been read.
    pub loaded: bool,
    /// Runs can be resumed now (no run is active).
    pub can_resume: bool,
    /// The runs, newest first.
    pub entries: Vec<HistoryRow>,
}

/// One run of the history list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistoryRow {
    /// History id.
    pub id: String,
    /// Label.
    pub label: String,
    /// The label being typed, while the run is renamed.
    pub renaming: Option<String>,
    /// The run is in the comparison.
    pub compared: bool,
    /// Status (`done`, `partial` …).
    pub status: String,
    /// Task accuracy as displayed.
    pub task_accuracy: Option<String>,
    /// Tasks scored.
    pub tasks_scored: u64,
    /// Tasks of the dataset.
    pub tasks_total: u64,
    /// Dataset name.
    pub dataset_name: String,
    /// Dataset fingerprint.
    pub dataset_fingerprint: String,
    /// How the run came to the page (`live`, `upload`, `link`).
    pub kind: String,
    /// Provider.
    pub provider: Option<String>,
    /// Model name.
    pub model: String,
    /// Start (ms since the epoch).
    pub started_ms: f64,
    /// The endpoint's host.
    pub endpoint_host: Option<String>,
    /// Requests sent.
    pub requests: u64,
    /// Input tokens.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Duration in seconds.
    pub duration_s: Option<f64>,
    /// Why the run ended early.
    pub reason: Option<String>,
    /// A checkpoint is stored.
    pub has_checkpoint: bool,
    /// The run can be resumed.
    pub resumable: bool,
    /// Trials per task (1 without repeated trials).
    #[serde(default)]
    pub trials: u32,
    /// A built-in agent answered (no model was asked, so there are no requests or tokens
    /// to report).
    #[serde(default)]
    pub builtin: bool,
}

/// The Compare view's planner, as typed (the lab module reads the numbers and names a
/// field it cannot read); part of the comparison's input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanFields {
    /// Use the second run as a second pilot (`wildtool plan --pilot-b`).
    pub pair: bool,
    /// Sessions per planned run (empty: the dataset's).
    pub sessions: String,
    /// Trials per planned run (empty: 1).
    pub trials: String,
    /// A drop in points to find the sessions for (empty: none).
    pub difference: String,
}

/// The cost of runs in money ([`crate::Call::CostView`]): each run priced from its
/// recorded usage with the price table (the figures of `report.json`'s `cost`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CostInput {
    /// The price table the user saved (its JSON text); `None`: the bundled table.
    pub prices: Option<String>,
    /// The runs.
    pub runs: Vec<CostRun>,
}

/// One run to price.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CostRun {
    /// The run's label.
    pub label: String,
    /// The model name (the price table entry looked up).
    pub model: String,
    /// Each trial's outcomes, trial 1 first (one per dataset task, unscored ones
    /// `incomplete`).
    pub trials: Vec<Vec<TaskOutcome>>,
    /// Checkpoint lines (header first): every trial's task results with their usage.
    pub records: Option<Vec<String>>,
    /// Without records: the result or score file's text (one trial).
    pub text: Option<String>,
    /// A built-in agent's run: no model was asked, so there is nothing to price.
    #[serde(default)]
    pub builtin: bool,
}

/// Setup's cost panel ([`crate::Call::PriceEditor`]): "What will this cost?" — the
/// estimate of `wildtool run --dry-run` for the form's settings — and the price table
/// editor.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct PriceEditorInput {
    /// The table the user saved; `None`: the bundled one is in use.
    pub saved: Option<String>,
    /// The text being edited (`None`: the table in use).
    pub draft: Option<String>,
    /// Why the last save was refused, naming the field.
    pub error: Option<String>,
    /// The form's provider or built-in agent, as chosen.
    pub provider: String,
    /// The endpoint's base URL.
    pub base_url: String,
    /// The model name, as typed.
    pub model: String,
    /// Sampling temperature, as typed.
    pub temperature: String,
    /// Trials per task, as typed.
    pub trials: String,
    /// The dataset's fingerprint (the lab module keeps the dataset it read by it); `None`:
    /// no dataset, no estimate.
    pub fingerprint: Option<String>,
    /// `en` or `zh`.
    pub lang: String,
    /// The dataset's sessions as JSON Lines (each session's line as read).
    pub dataset: String,
}

/// The item audit of runs of one dataset ([`crate::Call::AuditView`]). The shell sends the
/// comparison call's input, of which these are the members the audit reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditInput {
    /// Fingerprint of the loaded dataset.
    pub fingerprint: u64,
    /// Every task of the dataset, in dataset order.
    pub shapes: Vec<TaskShape>,
    /// The runs, with every trial's outcomes.
    pub runs: Vec<wildtool_core::compare::RunInput>,
}

/// A bundle dropped on the page, verified ([`crate::Call::VerifyView`]): the files as
/// dropped (name and text) and the dataset loaded in the page (a dataset among the files
/// is used instead). The shell writes it borrowing the texts it keeps; the lab module
/// reads it owned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerifyInput<'a> {
    /// `(file name, text)` in the order dropped.
    pub files: Cow<'a, [(String, String)]>,
    /// The loaded dataset's text, when one is loaded.
    pub dataset: Option<Cow<'a, str>>,
    /// `en` or `zh`.
    pub lang: Cow<'a, str>,
}

/// One column of traces side by side ([`PairInput`]): a run and what the page knows of
/// its trace of the task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairColumn<'a> {
    /// The run's label.
    pub label: Cow<'a, str>,
    /// The run's verdict on the task: `correct`, `failed` or `unscored` (empty when its
    /// outcomes are not read).
    pub verdict: Cow<'a, str>,
    /// The error class of a failed task (the taxonomy chart's column title).
    #[serde(default)]
    pub class: Cow<'a, str>,
    /// The session's score line, when the run's records are read.
    #[serde(default)]
    pub line: Option<Cow<'a, str>>,
    /// What to say when there is no line.
    #[serde(default)]
    pub note: Cow<'a, str>,
}

/// Traces side by side ([`crate::Call::TracePair`]): the task (0-based position in its
/// session) and the columns, run A's first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairInput<'a> {
    /// Task position in its session, 0-based.
    pub position: usize,
    /// Run A, then run B.
    pub columns: Vec<PairColumn<'a>>,
}
