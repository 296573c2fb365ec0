//! Scoring for the page's main thread: the core's scorer (the code behind `wildtool
//! score`) over result lines the page hands over one at a time, so that the argument
//! checker, its Unicode tables and the score files' writing live in this module and not
//! in the app shell. Like `stream_read`, this call keeps state between calls: the datasets
//! scored against (parsed once, by fingerprint) and one scoring job per id.
//!
//! The input is one line of JSON (the operation), then — for `dataset` and `push` — a
//! newline and the text as it is (no escaping of large texts):
//!
//! - `{"op": "dataset", "key", "lang"}` + the dataset's text: parse and keep it under
//!   `key` (the page's fingerprint and language) → `ok`;
//! - `{"op": "open", "job", "key"}`: a job against dataset `key` → `ok`, or `dataset`
//!   when this module does not hold it (the page sends it, then opens again);
//! - `{"op": "push", "job", "line"}` + the result line: score it → `ok`, `jieba` (the line
//!   needs the Chinese segmenter, not installed yet: nothing was scored) or
//!   `error <the line's problem>`;
//! - `{"op": "outcomes", "job"}` → the outcomes so far as a JSON list;
//! - `{"op": "finish", "job", "model"?}` → a summary line (JSON: `model`, `metric`,
//!   `outcomes`, `stats`) then a newline and `score.jsonl`; the job is dropped;
//! - `{"op": "close", "job"}` → `ok` (the job is dropped);
//! - `{"op": "whole", "key", "kind"}` + a checkpoint (`kind` `checkpoint`) or a run export
//!   (`run`) read whole: its results against dataset `key` → JSON `model`, `label`,
//!   `records` (checkpoint lines, header first), `text` (the official `result.jsonl`) and
//!   `missing` (tasks not in it), `dataset` when this module does not hold `key`, or the
//!   file's problem as the call's error (offline scoring; these readers are not in the
//!   app shell).
//!
//! The segmenter is installed once the page has loaded jieba ([`install_cut`]; in the
//! browser the `score_segmenter` export, handed jieba's `cut` function).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use serde::Deserialize;

use wildtool_core::checker::{NoSegmenter, SegmentError, Segmenter};
use wildtool_core::dataset::{load_dataset, Lang, LoadedDataset};
use wildtool_core::formats::score_file::model_name;
use wildtool_core::formats::ScoreFile;
use wildtool_core::score::{OfficialChecker, ScoreOptions, Scorer};

use crate::{read, LabError};

/// A segmentation function (`None` when it failed).
pub type Cut = Rc<dyn Fn(&str) -> Option<Vec<String>>>;

/// The page's jieba, once installed; until then segmenting fails as with [`NoSegmenter`].
struct PageJieba;

impl Segmenter for PageJieba {
    fn cut(&self, s: &str) -> Result<Vec<String>, SegmentError> {
        match CUT.with(|c| c.borrow().clone()) {
            Some(cut) => cut(s).ok_or(SegmentError::Unavailable),
            None => NoSegmenter.cut(s),
        }
    }
}

static JIEBA: PageJieba = PageJieba;

/// A dataset with its checker, kept for the module's life (a page loads a handful).
struct Data {
    dataset: LoadedDataset,
    checker: OfficialChecker<'static>,
}

struct Job {
    scorer: Scorer<'static>,
    file: ScoreFile,
}

thread_local! {
    static CUT: RefCell<Option<Cut>> = const { RefCell::new(None) };
    static DATA: RefCell<HashMap<String, &'static Data>> = RefCell::new(HashMap::new());
    static JOBS: RefCell<HashMap<u64, Job>> = RefCell::new(HashMap::new());
}

/// Installs the segmenter the checker uses for Chinese strings.
pub fn install_cut(cut: Cut) {
    CUT.with(|c| *c.borrow_mut() = Some(cut));
}

fn has_cut() -> bool {
    CUT.with(|c| c.borrow().is_some())
}

/// True when `text` holds a character jieba's check looks for (U+4E00–U+9FA5).
fn has_han(text: &str) -> bool {
    text.chars().any(|c| ('\u{4e00}'..='\u{9fa5}').contains(&c))
}

#[derive(Deserialize)]
struct Op {
    op: String,
    #[serde(default)]
    job: u64,
    #[serde(default)]
    key: String,
    #[serde(default)]
    lang: String,
    #[serde(default)]
    line: usize,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    kind: String,
}

