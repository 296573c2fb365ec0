//! The async scheduler (single-threaded, executor-agnostic): the same task driver and run
//! bookkeeping as the native thread pool, for transports that return futures (the
//! browser's `fetch`). `concurrency` worker futures take tasks from a shared queue; they
//! are joined by a small combinator, so any executor (wasm-bindgen-futures, or
//! [`block_on`] for always-ready futures) can drive them.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::dataset::Session;
use crate::json::Value;
use crate::protocol::{IdSource, Reply, SeededIds, TaskMachine};

use super::checkpoint::{AsyncCheckpointStore, TaskRecord};
use super::driver::{task_seed, Responder, StepContext, TaskRun, TaskStats};
use super::plan::{Plan, RunConfig, RunError, RunSummary};
use super::progress::Progress;
use super::retry::GaveUp;

/// A boxed future that need not be `Send`.
pub type LocalFuture<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

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

/// Drives a future whose awaits are always ready (synchronous responders). A future that
/// pends is polled again at once, so use a real executor for real IO.
pub fn block_on<F: Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    let mut cx = Context::from_waker(std::task::Waker::noop());
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

/// Runs task `task` of `session` to its end with an async responder.
pub async fn run_task_async(
    session: &Session,
    task: usize,
    responder: &dyn AsyncResponder,
) -> TaskRun {
    let mut ids = SeededIds::new(task_seed(session.line, task));
    let mut run = TaskRun {
        line: session.line,
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
        line: session.line,
        task,
        result,
    });
    if run.record.is_none() {
        run.incomplete = Some("the task machine did not finish".to_owned());
    }
    run
}

/// Polls every future until all are done.
struct JoinAll<'a> {
    futures: Vec<Option<LocalFuture<'a, ()>>>,
}

impl Future for JoinAll<'_> {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut pending = false;
        for slot in self.futures.iter_mut() {
            if let Some(f) = slot {
                if f.as_mut().poll(cx).is_ready() {
                    *slot = None;
                } else {
                    pending = true;
                }
            }
        }
        if pending {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    }
}

