//! Official scoring (PROTOCOL §4): replays each recorded task through the task state
//! machine, applies `params_checker`, accumulates `calc_accuracy`, and writes the parity
//! files (`score.jsonl`, `metric.json`) byte for byte, plus wildtool's own per-task
//! outcomes for the report. Sans-IO: lines in, strings out.

pub mod metrics;
pub mod params;
pub mod replay;

use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::dataset::{LoadedDataset, Session};
use crate::json::{dump_indent4, dumps_into, loads_deferring, Escape, Map, PathStep, Value};
use crate::outcome::{transition_count, TaskOutcome, TaskType};
use crate::protocol::{StepKind, DEFAULT_CANDIDATE_CAP};
use crate::report::taxonomy;

pub use metrics::{Bucket, Metrics, ProgressBucket, TaskTally};
pub use params::{params_checker, params_checker_cached, ParamsOutcome, ToolsCache};

/// Where in a result line scoring keeps values as text ([`Value::Raw`]): each step's
/// `inference_input.messages` and `.tools`, copied through unread except for the tool list
/// of a step whose arguments are checked and the first step's messages when a task logged
/// no `begin_of_current_task` (those are parsed then).
pub const DEFERRED_INPUTS: &[PathStep<'static>] = &[
    PathStep::Key("result"),
    PathStep::AnyIndex,
    PathStep::Key("inference_log"),
    PathStep::Prefix("step_"),
    PathStep::Key("inference_input"),
    PathStep::AnyOf(&["messages", "tools"]),
];

/// The argument checker used by scoring: `(step tools, name, predicted arguments, gold
/// arguments string) -> verdict` (PROTOCOL §5).
pub trait ArgChecker {
    /// Returns `"correct"` or the first error verdict.
    fn check(&self, tools: &Value, name: &str, predicted: &Value, gold: &str) -> String;

    /// Official crash conditions met inside the checker so far, by PROTOCOL row.
    fn official_crashes(&self) -> BTreeMap<String, u64> {
        BTreeMap::new()
    }
}

/// The official argument checker with a segmenter, counting the checker-side crash
/// conditions (C3, C4, C12 and uncaught parse errors) for the report.
pub struct OfficialChecker<'s> {
    segmenter: &'s dyn crate::checker::Segmenter,
    crashes: std::cell::RefCell<BTreeMap<String, u64>>,
}

impl<'s> OfficialChecker<'s> {
    /// A checker using `segmenter` for Chinese strings.
    pub fn new(segmenter: &'s dyn crate::checker::Segmenter) -> Self {
        Self {
            segmenter,
            crashes: std::cell::RefCell::new(BTreeMap::new()),
        }
    }
}

impl ArgChecker for OfficialChecker<'_> {
    fn check(&self, tools: &Value, name: &str, predicted: &Value, gold: &str) -> String {
        match crate::checker::check_verdict(tools, name, predicted, gold, self.segmenter) {
            Ok(verdict) => {
                if let Ok(mut crashes) = self.crashes.try_borrow_mut() {
                    for q in &verdict.quirks {
                        let code = q.protocol_id().unwrap_or("uncaught-parse-error");
                        *crashes.entry(code.to_owned()).or_default() += 1;
                    }
                }
                verdict.text
            }
            Err(_) => crate::checker::SEGMENTER_UNAVAILABLE.to_owned(),
        }
    }

    fn official_crashes(&self) -> BTreeMap<String, u64> {
        self.crashes
            .try_borrow()
            .map(|c| c.clone())
            .unwrap_or_default()
    }
}

impl<F: Fn(&Value, &str, &Value, &str) -> String> ArgChecker for F {
    fn check(&self, tools: &Value, name: &str, predicted: &Value, gold: &str) -> String {
        self(tools, name, predicted, gold)
    }
}

/// A result line that could not be scored (the official code would crash; wildtool skips
/// it and says why).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[error("result line {line}: {message}")]
pub struct LineError {
    /// 1-based line number in the result file.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl From<crate::input::lines::LineError> for LineError {
    fn from(e: crate::input::lines::LineError) -> Self {
        LineError {
            line: e.line(),
            message: e.problem(),
        }
    }
}

