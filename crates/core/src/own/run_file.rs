//! `own-result.jsonl` and `own-report.json`.
//!
//! `own-result.jsonl`: a header line `{"format": "wildtool-own-run/1", "extension",
//! "history_mode": "own", "own_version", "environment", "model_name",
//! "dataset_fingerprint", "trial", "status", "tasks_total"}`, then one line per complete
//! session `{"id", "line", "model_name", "history_mode", "environment", "tasks": [trace…]}`
//! with every task's environment trace as the own-history loop recorded it (each call
//! with the `content` of its tool message).
//!
//! Labels are never stored: scoring replays each task's replies through the official
//! task machine (with the gold history, which decides nothing) into an official-style
//! task record, and scores those records with the official scorer and argument checker.
//! So a task's label is the one the official protocol would give the same replies; what
//! differs is what the model saw before them.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::dataset::{LoadedDataset, Session};
use crate::formats::report_doc::{ReportDataset, ReportDoc, ReportInput};
use crate::input::lines;
use crate::json::{dumps, loads, Escape, Map, Value};
use crate::outcome::TaskOutcome;
use crate::protocol::{trace_reply, Reply, SeededIds, TaskMachine};
use crate::report::fill_outcomes;
use crate::runner::checkpoint::session_result_line;
use crate::score::{ArgChecker, ScoreOptions, ScoreStats, Scorer};
use crate::share::task_shapes;

use super::figure::{propagation, Propagation};
use super::{OWN_LABEL, OWN_VERSION};

/// The `own-result.jsonl` format marker.
pub const OWN_RUN_FORMAT: &str = "wildtool-own-run/1";
/// The `own-report.json` format marker.
pub const OWN_REPORT_FORMAT: &str = "wildtool-own-report/1";

/// The header of an `own-result.jsonl`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnHead {
    /// The model.
    pub model_name: String,
    /// The dataset's fingerprint (16 hex digits).
    pub dataset_fingerprint: String,
    /// `canned`, or `ledger+canned` (ledger sessions in the ledger environment).
    pub environment: String,
    /// The run's end state.
    pub status: String,
    /// Trial number (1-based).
    pub trial: u64,
    /// Tasks the run was to score.
    pub tasks_total: u64,
}

/// The header line.
pub fn header_line(head: &OwnHead) -> String {
    let mut m = Map::new();
    m.insert("format", Value::str(OWN_RUN_FORMAT));
    m.insert("extension", Value::str(OWN_LABEL));
    m.insert("history_mode", Value::str("own"));
    m.insert("own_version", Value::str(OWN_VERSION));
    m.insert("environment", Value::str(head.environment.clone()));
    m.insert("model_name", Value::str(head.model_name.clone()));
    m.insert(
        "dataset_fingerprint",
        Value::str(head.dataset_fingerprint.clone()),
    );
    m.insert("trial", Value::int(head.trial as i64));
    m.insert("status", Value::str(head.status.clone()));
    m.insert("tasks_total", Value::int(head.tasks_total as i64));
    dumps(&Value::Object(m), Escape::Utf8)
}

/// Reads a header line.
pub fn parse_header(line: &str) -> Result<OwnHead, String> {
    let h = crate::ledger::run_file::HeaderFields::read(line, OWN_RUN_FORMAT, "own-result")?;
    let (s, n) = (|k: &str| h.text(k), |k: &str| h.count(k));
    Ok(OwnHead {
        model_name: s("model_name")?,
        dataset_fingerprint: s("dataset_fingerprint")?,
        environment: s("environment")?,
        status: s("status")?,
        trial: n("trial")?,
        tasks_total: n("tasks_total")?,
    })
}

/// A session line from its task traces (in task order).
pub fn session_line(session: &Session, model: &str, environment: &str, traces: &[Value]) -> String {
    let mut m = Map::new();
    m.insert("id", Value::str(session.id.clone()));
    m.insert("line", Value::int(session.index as i64));
    m.insert("model_name", Value::str(model));
    m.insert("history_mode", Value::str("own"));
    m.insert("environment", Value::str(environment));
    m.insert("tasks", Value::Array(traces.to_vec()));
    dumps(&Value::Object(m), Escape::Utf8)
}