/// Runs every task of `sessions` not already in `store`, `config.concurrency` at a time.
///
/// Each finished task's checkpoint line is queued at once and written by one worker at a
/// time, in completion order. `now()` returns seconds since any fixed origin (e.g.
/// `Date.now() / 1000`); `on_progress` is called after each task. Setting `cancel` stops
/// starting new tasks; a storage failure sets it and is returned.
pub async fn execute_async<S: AsyncCheckpointStore>(
    sessions: &[&Session],
    responder: &dyn AsyncResponder,
    store: &mut S,
    config: RunConfig<'_>,
    cancel: &Cell<bool>,
    now: &dyn Fn() -> f64,
    on_progress: &mut dyn FnMut(&Progress, f64),
) -> Result<RunSummary, RunError<S::Error>>
where
    S::Error: 'static,
{
    let lines = store.load().await.map_err(RunError::Store)?;
    let (mut plan, header) = Plan::from_lines(sessions, &lines, config)?;
    if let Some(header) = header {
        store.append(&header).await.map_err(RunError::Store)?;
    }
    let start = now();
    on_progress(&plan.progress, 0.0);
    let jobs = std::mem::take(&mut plan.jobs);
    let next = Cell::new(0usize);
    let state = RefCell::new((plan, on_progress));
    let queue: RefCell<VecDeque<String>> = RefCell::new(VecDeque::new());
    // The store is taken out by the one worker that is writing (`None` while it writes).
    let writer: Cell<Option<&mut S>> = Cell::new(Some(store));
    let error: RefCell<Option<S::Error>> = RefCell::new(None);
    let workers = (0..config.concurrency.clamp(1, jobs.len().max(1)))
        .map(|_| {
            let fut: LocalFuture<'_, ()> = Box::pin(async {
                while !cancel.get() {
                    let i = next.get();
                    next.set(i + 1);
                    let Some(&(session, task)) = jobs.get(i) else {
                        break;
                    };
                    let run = run_task_async(session, task, responder).await;
                    let elapsed = now() - start;
                    {
                        let mut guard = state.borrow_mut();
                        let (plan, on_progress) = &mut *guard;
                        if let Some(line) = plan.settle(run, elapsed) {
                            queue.borrow_mut().push_back(line);
                        }
                        on_progress(&plan.progress, elapsed);
                    }
                    if let Some(store) = writer.take() {
                        loop {
                            let Some(line) = queue.borrow_mut().pop_front() else {
                                break;
                            };
                            if let Err(e) = store.append(&line).await {
                                error.borrow_mut().get_or_insert(e);
                                cancel.set(true);
                                break;
                            }
                        }
                        writer.set(Some(store));
                    }
                }
            });
            Some(fut)
        })
        .collect();
    JoinAll { futures: workers }.await;
    if let Some(e) = error.into_inner() {
        return Err(RunError::Store(e));
    }
    Ok(state.into_inner().0.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::{load_dataset, Lang};
    use crate::runner::agents::GoldAgent;
    use crate::runner::checkpoint::MemoryStore;

    /// A responder that pends once before every reply, like real IO.
    struct Yielding;
    impl AsyncResponder for Yielding {
        fn respond<'a>(
            &'a self,
            ctx: StepContext<'a>,
        ) -> LocalFuture<'a, (Result<Reply, GaveUp>, TaskStats)> {
            Box::pin(async move {
                let mut yielded = false;
                std::future::poll_fn(|cx| {
                    if yielded {
                        Poll::Ready(())
                    } else {
                        yielded = true;
                        cx.waker().wake_by_ref();
                        Poll::Pending
                    }
                })
                .await;
                let mut stats = TaskStats::default();
                (GoldAgent.respond(&ctx, &mut stats), stats)
            })
        }
    }

    fn yield_once() -> impl Future<Output = ()> {
        let mut yielded = false;
        std::future::poll_fn(move |cx| {
            if yielded {
                Poll::Ready(())
            } else {
                yielded = true;
                cx.waker().wake_by_ref();
                Poll::Pending
            }
        })
    }

    /// An async store whose writes pend once (like IndexedDB), failing after `fail_after`.
    struct SlowStore {
        lines: Vec<String>,
        fail_after: usize,
    }

    #[derive(Debug, thiserror::Error)]
    #[error("disk full")]
    struct Full;

    impl AsyncCheckpointStore for SlowStore {
        type Error = Full;
        fn load(&mut self) -> LocalFuture<'_, Result<Vec<String>, Full>> {
            Box::pin(std::future::ready(Ok(self.lines.clone())))
        }
        fn append<'a>(&'a mut self, line: &'a str) -> LocalFuture<'a, Result<(), Full>> {
            Box::pin(async move {
                yield_once().await;
                if self.lines.len() >= self.fail_after {
                    return Err(Full);
                }
                self.lines.push(line.to_owned());
                Ok(())
            })
        }
    }

    #[test]
    fn async_stores_receive_every_line_and_failures_stop_the_run() {
        let text = include_str!("../../../../tests/fixtures/mini.jsonl").to_owned();
        let loaded = load_dataset(&text, Lang::En);
        let sessions: Vec<&Session> = loaded.sessions.iter().collect();
        let config = RunConfig {
            model: "gold",
            dataset_fingerprint: "fp",
            concurrency: 4,
        };
        let mut store = SlowStore {
            lines: Vec::new(),
            fail_after: usize::MAX,
        };
        let r = block_on(execute_async(
            &sessions,
            &Yielding,
            &mut store,
            config,
            &Cell::new(false),
            &|| 0.0,
            &mut |_, _| {},
        ));
        assert!(r.is_ok());
        assert_eq!(store.lines.len(), 33);
        let mut keys: Vec<(usize, usize)> = store
            .lines
            .iter()
            .filter_map(|l| TaskRecord::from_line(l))
            .map(|r| (r.line, r.task))
            .collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), 32, "every task stored exactly once");

        let mut full = SlowStore {
            lines: Vec::new(),
            fail_after: 10,
        };
        let cancel = Cell::new(false);
        let r = block_on(execute_async(
            &sessions,
            &Yielding,
            &mut full,
            config,
            &cancel,
            &|| 0.0,
            &mut |_, _| {},
        ));
        assert!(matches!(r, Err(RunError::Store(Full))));
        assert!(cancel.get());
        assert_eq!(full.lines.len(), 10);
    }

    #[test]
    fn the_async_scheduler_equals_the_sync_driver_and_resumes() {
        let text = include_str!("../../../../tests/fixtures/mini.jsonl").to_owned();
        let loaded = load_dataset(&text, Lang::En);
        let sessions: Vec<&Session> = loaded.sessions.iter().collect();
        let config = RunConfig {
            model: "gold",
            dataset_fingerprint: "fp",
            concurrency: 3,
        };
        let mut store = MemoryStore::default();
        let cancel = Cell::new(false);
        let mut calls = 0;
        let summary = block_on(execute_async(
            &sessions,
            &Yielding,
            &mut store,
            config,
            &cancel,
            &|| 0.0,
            &mut |_, _| calls += 1,
        ));
        let summary = summary.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(summary.progress.done, 32);
        assert_eq!(summary.assembled.sessions, 8);
        assert_eq!(calls, 33);

        // The same tasks through the synchronous driver give identical records.
        for (s, t) in [(0usize, 0usize), (5, 1), (7, 3)] {
            let session = loaded
                .sessions
                .iter()
                .find(|x| x.line == s)
                .unwrap_or_else(|| panic!("no session {s}"));
            let sync = crate::runner::driver::run_task(session, t, &GoldAgent)
                .record
                .map(|r| r.to_line());
            let stored = store.lines.iter().find(|l| {
                l.starts_with(&format!(
                    "{{\"id\": \"{}\", \"line\": {s}, \"task\": {t},",
                    session.id
                ))
            });
            assert_eq!(sync.as_ref(), stored, "session {s} task {t}");
        }

        // Resume: drop 5 records, the rerun does exactly those and assembles the same file.
        let mut cut = MemoryStore {
            lines: store.lines[..store.lines.len() - 5].to_vec(),
        };
        let again = block_on(execute_async(
            &sessions,
            &Ready(&GoldAgent),
            &mut cut,
            config,
            &cancel,
            &|| 0.0,
            &mut |_, _| {},
        ));
        let again = again.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((again.progress.done, again.progress.resumed), (5, 27));
        assert_eq!(again.assembled.text, summary.assembled.text);
    }
}
