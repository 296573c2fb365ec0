//! Offline scoring: a file (chosen, dropped, or fetched with `results=`) is identified
//! first, then an official result file is read in 1 MB slices and scored line by line
//! (the page stays responsive with 200 MB files), and a checkpoint or a run export is
//! assembled into result lines and scored the same way. Anything else is refused with a
//! message that says what the file is.

use wildtool_core::runner::checkpoint::{assemble, recover, SessionSlot};

use crate::compat::{check_belongs, sniff, FileKind};
use crate::data::Dataset;
use crate::msg::{Effect, FilePurpose, FileRef};
use crate::scoring::{JobStep, ScoreJob};
use crate::shown::{RunKind, ShownRun};
use crate::state::{AppState, Now, Tone};

/// Bytes read per slice of a streamed file.
pub const SLICE: u64 = 1 << 20;
/// Result text kept for traces after a reload (larger uploads keep their score lines in
/// memory only).
pub const KEEP_TEXT: u64 = 16 << 20;
/// Largest checkpoint or run export read whole.
pub const MAX_WHOLE: u64 = 256 << 20;
/// Result text scored per slice before yielding to the browser.
const SLICE_TEXT: usize = 1 << 20;

/// Where offline scoring stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UploadState {
    /// Nothing yet.
    #[default]
    Idle,
    /// Reading and scoring.
    Scoring,
    /// Scored and shown.
    Done,
    /// Refused or failed.
    Error,
}

impl UploadState {
    /// Automation name (`offline` hook).
    pub fn name(self) -> Option<&'static str> {
        match self {
            UploadState::Idle => None,
            UploadState::Scoring => Some("scoring"),
            UploadState::Done => Some("done"),
            UploadState::Error => Some("error"),
        }
    }
}

/// Offline scoring.
#[derive(Default)]
pub struct Upload {
    /// State.
    pub state: UploadState,
    /// The file's name.
    pub name: String,
    /// What it is.
    pub kind: Option<FileKind>,
    /// Bytes read.
    pub read: u64,
    /// Bytes in all.
    pub total: u64,
    /// The message shown under the drop zone.
    pub message: Option<(String, Tone)>,
    /// Lands in the history rather than on the dashboard.
    pub import: bool,
    /// Came from `results=`.
    pub automation: bool,
    /// Uploads finished (scored or refused) since the page opened.
    pub finished: u32,
    file: Option<FileRef>,
    job: Option<ScoreJob>,
    carry: Vec<u8>,
    line_no: usize,
    keep: Option<String>,
    whole: Vec<u8>,
    reading: bool,
    eof: bool,
    model: Option<String>,
    label: Option<String>,
    records: Option<Vec<String>>,
    resumable: bool,
}

fn split_lines(carry: &mut Vec<u8>, bytes: &[u8], eof: bool) -> Vec<Vec<u8>> {
    carry.extend_from_slice(bytes);
    let mut out = Vec::new();
    let mut start = 0;
    for (i, b) in carry.iter().enumerate() {
        if *b == b'\n' {
            out.push(carry[start..i].to_vec());
            start = i + 1;
        }
    }
    carry.drain(..start);
    if eof && !carry.is_empty() {
        out.push(std::mem::take(carry));
    }
    out
}

impl AppState {
    /// Starts scoring `file` (`import`: keep it in the history rather than show it).
    pub fn upload_begin(&mut self, file: FileRef, import: bool) -> Vec<Effect> {
        let Some(dataset) = self.dataset else {
            self.say(
                "Load the dataset the results were produced on (Setup) first.",
                Tone::Error,
            );
            return vec![Effect::ReleaseFile(file.id)];
        };
        let mut fx = Vec::new();
        if let Some(old) = self.upload.file.take() {
            fx.push(Effect::ReleaseFile(old.id));
        }
        self.upload = Upload {
            state: UploadState::Scoring,
            finished: self.upload.finished,
            name: file.name.clone(),
            total: file.size,
            import,
            job: Some(ScoreJob::new(dataset)),
            reading: true,
            keep: (file.size <= KEEP_TEXT).then(String::new),
            file: Some(file.clone()),
            ..Upload::default()
        };
        self.upload.message = Some((format!("Reading {}…", file.name), Tone::Info));
        fx.push(Effect::ReadFile {
            len: SLICE.min(file.size),
            file,
            offset: 0,
            purpose: FilePurpose::Results,
        });
        fx
    }

    /// Starts scoring a chosen or dropped file.
    pub fn upload_start(&mut self, file: FileRef) -> Vec<Effect> {
        self.upload_begin(file, false)
    }

