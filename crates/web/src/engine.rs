//! The run engine the page drives, with the interface of the core's sans-IO engine
//! (`poll_transmit` / `handle_reply` / `poll_timeout` / `poll_event`). This bridge runs
//! the built-in agents through the core's task driver and stands in until the core's
//! engine, which also speaks HTTP, replaces it.

use std::collections::{BTreeMap, VecDeque};

use wildtool_core::dataset::Session;
use wildtool_core::runner::agents::{BaselineAgent, GoldAgent};
use wildtool_core::runner::checkpoint::{assemble, header_line, recover, SessionSlot, TaskRecord};
use wildtool_core::runner::driver::{run_task, Responder};

/// A request id.
pub type RequestId = u64;

/// A request to send (the key is attached by the transport).
#[derive(Debug, Clone, PartialEq)]
pub struct Transmit {
    /// Id to answer with.
    pub id: RequestId,
    /// Method.
    pub method: String,
    /// URL.
    pub url: String,
    /// Headers.
    pub headers: Vec<(String, String)>,
    /// Body.
    pub body: String,
    /// Give up at this time.
    pub deadline: f64,
}

/// Kind of network failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NetworkKind {
    /// Host unreachable.
    Unreachable,
    /// Blocked by CORS.
    Cors,
    /// Timed out.
    Timeout,
    /// Anything else.
    Other,
}

/// A reply to a request.
#[derive(Debug, Clone, PartialEq)]
pub enum HttpReply {
    /// An HTTP response.
    Response {
        /// Status.
        status: u16,
        /// Body.
        body: String,
        /// `Retry-After`.
        retry_after: Option<String>,
    },
    /// No response.
    Network {
        /// What kind.
        kind: NetworkKind,
        /// Message.
        message: String,
    },
    /// Aborted by the engine.
    Aborted,
}

/// The backend of a run.
#[derive(Debug, Clone, PartialEq)]
pub enum Backend {
    /// The gold agent.
    Gold,
    /// The baseline agent.
    Baseline,
    /// An HTTP endpoint.
    Http {
        /// Provider name.
        provider: String,
        /// Base URL.
        base_url: String,
        /// Temperature.
        temperature: f64,
    },
}

/// Everything that defines a run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSpec {
    /// Model name (result files) and label.
    pub model: String,
    /// Backend.
    pub backend: Backend,
    /// Maximum requests in flight.
    pub concurrency: u32,
    /// Per-request timeout, seconds.
    pub timeout: f64,
    /// Retries.
    pub retries: u32,
    /// Backoff base, seconds.
    pub backoff: f64,
    /// Preflight request.
    pub preflight: bool,
}

/// Why the settings cannot make a run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SpecError(pub String);

fn number(name: &str, value: &str, lo: f64, hi: f64) -> Result<f64, SpecError> {
    let v: f64 = value
        .trim()
        .parse()
        .map_err(|_| SpecError(format!("{name} must be a number from {lo} to {hi}")))?;
    if !v.is_finite() || v < lo || v > hi {
        return Err(SpecError(format!(
            "{name} must be from {lo} to {hi}, not {value}"
        )));
    }
    Ok(v)
}

impl RunSpec {
    /// Validates settings as typed in the setup form.
    #[allow(clippy::too_many_arguments)]
    pub fn from_form(
        provider: &str,
        base_url: &str,
        model: &str,
        temperature: &str,
        concurrency: &str,
        timeout: &str,
        retries: &str,
        backoff: &str,
        preflight: bool,
    ) -> Result<RunSpec, SpecError> {
        let backend = match provider {
            "gold" => Backend::Gold,
            "baseline" => Backend::Baseline,
            "openai" | "anthropic" | "gemini" => {
                wildtool_core::runner::endpoint_url::EndpointUrl::parse(base_url.trim())
                    .map_err(|e| SpecError(format!("base URL: {e}")))?;
                if model.trim().is_empty() {
                    return Err(SpecError(
                        "model name: enter the model the endpoint serves".into(),
                    ));
                }
                Backend::Http {
                    provider: provider.to_owned(),
                    base_url: base_url.trim().to_owned(),
                    temperature: number("temperature", temperature, 0.0, 2.0)?,
                }
            }
            other => return Err(SpecError(format!("unknown provider {other:?}"))),
        };
        let model = if model.trim().is_empty() {
            provider.to_owned()
        } else {
            model.trim().to_owned()
        };
        Ok(RunSpec {
            model,
            backend,
            concurrency: number("concurrency", concurrency, 1.0, 256.0)? as u32,
            timeout: number("timeout", timeout, 1.0, 3600.0)?,
            retries: number("retries", retries, 0.0, 20.0)? as u32,
            backoff: number("backoff", backoff, 0.0, 600.0)?,
            preflight,
        })
    }
}

