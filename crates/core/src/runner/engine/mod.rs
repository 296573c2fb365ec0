//! The run engine: one scheduler for every front end. A sans-IO state machine (time is
//! passed in as `now`, seconds on any monotonic clock; outputs are queued for the caller to
//! drain), in the manner of quinn-proto.
//!
//! It runs every task of a dataset selection `trials` times through the official task
//! state machine ([`TaskMachine`]), with requests built by the provider mapping
//! ([`ProviderKind::build`]) and replies mapped by [`Attempt::from_response`], and owns
//! everything around that: resume from checkpoint lines, the preflight, per-request
//! timeouts, retries with backoff and jitter (honouring `Retry-After` within the user's
//! settings), pause, cancel, adaptive concurrency, the circuit breaker, progress counters
//! and the assembly of the official result file per trial.
//!
//! # Driving it
//!
//! A driver (the CLI's threads and channel, the page's `fetch` and timers) only sends,
//! waits and reports back:
//!
//! ```text
//! engine = Engine::new(&sessions, spec, &stored_checkpoint_lines, now())?
//! loop {
//!     engine.handle_timeout(now())                      // deadlines and retry waits
//!     while let Some(t) = engine.poll_transmit(now())   // send t.request (+ the key),
//!         { send(t) }                                   //   report with t.id
//!     while let Some(id) = engine.poll_abort() { abort(id) }
//!     engine.step_agents(budget, now())                 // built-in agents, in-process
//!     while let Some(e) = engine.poll_event() { … }     // Persist: append + flush first
//!     if engine.is_finished() { break }                 // Finished(RunEnd) was the last event
//!     wait until engine.poll_timeout(), a reply (→ handle_reply) or a control
//!         (→ pause / resume / cancel)
//! }
//! ```
//!
//! A reply to a request the engine aborted (cancel, timeout) is ignored, so drivers need
//! not track which requests are still wanted. A streamed request (`t.stream`) is reported
//! as it arrives: `handle_head`, then `handle_bytes` per chunk, then `handle_end` (or
//! `handle_reply` with a failure); when it is aborted the driver stops reading at once. `cancel` ends the run within the call: the
//! in-flight requests come out of `poll_abort`, and `Finished` is queued at once.
//!
//! # Rules
//!
//! - Concurrency: at most `limit` tasks are started and at most `limit` requests are in
//!   flight; `limit` starts at the configured concurrency and adapts (see `control`).
//! - Retries: a failed response is retried when its status is 408, 409, 425, 429 or 5xx,
//!   or when a 2xx body cannot be read; network failures and timeouts are retried; other
//!   statuses (400, 401, 403, 404, 422 …) and redirects are not. The wait before retry `n`
//!   is `max(backoff · 2^(n−1) with jitter, min(Retry-After, cap))` where
//!   `cap = min(backoff · 2^(retries−1) (at most 120 s), timeout, 300 s)`
//!   ([`RetryPolicy::retry_after_cap`]).
//! - Redirects are never followed: a 3xx answer (or a browser's opaque redirect, status 0)
//!   fails the request without retry, so a key is never sent to another origin.
//! - Limits: a response body over
//!   [`MAX_REPLY_BODY_BYTES`](crate::input::limits::MAX_REPLY_BODY_BYTES) (or one a
//!   driver stopped reading, [`HttpReply::TooLarge`]) fails the request without retry,
//!   naming the limit; a reply whose recorded fields are over
//!   [`MAX_STEP_BYTES`](crate::input::limits::MAX_STEP_BYTES) ends its task as
//!   incomplete.
//! - Streaming (`RunSpec::stream`): every request is the official one with the dialect's
//!   stream switch ([`streamed_request`]); the event stream is reassembled in the core into
//!   the body a non-streaming request returns, which then takes the path above. A torn,
//!   oversized, unknown or malformed stream is a transport failure (retried), as is silence
//!   longer than the stream idle timeout between chunks (see `streaming`).
//! - Pause stops starting tasks; started tasks run to their end.
//! - Seeds: trial 1 uses the per-task seeds of the per-task loop ([`task_seed`]), so its
//!   prompts and jitter are those of a run without trials; later trials mix in the trial
//!   number ([`trial_seed`]).

mod budget;
mod control;
mod event;
mod spec;
mod streaming;
#[cfg(test)]
mod tests;

pub use budget::OUTPUT_RESERVE;
pub use event::{
    ConcurrencyStats, EnvCall, EnvCallId, Event, IncompleteTask, ProgressSnapshot, RequestId,
    RunEnd, RunStatus, TaskKey, Transmit,
};
pub use spec::{
    AgentKind, Backend, BackendSettings, RunSettings, RunSpec, Setting, SpecError,
    DEFAULT_BREAKER_THRESHOLD, DEFAULT_STREAM_IDLE_TIMEOUT, JITTER, MAX_BACKOFF_DELAY,
    MAX_BREAKER_THRESHOLD, MAX_RETRY_AFTER, MAX_TRIALS,
};

use std::collections::{BTreeMap, VecDeque};
use std::time::Duration;

use crate::dataset::Session;
use crate::json::{dumps, Escape, Value};
use crate::protocol::{EnvMachine, IdSource, Need, Reply, SeededIds, TaskMachine};

use crate::input::limits::{check_step, Limit, LimitError, MAX_REPLY_BODY_BYTES};

use super::checkpoint::{
    assemble_json, header_line, record_line_with_usage, recover_trials, session_result_line,
    CheckpointMismatch, SessionSlot,
};
use super::driver::{task_seed, StepContext, TaskStats};
use super::env_checkpoint::{env_header_line, recover_env_trials, EnvMode};
use super::http::{HttpReply, HttpRequest, HttpResponse, NetworkFailure, NetworkKind};
use super::policy::{retry_after_secs, FailureClass, Jitter, RetryPolicy};
use super::preflight::{self, PreflightClass, PreflightFailure};
use super::provider::{ChatRequest, Endpoint, ProviderKind};
use super::retry::Attempt;
use super::stream::{streamed_request, Latencies};
use control::{Aimd, Breaker};
use streaming::{InStream, Streams};

/// A run that cannot start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EngineError {
    /// The checkpoint belongs to another model or dataset.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointMismatch),
    /// The selection holds no session.
    #[error("no sessions selected")]
    NoSessions,
}

