//! The task driver: runs one task through the official task state machine with any
//! [`Responder`] (a live endpoint, a built-in agent or a recorded result file). Pure apart
//! from what the responder does.

use crate::dataset::Session;
use crate::json::Value;
use crate::protocol::Reply;

use super::checkpoint::TaskRecord;
use super::retry::GaveUp;
use super::schedule::{block_on, run_task_async, Ready};

/// What a responder sees of the current step.
#[derive(Debug, Clone, Copy)]
pub struct StepContext<'a> {
    /// The session.
    pub session: &'a Session,
    /// Task position.
    pub task: usize,
    /// Step index.
    pub step: usize,
    /// The messages of this request.
    pub messages: &'a [Value],
    /// The tools of this request.
    pub tools: &'a Value,
}

/// Per-task counters a responder updates.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskStats {
    /// Requests sent, retries included.
    pub requests: u64,
    /// Retries.
    pub retries: u64,
}

/// Answers one step. Implementations are shared by worker threads.
pub trait Responder: Sync {
    /// The reply to this step, or the reason the task cannot go on (transport).
    fn respond(&self, ctx: &StepContext<'_>, stats: &mut TaskStats) -> Result<Reply, GaveUp>;
}

/// The outcome of one task.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskRun {
    /// Dataset line of the session.
    pub line: usize,
    /// Task position.
    pub task: usize,
    /// The finished task (None when incomplete).
    pub record: Option<TaskRecord>,
    /// Why the task is incomplete (transport failure, cancellation, unusable gold graph).
    pub incomplete: Option<String>,
    /// The inference loop judged the names correct.
    pub names_correct: bool,
    /// Counters.
    pub stats: TaskStats,
    /// Sum of reported prompt tokens.
    pub input_tokens: u64,
    /// Sum of reported completion tokens.
    pub output_tokens: u64,
}

/// The seed of a task's history ids: reproducible prompts (N2).
pub fn task_seed(line: usize, task: usize) -> u64 {
    (line as u64)
        .wrapping_mul(1_000_003)
        .wrapping_add(task as u64)
}

/// Runs task `task` of `session` to its end (the synchronous form of
/// [`run_task_async`](super::schedule::run_task_async), which holds the loop).
pub fn run_task(session: &Session, task: usize, responder: &dyn Responder) -> TaskRun {
    block_on(run_task_async(session, task, &Ready(responder)))
}
