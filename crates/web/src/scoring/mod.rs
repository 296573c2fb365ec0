//! Scoring in the page with the core's scorer (the code behind `wildtool score`), one
//! result line at a time so long files never block the page: a [`ScoreJob`] takes lines,
//! scores them in slices and stops when a line needs the Chinese segmenter that is not
//! loaded yet; [`Scored`] holds the finished score files.

mod update;

use std::collections::VecDeque;

use wildtool_core::formats::score_file::model_name;
use wildtool_core::formats::ScoreFile;
use wildtool_core::outcome::TaskOutcome;
use wildtool_core::score::{ScoreOptions, ScoreStats, Scorer};

use crate::data::{has_cjk, Dataset};

/// What a [`ScoreJob`] needs next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobStep {
    /// Every queued line is scored.
    Idle,
    /// More lines are queued (yield, then run again).
    More,
    /// The next line needs jieba.
    NeedsJieba,
}

/// Lines being scored, collected into the core's score file (its order is the CLI's).
pub struct ScoreJob {
    dataset: Dataset,
    scorer: Scorer<'static>,
    file: ScoreFile,
    queue: VecDeque<(usize, String)>,
    errors: Vec<String>,
}

impl ScoreJob {
    /// A job over `dataset`.
    pub fn new(dataset: Dataset) -> ScoreJob {
        ScoreJob {
            dataset,
            scorer: Scorer::new(&dataset.dataset, &dataset.checker, ScoreOptions::default()),
            file: ScoreFile::new(),
            queue: VecDeque::new(),
            errors: Vec::new(),
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

    /// Scores queued lines for at most `budget` lines.
    pub fn run(&mut self, budget: usize) -> JobStep {
        for _ in 0..budget {
            let Some((line_no, text)) = self.queue.front() else {
                return JobStep::Idle;
            };
            if !self.dataset.segmenter.ready() && has_cjk(text) {
                return JobStep::NeedsJieba;
            }
            let (line_no, text) = (*line_no, text.clone());
            self.queue.pop_front();
            match self.scorer.score_line(line_no, &text) {
                Ok(s) => self.file.push(line_no, s),
                Err(e) => self.errors.push(wildtool_core::input::damage::describe(
                    &e.to_string(),
                    &text,
                )),
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
        self.file.outcomes()
    }

    /// Lines that could not be scored so far.
    pub fn errors(&self) -> &[String] {
        &self.errors
    }

    /// Result lines scored so far.
    pub fn scored_lines(&self) -> usize {
        self.file.len()
    }

    /// The finished score files; `model` overrides the result file's model name.
    pub fn finish(self, model: Option<&str>) -> Scored {
        let name = model_name(model, &self.scorer);
        let metric = self.scorer.metric_json(&name);
        let stats = self.scorer.final_stats();
        let out = self.file.finish();
        Scored::new(
            name,
            metric,
            out.score_jsonl,
            out.outcomes,
            self.errors,
            stats,
        )
    }
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