/// One operation (see the module docs).
pub fn score(input: &str) -> Result<String, LabError> {
    let (head, body) = input.split_once('\n').unwrap_or((input, ""));
    let o: Op = read(head)?;
    match o.op.as_str() {
        "dataset" => {
            let lang = if o.lang == "zh" { Lang::Zh } else { Lang::En };
            let key = o.key.clone();
            if DATA.with(|d| !d.borrow().contains_key(&key)) {
                let data: &'static Data = Box::leak(Box::new(Data {
                    dataset: load_dataset(body, lang),
                    checker: OfficialChecker::new(&JIEBA),
                }));
                DATA.with(|d| d.borrow_mut().insert(key, data));
            }
            Ok("ok".to_owned())
        }
        "open" => {
            let found = DATA.with(|d| d.borrow().get(&o.key).copied());
            let Some(data) = found else {
                return Ok("dataset".to_owned());
            };
            let job = Job {
                scorer: Scorer::new(&data.dataset, &data.checker, ScoreOptions::default()),
                file: ScoreFile::new(),
            };
            JOBS.with(|j| j.borrow_mut().insert(o.job, job));
            Ok("ok".to_owned())
        }
        "push" => with_job(o.job, |job| {
            if !has_cut() && has_han(body) {
                return "jieba".to_owned();
            }
            match job.scorer.score_line(o.line, body) {
                Ok(s) => {
                    job.file.push(o.line, s);
                    "ok".to_owned()
                }
                Err(e) => format!("error {e}"),
            }
        }),
        "outcomes" => with_job(o.job, |job| {
            serde_json::to_string(&job.file.outcomes()).unwrap_or_default()
        }),
        "finish" => {
            let Some(job) = JOBS.with(|j| j.borrow_mut().remove(&o.job)) else {
                return Err(no_job(o.job));
            };
            let name = model_name(o.model.as_deref(), &job.scorer);
            let metric = job.scorer.metric_json(&name);
            let stats = job.scorer.final_stats();
            let out = job.file.finish();
            let summary = serde_json::json!({
                "model": name,
                "metric": metric,
                "outcomes": out.outcomes,
                "stats": stats,
            });
            Ok(format!("{summary}\n{}", out.score_jsonl))
        }
        "close" => {
            JOBS.with(|j| j.borrow_mut().remove(&o.job));
            Ok("ok".to_owned())
        }
        "whole" => {
            let found = DATA.with(|d| d.borrow().get(&o.key).copied());
            let Some(data) = found else {
                return Ok("dataset".to_owned());
            };
            let fingerprint = o.key.split(':').next().unwrap_or_default();
            whole(&data.dataset, fingerprint, &o.kind, body.as_bytes()).map_err(LabError::Message)
        }
        other => Err(LabError::Input(format!(
            "unknown scoring operation {other:?}"
        ))),
    }
}

/// A checkpoint or run export read whole against `dataset` (see the module docs).
fn whole(
    dataset: &LoadedDataset,
    fingerprint: &str,
    kind: &str,
    bytes: &[u8],
) -> Result<String, String> {
    use wildtool_core::formats::upload::{checkpoint_results, run_export_results, session_slots};
    use wildtool_core::formats::RunExport;
    use wildtool_core::runner::checkpoint::{assemble, recover, CheckpointFile, CheckpointHeader};
    let (model, label, records, text, missing) = if kind == "checkpoint" {
        let file = CheckpointFile::parse(bytes).map_err(|e| e.to_string())?;
        let assembled =
            checkpoint_results(&file, dataset, fingerprint).map_err(|e| e.to_string())?;
        let mut lines = vec![file.header.to_line()];
        lines.extend(file.records.iter().cloned());
        (
            file.header.model_name.clone(),
            None,
            Some(lines),
            assembled.text,
            assembled.missing.len(),
        )
    } else {
        let doc = RunExport::parse(bytes).map_err(|e| e.to_string())?;
        let text = run_export_results(&doc, dataset, fingerprint).map_err(|e| e.to_string())?;
        let label = Some(doc.meta.label.clone()).filter(|l| !l.is_empty());
        let (records, missing) = match &doc.records {
            Some(r) => {
                let mut lines = vec![CheckpointHeader::new(&doc.meta.model, fingerprint).to_line()];
                lines.extend(r.iter().cloned());
                let missing = recover(&lines, &doc.meta.model, fingerprint)
                    .map(|done| {
                        assemble(&doc.meta.model, &session_slots(dataset), &done)
                            .missing
                            .len()
                    })
                    .unwrap_or(0);
                (Some(lines), missing)
            }
            None => (None, 0),
        };
        (doc.meta.model.clone(), label, records, text, missing)
    };
    Ok(serde_json::json!({
        "model": model,
        "label": label,
        "records": records,
        "text": text,
        "missing": missing,
    })
    .to_string())
}

