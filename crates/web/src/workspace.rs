//! A loaded dataset for the page: validation problems, task shapes, the lazily loaded
//! jieba dictionary, the built-in agents, checkpoint assembly and scorers.
//!
//! The dataset and its checker live for the rest of the page's life (`Box::leak`), so
//! that scorers and in-flight live requests can borrow them across `await`s and across
//! the JS boundary without reference counting inside the engine. A page loads a handful
//! of datasets at most, so the cost is bounded by what the user chose to load.

use std::cell::RefCell;
use std::collections::BTreeMap;

use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use wildtool_core::checker::{NoSegmenter, SegmentError, Segmenter};
use wildtool_core::dataset::{fingerprint_hex, load_dataset, Lang, LoadedDataset, Session};
use wildtool_core::formats::upload::{checkpoint_results, run_export_results, session_slots};
use wildtool_core::formats::{sniff, CheckpointFile, CheckpointHeader, FileKind, RunExport};
use wildtool_core::outcome::TaskOutcome;
use wildtool_core::report::fill_outcomes;
use wildtool_core::runner::agents::{BaselineAgent, GoldAgent};
use wildtool_core::runner::checkpoint::{assemble, recover, SessionSlot, TaskRecord};
use wildtool_core::runner::driver::{run_task, Responder, TaskRun};
use wildtool_core::score::OfficialChecker;
use wildtool_core::share::{task_shapes, TaskShape};

use super::scoring::WebScorer;
use super::to_json;

/// jieba living in its own small WebAssembly module (`wildtool-jieba`, loaded with the
/// dictionary only when a Chinese string must be segmented), reached through a JS
/// function `cut(text) -> string[]`. That module runs the engine's own
/// `JiebaSegmenter`, so words are identical to the CLI's; keeping jieba's HMM tables out
/// of this module keeps the app shell inside its size budget. Until it is installed,
/// segmenting fails as with [`NoSegmenter`] (the page installs it before scoring any text
/// with Chinese characters).
#[derive(Default)]
pub(crate) struct LazySegmenter {
    cut: RefCell<Option<js_sys::Function>>,
}

impl Segmenter for LazySegmenter {
    fn cut(&self, s: &str) -> Result<Vec<String>, SegmentError> {
        let guard = self.cut.borrow();
        let Some(cut) = guard.as_ref() else {
            return NoSegmenter.cut(s);
        };
        let out = cut
            .call1(&JsValue::NULL, &JsValue::from_str(s))
            .map_err(|_| SegmentError::Unavailable)?;
        let array = out
            .dyn_into::<js_sys::Array>()
            .map_err(|_| SegmentError::Unavailable)?;
        array
            .iter()
            .map(|w| w.as_string().ok_or(SegmentError::Unavailable))
            .collect()
    }
}

/// The immortal part of a workspace.
pub(crate) struct Loaded {
    pub(crate) dataset: LoadedDataset,
    pub(crate) fingerprint: String,
    pub(crate) segmenter: &'static LazySegmenter,
    pub(crate) checker: OfficialChecker<'static>,
    pub(crate) shapes: Vec<TaskShape>,
    pub(crate) has_chinese: bool,
}

/// True when `text` holds a character of the range jieba's check looks for
/// (U+4E00–U+9FA5).
pub fn has_cjk(text: &str) -> bool {
    text.chars().any(|c| ('\u{4e00}'..='\u{9fa5}').contains(&c))
}

#[derive(Serialize)]
struct Info<'a> {
    fingerprint: &'a str,
    sessions: usize,
    lines: usize,
    tasks: usize,
    errors: usize,
    warnings: usize,
    has_chinese: bool,
    dictionary: bool,
}

#[derive(Serialize)]
struct ProblemJs<'a> {
    line: usize,
    id: Option<&'a str>,
    path: &'a str,
    message: &'a str,
    severity: &'static str,
}

/// One task's run as handed to the page.
#[derive(Serialize)]
pub(crate) struct TaskRunJs {
    pub(crate) line: usize,
    pub(crate) task: usize,
    /// The checkpoint line of the finished task (absent when incomplete).
    pub(crate) record: Option<String>,
    pub(crate) incomplete: Option<String>,
    pub(crate) names_correct: bool,
    pub(crate) requests: u64,
    pub(crate) retries: u64,
    pub(crate) input_tokens: u64,
    pub(crate) output_tokens: u64,
}

impl From<TaskRun> for TaskRunJs {
    fn from(r: TaskRun) -> Self {
        TaskRunJs {
            line: r.line,
            task: r.task,
            record: r.record.map(|rec| rec.to_line()),
            incomplete: r.incomplete,
            names_correct: r.names_correct,
            requests: r.stats.requests,
            retries: r.stats.retries,
            input_tokens: r.input_tokens,
            output_tokens: r.output_tokens,
        }
    }
}

/// A dataset loaded into the page.
#[wasm_bindgen]
pub struct Workspace {
    pub(crate) inner: &'static Loaded,
}

