//! `report.json`: wildtool's own results next to the parity files, written by
//! `wildtool score` and `wildtool run` and read by `wildtool report` and
//! `wildtool compare`. Version 2 adds the format marker, the run status and scored counts,
//! run metadata when known and the record of a forced score; version-1 documents (no
//! `wildtool_report` field) are still read. The optional `cost` section (the run's cost in
//! money, `cost::CostFigures`) is an addition within version 2: it is written only when
//! prices were known, and readers that do not know it ignore it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::meta::RunMeta;
use crate::input::checked::Fields;
use crate::input::limits::{self, Limit};
use crate::input::FormatError;
use crate::outcome::TaskOutcome;
use crate::report::{RunReport, RunStatus};
use crate::score::ScoreStats;

/// The `report.json` version this build writes.
pub const REPORT_VERSION: u64 = 2;

const WHAT: &str = "report.json";

/// The dataset a report is about.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ReportDataset {
    /// The dataset's file name, when scored from a file.
    #[serde(default)]
    pub file: Option<String>,
    /// Its fingerprint (16 hex digits).
    #[serde(default)]
    pub fingerprint: String,
    /// Sessions (non-blank lines) in it.
    #[serde(default)]
    pub sessions: u64,
    /// Validation problems found in it.
    #[serde(default)]
    pub problems: u64,
}

/// A failed scored task, for a quick look.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailedTask {
    /// Session index.
    pub session: u32,
    /// Task position.
    pub task: u8,
    /// The raw error label (snake_case), when classified.
    pub raw_label: Option<String>,
    /// The error column it maps to.
    pub column: Option<String>,
    /// Always false: unscored tasks are not failures (kept for older readers).
    pub incomplete: bool,
}

/// Scored although the results did not match the dataset (`--force`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Forced {
    /// The refusal that was overridden.
    pub reason: String,
}

/// The `report.json` document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportDoc {
    /// Format marker and version ([`REPORT_VERSION`]; 1 for documents without it).
    pub wildtool_report: u64,
    /// The wildtool version that wrote it.
    pub wildtool_version: String,
    /// The scorer version string.
    pub scorer: String,
    /// The model name (as in `metric.json`).
    pub model_name: String,
    /// `done`, `partial` or `failed` (the same as `report.status`).
    pub status: RunStatus,
    /// Tasks scored (the denominator of every rate).
    pub tasks_scored: u64,
    /// Tasks of the dataset (or of the run's selected sessions).
    pub tasks_total: u64,
    /// Tasks not scored.
    pub tasks_unscored: u64,
    /// Set when the results did not match the dataset and were scored anyway.
    pub forced: Option<Forced>,
    /// What the run was, when wildtool made it.
    pub run: Option<RunMeta>,
    /// The dataset.
    pub dataset: ReportDataset,
    /// The report: every rate over scored tasks.
    pub report: RunReport,
    /// Counters of everything noticed while scoring.
    pub scoring: ScoreStats,
    /// The documented fallback applied for each official crash condition met.
    pub official_crash_fallbacks: BTreeMap<String, String>,
    /// Failed scored tasks.
    pub failed_tasks: Vec<FailedTask>,
    /// One outcome per task (unscored ones marked `incomplete`), dataset order.
    pub tasks: Vec<TaskOutcome>,
    /// Notes for readers.
    pub notes: Vec<String>,
    /// The cost of the scored tasks' requests, when prices were known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<crate::cost::CostFigures>,
}

/// The notes every report carries.
pub const NOTES: [&str; 4] = [
    "Parity files are score.jsonl and metric.json; everything here is wildtool's own.",
    "Every rate is over scored tasks (tasks_scored of tasks_total); unscored tasks (incomplete sessions, sessions without a result line) are in no denominator. metric.json covers the scored sessions too.",
    "Error columns use the mapping named in report.errors.mapping (PROTOCOL §8).",
    "scoring.official_crashes counts inputs on which the official code would have crashed (PROTOCOL §6); wildtool applied the documented fallback instead.",
];

/// What a report is built from.
#[derive(Debug, Clone)]
pub struct ReportInput<'a> {
    /// The model name.
    pub model_name: &'a str,
    /// The dataset.
    pub dataset: ReportDataset,
    /// One outcome per task (see `report::fill_outcomes`).
    pub tasks: Vec<TaskOutcome>,
    /// The scoring counters.
    pub scoring: ScoreStats,
    /// Run metadata, when known.
    pub run: Option<RunMeta>,
    /// The overridden refusal, when forced.
    pub forced: Option<String>,
}

