//! The page's upload scorer, a WebAssembly module of its own that the page's Web Worker
//! loads for an uploaded result file: the file's bytes arrive in slices
//! ([`UploadScoring::push`]), are split by the core's line rule and scored with the core's
//! scorer (the code behind `wildtool score`), and [`UploadScoring::finish`] gives the same
//! `score.jsonl` and `metric.json` bytes as the CLI, `score.jsonl` in pieces
//! ([`Finished::score_chunk`]) that the worker hands on as a `Blob`. A line with Han
//! characters waits until jieba's dictionary is installed
//! ([`UploadScoring::set_dictionary`]); the worker fetches it only then.
//!
//! Built for speed (opt-level 3), unlike the size-built app shell and lab module: only the
//! worker loads it, and only to score an upload.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

use std::cell::RefCell;
use std::collections::VecDeque;

use wildtool_core::checker::{JiebaSegmenter, NoSegmenter, SegmentError, Segmenter};
use wildtool_core::dataset::{load_dataset, Lang, LoadedDataset};
use wildtool_core::formats::score_file::{model_name, SEPARATOR};
use wildtool_core::formats::{check_belongs, ScoreFile};
use wildtool_core::input::damage::describe;
use wildtool_core::input::lines::decode;
use wildtool_core::input::{LineError, LineSpan, LineSplitter};
use wildtool_core::score::{OfficialChecker, ScoreOptions, ScoredLine, Scorer};

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

/// Memory asked for at once before scoring a file of `size` bytes: its score lines take
/// about as much again, and the scoring's own values some more. WebAssembly memory grown
/// in many small steps (the allocator asks for what each allocation lacks) costs the
/// browser far more than the scoring itself, so it is grown once and handed back to the
/// allocator, which then serves the lines from it.
fn reserve(size: u64) {
    const MAX: u64 = 2 << 30;
    let want = (2 * size + (64 << 20)).min(MAX);
    let mut v: Vec<u8> = Vec::new();
    if v.try_reserve_exact(want as usize).is_ok() {
        std::hint::black_box(&mut v);
    }
}

/// One upload being scored.
pub struct UploadScoring {
    data: &'static Loaded,
    lines: Lines,
    splitter: LineSplitter,
    keep: Option<String>,
}

/// The scorer and what it has written; lines wait in `queue` only while jieba's
/// dictionary is missing.
struct Lines {
    scorer: Scorer<'static>,
    file: ScoreFile,
    queue: VecDeque<(usize, String)>,
    errors: Vec<String>,
}

impl Lines {
    fn score(&mut self, line_no: usize, text: &str) {
        match self.scorer.score_line(line_no, text) {
            Ok(mut s) => {
                // Kept until the end: without the room its text grew into.
                s.score_line.shrink_to_fit();
                self.file.push(line_no, s)
            }
            Err(e) => self.errors.push(describe(&e.to_string(), text)),
        }
    }
}

/// The finished scoring: the score lines in order, the result text when kept, and a
/// summary (JSON: `model`, `metric`, `outcomes` — the first of each task, which is what
/// the page counts —, `errors`, `stats`, `mismatch`).
pub struct Finished {
    /// The score lines in score-file order (taken as they are handed out).
    lines: Vec<ScoredLine>,
    /// Lines handed out so far.
    taken: usize,
    /// The result text (when asked to keep it).
    pub result_text: Option<String>,
    /// The summary JSON.
    pub summary: String,
}

impl UploadScoring {
    /// A scoring against dataset `text` in `lang` (`zh` or English) of a file of `size`
    /// bytes; `keep`: keep the result text (for traces after a reload).
    pub fn new(text: &str, lang: &str, keep: bool, size: u64) -> UploadScoring {
        let lang = if lang == "zh" { Lang::Zh } else { Lang::En };
        let data = loaded(text, lang);
        reserve(size);
        UploadScoring {
            data,
            lines: Lines {
                scorer: Scorer::new(&data.dataset, &data.checker, ScoreOptions::default()),
                file: ScoreFile::new(),
                queue: VecDeque::new(),
                errors: Vec::new(),
            },
            splitter: LineSplitter::new(),
            keep: keep.then(String::new),
        }
    }

