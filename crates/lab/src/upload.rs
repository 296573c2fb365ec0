//! Scoring an uploaded result file in the lab module, where the page's Web Worker runs
//! it: the file's bytes arrive in chunks ([`UploadScoring::push`]), are split by the
//! core's line rule and scored with the core's scorer (the code behind `wildtool score`),
//! and [`UploadScoring::finish`] gives the same `score.jsonl` and `metric.json` bytes as
//! the CLI. A line with Han characters waits until jieba's dictionary is installed
//! ([`UploadScoring::set_dictionary`]); the worker fetches it only then.
//!
//! Stateful, unlike the lab's calls: one scoring per upload, driven by the worker.

use std::cell::RefCell;
use std::collections::VecDeque;

use wildtool_core::checker::{JiebaSegmenter, NoSegmenter, SegmentError, Segmenter};
use wildtool_core::dataset::{load_dataset, Lang, LoadedDataset};
use wildtool_core::formats::score_file::model_name;
use wildtool_core::formats::{check_belongs, ScoreFile};
use wildtool_core::input::lines::decode;
use wildtool_core::input::{LineError, LineSpan, LineSplitter};
use wildtool_core::score::{OfficialChecker, ScoreOptions, Scorer};

use crate::LabError;

/// jieba, once its dictionary is installed; until then segmenting fails as with
/// [`NoSegmenter`].
#[derive(Default)]
struct LazyJieba(RefCell<Option<JiebaSegmenter>>);

impl Segmenter for LazyJieba {
    fn cut(&self, s: &str) -> Result<Vec<String>, SegmentError> {
        match self.0.borrow().as_ref() {
            Some(j) => j.cut(s),
            None => NoSegmenter.cut(s),
        }
    }
}

/// A dataset with its checker, kept for the worker's life (a page loads a handful).
struct Loaded {
    dataset: LoadedDataset,
    jieba: &'static LazyJieba,
    checker: OfficialChecker<'static>,
}

thread_local! {
    /// The last dataset scored against, by its text's length and hash: a second upload
    /// against the same dataset does not parse it again.
    static LAST: RefCell<Option<(String, &'static Loaded)>> = const { RefCell::new(None) };
}

fn loaded(text: &str, lang: Lang) -> &'static Loaded {
    let key = format!(
        "{}:{}:{}",
        text.len(),
        wildtool_core::dataset::fingerprint_hex(text),
        matches!(lang, Lang::Zh)
    );
    if let Some(hit) = LAST.with(|l| {
        l.borrow()
            .as_ref()
            .filter(|(k, _)| *k == key)
            .map(|(_, d)| *d)
    }) {
        return hit;
    }
    let jieba: &'static LazyJieba = Box::leak(Box::default());
    let d: &'static Loaded = Box::leak(Box::new(Loaded {
        dataset: load_dataset(text, lang),
        jieba,
        checker: OfficialChecker::new(jieba),
    }));
    LAST.with(|l| *l.borrow_mut() = Some((key, d)));
    d
}

/// True when `text` holds a character jieba's check looks for (U+4E00–U+9FA5).
fn has_han(text: &str) -> bool {
    text.chars().any(|c| ('\u{4e00}'..='\u{9fa5}').contains(&c))
}

/// One upload being scored.
pub struct UploadScoring {
    data: &'static Loaded,
    scorer: Scorer<'static>,
    file: ScoreFile,
    splitter: LineSplitter,
    queue: VecDeque<(usize, String)>,
    errors: Vec<String>,
    keep: Option<String>,
}

/// The finished scoring: the two parity files, the result text when kept, and a summary
/// (JSON: `model`, `metric`, `outcomes`, `errors`, `stats`, `mismatch`).
pub struct Finished {
    /// `score.jsonl`.
    pub score_jsonl: String,
    /// The result text (when asked to keep it).
    pub result_text: Option<String>,
    /// The summary JSON.
    pub summary: String,
}

