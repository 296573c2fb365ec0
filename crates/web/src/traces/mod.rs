//! The trace view's state and behaviour: filters (failed only, type, subtype, and the
//! error class by the taxonomy chart's column titles), text search, sorting, what is open,
//! how many rows are shown, and deep links (the address names session, task and step,
//! 1-based; opening one shows, opens, scrolls to and focuses that task or step).
//!
//! Reading a task's log is the core's (`wildtool_core::trace`); this module keeps, per
//! scored run, each task's recorded tokens, latency and search text, built once on first
//! use.

pub mod pair;
pub mod view;

use wildtool_core::outcome::{ErrorColumn, TaskOutcome};
use wildtool_core::trace::{matches_query, session_usage, step_text, TaskDigest};

use crate::dashboard::ShownRun;
use crate::msg::{Effect, LabPurpose};
use crate::route::View;
use crate::state::AppState;

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

/// Each scored task's digest (tokens, latency, search text), by session index and task
/// position. Tokens and latency are read here; the search texts come from the lab module
/// (`trace_search_texts`), asked for when the traces are first shown.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Digests {
    tasks: Vec<Vec<TaskDigest>>,
    /// The lab module was asked for the search texts.
    asked: bool,
    /// The search texts are in.
    pub texts: bool,
}

impl Digests {
    /// The digest of task `position` of session `session` (0-based).
    pub fn get(&self, session: u32, position: u8) -> Option<&TaskDigest> {
        self.tasks.get(session as usize)?.get(usize::from(position))
    }

    /// Takes the lab module's search texts (`session \t task \t text` records).
    pub fn set_texts(&mut self, records: &str) {
        for r in records.lines() {
            let mut f = r.splitn(3, '\t');
            let (Some(s), Some(t), Some(text)) = (f.next(), f.next(), f.next()) else {
                continue;
            };
            let (Ok(s), Ok(t)) = (s.parse::<usize>(), t.parse::<usize>()) else {
                continue;
            };
            if let Some(d) = self.tasks.get_mut(s).and_then(|x| x.get_mut(t)) {
                d.text = text.to_owned();
            }
        }
        self.texts = true;
    }
}

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

impl AppState {
    /// Opens or closes a task's trace (`session:task`); the address names the open task.
    pub fn trace_task(&mut self, key: &str, open: bool) -> Vec<Effect> {
        let Some(&[s, t]) = parse_key(key).as_deref() else {
            return Vec::new();
        };
        let (Ok(s32), Ok(t8)) = (u32::try_from(s), u8::try_from(t)) else {
            return Vec::new();
        };
        let k = (s32, t8);
        // The browser reports a disclosure the page itself opened or closed too: nothing
        // changes then (the address keeps its step).
        if self.traces.open_tasks.contains(&k) == open {
            return Vec::new();
        }
        self.traces.open_tasks.retain(|x| *x != k);
        if open {
            self.traces.open_tasks.push(k);
        }
        if self.route.view != View::Traces {
            return Vec::new();
        }
        if open {
            self.route.session = Some(s);
            self.route.task = Some(t);
            self.route.step = None;
        } else if self.route.session == Some(s) && self.route.task == Some(t) {
            self.route.session = None;
            self.route.task = None;
            self.route.step = None;
        }
        vec![Effect::ReplaceUrl(self.address())]
    }

    /// Opens or closes a step (`session:task:step`); the address names the open step.
    pub fn trace_step(&mut self, key: &str, open: bool) -> Vec<Effect> {
        let Some(&[s, t, k]) = parse_key(key).as_deref() else {
            return Vec::new();
        };
        let (Ok(s32), Ok(t8)) = (u32::try_from(s), u8::try_from(t)) else {
            return Vec::new();
        };
        if self.traces.open_steps.contains(&(s32, t8, k)) == open {
            return Vec::new();
        }
        self.traces.toggle_step((s32, t8, k), open);
        let mut fx = if open {
            self.read_step(s32, t8, k)
        } else {
            Vec::new()
        };
        if self.route.view != View::Traces {
            return fx;
        }
        let here = self.route.session == Some(s) && self.route.task == Some(t);
        if open {
            self.route.session = Some(s);
            self.route.task = Some(t);
            self.route.step = Some(k);
        } else if here && self.route.step == Some(k) {
            self.route.step = None;
        } else {
            return fx;
        }
        fx.push(Effect::ReplaceUrl(self.address()));
        fx
    }

    /// The traces are shown: asks the lab module (once per run) for the search texts of
    /// the shown run's tasks.
    pub fn search_refresh(&mut self) -> Vec<Effect> {
        if self.route.view != View::Traces {
            return Vec::new();
        }
        let Some(shown) = &mut self.shown else {
            return Vec::new();
        };
        if run_digests(shown).is_none_or(|d| d.asked) {
            return Vec::new();
        }
        let hash = run_hash(&shown.id);
        let Some(scored) = shown.scored.as_mut() else {
            return Vec::new();
        };
        let mut input = String::new();
        for (session, line) in scored.lines() {
            input.push_str(&format!("{session}\t{line}\n"));
        }
        if let Some(d) = scored.digests.get_mut() {
            d.asked = true;
        }
        self.lab_call(SEARCH_TEXTS, input, LabPurpose::SearchTexts(hash))
    }

