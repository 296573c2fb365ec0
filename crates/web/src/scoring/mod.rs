//! Scoring in the page with the core's scorer (the code behind `wildtool score`), run in
//! the lab module (its `score` call, reached synchronously once the module is loaded, as
//! the stream readers are), so that the argument checker and the score files' writing are
//! not part of the app shell. A [`ScoreJob`] takes lines, hands them to the lab module in
//! slices so long files never block the page, and stops when the lab module is not loaded
//! yet or a line needs the Chinese segmenter that is not loaded yet; [`Scored`] holds the
//! finished score files. Nothing is scored without the lab module: a job waits for it,
//! and a module that cannot be loaded fails the job with the reason.

pub mod load;
mod update;

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;

use wildtool_core::json::{dumps, Escape, Map, Value as CoreValue};
use wildtool_core::outcome::{outcomes_from_json, TaskOutcome};
use wildtool_core::score::{ScoreStats, TurnDifference};

use crate::data::{has_cjk, lang_name, Dataset};

/// Calls the lab module's `score` with its input; the output or the call's failure.
pub type ScoreCall = std::rc::Rc<dyn Fn(&str) -> Result<String, String>>;

thread_local! {
    static LAB: RefCell<Option<ScoreCall>> = const { RefCell::new(None) };
    static NEXT_JOB: Cell<u64> = const { Cell::new(1) };
}

/// Installs the lab module's `score` call (the glue, once the module is loaded).
pub fn install(call: ScoreCall) {
    LAB.with(|l| *l.borrow_mut() = Some(call));
}

/// Forgets the installed `score` call (the page's tests: a lab module that is gone).
pub fn uninstall() {
    LAB.with(|l| *l.borrow_mut() = None);
}

/// True once the lab module's `score` call is installed.
pub fn ready() -> bool {
    LAB.with(|l| l.borrow().is_some())
}

fn lab() -> Option<ScoreCall> {
    LAB.with(|l| l.borrow().clone())
}

/// What a [`ScoreJob`] needs next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobStep {
    /// Every queued line is scored.
    Idle,
    /// More lines are queued (yield, then run again).
    More,
    /// A module must be loaded first: the lab module (which scores, see
    /// [`crate::state::AppState::needs_jieba`]) or, for the next line, jieba.
    NeedsJieba,
}

/// Lines being scored by the lab module, collected into the core's score file there (its
/// order is the CLI's).
pub struct ScoreJob {
    dataset: Dataset,
    id: u64,
    opened: bool,
    queue: VecDeque<(usize, String)>,
    errors: Vec<String>,
    scored: usize,
    /// The lab module failed (the job scores nothing more; the reason is in `errors`).
    broken: bool,
}

impl Drop for ScoreJob {
    fn drop(&mut self) {
        if self.opened {
            if let Some(call) = lab() {
                let _ = call(&op("close", self.id, Vec::new()));
            }
        }
    }
}

/// An operation's first line (see the lab module's `score`).
fn op(name: &str, job: u64, extra: Vec<(&str, CoreValue)>) -> String {
    let mut m = Map::new();
    m.insert("op", CoreValue::str(name));
    m.insert("job", CoreValue::int(job as i64));
    for (k, v) in extra {
        m.insert(k, v);
    }
    dumps(&CoreValue::Object(m), Escape::Utf8)
}

/// The key the lab module keeps `dataset` under (its fingerprint and language).
fn dataset_key(dataset: Dataset) -> CoreValue {
    CoreValue::str(format!(
        "{}:{}",
        dataset.fingerprint,
        lang_name(dataset.lang)
    ))
}

/// Calls the lab module's `score` with `ask`; when it answers `dataset` (it does not hold
/// `dataset` yet), sends the dataset and asks again.
fn ask_with_dataset(call: &ScoreCall, dataset: Dataset, ask: &str) -> Result<String, String> {
    let answer = call(ask)?;
    if answer != "dataset" {
        return Ok(answer);
    }
    let lang = CoreValue::str(lang_name(dataset.lang));
    let send = op(
        "dataset",
        0,
        vec![("key", dataset_key(dataset)), ("lang", lang)],
    );
    call(&format!("{send}\n{}", dataset.text)).and_then(|_| call(ask))
}

