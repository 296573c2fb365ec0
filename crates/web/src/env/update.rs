//! The ledger environment's handlers (an extension): env runs' steps answered by the lab
//! module, their end, task views, downloads and links.

use super::*;
use crate::msg::{Effect, LabPurpose};
use crate::route::{Route, View};
use crate::state::{AppState, Now, Tone};
use serde_json::Value as Json;
use wildtool_contract::env::{
    EnvFinishInput, EnvScoreInput, EnvSession, EnvTaskInput, EnvViewInput,
};
use wildtool_contract::Call;
use wildtool_core::json::{dumps, Escape, Map, Value};
use wildtool_core::protocol::calls_value;

impl AppState {
    /// True when the setup form asks for the ledger environment.
    pub fn env_wanted(&self) -> bool {
        self.setup.env
    }

    /// The dataset's sessions with `ledger_env`.
    pub fn env_sessions(&self) -> Vec<&'static wildtool_core::dataset::Session> {
        self.dataset
            .map(|d| {
                d.dataset
                    .sessions
                    .iter()
                    .filter(|s| s.raw.get("ledger_env").is_some())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Before an env run: loads the lab module (the run starts once it answers).
    pub fn env_prepare(
        &mut self,
        resume: Option<crate::history::HistoryEntry>,
        stored: Vec<String>,
    ) -> Option<Vec<Effect>> {
        if !self.setup.env || (self.env.sync.is_some() && self.env.version.is_some()) {
            return None;
        }
        self.env.awaiting = Some((resume, stored));
        Some(vec![Effect::Lab {
            call: Call::EnvInfo,
            input: "{}".to_owned(),
            purpose: LabPurpose::EnvReady,
        }])
    }

    /// The module answered `env_info` (or could not be loaded): a waiting run starts.
    pub fn env_ready(&mut self, answer: Result<String, String>, now: Now) -> Vec<Effect> {
        let Some((resume, stored)) = self.env.awaiting.take() else {
            return Vec::new();
        };
        match answer {
            Ok(text) => {
                let v = parse(&text);
                let text = |k: &str| v.get(k).and_then(Json::as_str).map(str::to_owned);
                self.env.version = text("env_version");
                self.env.own_version = text("own_version");
                if self.env.sync.is_none() || self.env.version.is_none() {
                    self.say(
                        "Cannot start: the ledger environment did not load.",
                        Tone::Error,
                    );
                    return Vec::new();
                }
                self.start_again(resume, stored, now)
            }
            Err(e) => {
                self.say(
                    format!("Cannot start: the ledger environment could not be loaded ({e})."),
                    Tone::Error,
                );
                Vec::new()
            }
        }
    }

    /// Installs the synchronous lab calls (the glue, once the module is loaded).
    pub fn install_env_call(&mut self, call: SyncCall) {
        self.env.sync = Some(call);
    }

    /// Answers every batch of tool calls the live env run waits for.
    pub fn env_answer_calls(&mut self, now: Now) {
        let Some(sync) = self.env.sync.clone() else {
            return;
        };
        let Some(dataset) = self.dataset else { return };
        let Some(run) = &mut self.run else { return };
        let Some(history) = run.env.as_ref().map(|e| e.history.clone()) else {
            return;
        };
        while let Some(call) = run.engine.poll_env_call() {
            let Some(session) = dataset
                .dataset
                .sessions
                .iter()
                .find(|s| s.index == call.task.line)
            else {
                run.engine.handle_env_result(
                    call.id,
                    Err(format!("no session at index {}", call.task.line)),
                    now.mono,
                );
                continue;
            };
            let mut m = Map::new();
            m.insert("format", Value::str(STEP_FORMAT));
            m.insert("session", session.raw.clone());
            m.insert("line", Value::int(session.index as i64));
            m.insert("task", Value::int(call.task.task as i64));
            m.insert("history", Value::str(history.clone()));
            m.insert("prior", calls_value(&call.prior));
            m.insert("calls", calls_value(&call.calls));
            let query = dumps(&Value::Object(m), Escape::Utf8);
            let started = clock_ms();
            let answer = sync(Call::EnvStep, &query).and_then(|out| {
                let v = parse(&out);
                match (v.get("results").and_then(Json::as_array), v.get("error")) {
                    (Some(list), _) => Ok(list.iter().map(core_value).collect()),
                    (None, Some(Json::String(e))) => Err(e.clone()),
                    _ => Err("the environment gave no answer".to_owned()),
                }
            });
            self.env.step_ms.0 += clock_ms() - started;
            self.env.step_ms.1 += 1;
            run.engine.handle_env_result(call.id, answer, now.mono);
        }
    }

    /// The env run ended: its files are written by the lab module and the run is shown.
    pub fn env_finished(&mut self, end: crate::run::engine::RunEnd, now: Now) -> Vec<Effect> {
        let (Some(dataset), Some(sync)) = (self.dataset, self.env.sync.clone()) else {
            return Vec::new();
        };
        let sessions: Vec<EnvSession> = self.env_sessions().into_iter().map(session_text).collect();
        let Some(run) = &mut self.run else {
            return Vec::new();
        };
        let Some(info) = run.env.clone() else {
            return Vec::new();
        };
        let input = EnvFinishInput {
            fingerprint: dataset.fingerprint.clone(),
            model: run.model.clone(),
            history: info.history.clone(),
            status: end.status.as_str().to_owned(),
            tasks_total: info.tasks,
            sessions_without_env: info.skipped,
            sessions,
            assembled: end
                .trials
                .first()
                .map(|a| a.text.clone())
                .unwrap_or_default(),
        };
        let answer = sync(
            Call::EnvFinish,
            &serde_json::to_string(&input).unwrap_or_default(),
        );
        run.phase = crate::run::Phase::Ended;
        run.progress = end.progress.clone();
        let outcome = match end.status {
            crate::run::engine::RunStatus::Done => "done",
            crate::run::engine::RunStatus::Partial => "incomplete",
            crate::run::engine::RunStatus::Cancelled => "cancelled",
            crate::run::engine::RunStatus::Failed => "failed",
        };
        let reason = end.reason.as_deref().map(|r| run.redactor.redact(r));
        run.end = Some(crate::dashboard::EndNote {
            outcome: outcome.to_owned(),
            reason: reason.clone(),
            fix: None,
        });
        let mut entry = run.entry.clone();
        entry.finished_ms = Some(now.unix_ms);
        entry.duration_s = Some(now.mono - run.started_at());
        entry.requests = run.progress.requests;
        entry.input_tokens = run.progress.input_tokens;
        entry.output_tokens = run.progress.output_tokens;
        entry.reason = reason;
        let label = entry.label.clone();
        let id = entry.id.clone();
        let (ok, fx) = match answer {
            Ok(text) => {
                let v = parse(&text);
                let shown = shown_of(&id, &label, &info.history, &v);
                let tasks = v
                    .get("summary")
                    .and_then(Json::as_str)
                    .map(parse)
                    .and_then(|s| s.get("tasks_scored").and_then(Json::as_u64))
                    .unwrap_or(0);
                entry.tasks_scored = tasks;
                entry.status = if outcome == "done" {
                    "done".into()
                } else {
                    outcome.into()
                };
                entry.resumable = tasks < entry.tasks_total;
                // The run's manifest, from the lab module's log of its exchanges (the
                // lab module tells an env run by its result file's header).
                let mut shown = shown;
                if let (Some(tape), Some(call)) = (&run.tape, &self.cassette_call) {
                    shown.manifest = tape.manifest(
                        call,
                        &serde_json::to_string(&entry).unwrap_or_default(),
                        [shown.result.clone(), shown.report.clone(), None],
                        Vec::new(),
                        run.progress.resumed,
                        match tape.mode() {
                            Some("replay") => self.cassette.replay.as_ref().map_or("", |(n, _)| n),
                            _ => "cassette.jsonl",
                        },
                    );
                }
                let mut puts = vec![
                    (result_key(&id), shown.result.clone().unwrap_or_default()),
                    (
                        crate::history::meta_key(&id),
                        serde_json::to_string(&entry).unwrap_or_default(),
                    ),
                ];
                if let Some(m) = &shown.manifest {
                    puts.push((crate::history::manifest_key(&id), m.clone()));
                }
                run.entry = entry.clone();
                self.history.put(entry);
                let msg = format!(
                    "Ledger environment run {}: env task success {} (extension, not a WildToolBench metric).",
                    if outcome == "done" { "finished" } else { outcome },
                    parse(&shown.headline)
                        .get("env_task_success")
                        .and_then(Json::as_str)
                        .unwrap_or("–")
                );
                self.say(msg, Tone::Ok);
                let fx = self.env_show(shown);
                (true, [vec![Effect::KvPut(puts)], fx].concat())
            }
            Err(e) => {
                entry.status = "failed".into();
                entry.reason = Some(e.clone());
                run.entry = entry.clone();
                self.history.put(entry.clone());
                self.say(format!("The env run could not be scored: {e}"), Tone::Error);
                (
                    false,
                    vec![Effect::KvPut(vec![(
                        crate::history::meta_key(&id),
                        serde_json::to_string(&entry).unwrap_or_default(),
                    )])],
                )
            }
        };
        if !ok {
            self.focus = Some("status".into());
        }
        fx
    }

    /// Shows env run `shown` on the dashboard (the official run there is put aside).
    pub fn env_show(&mut self, shown: EnvShown) -> Vec<Effect> {
        self.shown = None;
        self.traces = Default::default();
        self.env.shown = Some(shown);
        self.env.task = None;
        self.env.view = None;
        self.env.task_view = None;
        self.env.asked_view = None;
        self.env.asked_task = None;
        let mut r = Route::view(View::Dashboard);
        r.run = self.env.shown.as_ref().map(|s| s.id.clone());
        self.focus = Some("dashboard-title".into());
        let mut fx = self.go(r);
        fx.extend(self.env_refresh());
        fx
    }

    /// Asks the lab module for the env views the current route shows.
    pub fn env_refresh(&mut self) -> Vec<Effect> {
        let Some(shown) = &self.env.shown else {
            return Vec::new();
        };
        let mut fx = Vec::new();
        if self.route.view == View::Dashboard {
            let input = serde_json::to_string(&EnvViewInput {
                summary: shown.summary.clone(),
                width: self.layout.width,
                min_font: self.layout.min_font,
            })
            .unwrap_or_default();
            if self.env.asked_view.as_deref() != Some(input.as_str()) {
                self.env.asked_view = Some(input.clone());
                fx.extend(self.lab_call(Call::EnvView, input, LabPurpose::EnvView));
            }
        }
        if self.route.view == View::Traces {
            if let Some(input) = self.env_task_input("") {
                if self.env.asked_task.as_deref() != Some(input.as_str()) {
                    self.env.asked_task = Some(input.clone());
                    self.env.task_view = None;
                    fx.extend(self.lab_call(Call::EnvTask, input, LabPurpose::EnvTask));
                }
            }
        }
        fx
    }

    fn env_task_input(&self, which: &str) -> Option<String> {
        let shown = self.env.shown.as_ref()?;
        let result = shown.result.as_ref()?;
        let (line, task) = self.env.task?;
        let session = self
            .dataset?
            .dataset
            .sessions
            .iter()
            .find(|s| s.index == line)?;
        let mut lines = result.lines();
        let header = lines.next()?;
        let id = format!("\"id\": {}", serde_json::to_string(&session.id).ok()?);
        let own = lines.find(|l| l.contains(&id))?;
        serde_json::to_string(&EnvTaskInput {
            fingerprint: self.dataset?.fingerprint.clone(),
            session: session_text(session),
            result: format!("{header}\n{own}\n"),
            task,
            which: which.to_owned(),
        })
        .ok()
    }

    /// An env action.
    pub fn env_msg(&mut self, m: crate::msg::EnvMsg) -> Vec<Effect> {
        use crate::msg::EnvMsg;
        match m {
            EnvMsg::Open(arg) => self.env_open_task(&arg),
            EnvMsg::Export(arg) => self.env_export(&arg),
            EnvMsg::CopyLink => self.env_copy_link(),
            EnvMsg::File(which) => self.env_file(&which),
        }
    }

    /// A lab answer for the env views.
    pub fn env_lab_done(
        &mut self,
        purpose: LabPurpose,
        answer: Result<String, String>,
        now: Now,
    ) -> Vec<Effect> {
        let Some(answer) = self.lab.settle(purpose, answer) else {
            return Vec::new();
        };
        match purpose {
            LabPurpose::EnvReady => self.env_ready(answer, now),
            LabPurpose::EnvView => {
                self.env.view = Some(answer);
                Vec::new()
            }
            LabPurpose::EnvTask => {
                self.env.task_view = Some(answer);
                Vec::new()
            }
            LabPurpose::EnvExport => match answer {
                Ok(text) => {
                    let name = self.env.export_name.take().unwrap_or_default();
                    vec![Effect::Download {
                        name,
                        mime: "text/plain",
                        data: text,
                    }]
                }
                Err(e) => {
                    self.say(format!("No ledger to download: {e}"), Tone::Error);
                    Vec::new()
                }
            },
            LabPurpose::EnvScore => self.env_scored(answer),
            LabPurpose::EnvShare => self.env_link_decoded(answer),
            _ => Vec::new(),
        }
    }

    /// Opens task `arg` (`line task`, 0-based) of the shown env run in the traces view.
    pub fn env_open_task(&mut self, arg: &str) -> Vec<Effect> {
        let mut it = arg.split(' ').map(|x| x.parse::<usize>().ok());
        let (Some(Some(line)), Some(Some(task))) = (it.next(), it.next()) else {
            return Vec::new();
        };
        self.env.task = Some((line, task));
        let mut r = Route::view(View::Traces);
        r.run = self.env.shown.as_ref().map(|s| s.id.clone());
        self.focus = Some("env-task-title".into());
        let mut fx = self.go(r);
        fx.extend(self.env_refresh());
        fx
    }

    /// Downloads a ledger of the opened task (`which line task`).
    pub fn env_export(&mut self, arg: &str) -> Vec<Effect> {
        let which = arg.split(' ').next().unwrap_or("actual").to_owned();
        let Some(input) = self.env_task_input(&which) else {
            return Vec::new();
        };
        let (line, task) = self.env.task.unwrap_or_default();
        let ext = if which == "diff" { "diff" } else { "beancount" };
        self.env.export_name = Some(format!(
            "ledger_session-{}_task-{}_{which}.{ext}",
            line + 1,
            task + 1
        ));
        self.lab_call(Call::EnvExport, input, LabPurpose::EnvExport)
    }

    /// Copies the env run's share link.
    pub fn env_copy_link(&mut self) -> Vec<Effect> {
        match &self.env.shown {
            Some(s) => vec![Effect::Copy(self.share_url(&s.link))],
            None => Vec::new(),
        }
    }

    /// An uploaded `env-result.jsonl` (read whole): scored by the lab module.
    pub fn env_upload(&mut self, bytes: &[u8]) -> Vec<Effect> {
        let Some(dataset) = self.dataset else {
            return self.upload_fail("No dataset is loaded.");
        };
        let Ok(text) = std::str::from_utf8(bytes) else {
            return self.upload_fail("The file is not UTF-8 text.");
        };
        let input = EnvScoreInput {
            fingerprint: dataset.fingerprint.clone(),
            sessions: self.env_sessions().into_iter().map(session_text).collect(),
            result: text.to_owned(),
        };
        self.lab_call(
            Call::EnvScore,
            serde_json::to_string(&input).unwrap_or_default(),
            LabPurpose::EnvScore,
        )
    }

    /// An env result (an upload or a stored run) scored.
    fn env_scored(&mut self, answer: Result<String, String>) -> Vec<Effect> {
        let opening = self.env.opening.take();
        let text = match answer {
            Ok(t) => t,
            Err(e) => {
                if opening.is_some() {
                    self.say(format!("The env run cannot be opened: {e}"), Tone::Error);
                    return Vec::new();
                }
                return self.upload_fail(&e);
            }
        };
        let v = parse(&text);
        let summary = v
            .get("summary")
            .and_then(Json::as_str)
            .map(parse)
            .unwrap_or_default();
        let model = summary
            .get("model")
            .and_then(Json::as_str)
            .unwrap_or("")
            .to_owned();
        let history = summary
            .get("history")
            .and_then(Json::as_str)
            .unwrap_or("gold")
            .to_owned();
        let (id, label) = match opening {
            Some(id) => {
                let label = self
                    .history
                    .get(&id)
                    .map(|e| e.label.clone())
                    .unwrap_or(model);
                (id, label)
            }
            None => {
                self.upload.state = crate::upload::UploadState::Done;
                self.upload.finished += 1;
                if let Some(file) = self.upload.file.take() {
                    let shown = shown_of(&format!("upload-env-{}", file.id), &model, &history, &v);
                    self.say(
                        format!(
                            "Scored {} (ledger environment, an extension).",
                            self.upload.name
                        ),
                        Tone::Ok,
                    );
                    let mut fx = vec![Effect::ReleaseFile(file.id)];
                    fx.extend(self.env_show(shown));
                    return fx;
                }
                (format!("upload-env-{}", self.upload.finished), model)
            }
        };
        let shown = shown_of(&id, &label, &history, &v);
        let mut fx = self.env_show(shown);
        // A run made in this page keeps its manifest in the history: shown once read.
        fx.push(Effect::KvGet(
            crate::history::manifest_key(&id),
            crate::msg::GetPurpose::EnvManifest(id),
        ));
        fx
    }

    /// A stored env run's manifest arrived (`None`: it has none).
    pub fn env_manifest_arrived(&mut self, id: &str, value: Option<String>) -> Vec<Effect> {
        if let Some(shown) = self.env.shown.as_mut().filter(|s| s.id == id) {
            shown.manifest = value;
        }
        Vec::new()
    }

    /// Opens stored env run `id` (its `env-result.jsonl` is read, then scored again).
    pub fn env_open_stored(&mut self, id: &str) -> Vec<Effect> {
        self.env.opening = Some(id.to_owned());
        vec![Effect::KvGet(
            result_key(id),
            crate::msg::GetPurpose::EnvResult(id.to_owned()),
        )]
    }

    /// A stored env result arrived.
    pub fn env_result_arrived(&mut self, id: &str, value: Option<String>) -> Vec<Effect> {
        let (Some(text), Some(dataset)) = (value, self.dataset) else {
            self.env.opening = None;
            self.say("This env run's results are not stored in this browser, or its dataset is not loaded.", Tone::Error);
            return Vec::new();
        };
        self.env.opening = Some(id.to_owned());
        let input = EnvScoreInput {
            fingerprint: dataset.fingerprint.clone(),
            sessions: self.env_sessions().into_iter().map(session_text).collect(),
            result: text,
        };
        self.lab_call(
            Call::EnvScore,
            serde_json::to_string(&input).unwrap_or_default(),
            LabPurpose::EnvScore,
        )
    }

    /// Opens an env share link (`e1.…`).
    pub fn env_open_link(&mut self, link: &str) -> Vec<Effect> {
        self.env.link = Some(link.to_owned());
        self.lab_call(Call::EnvShareDecode, link.to_owned(), LabPurpose::EnvShare)
    }

    fn env_link_decoded(&mut self, answer: Result<String, String>) -> Vec<Effect> {
        self.boot.link = None;
        let link = self.env.link.take().unwrap_or_default();
        let summary = match answer {
            Ok(s) => s,
            Err(e) => {
                self.flags.share = Some("error");
                self.say(e, Tone::Error);
                return Vec::new();
            }
        };
        let s = parse(&summary);
        let model = s
            .get("model")
            .and_then(Json::as_str)
            .unwrap_or("")
            .to_owned();
        let history = s
            .get("history")
            .and_then(Json::as_str)
            .unwrap_or("gold")
            .to_owned();
        let v = serde_json::json!({"summary": summary, "link": link});
        let shown = shown_of(&crate::dashboard::link_id(&link), &model, &history, &v);
        self.flags.share = Some("opened");
        self.say(
            format!("Loaded from a ledger environment link: {model} (an extension, not a WildToolBench metric)."),
            Tone::Ok,
        );
        self.env_show(shown)
    }

    /// The automation hook `envHeadline`, while an env run is shown.
    pub fn env_headline(&self) -> Option<&str> {
        self.env.shown.as_ref().map(|s| s.headline.as_str())
    }

    /// The env step cost so far (ms per step call, steps).
    pub fn env_step_cost(&self) -> Option<(f64, u64)> {
        let (ms, n) = self.env.step_ms;
        (n > 0).then(|| (ms / n as f64, n))
    }
}

impl AppState {
    /// Downloads the shown env run's `env-result.jsonl` (`own-result.jsonl` in own
    /// history), `env-report.json` or `manifest.json`.
    pub fn env_file(&mut self, which: &str) -> Vec<Effect> {
        let Some(s) = &self.env.shown else {
            return Vec::new();
        };
        let (name, data) = match which {
            "report" => ("env-report.json", s.report.clone()),
            "manifest" => ("manifest.json", s.manifest.clone()),
            _ => (s.result_name(), s.result.clone()),
        };
        match data {
            Some(data) => vec![Effect::Download {
                name: name.to_owned(),
                mime: if which != "result" {
                    "application/json"
                } else {
                    "application/x-ndjson"
                },
                data,
            }],
            None => Vec::new(),
        }
    }
}