/// The official-style task record `T` of one own-history trace: its replies fed, in
/// order, to the official task machine until it decides. A trace that ends before the
/// official loop would (the step cap) is closed with an empty reply, which the official
/// loop labels an error.
pub fn official_task(session: &Session, task: usize, trace: &Value) -> Option<Value> {
    let mut ids = SeededIds::new(0);
    let mut m = TaskMachine::new(session, task, &mut ids).ok()?;
    for step in trace
        .get("steps")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if m.is_finished() {
            break;
        }
        m.feed(&trace_reply(step));
    }
    if !m.is_finished() {
        m.feed(&Reply::text(""));
    }
    m.result()
}

/// The official-style result line of a session's own-history traces.
pub fn official_line(session: &Session, model: &str, traces: &[Value]) -> String {
    let tasks: Vec<String> = traces
        .iter()
        .enumerate()
        .map(|(t, tr)| {
            official_task(session, t, tr)
                .map(|v| dumps(&v, Escape::Utf8))
                .unwrap_or_else(|| "{}".to_owned())
        })
        .collect();
    session_result_line(model, &session.id, tasks.iter().map(String::as_str))
}

/// An `own-result.jsonl` scored.
#[derive(Debug, Clone)]
pub struct OwnScored {
    /// The header.
    pub head: OwnHead,
    /// One outcome per dataset task (unscored ones marked incomplete).
    pub outcomes: Vec<TaskOutcome>,
    /// The official scorer's counters (tokens, requests, crash conditions).
    pub stats: ScoreStats,
    /// Each scored session's traces, by dataset index.
    pub traces: BTreeMap<usize, Vec<Value>>,
    /// `(line number, problem)` for every line that was not scored.
    pub problems: Vec<(usize, String)>,
    /// Token use of the scored sessions.
    pub tokens: Tokens,
}

/// Scores an `own-result.jsonl` against its dataset (whose fingerprint must be the
/// header's).
pub fn score_text(
    dataset: &LoadedDataset,
    fingerprint: &str,
    text: &str,
    checker: &dyn ArgChecker,
    options: ScoreOptions,
) -> Result<OwnScored, String> {
    let mut it = lines::split(text.as_bytes()).filter(|(_, l)| !matches!(l, Ok(None)));
    let (_, first) = it.next().ok_or("the file is empty")?;
    let first = first.map_err(|e| e.to_string())?.unwrap_or("");
    let head = parse_header(first)?;
    if head.dataset_fingerprint != fingerprint {
        return Err(format!(
            "the run was made on a dataset with fingerprint {}, not this one ({fingerprint})",
            head.dataset_fingerprint
        ));
    }
    let mut scorer = Scorer::new(dataset, checker, options);
    let mut outcomes = Vec::new();
    let mut traces = BTreeMap::new();
    let mut problems = Vec::new();
    for (span, line) in it {
        let no = span.number;
        let line = match line {
            Ok(Some(l)) => l,
            Ok(None) => continue,
            Err(e) => {
                problems.push((no, e.to_string()));
                continue;
            }
        };
        let v = match loads(line) {
            Ok(v) => v,
            Err(e) => {
                problems.push((no, format!("not JSON: {e}")));
                continue;
            }
        };
        let index = v
            .get("line")
            .and_then(Value::as_i64)
            .and_then(|i| usize::try_from(i).ok());
        let Some(session) = index.and_then(|i| dataset.session_at(i)) else {
            problems.push((no, "\"line\" names no session of the dataset".to_owned()));
            continue;
        };
        let tasks = v
            .get("tasks")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let official = official_line(session, &head.model_name, &tasks);
        match scorer.score_line(no, &official) {
            Ok(scored) => {
                outcomes.extend(scored.outcomes);
                traces.insert(session.index, tasks);
            }
            Err(e) => problems.push((no, e.message)),
        }
    }
    let shapes = task_shapes(dataset);
    let stats = scorer.final_stats();
    Ok(OwnScored {
        head,
        outcomes: fill_outcomes(&shapes, &outcomes),
        tokens: Tokens::of_run(&stats, dataset, &traces),
        stats,
        traces,
        problems,
    })
}

