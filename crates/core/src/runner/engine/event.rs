//! What the engine hands to its driver: requests to send ([`Transmit`]) and
//! [`Event`]s to persist or draw.

use super::super::checkpoint::Assembled;
use super::super::http::HttpRequest;
use super::super::preflight::PreflightClass;
use super::super::stream::LatencySummary;

/// Identifies one request the engine asked a driver to send.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RequestId(pub u64);

/// Identifies one task attempt of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TaskKey {
    /// Trial, 1-based.
    pub trial: u32,
    /// The session's 0-based index in the dataset (`Session::line`).
    pub line: usize,
    /// Task position in the session, 0-based.
    pub task: usize,
}

/// Identifies one batch of tool calls handed to the environment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EnvCallId(pub u64);

/// Tool calls for the environment to answer (an environment run's extra output). The
/// answer must be a pure function of the session, `task.task`, `prior` and `calls`
/// (see `ledger::answer`), so any front end can compute it, in process or in another
/// module, and report it with
/// [`Engine::handle_env_result`](super::Engine::handle_env_result).
#[derive(Debug, Clone, PartialEq)]
pub struct EnvCall {
    /// Report the answers with this id.
    pub id: EnvCallId,
    /// The task (its `line` is the session's dataset index).
    pub task: TaskKey,
    /// The calls already executed in this task, in order.
    pub prior: Vec<crate::protocol::ToolCall>,
    /// The calls of this step, in emission order.
    pub calls: Vec<crate::protocol::ToolCall>,
}

/// A request to send.
#[derive(Debug, Clone, PartialEq)]
pub struct Transmit {
    /// Report the outcome with this id ([`Engine::handle_reply`](super::Engine::handle_reply)).
    pub id: RequestId,
    /// What to send; the driver attaches the API key (the request never holds it).
    pub request: HttpRequest,
    /// When the engine gives up on this request (same clock as `now`); drivers may set
    /// their transport's own timeout a little later.
    pub deadline: f64,
    /// The task this request belongs to (`None` for the preflight).
    pub task: Option<TaskKey>,
    /// The request is streamed: report the head, the body's chunks as they arrive and its
    /// end ([`Engine::handle_head`](super::Engine::handle_head),
    /// [`handle_bytes`](super::Engine::handle_bytes),
    /// [`handle_end`](super::Engine::handle_end)), and stop reading when it is aborted. A
    /// driver that cannot stream may report the whole response with `handle_reply`.
    pub stream: bool,
}

/// A task that did not finish in this invocation (never a model error; resumable).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IncompleteTask {
    /// Which task.
    pub key: TaskKey,
    /// Session id.
    pub id: String,
    /// Why.
    pub reason: String,
}

/// A point-in-time view of a run, ready to display.
#[derive(Debug, Clone, PartialEq)]
pub struct ProgressSnapshot {
    /// Tasks to run in this invocation (all trials; resumed ones excluded).
    pub total: u64,
    /// Tasks found finished in the checkpoint.
    pub resumed: u64,
    /// Tasks finished in this invocation.
    pub done: u64,
    /// Tasks given up in this invocation (transport, cancellation, unusable gold graph).
    pub incomplete: u64,
    /// Finished tasks whose tool names the inference loop judged correct.
    pub names_correct: u64,
    /// Requests sent (retries and the preflight included).
    pub requests: u64,
    /// Retries scheduled.
    pub retries: u64,
    /// Prompt tokens reported by the endpoint.
    pub input_tokens: u64,
    /// Completion tokens reported by the endpoint.
    pub output_tokens: u64,
    /// A built-in agent answers (no model is asked, so no tokens are used).
    pub builtin_agent: bool,
    /// Seconds since the engine was created.
    pub elapsed: f64,
    /// Settled tasks per second.
    pub rate: f64,
    /// Estimated seconds to go (`None` before the first task settles).
    pub eta: Option<f64>,
    /// The current concurrency limit (adaptive concurrency may hold it below the maximum).
    pub concurrency_limit: usize,
    /// The configured maximum concurrency.
    pub concurrency_max: usize,
    /// Requests in flight.
    pub in_flight: usize,
    /// Tasks waiting before a retry.
    pub waiting: usize,
    /// Seconds left of the longest current retry wait.
    pub longest_wait: Option<f64>,
    /// The most recent failure (a status and message, a network error, a timeout).
    pub last_failure: Option<String>,
    /// No new task starts until resumed.
    pub paused: bool,
    /// The preflight request is under way.
    pub preflight: bool,
    /// First-token latency of the streamed requests so far (`None` when nothing streamed
    /// has produced output yet).
    pub first_token: Option<LatencySummary>,
}

impl ProgressSnapshot {
    /// Finished plus given-up tasks.
    pub fn settled(&self) -> u64 {
        self.done + self.incomplete
    }

