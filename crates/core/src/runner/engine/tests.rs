//! The engine against scripted servers on a fake clock (no sockets, no threads): every
//! rule of the module documentation as a behaviour.

use std::collections::{BTreeMap, BTreeSet};

use super::*;
use crate::dataset::{load_dataset, Lang, LoadedDataset};
use crate::json::{dumps, loads, Escape, Map};
use crate::runner::agents::GoldAgent;
use crate::runner::checkpoint::{header_line, TaskRecord};
use crate::runner::driver::{run_task_async, AsyncResponder, Responder};
use crate::runner::exec::block_on;
use crate::runner::exec::LocalFuture;
use crate::runner::retry::GaveUp;

const MINI: &str = include_str!("../../../../../tests/fixtures/mini.jsonl");

fn mini() -> LoadedDataset {
    load_dataset(MINI, Lang::En)
}

fn http_settings(trials: u64) -> RunSettings {
    RunSettings {
        trials,
        timeout: 10.0,
        retries: 3,
        backoff: 0.5,
        preflight: false,
        ..RunSettings::new(
            "mock/model",
            "fp",
            BackendSettings::Http {
                provider: ProviderKind::OpenAi,
                base_url: "http://127.0.0.1:9/v1".to_owned(),
                temperature: 0.0,
                browser: false,
            },
        )
    }
}

fn spec(s: RunSettings) -> RunSpec {
    RunSpec::new(s).unwrap_or_else(|e| panic!("{e}"))
}

/// The step a request is for: assistant messages after the last user message.
fn step_of(messages: &[Value]) -> usize {
    let role = |m: &Value| {
        m.get("role")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    let start = messages
        .iter()
        .rposition(|m| role(m) == "user")
        .unwrap_or(0);
    messages[start..]
        .iter()
        .filter(|m| role(m) == "assistant")
        .count()
}

/// An OpenAI-compatible body answering `t` as the gold agent would; `trial_marker` is
/// added to the text of text replies (so trials can differ).
fn gold_body(ds: &LoadedDataset, t: &Transmit, suffix: &str) -> String {
    let body = loads(&t.request.body).unwrap_or(Value::Null);
    let messages = body
        .get("messages")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let tools = body.get("tools").cloned().unwrap_or(Value::Null);
    let key = t.task.unwrap_or(TaskKey {
        trial: 1,
        line: 0,
        task: 0,
    });
    let session = ds
        .sessions
        .iter()
        .find(|s| s.index == key.line)
        .unwrap_or_else(|| panic!("no session {}", key.line));
    let ctx = StepContext {
        session,
        task: key.task,
        step: step_of(&messages),
        messages: &messages,
        tools: &tools,
    };
    let reply = GoldAgent
        .respond(&ctx, &mut TaskStats::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let mut message = Map::new();
    message.insert("role", Value::str("assistant"));
    let content = match &reply.content {
        Value::Str(s) => Value::Str(format!("{s}{suffix}")),
        other => other.clone(),
    };
    message.insert("content", content);
    if let Some(calls) = reply.tool_calls.as_array() {
        message.insert("tool_calls", Value::Array(calls.clone()));
    }
    format!(
        r#"{{"choices": [{{"index": 0, "message": {}, "finish_reason": "stop"}}], "usage": {{"prompt_tokens": 10, "completion_tokens": 2}}}}"#,
        dumps(&Value::Object(message), Escape::Utf8)
    )
}

fn ok(body: String) -> Option<HttpReply> {
    Some(HttpReply::Response(HttpResponse::new(200, body)))
}

fn status(code: u16, body: &str) -> Option<HttpReply> {
    Some(HttpReply::Response(HttpResponse::new(code, body)))
}

/// Drives an engine on a fake clock. The server answers every transmit at once (or
/// never, with `None`); time jumps to the engine's next timer when nothing else happens.
struct Sim<'d> {
    engine: Engine<'d>,
    now: f64,
    events: Vec<Event>,
    transmits: Vec<Transmit>,
    aborted: Vec<RequestId>,
    peak_in_flight: usize,
}

impl<'d> Sim<'d> {
    fn new(sessions: &[&'d Session], spec: RunSpec, stored: &[String]) -> Self {
        let mut engine = Engine::new(sessions, spec, stored, 0.0).unwrap_or_else(|e| panic!("{e}"));
        engine.set_stream_readers(Box::new(crate::runner::stream::CoreReaders::default()));
        Self {
            engine,
            now: 0.0,
            events: Vec::new(),
            transmits: Vec::new(),
            aborted: Vec::new(),
            peak_in_flight: 0,
        }
    }

    fn drain(&mut self) {
        while let Some(id) = self.engine.poll_abort() {
            self.aborted.push(id);
        }
        while let Some(e) = self.engine.poll_event() {
            self.events.push(e);
        }
    }

    /// Takes every transmit the engine allows now.
    fn take(&mut self) -> Vec<Transmit> {
        let mut out = Vec::new();
        while let Some(t) = self.engine.poll_transmit(self.now) {
            out.push(t);
        }
        self.peak_in_flight = self
            .peak_in_flight
            .max(self.engine.progress(self.now).in_flight);
        self.transmits.extend(out.iter().cloned());
        self.drain();
        out
    }

    /// Runs until the end: `server(batch position, transmit)` answers each request.
    fn run(&mut self, mut server: impl FnMut(usize, &Transmit) -> Option<HttpReply>) -> RunEnd {
        for _ in 0..100_000 {
            self.engine.handle_timeout(self.now);
            self.drain();
            let batch = self.take();
            for (i, t) in batch.iter().enumerate() {
                if let Some(reply) = server(i, t) {
                    self.engine.handle_reply(t.id, reply, self.now);
                }
            }
            self.drain();
            if self.engine.is_finished() {
                return self.end();
            }
            if batch.is_empty() {
                match self.engine.poll_timeout() {
                    Some(t) => self.now = t.max(self.now),
                    None => panic!("stalled at {}", self.now),
                }
            }
        }
        panic!("did not finish")
    }

    fn end(&self) -> RunEnd {
        self.events
            .iter()
            .find_map(|e| match e {
                Event::Finished(end) => Some(end.clone()),
                _ => None,
            })
            .unwrap_or_else(|| panic!("no Finished event"))
    }

    fn persisted(&self) -> Vec<String> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::Persist(l) => Some(l.clone()),
                _ => None,
            })
            .collect()
    }
}