impl UploadScoring {
    /// A scoring against dataset `text` in `lang` (`zh` or English); `keep`: keep the
    /// result text (for traces after a reload).
    pub fn new(text: &str, lang: &str, keep: bool) -> UploadScoring {
        let lang = if lang == "zh" { Lang::Zh } else { Lang::En };
        let data = loaded(text, lang);
        UploadScoring {
            data,
            scorer: Scorer::new(&data.dataset, &data.checker, ScoreOptions::default()),
            file: ScoreFile::new(),
            splitter: LineSplitter::new(),
            queue: VecDeque::new(),
            errors: Vec::new(),
            keep: keep.then(String::new),
        }
    }

    /// Feeds the next chunk (`eof`: the last) and scores every line it completes. True
    /// when scoring stopped at a line that needs jieba's dictionary
    /// ([`UploadScoring::set_dictionary`], then [`UploadScoring::resume`]).
    pub fn push(&mut self, bytes: &[u8], eof: bool) -> bool {
        let (queue, errors, keep) = (&mut self.queue, &mut self.errors, &mut self.keep);
        let mut visit = |span: LineSpan, line: Result<&[u8], LineError>| match line
            .and_then(|b| decode(&span, b))
        {
            Ok(Some(text)) => {
                if let Some(k) = keep.as_mut() {
                    k.push_str(text);
                    k.push('\n');
                }
                let text = text.strip_suffix('\r').unwrap_or(text);
                queue.push_back((span.number, text.to_owned()));
            }
            Ok(None) => {}
            Err(e) => errors.push(e.to_string()),
        };
        self.splitter.push(bytes, &mut visit);
        if eof {
            self.splitter.finish(&mut visit);
        }
        self.resume()
    }

    /// Scores the queued lines; true when a line needs jieba's dictionary.
    pub fn resume(&mut self) -> bool {
        while let Some((line_no, text)) = self.queue.front() {
            if self.data.jieba.0.borrow().is_none() && has_han(text) {
                return true;
            }
            match self.scorer.score_line(*line_no, text) {
                Ok(s) => self.file.push(*line_no, s),
                Err(e) => self.errors.push(e.to_string()),
            }
            self.queue.pop_front();
        }
        false
    }

    /// Installs jieba.
    fn install(&self, j: JiebaSegmenter) {
        *self.data.jieba.0.borrow_mut() = Some(j);
    }

    /// Installs jieba from the bytes of its dictionary file.
    pub fn set_dictionary(&self, dict: &[u8]) -> Result<(), LabError> {
        let j =
            JiebaSegmenter::from_dict_bytes(dict).map_err(|e| LabError::Message(e.to_string()))?;
        self.install(j);
        Ok(())
    }

    /// The finished files; `model` overrides the result file's model name.
    pub fn finish(self, model: Option<&str>) -> Finished {
        let name = model_name(model, &self.scorer);
        let metric = self.scorer.metric_json(&name);
        let stats = self.scorer.final_stats();
        let mismatch = check_belongs(&stats).err().map(|e| e.message);
        let out = self.file.finish();
        let summary = serde_json::json!({
            "model": name,
            "metric": metric,
            "outcomes": out.outcomes,
            "errors": self.errors,
            "stats": {
                "lines": stats.lines,
                "input_tokens": stats.input_tokens,
                "output_tokens": stats.output_tokens,
                "requests": stats.requests,
            },
            "mismatch": mismatch,
        });
        Finished {
            score_jsonl: out.score_jsonl,
            result_text: self.keep,
            summary: summary.to_string(),
        }
    }
}

/// The worker's handle (wasm32): `new Scoring(datasetText, lang, keep)`, `push(bytes,
/// eof)`, `setDictionary(bytes)`, `resume()`, then `finish()` and the texts.
#[cfg(target_arch = "wasm32")]
mod exports {
    use wasm_bindgen::prelude::*;

