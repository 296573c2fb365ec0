//! The trace view's state and behaviour: filters (failed only, type, subtype, and the
//! error class by the taxonomy chart's column titles), text search, sorting, what is open,
//! how many rows are shown, and deep links (the address names session, task and step,
//! 1-based; opening one shows, opens, scrolls to and focuses that task or step).
//!
//! Reading a task's log is the core's (`wildtool_core::trace`); this module keeps, per
//! scored run, each task's recorded tokens, latency and search text, built once on first
//! use.

pub mod pair;
mod update;
pub mod view;

use wildtool_core::outcome::{ErrorColumn, TaskOutcome};
use wildtool_core::trace::{matches_query, session_usage, TaskDigest};

use crate::dashboard::ShownRun;

/// The lab module's call that renders an opened step.
pub const TRACE_STEP: wildtool_contract::Call = wildtool_contract::Call::TraceStep;

/// The lab module's call that renders the dashboard's glossary.
pub const GLOSSARY_VIEW: wildtool_contract::Call = wildtool_contract::Call::GlossaryView;

/// The id (and disclosure name) of the dashboard's glossary.
pub const GLOSSARY_ID: &str = "glossary";

/// Rows shown per page of the trace list.
pub const PAGE: usize = 50;

/// The lab module's call that gives the search text of every task of a run.
pub const SEARCH_TEXTS: wildtool_contract::Call = wildtool_contract::Call::TraceSearchTexts;

pub use crate::scoring::Digests;

/// The digests of the shown run's score files (read on first use, then kept with them);
/// `None` when the run has none (opened from a link).
pub fn run_digests(shown: &ShownRun) -> Option<&Digests> {
    let scored = shown.scored.as_ref()?;
    // Score lines name sessions by their ids; only the dataset's sessions are kept.
    let sessions = shown.outcomes.last().map_or(0, |o| o.session as usize + 1);
    Some(scored.digests.get_or_init(|| {
        let mut tasks: Vec<Vec<TaskDigest>> = Vec::new();
        for (session, line) in scored.lines() {
            if session >= sessions {
                continue;
            }
            if tasks.len() <= session {
                tasks.resize_with(session + 1, Vec::new);
            }
            if let Some(slot) = tasks.get_mut(session) {
                for usage in session_usage(line) {
                    slot.push(TaskDigest {
                        usage,
                        text: String::new(),
                    });
                }
            }
        }
        Digests {
            tasks,
            ..Digests::default()
        }
    }))
}

/// A short hash of a run's id (FNV-1a), naming its search-text call.
fn run_hash(id: &str) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in id.bytes() {
        h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    h
}

/// How the trace list is ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Sort {
    /// Session, then task (dataset order).
    #[default]
    Task,
    /// Error class in the chart's column order, then correct, then unscored tasks.
    ErrorClass,
    /// Most tokens first.
    Tokens,
    /// Slowest first.
    Latency,
}

impl Sort {
    /// Every order, as the sort menu lists them.
    pub const ALL: [Sort; 4] = [Sort::Task, Sort::ErrorClass, Sort::Tokens, Sort::Latency];

    /// Value in the sort menu.
    pub fn slug(self) -> &'static str {
        match self {
            Sort::Task => "task",
            Sort::ErrorClass => "error",
            Sort::Tokens => "tokens",
            Sort::Latency => "latency",
        }
    }

    /// Label in the sort menu.
    pub fn title(self) -> &'static str {
        match self {
            Sort::Task => "Session and task",
            Sort::ErrorClass => "Error class",
            Sort::Tokens => "Tokens (most first)",
            Sort::Latency => "Latency (slowest first)",
        }
    }
}

/// Trace view state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceUi {
    /// Failed tasks only.
    pub failed_only: bool,
    /// Task type filter (official name, empty: all).
    pub task_type: String,
    /// Subtype filter (empty: all; `First turn` for first tasks).
    pub subtype: String,
    /// Error class filter: a column title of the error-taxonomy chart (empty: all).
    pub error: String,
    /// Search words (every word must occur; case is ignored).
    pub search: String,
    /// Order of the list.
    pub sort: Sort,
    /// Rows shown.
    pub limit: usize,
    /// Open tasks `(session, position)`, 0-based.
    pub open_tasks: Vec<(u32, u8)>,
    /// Open steps `(session, position, step)`, 0-based.
    pub open_steps: Vec<(u32, u8, usize)>,
}

impl Default for TraceUi {
    fn default() -> Self {
        TraceUi {
            failed_only: false,
            task_type: String::new(),
            subtype: String::new(),
            error: String::new(),
            search: String::new(),
            sort: Sort::Task,
            limit: PAGE,
            open_tasks: Vec::new(),
            open_steps: Vec::new(),
        }
    }
}

/// The subtype as the filter names it.
pub fn subtype_name(o: &TaskOutcome) -> &'static str {
    o.subtype.map(|s| s.as_str()).unwrap_or("First turn")
}