/// A checkpoint or run export read whole by the lab module: (model, label, checkpoint
/// lines, `result.jsonl` text, tasks missing).
pub type WholeFile = (String, Option<String>, Option<Vec<String>>, String, usize);

/// Reads a checkpoint (`kind` `checkpoint`) or run export (`run`) whole against `dataset`
/// in the lab module (its `score` call's `whole` operation: these readers are not in the
/// app shell); `None` while the module is not loaded.
pub fn read_whole(dataset: Dataset, kind: &str, bytes: &[u8]) -> Option<Result<WholeFile, String>> {
    let call = lab()?;
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let line = bytes[..e.valid_up_to()]
                .iter()
                .filter(|b| **b == b'\n')
                .count()
                + 1;
            return Some(Err(format!("line {line}: not UTF-8 text")));
        }
    };
    let head = op(
        "whole",
        0,
        vec![
            ("key", dataset_key(dataset)),
            ("kind", CoreValue::str(kind)),
        ],
    );
    let answer = ask_with_dataset(&call, dataset, &format!("{head}\n{text}"));
    Some(answer.and_then(|a| {
        let v: serde_json::Value = serde_json::from_str(&a)
            .map_err(|e| format!("the lab module's answer could not be read: {e}"))?;
        let s = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_owned);
        let records = v.get("records").and_then(|r| r.as_array()).map(|r| {
            r.iter()
                .filter_map(|l| l.as_str().map(str::to_owned))
                .collect()
        });
        let missing = v.get("missing").and_then(|m| m.as_u64()).unwrap_or(0) as usize;
        Ok((
            s("model").unwrap_or_default(),
            s("label"),
            records,
            s("text").unwrap_or_default(),
            missing,
        ))
    }))
}

impl ScoreJob {
    /// A job over `dataset`.
    pub fn new(dataset: Dataset) -> ScoreJob {
        let id = NEXT_JOB.with(|n| n.replace(n.get() + 1));
        ScoreJob {
            dataset,
            id,
            opened: false,
            queue: VecDeque::new(),
            errors: Vec::new(),
            scored: 0,
            broken: false,
        }
    }

    /// Queues result line `line_no` (1-based). Blank lines are skipped.
    pub fn push(&mut self, line_no: usize, text: String) {
        let text = match text.strip_suffix('\r') {
            Some(t) => t.to_owned(),
            None => text,
        };
        if !text.trim().is_empty() {
            self.queue.push_back((line_no, text));
        }
    }

    /// Records a line that could not be read (damaged, too long).
    pub fn skip(&mut self, problem: String) {
        self.errors.push(problem);
    }

