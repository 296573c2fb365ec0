//! The native driver of the run engine: worker threads send requests with a blocking
//! [`Transport`] and report back over a channel; the calling thread owns the engine,
//! waits on the channel until the engine's next deadline, feeds replies and controls
//! (pause, resume, cancel — e.g. from a Ctrl-C handler) and hands every event to the
//! caller. Nothing here decides anything: counting, retrying, timing out and assembling
//! are the engine's. A streamed request's head and chunks are passed on as they arrive;
//! once the engine aborts it, its worker stops reading at the next chunk (a read that is
//! waiting gives up after the stream idle timeout).

use std::collections::HashSet;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use wildtool_core::json::Value;
use wildtool_core::provenance::manifest::ExchangeLog;
use wildtool_core::runner::engine::{Engine, EnvCall, Event, RequestId, RunEnd};
use wildtool_core::runner::http::{HttpHead, HttpReply, HttpRequest};

use super::transport::{StreamSink, Streamed, Transport};

/// Built-in-agent steps run between two looks at the channel.
const AGENT_BUDGET: usize = 64;
/// A progress snapshot is handed out at least this often while nothing else happens.
const TICK: Duration = Duration::from_millis(500);
/// The transport's own timeout runs this much past the engine's deadline, so the engine
/// always decides first.
const TRANSPORT_SLACK: f64 = 1.0;

/// What a controller can ask of a running drive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    /// Stop starting tasks.
    Pause,
    /// Start tasks again.
    Resume,
    /// End the run now (in-flight requests are abandoned).
    Cancel,
}

enum Msg {
    Reply(RequestId, HttpReply, Instant),
    Head(RequestId, HttpHead, Instant),
    Bytes(RequestId, Vec<u8>, Instant),
    End(RequestId, Instant),
    Control(Control),
}

/// Steers a drive from another thread; sending is noticed at once.
#[derive(Debug, Clone)]
pub struct Controller {
    tx: Sender<Msg>,
}

impl std::fmt::Debug for Msg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Msg::Reply(id, _, _) => write!(f, "Reply({id:?})"),
            Msg::Head(id, h, _) => write!(f, "Head({id:?}, {})", h.status),
            Msg::Bytes(id, b, _) => write!(f, "Bytes({id:?}, {})", b.len()),
            Msg::End(id, _) => write!(f, "End({id:?})"),
            Msg::Control(c) => write!(f, "Control({c:?})"),
        }
    }
}

impl Controller {
    /// Asks the drive to pause, resume or cancel (ignored once it is over).
    pub fn send(&self, control: Control) {
        let _ = self.tx.send(Msg::Control(control));
    }
}

struct Work {
    id: RequestId,
    request: HttpRequest,
    timeout: Duration,
    /// `Some(idle timeout)` for a streamed request.
    stream: Option<Duration>,
}

/// Requests the engine aborted (their workers stop reading).
type Aborted = Arc<Mutex<HashSet<RequestId>>>;

/// Passes a streamed response to the driver's channel as it arrives.
struct ChannelSink<'a> {
    id: RequestId,
    tx: &'a Sender<Msg>,
    aborted: &'a Aborted,
}

impl ChannelSink<'_> {
    fn wanted(&self) -> bool {
        !self
            .aborted
            .lock()
            .map(|a| a.contains(&self.id))
            .unwrap_or(false)
    }
}

impl StreamSink for ChannelSink<'_> {
    fn head(&mut self, head: HttpHead) {
        let _ = self.tx.send(Msg::Head(self.id, head, Instant::now()));
    }

    fn bytes(&mut self, chunk: &[u8]) -> bool {
        self.wanted()
            && self
                .tx
                .send(Msg::Bytes(self.id, chunk.to_vec(), Instant::now()))
                .is_ok()
    }
}