/// Key of a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct TaskKey {
    /// Trial (1-based).
    pub trial: u32,
    /// Session index.
    pub line: usize,
    /// Task position.
    pub task: usize,
}

/// Counters for display.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProgressSnapshot {
    /// Tasks finished.
    pub done: u64,
    /// Tasks given up.
    pub incomplete: u64,
    /// Tasks to run.
    pub total: u64,
    /// Tasks resumed from the checkpoint.
    pub resumed: u64,
    /// Requests sent.
    pub requests: u64,
    /// Retries.
    pub retries: u64,
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Completion tokens.
    pub output_tokens: u64,
    /// Seconds since the start.
    pub elapsed: f64,
    /// Seconds to go.
    pub eta: Option<f64>,
    /// Current concurrency limit.
    pub concurrency: u32,
    /// Requests in flight.
    pub in_flight: u32,
    /// Tasks waiting to retry.
    pub waiting: u32,
    /// Longest current wait, seconds.
    pub longest_wait: f64,
    /// Last failure.
    pub last_failure: Option<String>,
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndStatus {
    /// Every task finished.
    Done,
    /// Some did not.
    Partial,
    /// Cancelled.
    Cancelled,
    /// Nothing could be scored.
    Failed,
}

/// The end of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunEnd {
    /// Status.
    pub status: EndStatus,
    /// Reason.
    pub reason: Option<String>,
    /// Fix.
    pub fix: Option<String>,
    /// Result files per trial.
    pub results: Vec<String>,
    /// Tasks without a result.
    pub incomplete: Vec<TaskKey>,
}

/// What the engine reports.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A checkpoint line to append.
    Persist(String),
    /// A task settled.
    TaskSettled {
        /// Which.
        key: TaskKey,
        /// Finished with a verdict.
        finished: bool,
        /// Why not.
        reason: Option<String>,
    },
    /// A session's result line.
    SessionComplete {
        /// Trial.
        trial: u32,
        /// Session index.
        line: usize,
        /// The result line.
        result_line: String,
    },
    /// Counters.
    Progress(ProgressSnapshot),
    /// The end.
    Finished(RunEnd),
}

/// Why a run cannot start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct EngineError(pub String);

/// The engine.
pub struct Engine<'d> {
    sessions: Vec<&'d Session>,
    spec: RunSpec,
    queue: VecDeque<(usize, usize)>,
    done: BTreeMap<(usize, usize), TaskRecord>,
    events: VecDeque<Event>,
    progress: ProgressSnapshot,
    paused: bool,
    cancelled: bool,
    finished: bool,
    started: f64,
}