impl ReportDoc {
    /// Builds the document (the report is computed here, from `tasks`).
    pub fn build(input: ReportInput<'_>) -> Self {
        let report = RunReport::from_outcomes(&input.tasks);
        let failed_tasks = input
            .tasks
            .iter()
            .filter(|o| !o.correct && !o.incomplete)
            .map(|o| FailedTask {
                session: o.session,
                task: o.position,
                raw_label: o.error.map(|e| e.as_str().to_owned()),
                column: o.error.map(|e| e.default_column().as_str().to_owned()),
                incomplete: false,
            })
            .collect();
        let official_crash_fallbacks = input
            .scoring
            .official_crashes
            .keys()
            .map(|code| {
                (
                    code.clone(),
                    crate::protocol::fallback_of(code)
                        .unwrap_or("see PROTOCOL §6")
                        .to_owned(),
                )
            })
            .collect();
        Self {
            wildtool_report: REPORT_VERSION,
            wildtool_version: env!("CARGO_PKG_VERSION").to_owned(),
            scorer: crate::SCORER_VERSION.to_owned(),
            model_name: input.model_name.to_owned(),
            status: report.status,
            tasks_scored: report.tasks_scored,
            tasks_total: report.tasks_total,
            tasks_unscored: report.tasks_unscored,
            forced: input.forced.map(|reason| Forced { reason }),
            run: input.run,
            dataset: input.dataset,
            report,
            scoring: input.scoring,
            official_crash_fallbacks,
            failed_tasks,
            tasks: input.tasks,
            notes: NOTES.iter().map(|n| (*n).to_owned()).collect(),
            cost: None,
        }
    }

    /// The document as pretty-printed JSON with a final newline.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }

    /// Reads a `report.json` of version 1 or 2. The report is recomputed from `tasks`
    /// (the one counting rule), so a version-1 document is read under today's rule.
    pub fn parse(bytes: &[u8]) -> Result<Self, FormatError> {
        limits::check(Limit::Document, bytes.len() as u64, None).map_err(FormatError::Limit)?;
        let value: serde_json::Value =
            serde_json::from_slice(bytes).map_err(|e| FormatError::Json {
                what: WHAT,
                message: e.to_string(),
            })?;
        let f = Fields::root(WHAT, &value)?;
        let version = f.opt::<u64>("wildtool_report")?.unwrap_or(1);
        if version > REPORT_VERSION {
            return Err(FormatError::Version {
                what: WHAT,
                found: version.to_string(),
                supported: "versions 1 and 2",
            });
        }
        let tasks = f.list::<TaskOutcome>("tasks")?.ok_or(FormatError::Field {
            what: WHAT,
            path: "tasks".to_owned(),
            problem: "is missing; is this a wildtool report.json?".to_owned(),
        })?;
        let dataset = match f.obj("dataset")? {
            Some(d) => ReportDataset {
                file: d.opt("file")?,
                fingerprint: d.opt::<String>("fingerprint")?.unwrap_or_default(),
                sessions: d.opt("sessions")?.unwrap_or(0),
                problems: d.opt("problems")?.unwrap_or(0),
            },
            None => ReportDataset::default(),
        };
        let run = match f.obj("run")? {
            Some(r) => Some(RunMeta::from_fields(&r)?),
            None => None,
        };
        let report = RunReport::from_outcomes(&tasks);
        Ok(Self {
            wildtool_report: version,
            wildtool_version: f.opt::<String>("wildtool_version")?.unwrap_or_default(),
            scorer: f
                .opt::<String>("scorer")?
                .unwrap_or_else(|| crate::SCORER_VERSION.to_owned()),
            model_name: f
                .opt::<String>("model_name")?
                .unwrap_or_else(|| super::score_file::UNKNOWN_MODEL.to_owned()),
            status: report.status,
            tasks_scored: report.tasks_scored,
            tasks_total: report.tasks_total,
            tasks_unscored: report.tasks_unscored,
            forced: f.opt("forced")?,
            run,
            dataset,
            report,
            scoring: f.opt("scoring")?.unwrap_or_default(),
            official_crash_fallbacks: f.opt("official_crash_fallbacks")?.unwrap_or_default(),
            failed_tasks: f.opt("failed_tasks")?.unwrap_or_default(),
            tasks,
            notes: f.opt("notes")?.unwrap_or_default(),
            cost: f.opt("cost")?,
        })
    }
}
