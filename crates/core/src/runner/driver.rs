//! The per-task loop: runs one task through the official task state machine with any
//! [`Responder`] (a built-in agent or a recorded result file) or [`AsyncResponder`] (a
//! future-based transport). Pure apart from what the responder does. Whole runs go
//! through the run engine (`runner::engine`), which steps the same state machine itself.

use crate::dataset::Session;
use crate::json::Value;
use crate::protocol::{IdSource, Reply, SeededIds, TaskMachine};

use super::checkpoint::TaskRecord;
use super::exec::{block_on, LocalFuture};
use super::retry::GaveUp;

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

/// Runs task `task` of `session` to its end (the synchronous form of [`run_task_async`],
/// which holds the loop).
pub fn run_task(session: &Session, task: usize, responder: &dyn Responder) -> TaskRun {
    block_on(run_task_async(session, task, &Ready(responder)))
}

/// Answers one step asynchronously.
pub trait AsyncResponder {
    /// The reply (or why the task cannot go on) and the step's counters.
    fn respond<'a>(
        &'a self,
        ctx: StepContext<'a>,
    ) -> LocalFuture<'a, (Result<Reply, GaveUp>, TaskStats)>;
}

/// Any synchronous [`Responder`] as an [`AsyncResponder`] whose futures are ready at once.
#[derive(Debug, Clone, Copy)]
pub struct Ready<'r, R: ?Sized>(pub &'r R);

impl<R: Responder + ?Sized> AsyncResponder for Ready<'_, R> {
    fn respond<'a>(
        &'a self,
        ctx: StepContext<'a>,
    ) -> LocalFuture<'a, (Result<Reply, GaveUp>, TaskStats)> {
        let mut stats = TaskStats::default();
        let r = self.0.respond(&ctx, &mut stats);
        Box::pin(std::future::ready((r, stats)))
    }
}

/// Runs task `task` of `session` to its end with an async responder.
pub async fn run_task_async(
    session: &Session,
    task: usize,
    responder: &dyn AsyncResponder,
) -> TaskRun {
    let mut ids = SeededIds::new(task_seed(session.index, task));
    let mut run = TaskRun {
        line: session.index,
        task,
        record: None,
        incomplete: None,
        names_correct: false,
        stats: TaskStats::default(),
        input_tokens: 0,
        output_tokens: 0,
    };
    let mut machine = match TaskMachine::new(session, task, &mut ids as &mut dyn IdSource) {
        Ok(m) => m,
        Err(e) => {
            run.incomplete = Some(e.to_string());
            return run;
        }
    };
    while !machine.is_finished() {
        let ctx = StepContext {
            session,
            task,
            step: machine.step(),
            messages: machine.messages(),
            tools: machine.tools(),
        };
        let (reply, stats) = responder.respond(ctx).await;
        run.stats.requests += stats.requests;
        run.stats.retries += stats.retries;
        let reply = match reply {
            Ok(r) => r,
            Err(e) => {
                run.incomplete = Some(e.to_string());
                return run;
            }
        };
        let count = |v: &Value| v.as_i64().map(|x| x.max(0) as u64).unwrap_or(0);
        run.input_tokens += count(&reply.input_tokens);
        run.output_tokens += count(&reply.output_tokens);
        if machine.feed(&reply).is_none() {
            break;
        }
    }
    run.names_correct = machine.verdict().map(|v| v.names_correct).unwrap_or(false);
    run.record = machine.result().map(|result| TaskRecord {
        id: session.id.clone(),
        line: session.index,
        task,
        trial: 1,
        result,
    });
    if run.record.is_none() {
        run.incomplete = Some("the task machine did not finish".to_owned());
    }
    run
}