fn sessions(ds: &LoadedDataset) -> Vec<&Session> {
    ds.sessions.iter().collect()
}

/// The same scripted server as an async responder for the per-task loop.
struct LoopServer<'a> {
    ds: &'a LoadedDataset,
}

impl AsyncResponder for LoopServer<'_> {
    fn respond<'a>(
        &'a self,
        ctx: StepContext<'a>,
    ) -> LocalFuture<'a, (Result<Reply, GaveUp>, TaskStats)> {
        let seed = task_seed(ctx.session.index, ctx.task) ^ ((ctx.step as u64) << 48);
        let http = ProviderKind::OpenAi.build(
            &ChatRequest {
                model: "mock/model",
                temperature: 0.0,
                messages: ctx.messages,
                tools: ctx.tools,
            },
            &Endpoint {
                base_url: "http://127.0.0.1:9/v1".to_owned(),
                browser: false,
            },
        );
        let t = Transmit {
            id: RequestId(0),
            request: http,
            deadline: 0.0,
            task: Some(TaskKey {
                trial: 1,
                line: ctx.session.index,
                task: ctx.task,
            }),
            stream: false,
        };
        let body = gold_body(self.ds, &t, "");
        let mut ids = SeededIds::new(seed.wrapping_add(0x5EED));
        let reply =
            match Attempt::from_response(ProviderKind::OpenAi, 200, &body, None, 0.0, &mut ids) {
                Attempt::Done(r) => Ok(r),
                Attempt::Failed { message, .. } => Err(GaveUp {
                    attempts: 1,
                    last_error: message,
                    cancelled: false,
                }),
            };
        Box::pin(std::future::ready((
            reply,
            TaskStats {
                requests: 1,
                retries: 0,
            },
        )))
    }
}

fn record_key(line: &str) -> (u32, usize, usize) {
    TaskRecord::from_line(line)
        .map(|r| (r.trial, r.line, r.task))
        .unwrap_or((0, 0, 0))
}

