//! The bookkeeping of a run, shared by the native thread pool and the async (browser)
//! scheduler: resume from the checkpoint, the list of tasks still to run, persisting each
//! finished task at once, progress counters, and the final assembly. Pure: storage is a
//! [`CheckpointStore`], time is passed in.

use std::collections::BTreeMap;

use crate::dataset::Session;

use super::checkpoint::{
    assemble, header_line, recover, Assembled, CheckpointMismatch, CheckpointStore, SessionSlot,
    TaskRecord,
};
use super::driver::TaskRun;
use super::progress::Progress;

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

/// The result of a run.
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

/// The state of a run between its start and its assembly.
#[derive(Debug)]
pub struct Plan<'s> {
    /// Tasks to run in this invocation: `(session, task position)`.
    pub jobs: Vec<(&'s Session, usize)>,
    /// Counters.
    pub progress: Progress,
    done: BTreeMap<(usize, usize), TaskRecord>,
    slots: Vec<SessionSlot>,
    incomplete: Vec<IncompleteTask>,
    model: String,
}

impl<'s> Plan<'s> {
    /// Reads the checkpoint (writing its header when new) and lists the missing tasks.
    pub fn prepare<S: CheckpointStore>(
        sessions: &[&'s Session],
        store: &mut S,
        config: RunConfig<'_>,
    ) -> Result<Self, RunError<S::Error>>
    where
        S::Error: 'static,
    {
        let lines = store.load().map_err(RunError::Store)?;
        let (plan, header) = Self::from_lines(sessions, &lines, config)?;
        if let Some(header) = header {
            store.append(&header).map_err(RunError::Store)?;
        }
        Ok(plan)
    }

    /// The plan for stored checkpoint `lines`, and the header line to store first when the
    /// checkpoint is new (for stores that are driven by the caller, e.g. async ones).
    pub fn from_lines(
        sessions: &[&'s Session],
        lines: &[String],
        config: RunConfig<'_>,
    ) -> Result<(Self, Option<String>), CheckpointMismatch> {
        let done = recover(lines, config.model, config.dataset_fingerprint)?;
        let header = lines
            .is_empty()
            .then(|| header_line(config.model, config.dataset_fingerprint));
        let slots = sessions
            .iter()
            .map(|s| SessionSlot {
                line: s.line,
                id: s.id.clone(),
                tasks: s.tasks.len(),
            })
            .collect();
        let mut jobs = Vec::new();
        let mut resumed = 0u64;
        for &s in sessions {
            for t in 0..s.tasks.len() {
                if done.contains_key(&(s.line, t)) {
                    resumed += 1;
                } else {
                    jobs.push((s, t));
                }
            }
        }
        let progress = Progress::new(jobs.len() as u64, resumed);
        let plan = Self {
            jobs,
            progress,
            done,
            slots,
            incomplete: Vec::new(),
            model: config.model.to_owned(),
        };
        Ok((plan, header))
    }

    /// Records a settled task: a finished one is appended to the store before this returns.
    pub fn record<S: CheckpointStore>(
        &mut self,
        run: TaskRun,
        store: &mut S,
        elapsed: f64,
    ) -> Result<(), S::Error> {
        match self.settle(run, elapsed) {
            Some(line) => store.append(&line),
            None => Ok(()),
        }
    }

    /// Counts a settled task and returns the checkpoint line the caller must store (for a
    /// finished task), or `None` for an incomplete one.
    pub fn settle(&mut self, run: TaskRun, elapsed: f64) -> Option<String> {
        let p = &mut self.progress;
        p.requests += run.stats.requests;
        p.retries += run.stats.retries;
        p.input_tokens += run.input_tokens;
        p.output_tokens += run.output_tokens;
        p.elapsed = elapsed;
        match run.record {
            Some(record) => {
                let line = record.to_line();
                p.done += 1;
                p.names_correct += u64::from(run.names_correct);
                self.done.insert((record.line, record.task), record);
                Some(line)
            }
            None => {
                p.incomplete += 1;
                let id = self
                    .slots
                    .iter()
                    .find(|s| s.line == run.line)
                    .map(|s| s.id.clone())
                    .unwrap_or_default();
                self.incomplete.push(IncompleteTask {
                    id,
                    line: run.line,
                    task: run.task,
                    reason: run.incomplete.unwrap_or_default(),
                });
                None
            }
        }
    }

    /// Assembles the official result file from everything finished so far.
    pub fn finish(mut self) -> RunSummary {
        self.incomplete.sort_by_key(|t| (t.line, t.task));
        let assembled = assemble(&self.model, &self.slots, &self.done);
        RunSummary {
            progress: self.progress,
            incomplete: self.incomplete,
            assembled,
        }
    }
}