/// One scored result line.
#[derive(Debug, Clone)]
pub struct ScoredLine {
    /// The dataset line index `N` of the id (the sort key of the score file).
    pub index: usize,
    /// The session id.
    pub id: String,
    /// The score line (dumps-ascii, no newline).
    pub score_line: String,
    /// One outcome per scored task.
    pub outcomes: Vec<TaskOutcome>,
}

/// A recorded user turn that is not the dataset's (the first one found, for messages).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnDifference {
    /// Session index (the id suffix).
    pub session: usize,
    /// Task position.
    pub task: usize,
    /// The user turn the result file recorded.
    pub recorded: String,
    /// The dataset's user turn.
    pub dataset: String,
}

/// Counters of everything wildtool noticed while scoring, outside the parity files.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ScoreStats {
    /// Result lines scored.
    pub lines: u64,
    /// Tasks whose recorded labels differed from the re-derived ones.
    pub label_disagreements: u64,
    /// Tasks whose log ended before the official loop would have stopped.
    pub truncated_logs: u64,
    /// Sessions whose result was an error string (C2).
    pub error_sessions: u64,
    /// Ids that occurred more than once (P19: all scored and counted).
    pub duplicate_ids: u64,
    /// Tasks in results beyond the dataset's tasks (ignored).
    pub extra_tasks: u64,
    /// Official crash conditions met, by PROTOCOL row (C1, C2, C5…), with counts.
    pub official_crashes: BTreeMap<String, u64>,
    /// Sum of `input_token_count` entries.
    pub input_tokens: u64,
    /// Sum of `output_token_count` entries.
    pub output_tokens: u64,
    /// Sum of `latency` entries (seconds).
    pub latency_seconds: f64,
    /// Requests (latency entries).
    pub requests: u64,
    /// Lines that could not be scored.
    pub skipped: Vec<LineError>,
    /// Lines whose id points at a session the dataset does not have.
    pub unknown_ids: u64,
    /// Tasks whose recorded user turn (the log's `begin_of_current_task`, else the last
    /// user message of the first step) was compared with the dataset's.
    pub user_turns_checked: u64,
    /// Of those, tasks whose recorded user turn differs from the dataset's.
    pub user_turns_differing: u64,
    /// The first differing user turn.
    pub first_turn_difference: Option<TurnDifference>,
    /// Tasks with a recorded name verdict (`action_name_label`).
    pub name_labels_recorded: u64,
    /// Of those, tasks whose recorded name verdict differs from the replayed one.
    pub name_labels_differing: u64,
}

impl ScoreStats {
    /// P19's warning, the same words in the CLI and the page: result lines that repeat a
    /// session already in the file are all counted by `metric.json`, as the official
    /// scorer counts them, while the summary, the report and the charts count each task
    /// once. `None` when no id repeats.
    pub fn duplicate_warning(&self) -> Option<String> {
        (self.duplicate_ids > 0).then(|| {
            format!(
                "{} result line(s) repeat a session already in the file: metric.json counts every line, as the official scorer does (P19); the summary, report and charts count each task once",
                self.duplicate_ids
            )
        })
    }
}

/// Options of a scoring run.
#[derive(Debug, Clone)]
pub struct ScoreOptions {
    /// Cap on re-derived candidate lists (§2.6).
    pub candidate_cap: usize,
}

impl Default for ScoreOptions {
    fn default() -> Self {
        Self {
            candidate_cap: DEFAULT_CANDIDATE_CAP,
        }
    }
}

/// Scores one result line at a time without counting it: the part of scoring that does
/// not depend on the lines before (parse, replay, argument checks, the score line). Each
/// thread of a parallel scoring run has its own; a [`Scorer`] counts their [`LineWork`]
/// in line order, which gives the same files as scoring the lines in turn.
pub struct LineScorer<'d> {
    dataset: &'d LoadedDataset,
    checker: &'d dyn ArgChecker,
    options: ScoreOptions,
    tools_cache: ToolsCache<'d>,
}

