//! Bridges to core functions of the result model that are being moved into the core
//! (one outcome per dataset task, the headline as displayed, charts from one report).
//! Each item here has the signature of its core successor and is replaced by it.

use wildtool_core::chart::dashboard::{self, ComparisonRow};
use wildtool_core::chart::{format_percent, ChartSpec};
use wildtool_core::outcome::TaskOutcome;
use wildtool_core::report::RunReport;
use wildtool_core::share::TaskShape;

/// A run's status under the counting rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunStatus {
    /// Every task scored.
    Done,
    /// Some scored.
    Partial,
    /// None scored.
    Failed,
}

impl RunStatus {
    /// `done`, `partial`, `failed`.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Done => "done",
            RunStatus::Partial => "partial",
            RunStatus::Failed => "failed",
        }
    }
}

/// The headline as every view shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Headline {
    /// Status.
    pub status: RunStatus,
    /// Tasks scored.
    pub tasks_scored: u64,
    /// Tasks of the run.
    pub tasks_total: u64,
    /// Task accuracy as displayed.
    pub task_accuracy: Option<String>,
    /// Session accuracy as displayed.
    pub session_accuracy: Option<String>,
    /// "n of N tasks scored".
    pub scored: String,
    /// Banner text of a partial or failed run.
    pub note: Option<String>,
}

impl Headline {
    /// The headline of a report built from one outcome per task.
    pub fn of(report: &RunReport) -> Headline {
        let total = report.tasks;
        let scored = report.tasks - report.incomplete;
        let status = if scored == 0 {
            RunStatus::Failed
        } else if scored >= total {
            RunStatus::Done
        } else {
            RunStatus::Partial
        };
        let plural = |n: u64| if n == 1 { "" } else { "s" };
        let shown = |rate: &wildtool_core::report::Rate| {
            (status != RunStatus::Failed && rate.total > 0).then(|| format_percent(rate.rate))
        };
        let note = match status {
            RunStatus::Done => None,
            RunStatus::Partial => Some(format!(
                "Partial run: {scored} of {total} task{} scored; {} task{} without a result are not model errors and are in no rate.",
                plural(total),
                total - scored,
                plural(total - scored)
            )),
            RunStatus::Failed => Some(format!(
                "Failed run: none of the {total} task{} could be scored, so there is no accuracy to show.",
                plural(total)
            )),
        };
        Headline {
            status,
            tasks_scored: scored,
            tasks_total: total,
            task_accuracy: shown(&report.task_accuracy),
            session_accuracy: shown(&report.session_accuracy),
            scored: format!("{scored} of {total} task{} scored", plural(total)),
            note,
        }
    }
}

/// The report of a run over scored tasks only (one outcome per task given).
pub fn report(outcomes: &[TaskOutcome]) -> RunReport {
    let scored: Vec<TaskOutcome> = outcomes.iter().filter(|o| !o.incomplete).cloned().collect();
    let mut r = RunReport::from_outcomes(&scored);
    r.tasks = outcomes.len() as u64;
    r.incomplete = outcomes.len() as u64 - scored.len() as u64;
    r
}

/// One outcome per shape: the scored one when present, else an unscored one.
pub fn fill_outcomes(shapes: &[TaskShape], outcomes: &[TaskOutcome]) -> Vec<TaskOutcome> {
    let mut by_key = std::collections::BTreeMap::new();
    for o in outcomes {
        by_key.entry((o.session, o.position)).or_insert(o);
    }
    shapes
        .iter()
        .map(|s| match by_key.get(&(s.session, s.position)) {
            Some(o) => (*o).clone(),
            None => TaskOutcome {
                session: s.session,
                position: s.position,
                task_type: s.task_type,
                subtype: s.subtype,
                transitions: s.transitions,
                correct: false,
                name_correct: false,
                optimal: false,
                steps_logged: 0,
                nodes_total: s.nodes_total,
                nodes_done: 0,
                error: None,
                incomplete: true,
            },
        })
        .collect()
}

/// The dashboard's standard charts.
pub fn standard_charts(label: &str, outcomes: &[TaskOutcome]) -> Vec<ChartSpec> {
    dashboard::standard_charts(label, outcomes)
}

/// A run as a comparison row.
pub fn summarize(label: &str, outcomes: &[TaskOutcome]) -> ComparisonRow {
    dashboard::summarize(label, outcomes)
}

/// What an uploaded file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// An official `result.jsonl`.
    OfficialResult,
    /// A wildtool checkpoint.
    Checkpoint,
    /// A run exported from the page.
    RunExport,
    /// A dataset file.
    Dataset,
    /// CSV.
    Csv,
    /// Nothing in it.
    Empty,
    /// Anything else.
    Other,
}

impl FileKind {
    /// What the user reads when the file cannot be scored.
    pub fn refusal(self) -> Option<&'static str> {
        match self {
            FileKind::OfficialResult | FileKind::Checkpoint | FileKind::RunExport => None,
            FileKind::Dataset => Some("This is a dataset file, not results: load it in Setup to run a model on it, then score the result file that run produces."),
            FileKind::Csv => Some("This is a CSV file (for example a per-task export), not results: only an official result.jsonl, a wildtool checkpoint or a run file exported from this page can be scored."),
            FileKind::Empty => Some("This file is empty: there is nothing to score."),
            FileKind::Other => Some("This file is not a result file: expected an official result.jsonl (one JSON object per line with \"id\" and \"result\"), a wildtool checkpoint or a run file exported from this page."),
        }
    }
}

/// Tells what a file is from its first bytes.
pub fn sniff(head: &[u8], total: u64) -> FileKind {
    let text = String::from_utf8_lossy(head);
    let text = text.trim_start_matches('\u{feff}');
    if total == 0 || text.trim().is_empty() {
        return FileKind::Empty;
    }
    if head.contains(&0) {
        return FileKind::Other;
    }
    let first = text.trim_start().lines().next().unwrap_or("");
    if !first.starts_with('{') {
        let commas = first.matches(',').count();
        return if commas >= 1 && !first.contains('{') {
            FileKind::Csv
        } else {
            FileKind::Other
        };
    }
    let key_at = |k: &str| first.find(&format!("\"{k}\""));
    if key_at("wildtool_checkpoint").is_some() {
        FileKind::Checkpoint
    } else if key_at("wildtool_run").is_some() {
        FileKind::RunExport
    } else if key_at("result").is_some() && key_at("id").is_some() {
        FileKind::OfficialResult
    } else if [
        "english_tasks",
        "tasks",
        "answer_list",
        "english_answer_list",
    ]
    .iter()
    .any(|k| key_at(k).is_some())
    {
        FileKind::Dataset
    } else {
        FileKind::Other
    }
}

/// Refuses a result file that does not belong to the dataset.
pub fn check_belongs(
    stats: &wildtool_core::score::ScoreStats,
    scored_tasks: u64,
) -> Result<(), String> {
    if scored_tasks > 0 && stats.label_disagreements * 2 > scored_tasks {
        return Err(format!(
            "This result file does not belong to the loaded dataset: the labels recorded in it disagree with the replay on this dataset for {} of {} tasks.",
            stats.label_disagreements, scored_tasks
        ));
    }
    Ok(())
}