    /// Feeds the next slice (`eof`: the last) and scores every line it completes. True
    /// when scoring stopped at a line that needs jieba's dictionary
    /// ([`UploadScoring::set_dictionary`], then [`UploadScoring::resume`]).
    pub fn push(&mut self, bytes: &[u8], eof: bool) -> bool {
        let (lines, keep, jieba) = (&mut self.lines, &mut self.keep, self.data.jieba);
        // A line is scored as soon as it is split (no copy), unless it must wait for
        // jieba's dictionary, and then every line after it waits too (file order).
        let mut visit = |span: LineSpan, line: Result<&[u8], LineError>| match line
            .and_then(|b| decode(&span, b))
        {
            Ok(Some(text)) => {
                if let Some(k) = keep.as_mut() {
                    k.push_str(text);
                    k.push('\n');
                }
                let text = text.strip_suffix('\r').unwrap_or(text);
                if lines.queue.is_empty() && (jieba.0.borrow().is_some() || !has_han(text)) {
                    lines.score(span.number, text);
                } else {
                    lines.queue.push_back((span.number, text.to_owned()));
                }
            }
            Ok(None) => {}
            Err(e) => lines.errors.push(e.to_string()),
        };
        self.splitter.push(bytes, &mut visit);
        if eof {
            self.splitter.finish(&mut visit);
        }
        self.resume()
    }

    /// Scores the queued lines; true when a line needs jieba's dictionary.
    pub fn resume(&mut self) -> bool {
        let lines = &mut self.lines;
        while let Some((line_no, text)) = lines.queue.pop_front() {
            if self.data.jieba.0.borrow().is_none() && has_han(&text) {
                lines.queue.push_front((line_no, text));
                return true;
            }
            lines.score(line_no, &text);
        }
        false
    }

    /// Installs jieba.
    pub fn set_jieba(&self, j: JiebaSegmenter) {
        *self.data.jieba.0.borrow_mut() = Some(j);
    }

    /// Installs jieba from the bytes of its dictionary file.
    pub fn set_dictionary(&self, dict: &[u8]) -> Result<(), String> {
        let j = JiebaSegmenter::from_dict_bytes(dict).map_err(|e| e.to_string())?;
        self.set_jieba(j);
        Ok(())
    }

    /// The finished scoring; `model` overrides the result file's model name.
    pub fn finish(self, model: Option<&str>) -> Finished {
        let Lines {
            scorer,
            file,
            errors,
            ..
        } = self.lines;
        let name = model_name(model, &scorer);
        let metric = scorer.metric_json(&name);
        let stats = scorer.final_stats();
        let mismatch = check_belongs(&stats).err().map(|e| e.message);
        let lines = file.into_lines();
        // The page counts the first outcome of each task (`report::fill_outcomes`), so
        // only those travel: a file repeating its sessions does not grow the summary.
        let mut seen = std::collections::HashSet::new();
        let outcomes: Vec<_> = lines
            .iter()
            .flat_map(|l| l.outcomes.iter())
            .filter(|o| seen.insert((o.session, o.position)))
            .collect();
        let summary = serde_json::json!({
            "model": name,
            "metric": metric,
            "outcomes": outcomes,
            "errors": errors,
            "stats": {
                "lines": stats.lines,
                "input_tokens": stats.input_tokens,
                "output_tokens": stats.output_tokens,
                "requests": stats.requests,
                "duplicate_ids": stats.duplicate_ids,
            },
            "mismatch": mismatch,
        });
        Finished {
            lines,
            taken: 0,
            result_text: self.keep,
            summary: summary.to_string(),
        }
    }
}

impl Finished {
    /// The next piece of `score.jsonl`: whole lines (with the separators between them)
    /// until at least `max` bytes, or the rest; empty once everything is handed out.
    /// The pieces joined are the CLI's `score.jsonl` byte for byte.
    pub fn score_chunk(&mut self, max: usize) -> Vec<u8> {
        let rest = self.lines.get(self.taken..).unwrap_or_default();
        let rest: usize = rest.iter().map(|l| l.score_line.len() + 1).sum();
        let mut out = Vec::with_capacity(rest.min(max.saturating_add(64 << 10)));
        while out.len() < max.max(1) {
            let Some(line) = self.lines.get_mut(self.taken) else {
                break;
            };
            if self.taken > 0 {
                out.extend_from_slice(SEPARATOR.as_bytes());
            }
            out.extend_from_slice(std::mem::take(&mut line.score_line).as_bytes());
            self.taken += 1;
        }
        out
    }

    /// The rest of `score.jsonl` as one text.
    pub fn score_jsonl(&mut self) -> String {
        let bytes = self.score_chunk(usize::MAX);
        String::from_utf8(bytes).unwrap_or_default()
    }
}