/// One line scored by a [`LineScorer`], not counted yet ([`Scorer::count`] counts it).
#[derive(Debug)]
pub struct LineWork {
    result: Result<ScoredLine, LineError>,
    /// The counters this line adds (`latency_seconds` stays 0: see `latencies`).
    stats: ScoreStats,
    /// The line's latency entries in order, added one by one when counted, so the sum
    /// is the one serial scoring makes.
    latencies: Vec<f64>,
    /// The id and recorded model name, once the id pointed at a dataset session.
    counted: Option<(String, Option<String>)>,
    /// The session's tallies, when the line scored.
    tallies: Option<Vec<TaskTally>>,
    disagreeing: Vec<usize>,
}

impl<'d> LineScorer<'d> {
    /// A line scorer over `dataset` with `checker`.
    pub fn new(
        dataset: &'d LoadedDataset,
        checker: &'d dyn ArgChecker,
        options: ScoreOptions,
    ) -> Self {
        Self {
            dataset,
            checker,
            options,
            tools_cache: ToolsCache::new(),
        }
    }

    /// Scores one result line (`line` is 1-based, for messages) without counting it.
    pub fn work(&mut self, line: usize, text: &str) -> LineWork {
        let mut work = LineWork {
            result: Err(LineError {
                line,
                message: String::new(),
            }),
            stats: ScoreStats::default(),
            latencies: Vec::new(),
            counted: None,
            tallies: None,
            disagreeing: Vec::new(),
        };
        work.result = self.work_inner(&mut work, line, text);
        work
    }
}

/// Scores result lines against a dataset, accumulating the official metrics.
pub struct Scorer<'d> {
    lines: LineScorer<'d>,
    metrics: Metrics,
    stats: ScoreStats,
    seen: HashSet<String>,
    model_name: Option<String>,
    disagreeing: Vec<usize>,
}

impl<'d> Scorer<'d> {
    /// A scorer over `dataset` (sessions looked up by id suffix) with `checker`.
    pub fn new(
        dataset: &'d LoadedDataset,
        checker: &'d dyn ArgChecker,
        options: ScoreOptions,
    ) -> Self {
        Self {
            lines: LineScorer::new(dataset, checker, options),
            metrics: Metrics::default(),
            stats: ScoreStats::default(),
            seen: HashSet::new(),
            model_name: None,
            disagreeing: Vec::new(),
        }
    }

    /// The metrics so far.
    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// The counters so far (scoring side; see [`Scorer::final_stats`]).
    pub fn stats(&self) -> &ScoreStats {
        &self.stats
    }

    /// The counters including the checker's crash conditions.
    pub fn final_stats(&self) -> ScoreStats {
        let mut stats = self.stats.clone();
        for (code, n) in self.lines.checker.official_crashes() {
            *stats.official_crashes.entry(code).or_default() += n;
        }
        stats
    }

    /// The model name of the first scored line (`/` replaced by `_`, as the official
    /// model directory name).
    pub fn model_name(&self) -> Option<&str> {
        self.model_name.as_deref()
    }

    /// `metric.json` text (§4.4) for `model_name`.
    pub fn metric_json(&self, model_name: &str) -> String {
        dump_indent4(&self.metrics.to_value(model_name))
    }

    /// Records a line that could not even be read (damaged bytes, too long), so that the
    /// stats list every line that was not scored.
    pub fn skip(&mut self, error: LineError) {
        self.stats.skipped.push(error);
    }

    /// The positions of the last scored line's tasks whose recorded labels the replay
    /// changed (each counted in `label_disagreements`).
    pub fn disagreeing_tasks(&self) -> &[usize] {
        &self.disagreeing
    }

    /// Adds crash conditions met by another thread's checker (a parallel run's
    /// [`LineScorer`]s each have their own; this scorer's is counted by
    /// [`Scorer::final_stats`]).
    pub fn add_checker_crashes(&mut self, crashes: BTreeMap<String, u64>) {
        for (code, n) in crashes {
            *self.stats.official_crashes.entry(code).or_default() += n;
        }
    }

    /// Scores one result line (`line` is 1-based, for messages). A line that cannot be
    /// scored is recorded in the stats and returned as an error; nothing else is lost.
    pub fn score_line(&mut self, line: usize, text: &str) -> Result<ScoredLine, LineError> {
        let work = self.lines.work(line, text);
        self.count(work)
    }