impl<'d> Engine<'d> {
    /// A run over `sessions` resuming from `stored` checkpoint lines.
    pub fn new(
        sessions: &[&'d Session],
        spec: RunSpec,
        stored: &[String],
        fingerprint: &str,
        now: f64,
    ) -> Result<Self, EngineError> {
        if matches!(spec.backend, Backend::Http { .. }) {
            return Err(EngineError(
                "runs against an endpoint need the page's engine transport, which is not in this build".into(),
            ));
        }
        let done =
            recover(stored, &spec.model, fingerprint).map_err(|e| EngineError(e.to_string()))?;
        let mut events = VecDeque::new();
        if stored.is_empty() {
            events.push_back(Event::Persist(header_line(&spec.model, fingerprint)));
        }
        let queue: VecDeque<(usize, usize)> = sessions
            .iter()
            .flat_map(|s| (0..s.tasks.len()).map(move |t| (s.line, t)))
            .filter(|k| !done.contains_key(k))
            .collect();
        let progress = ProgressSnapshot {
            total: queue.len() as u64,
            resumed: done.len() as u64,
            concurrency: spec.concurrency,
            ..ProgressSnapshot::default()
        };
        Ok(Engine {
            sessions: sessions.to_vec(),
            spec,
            queue,
            done,
            events,
            progress,
            paused: false,
            cancelled: false,
            finished: false,
            started: now,
        })
    }

    /// Stops dispatching.
    pub fn pause(&mut self, _now: f64) {
        self.paused = true;
    }
    /// Dispatches again.
    pub fn resume(&mut self, _now: f64) {
        self.paused = false;
    }
    /// Ends the run.
    pub fn cancel(&mut self, now: f64) {
        self.cancelled = true;
        self.finish(now);
    }
    /// A reply (unused by agents).
    pub fn handle_reply(&mut self, _id: RequestId, _reply: HttpReply, _now: f64) {}
    /// Time passed (unused by agents).
    pub fn handle_timeout(&mut self, _now: f64) {}
    /// Requests to send (none for agents).
    pub fn poll_transmit(&mut self, _now: f64) -> Option<Transmit> {
        None
    }
    /// Requests to abort (none for agents).
    pub fn poll_abort(&mut self) -> Option<RequestId> {
        None
    }
    /// Next wake-up (none for agents).
    pub fn poll_timeout(&self) -> Option<f64> {
        None
    }
    /// The next event.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }
    /// True after `Finished`.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Runs up to `budget` tasks with the built-in agent.
    pub fn step_agents(&mut self, budget: usize, now: f64) -> usize {
        if self.paused || self.finished {
            return 0;
        }
        let mut n = 0;
        while n < budget {
            let Some((line, task)) = self.queue.pop_front() else {
                break;
            };
            let Some(session) = self.sessions.iter().find(|s| s.line == line).copied() else {
                continue;
            };
            let responder: &dyn Responder = match self.spec.backend {
                Backend::Baseline => &BaselineAgent,
                _ => &GoldAgent,
            };
            let run = run_task(session, task, responder);
            n += 1;
            let key = TaskKey {
                trial: 1,
                line,
                task,
            };
            match run.record {
                Some(rec) => {
                    self.events.push_back(Event::Persist(rec.to_line()));
                    self.done.insert((line, task), rec);
                    self.progress.done += 1;
                    self.events.push_back(Event::TaskSettled {
                        key,
                        finished: true,
                        reason: None,
                    });
                    if (0..session.tasks.len()).all(|t| self.done.contains_key(&(line, t))) {
                        let slot = SessionSlot {
                            line,
                            id: session.id.clone(),
                            tasks: session.tasks.len(),
                        };
                        let text = assemble(&self.spec.model, &[slot], &self.done).text;
                        self.events.push_back(Event::SessionComplete {
                            trial: 1,
                            line,
                            result_line: text.trim_end().to_owned(),
                        });
                    }
                }
                None => {
                    self.progress.incomplete += 1;
                    self.progress.last_failure = run.incomplete.clone();
                    self.events.push_back(Event::TaskSettled {
                        key,
                        finished: false,
                        reason: run.incomplete,
                    });
                }
            }
        }
        self.progress.elapsed = now - self.started;
        self.events
            .push_back(Event::Progress(self.progress.clone()));
        if self.queue.is_empty() {
            self.finish(now);
        }
        n
    }

    fn finish(&mut self, now: f64) {
        if self.finished {
            return;
        }
        self.finished = true;
        self.progress.elapsed = now - self.started;
        let slots: Vec<SessionSlot> = self
            .sessions
            .iter()
            .map(|s| SessionSlot {
                line: s.line,
                id: s.id.clone(),
                tasks: s.tasks.len(),
            })
            .collect();
        let a = assemble(&self.spec.model, &slots, &self.done);
        let status = if self.cancelled {
            EndStatus::Cancelled
        } else if a.sessions == 0 {
            EndStatus::Failed
        } else if a.missing.is_empty() {
            EndStatus::Done
        } else {
            EndStatus::Partial
        };
        self.events
            .push_back(Event::Progress(self.progress.clone()));
        self.events.push_back(Event::Finished(RunEnd {
            status,
            reason: None,
            fix: None,
            results: vec![a.text],
            incomplete: a
                .missing
                .iter()
                .map(|(line, task)| TaskKey {
                    trial: 1,
                    line: *line,
                    task: *task,
                })
                .collect(),
        }));
    }
}