/// The worker's handle (wasm32): `new Scoring(datasetText, lang, keep, size)`,
/// `push(bytes, eof)`, `setDictionary(bytes)`, `resume()`, then `finish()` and the texts.
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
        /// A scoring against the dataset `text` in `lang` of a file of `size` bytes.
        #[wasm_bindgen(constructor)]
        pub fn new(text: &str, lang: &str, keep: bool, size: f64) -> Scoring {
            Scoring {
                job: Some(super::UploadScoring::new(text, lang, keep, size as u64)),
                done: None,
            }
        }

        /// Feeds a slice; true when jieba's dictionary is needed.
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
                Some(j) => j.set_dictionary(dict).map_err(|e| JsError::new(&e)),
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

        /// The rest of `score.jsonl` as text (after [`Scoring::finish`]).
        #[wasm_bindgen(js_name = scoreJsonl)]
        pub fn score_jsonl(&mut self) -> String {
            self.done
                .as_mut()
                .map(super::Finished::score_jsonl)
                .unwrap_or_default()
        }

        /// The next piece of `score.jsonl`, whole lines of at least `max` bytes (after
        /// [`Scoring::finish`]); empty when everything is handed out.
        #[wasm_bindgen(js_name = scoreChunk)]
        pub fn score_chunk(&mut self, max: usize) -> Vec<u8> {
            self.done
                .as_mut()
                .map(|d| d.score_chunk(max))
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

    fn read(p: &str) -> String {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/");
        std::fs::read_to_string(format!("{dir}{p}")).unwrap()
    }

    #[test]
    fn sliced_scoring_gives_the_official_files() {
        let data = read("mini.jsonl");
        let results = read("official-runs/mock-seed-0/mini_result.jsonl");
        let size = results.len() as u64;
        let mut whole = UploadScoring::new(&data, "en", true, size);
        whole.set_jieba(JiebaSegmenter::with_default_dict());
        assert!(!whole.push(results.as_bytes(), true));
        let mut whole = whole.finish(None);
        let whole_jsonl = whole.score_jsonl();
        // A fresh dataset text (the cache is keyed by it), so jieba starts missing.
        let data2 = format!("{data}\n");
        let mut s = UploadScoring::new(&data2, "en", false, size);
        let mut waited = false;
        for chunk in results.as_bytes().chunks(777) {
            if s.push(chunk, false) {
                waited = true;
                s.set_jieba(JiebaSegmenter::with_default_dict());
                assert!(!s.resume());
            }
        }
        assert!(!s.push(&[], true));
        assert_eq!(waited, has_han(&results));
        let mut parts = s.finish(None);
        assert_eq!(parts.summary, whole.summary);
        assert!(parts.result_text.is_none());
        assert_eq!(whole.result_text.as_deref(), Some(results.as_str()));
        // In pieces: whole lines, joined they are the one text.
        let mut joined = Vec::new();
        loop {
            let piece = parts.score_chunk(10_000);
            if piece.is_empty() {
                break;
            }
            joined.extend_from_slice(&piece);
        }
        assert_eq!(joined, whole_jsonl.as_bytes());
        let official = read("official-runs/mock-seed-0/mini_score.jsonl");
        assert_eq!(whole_jsonl.trim_end(), official.trim_end());
        let summary: serde_json::Value = serde_json::from_str(&whole.summary).unwrap();
        let metric = read("official-runs/mock-seed-0/mini_metric.json");
        assert_eq!(
            summary["metric"].as_str().unwrap().trim_end(),
            metric.trim_end()
        );
        assert!(summary["mismatch"].is_null());
    }

    #[test]
    fn a_repeated_session_sends_its_first_outcomes_and_a_damaged_line_is_named() {
        let data = read("mini.jsonl");
        let results = read("official-runs/mock-seed-0/mini_result.jsonl");
        let cut = &results[..results.find('\n').unwrap() / 2];
        let twice = format!("{results}{results}{cut}\n");
        let mut s = UploadScoring::new(&data, "en", false, twice.len() as u64);
        s.set_jieba(JiebaSegmenter::with_default_dict());
        assert!(!s.push(twice.as_bytes(), true));
        let done = s.finish(None);
        let summary: serde_json::Value = serde_json::from_str(&done.summary).unwrap();
        assert_eq!(summary["outcomes"].as_array().unwrap().len(), 32);
        // P19: the page says how many lines repeat a session (metric.json counts them).
        assert_eq!(summary["stats"]["duplicate_ids"], 8);
        let errors = summary["errors"].as_array().unwrap();
        assert_eq!(errors.len(), 1);
        let e = errors[0].as_str().unwrap();
        // Told in the file's terms, as the page's own scorer tells it.
        assert!(e.starts_with("result line 17, column "), "{e}");
        assert!(!e.contains("line 1 column"), "{e}");
    }
}