    /// A slice of the uploaded file arrived.
    pub fn upload_read(
        &mut self,
        file: FileRef,
        offset: u64,
        bytes: Result<Vec<u8>, String>,
        now: Now,
    ) -> Vec<Effect> {
        if self.upload.file.as_ref().map(|f| f.id) != Some(file.id) {
            return vec![Effect::ReleaseFile(file.id)];
        }
        let bytes = match bytes {
            Ok(b) => b,
            Err(e) => return self.upload_fail(&format!("The file could not be read: {e}")),
        };
        self.upload.reading = false;
        self.upload.read = offset + bytes.len() as u64;
        self.upload.eof = self.upload.read >= self.upload.total || bytes.is_empty();
        if offset == 0 {
            let kind = sniff(&bytes, self.upload.total);
            self.upload.kind = Some(kind);
            if let Some(refusal) = kind.refusal() {
                return self.upload_fail(refusal);
            }
        }
        match self.upload.kind {
            Some(FileKind::OfficialResult) => {
                let lines = split_lines(&mut self.upload.carry, &bytes, self.upload.eof);
                for raw in lines {
                    self.push_result_line(raw);
                }
                self.upload.message = Some((
                    format!(
                        "Scoring {}: {:.1} of {:.1} MB",
                        self.upload.name,
                        self.upload.read as f64 / 1_048_576.0,
                        self.upload.total as f64 / 1_048_576.0
                    ),
                    Tone::Info,
                ));
                self.upload_continue(now)
            }
            _ => {
                if self.upload.total > MAX_WHOLE {
                    return self.upload_fail(&format!(
                        "This run file is {} MB; run files and checkpoints up to {} MB are read whole.",
                        self.upload.total >> 20,
                        MAX_WHOLE >> 20
                    ));
                }
                self.upload.whole.extend_from_slice(&bytes);
                if !self.upload.eof {
                    return self.read_next(self.upload.total - self.upload.read);
                }
                let text =
                    String::from_utf8_lossy(&std::mem::take(&mut self.upload.whole)).into_owned();
                self.whole_file(&text, now)
            }
        }
    }

    fn push_result_line(&mut self, raw: Vec<u8>) {
        self.upload.line_no += 1;
        let text = match String::from_utf8(raw) {
            Ok(t) => t,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        };
        if let Some(keep) = &mut self.upload.keep {
            keep.push_str(&text);
            keep.push('\n');
        }
        if let Some(job) = &mut self.upload.job {
            job.push(self.upload.line_no, text);
        }
    }

    fn read_next(&mut self, len: u64) -> Vec<Effect> {
        let Some(file) = self.upload.file.clone() else {
            return Vec::new();
        };
        self.upload.reading = true;
        vec![Effect::ReadFile {
            offset: self.upload.read,
            len: len.min(SLICE),
            file,
            purpose: FilePurpose::Results,
        }]
    }

    /// A checkpoint or run export, read whole.
    fn whole_file(&mut self, text: &str, now: Now) -> Vec<Effect> {
        let Some(dataset) = self.dataset else {
            return self.upload_fail("No dataset is loaded.");
        };
        let parsed = match self.upload.kind {
            Some(FileKind::Checkpoint) => parse_checkpoint(text, dataset),
            _ => parse_run_export(text, dataset),
        };
        let (model, label, records, result_text) = match parsed {
            Ok(p) => p,
            Err(e) => return self.upload_fail(&e),
        };
        let result_text = match (&records, result_text) {
            (_, Some(t)) => t,
            (Some(lines), None) => match assembled(dataset, &model, lines) {
                Ok((text, missing)) => {
                    self.upload.resumable = missing > 0;
                    text
                }
                Err(e) => return self.upload_fail(&e),
            },
            (None, None) => return self.upload_fail("The run file holds no results."),
        };
        self.upload.model = Some(model);
        self.upload.label = label;
        self.upload.records = records;
        self.upload.keep = Some(result_text.clone());
        for (i, line) in result_text.lines().enumerate() {
            if let Some(job) = &mut self.upload.job {
                job.push(i + 1, line.to_owned());
            }
        }
        self.upload_continue(now)
    }

