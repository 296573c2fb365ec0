//! Offline and live scoring in the page: the same [`Scorer`] as `wildtool score`, fed one
//! result line at a time so the page can yield to the event loop between chunks.

use serde::Serialize;
use wasm_bindgen::prelude::*;

use wildtool_core::outcome::TaskOutcome;
use wildtool_core::report::RunReport;
use wildtool_core::score::{ScoreOptions, Scorer};

use super::to_json;
use super::workspace::Loaded;

/// A scorer bound to a loaded dataset.
#[wasm_bindgen]
pub struct WebScorer {
    scorer: Scorer<'static>,
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
        WebScorer { scorer }
    }
}

#[wasm_bindgen]
impl WebScorer {
    /// Scores one result line (`line_no` 1-based, for messages):
    /// `{ok, index, id, score_line, outcomes, error}` JSON.
    #[wasm_bindgen(js_name = scoreLine)]
    pub fn score_line(&mut self, line_no: usize, text: &str) -> Result<String, JsError> {
        match self.scorer.score_line(line_no, text) {
            Ok(s) => to_json(&ScoredJs {
                ok: true,
                index: s.index,
                id: &s.id,
                score_line: &s.score_line,
                outcomes: &s.outcomes,
                error: None,
            }),
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