    /// The lab module answered: search texts of the shown run are kept with its digests.
    pub fn search_texts_arrived(&mut self, purpose: LabPurpose) {
        let LabPurpose::SearchTexts(hash) = purpose else {
            return;
        };
        let Some(Ok(records)) = self.lab.answer(purpose).cloned() else {
            return;
        };
        self.lab.clear(purpose);
        if let Some(shown) = self.shown.as_mut().filter(|s| run_hash(&s.id) == hash) {
            if let Some(d) = shown.scored.as_mut().and_then(|s| s.digests.get_mut()) {
                d.set_texts(&records);
            }
        }
    }

    /// The glossary was unfolded: asks the lab module for it (once).
    pub fn read_glossary(&mut self) -> Vec<Effect> {
        let p = LabPurpose::Glossary;
        if self.lab.busy(p) || matches!(self.lab.answer(p), Some(Ok(_))) {
            return Vec::new();
        }
        self.lab_call(GLOSSARY_VIEW, "{}".to_owned(), p)
    }

    /// Asks the lab module to render an opened step of the shown run (when its score
    /// files are there; [`AppState::trace_lines_arrived`] asks again once they are).
    fn read_step(&mut self, s: u32, t: u8, k: usize) -> Vec<Effect> {
        let text = self
            .shown
            .as_ref()
            .and_then(|r| r.scored.as_ref())
            .and_then(|sc| sc.line_of(s as usize))
            .and_then(|line| step_text(line, usize::from(t), k));
        let Ok(k) = u16::try_from(k) else {
            return Vec::new();
        };
        // An answer kept from another run (or an earlier reading) is not shown meanwhile.
        self.lab.clear(LabPurpose::TraceStep(s, t, k));
        match text {
            Some(text) => {
                let input = format!(
                    "{{\"step\":{}}}",
                    serde_json::to_string(&text).unwrap_or_default()
                );
                self.lab_call(TRACE_STEP, input, LabPurpose::TraceStep(s, t, k))
            }
            None => Vec::new(),
        }
    }

    /// Opens the traces of the shown run filtered to one error class (a column title of
    /// the error-taxonomy chart), from the dashboard.
    pub fn trace_class(&mut self, class: &str) -> Vec<Effect> {
        let Some(column) = ErrorColumn::parse(class) else {
            return Vec::new();
        };
        let open_tasks = std::mem::take(&mut self.traces.open_tasks);
        let open_steps = std::mem::take(&mut self.traces.open_steps);
        self.traces = TraceUi {
            error: column.as_str().to_owned(),
            open_tasks,
            open_steps,
            ..TraceUi::default()
        };
        let fx = self.go_view(View::Traces);
        self.focus = Some("traces-title".into());
        fx
    }

    /// Opens the task and step the address names (deep links, Back and Forward): filters
    /// that would hide the task are lifted (the view shows it after the first rows when it
    /// is further down), and it (or its step, once the run's score files are there) takes
    /// the focus, which scrolls to it.
    pub fn open_route_trace(&mut self) -> Vec<Effect> {
        let (Some(s), Some(t)) = (self.route.session, self.route.task) else {
            return Vec::new();
        };
        let (Ok(s), Ok(t)) = (u32::try_from(s), u8::try_from(t)) else {
            return Vec::new();
        };
        let Some(shown) = &self.shown else {
            return Vec::new();
        };
        let Some(hidden) = shown
            .outcomes
            .iter()
            .find(|o| o.session == s && o.position == t)
            .map(|o| !self.traces.matches(o) || !self.traces.search.trim().is_empty())
        else {
            return Vec::new();
        };
        let has_lines = shown.scored.is_some();
        if hidden {
            let ui = std::mem::take(&mut self.traces);
            self.traces = TraceUi {
                sort: ui.sort,
                open_tasks: ui.open_tasks,
                open_steps: ui.open_steps,
                ..TraceUi::default()
            };
        }
        if !self.traces.open_tasks.contains(&(s, t)) {
            self.traces.open_tasks.push((s, t));
        }
        let Some(k) = self.route.step else {
            self.focus = Some(task_anchor(s, t));
            return Vec::new();
        };
        let newly = !self.traces.open_steps.contains(&(s, t, k));
        self.traces.toggle_step((s, t, k), true);
        if !has_lines {
            self.focus = Some(task_anchor(s, t));
            return Vec::new();
        }
        self.focus = Some(step_anchor(s, t, k));
        if newly
            || self
                .lab
                .answer(LabPurpose::TraceStep(s, t, k as u16))
                .is_none()
        {
            self.read_step(s, t, k)
        } else {
            Vec::new()
        }
    }

    /// The shown run's score files arrived: steps already open are read now, and a step
    /// named by the address takes the focus.
    pub fn trace_lines_arrived(&mut self) -> Vec<Effect> {
        let mut fx = Vec::new();
        for (s, t, k) in self.traces.open_steps.clone() {
            fx.extend(self.read_step(s, t, k));
        }
        if self.route.view == View::Traces && self.route.step.is_some() {
            if let (Some(s), Some(t), Some(k)) =
                (self.route.session, self.route.task, self.route.step)
            {
                if let (Ok(s), Ok(t)) = (u32::try_from(s), u8::try_from(t)) {
                    self.focus = Some(step_anchor(s, t, k));
                }
            }
        }
        fx
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