    /// An upload being scored in the worker.
    #[wasm_bindgen]
    pub struct Scoring {
        job: Option<super::UploadScoring>,
        done: Option<super::Finished>,
    }

    #[wasm_bindgen]
    impl Scoring {
        /// A scoring against the dataset `text` in `lang`.
        #[wasm_bindgen(constructor)]
        pub fn new(text: &str, lang: &str, keep: bool) -> Scoring {
            Scoring {
                job: Some(super::UploadScoring::new(text, lang, keep)),
                done: None,
            }
        }

        /// Feeds a chunk; true when jieba's dictionary is needed.
        pub fn push(&mut self, bytes: &[u8], eof: bool) -> bool {
            self.job.as_mut().is_some_and(|j| j.push(bytes, eof))
        }

        /// Scores what is queued; true when jieba's dictionary is needed.
        pub fn resume(&mut self) -> bool {
            self.job.as_mut().is_some_and(|j| j.resume())
        }

        /// Installs jieba's dictionary.
        #[wasm_bindgen(js_name = setDictionary)]
        pub fn set_dictionary(&self, dict: &[u8]) -> Result<(), JsError> {
            match &self.job {
                Some(j) => j
                    .set_dictionary(dict)
                    .map_err(|e| JsError::new(&e.to_string())),
                None => Ok(()),
            }
        }

        /// Finishes; answers the summary JSON.
        pub fn finish(&mut self) -> String {
            let Some(job) = self.job.take() else {
                return String::new();
            };
            let done = job.finish(None);
            let summary = done.summary.clone();
            self.done = Some(done);
            summary
        }

        /// `score.jsonl` (after [`Scoring::finish`]).
        #[wasm_bindgen(js_name = scoreJsonl)]
        pub fn score_jsonl(&mut self) -> String {
            self.done
                .as_mut()
                .map(|d| std::mem::take(&mut d.score_jsonl))
                .unwrap_or_default()
        }

        /// The kept result text (after [`Scoring::finish`]).
        #[wasm_bindgen(js_name = resultText)]
        pub fn result_text(&mut self) -> Option<String> {
            self.done.as_mut().and_then(|d| d.result_text.take())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunked_scoring_gives_the_official_files() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/");
        let read = |p: &str| std::fs::read_to_string(format!("{dir}{p}")).unwrap();
        let data = read("mini.jsonl");
        let results = read("official-runs/mock-seed-0/mini_result.jsonl");
        let mut whole = UploadScoring::new(&data, "en", true);
        whole.install(JiebaSegmenter::with_default_dict());
        assert!(!whole.push(results.as_bytes(), true));
        let whole = whole.finish(None);
        // A fresh dataset text (the cache is keyed by it), so jieba starts missing.
        let data2 = format!("{data}\n");
        let mut s = UploadScoring::new(&data2, "en", false);
        let mut waited = false;
        for chunk in results.as_bytes().chunks(777) {
            if s.push(chunk, false) {
                waited = true;
                s.install(JiebaSegmenter::with_default_dict());
                assert!(!s.resume());
            }
        }
        assert!(!s.push(&[], true));
        assert_eq!(waited, has_han(&results));
        let parts = s.finish(None);
        assert_eq!(parts.score_jsonl, whole.score_jsonl);
        assert_eq!(parts.summary, whole.summary);
        assert!(parts.result_text.is_none());
        assert_eq!(whole.result_text.as_deref(), Some(results.as_str()));
        let official = read("official-runs/mock-seed-0/mini_score.jsonl");
        assert_eq!(whole.score_jsonl.trim_end(), official.trim_end());
        let summary: serde_json::Value = serde_json::from_str(&whole.summary).unwrap();
        let metric = read("official-runs/mock-seed-0/mini_metric.json");
        assert_eq!(
            summary["metric"].as_str().unwrap().trim_end(),
            metric.trim_end()
        );
        assert!(summary["mismatch"].is_null());
    }
}