/// Token use of an own-history run (or of any run, from its scorer's counters).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Tokens {
    /// Sessions scored.
    pub sessions: u64,
    /// Prompt tokens, summed over requests.
    pub input: u64,
    /// Completion tokens.
    pub output: u64,
    /// Prompt tokens per scored session.
    pub input_per_session: f64,
    /// Completion tokens per scored session.
    pub output_per_session: f64,
    /// Estimated prompt tokens per scored session from the size of the messages sent
    /// (`cost::estimate`: bytes / 4), for backends that report no usage.
    pub estimated_prompt_per_session: f64,
}

impl Tokens {
    /// From the scorer's counters and the traces of the scored sessions.
    pub fn of_run(
        stats: &ScoreStats,
        dataset: &LoadedDataset,
        traces: &BTreeMap<usize, Vec<Value>>,
    ) -> Self {
        let bytes: usize = traces
            .iter()
            .filter_map(|(i, tr)| {
                let s = dataset.session_at(*i)?;
                crate::protocol::request_bytes(s, tr).ok()
            })
            .flatten()
            .sum();
        let mut t = Self::of(stats, traces.len() as u64);
        if t.sessions > 0 {
            t.estimated_prompt_per_session =
                crate::cost::estimate::tokens_of_bytes(bytes) as f64 / t.sessions as f64;
        }
        t
    }

    /// From the scorer's counters over `sessions` scored sessions.
    pub fn of(stats: &ScoreStats, sessions: u64) -> Self {
        let per = |x: u64| {
            if sessions == 0 {
                0.0
            } else {
                x as f64 / sessions as f64
            }
        };
        Tokens {
            sessions,
            input: stats.input_tokens,
            output: stats.output_tokens,
            input_per_session: per(stats.input_tokens),
            output_per_session: per(stats.output_tokens),
            estimated_prompt_per_session: 0.0,
        }
    }
}

#[derive(Serialize)]
struct OwnReportDoc<'a> {
    format: &'static str,
    extension: &'static str,
    history_mode: &'static str,
    own_version: &'static str,
    environment: &'a str,
    model_name: &'a str,
    dataset_fingerprint: &'a str,
    status: &'a str,
    propagation: Propagation,
    tokens: Tokens,
    ledger_env: Option<serde_json::Value>,
    report: &'a ReportDoc,
}

/// The official-style report of an own-history run (every rate over its scored tasks).
pub fn report_doc(scored: &OwnScored, dataset: ReportDataset) -> ReportDoc {
    let mut doc = ReportDoc::build(ReportInput {
        model_name: &scored.head.model_name,
        dataset,
        tasks: scored.outcomes.clone(),
        scoring: scored.stats.clone(),
        run: None,
        forced: None,
    });
    doc.notes.insert(0, OWN_LABEL.to_owned());
    doc
}

/// `own-report.json`: the extension label and format, the error-propagation share, the
/// tokens per session, the ledger sessions' own-history env metrics (when any), and the
/// official-style report of the labels.
pub fn report_json(
    scored: &OwnScored,
    doc: &ReportDoc,
    ledger_env: Option<serde_json::Value>,
) -> String {
    let d = OwnReportDoc {
        format: OWN_REPORT_FORMAT,
        extension: OWN_LABEL,
        history_mode: "own",
        own_version: OWN_VERSION,
        environment: &scored.head.environment,
        model_name: &scored.head.model_name,
        dataset_fingerprint: &scored.head.dataset_fingerprint,
        status: &scored.head.status,
        propagation: propagation(&scored.outcomes),
        tokens: scored.tokens,
        ledger_env,
        report: doc,
    };
    serde_json::to_string_pretty(&d).unwrap_or_default() + "\n"
}

/// An HTML page with the own-history label as a visible badge at the top of its main
/// content (the official report's page, marked as an extension).
pub fn label_html(html: &str) -> String {
    let badge = format!(
        "<p class=\"badge extension\" role=\"note\"><strong>Extension</strong> — {}</p>",
        crate::chart::escape_xml(OWN_LABEL)
    );
    match html
        .find("<main")
        .and_then(|i| html[i..].find('>').map(|j| i + j + 1))
    {
        Some(at) => format!("{}{badge}{}", &html[..at], &html[at..]),
        None => format!("{badge}{html}"),
    }
}