/// The seed of a task's history ids and of its jitter in trial `trial`: trial 1 uses
/// [`task_seed`] unchanged; later trials mix in the trial number.
pub fn trial_seed(trial: u32, line: usize, task: usize) -> u64 {
    let base = task_seed(line, task);
    if trial <= 1 {
        base
    } else {
        base ^ u64::from(trial - 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }
}

/// Starts task `task` of a session in own history from the earlier tasks' traces (see
/// `protocol::start_own`). Own history is built in with the `own-history` feature (the
/// CLI's); the page's module, which does not run it, does not carry it.
#[cfg(feature = "own-history")]
pub type OwnStart = fn(&Session, usize, &mut dyn IdSource, &[Value]) -> Result<EnvMachine, String>;

/// One task attempt to run: trial, session (index into the selection), task position.
#[derive(Debug, Clone, Copy)]
struct Job {
    trial: u32,
    session: usize,
    task: usize,
}

/// Retry state of the current step of a task.
#[derive(Debug)]
struct Step {
    attempts: u32,
    jitter: Jitter,
    ids: SeededIds,
    request: Option<HttpRequest>,
}

impl Step {
    /// The state for step `step` of a task seeded with `seed` (the per-step seed the
    /// per-task loop's endpoint responders use).
    fn new(seed: u64, step: usize) -> Self {
        let s = seed ^ ((step as u64) << 48);
        Self {
            attempts: 0,
            jitter: Jitter::new(s),
            ids: SeededIds::new(s.wrapping_add(0x5EED)),
            request: None,
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Phase {
    Ready,
    /// Tool calls handed to the environment, waiting for its answers.
    Env {
        id: EnvCallId,
    },
    InFlight {
        id: RequestId,
        deadline: f64,
        sent_at: f64,
    },
    Waiting {
        until: f64,
    },
}

/// The loop a task runs: the official one, or the environment loop. (One per running
/// task; the official machine, the common case, stays inline rather than boxed.)
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
enum Machine<'d> {
    Official(TaskMachine<'d>),
    Env(EnvMachine),
}

impl Machine<'_> {
    fn messages(&self) -> &[Value] {
        match self {
            Machine::Official(m) => m.messages(),
            Machine::Env(m) => m.messages(),
        }
    }

    fn tools(&self) -> &Value {
        match self {
            Machine::Official(m) => m.tools(),
            Machine::Env(m) => m.tools(),
        }
    }

    fn step(&self) -> usize {
        match self {
            Machine::Official(m) => m.step(),
            Machine::Env(m) => m.step(),
        }
    }

    fn is_finished(&self) -> bool {
        match self {
            Machine::Official(m) => m.is_finished(),
            Machine::Env(m) => m.is_finished(),
        }
    }

    fn names_correct(&self) -> bool {
        match self {
            Machine::Official(m) => m.verdict().is_some_and(|v| v.names_correct),
            Machine::Env(_) => false,
        }
    }

    /// The cached prompt tokens of each recorded step, as reported (an environment task
    /// records its usage in its own trace).
    fn cached_input_tokens(&self) -> &[Value] {
        match self {
            Machine::Official(m) => m.cached_input_tokens(),
            Machine::Env(_) => &[],
        }
    }

    fn result(&self) -> Option<Value> {
        match self {
            Machine::Official(m) => m.result(),
            Machine::Env(m) => m.result(),
        }
    }
}

#[derive(Debug)]
struct Active<'d> {
    job: Job,
    key: TaskKey,
    machine: Machine<'d>,
    seed: u64,
    step: Step,
    phase: Phase,
}

#[derive(Debug)]
enum PreflightState {
    Pending,
    InFlight { id: RequestId, deadline: f64 },
    Waiting { until: f64 },
    Passed,
}

#[derive(Debug)]
struct Preflight {
    state: PreflightState,
    attempts: u32,
    jitter: Jitter,
}

#[derive(Debug)]
enum Stop {
    Cancelled,
    Breaker { reason: String, fix: Option<String> },
    Preflight(PreflightFailure),
    Budget { limit: f64, spent: f64 },
}

/// How a given-up task feeds the circuit breaker.
enum Signal {
    /// A non-retryable response.
    Permanent {
        status: u16,
        body: String,
        message: String,
    },
    /// Any other failure: ends a row of equal failures.
    Other,
    /// Not the endpoint's doing (cancellation, a stop, an unusable gold graph).
    Neutral,
}

/// A failed attempt.
struct Failure {
    class: FailureClass,
    message: String,
    status: Option<u16>,
    body: String,
    retry_after: Option<f64>,
}

#[derive(Debug, Default, Clone)]
struct Counters {
    done: u64,
    incomplete: u64,
    names_correct: u64,
    requests: u64,
    retries: u64,
    input_tokens: u64,
    output_tokens: u64,
}

/// The run engine (see the module documentation for how to drive it).
#[derive(Debug)]
pub struct Engine<'d> {
    spec: RunSpec,
    policy: RetryPolicy,
    endpoint: Option<(ProviderKind, Endpoint)>,
    temperature: f64,
    agent: Option<AgentKind>,
    sessions: Vec<&'d Session>,
    started: f64,
    total: u64,
    resumed: u64,
    jobs: VecDeque<Job>,
    active: Vec<Active<'d>>,
    /// Finished tasks per trial: their results in dumps-utf8 form, by `(line, task)`.
    done: Vec<BTreeMap<(usize, usize), String>>,
    remaining: Vec<Vec<usize>>,
    incomplete: Vec<IncompleteTask>,
    counters: Counters,
    last_failure: Option<String>,
    aimd: Aimd,
    breaker: Breaker,
    preflight: Option<Preflight>,
    paused: bool,
    stop: Option<Stop>,
    next_id: u64,
    events: VecDeque<Event>,
    aborts: VecDeque<RequestId>,
    finished: bool,
    budget: Option<budget::Budget>,
    /// Streamed requests in flight.
    streams: Streams,
    /// Where streamed responses are read (installed by the driver).
    readers: Option<Box<dyn super::stream::StreamReaders>>,
    /// First-token latencies of the streamed task requests.
    first_tokens: Latencies,
    /// An environment run: its mode, the calls waiting to be answered, the next call id.
    env: Option<EnvMode>,
    env_calls: VecDeque<EnvCall>,
    next_env_id: u64,
    /// How an own-history task starts (given by the front end that runs own history, so
    /// the others do not carry it).
    #[cfg(feature = "own-history")]
    own_start: Option<OwnStart>,
}

fn token_count(v: &Value) -> u64 {
    v.as_i64().map(|x| x.max(0) as u64).unwrap_or(0)
}

fn redirect_message(r: &HttpResponse) -> String {
    let target = r
        .location
        .as_deref()
        .map(|l| format!(" to {}", l.chars().take(200).collect::<String>()))
        .unwrap_or_default();
    format!(
        "HTTP {}: the endpoint redirected{target}; redirects are not followed (the API key is only sent to the base URL's origin), so use the final URL as the base URL",
        r.status
    )
}

/// A response whose body is over the reply limit, as the transports report one they
/// stopped reading; any other reply unchanged.
fn oversized(reply: HttpReply) -> HttpReply {
    match reply {
        HttpReply::Response(r) if r.body.len() > MAX_REPLY_BODY_BYTES => HttpReply::TooLarge {
            status: r.status,
            size: r.body.len() as u64,
        },
        other => other,
    }
}

fn too_large_message(status: u16, size: u64) -> String {
    let limit = LimitError {
        limit: Limit::ReplyBody,
        size: size.max(MAX_REPLY_BODY_BYTES as u64 + 1),
        line: None,
    };
    format!("HTTP {status}: {limit}; the answer is not read and the request is not sent again")
}

/// The recorded size of a reply: the JSON text of the fields its step stores in the log
/// (`content`, `tool_calls`, `reasoning_content`).
fn recorded_bytes(reply: &Reply) -> u64 {
    [&reply.content, &reply.tool_calls, &reply.reasoning_content]
        .iter()
        .map(|v| dumps(v, Escape::Utf8).len() as u64)
        .sum()
}

fn network_message(f: &NetworkFailure) -> String {
    match f.kind {
        NetworkKind::Timeout => format!("timed out: {}", f.message),
        NetworkKind::Cors => format!("blocked by the browser (CORS): {}", f.message),
        NetworkKind::Unreachable | NetworkKind::Blocked | NetworkKind::Other => f.message.clone(),
    }
}

impl<'d> Engine<'d> {
    /// A run of `spec` over `sessions`, resuming from `stored` checkpoint lines (empty for a
    /// new run: the header line is then the first `Persist` event). Only tasks whose
    /// `(trial, session, task)` is not in `stored` run. Sessions already complete in
    /// `stored` are announced as `SessionComplete` events at once.
    pub fn new(
        sessions: &[&'d Session],
        spec: RunSpec,
        stored: &[String],
        now: f64,
    ) -> Result<Self, EngineError> {
        Self::build(sessions, spec, stored, now, None)
    }

    /// An environment run: like [`Engine::new`], but every task runs the environment
    /// loop ([`EnvMachine`]); tool calls come out of [`Engine::poll_env_call`] and their
    /// answers go back through [`Engine::handle_env_result`]. The checkpoint has its own
    /// header (`runner::env_checkpoint`) and its records hold environment traces.
    pub fn new_env(
        sessions: &[&'d Session],
        spec: RunSpec,
        stored: &[String],
        now: f64,
        mode: EnvMode,
    ) -> Result<Self, EngineError> {
        Self::build(sessions, spec, stored, now, Some(mode))
    }

    fn build(
        sessions: &[&'d Session],
        spec: RunSpec,
        stored: &[String],
        now: f64,
        env: Option<EnvMode>,
    ) -> Result<Self, EngineError> {
        if sessions.is_empty() {
            return Err(EngineError::NoSessions);
        }
        let recovered = match &env {
            Some(mode) => recover_env_trials(stored, spec.model(), spec.dataset(), mode)?,
            None => recover_trials(stored, spec.model(), spec.dataset())?,
        };
        let k = spec.trials();
        let index: BTreeMap<usize, usize> =
            crate::order::map_from(sessions.iter().enumerate().map(|(i, s)| (s.index, i)));
        let mut done: Vec<BTreeMap<(usize, usize), String>> = vec![BTreeMap::new(); k as usize];
        for ((trial, line, task), rec) in recovered {
            let selected = index
                .get(&line)
                .and_then(|&i| sessions.get(i))
                .is_some_and(|s| task < s.tasks.len());
            if let (true, Some(slot)) = (selected, done.get_mut(trial as usize - 1)) {
                slot.insert((line, task), dumps(&rec.result, Escape::Utf8));
            }
        }
        let mut jobs = VecDeque::new();
        let mut remaining = vec![vec![0usize; sessions.len()]; k as usize];
        let mut resumed = 0u64;
        for trial in 1..=k {
            let t = trial as usize - 1;
            for (i, s) in sessions.iter().enumerate() {
                for task in 0..s.tasks.len() {
                    if done[t].contains_key(&(s.index, task)) {
                        resumed += 1;
                    } else {
                        jobs.push_back(Job {
                            trial,
                            session: i,
                            task,
                        });
                        remaining[t][i] += 1;
                    }
                }
            }
        }
        let endpoint = spec.endpoint();
        let (temperature, agent) = match spec.backend() {
            Backend::Http { temperature, .. } => (*temperature, None),
            Backend::Agent(a) => (0.0, Some(a.clone())),
        };
        let preflight = (spec.preflight() && !jobs.is_empty()).then(|| Preflight {
            state: PreflightState::Pending,
            attempts: 0,
            jitter: Jitter::new(0x00C0_FFEE),
        });
        let mut engine = Self {
            policy: spec.policy(),
            aimd: Aimd::new(spec.concurrency(), spec.adaptive()),
            breaker: Breaker::new(spec.breaker_threshold()),
            total: jobs.len() as u64,
            endpoint,
            temperature,
            agent,
            sessions: sessions.to_vec(),
            started: now,
            resumed,
            jobs,
            active: Vec::new(),
            done,
            remaining,
            incomplete: Vec::new(),
            counters: Counters::default(),
            last_failure: None,
            preflight,
            paused: false,
            stop: None,
            next_id: 0,
            events: VecDeque::new(),
            aborts: VecDeque::new(),
            finished: false,
            budget: spec
                .pricing()
                .filter(|_| spec.endpoint().is_some())
                .map(|p| budget::Budget::new(p.clone(), spec.max_cost())),
            streams: Streams::default(),
            readers: None,
            first_tokens: Latencies::new(),
            env_calls: VecDeque::new(),
            next_env_id: 0,
            #[cfg(feature = "own-history")]
            own_start: None,
            env,
            spec,
        };
        if stored.is_empty() {
            let header = match &engine.env {
                Some(mode) => env_header_line(engine.spec.model(), engine.spec.dataset(), mode),
                None => header_line(engine.spec.model(), engine.spec.dataset()),
            };
            engine.events.push_back(Event::Persist(header));
        }
        for t in 0..k as usize {
            for i in 0..engine.sessions.len() {
                let complete = engine.remaining[t][i] == 0
                    && engine.sessions.get(i).is_some_and(|s| !s.tasks.is_empty());
                if complete {
                    engine.announce_session(t, i);
                }
            }
        }
        engine.push_progress(now);
        engine.check_finished(now);
        Ok(engine)
    }

    // ---- control ------------------------------------------------------------------

    /// Stops starting new tasks; tasks already started run to their end.
    pub fn pause(&mut self, now: f64) {
        if !self.finished && !self.paused {
            self.paused = true;
            self.push_progress(now);
        }
    }

    /// Starts tasks again after [`Engine::pause`].
    pub fn resume(&mut self, now: f64) {
        if !self.finished && self.paused {
            self.paused = false;
            self.push_progress(now);
        }
    }

    /// Ends the run now: in-flight requests are aborted (their ids come out of
    /// [`Engine::poll_abort`]), retry waits are dropped, started tasks become incomplete
    /// (not model errors; resumable), and `Finished` is queued.
    pub fn cancel(&mut self, now: f64) {
        if self.finished {
            return;
        }
        if self.stop.is_none() {
            self.stop = Some(Stop::Cancelled);
        }
        if let Some(Preflight {
            state: PreflightState::InFlight { id, .. },
            ..
        }) = &self.preflight
        {
            self.aborts.push_back(*id);
        }
        self.jobs.clear();
        self.env_calls.clear();
        self.abort_active("cancelled", now);
        self.finish(now);
    }

    /// True once paused.
    pub fn is_paused(&self) -> bool {
        self.paused
    }

    /// True once the run is over (`Finished` has been queued).
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    // ---- input --------------------------------------------------------------------

    /// Reports what became of request `id`. Replies to requests the engine no longer
    /// waits for (aborted, timed out, after the end) are ignored. For a streamed request
    /// this is a failure below HTTP, or the whole response at once (it is then read as an
    /// event stream).
    pub fn handle_reply(&mut self, id: RequestId, reply: HttpReply, now: f64) {
        let reply = self.resolve_stream(id, reply);
        self.process_reply(id, reply, now);
    }

    /// Acts on the reply to request `id` (after a stream, on its reassembled body).
    fn process_reply(&mut self, id: RequestId, reply: HttpReply, now: f64) {
        if self.finished {
            return;
        }
        if let Some(b) = &mut self.budget {
            b.release(id);
        }
        if matches!(
            &self.preflight,
            Some(Preflight { state: PreflightState::InFlight { id: p, .. }, .. }) if *p == id
        ) {
            self.preflight_reply(reply, now);
            self.check_finished(now);
            return;
        }
        let found = self
            .active
            .iter()
            .position(|a| matches!(a.phase, Phase::InFlight { id: i, .. } if i == id));
        let Some(idx) = found else {
            return;
        };
        let sent_at = match self.active[idx].phase {
            Phase::InFlight { sent_at, .. } => sent_at,
            _ => now,
        };
        let reply = oversized(reply);
        match reply {
            HttpReply::TooLarge { status, size } => self.task_failure(
                idx,
                Failure {
                    class: FailureClass::Permanent,
                    message: too_large_message(status, size),
                    status: Some(status),
                    body: String::new(),
                    retry_after: None,
                },
                now,
            ),
            HttpReply::Response(r) => {
                let latency = r.latency.unwrap_or((now - sent_at).max(0.0));
                self.task_response(idx, id, r, latency, now)
            }
            HttpReply::Refused(reason) => self.task_failure(
                idx,
                Failure {
                    class: FailureClass::Permanent,
                    message: reason,
                    status: None,
                    body: String::new(),
                    retry_after: None,
                },
                now,
            ),
            HttpReply::Network(f) => self.task_failure(
                idx,
                Failure {
                    class: match f.kind {
                        NetworkKind::Blocked => FailureClass::Permanent,
                        _ => FailureClass::Transient,
                    },
                    message: network_message(&f),
                    status: None,
                    body: String::new(),
                    retry_after: None,
                },
                now,
            ),
            HttpReply::Aborted => self.task_failure(
                idx,
                Failure {
                    class: FailureClass::Transient,
                    message: "the request was aborted".to_owned(),
                    status: None,
                    body: String::new(),
                    retry_after: None,
                },
                now,
            ),
        }
        self.check_finished(now);
    }

    /// Acts on the clock: requests past their deadline are aborted (their ids come out of
    /// [`Engine::poll_abort`]) and count as timeouts (retried like network failures);
    /// retry waits that are over make their tasks ready to send again.
    pub fn handle_timeout(&mut self, now: f64) {
        if self.finished {
            return;
        }
        self.stream_timeouts(now);
        if self.finished {
            return;
        }
        let timeout = self.spec.timeout();
        if let Some(Preflight {
            state: PreflightState::InFlight { id, deadline },
            ..
        }) = &self.preflight
        {
            if *deadline <= now {
                let id = *id;
                self.aborts.push_back(id);
                if let Some(b) = &mut self.budget {
                    b.lose(id);
                }
                let provider = self.provider();
                let f = preflight::classify_network(
                    provider,
                    NetworkKind::Timeout,
                    &format!("no response within {timeout}s"),
                );
                self.preflight_failed(f, now);
                return;
            }
        }
        let expired: Vec<RequestId> = self
            .active
            .iter()
            .filter_map(|a| match a.phase {
                Phase::InFlight { id, deadline, .. } if deadline <= now => Some(id),
                _ => None,
            })
            .collect();
        for id in expired {
            self.aborts.push_back(id);
            if let Some(b) = &mut self.budget {
                b.lose(id);
            }
            let found = self
                .active
                .iter()
                .position(|a| matches!(a.phase, Phase::InFlight { id: i, .. } if i == id));
            if let Some(idx) = found {
                self.task_failure(
                    idx,
                    Failure {
                        class: FailureClass::Transient,
                        message: format!("timed out: no response within {timeout}s"),
                        status: None,
                        body: String::new(),
                        retry_after: None,
                    },
                    now,
                );
            }
            if self.finished {
                return;
            }
        }
        self.promote_waits(now);
        self.check_finished(now);
    }

    /// Runs up to `budget` steps of built-in-agent tasks in-process (starting tasks as
    /// needed, one at a time in order) and returns how many steps ran: 0 when the backend
    /// is an endpoint, the run is paused between tasks, or it is over.
    pub fn step_agents(&mut self, budget: usize, now: f64) -> usize {
        if self.finished {
            return 0;
        }
        let Some(agent) = self.agent.take() else {
            return 0;
        };
        let responder = agent.responder();
        let mut steps = 0;
        while steps < budget && !self.finished {
            if self.active.is_empty() && !self.start_one(now) {
                break;
            }
            let Some(a) = self.active.first_mut() else {
                continue;
            };
            if matches!(a.phase, Phase::Env { .. }) {
                // The environment answers first (poll_env_call / handle_env_result).
                break;
            }
            let Some(session) = self.sessions.get(a.job.session).copied() else {
                break;
            };
            let mut stats = TaskStats::default();
            let ctx = StepContext {
                session,
                task: a.job.task,
                step: a.machine.step(),
                messages: a.machine.messages(),
                tools: a.machine.tools(),
            };
            let answer = responder.respond(&ctx, &mut stats);
            steps += 1;
            self.counters.requests += stats.requests;
            self.counters.retries += stats.retries;
            match answer {
                Ok(reply) => self.task_reply(0, reply, now),
                Err(e) => self.settle_incomplete(0, e.to_string(), Signal::Neutral, now),
            }
        }
        self.agent = Some(agent);
        self.check_finished(now);
        steps
    }

    // ---- output -------------------------------------------------------------------

    /// The next request to send, if the limits allow one.
    pub fn poll_transmit(&mut self, now: f64) -> Option<Transmit> {
        if matches!(self.stop, Some(Stop::Budget { .. })) {
            self.drop_unsent(now);
        }
        if self.finished || self.stop.is_some() {
            return None;
        }
        self.promote_waits(now);
        if let Some(pf) = &self.preflight {
            match pf.state {
                PreflightState::Pending => return self.transmit_preflight(now),
                PreflightState::Passed => {}
                _ => return None,
            }
        }
        if self.agent.is_some() || self.endpoint.is_none() {
            return None;
        }
        while self.active.len() < self.aimd.limit() && self.start_one(now) {}
        self.check_finished(now);
        if self.finished {
            return None;
        }
        let in_flight = self
            .active
            .iter()
            .filter(|a| matches!(a.phase, Phase::InFlight { .. }))
            .count();
        if in_flight >= self.aimd.limit() {
            return None;
        }
        let idx = self
            .active
            .iter()
            .position(|a| matches!(a.phase, Phase::Ready))?;
        let request = self.step_request(idx)?;
        if !self.admit(RequestId(self.next_id), request.body.len(), now) {
            return None;
        }
        let id = self.next_request_id();
        let deadline = now + self.spec.timeout();
        let stream = self.spec.stream();
        if stream {
            self.streams.insert(id, InStream::new(now, true));
        }
        let a = &mut self.active[idx];
        a.phase = Phase::InFlight {
            id,
            deadline,
            sent_at: now,
        };
        let key = a.key;
        self.counters.requests += 1;
        Some(Transmit {
            id,
            request,
            deadline,
            task: Some(key),
            stream,
        })
    }

    /// The next request to abort (cancelled, timed out or stopped).
    pub fn poll_abort(&mut self) -> Option<RequestId> {
        let id = self.aborts.pop_front()?;
        self.drop_stream(id);
        Some(id)
    }

    /// When [`Engine::handle_timeout`] has something to do next (a deadline or the end of
    /// a retry wait), on the `now` clock; `None` when nothing is timed.
    pub fn poll_timeout(&self) -> Option<f64> {
        if self.finished {
            return None;
        }
        let mut next: Option<f64> = None;
        let mut consider = |t: f64| next = Some(next.map_or(t, |n: f64| n.min(t)));
        if let Some(pf) = &self.preflight {
            match pf.state {
                PreflightState::InFlight { deadline, .. } => consider(deadline),
                PreflightState::Waiting { until } => consider(until),
                _ => {}
            }
        }
        for a in &self.active {
            match a.phase {
                Phase::InFlight { deadline, .. } => consider(deadline),
                Phase::Waiting { until } => consider(until),
                Phase::Ready | Phase::Env { .. } => {}
            }
        }
        if let Some(t) = self.next_stream_timeout() {
            consider(t);
        }
        next
    }

    /// The next event, in order.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// The counters now (drivers may redraw between events, e.g. for the elapsed time).
    pub fn progress(&self, now: f64) -> ProgressSnapshot {
        let elapsed = (now - self.started).max(0.0);
        let settled = self.counters.done + self.counters.incomplete;
        let rate = if elapsed > 0.0 {
            settled as f64 / elapsed
        } else {
            0.0
        };
        let eta =
            (settled > 0 && rate > 0.0).then(|| self.total.saturating_sub(settled) as f64 / rate);
        let mut in_flight = 0;
        let mut waiting = 0;
        let mut longest: Option<f64> = None;
        for a in &self.active {
            match a.phase {
                Phase::InFlight { .. } => in_flight += 1,
                Phase::Waiting { until } => {
                    waiting += 1;
                    let left = (until - now).max(0.0);
                    longest = Some(longest.map_or(left, |l: f64| l.max(left)));
                }
                Phase::Ready | Phase::Env { .. } => {}
            }
        }
        let preflight = match &self.preflight {
            Some(pf) => match pf.state {
                PreflightState::Passed => false,
                PreflightState::InFlight { .. } => {
                    in_flight += 1;
                    true
                }
                PreflightState::Waiting { until } => {
                    waiting += 1;
                    let left = (until - now).max(0.0);
                    longest = Some(longest.map_or(left, |l: f64| l.max(left)));
                    true
                }
                PreflightState::Pending => true,
            },
            None => false,
        } && !self.finished;
        ProgressSnapshot {
            total: self.total,
            resumed: self.resumed,
            done: self.counters.done,
            incomplete: self.counters.incomplete,
            names_correct: self.counters.names_correct,
            requests: self.counters.requests,
            retries: self.counters.retries,
            input_tokens: self.counters.input_tokens,
            output_tokens: self.counters.output_tokens,
            builtin_agent: matches!(self.spec.backend(), Backend::Agent(_)),
            elapsed,
            rate,
            eta,
            concurrency_limit: self.aimd.limit(),
            concurrency_max: self.aimd.max(),
            in_flight,
            waiting,
            longest_wait: longest,
            last_failure: self.last_failure.clone(),
            paused: self.paused,
            preflight,
            first_token: self.first_tokens.summary(),
        }
    }

    /// The run's definition.
    pub fn spec(&self) -> &RunSpec {
        &self.spec
    }

    // ---- internals ----------------------------------------------------------------

    fn provider(&self) -> ProviderKind {
        self.endpoint
            .as_ref()
            .map(|(p, _)| *p)
            .unwrap_or(ProviderKind::OpenAi)
    }

    fn next_request_id(&mut self) -> RequestId {
        let id = RequestId(self.next_id);
        self.next_id += 1;
        id
    }

    fn push_progress(&mut self, now: f64) {
        let snapshot = self.progress(now);
        if let Some(Event::Progress(last)) = self.events.back_mut() {
            *last = snapshot;
        } else {
            self.events.push_back(Event::Progress(snapshot));
        }
    }

    fn promote_waits(&mut self, now: f64) {
        for a in &mut self.active {
            if let Phase::Waiting { until } = a.phase {
                if until <= now {
                    a.phase = Phase::Ready;
                }
            }
        }
        if let Some(pf) = &mut self.preflight {
            if let PreflightState::Waiting { until } = pf.state {
                if until <= now {
                    pf.state = PreflightState::Pending;
                }
            }
        }
    }

    /// Starts the next job (true), unless paused, stopped or out of jobs (false). A task
    /// whose machine cannot be built is given up at once (and true is returned).
    fn start_one(&mut self, now: f64) -> bool {
        if self.paused || self.stop.is_some() || self.finished {
            return false;
        }
        #[cfg(feature = "own-history")]
        let own = self.env.as_ref().is_some_and(EnvMode::is_own);
        #[cfg(not(feature = "own-history"))]
        let own = false;
        let pick = if own {
            // Own history: a task starts once the task before it in its session is done.
            self.jobs.iter().position(|j| {
                j.task == 0
                    || self.sessions.get(j.session).is_some_and(|s| {
                        self.done
                            .get(j.trial as usize - 1)
                            .is_some_and(|d| d.contains_key(&(s.index, j.task - 1)))
                    })
            })
        } else {
            Some(0)
        };
        let Some(job) = pick.and_then(|i| self.jobs.remove(i)) else {
            return false;
        };
        let Some(session) = self.sessions.get(job.session).copied() else {
            return true;
        };
        let key = TaskKey {
            trial: job.trial,
            line: session.index,
            task: job.task,
        };
        let seed = trial_seed(job.trial, session.index, job.task);
        let mut ids = SeededIds::new(seed);
        let built = match self.env {
            None => TaskMachine::new(session, job.task, &mut ids as &mut dyn IdSource)
                .map(Machine::Official)
                .map_err(|e| e.to_string()),
            #[cfg(not(feature = "own-history"))]
            Some(ref mode) if mode.is_own() => {
                let why = "own history is not built into this front end";
                self.settle_job_incomplete(job, key, why.to_owned(), Signal::Neutral, now);
                return true;
            }
            #[cfg(feature = "own-history")]
            Some(ref mode) if mode.is_own() => {
                let Some(start) = self.own_start else {
                    let why = "own history needs its task starter (Engine::with_own_history)";
                    self.settle_job_incomplete(job, key, why.to_owned(), Signal::Neutral, now);
                    return true;
                };
                let earlier: Vec<Value> = self
                    .done
                    .get(job.trial as usize - 1)
                    .map(|d| {
                        (0..job.task)
                            .filter_map(|k| d.get(&(session.index, k)))
                            .filter_map(|text| crate::json::loads(text).ok())
                            .collect()
                    })
                    .unwrap_or_default();
                start(session, job.task, &mut ids as &mut dyn IdSource, &earlier).map(Machine::Env)
            }
            Some(_) => EnvMachine::new(session, job.task, &mut ids as &mut dyn IdSource)
                .map(Machine::Env)
                .map_err(|e| e.to_string()),
        };
        match built {
            Ok(machine) => {
                let finished = machine.is_finished();
                self.active.push(Active {
                    job,
                    key,
                    step: Step::new(seed, machine.step()),
                    machine,
                    seed,
                    phase: Phase::Ready,
                });
                if finished {
                    let idx = self.active.len() - 1;
                    self.settle_machine(idx, now);
                }
            }
            Err(e) => self.settle_job_incomplete(job, key, e, Signal::Neutral, now),
        }
        true
    }

    /// Reserves the estimated cost of request `id`; when it would pass the cost limit the
    /// run stops starting requests (the ones in flight finish) and false is returned.
    fn admit(&mut self, id: RequestId, body_bytes: usize, now: f64) -> bool {
        let Some(b) = &mut self.budget else {
            return true;
        };
        if b.admit(id, body_bytes) {
            return true;
        }
        let (limit, spent) = (b.limit().unwrap_or(0.0), b.spent);
        self.stop = Some(Stop::Budget { limit, spent });
        self.jobs.clear();
        self.drop_unsent(now);
        false
    }

    /// Under a cost stop: every started task without a request in flight ends incomplete
    /// (resumable); the run ends when the last reply is in.
    fn drop_unsent(&mut self, now: f64) {
        let mut i = 0;
        while i < self.active.len() {
            if matches!(self.active[i].phase, Phase::InFlight { .. }) {
                i += 1;
            } else {
                self.settle_incomplete(
                    i,
                    "not finished: the run stopped before its cost limit".to_owned(),
                    Signal::Neutral,
                    now,
                );
            }
        }
        if self
            .preflight
            .as_ref()
            .is_some_and(|pf| matches!(pf.state, PreflightState::Pending))
        {
            self.preflight = None;
        }
        self.check_finished(now);
    }

    fn step_request(&mut self, idx: usize) -> Option<HttpRequest> {
        let (provider, endpoint) = self.endpoint.as_ref()?;
        let a = self.active.get_mut(idx)?;
        if a.step.request.is_none() {
            let built = provider.build(
                &ChatRequest {
                    model: self.spec.model(),
                    temperature: self.temperature,
                    messages: a.machine.messages(),
                    tools: a.machine.tools(),
                },
                endpoint,
            );
            a.step.request = Some(if self.spec.stream() {
                streamed_request(*provider, built)
            } else {
                built
            });
        }
        a.step.request.clone()
    }

    fn transmit_preflight(&mut self, now: f64) -> Option<Transmit> {
        let (provider, endpoint) = self.endpoint.clone()?;
        let mut request =
            preflight::request_at(provider, &endpoint, self.spec.model(), self.temperature);
        if !self.admit(RequestId(self.next_id), request.body.len(), now) {
            return None;
        }
        let id = self.next_request_id();
        let deadline = now + self.spec.timeout();
        let stream = self.spec.stream();
        if stream {
            request = streamed_request(provider, request);
            self.streams.insert(id, InStream::new(now, false));
        }
        if let Some(pf) = &mut self.preflight {
            pf.state = PreflightState::InFlight { id, deadline };
        }
        self.counters.requests += 1;
        self.push_progress(now);
        Some(Transmit {
            id,
            request,
            deadline,
            task: None,
            stream,
        })
    }

    fn preflight_reply(&mut self, reply: HttpReply, now: f64) {
        let provider = self.provider();
        let (failure, retryable, retry_after) = match oversized(reply) {
            HttpReply::TooLarge { status, size } => (
                PreflightFailure {
                    class: PreflightClass::Other,
                    reason: too_large_message(status, size),
                    fix: Some(
                        "check that the base URL is the model API's root (the answer should be a small JSON reply)"
                            .to_owned(),
                    ),
                },
                false,
                None,
            ),
            HttpReply::Response(r) if r.status == 0 || (300..400).contains(&r.status) => (
                PreflightFailure {
                    class: PreflightClass::Other,
                    reason: redirect_message(&r),
                    fix: Some("use the final URL as the base URL".to_owned()),
                },
                false,
                None,
            ),
            HttpReply::Response(r) => {
                match preflight::classify_response(provider, r.status, &r.body) {
                    Ok(()) => {
                        if let Some(pf) = &mut self.preflight {
                            pf.state = PreflightState::Passed;
                        }
                        self.push_progress(now);
                        return;
                    }
                    Err(f) => {
                        let retryable = preflight::should_retry(provider, r.status, &r.body);
                        let ra = r
                            .retry_after
                            .as_deref()
                            .and_then(|v| retry_after_secs(v, r.now_unix));
                        (f, retryable, ra)
                    }
                }
            }
            HttpReply::Network(n) => (
                preflight::classify_network(provider, n.kind, &n.message),
                n.kind == NetworkKind::Other,
                None,
            ),
            HttpReply::Aborted => (
                preflight::classify_network(
                    provider,
                    NetworkKind::Other,
                    "the request was aborted",
                ),
                true,
                None,
            ),
            HttpReply::Refused(reason) => (
                PreflightFailure {
                    class: PreflightClass::Other,
                    reason,
                    fix: Some(
                        "record the run with a cassette first (the same dataset, model and settings), then replay it"
                            .to_owned(),
                    ),
                },
                false,
                None,
            ),
        };
        self.last_failure = Some(failure.reason.clone());
        let delay = match &mut self.preflight {
            Some(pf) if retryable => {
                pf.attempts += 1;
                self.policy.delay(
                    pf.attempts,
                    retry_after.map(Duration::from_secs_f64),
                    pf.jitter.next_unit(),
                )
            }
            _ => None,
        };
        match (delay, &mut self.preflight) {
            (Some(d), Some(pf)) => {
                pf.state = PreflightState::Waiting {
                    until: now + d.as_secs_f64(),
                };
                self.counters.retries += 1;
                self.push_progress(now);
            }
            _ => self.preflight_failed(failure, now),
        }
    }

    fn preflight_failed(&mut self, failure: PreflightFailure, now: f64) {
        self.last_failure = Some(failure.reason.clone());
        self.stop = Some(Stop::Preflight(failure));
        self.jobs.clear();
        self.finish(now);
    }

    fn task_response(
        &mut self,
        idx: usize,
        id: RequestId,
        r: HttpResponse,
        latency: f64,
        now: f64,
    ) {
        if r.status == 0 || (300..400).contains(&r.status) {
            let message = redirect_message(&r);
            self.task_failure(
                idx,
                Failure {
                    class: FailureClass::Permanent,
                    message,
                    status: Some(r.status),
                    body: r.body,
                    retry_after: None,
                },
                now,
            );
            return;
        }
        let provider = self.provider();
        let Some(a) = self.active.get_mut(idx) else {
            return;
        };
        let attempt =
            Attempt::from_response(provider, r.status, &r.body, None, latency, &mut a.step.ids);
        match attempt {
            Attempt::Done(reply) => self.task_reply(idx, reply, now),
            Attempt::Failed { class, message, .. } => {
                let retry_after = r
                    .retry_after
                    .as_deref()
                    .and_then(|v| retry_after_secs(v, r.now_unix));
                let rejected = !(200..300).contains(&r.status)
                    && (matches!(r.status, 429 | 503 | 529) || retry_after.is_some());
                if rejected {
                    self.aimd.on_congestion(id, RequestId(self.next_id));
                }
                self.task_failure(
                    idx,
                    Failure {
                        class,
                        message,
                        status: Some(r.status),
                        body: r.body,
                        retry_after,
                    },
                    now,
                );
            }
        }
    }

    fn task_reply(&mut self, idx: usize, reply: Reply, now: f64) {
        if self.endpoint.is_some() {
            self.aimd.on_success();
        }
        self.counters.input_tokens += token_count(&reply.input_tokens);
        self.counters.output_tokens += token_count(&reply.output_tokens);
        if let Some(b) = &mut self.budget {
            b.charge(&reply);
        }
        if let Err(e) = check_step(recorded_bytes(&reply)) {
            let reason = format!("the reply was not recorded: {e}");
            self.last_failure = Some(reason.clone());
            self.settle_incomplete(idx, reason, Signal::Other, now);
            return;
        }
        let Some(a) = self.active.get_mut(idx) else {
            return;
        };
        let need = match &mut a.machine {
            Machine::Official(m) => {
                if m.feed(&reply).is_some() && !m.is_finished() {
                    Need::Reply
                } else {
                    Need::Nothing
                }
            }
            Machine::Env(m) => m.feed(&reply),
        };
        self.after_step(idx, need, now);
    }

    /// Moves a task on after a reply or an environment answer.
    fn after_step(&mut self, idx: usize, need: Need, now: f64) {
        let next_env_id = self.next_env_id;
        let Some(a) = self.active.get_mut(idx) else {
            return;
        };
        match need {
            Need::Nothing => self.settle_machine(idx, now),
            Need::Reply => {
                a.step = Step::new(a.seed, a.machine.step());
                a.phase = Phase::Ready;
            }
            Need::Env => {
                let Machine::Env(m) = &a.machine else {
                    return;
                };
                let id = EnvCallId(next_env_id);
                let call = EnvCall {
                    id,
                    task: a.key,
                    prior: m.prior().to_vec(),
                    calls: m.pending().to_vec(),
                };
                a.phase = Phase::Env { id };
                self.next_env_id += 1;
                self.env_calls.push_back(call);
            }
        }
    }

    /// Reports the environment's answers to call `id` (one answer object per call, each
    /// with a `content` string), or why it could not answer (the task becomes incomplete,
    /// not a model error). Answers to calls of tasks that are no longer running are
    /// ignored.
    pub fn handle_env_result(
        &mut self,
        id: EnvCallId,
        answers: Result<Vec<Value>, String>,
        now: f64,
    ) {
        if self.finished {
            return;
        }
        let found = self
            .active
            .iter()
            .position(|a| matches!(a.phase, Phase::Env { id: i } if i == id));
        let Some(idx) = found else {
            return;
        };
        let outcome = match (answers, &mut self.active[idx].machine) {
            (Ok(list), Machine::Env(m)) => m.answer_env(list).map_err(|e| e.to_string()),
            (Ok(_), Machine::Official(_)) => {
                Err("an environment answer for an official task".to_owned())
            }
            (Err(e), _) => Err(e),
        };
        match outcome {
            Ok(need) => self.after_step(idx, need, now),
            Err(e) => {
                let reason = format!("the environment could not answer: {e}");
                self.last_failure = Some(reason.clone());
                self.settle_incomplete(idx, reason, Signal::Neutral, now);
            }
        }
        self.check_finished(now);
    }

    /// Lets an own-history run start its tasks with `start` (normally
    /// `protocol::start_own`); without it an own-history run's tasks end incomplete.
    #[cfg(feature = "own-history")]
    pub fn with_own_history(mut self, start: OwnStart) -> Self {
        self.own_start = Some(start);
        self
    }

    /// The next batch of tool calls for the environment to answer (environment runs).
    pub fn poll_env_call(&mut self) -> Option<EnvCall> {
        self.env_calls.pop_front()
    }

    /// True for an environment run.
    pub fn is_env(&self) -> bool {
        self.env.is_some()
    }

    fn task_failure(&mut self, idx: usize, f: Failure, now: f64) {
        self.last_failure = Some(f.message.clone());
        let Some(a) = self.active.get_mut(idx) else {
            return;
        };
        a.step.attempts += 1;
        let attempts = a.step.attempts;
        let delay = match f.class {
            FailureClass::Permanent => None,
            FailureClass::Transient => self.policy.delay(
                attempts,
                f.retry_after.map(Duration::from_secs_f64),
                a.step.jitter.next_unit(),
            ),
        };
        if let Some(d) = delay {
            a.phase = Phase::Waiting {
                until: now + d.as_secs_f64(),
            };
            self.counters.retries += 1;
            self.push_progress(now);
            return;
        }
        let reason = format!("gave up after {attempts} attempt(s): {}", f.message);
        let signal = match (f.class, f.status) {
            (FailureClass::Permanent, Some(status)) => Signal::Permanent {
                status,
                body: f.body,
                message: f.message,
            },
            _ => Signal::Other,
        };
        self.settle_incomplete(idx, reason, signal, now);
    }

    /// Settles a task whose machine stopped: finished with its result, or incomplete.
    fn settle_machine(&mut self, idx: usize, now: f64) {
        if idx >= self.active.len() {
            return;
        }
        let a = self.active.remove(idx);
        let names_correct = a.machine.names_correct();
        let usage = crate::cost::usage::extension_json(a.machine.cached_input_tokens());
        match a.machine.result() {
            Some(result) => self.settle_finished(a.job, a.key, (result, usage), names_correct, now),
            None => self.settle_job_incomplete(
                a.job,
                a.key,
                "the task machine did not finish".to_owned(),
                Signal::Neutral,
                now,
            ),
        }
    }

    fn settle_finished(
        &mut self,
        job: Job,
        key: TaskKey,
        (result, usage): (Value, Option<String>),
        names_correct: bool,
        now: f64,
    ) {
        let Some(session) = self.sessions.get(job.session).copied() else {
            return;
        };
        let result = dumps(&result, Escape::Utf8);
        let line = record_line_with_usage(
            &session.id,
            session.index,
            job.task,
            job.trial,
            &result,
            usage.as_deref(),
        );
        self.events.push_back(Event::Persist(line));
        self.counters.done += 1;
        self.counters.names_correct += u64::from(names_correct);
        let t = job.trial as usize - 1;
        if let Some(d) = self.done.get_mut(t) {
            d.insert((session.index, job.task), result);
        }
        self.breaker.on_other();
        self.events.push_back(Event::TaskSettled {
            key,
            finished: true,
            reason: None,
        });
        let left = self
            .remaining
            .get_mut(t)
            .and_then(|r| r.get_mut(job.session))
            .map(|n| {
                *n = n.saturating_sub(1);
                *n
            });
        if left == Some(0) {
            self.announce_session(t, job.session);
        }
        self.push_progress(now);
    }

    fn announce_session(&mut self, t: usize, i: usize) {
        let (Some(session), Some(done)) = (self.sessions.get(i).copied(), self.done.get(t)) else {
            return;
        };
        let results: Option<Vec<&str>> = (0..session.tasks.len())
            .map(|task| done.get(&(session.index, task)).map(String::as_str))
            .collect();
        if let Some(results) = results {
            self.events.push_back(Event::SessionComplete {
                trial: t as u32 + 1,
                line: session.index,
                result_line: session_result_line(self.spec.model(), &session.id, results),
            });
        }
    }

    fn settle_incomplete(&mut self, idx: usize, reason: String, signal: Signal, now: f64) {
        if idx >= self.active.len() {
            return;
        }
        let a = self.active.remove(idx);
        self.settle_job_incomplete(a.job, a.key, reason, signal, now);
    }

    fn settle_job_incomplete(
        &mut self,
        job: Job,
        key: TaskKey,
        reason: String,
        signal: Signal,
        now: f64,
    ) {
        let id = self
            .sessions
            .get(job.session)
            .map(|s| s.id.clone())
            .unwrap_or_default();
        self.counters.incomplete += 1;
        self.incomplete.push(IncompleteTask {
            key,
            id: id.clone(),
            reason: reason.clone(),
        });
        #[cfg(feature = "own-history")]
        if self.env.as_ref().is_some_and(EnvMode::is_own) {
            // Own history: the later tasks of the session cannot start without this one.
            let mut i = 0;
            while i < self.jobs.len() {
                let j = self.jobs[i];
                if j.trial == job.trial && j.session == job.session && j.task > job.task {
                    self.jobs.remove(i);
                    let later = TaskKey {
                        trial: j.trial,
                        line: key.line,
                        task: j.task,
                    };
                    let why = format!(
                        "not started: task {} of this own-history session did not finish",
                        job.task
                    );
                    self.counters.incomplete += 1;
                    self.incomplete.push(IncompleteTask {
                        key: later,
                        id: id.clone(),
                        reason: why.clone(),
                    });
                    self.events.push_back(Event::TaskSettled {
                        key: later,
                        finished: false,
                        reason: Some(why),
                    });
                } else {
                    i += 1;
                }
            }
        }
        self.events.push_back(Event::TaskSettled {
            key,
            finished: false,
            reason: Some(reason),
        });
        match signal {
            Signal::Permanent {
                status,
                body,
                message,
            } => {
                if self
                    .breaker
                    .on_permanent(Breaker::signature(status, &message))
                {
                    self.trip(status, &body, &message, now);
                }
            }
            Signal::Other => self.breaker.on_other(),
            Signal::Neutral => {}
        }
        self.push_progress(now);
    }

    /// The circuit breaker tripped: stop starting tasks and give up the started ones.
    fn trip(&mut self, status: u16, body: &str, message: &str, now: f64) {
        if self.stop.is_some() {
            return;
        }
        let n = self.breaker.count();
        let reason = format!(
            "stopped after {n} tasks in a row failed with the same error, which retrying cannot fix: {message}"
        );
        let fix = preflight::classify_response(self.provider(), status, body)
            .err()
            .and_then(|f| f.fix);
        self.stop = Some(Stop::Breaker { reason, fix });
        self.jobs.clear();
        self.abort_active(
            "not finished: the run was stopped by the circuit breaker",
            now,
        );
    }

    /// Gives up every started task with `reason`, aborting their requests.
    fn abort_active(&mut self, reason: &str, now: f64) {
        let active = std::mem::take(&mut self.active);
        for a in active {
            if let Phase::InFlight { id, .. } = a.phase {
                self.aborts.push_back(id);
                if let Some(b) = &mut self.budget {
                    b.lose(id);
                }
            }
            self.settle_job_incomplete(a.job, a.key, reason.to_owned(), Signal::Neutral, now);
        }
    }

    fn check_finished(&mut self, now: f64) {
        if self.finished {
            return;
        }
        let preflight_open = self
            .preflight
            .as_ref()
            .is_some_and(|pf| !matches!(pf.state, PreflightState::Passed));
        if preflight_open && self.stop.is_none() {
            return;
        }
        if self.active.is_empty() && (self.jobs.is_empty() || self.stop.is_some()) {
            self.finish(now);
        }
    }

    fn finish(&mut self, now: f64) {
        if self.finished {
            return;
        }
        let slots: Vec<SessionSlot> = self
            .sessions
            .iter()
            .map(|s| SessionSlot {
                line: s.index,
                id: s.id.clone(),
                tasks: s.tasks.len(),
            })
            .collect();
        let trials: Vec<_> = self
            .done
            .iter()
            .map(|d| assemble_json(self.spec.model(), &slots, d))
            .collect();
        let per_trial: u64 = self.sessions.iter().map(|s| s.tasks.len() as u64).sum();
        let tasks_total = per_trial * u64::from(self.spec.trials());
        let mut tasks_scored = 0u64;
        let mut tasks_done = 0u64;
        for (t, rem) in self.remaining.iter().enumerate() {
            for (i, left) in rem.iter().enumerate() {
                let n = self.sessions.get(i).map_or(0, |s| s.tasks.len() as u64);
                if *left == 0 {
                    tasks_scored += n;
                }
            }
            tasks_done += self.done.get(t).map_or(0, |d| d.len() as u64);
        }
        let last = self
            .last_failure
            .as_deref()
            .map(|f| format!("; last failure: {f}"))
            .unwrap_or_default();
        let unfinished = tasks_total.saturating_sub(tasks_done);
        let (status, reason, fix, preflight) = match &self.stop {
            Some(Stop::Cancelled) => (
                RunStatus::Cancelled,
                Some("cancelled".to_owned()),
                None,
                None,
            ),
            Some(Stop::Preflight(f)) => (
                RunStatus::Failed,
                Some(f.reason.clone()),
                f.fix.clone(),
                Some(f.class),
            ),
            Some(Stop::Budget { limit, spent }) => (
                if tasks_scored == 0 {
                    RunStatus::Failed
                } else {
                    RunStatus::Partial
                },
                Some(format!(
                    "stopped before the cost limit of {limit}: {spent:.4} spent, and the next request could have passed it; {unfinished} of {tasks_total} tasks did not finish"
                )),
                Some("re-run the same command with a higher --max-cost to resume".to_owned()),
                None,
            ),
            Some(Stop::Breaker { reason, fix }) => (
                if tasks_scored == 0 {
                    RunStatus::Failed
                } else {
                    RunStatus::Partial
                },
                Some(reason.clone()),
                fix.clone(),
                None,
            ),
            None if unfinished == 0 => (RunStatus::Done, None, None, None),
            None if tasks_scored == 0 => (
                RunStatus::Failed,
                Some(format!("no task could be scored: {unfinished} of {tasks_total} tasks did not finish{last}")),
                None,
                None,
            ),
            None => (
                RunStatus::Partial,
                Some(format!("{unfinished} of {tasks_total} tasks did not finish{last}")),
                None,
                None,
            ),
        };
        crate::order::sort_by_key(&mut self.incomplete, |t| t.key);
        self.drop_streams();
        self.finished = true;
        let progress = self.progress(now);
        self.push_progress(now);
        let end = RunEnd {
            status,
            reason,
            fix,
            preflight,
            trials,
            incomplete: std::mem::take(&mut self.incomplete),
            tasks_total,
            tasks_scored,
            progress,
            concurrency: self.aimd.stats(),
            spent: self.budget.as_ref().map(|b| b.spent),
        };
        self.events.push_back(Event::Finished(end));
    }
}
