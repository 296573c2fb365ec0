//! Offline and live scoring in the page: the same [`Scorer`] as `wildtool score`, fed one
//! result line at a time so the page can yield to the event loop between chunks, with the
//! core's line rule ([`LineFeed`]), score-file order ([`ScoreFile`]) and dataset check.

use serde::Serialize;
use wasm_bindgen::prelude::*;

use wildtool_core::chart::Headline;
use wildtool_core::formats::lines::{self, LineSpan, LineSplitter};
use wildtool_core::formats::{check_belongs, ScoreFile};
use wildtool_core::outcome::TaskOutcome;
use wildtool_core::report::RunReport;
use wildtool_core::score::{LineError, ScoreOptions, Scorer};

use super::to_json;
use super::workspace::Loaded;

/// A scorer bound to a loaded dataset.
#[wasm_bindgen]
pub struct WebScorer {
    scorer: Scorer<'static>,
    file: ScoreFile,
}

/// One scored result line as handed to the page.
#[derive(Serialize)]
struct ScoredJs<'a> {
    ok: bool,
    /// Session index (the id suffix) — the sort key of `score.jsonl`.
    index: usize,
    id: &'a str,
    /// The official `score.jsonl` line.
    score_line: &'a str,
    outcomes: &'a [TaskOutcome],
    error: Option<String>,
}

impl WebScorer {
    pub(crate) fn new(loaded: &'static Loaded) -> Self {
        let scorer = Scorer::new(&loaded.dataset, &loaded.checker, ScoreOptions::default());
        WebScorer {
            scorer,
            file: ScoreFile::new(),
        }
    }
}

#[wasm_bindgen]
impl WebScorer {
    /// Scores one result line (`line_no` 1-based, for messages):
    /// `{ok, index, id, score_line, outcomes, error}` JSON.
    #[wasm_bindgen(js_name = scoreLine)]
    pub fn score_line(&mut self, line_no: usize, text: &str) -> Result<String, JsError> {
        match self.scorer.score_line(line_no, text) {
            Ok(s) => {
                let json = to_json(&ScoredJs {
                    ok: true,
                    index: s.index,
                    id: &s.id,
                    score_line: &s.score_line,
                    outcomes: &s.outcomes,
                    error: None,
                });
                self.file.push(line_no, s);
                json
            }
            Err(e) => to_json(&ScoredJs {
                ok: false,
                index: usize::MAX,
                id: "",
                score_line: "",
                outcomes: &[],
                error: Some(e.to_string()),
            }),
        }
    }

    /// The model name of the first scored line (`/` → `_`), or empty.
    #[wasm_bindgen(js_name = modelName)]
    pub fn model_name(&self) -> String {
        self.scorer.model_name().unwrap_or("").to_owned()
    }

    /// `metric.json` text for `model` (empty: the result file's name, else
    /// `unknown-model`, as `wildtool score`).
    #[wasm_bindgen(js_name = metricJson)]
    pub fn metric_json(&self, model: &str) -> String {
        let name = if model.is_empty() {
            self.scorer.model_name().unwrap_or("unknown-model")
        } else {
            model
        };
        self.scorer.metric_json(name)
    }

    /// The scoring counters (`ScoreStats`) as JSON.
    pub fn stats(&self) -> Result<String, JsError> {
        to_json(self.scorer.stats())
    }

    /// Records line `line_no` as unreadable (a [`LineFeed`] error) in the counters.
    #[wasm_bindgen(js_name = skipLine)]
    pub fn skip_line(&mut self, line_no: usize, message: &str) {
        self.scorer.skip(LineError {
            line: line_no,
            message: message.to_owned(),
        });
    }

    /// The `score.jsonl` text of the lines scored so far (official order).
    #[wasm_bindgen(js_name = scoreJsonl)]
    pub fn score_jsonl(&self) -> String {
        self.file.score_jsonl()
    }

    /// The outcomes of the lines scored so far, in score-file order (JSON array).
    pub fn outcomes(&self) -> Result<String, JsError> {
        to_json(&self.file.outcomes())
    }

    /// Empty when the scored lines fit the dataset; otherwise why they belong to another
    /// one (the same message as `wildtool score`).
    pub fn mismatch(&self) -> String {
        match check_belongs(&self.scorer.final_stats()) {
            Ok(()) => String::new(),
            Err(e) => e.message,
        }
    }
}

/// The core's line rule over an upload read in slices: feed byte chunks, get the lines
/// they complete as `[[line_no, text, error], …]` JSON (blank lines left out; `text` is
/// null for a damaged line and `error` names it).
#[wasm_bindgen]
#[derive(Default)]
pub struct LineFeed {
    splitter: LineSplitter,
}

type FedLine = (usize, Option<String>, Option<String>);

fn fed(out: &mut Vec<FedLine>) -> impl FnMut(LineSpan, Result<&[u8], lines::LineError>) + '_ {
    move |span, bytes| match bytes.and_then(|b| lines::decode(&span, b)) {
        Ok(Some(text)) => out.push((span.number, Some(text.to_owned()), None)),
        Ok(None) => {}
        Err(e) => out.push((span.number, None, Some(e.problem()))),
    }
}

#[wasm_bindgen]
impl LineFeed {
    /// A fresh feed.
    #[wasm_bindgen(constructor)]
    pub fn new() -> LineFeed {
        LineFeed::default()
    }

    /// Feeds the next chunk of bytes.
    pub fn push(&mut self, chunk: &[u8]) -> Result<String, JsError> {
        let mut out = Vec::new();
        self.splitter.push(chunk, &mut fed(&mut out));
        to_json(&out)
    }

    /// Ends the input (the last line may lack its newline).
    pub fn finish(&mut self) -> Result<String, JsError> {
        let mut out = Vec::new();
        self.splitter.finish(&mut fed(&mut out));
        to_json(&out)
    }
}

/// The run report (intervals, breakdowns, taxonomy) of outcomes (JSON array).
#[wasm_bindgen(js_name = runReport)]
pub fn run_report(outcomes_json: &str) -> Result<String, JsError> {
    let outcomes: Vec<TaskOutcome> = serde_json::from_str(outcomes_json)
        .map_err(|e| JsError::new(&format!("invalid outcomes JSON: {e}")))?;
    to_json(&RunReport::from_outcomes(&outcomes))
}

/// The summary table `wildtool score` prints, for the page's text export.
#[wasm_bindgen(js_name = summaryText)]
pub fn summary_text(model: &str, outcomes_json: &str) -> Result<String, JsError> {
    let outcomes: Vec<TaskOutcome> = serde_json::from_str(outcomes_json)
        .map_err(|e| JsError::new(&format!("invalid outcomes JSON: {e}")))?;
    Ok(wildtool_core::report::summary::summary_table(
        model,
        &RunReport::from_outcomes(&outcomes),
    ))
}

/// The headline (status, "n of N tasks scored", task and session accuracy as displayed)
/// of outcomes (JSON array, one per dataset task): `Headline` JSON.
#[wasm_bindgen(js_name = runHeadline)]
pub fn run_headline(outcomes_json: &str) -> Result<String, JsError> {
    let outcomes: Vec<TaskOutcome> = serde_json::from_str(outcomes_json)
        .map_err(|e| JsError::new(&format!("invalid outcomes JSON: {e}")))?;
    to_json(&Headline::of(&RunReport::from_outcomes(&outcomes)))
}