/// Runs engines over a transport with worker threads (one per request in flight, reused).
pub struct Driver {
    transport: Arc<dyn Transport>,
    clock: Instant,
    tx: Sender<Msg>,
    rx: Receiver<Msg>,
    work_tx: Sender<Work>,
    work_rx: Arc<Mutex<Receiver<Work>>>,
    workers: usize,
    outstanding: usize,
    aborted: Aborted,
    exchanges: ExchangeLog,
}

impl std::fmt::Debug for Driver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Driver")
            .field("workers", &self.workers)
            .field("outstanding", &self.outstanding)
            .finish()
    }
}

impl Driver {
    /// A driver sending with `transport`.
    pub fn new(transport: Arc<dyn Transport>) -> Self {
        let (tx, rx) = mpsc::channel();
        let (work_tx, work_rx) = mpsc::channel();
        Self {
            transport,
            clock: Instant::now(),
            tx,
            rx,
            work_tx,
            work_rx: Arc::new(Mutex::new(work_rx)),
            workers: 0,
            outstanding: 0,
            aborted: Arc::default(),
            exchanges: ExchangeLog::new(),
        }
    }

    /// A handle to pause, resume or cancel the drive from another thread.
    pub fn controller(&self) -> Controller {
        Controller {
            tx: self.tx.clone(),
        }
    }

    /// Seconds since the driver was created: the `now` of the engines it drives (create
    /// the engine with it).
    pub fn now(&self) -> f64 {
        self.clock.elapsed().as_secs_f64()
    }

    /// The hashes of every request sent and reply received so far, per task (for the run
    /// manifest); the driver starts a new log.
    pub fn take_exchanges(&mut self) -> ExchangeLog {
        std::mem::take(&mut self.exchanges)
    }

    fn at(&self, t: Instant) -> f64 {
        t.saturating_duration_since(self.clock).as_secs_f64()
    }

    fn dispatch(&mut self, work: Work) {
        if self.outstanding >= self.workers {
            self.spawn_worker();
        }
        self.outstanding += 1;
        let _ = self.work_tx.send(work);
    }

    fn spawn_worker(&mut self) {
        let rx = self.work_rx.clone();
        let tx = self.tx.clone();
        let transport = self.transport.clone();
        let aborted = self.aborted.clone();
        let spawned = std::thread::Builder::new()
            .name("wildtool-http".to_owned())
            .spawn(move || loop {
                let work = match rx.lock() {
                    Ok(guard) => guard.recv(),
                    Err(_) => return,
                };
                let Ok(work) = work else { return };
                let msg = match work.stream {
                    None => {
                        let reply = transport.send(&work.request, work.timeout);
                        Msg::Reply(work.id, reply, Instant::now())
                    }
                    Some(idle) => {
                        let mut sink = ChannelSink {
                            id: work.id,
                            tx: &tx,
                            aborted: &aborted,
                        };
                        let outcome =
                            transport.send_streaming(&work.request, work.timeout, idle, &mut sink);
                        if let Ok(mut a) = aborted.lock() {
                            a.remove(&work.id);
                        }
                        match outcome {
                            Streamed::Ended | Streamed::Stopped => {
                                Msg::End(work.id, Instant::now())
                            }
                            Streamed::Failed(reply) => Msg::Reply(work.id, reply, Instant::now()),
                        }
                    }
                };
                if tx.send(msg).is_err() {
                    return;
                }
            });
        if spawned.is_ok() {
            self.workers += 1;
        }
    }

    /// Runs `engine` to its end. Every event except the final `Finished` goes to
    /// `on_event` in order (a `Persist` line must be durable when it returns); an error
    /// from it cancels the run and is returned. Progress snapshots also come at least
    /// every half second while the run waits.
    pub fn run<E>(
        &mut self,
        engine: &mut Engine<'_>,
        on_event: impl FnMut(Event) -> Result<(), E>,
    ) -> Result<RunEnd, E> {
        self.run_with_env(engine, on_event, |_| {
            Err("this run has no environment".to_owned())
        })
    }