    /// Counts a line scored by a [`LineScorer`] over the same dataset, as
    /// [`Scorer::score_line`] would have: lines counted in the same order give the same
    /// metrics, counters and files.
    pub fn count(&mut self, work: LineWork) -> Result<ScoredLine, LineError> {
        let LineWork {
            result,
            stats: d,
            latencies,
            counted,
            tallies,
            disagreeing,
        } = work;
        self.disagreeing = disagreeing;
        if let Some((id, model_name)) = counted {
            if self.model_name.is_none() {
                self.model_name = model_name;
            }
            if !self.seen.insert(id) {
                self.stats.duplicate_ids += 1;
            }
        }
        let t = &mut self.stats;
        t.lines += d.lines;
        t.label_disagreements += d.label_disagreements;
        t.truncated_logs += d.truncated_logs;
        t.error_sessions += d.error_sessions;
        t.extra_tasks += d.extra_tasks;
        for (code, n) in d.official_crashes {
            *t.official_crashes.entry(code).or_default() += n;
        }
        t.input_tokens += d.input_tokens;
        t.output_tokens += d.output_tokens;
        for l in latencies {
            t.latency_seconds += l;
        }
        t.requests += d.requests;
        t.unknown_ids += d.unknown_ids;
        t.user_turns_checked += d.user_turns_checked;
        t.user_turns_differing += d.user_turns_differing;
        if t.first_turn_difference.is_none() {
            t.first_turn_difference = d.first_turn_difference;
        }
        t.name_labels_recorded += d.name_labels_recorded;
        t.name_labels_differing += d.name_labels_differing;
        if let Some(tallies) = tallies {
            self.metrics.add_session(&tallies);
        }
        if let Err(e) = &result {
            self.stats.skipped.push(e.clone());
        }
        result
    }
}

impl<'d> LineScorer<'d> {
    fn work_inner(
        &mut self,
        work: &mut LineWork,
        line: usize,
        text: &str,
    ) -> Result<ScoredLine, LineError> {
        let err = |message: String| LineError { line, message };
        let value = loads_deferring(text.trim_end_matches(['\n', '\r']), DEFERRED_INPUTS)
            .map_err(|e| err(format!("invalid JSON: {e}")))?;
        let Value::Object(mut obj) = value else {
            return Err(err("a result line must be a JSON object".to_owned()));
        };
        let id = obj
            .get("id")
            .and_then(Value::as_str)
            .ok_or_else(|| err("missing string field \"id\"".to_owned()))?
            .to_owned();
        let index = id
            .rsplit('_')
            .next()
            .and_then(|n| n.parse::<usize>().ok())
            .ok_or_else(|| err(format!("id {id:?} does not end in _<line index>")))?;
        let dataset = self.dataset;
        let Some(session) = dataset.session_at(index) else {
            work.stats.unknown_ids += 1;
            return Err(err(format!(
                "id {id:?} points at dataset session {index}, which the dataset does not have (it has {} sessions)",
                dataset.line_count
            )));
        };
        let model_name = obj
            .get("model_name")
            .and_then(Value::as_str)
            .map(|name| name.replace('/', "_"));
        work.counted = Some((id.clone(), model_name));
        work.stats.lines += 1;

        let types: Vec<TaskType> = session.tasks.iter().map(|t| t.task_type).collect();
        let transitions = transition_count(&types);
        let mut outcomes = Vec::new();
        let mut tallies = Vec::new();
        let results = match obj.remove("result") {
            Some(Value::Array(tasks)) => {
                let mut scored = Vec::with_capacity(tasks.len());
                for (position, task) in tasks.into_iter().enumerate() {
                    let Value::Object(mut task) = task else {
                        return Err(err(format!("result[{position}] is not an object")));
                    };
                    if position >= session.tasks.len() {
                        work.stats.extra_tasks += 1;
                        continue;
                    }
                    let (tally, outcome) =
                        self.score_task(work, session, position, transitions, &mut task);
                    tallies.push(tally);
                    outcomes.push(outcome);
                    scored.push(Value::Object(task));
                }
                Value::Array(scored)
            }
            Some(Value::Str(message)) => {
                // C2: the session counts and is wrong; every dataset task fails.
                work.stats.error_sessions += 1;
                *work
                    .stats
                    .official_crashes
                    .entry("C2".to_owned())
                    .or_default() += 1;
                for task in &session.tasks {
                    tallies.push(TaskTally {
                        position: task.position,
                        task_type: task.task_type,
                        subtype: task.subtype,
                        correct: false,
                        optimal: false,
                        steps_logged: 0,
                        nodes_total: task.progress_nodes as u64,
                    });
                    outcomes.push(TaskOutcome {
                        session: index as u32,
                        position: task.position as u8,
                        task_type: task.task_type,
                        subtype: task.subtype,
                        transitions,
                        correct: false,
                        name_correct: false,
                        optimal: false,
                        steps_logged: 0,
                        nodes_total: clamp16(task.progress_nodes),
                        nodes_done: 0,
                        error: None,
                        incomplete: false,
                    });
                }
                Value::Str(message)
            }
            _ => {
                return Err(err(
                    "field \"result\" must be a list of task results or an error string".to_owned(),
                ))
            }
        };
        work.tallies = Some(tallies);
        let mut score = Map::new();
        score.insert("id", Value::Str(id.clone()));
        score.insert("results", results);
        // The score line is about the result line's length (labels added, steps after a
        // failed check dropped): sized once instead of grown by doubling, a copy each time.
        let mut score_line = String::with_capacity(text.len() + text.len() / 16 + 256);
        dumps_into(&mut score_line, &Value::Object(score), Escape::Ascii);
        Ok(ScoredLine {
            index,
            id,
            score_line,
            outcomes,
        })
    }