/// The error class of a failed task, titled as the error-taxonomy chart titles it.
pub fn error_class(o: &TaskOutcome) -> Option<ErrorColumn> {
    o.error.map(|e| e.default_column())
}

/// `correct`, `failed` or `unscored`.
pub fn verdict(o: &TaskOutcome) -> &'static str {
    if o.incomplete {
        "unscored"
    } else if o.correct {
        "correct"
    } else {
        "failed"
    }
}

/// The element id of a task's summary (1-based numbers, as on the page).
pub fn task_anchor(session: u32, position: u8) -> String {
    format!(
        "trace-{}-{}",
        u64::from(session) + 1,
        u16::from(position) + 1
    )
}

/// The element id of a step's summary (1-based numbers).
pub fn step_anchor(session: u32, position: u8, step: usize) -> String {
    format!("{}-{}", task_anchor(session, position), step + 1)
}

/// What a search matches besides the log: numbers, session id, type, subtype, verdict
/// and error class of the task.
fn outcome_text(o: &TaskOutcome, session_id: &str) -> String {
    format!(
        "session {} {} task {} {} {} {} {} {}",
        o.session + 1,
        session_id,
        o.position + 1,
        o.task_type.as_str(),
        subtype_name(o),
        verdict(o),
        error_class(o).map(|c| c.as_str()).unwrap_or(""),
        o.error.map(|e| e.as_str()).unwrap_or("")
    )
    .to_lowercase()
}

fn parse_key(key: &str) -> Option<Vec<usize>> {
    key.split(':').map(|p| p.parse().ok()).collect()
}

impl TraceUi {
    /// Sets a filter, the search or the order (`failed`, `type`, `subtype`, `error`,
    /// `search`, `sort`).
    pub fn set_filter(&mut self, name: &str, value: &str) {
        match name {
            "failed" => self.failed_only = value == "true",
            "type" => self.task_type = value.to_owned(),
            "subtype" => self.subtype = value.to_owned(),
            "error" => self.error = value.to_owned(),
            "search" => self.search = value.to_owned(),
            "sort" => {
                self.sort = Sort::ALL
                    .into_iter()
                    .find(|s| s.slug() == value)
                    .unwrap_or_default()
            }
            _ => return,
        }
        self.limit = PAGE;
    }

    /// Shows the next page of rows.
    pub fn more(&mut self) {
        self.limit += PAGE;
    }

    /// True when `o` passes the filters (not the search).
    pub fn matches(&self, o: &TaskOutcome) -> bool {
        (!self.failed_only || !o.correct)
            && (self.task_type.is_empty() || o.task_type.as_str() == self.task_type)
            && (self.subtype.is_empty() || subtype_name(o) == self.subtype)
            && (self.error.is_empty()
                || error_class(o).map(|c| c.as_str()) == Some(self.error.as_str()))
    }

    /// The tasks the filters and the search let through, in the chosen order.
    /// `session_id` names a session (dataset ids); `digests` are the run's, when it has
    /// score files.
    pub fn rows<'a>(
        &self,
        outcomes: &'a [TaskOutcome],
        digests: Option<&Digests>,
        session_id: impl Fn(u32) -> String,
    ) -> Vec<&'a TaskOutcome> {
        let digest = |o: &TaskOutcome| digests.and_then(|d| d.get(o.session, o.position));
        let query = self.search.trim();
        let rows: Vec<&TaskOutcome> = outcomes
            .iter()
            .filter(|o| self.matches(o))
            .filter(|o| {
                query.is_empty()
                    || matches_query(
                        &[
                            &outcome_text(o, &session_id(o.session)),
                            digest(o).map(|d| d.text.as_str()).unwrap_or(""),
                        ],
                        query,
                    )
            })
            .collect();
        if self.sort == Sort::Task {
            return rows;
        }
        // One sort of packed keys (the core's shared `order::sort_by` on f64, the one the
        // intervals use): the order's key times 2^20 plus the row's place (so equal keys
        // keep dataset order), exact in an f64. Larger first for tokens and latency; tasks
        // without a recorded log last.
        const NONE: f64 = 4_294_967_295.0;
        let down = |x: f64| NONE - 1.0 - x.clamp(0.0, NONE - 1.0).floor();
        let mut keys = Vec::with_capacity(rows.len());
        for (i, o) in rows.iter().enumerate() {
            let key = match self.sort {
                Sort::ErrorClass => {
                    (error_class(o).map_or(ErrorColumn::ALL.len(), |c| c as usize) * 2
                        + usize::from(o.incomplete)) as f64
                }
                Sort::Tokens => digest(o).map_or(NONE, |d| down(d.usage.tokens() as f64)),
                _ => digest(o).map_or(NONE, |d| down(d.usage.latency * 1000.0)),
            };
            keys.push(key * 1_048_576.0 + (i % 1_048_576) as f64);
        }
        wildtool_core::order::sort_by(&mut keys, f64::total_cmp);
        let mut out = Vec::with_capacity(rows.len());
        for k in keys {
            if let Some(o) = rows.get((k % 1_048_576.0) as usize) {
                out.push(*o);
            }
        }
        out
    }

    /// Opens or closes a step (`session:task:step`, 0-based).
    fn toggle_step(&mut self, k: (u32, u8, usize), open: bool) {
        self.open_steps.retain(|x| *x != k);
        if open {
            self.open_steps.push(k);
        }
    }
}

