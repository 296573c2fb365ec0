//! Offline scoring in a Web Worker: an official result file is handed to a worker of its
//! own whole (as the browser's `File`), read and scored there in slices by the upload
//! scorer module (`crates/scorer`, the core's scorer), with progress reported back; the
//! page's main thread only renders the summary it gets (metrics, the first outcome of each
//! task, damaged lines). A big upload's `score.jsonl` stays in the glue as a `Blob`
//! ([`crate::scoring::Scored::score_kept`]); a small one's text comes back for traces.
//! Without a worker (the glue has none, e.g. under `file://`) the file is scored on the
//! main thread in slices as before, and the page says so.

use crate::msg::Effect;
use crate::scoring::Scored;
use crate::state::{AppState, Tone};
use crate::upload::KEEP_TEXT;
use wildtool_core::outcome::outcomes_from_value;

impl AppState {
    /// Hands the upload being read to the worker.
    pub(crate) fn score_in_worker(&mut self) -> Vec<Effect> {
        let (Some(dataset), Some(file)) = (self.dataset, self.upload.file.clone()) else {
            return self.upload_fail("No dataset is loaded.");
        };
        self.upload.reading = true;
        self.upload.keep = None;
        self.upload.message = Some((
            format!("Scoring {} in a background worker…", self.upload.name),
            Tone::Info,
        ));
        vec![Effect::ScoreInWorker {
            keep: file.size <= KEEP_TEXT,
            file,
            text: dataset.text.as_str().into(),
            lang: crate::data::lang_name(dataset.lang),
        }]
    }

    fn is_worker_upload(&self, file: u32) -> bool {
        self.upload.state == crate::upload::UploadState::Scoring
            && self.upload.file.as_ref().map(|f| f.id) == Some(file)
    }

    /// The worker has read `read` bytes of upload `file`.
    pub fn worker_progress(&mut self, file: u32, read: u64) -> Vec<Effect> {
        if self.is_worker_upload(file) {
            self.upload.read = read;
            self.upload.message = Some((
                format!(
                    "Scoring {} in a background worker: {:.1} of {:.1} MB",
                    self.upload.name,
                    read as f64 / 1_048_576.0,
                    self.upload.total as f64 / 1_048_576.0
                ),
                Tone::Info,
            ));
        }
        Vec::new()
    }

    /// The worker finished upload `file`.
    pub fn worker_scored(
        &mut self,
        file: u32,
        result: Result<crate::msg::WorkerAnswer, String>,
    ) -> Vec<Effect> {
        if !self.is_worker_upload(file) {
            return Vec::new();
        }
        self.upload.reading = false;
        let (summary, score_jsonl, text) = match result {
            Ok(r) => r,
            Err(e) => return self.upload_fail(&format!("The file could not be scored: {e}")),
        };
        let Some((mut scored, mismatch)) = read_summary(&summary, score_jsonl) else {
            return self.upload_fail("The worker's answer could not be read (reload the page).");
        };
        scored.result_text = text;
        self.upload.read = self.upload.total;
        self.upload_done(scored, mismatch)
    }
}

/// The worker's summary (`model`, `metric`, `outcomes`, `errors`, `stats`, `mismatch`)
/// with `score.jsonl` as a [`Scored`] and the dataset-mismatch message.
fn read_summary(
    summary: &str,
    score_jsonl: Result<String, u32>,
) -> Option<(Scored, Option<String>)> {
    let v: serde_json::Value = serde_json::from_str(summary).ok()?;
    let text = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_owned);
    let outcomes = outcomes_from_value(v.get("outcomes")?)?;
    let errors = v
        .get("errors")?
        .as_array()?
        .iter()
        .filter_map(|e| e.as_str().map(str::to_owned))
        .collect();
    let count = |k: &str| {
        v.get("stats")
            .and_then(|s| s.get(k))
            .and_then(|n| n.as_u64())
    };
    let stats = wildtool_core::score::ScoreStats {
        lines: count("lines")?,
        input_tokens: count("input_tokens")?,
        output_tokens: count("output_tokens")?,
        requests: count("requests")?,
        duplicate_ids: count("duplicate_ids").unwrap_or(0),
        ..Default::default()
    };
    let (lines, kept) = match score_jsonl {
        Ok(t) => (t, None),
        Err(id) => (String::new(), Some(id)),
    };
    let mut scored = Scored::new(
        text("model")?,
        text("metric")?,
        lines,
        outcomes,
        errors,
        stats,
    );
    scored.score_kept = kept;
    Some((scored, text("mismatch")))
}

#[cfg(test)]
mod tests {
    use super::read_summary;

    #[test]
    fn the_worker_summary_keeps_the_repeated_session_count() {
        let summary = r#"{"model":"m","metric":"{}","outcomes":[],"errors":[],
            "stats":{"lines":16,"input_tokens":0,"output_tokens":0,"requests":0,"duplicate_ids":8}}"#;
        let (scored, mismatch) = read_summary(summary, Ok(String::new())).expect("readable");
        assert_eq!(scored.stats.duplicate_ids, 8);
        assert!(scored
            .stats
            .duplicate_warning()
            .unwrap()
            .starts_with("8 result line(s)"));
        assert_eq!(mismatch, None);
    }
}