impl Workspace {
    /// Loads `text` natively usable by the other web modules.
    pub fn from_text(text: &str, lang: Lang) -> Self {
        let dataset = load_dataset(text, lang);
        let shapes = task_shapes(&dataset);
        let segmenter: &'static LazySegmenter = Box::leak(Box::default());
        let loaded = Loaded {
            fingerprint: fingerprint_hex(text),
            has_chinese: has_cjk(text),
            segmenter,
            checker: OfficialChecker::new(segmenter),
            shapes,
            dataset,
        };
        Workspace {
            inner: Box::leak(Box::new(loaded)),
        }
    }

    pub(crate) fn session(&self, line: usize) -> Result<&'static Session, JsError> {
        self.inner
            .dataset
            .session_at(line)
            .ok_or_else(|| JsError::new(&format!("the dataset has no session {line}")))
    }

    fn slots(&self) -> Vec<SessionSlot> {
        session_slots(&self.inner.dataset)
    }
}

fn lang_of(name: &str) -> Result<Lang, JsError> {
    match name {
        "en" | "" => Ok(Lang::En),
        "zh" => Ok(Lang::Zh),
        other => Err(JsError::new(&format!(
            "unknown language {other:?} (en or zh)"
        ))),
    }
}

#[wasm_bindgen]
impl Workspace {
    /// Loads and validates a dataset (JSON Lines text); `lang` is `en` or `zh`.
    #[wasm_bindgen(constructor)]
    pub fn new(text: &str, lang: &str) -> Result<Workspace, JsError> {
        Ok(Self::from_text(text, lang_of(lang)?))
    }

    /// `{fingerprint, sessions, lines, tasks, errors, warnings, has_chinese, dictionary}`.
    pub fn info(&self) -> Result<String, JsError> {
        let d = &self.inner.dataset;
        to_json(&Info {
            fingerprint: &self.inner.fingerprint,
            sessions: d.sessions.len(),
            lines: d.line_count,
            tasks: self.inner.shapes.len(),
            errors: d.errors().count(),
            warnings: d.warnings().count(),
            has_chinese: self.inner.has_chinese,
            dictionary: self.inner.segmenter.cut.borrow().is_some(),
        })
    }

    /// The first `limit` problems: `[{line, id, path, message, severity}]`.
    pub fn problems(&self, limit: usize) -> Result<String, JsError> {
        let list: Vec<ProblemJs<'_>> = self
            .inner
            .dataset
            .problems
            .iter()
            .take(limit)
            .map(|p| ProblemJs {
                line: p.line,
                id: p.session_id.as_deref(),
                path: &p.path,
                message: &p.message,
                severity: p.severity.as_str(),
            })
            .collect();
        to_json(&list)
    }

    /// The task shapes (share links), in dataset order.
    pub fn shapes(&self) -> Result<String, JsError> {
        to_json(&self.inner.shapes)
    }

    /// The fingerprint (16 hex digits).
    pub fn fingerprint(&self) -> String {
        self.inner.fingerprint.clone()
    }

    /// Installs the segmenter: a JS function `cut(text) -> string[]` backed by the
    /// `wildtool-jieba` module with jieba's dictionary loaded.
    #[wasm_bindgen(js_name = setSegmenter)]
    pub fn set_segmenter(&self, cut: js_sys::Function) {
        *self.inner.segmenter.cut.borrow_mut() = Some(cut);
    }

    /// True once the dictionary is installed.
    #[wasm_bindgen(js_name = hasDictionary)]
    pub fn has_dictionary(&self) -> bool {
        self.inner.segmenter.cut.borrow().is_some()
    }

    /// Every task of the dataset: `[[line, task], …]` in dataset order.
    pub fn tasks(&self) -> Result<String, JsError> {
        let list: Vec<(usize, usize)> = self
            .inner
            .dataset
            .sessions
            .iter()
            .flat_map(|s| (0..s.tasks.len()).map(move |t| (s.line, t)))
            .collect();
        to_json(&list)
    }