    /// A result file named by `results=` arrived.
    pub fn results_fetched(&mut self, result: Result<String, String>, now: Now) -> Vec<Effect> {
        let text = match result {
            Ok(t) => t,
            Err(e) => {
                self.upload.automation = true;
                return self.upload_fail(&format!("The result file could not be fetched: {e}"));
            }
        };
        let Some(dataset) = self.dataset else {
            return self.upload_fail("No dataset is loaded.");
        };
        self.upload = Upload {
            state: UploadState::Scoring,
            finished: self.upload.finished,
            name: "results".into(),
            total: text.len() as u64,
            read: text.len() as u64,
            eof: true,
            automation: true,
            job: Some(ScoreJob::new(dataset)),
            ..Upload::default()
        };
        let kind = sniff(text.as_bytes(), text.len() as u64);
        self.upload.kind = Some(kind);
        if let Some(refusal) = kind.refusal() {
            return self.upload_fail(refusal);
        }
        if kind == FileKind::OfficialResult {
            self.upload.keep = (text.len() as u64 <= KEEP_TEXT).then(String::new);
            for raw in text.split('\n') {
                self.push_result_line(raw.as_bytes().to_vec());
            }
            self.upload_continue(now)
        } else {
            self.whole_file(&text, now)
        }
    }

    /// Scores the next slice of queued lines; finishes when everything is read and
    /// scored.
    pub fn upload_continue(&mut self, _now: Now) -> Vec<Effect> {
        if self.upload.state != UploadState::Scoring || self.upload.reading {
            return Vec::new();
        }
        let Some(job) = &mut self.upload.job else {
            return Vec::new();
        };
        let mut fx = Vec::new();
        let mut budget = SLICE_TEXT;
        loop {
            let next = job.next_text().map(str::len).unwrap_or(0);
            match job.run(1) {
                JobStep::NeedsJieba => {
                    let text = job.next_text().unwrap_or("").to_owned();
                    self.needs_jieba(&text, &mut fx);
                    return fx;
                }
                JobStep::Idle => break,
                JobStep::More => {}
            }
            budget = budget.saturating_sub(next.max(1));
            if budget == 0 {
                fx.push(Effect::ContinueSoon);
                return fx;
            }
        }
        if !self.upload.eof {
            let rest = self.upload.total - self.upload.read;
            return self.read_next(rest);
        }
        self.upload_finish()
    }

    fn upload_finish(&mut self) -> Vec<Effect> {
        let Some(dataset) = self.dataset else {
            return self.upload_fail("No dataset is loaded.");
        };
        let Some(job) = self.upload.job.take() else {
            return Vec::new();
        };
        let mut scored = job.finish(self.upload.model.as_deref());
        if scored.outcomes.is_empty() {
            let why = scored
                .errors
                .iter()
                .take(3)
                .cloned()
                .collect::<Vec<_>>()
                .join("; ");
            return self.upload_fail(&format!(
                "No line of this file could be scored{}",
                if why.is_empty() {
                    ".".to_owned()
                } else {
                    format!(": {why}")
                }
            ));
        }
        if let Err(e) = check_belongs(&scored.stats, scored.outcomes.len() as u64) {
            return self.upload_fail(&e);
        }
        scored.result_text = self.upload.keep.take();
        scored.records = self.upload.records.take();
        let model = scored.model.clone();
        let label = self.upload.label.take().unwrap_or_else(|| model.clone());
        let errors = scored.errors.len();
        let first_errors = scored.errors.iter().take(3).cloned().collect::<Vec<_>>();
        let id = self.history.new_id("upload");
        let outcomes = scored.outcomes.clone();
        let task_results = outcomes.len();
        let shown = ShownRun::new(
            crate::shown::RunIdent {
                id: id.clone(),
                label,
                model,
                kind: RunKind::Upload,
            },
            dataset,
            &outcomes,
            Some(scored),
            None,
        );
        let note = format!(
            "{}: {task_results} tasks scored ({}).{}",
            self.upload.name,
            shown.headline.scored,
            if errors > 0 {
                format!(
                    " {errors} line(s) could not be scored: {}",
                    first_errors.join("; ")
                )
            } else {
                String::new()
            }
        );
        self.upload.message = Some((note.clone(), Tone::Ok));
        self.upload.state = UploadState::Done;
        self.upload.finished += 1;
        if self.upload.automation {
            self.flags.score_state = Some("done");
        }
        let mut fx = Vec::new();
        if let Some(file) = self.upload.file.take() {
            fx.push(Effect::ReleaseFile(file.id));
        }
        let resumable = std::mem::take(&mut self.upload.resumable);
        fx.extend(self.keep_in_history(&shown, resumable));
        if self.upload.import {
            self.say(
                format!("Imported {} into the history.", self.upload.name),
                Tone::Ok,
            );
            fx.extend(self.go_view(crate::route::View::History));
            return fx;
        }
        let tone = if shown.headline.tasks_scored < shown.headline.tasks_total {
            Tone::Warn
        } else {
            Tone::Ok
        };
        self.say(
            format!(
                "Scored {} offline: {}{}.",
                self.upload.name,
                shown
                    .headline
                    .task_accuracy
                    .as_deref()
                    .map(|a| format!("task accuracy {a}, "))
                    .unwrap_or_default(),
                shown.headline.scored
            ),
            tone,
        );
        fx.extend(self.show(shown));
        fx
    }