    fn score_task(
        &mut self,
        work: &mut LineWork,
        session: &'d Session,
        position: usize,
        transitions: u8,
        task: &mut Map,
    ) -> (TaskTally, TaskOutcome) {
        let gold = session.tasks.get(position);
        if let (Some(recorded), Some(g)) = (recorded_user_turn(task), gold) {
            work.stats.user_turns_checked += 1;
            if *recorded != g.user_message {
                work.stats.user_turns_differing += 1;
                if work.stats.first_turn_difference.is_none() {
                    work.stats.first_turn_difference = Some(TurnDifference {
                        session: session.index,
                        task: position,
                        recorded: recorded.into_owned(),
                        dataset: g.user_message.clone(),
                    });
                }
            }
        }
        let recorded_name = task
            .get("action_name_label")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let replayed = replay::replay_task(session, position, task, self.options.candidate_cap);
        if let Some(recorded) = recorded_name {
            work.stats.name_labels_recorded += 1;
            if task.get("action_name_label").and_then(Value::as_str) != Some(recorded.as_str()) {
                work.stats.name_labels_differing += 1;
            }
        }
        if replayed.disagreed {
            work.stats.label_disagreements += 1;
            work.disagreeing.push(position);
        }
        if replayed.truncated_log {
            work.stats.truncated_logs += 1;
        }
        for q in &replayed.quirks {
            *work
                .stats
                .official_crashes
                .entry(q.code().to_owned())
                .or_default() += 1;
        }
        add_usage(work, task);
        let checker = self.checker;
        let mut check = |tools: &Value, name: &str, pred: &Value, gold: &str| {
            checker.check(tools, name, pred, gold)
        };
        self.tools_cache.know(&session.tools);
        let params = params_checker_cached(task, &mut check, &mut self.tools_cache);
        if params.missing_answer {
            *work
                .stats
                .official_crashes
                .entry("C1".to_owned())
                .or_default() += 1;
        }
        let label_correct = task.get("label").and_then(Value::as_str) == Some("correct");
        let name_correct = task.get("action_name_label").and_then(Value::as_str) == Some("correct");
        let optimal = matches!(task.get("is_optimal"), Some(Value::Bool(true)));
        let steps_logged = task
            .get("inference_log")
            .and_then(Value::as_object)
            .map(|log| log.keys().filter(|k| k.starts_with("step")).count())
            .unwrap_or(0);
        let (task_type, subtype, progress_nodes, gold_names, nodes_len) = match gold {
            Some(t) => (
                t.task_type,
                t.subtype,
                t.progress_nodes,
                t.nodes.iter().map(|n| n.name.as_str()).collect::<Vec<_>>(),
                t.nodes.len(),
            ),
            None => (TaskType::Chat, None, 0, Vec::new(), 0),
        };
        let nodes_done = if label_correct {
            progress_nodes
        } else {
            ap_nodes(&replayed.decisions, task).min(progress_nodes.max(nodes_len))
        };
        let error = if label_correct {
            None
        } else {
            let tool_names: Vec<&str> = tool_names(&session.tools);
            Some(taxonomy::classify(
                &Value::Object(task.clone()),
                &gold_names,
                &tool_names,
            ))
        };
        let tally = TaskTally {
            position,
            task_type,
            subtype,
            correct: label_correct,
            optimal,
            steps_logged: steps_logged as u64,
            nodes_total: progress_nodes as u64,
        };
        let outcome = TaskOutcome {
            session: session.index as u32,
            position: position as u8,
            task_type,
            subtype,
            transitions,
            correct: label_correct,
            name_correct,
            optimal,
            steps_logged: clamp16(steps_logged),
            nodes_total: clamp16(progress_nodes),
            nodes_done: clamp16(nodes_done.min(progress_nodes)),
            error,
            incomplete: false,
        };
        (tally, outcome)
    }
}

