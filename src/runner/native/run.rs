//! A whole run natively: resume from the checkpoint, run the missing tasks on a thread
//! pool, persist each finished task at once, and assemble the official result file.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crate::dataset::Session;
use crate::runner::checkpoint::{assemble, header_line, recover, Assembled, CheckpointMismatch, CheckpointStore, SessionSlot};
use crate::runner::driver::{run_task, Responder, TaskRun};
use crate::runner::progress::Progress;

use super::pool::run_pool;

/// A task given up for transport reasons (re-runnable; not a model error).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IncompleteTask {
    /// Session id.
    pub id: String,
    /// Dataset line.
    pub line: usize,
    /// Task position.
    pub task: usize,
    /// Why.
    pub reason: String,
}

/// The result of [`execute`].
#[derive(Debug, Clone)]
pub struct RunSummary {
    /// Final counters.
    pub progress: Progress,
    /// Tasks that did not finish in this invocation.
    pub incomplete: Vec<IncompleteTask>,
    /// The assembled result file.
    pub assembled: Assembled,
}

/// A run that could not proceed.
#[derive(Debug, thiserror::Error)]
pub enum RunError<E: std::error::Error + 'static> {
    /// The checkpoint belongs to another run.
    #[error(transparent)]
    Mismatch(#[from] CheckpointMismatch),
    /// The checkpoint storage failed.
    #[error("checkpoint: {0}")]
    Store(#[source] E),
}

/// What identifies a run's checkpoint, and how wide it runs.
#[derive(Debug, Clone, Copy)]
pub struct RunConfig<'a> {
    /// Model name (written to the checkpoint header and the result file).
    pub model: &'a str,
    /// Dataset fingerprint (checkpoint header).
    pub dataset_fingerprint: &'a str,
    /// Tasks in flight.
    pub concurrency: usize,
}

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
    let RunConfig { model, dataset_fingerprint, concurrency } = config;
    let lines = store.load().map_err(RunError::Store)?;
    let mut done = recover(&lines, model, dataset_fingerprint)?;
    if lines.is_empty() {
        store.append(&header_line(model, dataset_fingerprint)).map_err(RunError::Store)?;
    }
    let slots: Vec<SessionSlot> =
        sessions.iter().map(|s| SessionSlot { line: s.line, id: s.id.clone(), tasks: s.tasks.len() }).collect();
    let mut jobs: Vec<(&Session, usize)> = Vec::new();
    let mut resumed = 0u64;
    for s in sessions {
        for t in 0..s.tasks.len() {
            if done.contains_key(&(s.line, t)) {
                resumed += 1;
            } else {
                jobs.push((s, t));
            }
        }
    }
    let mut progress = Progress::new(jobs.len() as u64, resumed);
    let started = Instant::now();
    on_progress(&progress, 0.0);
    let mut incomplete = Vec::new();
    let mut store_error = None;
    run_pool(&jobs, concurrency, cancel, |(s, t)| run_task(s, *t, responder), |i, run: TaskRun| {
        progress.requests += run.stats.requests;
        progress.retries += run.stats.retries;
        progress.input_tokens += run.input_tokens;
        progress.output_tokens += run.output_tokens;
        match run.record {
            Some(record) => {
                if store_error.is_none() {
                    if let Err(e) = store.append(&record.to_line()) {
                        store_error = Some(e);
                        cancel.store(true, Ordering::SeqCst);
                    }
                }
                progress.done += 1;
                progress.names_correct += u64::from(run.names_correct);
                done.insert((record.line, record.task), record);
            }
            None => {
                progress.incomplete += 1;
                let id = jobs.get(i).map(|(s, _)| s.id.clone()).unwrap_or_default();
                incomplete.push(IncompleteTask { id, line: run.line, task: run.task, reason: run.incomplete.unwrap_or_default() });
            }
        }
        progress.elapsed = started.elapsed().as_secs_f64();
        on_progress(&progress, progress.elapsed);
    });
    if let Some(e) = store_error {
        return Err(RunError::Store(e));
    }
    incomplete.sort_by_key(|t| (t.line, t.task));
    let assembled = assemble(model, &slots, &done);
    Ok(RunSummary { progress, incomplete, assembled })
}