/// The id of session `index` in `dataset` (empty when unknown).
pub fn session_id(dataset: Option<crate::data::Dataset>, index: u32) -> String {
    dataset
        .and_then(|d| d.session(index as usize))
        .map(|s| s.id.clone())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use wildtool_core::outcome::{RawErrorLabel, TaskType};

    fn outcome(session: u32, position: u8, error: Option<RawErrorLabel>) -> TaskOutcome {
        TaskOutcome {
            session,
            position,
            task_type: TaskType::SingleTool,
            subtype: None,
            transitions: 0,
            correct: error.is_none(),
            name_correct: true,
            optimal: false,
            steps_logged: 1,
            nodes_total: 1,
            nodes_done: 1,
            error,
            incomplete: false,
        }
    }

    fn digest(tokens: u64, latency: f64, text: &str) -> TaskDigest {
        TaskDigest {
            usage: wildtool_core::trace::Usage {
                input_tokens: tokens,
                output_tokens: 0,
                latency,
                requests: 1,
            },
            text: text.into(),
        }
    }

    fn keys(rows: &[&TaskOutcome]) -> Vec<(u32, u8)> {
        rows.iter().map(|o| (o.session, o.position)).collect()
    }

    #[test]
    fn filters_search_and_sorts() {
        let outcomes = vec![
            outcome(0, 0, None),
            outcome(0, 1, Some(RawErrorLabel::MissingRequired)),
            outcome(1, 0, Some(RawErrorLabel::Refusal)),
            outcome(1, 1, Some(RawErrorLabel::ParamValue)),
        ];
        let d = Digests {
            tasks: vec![
                vec![
                    digest(10, 3.0, "get_weather(paris)"),
                    digest(40, 1.0, "book_table"),
                ],
                vec![digest(20, 2.0, "i cannot help")],
            ],
            ..Digests::default()
        };
        let id = |s: u32| format!("wtb_{s}");
        let mut ui = TraceUi::default();
        assert_eq!(keys(&ui.rows(&outcomes, Some(&d), id)).len(), 4);
        // Both raw labels map to the chart's "Param Value Error" column.
        ui.set_filter("error", "Param Value Error");
        assert_eq!(
            keys(&ui.rows(&outcomes, Some(&d), id)),
            vec![(0, 1), (1, 1)]
        );
        ui.set_filter("error", "");
        ui.set_filter("search", "  PARIS ");
        assert_eq!(keys(&ui.rows(&outcomes, Some(&d), id)), vec![(0, 0)]);
        ui.set_filter("search", "wtb_1 \"task 2\"");
        assert_eq!(keys(&ui.rows(&outcomes, Some(&d), id)), vec![(1, 1)]);
        ui.set_filter("search", "refusal");
        assert_eq!(keys(&ui.rows(&outcomes, Some(&d), id)), vec![(1, 0)]);
        ui.set_filter("search", "");
        ui.set_filter("sort", "tokens");
        assert_eq!(
            keys(&ui.rows(&outcomes, Some(&d), id)),
            vec![(0, 1), (1, 0), (0, 0), (1, 1)],
            "no digest: last"
        );
        ui.set_filter("sort", "latency");
        assert_eq!(
            keys(&ui.rows(&outcomes, Some(&d), id)),
            vec![(0, 0), (1, 0), (0, 1), (1, 1)]
        );
        ui.set_filter("sort", "error");
        assert_eq!(
            keys(&ui.rows(&outcomes, Some(&d), id)),
            vec![(1, 0), (0, 1), (1, 1), (0, 0)],
            "Refusal, then Param Value Error (twice), then correct"
        );
        ui.set_filter("sort", "nonsense");
        assert_eq!(ui.sort, Sort::Task);
    }

    #[test]
    fn search_texts_from_the_lab_fill_the_digests() {
        let mut d = Digests {
            tasks: vec![vec![digest(1, 0.0, ""), digest(2, 0.0, "")]],
            ..Digests::default()
        };
        d.set_texts("0\t1\tbook_table(2 people)\nbad\n9\t0\tnowhere\n");
        assert!(d.texts);
        assert_eq!(
            d.get(0, 1).map(|x| x.text.as_str()),
            Some("book_table(2 people)")
        );
        assert_eq!(d.get(0, 0).map(|x| x.text.as_str()), Some(""));
        assert_eq!(run_hash("a"), run_hash("a"));
        assert_ne!(run_hash("a"), run_hash("b"));
    }

    #[test]
    fn anchors_are_one_based() {
        assert_eq!(task_anchor(0, 0), "trace-1-1");
        assert_eq!(step_anchor(9, 3, 0), "trace-10-4-1");
    }
}