/// Adds a task's token counts and latency entries to the line's counters.
fn add_usage(work: &mut LineWork, task: &Map) {
    let sum_ints = |key: &str| -> u64 {
        match task.get(key) {
            Some(Value::Array(xs)) => xs
                .iter()
                .filter_map(Value::as_i64)
                .map(|x| x.max(0) as u64)
                .sum(),
            _ => 0,
        }
    };
    work.stats.input_tokens += sum_ints("input_token_count");
    work.stats.output_tokens += sum_ints("output_token_count");
    if let Some(Value::Array(xs)) = task.get("latency") {
        for x in xs {
            work.stats.requests += 1;
            match x {
                Value::Float(f) if f.is_finite() => work.latencies.push(*f),
                Value::Int(_) => work.latencies.push(x.as_i64().unwrap_or(0) as f64),
                _ => {}
            }
        }
    }
}

/// The user turn a task's log recorded: `begin_of_current_task.content`, else the last
/// user message of the first step's input.
fn recorded_user_turn(task: &Map) -> Option<Cow<'_, str>> {
    let log = task.get("inference_log")?.as_object()?;
    if let Some(text) = log
        .get("begin_of_current_task")
        .and_then(|m| m.get("content"))
        .and_then(Value::as_str)
    {
        return Some(Cow::Borrowed(text));
    }
    match log.get("step_0")?.get("inference_input")?.get("messages")? {
        Value::Raw(raw) => last_user_content(&raw.value())
            .map(str::to_owned)
            .map(Cow::Owned),
        messages => last_user_content(messages).map(Cow::Borrowed),
    }
}

/// The content of the last user message of a message list.
fn last_user_content(messages: &Value) -> Option<&str> {
    messages
        .as_array()?
        .iter()
        .rev()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))?
        .get("content")?
        .as_str()
}

fn clamp16(n: usize) -> u16 {
    u16::try_from(n).unwrap_or(u16::MAX)
}

/// The function names of a tool list.
pub fn tool_names(tools: &Value) -> Vec<&str> {
    tools
        .as_array()
        .map(|list| {
            list.iter()
                .filter_map(|t| {
                    t.get("function")
                        .and_then(|f| f.get("name"))
                        .and_then(Value::as_str)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Node-based progress (§7.2): gold nodes completed before the first failure — nodes of
/// matched tool steps whose arguments passed, plus accepted ask/prepare steps.
fn ap_nodes(decisions: &[crate::protocol::StepDecision], task: &Map) -> usize {
    let log = task.get("inference_log").and_then(Value::as_object);
    let mut done = 0;
    for d in decisions {
        match d.kind {
            StepKind::ToolAccepted => {
                let args_ok = log
                    .and_then(|l| l.get(&format!("step_{}", d.step)))
                    .and_then(|s| s.get("inference_output"))
                    .and_then(|o| o.get("current_action_arguments_label"))
                    .and_then(Value::as_str)
                    != Some("error");
                let step_present = log.is_some_and(|l| l.contains_key(&format!("step_{}", d.step)));
                if !args_ok || !step_present {
                    break;
                }
                done += d.nodes.len();
            }
            StepKind::Ask | StepKind::Answer => done += d.nodes.len(),
            _ => break,
        }
    }
    done
}
