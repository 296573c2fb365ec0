//! A whole run natively: resume from the checkpoint, run the missing tasks on a thread
//! pool, persist each finished task at once, and assemble the official result file.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use wildtool_core::dataset::Session;
use wildtool_core::runner::checkpoint::CheckpointStore;
use wildtool_core::runner::driver::{run_task, Responder, TaskRun};
use wildtool_core::runner::progress::Progress;

use wildtool_core::runner::plan::Plan;
pub use wildtool_core::runner::plan::{IncompleteTask, RunConfig, RunError, RunSummary};

use super::pool::run_pool;

/// Runs every task of `sessions` not already in `store`.
///
/// `on_progress` is called on the calling thread after each task with the counters and
/// the seconds elapsed. A storage failure cancels the run (tasks in flight finish).
pub fn execute<S: CheckpointStore>(
    sessions: &[&Session],
    responder: &dyn Responder,
    store: &mut S,
    config: RunConfig<'_>,
    cancel: &AtomicBool,
    mut on_progress: impl FnMut(&Progress, f64),
) -> Result<RunSummary, RunError<S::Error>>
where
    S::Error: 'static,
{
    let mut plan = Plan::prepare(sessions, store, config)?;
    let started = Instant::now();
    on_progress(&plan.progress, 0.0);
    let mut store_error = None;
    let jobs = std::mem::take(&mut plan.jobs);
    run_pool(
        &jobs,
        config.concurrency,
        cancel,
        |(s, t)| run_task(s, *t, responder),
        |_, run: TaskRun| {
            let elapsed = started.elapsed().as_secs_f64();
            if let Err(e) = plan.record(run, store, elapsed) {
                if store_error.is_none() {
                    store_error = Some(e);
                }
                cancel.store(true, Ordering::SeqCst);
            }
            on_progress(&plan.progress, elapsed);
        },
    );
    if let Some(e) = store_error {
        return Err(RunError::Store(e));
    }
    Ok(plan.finish())
}