    /// Session summary for the trace viewer: `[{line, id, tasks: [user message…]}]`.
    pub fn sessions(&self) -> Result<String, JsError> {
        #[derive(Serialize)]
        struct S<'a> {
            line: usize,
            id: &'a str,
            tasks: Vec<&'a str>,
        }
        let list: Vec<S<'_>> = self
            .inner
            .dataset
            .sessions
            .iter()
            .map(|s| S {
                line: s.line,
                id: &s.id,
                tasks: s.tasks.iter().map(|t| t.user_message.as_str()).collect(),
            })
            .collect();
        to_json(&list)
    }

    /// Runs one task with a built-in agent (`gold` or `baseline`): [`TaskRunJs`] JSON.
    #[wasm_bindgen(js_name = runBuiltin)]
    pub fn run_builtin(&self, agent: &str, line: usize, task: usize) -> Result<String, JsError> {
        let session = self.session(line)?;
        let responder: &dyn Responder = match agent {
            "gold" => &GoldAgent,
            "baseline" => &BaselineAgent,
            other => return Err(JsError::new(&format!("unknown built-in agent {other:?}"))),
        };
        to_json(&TaskRunJs::from(run_task(session, task, responder)))
    }

    /// The checkpoint header line for `model`.
    #[wasm_bindgen(js_name = checkpointHeader)]
    pub fn checkpoint_header(&self, model: &str) -> String {
        CheckpointHeader::new(model, &self.inner.fingerprint).to_line()
    }

    /// The results held by an uploaded checkpoint or run export (its bytes), checked
    /// against this dataset: `{kind, model, result_jsonl, problems}` JSON. Fails with the
    /// file kind's message for anything else, and with the named field for a damaged
    /// document.
    #[wasm_bindgen(js_name = uploadResults)]
    pub fn upload_results(&self, bytes: &[u8]) -> Result<String, JsError> {
        #[derive(Serialize)]
        struct Upload {
            kind: &'static str,
            model: String,
            result_jsonl: String,
            problems: Vec<String>,
        }
        let kind = sniff(bytes, bytes.len() as u64);
        let err = |e: wildtool_core::formats::FormatError| JsError::new(&e.to_string());
        let upload = match kind {
            FileKind::Checkpoint => {
                let file = CheckpointFile::parse(bytes).map_err(err)?;
                let assembled =
                    checkpoint_results(&file, &self.inner.dataset, &self.inner.fingerprint)
                        .map_err(err)?;
                Upload {
                    kind: kind.name(),
                    model: file.header.model_name.clone(),
                    result_jsonl: assembled.text,
                    problems: file.problems.iter().map(|p| p.1.clone()).collect(),
                }
            }
            FileKind::RunExport { .. } if kind.is_scorable() => {
                let doc = RunExport::parse(bytes).map_err(err)?;
                Upload {
                    kind: kind.name(),
                    result_jsonl: run_export_results(
                        &doc,
                        &self.inner.dataset,
                        &self.inner.fingerprint,
                    )
                    .map_err(err)?,
                    model: doc.meta.model,
                    problems: Vec::new(),
                }
            }
            other => return Err(JsError::new(&other.message())),
        };
        to_json(&upload)
    }

    /// The finished tasks among checkpoint lines (JSON array of strings):
    /// `[[line, task], …]`. Fails when the header names another model or dataset.
    #[wasm_bindgen(js_name = doneTasks)]
    pub fn done_tasks(&self, model: &str, lines_json: &str) -> Result<String, JsError> {
        let lines: Vec<String> = serde_json::from_str(lines_json)
            .map_err(|e| JsError::new(&format!("invalid checkpoint lines: {e}")))?;
        let done = recover(&lines, model, &self.inner.fingerprint)
            .map_err(|e| JsError::new(&e.to_string()))?;
        to_json(&done.keys().collect::<Vec<_>>())
    }

    /// The official `result.jsonl` text assembled from checkpoint lines (JSON array of
    /// strings): complete sessions only, sorted by dataset line.
    #[wasm_bindgen(js_name = assembleResults)]
    pub fn assemble_results(&self, model: &str, lines_json: &str) -> Result<String, JsError> {
        let lines: Vec<String> = serde_json::from_str(lines_json)
            .map_err(|e| JsError::new(&format!("invalid checkpoint lines: {e}")))?;
        let done = recover(&lines, model, &self.inner.fingerprint)
            .map_err(|e| JsError::new(&e.to_string()))?;
        Ok(assemble(model, &self.slots(), &done).text)
    }

    /// The result line of session `line` if every task of it is among `records_json`
    /// (JSON array of checkpoint lines), else an empty string.
    #[wasm_bindgen(js_name = sessionResult)]
    pub fn session_result(
        &self,
        model: &str,
        line: usize,
        records_json: &str,
    ) -> Result<String, JsError> {
        let lines: Vec<String> = serde_json::from_str(records_json)
            .map_err(|e| JsError::new(&format!("invalid records: {e}")))?;
        let session = self.session(line)?;
        let mut done = BTreeMap::new();
        for rec in lines.iter().filter_map(|l| TaskRecord::from_line(l)) {
            done.insert((rec.line, rec.task), rec);
        }
        let slot = SessionSlot {
            line,
            id: session.id.clone(),
            tasks: session.tasks.len(),
        };
        Ok(assemble(model, &[slot], &done).text)
    }

    /// A fresh scorer over this dataset.
    pub fn scorer(&self) -> WebScorer {
        WebScorer::new(self.inner)
    }

    /// One outcome per dataset task (dataset order) from the scored `outcomes_json`;
    /// tasks without an outcome become incomplete ones (for share links and charts of
    /// partial runs).
    #[wasm_bindgen(js_name = fillOutcomes)]
    pub fn fill_outcomes(&self, outcomes_json: &str) -> Result<String, JsError> {
        let outcomes: Vec<TaskOutcome> = serde_json::from_str(outcomes_json)
            .map_err(|e| JsError::new(&format!("invalid outcomes: {e}")))?;
        to_json(&fill_outcomes(&self.inner.shapes, &outcomes))
    }
}