fn no_job(job: u64) -> LabError {
    LabError::Input(format!("no scoring job {job}"))
}

fn with_job(id: u64, f: impl FnOnce(&mut Job) -> String) -> Result<String, LabError> {
    JOBS.with(|j| match j.borrow_mut().get_mut(&id) {
        Some(job) => Ok(f(job)),
        None => Err(no_job(id)),
    })
}

/// The browser's way in to [`install_cut`]: jieba's `cut(text) -> string[]`.
#[cfg(target_arch = "wasm32")]
mod exports {
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;

    /// Installs jieba's `cut` function as the checker's segmenter.
    #[wasm_bindgen]
    pub fn score_segmenter(cut: js_sys::Function) {
        super::install_cut(std::rc::Rc::new(move |s: &str| {
            let out = cut.call1(&JsValue::NULL, &JsValue::from_str(s)).ok()?;
            let arr = out.dyn_into::<js_sys::Array>().ok()?;
            arr.iter().map(|w| w.as_string()).collect()
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(p: &str) -> String {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/");
        std::fs::read_to_string(format!("{dir}{p}")).unwrap()
    }

    #[test]
    fn a_file_read_whole_asks_for_its_dataset_and_names_its_problem() {
        let data = fixture("mini.jsonl");
        let fp = wildtool_core::dataset::fingerprint_hex(&data);
        let key = format!("{fp}:en");
        let whole = format!(
            "{{\"op\": \"whole\", \"key\": \"{key}\", \"kind\": \"checkpoint\"}}\nnot json"
        );
        assert_eq!(score(&whole).unwrap(), "dataset");
        let send = format!("{{\"op\": \"dataset\", \"key\": \"{key}\", \"lang\": \"en\"}}\n{data}");
        assert_eq!(score(&send).unwrap(), "ok");
        let e = score(&whole).unwrap_err().to_string();
        assert!(e.contains("line 1"), "{e}");
        let run = whole.replace("checkpoint", "run");
        assert!(score(&run).is_err());
    }

    #[test]
    fn lines_scored_one_by_one_give_the_official_files() {
        let data = fixture("mini.jsonl");
        let results = fixture("official-runs/mock-seed-0/mini_result.jsonl");
        let op = |s: &str| score(s).unwrap();
        assert_eq!(op(r#"{"op": "open", "job": 1, "key": "k1"}"#), "dataset");
        assert_eq!(
            op(&format!(
                "{{\"op\": \"dataset\", \"key\": \"k1\", \"lang\": \"en\"}}\n{data}"
            )),
            "ok"
        );
        assert_eq!(op(r#"{"op": "open", "job": 1, "key": "k1"}"#), "ok");
        let mut waited = false;
        for (i, line) in results.lines().enumerate() {
            let push = format!(
                "{{\"op\": \"push\", \"job\": 1, \"line\": {}}}\n{line}",
                i + 1
            );
            let mut answer = op(&push);
            if answer == "jieba" {
                waited = true;
                let seg = wildtool_core::checker::default_segmenter();
                install_cut(Rc::new(move |s: &str| seg.cut(s).ok()));
                answer = op(&push);
            }
            assert_eq!(answer, "ok", "line {}", i + 1);
        }
        assert_eq!(waited, has_han(&results));
        let so_far = op(r#"{"op": "outcomes", "job": 1}"#);
        let out = op(r#"{"op": "finish", "job": 1}"#);
        let (summary, score_jsonl) = out.split_once('\n').unwrap();
        assert_eq!(
            score_jsonl.trim_end(),
            fixture("official-runs/mock-seed-0/mini_score.jsonl").trim_end()
        );
        let v: serde_json::Value = serde_json::from_str(summary).unwrap();
        assert_eq!(
            v["metric"].as_str().unwrap().trim_end(),
            fixture("official-runs/mock-seed-0/mini_metric.json").trim_end()
        );
        assert_eq!(v["outcomes"].to_string(), so_far);
        assert!(score(r#"{"op": "outcomes", "job": 1}"#).is_err());
        assert_eq!(op(r#"{"op": "close", "job": 1}"#), "ok");
    }
}