    /// Lines waiting.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    fn fail(&mut self, why: String) {
        self.broken = true;
        self.opened = false;
        self.queue.clear();
        self.errors
            .push(format!("The lab module could not score the results: {why}"));
    }

    /// Opens the job in the lab module (sending the dataset when it does not hold it);
    /// false when the module is not loaded yet.
    fn open(&mut self) -> bool {
        if self.opened || self.broken {
            return true;
        }
        let Some(call) = lab() else { return false };
        let open = op("open", self.id, vec![("key", dataset_key(self.dataset))]);
        match ask_with_dataset(&call, self.dataset, &open).as_deref() {
            Ok("ok") => self.opened = true,
            Ok(other) => self.fail(format!("unexpected answer {other:?}")),
            Err(e) => self.fail(e.to_owned()),
        }
        true
    }

    /// Scores queued lines for at most `budget` lines.
    pub fn run(&mut self, budget: usize) -> JobStep {
        if !self.open() {
            return JobStep::NeedsJieba;
        }
        for _ in 0..budget {
            let Some((line_no, text)) = self.queue.front() else {
                return JobStep::Idle;
            };
            if !self.dataset.segmenter.ready() && has_cjk(text) {
                return JobStep::NeedsJieba;
            }
            let Some(call) = lab() else {
                return JobStep::NeedsJieba;
            };
            let head = op(
                "push",
                self.id,
                vec![("line", CoreValue::int(*line_no as i64))],
            );
            let answer = call(&format!("{head}\n{text}"));
            let Some((line_no, text)) = self.queue.pop_front() else {
                break;
            };
            match answer.as_deref() {
                Ok("ok") => self.scored += 1,
                Ok("jieba") => self.errors.push(format!(
                    "result line {line_no}: the Chinese segmenter is not loaded in the lab module"
                )),
                Ok(a) => match a.strip_prefix("error ") {
                    Some(e) => self
                        .errors
                        .push(wildtool_core::input::damage::describe(e, &text)),
                    None => self.fail(format!("unexpected answer {a:?}")),
                },
                Err(e) => self.fail(e.to_owned()),
            }
        }
        if self.queue.is_empty() {
            JobStep::Idle
        } else {
            JobStep::More
        }
    }

    /// The text of the next queued line (to decide on jieba).
    pub fn next_text(&self) -> Option<&str> {
        self.queue.front().map(|(_, t)| t.as_str())
    }

    /// Outcomes scored so far, in score order.
    pub fn outcomes(&self) -> Vec<TaskOutcome> {
        let (true, Some(call)) = (self.opened, lab()) else {
            return Vec::new();
        };
        call(&op("outcomes", self.id, Vec::new()))
            .ok()
            .and_then(|t| outcomes_from_json(&t))
            .unwrap_or_default()
    }

    /// Lines that could not be scored so far.
    pub fn errors(&self) -> &[String] {
        &self.errors
    }

    /// Result lines scored so far.
    pub fn scored_lines(&self) -> usize {
        self.scored
    }

    /// The finished score files; `model` overrides the result file's model name. A job
    /// the lab module could not score has no files, only its errors.
    pub fn finish(mut self, model: Option<&str>) -> Scored {
        let mut errors = std::mem::take(&mut self.errors);
        let answer = match (self.opened, lab()) {
            (true, Some(call)) => {
                let model = model.map(CoreValue::str).unwrap_or(CoreValue::Null);
                Some(call(&op("finish", self.id, vec![("model", model)])))
            }
            _ => None,
        };
        self.opened = false;
        let read = |out: &str| {
            let (head, score_jsonl) = out.split_once('\n').unwrap_or((out, ""));
            let v: serde_json::Value = serde_json::from_str(head).ok()?;
            let text = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_owned);
            let outcomes = outcomes_from_json(&v.get("outcomes")?.to_string())?;
            Some((
                text("model")?,
                text("metric")?,
                score_jsonl.to_owned(),
                outcomes,
                read_stats(v.get("stats")?),
            ))
        };
        match answer {
            Some(Ok(out)) => match read(&out) {
                Some((model, metric, score_jsonl, outcomes, stats)) => {
                    return Scored::new(model, metric, score_jsonl, outcomes, errors, stats)
                }
                None => errors.push("The lab module's scores could not be read.".to_owned()),
            },
            Some(Err(e)) => errors.push(format!("The lab module could not score the results: {e}")),
            None if !self.broken => {
                errors.push("The results were not scored: the lab module is not loaded.".to_owned())
            }
            None => {}
        }
        Scored {
            errors,
            ..Scored::default()
        }
    }
}

/// The counters the page reads (tokens, requests, repeated sessions, the belongs-to-dataset check).
fn read_stats(v: &serde_json::Value) -> ScoreStats {
    let n = |k: &str| v.get(k).and_then(|x| x.as_u64()).unwrap_or(0);
    let first_turn_difference = v.get("first_turn_difference").and_then(|d| {
        let s = |k: &str| d.get(k).and_then(|x| x.as_str()).map(str::to_owned);
        let u = |k: &str| d.get(k).and_then(|x| x.as_u64()).map(|x| x as usize);
        Some(TurnDifference {
            session: u("session")?,
            task: u("task")?,
            recorded: s("recorded")?,
            dataset: s("dataset")?,
        })
    });
    ScoreStats {
        lines: n("lines"),
        input_tokens: n("input_tokens"),
        output_tokens: n("output_tokens"),
        requests: n("requests"),
        duplicate_ids: n("duplicate_ids"),
        unknown_ids: n("unknown_ids"),
        user_turns_checked: n("user_turns_checked"),
        user_turns_differing: n("user_turns_differing"),
        first_turn_difference,
        ..Default::default()
    }
}