    /// What the tokens were, in words: `tokens 120+45`, or why there is no count — a
    /// built-in agent asked no model, an endpoint reported no usage — rather than a
    /// `0+0` that reads like a measurement.
    pub fn tokens_said(&self) -> String {
        if self.builtin_agent {
            "built-in agent: no model asked, no tokens".to_owned()
        } else if self.input_tokens == 0 && self.output_tokens == 0 {
            "no token usage reported".to_owned()
        } else {
            format!("tokens {}+{}", self.input_tokens, self.output_tokens)
        }
    }

    /// One plain status line (for logs and terminals without a progress bar).
    pub fn line(&self) -> String {
        let eta = self
            .eta
            .map(|e| format!("{e:.0}s"))
            .unwrap_or_else(|| "?".to_owned());
        let mut s = format!(
            "[{}/{}] {:.2} task/s eta {} | names ok {} | incomplete {} | requests {} | retries {} | {} | in flight {}/{}",
            self.settled(),
            self.total,
            self.rate,
            eta,
            self.names_correct,
            self.incomplete,
            self.requests,
            self.retries,
            self.tokens_said(),
            self.in_flight,
            self.concurrency_limit
        );
        s.push_str(&self.detail());
        s
    }

    /// The concurrency, waits, pause and last failure, as ` | …` parts (empty when there is
    /// nothing to say beyond the counters).
    pub fn detail(&self) -> String {
        let mut s = String::new();
        if self.preflight {
            s.push_str(" | checking the endpoint");
        }
        if self.paused {
            s.push_str(" | paused");
        }
        if self.concurrency_limit < self.concurrency_max {
            s.push_str(&format!(
                " | concurrency {}/{} (lowered after rate limiting)",
                self.concurrency_limit, self.concurrency_max
            ));
        }
        if self.waiting > 0 {
            s.push_str(&format!(
                " | {} waiting to retry (longest {:.1}s)",
                self.waiting,
                self.longest_wait.unwrap_or(0.0)
            ));
        }
        if let Some(t) = &self.first_token {
            s.push_str(&format!(" | {}", t.describe()));
        }
        if let Some(f) = &self.last_failure {
            let short: String = f.chars().take(120).collect();
            s.push_str(&format!(" | last failure: {short}"));
        }
        s
    }
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunStatus {
    /// Every task of every trial finished (and is scored).
    Done,
    /// Some tasks are scored, some are not (transport failures, a tripped circuit
    /// breaker); resumable.
    Partial,
    /// Stopped by the user; resumable.
    Cancelled,
    /// Nothing could be scored: the preflight failed, the circuit breaker stopped the run
    /// before any session was complete, or every task was incomplete.
    Failed,
}

impl RunStatus {
    /// `done`, `partial`, `cancelled` or `failed`.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Done => "done",
            RunStatus::Partial => "partial",
            RunStatus::Cancelled => "cancelled",
            RunStatus::Failed => "failed",
        }
    }
}

/// What adaptive concurrency did during the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConcurrencyStats {
    /// The configured maximum.
    pub max: usize,
    /// The lowest limit reached.
    pub min_limit: usize,
    /// The limit at the end.
    pub final_limit: usize,
    /// How many times the limit was halved.
    pub decreases: u64,
}

/// The end of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunEnd {
    /// How it ended.
    pub status: RunStatus,
    /// Why it did not end `Done` (preflight or circuit-breaker reason, last failure …).
    pub reason: Option<String>,
    /// What to do about it, when known.
    pub fix: Option<String>,
    /// The preflight's class, when the preflight failed.
    pub preflight: Option<PreflightClass>,
    /// The official result file of each trial (index 0 is trial 1): complete sessions
    /// only, sorted by session.
    pub trials: Vec<Assembled>,
    /// Tasks given up in this invocation, sorted by key.
    pub incomplete: Vec<IncompleteTask>,
    /// Tasks of the selection (all trials).
    pub tasks_total: u64,
    /// Tasks in complete sessions (all trials; resumed ones included): the scored ones.
    pub tasks_scored: u64,
    /// Final counters.
    pub progress: ProgressSnapshot,
    /// Adaptive concurrency.
    pub concurrency: ConcurrencyStats,
    /// What the run spent by the replies' reported usage (with given-up requests at their
    /// estimate), when the run had prices.
    pub spent: Option<f64>,
}

/// Something the driver must act on, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// Append this line to the checkpoint (and make it durable) before anything else.
    Persist(String),
    /// A task finished (`finished`) or was given up (`reason`).
    TaskSettled {
        /// Which task.
        key: TaskKey,
        /// It has a result.
        finished: bool,
        /// Why it is incomplete.
        reason: Option<String>,
    },
    /// Every task of a session finished in a trial: its official result line (no newline).
    /// Sessions already complete in the checkpoint are announced when the engine starts.
    SessionComplete {
        /// Trial, 1-based.
        trial: u32,
        /// The session's 0-based index.
        line: usize,
        /// The official result line.
        result_line: String,
    },
    /// The counters changed.
    Progress(ProgressSnapshot),
    /// The run is over (always the last event).
    Finished(RunEnd),
}
