//! The run's handlers: starting, pausing, resuming and cancelling runs; engine outputs into
//! effects, events into state, the end into a scored run.

use super::*;
use crate::dashboard::{EndNote, RunKind, ShownRun};
use crate::history::{checkpoint_key, meta_key, outcomes_key, HistoryEntry};
use crate::msg::{Effect, ListPurpose, Outgoing, Reply, StreamIn};
use crate::route::{Route, View};
use crate::run::engine::{spec_from_form, Engine, Event, RequestId, RunStatus};
use crate::run::hosts::HostPool;
use crate::scoring::{JobStep, ScoreJob};
use crate::state::{AppState, Now, Tone};
use wildtool_core::runner::engine::Backend;
use wildtool_core::runner::redact::Redactor;

impl AppState {
    /// Starts a run with the setup form's settings.
    pub fn start_run(&mut self, now: Now) -> Vec<Effect> {
        self.start_with(None, Vec::new(), now)
    }

    fn start_with(
        &mut self,
        resume: Option<HistoryEntry>,
        stored: Vec<String>,
        now: Now,
    ) -> Vec<Effect> {
        let Some(dataset) = self.dataset else {
            self.say("Load a dataset first.", Tone::Error);
            return Vec::new();
        };
        // Runs are scored in the lab module: load it first.
        if let Some(fx) = self.run_waits_for_scorer(&resume, &stored) {
            return fx;
        }
        // A streamed run reads its streams in the lab module: load it first.
        let streams = self.setup.stream && !self.setup.is_builtin();
        // A cassette is recorded or replayed in the lab module, and every run logs its
        // exchanges there for its manifest (a built-in agent's log is empty: no request
        // leaves the page): load it first (a run that only logs starts without it when
        // it cannot be loaded).
        let http = !self.setup.is_builtin();
        let needs = streams || (http && (self.cassette.record || self.cassette.replay.is_some()));
        let taping = needs || !self.cassette.no_lab;
        if taping && self.stream_call.is_none() {
            self.awaiting_readers = Some((resume, stored));
            return vec![Effect::Lab {
                call: wildtool_contract::Call::StreamRead,
                input: r#"{"op": "close", "id": 0}"#.to_owned(),
                purpose: crate::msg::LabPurpose::StreamReaders,
            }];
        }
        if self
            .run
            .as_ref()
            .is_some_and(|r| r.active() || r.phase == Phase::Finishing)
        {
            self.say("A run is already in progress.", Tone::Warn);
            return self.go_view(View::Run);
        }
        // An env run answers its tool calls in the lab module: load it first.
        if let Some(fx) = self.env_prepare(resume.clone(), stored.clone()) {
            return fx;
        }
        let spec = match spec_from_form(
            &self.setup,
            &dataset.fingerprint,
            resume.as_ref().map(|e| e.model.as_str()),
        ) {
            Ok(s) => s,
            Err(e) => {
                self.say(format!("Cannot start: {e}."), Tone::Error);
                self.focus = Some("status".into());
                return Vec::new();
            }
        };
        let env = self.env_wanted();
        let sessions: Vec<&'static wildtool_core::dataset::Session> = if env {
            self.env_sessions()
        } else {
            dataset.dataset.sessions.iter().collect()
        };
        let env_live = env.then(|| crate::env::EnvLive {
            history: self.setup.history.clone(),
            skipped: (dataset.dataset.sessions.len() - sessions.len()) as u64,
            tasks: sessions.iter().map(|s| s.tasks.len() as u64).sum(),
        });
        if env && sessions.is_empty() {
            self.say(
                "Cannot start: no session of this dataset has a ledger environment (ledger_env).",
                Tone::Error,
            );
            return Vec::new();
        }
        let model = spec.model().to_owned();
        let backend = spec.backend().clone();
        let built = match &env_live {
            Some(e) => Engine::new_env(
                &sessions,
                spec,
                &stored,
                now.mono,
                wildtool_core::runner::env_checkpoint::EnvMode {
                    env_version: self.env.version_for(&e.history),
                    history: e.history.clone(),
                },
            ),
            None => Engine::new(&sessions, spec, &stored, now.mono),
        };
        // Own history: each task continues the session's own conversation.
        let built = match env_live.as_ref().is_some_and(|e| e.history == "own") {
            true => built.map(|e| e.with_own_history(wildtool_core::protocol::start_own)),
            false => built,
        };
        let engine = match built {
            Ok(mut e) => {
                if let Some(call) = &self.stream_call {
                    e.set_stream_readers(Box::new(crate::run::readers::LabReaders::new(
                        call.clone(),
                    )));
                }
                e
            }
            Err(e) => {
                self.say(format!("Cannot start: {e}."), Tone::Error);
                return Vec::new();
            }
        };
        let agents = matches!(backend, Backend::Agent(_));
        let tape = match &self.cassette_call {
            Some(call) if taping => {
                // Cassettes hold an endpoint's replies: a built-in agent only logs.
                let replay = (!agents)
                    .then(|| self.cassette.replay.as_ref().map(|(_, t)| t.as_str()))
                    .flatten();
                let record = self.cassette.record && !agents;
                match crate::run::cassette::Tape::start(call, replay, record) {
                    Ok(t) => Some(t),
                    Err(e) => {
                        self.say(format!("Cannot start: {e}."), Tone::Error);
                        return Vec::new();
                    }
                }
            }
            _ => None,
        };
        let replaying = tape.as_ref().is_some_and(|t| t.replay);
        let (auth, redactor) = match &backend {
            Backend::Http { provider, .. } => {
                // The key typed for this endpoint, or the one remembered for its origin.
                let key = self.setup.key_for(&self.setup.effective_base_url());
                let auth = (!key.is_empty()).then(|| {
                    let (name, value) = provider.auth().header(&key);
                    (name.to_owned(), value)
                });
                (auth, Redactor::new([key]))
            }
            Backend::Agent(_) => (None, Redactor::default()),
        };
        let id = match &resume {
            Some(e) => e.id.clone(),
            None => self.history.new_id("run"),
        };
        let progress = engine.progress(now.mono);
        let (hosts, probes) = match &backend {
            Backend::Http {
                base_url, provider, ..
            } if !replaying => {
                let pool = HostPool::new(base_url, progress.concurrency_max, auth.is_none());
                let probes = pool.probes(&id, *provider, base_url);
                (Some(pool), probes)
            }
            _ => (None, Vec::new()),
        };
        let entry = match resume {
            Some(mut e) => {
                e.status = "running".into();
                e
            }
            None => HistoryEntry {
                id: id.clone(),
                label: model.clone(),
                model: model.clone(),
                kind: if env { crate::env::ENV_KIND } else { "live" }.into(),
                provider: Some(self.setup.provider.clone()),
                endpoint_host: match &backend {
                    Backend::Http { base_url, .. } => Some(base_url.host().to_owned()),
                    Backend::Agent(_) => None,
                },
                base_url: match &backend {
                    Backend::Http { .. } => Some(self.setup.effective_base_url()),
                    Backend::Agent(_) => None,
                },
                settings: Some(settings_map(&self.setup)),
                dataset_fingerprint: dataset.fingerprint.clone(),
                dataset_name: dataset.source.display(),
                dataset_source: Some(dataset.source.clone()),
                lang: crate::data::lang_name(dataset.lang).to_owned(),
                started_ms: now.unix_ms,
                finished_ms: None,
                duration_s: None,
                input_tokens: 0,
                output_tokens: 0,
                requests: 0,
                wildtool_version: env!("CARGO_PKG_VERSION").to_owned(),
                scorer_version: wildtool_core::SCORER_VERSION.to_owned(),
                status: "running".into(),
                reason: None,
                tasks_scored: 0,
                tasks_total: dataset.tasks as u64,
                tasks_saved: 0,
                task_accuracy: None,
                session_accuracy: None,
                has_checkpoint: true,
                has_result_text: false,
                resumable: true,
                concurrency: None,
                first_token: None,
            },
        };
        let sessions_job = ScoreJob::new(dataset);
        self.history.put(entry.clone());
        self.flags.resume = None;
        self.run = Some(LiveRun {
            id: id.clone(),
            model: model.clone(),
            provider: self.setup.provider.clone(),
            phase: Phase::Running,
            min_limit: progress.concurrency_limit,
            progress,
            records: stored,
            entry,
            sofar: None,
            end: None,
            last_error: None,
            redactor,
            hosts,
            check: None,
            env: env_live,
            decreases: 0,
            engine,
            auth,
            agents,
            wake_at: None,
            sessions_job,
            final_job: None,
            trial_jobs: Vec::new(),
            trial_texts: Vec::new(),
            result_text: String::new(),
            started_mono: now.mono,
            tape,
        });
        self.say(format!("Running {model}…"), Tone::Info);
        let mut fx = self.go(Route::view(View::Run));
        self.focus = Some("run-title".into());
        fx.extend(probes.into_iter().map(Effect::Aux));
        fx.extend(self.drive(now));
        fx
    }

    /// A probe of another host name for the live run's server answered: requests held
    /// back while probing go out.
    pub fn alias_probed(&mut self, run: &str, name: &str, reply: &Reply, now: Now) -> Vec<Effect> {
        let Some(live) = self.run.as_mut().filter(|r| r.id == run) else {
            return Vec::new();
        };
        if let Some(pool) = &mut live.hosts {
            pool.probed(name, reply);
        }
        if live.active() {
            self.drive(now)
        } else {
            Vec::new()
        }
    }

    /// Resumes a stored run (loads its checkpoint lines first).
    pub fn resume_stored(&mut self, id: &str) -> Vec<Effect> {
        let Some(entry) = self.history.get(id).cloned() else {
            return Vec::new();
        };
        match self.dataset {
            Some(d) if d.fingerprint == entry.dataset_fingerprint => {}
            _ => {
                if let Some(src) = entry.dataset_source.clone().filter(|s| s.url().is_some()) {
                    self.pending_resume = Some(id.to_owned());
                    return self.fetch_dataset(src, entry.lang.clone());
                }
                if let Some(crate::data::DatasetSource::Generated { spec }) = &entry.dataset_source
                {
                    self.pending_resume = Some(id.to_owned());
                    return self.generate_dataset(spec.clone(), Now::default());
                }
                self.say(
                    format!(
                        "Load the dataset this run used ({}, fingerprint {}) in Setup, then resume.",
                        entry.dataset_name, entry.dataset_fingerprint
                    ),
                    Tone::Error,
                );
                return Vec::new();
            }
        }
        if let Some(settings) = &entry.settings {
            for (k, field) in [
                ("provider", crate::field::Field::Provider),
                ("temperature", crate::field::Field::Temperature),
                ("concurrency", crate::field::Field::Concurrency),
                ("timeout", crate::field::Field::Timeout),
                ("retries", crate::field::Field::Retries),
                ("backoff", crate::field::Field::Backoff),
                ("trials", crate::field::Field::Trials),
                ("preflight", crate::field::Field::Preflight),
                ("env", crate::field::Field::Env),
                ("history", crate::field::Field::History),
            ] {
                if let Some((_, v)) = settings.iter().find(|(n, _)| n == k) {
                    let _ = self.setup.set(field, v);
                }
            }
        }
        self.setup.model = entry.model.clone();
        if let Some(url) = entry.base_url.clone().filter(|u| !u.is_empty()) {
            if self.setup.base_url.trim() != url {
                let _ = self.setup.set(crate::field::Field::BaseUrl, &url);
            }
        }
        vec![Effect::KvList(
            crate::history::checkpoint_prefix(id),
            ListPurpose::Resume(id.to_owned()),
        )]
    }

    /// The stored lines of a run to resume arrived.
    pub fn resume_with(
        &mut self,
        id: &str,
        entries: Vec<(String, String)>,
        now: Now,
    ) -> Vec<Effect> {
        let Some(entry) = self.history.get(id).cloned() else {
            return Vec::new();
        };
        let lines: Vec<String> = entries.into_iter().map(|(_, v)| v).collect();
        self.start_with(Some(entry), lines, now)
    }

    /// Pauses or resumes the live run.
    pub fn pause_run(&mut self, now: Now) -> Vec<Effect> {
        let Some(run) = &mut self.run else {
            return Vec::new();
        };
        match run.phase {
            Phase::Running => {
                run.engine.pause(now.mono);
                run.phase = Phase::Paused;
                run.entry.status = "paused".into();
            }
            Phase::Paused => {
                run.engine.resume(now.mono);
                run.phase = Phase::Running;
                run.entry.status = "running".into();
            }
            _ => return Vec::new(),
        }
        let mut fx = self.drive(now);
        fx.extend(self.store_meta());
        fx
    }

    /// Cancels the live run: in-flight requests are aborted at once.
    pub fn cancel_run(&mut self, now: Now) -> Vec<Effect> {
        let Some(run) = &mut self.run else {
            return Vec::new();
        };
        if !run.active() {
            return Vec::new();
        }
        run.engine.cancel(now.mono);
        self.drive(now)
    }

    /// A reply for the live run.
    pub fn run_reply(&mut self, id: u64, reply: Reply, now: Now) -> Vec<Effect> {
        let Some(run) = &mut self.run else {
            return Vec::new();
        };
        if let Some(pool) = &mut run.hosts {
            pool.release(id);
        }
        let mut reply = match reply {
            Reply::Response(mut r) if !run.redactor.is_empty() => {
                r.body = run.redactor.redact(&r.body);
                Reply::Response(r)
            }
            other => other,
        };
        if let (Some(tape), Some(call)) = (&mut run.tape, &self.cassette_call) {
            tape.replied(call, id, &mut reply, now.mono);
        }
        run.engine.handle_reply(RequestId(id), reply, now.mono);
        self.drive(now)
    }

    /// Installs the lab module's stream readers (the glue, once the module is loaded).
    pub fn install_stream_call(&mut self, call: crate::run::readers::StreamCall) {
        self.stream_call = Some(call);
    }

    /// The stream readers are ready (or could not be loaded): a waiting run starts.
    pub fn stream_readers_ready(&mut self, result: Result<(), String>, now: Now) -> Vec<Effect> {
        let Some((resume, stored)) = self.awaiting_readers.take() else {
            return Vec::new();
        };
        match result {
            Ok(()) if self.stream_call.is_some() => self.start_with(resume, stored, now),
            Ok(()) => Vec::new(),
            Err(_)
                if !self.setup.stream
                    && !self.cassette.record
                    && self.cassette.replay.is_none() =>
            {
                self.cassette.no_lab = true;
                self.start_with(resume, stored, now)
            }
            Err(e) => {
                self.say(
                    format!("Cannot start a streamed run: the stream readers could not be loaded ({e})."),
                    Tone::Error,
                );
                Vec::new()
            }
        }
    }

    /// A part of a streamed response of the live run.
    pub fn run_stream(&mut self, id: u64, part: StreamIn, now: Now) -> Vec<Effect> {
        let Some(run) = &mut self.run else {
            return Vec::new();
        };
        let rid = RequestId(id);
        let mut tape = run.tape.as_mut().zip(self.cassette_call.as_ref());
        match part {
            StreamIn::Head(head) => {
                if let Some((t, call)) = &mut tape {
                    t.stream(call, id, Some(head.status), &[], None);
                }
                run.engine.handle_head(rid, head, now.mono)
            }
            StreamIn::Bytes(bytes) => {
                let bytes = run.redactor.redact_bytes(&bytes);
                if let Some((t, call)) = &mut tape {
                    t.stream(call, id, None, &bytes, None);
                }
                run.engine.handle_bytes(rid, &bytes, now.mono)
            }
            StreamIn::End => {
                if let Some((t, call)) = &mut tape {
                    t.stream(call, id, None, &[], Some(now.mono));
                }
                if let Some(pool) = &mut run.hosts {
                    pool.release(id);
                }
                run.engine.handle_end(rid, now.mono);
            }
        }
        self.drive(now)
    }

    /// The live run's timer fired.
    pub fn run_tick(&mut self, now: Now) -> Vec<Effect> {
        let Some(run) = &mut self.run else {
            return Vec::new();
        };
        run.wake_at = None;
        run.engine.handle_timeout(now.mono);
        self.drive(now)
    }

    /// The built-in agents take their next steps.
    pub fn run_agents(&mut self, now: Now) -> Vec<Effect> {
        let Some(run) = &mut self.run else {
            return Vec::new();
        };
        if run.phase == Phase::Running {
            run.engine.step_agents(AGENT_BUDGET, now.mono);
        }
        self.drive(now)
    }

    /// Holds a run until the scorer (the lab module) is loaded; `None` when it is (the run
    /// starts now).
    fn run_waits_for_scorer(
        &mut self,
        resume: &Option<HistoryEntry>,
        stored: &[String],
    ) -> Option<Vec<Effect>> {
        if crate::scoring::ready() {
            return None;
        }
        self.awaiting_scorer = Some((resume.clone(), stored.to_vec()));
        self.say(
            "Loading the scorer (the page's lab module) before the run starts…",
            Tone::Info,
        );
        Some(self.load_scorer())
    }

    /// True while a run's start waits for a module to load (the scorer, the stream
    /// readers or the ledger environment); it starts once that module has.
    pub fn run_start_pending(&self) -> bool {
        self.awaiting_scorer.is_some() || self.awaiting_readers.is_some() || self.env_run_pending()
    }

    /// Starts a run that waited for a module (stream readers, the ledger environment).
    pub(crate) fn start_again(
        &mut self,
        resume: Option<HistoryEntry>,
        stored: Vec<String>,
        now: Now,
    ) -> Vec<Effect> {
        self.start_with(resume, stored, now)
    }

    /// Drains the engine's outputs into effects and state.
    fn drive(&mut self, now: Now) -> Vec<Effect> {
        self.env_answer_calls(now);
        let mut fx = Vec::new();
        let mut puts: Vec<(String, String)> = Vec::new();
        let mut finished = None;
        let mut sessions = Vec::new();
        let call = self.cassette_call.clone();
        {
            let Some(run) = &mut self.run else {
                return fx;
            };
            // While other host names are being probed, the browser gets no more requests
            // than the names known so far can carry (the rest would queue behind them).
            while !run.hosts.as_ref().is_some_and(HostPool::saturated) {
                let Some(mut t) = run.engine.poll_transmit(now.mono) else {
                    break;
                };
                if let Some(pool) = &mut run.hosts {
                    t.request.url = pool.assign(t.id.0, &t.request.url);
                }
                if let (Some(tape), Some(call)) = (&mut run.tape, &call) {
                    if tape.replay {
                        replay(&mut run.engine, call, &t, now);
                        continue;
                    }
                    tape.sent(&t, now.mono);
                }
                fx.push(Effect::Send(Outgoing {
                    transmit: t,
                    auth: run.auth.clone(),
                }));
            }
            run.engine.handle_timeout(now.mono);
            while let Some(id) = run.engine.poll_abort() {
                if let Some(pool) = &mut run.hosts {
                    pool.release(id.0);
                }
                fx.push(Effect::Abort(id.0));
            }
            while let Some(ev) = run.engine.poll_event() {
                match ev {
                    Event::Persist(line) => {
                        puts.push((checkpoint_key(&run.id, run.records.len()), line.clone()));
                        run.records.push(line);
                    }
                    Event::TaskSettled {
                        reason, finished, ..
                    } => {
                        if !finished {
                            run.last_error = reason.map(|r| run.redactor.redact(&r));
                        }
                    }
                    // Results so far show trial 1 (the run's headline trial).
                    Event::SessionComplete {
                        trial, result_line, ..
                    } => {
                        if trial <= 1 && run.env.is_none() {
                            sessions.push(result_line);
                        }
                    }
                    Event::Progress(p) => {
                        if let Some(f) = &p.last_failure {
                            run.last_error = Some(run.redactor.redact(f));
                        }
                        if p.concurrency_limit < run.progress.concurrency_limit {
                            run.decreases += 1;
                        }
                        run.min_limit = run.min_limit.min(p.concurrency_limit);
                        run.progress = p;
                    }
                    Event::Finished(end) => {
                        if let Some(text) = run.tape.as_mut().and_then(|t| t.take_text()) {
                            self.cassette.recorded = Some(text);
                        }
                        finished = Some(end);
                    }
                }
            }
            if !run.engine.is_finished() {
                // Requests sent since the last event count as in flight at once.
                run.progress = run.engine.progress(now.mono);
            }
            let wake = run.engine.poll_timeout();
            if wake != run.wake_at {
                run.wake_at = wake;
                if let Some(at) = wake {
                    fx.push(Effect::WakeAt(at));
                }
            }
            if run.agents && run.phase == Phase::Running && !run.engine.is_finished() {
                fx.push(Effect::AgentsSoon);
            }
            for line in sessions {
                let n = run.sessions_job.scored_lines() + run.sessions_job.queued() + 1;
                run.sessions_job.push(n, line);
            }
            if !puts.is_empty() {
                run.entry.tasks_saved = run.records.len().saturating_sub(1) as u64;
                run.entry.requests = run.progress.requests;
                run.entry.input_tokens = run.progress.input_tokens;
                run.entry.output_tokens = run.progress.output_tokens;
                run.entry.concurrency = run.concurrency_meta();
                run.entry.first_token = run.progress.first_token;
                puts.push((
                    meta_key(&run.id),
                    serde_json::to_string(&run.entry).unwrap_or_default(),
                ));
            }
        }
        if !puts.is_empty() {
            fx.push(Effect::KvPut(puts));
        }
        fx.extend(self.run_continue_scoring(now));
        if let Some(end) = finished {
            fx.extend(self.run_finished(end, now));
        }
        fx
    }

    fn store_meta(&mut self) -> Vec<Effect> {
        let Some(run) = &self.run else {
            return Vec::new();
        };
        let json = serde_json::to_string(&run.entry).unwrap_or_default();
        self.history.put(run.entry.clone());
        vec![Effect::KvPut(vec![(meta_key(&run.id), json)])]
    }

    /// Scores completed sessions (results so far) and, at the end, the result file.
    pub fn run_continue_scoring(&mut self, now: Now) -> Vec<Effect> {
        let mut fx = Vec::new();
        let Some(run) = &mut self.run else {
            return fx;
        };
        let finishing = run.final_job.is_some();
        let mut job = match &mut run.final_job {
            Some(j) => j,
            None => &mut run.sessions_job,
        };
        let mut step = job.run(32);
        if step == JobStep::Idle && finishing {
            // Then the later trials, one after the other.
            let waiting = run.trial_jobs.iter().filter(|j| j.queued() > 0).count();
            if let Some(j) = run.trial_jobs.iter_mut().find(|j| j.queued() > 0) {
                step = j.run(32);
                job = j;
                if step == JobStep::Idle && waiting > 1 {
                    step = JobStep::More;
                }
            }
        }
        match step {
            JobStep::NeedsJieba => {
                let text = job.next_text().unwrap_or("").to_owned();
                self.needs_jieba(&text, &mut fx);
                return fx;
            }
            JobStep::More => {
                fx.push(Effect::ContinueSoon);
                return fx;
            }
            JobStep::Idle => {}
        }
        if run.final_job.is_some() {
            fx.extend(self.run_complete(now));
        } else if let Some(d) = self.dataset {
            let outcomes = run.sessions_job.outcomes();
            if !outcomes.is_empty()
                && run.sofar.as_ref().map(|s| s.headline.tasks_scored)
                    != Some(outcomes.len() as u64)
            {
                run.sofar = Some(ShownRun::new(
                    crate::dashboard::RunIdent {
                        id: run.id.clone(),
                        label: run.model.clone(),
                        model: run.model.clone(),
                        kind: RunKind::Live,
                    },
                    d,
                    &outcomes,
                    None,
                    None,
                ));
            }
        }
        fx
    }

    /// The run's files could not be scored (the Chinese dictionary did not load): the
    /// run ends without a dashboard; its checkpoint stays stored (reload to score it).
    pub fn run_scoring_failed(&mut self, why: &str) -> Vec<Effect> {
        let Some(run) = &mut self.run else {
            return Vec::new();
        };
        if run.final_job.take().is_none() {
            return Vec::new();
        }
        run.phase = Phase::Ended;
        run.end = Some(EndNote {
            outcome: "failed".into(),
            reason: Some(format!(
                "{why}; the run's checkpoint is kept: open it from the History after a reload"
            )),
            fix: None,
        });
        self.focus = Some("run-failure".into());
        Vec::new()
    }

    fn run_finished(&mut self, end: crate::run::engine::RunEnd, now: Now) -> Vec<Effect> {
        if self.run.as_ref().is_some_and(|r| r.env.is_some()) {
            return self.env_finished(end, now);
        }
        let Some(dataset) = self.dataset else {
            return Vec::new();
        };
        let Some(run) = &mut self.run else {
            return Vec::new();
        };
        let outcome = match end.status {
            RunStatus::Done => "done",
            RunStatus::Partial => "incomplete",
            RunStatus::Cancelled => "cancelled",
            RunStatus::Failed => "failed",
        };
        run.progress = end.progress.clone();
        run.min_limit = end.concurrency.min_limit;
        run.check = end.preflight.map(|c| c.label());
        run.decreases = end.concurrency.decreases;
        run.end = Some(EndNote {
            outcome: outcome.to_owned(),
            reason: end
                .reason
                .as_deref()
                .filter(|r| !r.trim().is_empty())
                .map(|r| run.redactor.redact(r))
                .or_else(|| {
                    (end.status == RunStatus::Failed).then(|| {
                        run.last_error
                            .clone()
                            .unwrap_or_else(|| "no task could be finished".to_owned())
                    })
                }),
            // The core's key fix names the CLI's environment variable; the page has a field.
            fix: end
                .fix
                .as_deref()
                .map(|f| match f.split_once(" (the CLI reads") {
                    Some((head, _)) => format!("{head}: type it in Setup's API key field"),
                    None => run.redactor.redact(f),
                }),
        });
        run.result_text = end
            .trials
            .first()
            .map(|a| a.text.clone())
            .unwrap_or_default();
        let mut job = ScoreJob::new(dataset);
        for (i, l) in run.result_text.lines().enumerate() {
            job.push(i + 1, l.to_owned());
        }
        run.final_job = Some(job);
        run.trial_texts = end.trials.iter().skip(1).map(|t| t.text.clone()).collect();
        run.trial_jobs = end
            .trials
            .iter()
            .skip(1)
            .map(|t| {
                let mut job = ScoreJob::new(dataset);
                for (i, l) in t.text.lines().enumerate() {
                    job.push(i + 1, l.to_owned());
                }
                job
            })
            .collect();
        run.phase = Phase::Finishing;
        self.run_continue_scoring(now)
    }

    /// The result file is scored: show the run (or its failure) and keep it.
    fn run_complete(&mut self, now: Now) -> Vec<Effect> {
        let Some(dataset) = self.dataset else {
            return Vec::new();
        };
        let Some(run) = &mut self.run else {
            return Vec::new();
        };
        let Some(job) = run.final_job.take() else {
            return Vec::new();
        };
        run.phase = Phase::Ended;
        let mut scored = job.finish(Some(&run.model));
        scored.result_text = Some(std::mem::take(&mut run.result_text));
        scored.records = Some(run.records.clone());
        let outcomes = scored.outcomes.clone();
        let end = run.end.clone().unwrap_or_default();
        let shown = ShownRun::new(
            crate::dashboard::RunIdent {
                id: run.id.clone(),
                label: run.entry.label.clone(),
                model: run.model.clone(),
                kind: RunKind::Live,
            },
            dataset,
            &outcomes,
            Some(scored),
            Some(end.clone()),
        );
        let failed = end.outcome == "failed" || shown.headline.tasks_scored == 0;
        let mut entry = run.entry.clone();
        entry.status = if failed {
            "failed".into()
        } else if end.outcome == "cancelled" {
            "cancelled".into()
        } else {
            shown.headline.status.as_str().to_owned()
        };
        entry.reason = end.reason.clone();
        entry.finished_ms = Some(now.unix_ms);
        entry.duration_s = Some(now.mono - run.started_mono);
        entry.tasks_scored = shown.headline.tasks_scored;
        entry.tasks_total = shown.headline.tasks_total;
        entry.task_accuracy = shown.headline.task_accuracy.clone();
        entry.session_accuracy = shown.headline.session_accuracy.clone();
        entry.requests = run.progress.requests;
        entry.input_tokens = run.progress.input_tokens;
        entry.output_tokens = run.progress.output_tokens;
        entry.resumable = shown.headline.tasks_scored < shown.headline.tasks_total;
        entry.concurrency = run.concurrency_meta();
        entry.first_token = run.progress.first_token;
        run.entry = entry.clone();
        let entry_json = serde_json::to_string(&entry).unwrap_or_default();
        // Repeated trials: every later trial's score files (trial 1 is the one shown).
        let later: Vec<crate::scoring::Scored> = run
            .trial_jobs
            .drain(..)
            .map(|j| j.finish(Some(&run.model)))
            .collect();
        let later_texts = std::mem::take(&mut run.trial_texts);
        // The run's manifest, from the lab module's log of its exchanges: one output per
        // trial.
        let manifest = match (&run.tape, &self.cassette_call) {
            (Some(tape), Some(call)) => {
                let s = shown.scored.as_ref();
                let file = match tape.mode() {
                    Some("replay") => self.cassette.replay.as_ref().map_or("", |(n, _)| n),
                    _ => "cassette.jsonl",
                };
                tape.manifest(
                    call,
                    &entry_json,
                    [
                        s.and_then(|x| x.result_text.clone()),
                        s.map(|x| x.score_jsonl()),
                        s.map(|x| x.metric.clone()),
                    ],
                    later
                        .iter()
                        .zip(later_texts.iter())
                        .map(|(x, text)| {
                            [
                                Some(text.clone()),
                                Some(x.score_jsonl()),
                                Some(x.metric.clone()),
                            ]
                        })
                        .collect(),
                    run.progress.resumed,
                    file,
                )
            }
            _ => None,
        };
        let mut shown = shown;
        shown.manifest = manifest.clone();
        let mut puts = vec![
            (
                outcomes_key(&entry.id),
                serde_json::to_string(&shown.outcomes).unwrap_or_default(),
            ),
            (meta_key(&entry.id), entry_json),
        ];
        if let Some(m) = manifest {
            puts.push((crate::history::manifest_key(&entry.id), m));
        }
        // Repeated trials: every trial's outcomes (trial 1 is the one shown).
        let later: Vec<Vec<wildtool_core::outcome::TaskOutcome>> =
            later.into_iter().map(|x| x.outcomes).collect();
        if !later.is_empty() {
            let mut trials = vec![outcomes.clone()];
            trials.extend(later);
            puts.push((
                crate::lab::trials_key(&entry.id),
                serde_json::to_string(&trials).unwrap_or_default(),
            ));
            self.lab.keep_trials(&entry.id, trials);
        }
        self.history.put(entry);
        let mut fx = vec![Effect::KvPut(puts)];
        if failed {
            let reason = end.reason.clone().unwrap_or_default();
            self.say(format!("The run failed: {reason}"), Tone::Error);
            if let Some(run) = &mut self.run {
                run.sofar = None;
            }
            if !self.is_open("cors-help") {
                self.open.push("cors-help".into());
            }
            self.focus = Some("run-failure".into());
            // The dashboard holds the failed run (no rate, no link); the page stays here.
            let mut shown = shown;
            shown.set_layout(self.layout);
            self.shown = Some(shown);
            self.traces = Default::default();
            return fx;
        }
        let tone = if shown.headline.tasks_scored < shown.headline.tasks_total {
            Tone::Warn
        } else {
            Tone::Ok
        };
        self.say(
            format!(
                "Run {}: {}{}.",
                match end.outcome.as_str() {
                    "done" => "finished",
                    "cancelled" => "cancelled",
                    _ => "ended with unfinished tasks",
                },
                shown.headline.scored,
                shown
                    .headline
                    .task_accuracy
                    .as_deref()
                    .map(|a| format!(", task accuracy {a}"))
                    .unwrap_or_default()
            ),
            tone,
        );
        fx.extend(self.show(shown));
        fx
    }
}

/// Answers a request of a replayed run from the cassette: its recorded reply (a streamed
/// request gets the recorded event stream as its head, bytes and end) or the refusal.
fn replay(
    engine: &mut Engine,
    call: &crate::run::readers::StreamCall,
    t: &wildtool_core::runner::engine::Transmit,
    now: Now,
) {
    use crate::run::cassette::{response, Replayed, Tape};
    let unix = now.unix_ms / 1000.0;
    match Tape::answer(call, t) {
        Replayed::Reply(status, latency, body) if t.stream => {
            let mut head = wildtool_core::runner::http::HttpHead::new(status);
            head.now_unix = unix;
            engine.handle_head(t.id, head, now.mono);
            engine.handle_bytes(t.id, body.as_bytes(), now.mono);
            engine.handle_end(t.id, now.mono);
            let _ = latency;
        }
        Replayed::Reply(status, latency, body) => engine.handle_reply(
            t.id,
            Reply::Response(response(status, latency, body, unix)),
            now.mono,
        ),
        Replayed::Refused(why) => engine.handle_reply(t.id, Reply::Refused(why), now.mono),
    }
}