/// A finished scoring: the official score files and what traces and exports need.
#[derive(Debug, Clone, Default)]
pub struct Scored {
    /// Model name written into `metric.json`.
    pub model: String,
    /// `score.jsonl` text.
    pub score_jsonl: String,
    /// Or, for a big upload, the glue's kept `Blob` of it (the text is then empty).
    pub score_kept: Option<u32>,
    /// `(session index, start, end)` of each line of `score_jsonl`.
    index: Vec<(usize, usize, usize)>,
    /// `metric.json` text.
    pub metric: String,
    /// Outcomes in score order.
    pub outcomes: Vec<TaskOutcome>,
    /// Lines that could not be scored.
    pub errors: Vec<String>,
    /// Scoring counters.
    pub stats: ScoreStats,
    /// The official `result.jsonl` text, when kept.
    pub result_text: Option<String>,
    /// Checkpoint lines (header first), for runs made in the page and checkpoints.
    pub records: Option<Vec<String>>,
    /// Each task's tokens, latency and search text, read once for the trace view.
    pub digests: std::cell::OnceCell<Digests>,
}

impl Scored {
    /// A finished scoring from its files and counters (indexes the score lines).
    pub fn new(
        model: String,
        metric: String,
        score_jsonl: String,
        outcomes: Vec<TaskOutcome>,
        errors: Vec<String>,
        stats: ScoreStats,
    ) -> Scored {
        let mut index = Vec::new();
        let mut at = 0;
        for line in score_jsonl.split('\n') {
            index.push((
                wildtool_core::formats::score_file::sort_key(line),
                at,
                at + line.len(),
            ));
            at += line.len() + 1;
        }
        Scored {
            metric,
            model,
            index,
            score_jsonl,
            score_kept: None,
            outcomes,
            errors,
            stats,
            result_text: None,
            records: None,
            digests: Default::default(),
        }
    }

    /// `score.jsonl` text.
    pub fn score_jsonl(&self) -> String {
        self.score_jsonl.clone()
    }

    /// Every score line with its session index, in file order.
    pub fn lines(&self) -> impl Iterator<Item = (usize, &str)> {
        self.index
            .iter()
            .filter_map(|(i, a, b)| Some((*i, self.score_jsonl.get(*a..*b)?)))
    }

    /// The score line of session `index` (its id's number).
    pub fn line_of(&self, index: usize) -> Option<&str> {
        self.index
            .iter()
            .find(|(i, _, _)| *i == index)
            .and_then(|(_, a, b)| self.score_jsonl.get(*a..*b))
    }
}

/// Re-scoring a stored run in the background (after a reload), for traces and exports.
pub struct Rescore {
    /// History id.
    pub id: String,
    job: ScoreJob,
    model: Option<String>,
    text: String,
    records: Option<Vec<String>>,
}

/// Each scored task's digest (tokens, latency, search text), by session index and task
/// position. Tokens and latency are read here; the search texts come from the lab module
/// (`trace_search_texts`), asked for when the traces are first shown.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Digests {
    pub(crate) tasks: Vec<Vec<wildtool_core::trace::TaskDigest>>,
    /// The lab module was asked for the search texts.
    pub(crate) asked: bool,
    /// The search texts are in.
    pub texts: bool,
}

impl Digests {
    /// The digest of task `position` of session `session` (0-based).
    pub fn get(&self, session: u32, position: u8) -> Option<&wildtool_core::trace::TaskDigest> {
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

/// Where loading the scorer stands.
#[derive(Debug, Default)]
pub struct ScorerLoad {
    /// The lab module is being loaded to score.
    pub loading: bool,
}