#[test]
fn checkpoint_lines_equal_the_per_task_loop_and_events_follow_the_contract() {
    let ds = mini();
    let ss = sessions(&ds);
    let mut sim = Sim::new(&ss, spec(http_settings(1)), &[]);
    let end = sim.run(|_, t| ok(gold_body(&ds, t, "")));
    assert_eq!(end.status, RunStatus::Done);
    let lines = sim.persisted();
    assert_eq!(lines.len(), 33);
    assert_eq!(lines[0], header_line("mock/model", "fp"));
    // Every record equals the per-task loop's for the same answers (same prompts, ids,
    // latency aside: the fake clock makes every latency 0, as the loop's ready futures do).
    for line in &lines[1..] {
        let rec = TaskRecord::from_line(line).unwrap_or_else(|| panic!("{line}"));
        let session = ds.sessions.iter().find(|s| s.index == rec.line);
        let session = session.unwrap_or_else(|| panic!("session {}", rec.line));
        let run = block_on(run_task_async(session, rec.task, &LoopServer { ds: &ds }));
        assert_eq!(run.record.map(|r| r.to_line()).as_ref(), Some(line));
    }
    // One SessionComplete per session, with the assembled line; TaskSettled per task.
    let complete: Vec<(u32, usize, String)> = sim
        .events
        .iter()
        .filter_map(|e| match e {
            Event::SessionComplete {
                trial,
                line,
                result_line,
            } => Some((*trial, *line, result_line.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(complete.len(), 8);
    let assembled: Vec<&str> = end.trials[0].text.lines().collect();
    for (trial, line, text) in &complete {
        assert_eq!(*trial, 1);
        let idx = ds
            .sessions
            .iter()
            .position(|s| s.index == *line)
            .unwrap_or(99);
        assert_eq!(assembled.get(idx), Some(&text.as_str()));
    }
    let settled = sim
        .events
        .iter()
        .filter(|e| matches!(e, Event::TaskSettled { finished: true, .. }))
        .count();
    assert_eq!(settled, 32);
    assert!(matches!(sim.events.last(), Some(Event::Finished(_))));
    let p = &end.progress;
    assert_eq!((p.done, p.incomplete, p.total, p.resumed), (32, 0, 32, 0));
    assert_eq!(p.requests, sim.transmits.len() as u64);
    assert_eq!(p.input_tokens, 10 * p.requests);
    let labelled_correct = lines[1..]
        .iter()
        .filter(|l| l.contains("{\"action_name_label\": \"correct\""))
        .count() as u64;
    assert_eq!((p.names_correct, p.retries), (labelled_correct, 0));
    assert!(labelled_correct > 20);
    assert_eq!((end.tasks_total, end.tasks_scored), (32, 32));

    // Agents through step_agents give the same records as the per-task loop's agents.
    let mut gold = Engine::new(
        &ss,
        spec(RunSettings::new(
            "gold",
            "fp",
            BackendSettings::Agent(AgentKind::Gold),
        )),
        &[],
        0.0,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(gold.poll_transmit(0.0).is_none(), "agents send nothing");
    let mut steps = 0;
    while !gold.is_finished() {
        let n = gold.step_agents(7, 0.0);
        assert!(n <= 7);
        steps += n;
    }
    let mut persisted = Vec::new();
    while let Some(e) = gold.poll_event() {
        if let Event::Persist(l) = e {
            persisted.push(l);
        }
    }
    assert_eq!(persisted.len(), 33);
    for line in &persisted[1..] {
        let rec = TaskRecord::from_line(line).unwrap_or_else(|| panic!("{line}"));
        let session = ds.sessions.iter().find(|s| s.index == rec.line);
        let session = session.unwrap_or_else(|| panic!("session {}", rec.line));
        let run = crate::runner::driver::run_task(session, rec.task, &GoldAgent);
        assert_eq!(run.record.map(|r| r.to_line()).as_ref(), Some(line));
    }
    assert!(steps >= 32);
}

#[test]
fn resume_runs_only_missing_keys_and_other_runs_checkpoints_are_refused() {
    let ds = mini();
    let ss = sessions(&ds);
    let mut full = Sim::new(&ss, spec(http_settings(1)), &[]);
    let whole = full.run(|_, t| ok(gold_body(&ds, t, "")));
    let lines = full.persisted();
    // A checkpoint from before repeated trials (no "trial" field) with 5 records dropped.
    let stored: Vec<String> = lines[..lines.len() - 5].to_vec();
    let mut again = Sim::new(&ss, spec(http_settings(1)), &stored);
    assert!(
        !matches!(again.events.first(), Some(Event::Persist(_))),
        "no second header"
    );
    let end = again.run(|_, t| ok(gold_body(&ds, t, "")));
    let p = &end.progress;
    assert_eq!((p.total, p.resumed, p.done), (5, 27, 5));
    let rerun: BTreeSet<_> = again.persisted().iter().map(|l| record_key(l)).collect();
    let dropped: BTreeSet<_> = lines[lines.len() - 5..]
        .iter()
        .map(|l| record_key(l))
        .collect();
    assert_eq!(rerun, dropped);
    assert_eq!(end.trials[0].text, whole.trials[0].text);
    // Sessions complete in the checkpoint are announced at the start.
    let announced = again
        .events
        .iter()
        .filter(|e| matches!(e, Event::SessionComplete { .. }))
        .count();
    assert_eq!(announced, 8);

    let other = RunSettings {
        model: "another".to_owned(),
        ..http_settings(1)
    };
    let e = Engine::new(&ss, spec(other), &lines, 0.0).err();
    assert!(matches!(e, Some(EngineError::Checkpoint(_))), "{e:?}");
    let e = Engine::new(&[], spec(http_settings(1)), &[], 0.0).err();
    assert_eq!(e, Some(EngineError::NoSessions));
}

#[test]
fn trials_are_independent_keyed_and_resumable_per_trial() {
    let ds = mini();
    let ss = sessions(&ds);
    let mut one = Sim::new(&ss, spec(http_settings(1)), &[]);
    let single = one.run(|_, t| ok(gold_body(&ds, t, "")));
    // Answers of trials 2 and 3 carry a marker, so the trials' results differ.
    let marked = |t: &Transmit| {
        let trial = t.task.map_or(1, |k| k.trial);
        let suffix = if trial > 1 {
            format!(" (trial {trial})")
        } else {
            String::new()
        };
        ok(gold_body(&ds, t, &suffix))
    };
    let mut three = Sim::new(&ss, spec(http_settings(3)), &[]);
    let end = three.run(|_, t| marked(t));
    assert_eq!(end.status, RunStatus::Done);
    assert_eq!(end.trials.len(), 3);
    assert_eq!((end.tasks_total, end.tasks_scored), (96, 96));
    assert!(
        end.trials[0].text == single.trials[0].text,
        "trial 1 keeps the seeds of a run without trials"
    );
    assert!(end.trials[1].text != end.trials[0].text && end.trials[1].text.contains("(trial 2)"));
    let lines = three.persisted();
    assert_eq!(lines.len(), 97);
    let keys: BTreeSet<_> = lines[1..].iter().map(|l| record_key(l)).collect();
    assert_eq!(keys.len(), 96);
    for l in &lines[1..] {
        let (trial, _, _) = record_key(l);
        assert_eq!(l.contains("\"trial\": "), trial > 1, "{l}");
    }
    // Prompts with gold history differ between trials only by their history ids.
    let body_of = |trial: u32| {
        three
            .transmits
            .iter()
            .find(|t| {
                t.task
                    == Some(TaskKey {
                        trial,
                        line: 0,
                        task: 2,
                    })
            })
            .map(|t| t.request.body.clone())
            .unwrap_or_default()
    };
    assert!(body_of(1).contains("toolu_bdrk_"));
    assert!(body_of(1) != body_of(2) && body_of(2) != body_of(3));

    // Resume: drop every trial-2 record; only trial 2 runs again.
    let stored: Vec<String> = lines
        .iter()
        .filter(|l| record_key(l).0 != 2)
        .cloned()
        .collect();
    let mut again = Sim::new(&ss, spec(http_settings(3)), &stored);
    let end2 = again.run(|_, t| marked(t));
    assert!(again.persisted().iter().all(|l| record_key(l).0 == 2));
    assert_eq!(end2.progress.done, 32);
    for t in 0..3 {
        assert!(end2.trials[t].text == end.trials[t].text, "trial {}", t + 1);
    }
}

#[test]
fn non_retryable_statuses_are_not_retried_and_transient_ones_back_off() {
    let ds = mini();
    let one: Vec<&Session> = ds.sessions.iter().take(1).collect();
    for code in [400u16, 401, 403, 404, 422] {
        let mut sim = Sim::new(&one, spec(http_settings(1)), &[]);
        let end = sim.run(|_, _| status(code, r#"{"error": {"message": "no"}}"#));
        assert_eq!(end.status, RunStatus::Failed, "{code}");
        assert_eq!(end.progress.retries, 0, "{code} is not retried");
        assert_eq!(end.progress.requests, 4, "one request per task");
        assert!(end.incomplete[0]
            .reason
            .starts_with("gave up after 1 attempt(s): HTTP"));
    }
    for (code, body) in [
        (408u16, "x"),
        (409, "x"),
        (425, "x"),
        (429, "x"),
        (500, "x"),
        (503, "x"),
        (200, "{garbled"),
    ] {
        let mut sim = Sim::new(&one, spec(http_settings(1)), &[]);
        let end = sim.run(|_, _| status(code, body));
        assert_eq!(end.progress.retries, 12, "{code}: 3 retries per task");
        assert_eq!(end.progress.requests, 16, "{code}");
        // Backoff 0.5 s doubling with 50 % jitter: each task waits 0.25–0.5, 0.5–1, 1–2 s.
        assert!(
            sim.now >= 1.75 && sim.now <= 3.5 + 1e-9,
            "{code}: {}",
            sim.now
        );
    }
    // Network failures and aborts are retried too: every step fails twice, then works.
    let mut sim = Sim::new(&one, spec(http_settings(1)), &[]);
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let end = sim.run(|_, t| {
        let n = seen.entry(t.request.body.clone()).or_insert(0);
        *n += 1;
        match *n {
            1 => Some(HttpReply::Network(NetworkFailure {
                kind: NetworkKind::Unreachable,
                message: "connection refused".to_owned(),
            })),
            2 => Some(HttpReply::Aborted),
            _ => ok(gold_body(&ds, t, "")),
        }
    });
    assert_eq!(end.status, RunStatus::Done);
    assert_eq!(end.progress.retries, 2 * seen.len() as u64);
    // A redirect is never followed nor retried.
    let mut sim = Sim::new(&one, spec(http_settings(1)), &[]);
    let end = sim.run(|_, _| {
        let mut r = HttpResponse::new(307, "");
        r.location = Some("https://elsewhere.example/v1/chat/completions".to_owned());
        Some(HttpReply::Response(r))
    });
    assert_eq!((end.progress.requests, end.progress.retries), (4, 0));
    assert!(
        end.incomplete[0].reason.contains("redirect"),
        "{:?}",
        end.incomplete
    );
}

#[test]
fn retry_after_in_seconds_or_as_a_date_is_honoured_within_the_users_cap() {
    let ds = mini();
    let one: Vec<&Session> = ds.sessions.iter().take(1).collect();
    // backoff 0.5 s, 3 retries: the cap is min(0.5 · 2^2 = 2 s, timeout 10 s) = 2 s.
    let wait_after = |retry_after: &str, now_unix: f64| {
        let settings = RunSettings {
            concurrency: 1,
            ..http_settings(1)
        };
        let mut sim = Sim::new(&one, spec(settings), &[]);
        let t = sim.take();
        let mut r = HttpResponse::new(429, "{}");
        r.retry_after = Some(retry_after.to_owned());
        r.now_unix = now_unix;
        sim.engine
            .handle_reply(t[0].id, HttpReply::Response(r), sim.now);
        let p = sim.engine.progress(sim.now);
        assert_eq!(p.waiting, 1, "the wait is visible");
        assert_eq!(p.longest_wait, sim.engine.poll_timeout());
        sim.engine.poll_timeout().unwrap_or(-1.0)
    };
    let date = "Sun, 06 Nov 1994 08:49:37 GMT";
    let at = 784_111_777.0;
    assert_eq!(wait_after("1.5", 0.0), 1.5);
    assert_eq!(wait_after(date, at - 1.5), 1.5, "date form, 1.5 s ahead");
    assert_eq!(
        wait_after("Sunday, 06-Nov-94 08:49:37 GMT", at - 1.25),
        1.25
    );
    assert_eq!(wait_after("3600", 0.0), 2.0, "capped by the user's backoff");
    assert_eq!(wait_after(date, at - 3600.0), 2.0, "a far date too");
    let past = wait_after(date, at + 60.0);
    assert!(
        (0.25..=0.5).contains(&past),
        "a past date: plain backoff ({past})"
    );
    let timeout_capped = {
        // Own backoff up to 120 s, but the timeout (0.75 s) caps the server's request.
        let settings = RunSettings {
            concurrency: 1,
            timeout: 0.75,
            retries: 20,
            ..http_settings(1)
        };
        let mut sim = Sim::new(&one, spec(settings), &[]);
        let t = sim.take();
        let mut r = HttpResponse::new(503, "{}");
        r.retry_after = Some("1e9".to_owned());
        sim.engine
            .handle_reply(t[0].id, HttpReply::Response(r), 0.0);
        sim.engine.poll_timeout().unwrap_or(-1.0)
    };
    assert_eq!(timeout_capped, 0.75);
}

#[test]
fn timeouts_abort_the_request_and_count_as_transient_failures() {
    let ds = mini();
    let one: Vec<&Session> = ds.sessions.iter().take(1).collect();
    let settings = RunSettings {
        concurrency: 1,
        timeout: 2.0,
        retries: 1,
        ..http_settings(1)
    };
    let mut sim = Sim::new(&one, spec(settings), &[]);
    let end = sim.run(|_, _| None);
    assert_eq!(end.status, RunStatus::Failed);
    assert_eq!(end.progress.requests, 8, "1 retry per task, 4 tasks");
    assert_eq!(sim.aborted.len(), 8, "every timed-out request is aborted");
    assert!(end.incomplete.iter().all(|t| t
        .reason
        .starts_with("gave up after 2 attempt(s): timed out")));
    assert!(end
        .progress
        .last_failure
        .as_deref()
        .is_some_and(|f| f.contains("timed out")));
    // Deadlines are in the transmits and drive poll_timeout.
    assert!(sim.transmits.iter().all(|t| t.deadline > 0.0));
    // A late reply to an aborted request is ignored.
    let late = sim.transmits[0].id;
    let before = sim.engine.progress(sim.now);
    sim.engine.handle_reply(
        late,
        HttpReply::Response(HttpResponse::new(200, "")),
        sim.now,
    );
    assert_eq!(sim.engine.progress(sim.now), before);
}

#[test]
fn pause_stops_starting_tasks_and_cancel_ends_the_run_within_the_call() {
    let ds = mini();
    let ss = sessions(&ds);
    let settings = RunSettings {
        concurrency: 2,
        ..http_settings(1)
    };
    let mut sim = Sim::new(&ss, spec(settings), &[]);
    let first = sim.take();
    assert_eq!(first.len(), 2);
    sim.engine.pause(0.0);
    for t in &first {
        sim.engine.handle_reply(
            t.id,
            ok(gold_body(&ds, t, "")).unwrap_or(HttpReply::Aborted),
            0.0,
        );
    }
    // Started tasks go on (their next steps are sent), no new task starts.
    let mut started: BTreeSet<TaskKey> = first.iter().filter_map(|t| t.task).collect();
    for _ in 0..20 {
        let batch = sim.take();
        for t in &batch {
            started.extend(t.task);
            sim.engine.handle_reply(
                t.id,
                ok(gold_body(&ds, t, "")).unwrap_or(HttpReply::Aborted),
                0.0,
            );
        }
    }
    sim.drain();
    assert_eq!(started.len(), 2, "no new task while paused");
    assert!(!sim.engine.is_finished());
    assert!(sim.engine.progress(0.0).paused);
    assert!(sim.engine.poll_timeout().is_none(), "idle while paused");
    sim.engine.resume(0.0);
    let next = sim.take();
    assert_eq!(next.len(), 2, "resumed");

    // Cancel with requests in flight and one task waiting for a retry.
    sim.engine.handle_reply(
        next[0].id,
        HttpReply::Response(HttpResponse::new(503, "busy")),
        1.0,
    );
    assert_eq!(sim.engine.progress(1.0).waiting, 1);
    let in_flight = next[1].id;
    sim.engine.cancel(1.0);
    assert!(sim.engine.is_finished(), "over within the call");
    assert_eq!(sim.engine.poll_abort(), Some(in_flight));
    assert_eq!(sim.engine.poll_abort(), None);
    assert!(sim.engine.poll_transmit(1.0).is_none());
    assert!(
        sim.engine.poll_timeout().is_none(),
        "the retry wait is gone"
    );
    sim.drain();
    let end = sim.end();
    assert_eq!(end.status, RunStatus::Cancelled);
    assert_eq!(end.incomplete.len(), 2);
    assert!(end.incomplete.iter().all(|t| t.reason == "cancelled"));
    assert_eq!(end.progress.done, 2);
    // Finished tasks were persisted and are kept.
    assert_eq!(sim.persisted().len(), 3);
}

#[test]
fn the_circuit_breaker_stops_the_run_and_keeps_finished_tasks() {
    let ds = mini();
    let ss = sessions(&ds);
    let settings = RunSettings {
        concurrency: 1,
        ..http_settings(1)
    };
    // Everything 401: stops after 5 tasks, nothing scored → Failed.
    let mut sim = Sim::new(&ss, spec(settings.clone()), &[]);
    let end = sim.run(|_, _| status(401, r#"{"error": {"message": "Invalid key sk-…"}}"#));
    assert_eq!(end.status, RunStatus::Failed);
    assert_eq!(end.progress.requests, 5);
    let reason = end.reason.unwrap_or_default();
    assert!(
        reason.contains("5 tasks in a row") && reason.contains("HTTP 401"),
        "{reason}"
    );
    assert!(
        end.fix
            .as_deref()
            .is_some_and(|f| f.starts_with("check the API key")),
        "{:?}",
        end.fix
    );
    // The first two sessions work, then the key is revoked: Partial, finished tasks kept.
    let mut sim = Sim::new(&ss, spec(settings.clone()), &[]);
    let end = sim.run(|_, t| match t.task {
        Some(k) if k.line < 2 => ok(gold_body(&ds, t, "")),
        _ => status(401, r#"{"error": {"message": "revoked"}}"#),
    });
    assert_eq!(end.status, RunStatus::Partial);
    assert_eq!(end.trials[0].sessions, 2);
    assert_eq!(sim.persisted().len(), 1 + 8);
    // Different failures, or a success in between, do not trip it.
    let mut sim = Sim::new(&ss, spec(settings.clone()), &[]);
    let mut n = 0;
    let end = sim.run(|_, t| {
        n += 1;
        match t.task {
            Some(k) if k.task == 3 => ok(gold_body(&ds, t, "")),
            _ => status(if n % 2 == 0 { 401 } else { 404 }, "{}"),
        }
    });
    assert!(end
        .reason
        .as_deref()
        .is_some_and(|r| !r.contains("in a row")));
    // Threshold 0 turns it off.
    let off = RunSettings {
        breaker_threshold: 0,
        ..settings
    };
    let mut sim = Sim::new(&ss, spec(off), &[]);
    let end = sim.run(|_, _| status(401, "{}"));
    assert_eq!(end.progress.requests, 32);
}

/// A server that holds every request for 1 s and answers 429 at once when `limit`
/// requests are already being served. Returns the end and the peak concurrency the
/// server saw.
fn rate_limited_run(ds: &LoadedDataset, settings: RunSettings, limit: usize) -> (RunEnd, usize) {
    let ss = sessions(ds);
    let mut engine = Engine::new(&ss, spec(settings), &[], 0.0).unwrap_or_else(|e| panic!("{e}"));
    let mut now = 0.0;
    let mut serving: Vec<(f64, Transmit)> = Vec::new();
    let mut peak = 0;
    let mut end = None;
    for _ in 0..1_000_000 {
        engine.handle_timeout(now);
        while let Some(t) = engine.poll_transmit(now) {
            if serving.len() >= limit {
                let r = status(429, r#"{"error": {"message": "rate limited"}}"#);
                engine.handle_reply(t.id, r.unwrap_or(HttpReply::Aborted), now);
            } else {
                serving.push((now + 1.0, t));
                peak = peak.max(serving.len());
            }
        }
        while engine.poll_abort().is_some() {}
        while let Some(e) = engine.poll_event() {
            if let Event::Finished(e) = e {
                end = Some(e);
            }
        }
        if let Some(e) = end.take() {
            return (e, peak);
        }
        let next_reply = serving
            .iter()
            .map(|(at, _)| *at)
            .fold(f64::INFINITY, f64::min);
        let next = engine
            .poll_timeout()
            .unwrap_or(f64::INFINITY)
            .min(next_reply);
        assert!(next.is_finite(), "stalled");
        now = next;
        let (due, rest): (Vec<_>, Vec<_>) = serving.into_iter().partition(|(at, _)| *at <= now);
        serving = rest;
        for (_, t) in due {
            let body = gold_body(ds, &t, "");
            engine.handle_reply(t.id, HttpReply::Response(HttpResponse::new(200, body)), now);
        }
    }
    panic!("did not finish")
}

#[test]
fn adaptive_concurrency_backs_off_under_rate_limits_and_recovers() {
    // Started at 32 against a server that serves 4 at a time.
    let ds = mini();
    let settings = RunSettings {
        concurrency: 32,
        retries: 20,
        backoff: 0.1,
        ..http_settings(1)
    };
    let (end, peak) = rate_limited_run(&ds, settings.clone(), 4);
    assert_eq!(end.status, RunStatus::Done);
    assert!(peak <= 4);
    let c = end.concurrency;
    assert_eq!(c.max, 32);
    assert!(c.min_limit <= 4, "{c:?}");
    let answered = end.progress.requests - end.progress.retries;
    // The first burst is rejected once (32 − 4 = 28 retries); after that the limit sits
    // near the server's and each probe above it costs one retry.
    assert!(
        end.progress.retries <= 28 + answered / 2,
        "{} retries for {answered} answered requests ({c:?})",
        end.progress.retries
    );
    // Without adaptation the same server causes a retry storm.
    let fixed = RunSettings {
        adaptive: false,
        ..settings
    };
    let (storm, _) = rate_limited_run(&ds, fixed, 4);
    assert!(
        storm.progress.retries > 2 * end.progress.retries,
        "{} vs {}",
        storm.progress.retries,
        end.progress.retries
    );
    // When the limit is the configured concurrency, nothing is lowered.
    let (calm, peak) = rate_limited_run(&ds, http_settings(1), 8);
    assert_eq!(calm.progress.retries, 0);
    assert_eq!(calm.concurrency.decreases, 0);
    assert!(peak <= 8);
    // A single rejection halves the limit, which then grows back to the maximum.
    let mut first = true;
    let ss = sessions(&ds);
    let mut sim = Sim::new(&ss, spec(http_settings(1)), &[]);
    let end = sim.run(|i, t| {
        if first && i == 1 {
            first = false;
            return status(429, "{}");
        }
        ok(gold_body(&ds, t, ""))
    });
    assert_eq!(end.concurrency.min_limit, 4);
    assert_eq!(end.concurrency.final_limit, 8);
}

#[test]
fn the_preflight_runs_first_and_a_failure_ends_the_run_before_any_task() {
    let ds = mini();
    let ss = sessions(&ds);
    let with_preflight = RunSettings {
        preflight: true,
        ..http_settings(1)
    };
    let mut sim = Sim::new(&ss, spec(with_preflight.clone()), &[]);
    let end = sim.run(|_, t| {
        assert!(t.task.is_none(), "no task before the preflight passed");
        status(401, r#"{"error": {"message": "bad key"}}"#)
    });
    assert_eq!(end.status, RunStatus::Failed);
    assert_eq!(
        end.preflight,
        Some(crate::runner::preflight::PreflightClass::Auth)
    );
    assert_eq!(sim.transmits.len(), 1);
    assert!(end.reason.is_some() && end.fix.is_some());
    assert!(end.trials[0].text.is_empty());

    // Unreachable: fails at once, no retry.
    let mut sim = Sim::new(&ss, spec(with_preflight.clone()), &[]);
    let end = sim.run(|_, _| {
        Some(HttpReply::Network(NetworkFailure {
            kind: NetworkKind::Unreachable,
            message: "connection refused".to_owned(),
        }))
    });
    assert_eq!(
        end.preflight,
        Some(crate::runner::preflight::PreflightClass::Unreachable)
    );
    assert_eq!(sim.transmits.len(), 1);

    // A transient 503 is retried; then the run goes on.
    let mut sim = Sim::new(&ss, spec(with_preflight), &[]);
    let mut n = 0;
    let end = sim.run(|_, t| {
        n += 1;
        match (n, t.task) {
            (1, None) => status(503, "warming up"),
            (_, None) => ok(r#"{"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]}}]}"#.to_owned()),
            _ => ok(gold_body(&ds, t, "")),
        }
    });
    assert_eq!(end.status, RunStatus::Done);
    assert_eq!(sim.transmits.iter().filter(|t| t.task.is_none()).count(), 2);
    assert_eq!(end.progress.requests, sim.transmits.len() as u64);
}

#[test]
fn statuses_partial_and_failed_follow_the_counting_rule() {
    let ds = mini();
    let ss = sessions(&ds);
    // Session 2 is down (503 until retries run out): Partial, its tasks listed.
    let mut sim = Sim::new(&ss, spec(http_settings(1)), &[]);
    let end = sim.run(|_, t| match t.task {
        Some(k) if k.line == 2 => status(503, "down"),
        _ => ok(gold_body(&ds, t, "")),
    });
    assert_eq!(end.status, RunStatus::Partial);
    assert_eq!((end.tasks_total, end.tasks_scored), (32, 28));
    assert_eq!(end.incomplete.len(), 4);
    assert!(end
        .incomplete
        .iter()
        .all(|t| t.key.line == 2 && t.id == "wild_tool_bench_2"));
    assert_eq!(end.trials[0].sessions, 7);
    assert!(!end.trials[0].text.contains("wild_tool_bench_2\""));
    // A task of every session fails: nothing scored → Failed.
    let mut sim = Sim::new(&ss, spec(http_settings(1)), &[]);
    let end = sim.run(|_, t| match t.task {
        Some(k) if k.task == 0 => status(503, "down"),
        _ => ok(gold_body(&ds, t, "")),
    });
    assert_eq!(end.status, RunStatus::Failed);
    assert_eq!(end.tasks_scored, 0);
    assert!(end.progress.done > 0, "finished tasks are kept");
    assert!(end
        .reason
        .as_deref()
        .is_some_and(|r| r.contains("no task could be scored")));
    // Everything resumed: done at once.
    let mut full = Sim::new(&ss, spec(http_settings(1)), &[]);
    full.run(|_, t| ok(gold_body(&ds, t, "")));
    let done = Engine::new(&ss, spec(http_settings(1)), &full.persisted(), 0.0);
    assert!(done.is_ok_and(|e| e.is_finished()));
}

#[test]
fn oversized_replies_fail_without_retry_and_oversized_steps_end_their_task() {
    use crate::input::limits::{MAX_REPLY_BODY_BYTES, MAX_STEP_BYTES};
    let ds = mini();
    let one: Vec<&Session> = ds.sessions.iter().take(1).collect();
    // A body one byte over the limit, as a transport that read it all reports it, and the
    // same as a transport that stopped reading reports it: not retried, the limit named.
    let big = format!(
        r#"{{"choices": [{{"message": {{"role": "assistant", "content": "{}"}}}}]}}"#,
        "x".repeat(MAX_REPLY_BODY_BYTES)
    );
    assert!(big.len() > MAX_REPLY_BODY_BYTES);
    for stopped in [false, true] {
        let mut sim = Sim::new(&one, spec(http_settings(1)), &[]);
        let end = sim.run(|_, _| {
            Some(if stopped {
                HttpReply::TooLarge {
                    status: 200,
                    size: MAX_REPLY_BODY_BYTES as u64 + 4096,
                }
            } else {
                HttpReply::Response(HttpResponse::new(200, big.clone()))
            })
        });
        assert_eq!(end.status, RunStatus::Failed);
        assert_eq!((end.progress.requests, end.progress.retries), (4, 0));
        assert_eq!(end.incomplete.len(), 4);
        let reason = &end.incomplete[0].reason;
        assert!(
            reason.contains("the limit for a reply body is 16777216 bytes (16.0 MiB)"),
            "{reason}"
        );
    }
    // A preflight answered with an oversized body fails the run before any task.
    let mut s = http_settings(1);
    s.preflight = true;
    let mut sim = Sim::new(&one, spec(s), &[]);
    let end = sim.run(|_, _| {
        Some(HttpReply::TooLarge {
            status: 200,
            size: 1 << 30,
        })
    });
    assert_eq!(end.status, RunStatus::Failed);
    assert_eq!(end.progress.requests, 1);
    assert!(
        end.reason
            .as_deref()
            .is_some_and(|r| r.contains("reply body")),
        "{:?}",
        end.reason
    );
    // A body under the limit whose recorded step is over it: object arguments full of
    // quotes are re-encoded as text, and every quote is escaped once more in the log.
    let quotes = "\\\"".repeat(MAX_STEP_BYTES / 3);
    let step = format!(
        r#"{{"choices": [{{"message": {{"role": "assistant", "content": null, "tool_calls": [{{"id": "c1", "type": "function", "function": {{"name": "f", "arguments": {{"q": "{quotes}"}}}}}}]}}}}]}}"#
    );
    assert!(step.len() < MAX_REPLY_BODY_BYTES);
    let mut sim = Sim::new(&one, spec(http_settings(1)), &[]);
    let end = sim.run(|_, _| ok(step.clone()));
    assert_eq!((end.progress.requests, end.progress.retries), (4, 0));
    assert_eq!(end.progress.incomplete, 4);
    assert_eq!(
        sim.persisted().len(),
        1,
        "only the header: nothing was recorded"
    );
    let reason = &end.incomplete[0].reason;
    assert!(
        reason.contains("the limit for a recorded step is 16777216 bytes"),
        "{reason}"
    );
}

mod streamed;