    /// [`Driver::run`] for an environment run: the engine's tool calls are answered in
    /// process by `answer`, on the calling thread, as soon as they come out.
    pub fn run_with_env<E>(
        &mut self,
        engine: &mut Engine<'_>,
        mut on_event: impl FnMut(Event) -> Result<(), E>,
        mut answer: impl FnMut(&EnvCall) -> Result<Vec<Value>, String>,
    ) -> Result<RunEnd, E> {
        let mut last_progress = Instant::now();
        loop {
            let now = self.now();
            engine.handle_timeout(now);
            let idle =
                Duration::from_secs_f64(engine.spec().stream_idle_timeout() + TRANSPORT_SLACK);
            while let Some(t) = engine.poll_transmit(now) {
                let timeout =
                    Duration::from_secs_f64((t.deadline - now).max(0.0) + TRANSPORT_SLACK);
                self.exchanges.sent(t.id.0, t.task, &t.request.body);
                self.dispatch(Work {
                    id: t.id,
                    request: t.request,
                    timeout,
                    stream: t.stream.then_some(idle),
                });
            }
            // A blocking request cannot be interrupted: an aborted one is left to finish
            // (bounded by its transport timeout) and its reply is ignored by the engine; a
            // streamed one stops reading at its next chunk.
            while let Some(id) = engine.poll_abort() {
                if let Ok(mut a) = self.aborted.lock() {
                    a.insert(id);
                }
            }
            let mut steps = engine.step_agents(AGENT_BUDGET, now);
            while let Some(call) = engine.poll_env_call() {
                let answers = answer(&call);
                engine.handle_env_result(call.id, answers, self.now());
                steps += 1;
            }
            while let Some(event) = engine.poll_event() {
                match event {
                    Event::Finished(end) => return Ok(end),
                    Event::Progress(_) => {
                        last_progress = Instant::now();
                        if let Err(e) = on_event(event) {
                            engine.cancel(self.now());
                            return Err(e);
                        }
                    }
                    other => {
                        if let Err(e) = on_event(other) {
                            engine.cancel(self.now());
                            return Err(e);
                        }
                    }
                }
            }
            if last_progress.elapsed() >= TICK {
                last_progress = Instant::now();
                if let Err(e) = on_event(Event::Progress(engine.progress(self.now()))) {
                    engine.cancel(self.now());
                    return Err(e);
                }
            }
            let first = if steps > 0 {
                self.rx.try_recv().ok()
            } else {
                let wait = engine
                    .poll_timeout()
                    .map(|t| Duration::from_secs_f64((t - self.now()).max(0.0)))
                    .unwrap_or(TICK)
                    .min(TICK);
                match self.rx.recv_timeout(wait) {
                    Ok(m) => Some(m),
                    Err(RecvTimeoutError::Timeout) => None,
                    // The driver holds a sender, so the channel never disconnects.
                    Err(RecvTimeoutError::Disconnected) => None,
                }
            };
            let mut next = first;
            while let Some(msg) = next {
                self.handle(engine, msg);
                next = self.rx.try_recv().ok();
            }
        }
    }

    fn handle(&mut self, engine: &mut Engine<'_>, msg: Msg) {
        match msg {
            Msg::Reply(id, reply, at) => {
                self.outstanding = self.outstanding.saturating_sub(1);
                self.exchanges.replied(id.0, &reply);
                engine.handle_reply(id, reply, self.at(at));
            }
            Msg::Head(id, head, at) => {
                self.exchanges.head(id.0, head.status);
                engine.handle_head(id, head, self.at(at))
            }
            Msg::Bytes(id, bytes, at) => {
                self.exchanges.bytes(id.0, &bytes);
                engine.handle_bytes(id, &bytes, self.at(at))
            }
            Msg::End(id, at) => {
                self.outstanding = self.outstanding.saturating_sub(1);
                self.exchanges.ended(id.0);
                engine.handle_end(id, self.at(at));
            }
            Msg::Control(Control::Pause) => engine.pause(self.now()),
            Msg::Control(Control::Resume) => engine.resume(self.now()),
            Msg::Control(Control::Cancel) => engine.cancel(self.now()),
        }
    }
}