    /// Stops offline scoring with `reason` (shown where the user is looking).
    pub fn upload_fail(&mut self, reason: &str) -> Vec<Effect> {
        let mut fx = Vec::new();
        if self.upload.state != UploadState::Scoring && !self.upload.automation {
            return fx;
        }
        if let Some(file) = self.upload.file.take() {
            fx.push(Effect::ReleaseFile(file.id));
        }
        self.upload.job = None;
        self.upload.state = UploadState::Error;
        self.upload.finished += 1;
        self.upload.message = Some((reason.to_owned(), Tone::Error));
        if self.upload.automation {
            self.flags.score_state = Some("error");
            self.flags.score_error = Some(reason.to_owned());
        }
        self.say(format!("The file was not scored: {reason}"), Tone::Error);
        fx
    }
}

/// `(model, label, checkpoint lines, result text)` of a checkpoint.
type Parsed = (String, Option<String>, Option<Vec<String>>, Option<String>);

fn parse_checkpoint(text: &str, dataset: Dataset) -> Result<Parsed, String> {
    let lines: Vec<String> = text
        .lines()
        .map(|l| l.trim_end_matches('\r').to_owned())
        .filter(|l| !l.trim().is_empty())
        .collect();
    let header: serde_json::Value = lines
        .first()
        .and_then(|l| serde_json::from_str(l).ok())
        .ok_or("The checkpoint's first line is not its header.")?;
    let model = header
        .get("model_name")
        .and_then(|v| v.as_str())
        .ok_or("The checkpoint's header has no model_name string.")?
        .to_owned();
    let fp = header
        .get("dataset")
        .and_then(|v| v.as_str())
        .ok_or("The checkpoint's header has no dataset string.")?;
    if fp != dataset.fingerprint {
        return Err(format!(
            "This checkpoint was written on another dataset (fingerprint {fp}; the loaded dataset is {}). Load that dataset in Setup first.",
            dataset.fingerprint
        ));
    }
    Ok((model, None, Some(lines), None))
}

fn parse_run_export(text: &str, dataset: Dataset) -> Result<Parsed, String> {
    let doc: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("The run file is not valid JSON: {e}"))?;
    let model = doc
        .get("model")
        .and_then(|v| v.as_str())
        .ok_or("The run file has no model string.")?
        .to_owned();
    let label = doc.get("label").and_then(|v| v.as_str()).map(str::to_owned);
    if let Some(fp) = doc.get("dataset_fingerprint").and_then(|v| v.as_str()) {
        if fp != dataset.fingerprint {
            return Err(format!(
                "This run was made on another dataset (fingerprint {fp}; the loaded dataset is {}).",
                dataset.fingerprint
            ));
        }
    }
    if let Some(records) = doc.get("records").and_then(|v| v.as_array()) {
        let mut lines = vec![wildtool_core::runner::checkpoint::header_line(
            &model,
            &dataset.fingerprint,
        )];
        for (i, r) in records.iter().enumerate() {
            lines.push(
                r.as_str()
                    .ok_or(format!("records[{i}] of the run file is not a string."))?
                    .to_owned(),
            );
        }
        return Ok((model, label, Some(lines), None));
    }
    match doc.get("result_jsonl").and_then(|v| v.as_str()) {
        Some(t) => Ok((model, label, None, Some(t.to_owned()))),
        None => Err("The run file has neither records nor result_jsonl.".into()),
    }
}

/// Assembles checkpoint lines into result text; returns the text and the number of
/// tasks still missing.
pub fn assembled(
    dataset: Dataset,
    model: &str,
    lines: &[String],
) -> Result<(String, usize), String> {
    let done = recover(lines, model, &dataset.fingerprint).map_err(|e| e.to_string())?;
    let slots: Vec<SessionSlot> = dataset
        .dataset
        .sessions
        .iter()
        .map(|s| SessionSlot {
            line: s.line,
            id: s.id.clone(),
            tasks: s.tasks.len(),
        })
        .collect();
    let a = assemble(model, &slots, &done);
    Ok((a.text, a.missing.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_across_slices() {
        let mut carry = Vec::new();
        assert_eq!(
            split_lines(&mut carry, b"ab\ncd", false),
            vec![b"ab".to_vec()]
        );
        assert_eq!(
            split_lines(&mut carry, b"e\n\nf", false),
            vec![b"cde".to_vec(), vec![]]
        );
        assert_eq!(split_lines(&mut carry, b"", true), vec![b"f".to_vec()]);
        assert!(carry.is_empty());
    }
}
