//! Scoring in the page with the core's scorer (the code behind `wildtool score`), one
//! result line at a time so long files never block the page: a [`ScoreJob`] takes lines,
//! scores them in slices and stops when a line needs the Chinese segmenter that is not
//! loaded yet; [`Scored`] holds the finished score files.

use std::collections::VecDeque;

use wildtool_core::outcome::TaskOutcome;
use wildtool_core::score::{ScoreOptions, ScoreStats, Scorer};

use crate::data::{has_cjk, Dataset};

/// One scored result line.
#[derive(Debug, Clone)]
struct Entry {
    index: usize,
    line_no: usize,
    score_line: String,
    outcomes: Vec<TaskOutcome>,
}

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

/// Lines being scored.
pub struct ScoreJob {
    dataset: Dataset,
    scorer: Scorer<'static>,
    entries: Vec<Entry>,
    queue: VecDeque<(usize, String)>,
    errors: Vec<String>,
}

impl ScoreJob {
    /// A job over `dataset`.
    pub fn new(dataset: Dataset) -> ScoreJob {
        ScoreJob {
            dataset,
            scorer: Scorer::new(&dataset.dataset, &dataset.checker, ScoreOptions::default()),
            entries: Vec::new(),
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
                Ok(s) => self.entries.push(Entry {
                    index: s.index,
                    line_no,
                    score_line: s.score_line,
                    outcomes: s.outcomes,
                }),
                Err(e) => self.errors.push(e.to_string()),
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

    fn sorted(&self) -> Vec<&Entry> {
        let mut v: Vec<&Entry> = self.entries.iter().collect();
        v.sort_by_key(|e| (e.index, e.line_no));
        v
    }

    /// Outcomes scored so far, in score order.
    pub fn outcomes(&self) -> Vec<TaskOutcome> {
        self.sorted()
            .into_iter()
            .flat_map(|e| e.outcomes.iter().cloned())
            .collect()
    }

    /// Lines that could not be scored so far.
    pub fn errors(&self) -> &[String] {
        &self.errors
    }

    /// Result lines scored so far.
    pub fn scored_lines(&self) -> usize {
        self.entries.len()
    }

    /// The finished score files; `model` overrides the result file's model name.
    pub fn finish(&self, model: Option<&str>) -> Scored {
        let sorted = self.sorted();
        let name = model
            .filter(|m| !m.is_empty())
            .map(str::to_owned)
            .or_else(|| self.scorer.model_name().map(str::to_owned))
            .unwrap_or_else(|| "unknown-model".to_owned());
        Scored {
            metric: self.scorer.metric_json(&name),
            model: name,
            lines: sorted
                .iter()
                .map(|e| (e.index, e.score_line.clone()))
                .collect(),
            outcomes: sorted
                .iter()
                .flat_map(|e| e.outcomes.iter().cloned())
                .collect(),
            errors: self.errors.clone(),
            stats: self.scorer.final_stats(),
            result_text: None,
            records: None,
        }
    }
}

/// A finished scoring: the official score files and what traces and exports need.
#[derive(Debug, Clone, Default)]
pub struct Scored {
    /// Model name written into `metric.json`.
    pub model: String,
    /// `score.jsonl` lines in order, with their session index.
    pub lines: Vec<(usize, String)>,
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
}

impl Scored {
    /// `score.jsonl` text.
    pub fn score_jsonl(&self) -> String {
        let mut out = String::new();
        for (i, (_, line)) in self.lines.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            out.push_str(line);
        }
        out
    }

    /// The score line of session `index`.
    pub fn line_of(&self, index: usize) -> Option<&str> {
        self.lines
            .iter()
            .find(|(i, _)| *i == index)
            .map(|(_, l)| l.as_str())
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

impl crate::state::AppState {
    /// Starts re-scoring `text` (the result file of history entry `id`).
    pub fn rescore_start(
        &mut self,
        id: &str,
        model: Option<String>,
        text: String,
        records: Option<Vec<String>>,
        now: crate::state::Now,
    ) -> Vec<crate::msg::Effect> {
        let Some(dataset) = self.dataset else {
            return Vec::new();
        };
        let mut job = ScoreJob::new(dataset);
        for (i, line) in text.lines().enumerate() {
            job.push(i + 1, line.to_owned());
        }
        self.rescore = Some(Rescore {
            id: id.to_owned(),
            job,
            model,
            text,
            records,
        });
        self.rescore_continue(now)
    }

    /// Scores the next slice of the background job.
    pub fn rescore_continue(&mut self, _now: crate::state::Now) -> Vec<crate::msg::Effect> {
        use crate::msg::Effect;
        let Some(r) = &mut self.rescore else {
            return Vec::new();
        };
        let mut fx = Vec::new();
        match r.job.run(64) {
            JobStep::NeedsJieba => {
                let text = r.job.next_text().unwrap_or("").to_owned();
                self.needs_jieba(&text, &mut fx);
                return fx;
            }
            JobStep::More => {
                fx.push(Effect::ContinueSoon);
                return fx;
            }
            JobStep::Idle => {}
        }
        let Some(r) = self.rescore.take() else {
            return fx;
        };
        let mut scored = r.job.finish(r.model.as_deref());
        scored.result_text = Some(r.text);
        scored.records = r.records;
        if let Some(s) = &mut self.shown {
            if s.id == r.id {
                s.scored = Some(scored);
            }
        }
        if self.history.export_when_open.as_deref() == Some(r.id.as_str()) {
            self.history.export_when_open = None;
            fx.extend(self.export("run"));
        }
        fx
    }
}
