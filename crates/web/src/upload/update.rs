//! Offline scoring's handlers: files chosen or dropped, read in slices, sniffed and scored;
//! runs exported and imported.

use super::*;
use crate::dashboard::{RunKind, ShownRun};
use crate::msg::{Effect, FilePurpose, FileRef};
use crate::scoring::{JobStep, ScoreJob};
use crate::state::{AppState, Now, Tone};
use wildtool_core::formats::{check_belongs, sniff, FileKind};
use wildtool_core::input::lines::decode;

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
            let env = kind == FileKind::EnvRun;
            if !(env || kind.is_scorable()) {
                return self.upload_fail(&kind.message());
            }
            let results = kind == FileKind::Results;
            self.upload.kind = Some(kind);
            if results && self.flags.worker {
                return self.score_in_worker();
            }
        }
        match self.upload.kind {
            Some(FileKind::Results) => {
                self.feed_results(&bytes, self.upload.eof);
                self.upload.message = Some((
                    format!(
                        "Scoring {}: {:.1} of {:.1} MB{}",
                        self.upload.name,
                        self.upload.read as f64 / 1_048_576.0,
                        self.upload.total as f64 / 1_048_576.0,
                        if self.flags.worker {
                            ""
                        } else {
                            " (on the page's main thread: this browser gives the page no Web Worker here, so the page may pause)"
                        }
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
                let whole = std::mem::take(&mut self.upload.whole);
                self.whole_file(&whole, now)
            }
        }
    }

    /// Splits result bytes into lines by the core's line rule (a damaged or oversized
    /// line costs that line, named by its number) and queues them for scoring.
    fn feed_results(&mut self, bytes: &[u8], eof: bool) {
        let u = &mut self.upload;
        let (Some(job), keep) = (&mut u.job, &mut u.keep) else {
            return;
        };
        let mut visit =
            |span: wildtool_core::input::LineSpan,
             line: Result<&[u8], wildtool_core::input::LineError>| {
                match line.and_then(|b| decode(&span, b)) {
                    Ok(Some(text)) => {
                        if let Some(k) = keep.as_mut() {
                            k.push_str(text);
                            k.push('\n');
                        }
                        job.push(span.number, text.to_owned());
                    }
                    Ok(None) => {}
                    Err(e) => job.skip(e.to_string()),
                }
            };
        u.splitter.push(bytes, &mut visit);
        if eof {
            u.splitter.finish(&mut visit);
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
    fn whole_file(&mut self, bytes: &[u8], now: Now) -> Vec<Effect> {
        if self.upload.kind == Some(FileKind::EnvRun) {
            return self.env_upload(bytes);
        }
        let Some(dataset) = self.dataset else {
            return self.upload_fail("No dataset is loaded.");
        };
        let kind = match self.upload.kind {
            Some(FileKind::Checkpoint) => "checkpoint",
            _ => "run",
        };
        // The readers are the lab module's: load it first.
        let Some(parsed) = crate::scoring::read_whole(dataset, kind, bytes) else {
            self.upload.waiting_whole = Some(bytes.to_vec());
            return self.load_scorer();
        };
        let (model, label, records, result_text, missing) = match parsed {
            Ok(p) => p,
            Err(e) => return self.upload_fail(&e),
        };
        self.upload.resumable = missing > 0;
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
        if !kind.is_scorable() {
            return self.upload_fail(&kind.message());
        }
        let results = kind == FileKind::Results;
        self.upload.kind = Some(kind);
        if results {
            self.upload.keep = (text.len() as u64 <= KEEP_TEXT).then(String::new);
            self.feed_results(text.as_bytes(), true);
            self.upload_continue(now)
        } else {
            self.whole_file(text.as_bytes(), now)
        }
    }

    /// Scores the next slice of queued lines; finishes when everything is read and
    /// scored.
    pub fn upload_continue(&mut self, now: Now) -> Vec<Effect> {
        if self.upload.state != UploadState::Scoring || self.upload.reading {
            return Vec::new();
        }
        if crate::scoring::ready() {
            if let Some(bytes) = self.upload.waiting_whole.take() {
                return self.whole_file(&bytes, now);
            }
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
        let Some(job) = self.upload.job.take() else {
            return Vec::new();
        };
        let scored = job.finish(self.upload.model.as_deref());
        let mismatch = check_belongs(&scored.stats).err().map(|e| e.message);
        self.upload_done(scored, mismatch)
    }

    /// Shows (or files in the history) a finished scoring of the upload.
    pub(crate) fn upload_done(
        &mut self,
        mut scored: crate::scoring::Scored,
        mismatch: Option<String>,
    ) -> Vec<Effect> {
        let Some(dataset) = self.dataset else {
            return self.upload_fail("No dataset is loaded.");
        };
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
        if let Some(why) = mismatch {
            return self.upload_fail(&why);
        }
        if scored.result_text.is_none() {
            scored.result_text = self.upload.keep.take();
        }
        scored.records = self.upload.records.take();
        let model = scored.model.clone();
        // An upload without a label of its own is named after its file (two uploads of
        // one model are told apart).
        let label = self.upload.label.take().unwrap_or_else(|| {
            let name = self.upload.name.as_str();
            let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
            if stem.is_empty() {
                model.clone()
            } else {
                stem.to_owned()
            }
        });
        let errors = scored.errors.len();
        let first_errors = scored.errors.iter().take(3).cloned().collect::<Vec<_>>();
        let id = self.history.new_id("upload");
        let outcomes = scored.outcomes.clone();
        let shown = ShownRun::new(
            crate::dashboard::RunIdent {
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
        let mut shown = shown;
        if errors > 0 {
            shown.damage = Some(format!(
                "{errors} line(s) of {} could not be read: {}{}",
                self.upload.name,
                first_errors.join("; "),
                if errors > first_errors.len() {
                    "; …"
                } else {
                    ""
                }
            ));
        }
        let repeats = shown
            .scored
            .as_ref()
            .and_then(|x| x.stats.duplicate_warning())
            .map(|w| format!(" {w}."))
            .unwrap_or_default();
        let note = format!(
            "{}: {}.{repeats}{}",
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
        // On the Offline view its note says it already: said once.
        if self.route.view == crate::route::View::Upload {
            self.status = None;
        } else {
            self.say(format!("The file was not scored: {reason}"), Tone::Error);
        }
        fx
    }
}
