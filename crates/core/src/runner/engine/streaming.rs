//! The engine's side of streamed requests: each one's reader, its clock between chunks,
//! and the first-token time. A streamed response comes in as a head, chunks and an end
//! ([`Engine::handle_head`], [`Engine::handle_bytes`], [`Engine::handle_end`]); its
//! reassembled body then takes the path of a whole response, so retries, limits, the
//! preflight's diagnosis and the provider mapping are the same as without streaming.
//!
//! - Responses are read by the run's [`StreamReaders`] ([`Engine::set_stream_readers`];
//!   the core's [`CoreReaders`](super::super::stream::CoreReaders) in the CLI).
//! - A stream failure (a torn, oversized, unknown or malformed stream) fails the request
//!   as a network failure does (retried; never a model error) and aborts it, so the
//!   driver stops reading at once.
//! - Silence longer than the run's stream idle timeout after the head (no chunk at all,
//!   keep-alive comments included) times the request out; the per-request deadline still
//!   bounds the whole response.
//! - The first chunk that carries model output sets the request's first-token latency
//!   (task requests only; the preflight is not counted).
//! - The stream's last event (`[DONE]`, `message_stop`) completes the request at once:
//!   a server that keeps the connection open after it does not hold the task.

use super::super::http::{HttpHead, HttpReply, HttpResponse, NetworkFailure, NetworkKind};
use super::super::stream::StreamReaders;
use super::{Engine, Phase, PreflightState, RequestId};

/// The streamed requests in flight, by request id: a short list (one per request in
/// flight), kept as a vector so the page's module needs no map of its own for it.
#[derive(Debug, Default)]
pub(super) struct Streams(Vec<(RequestId, InStream)>);

impl Streams {
    pub(super) fn insert(&mut self, id: RequestId, s: InStream) {
        self.remove(&id);
        self.0.push((id, s));
    }

    pub(super) fn remove(&mut self, id: &RequestId) -> Option<InStream> {
        let i = self.0.iter().position(|(k, _)| k == id)?;
        Some(self.0.swap_remove(i).1)
    }

    pub(super) fn get_mut(&mut self, id: &RequestId) -> Option<&mut InStream> {
        self.0.iter_mut().find(|(k, _)| k == id).map(|(_, s)| s)
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = (&RequestId, &InStream)> {
        self.0.iter().map(|(k, s)| (k, s))
    }

    pub(super) fn values(&self) -> impl Iterator<Item = &InStream> {
        self.0.iter().map(|(_, s)| s)
    }
}

/// One streamed request in flight.
#[derive(Debug)]
pub(super) struct InStream {
    /// When it was sent.
    sent_at: f64,
    /// It belongs to a task (not the preflight).
    task: bool,
    /// The head, once it came (its reader is then open).
    head: Option<HttpHead>,
    /// When the last chunk (or the head) arrived.
    last: f64,
}

impl InStream {
    pub(super) fn new(sent_at: f64, task: bool) -> Self {
        Self {
            sent_at,
            task,
            head: None,
            last: sent_at,
        }
    }

    /// When silence times it out (`None` before the head: the deadline alone applies).
    fn idle_deadline(&self, idle: f64) -> Option<f64> {
        self.head.as_ref().map(|_| self.last + idle)
    }
}

/// The response a streamed request's head and reassembled body make.
fn response(head: HttpHead, body: String) -> HttpReply {
    HttpReply::Response(HttpResponse {
        status: head.status,
        body,
        retry_after: head.retry_after,
        location: head.location,
        now_unix: head.now_unix,
        latency: None,
    })
}

fn failure(kind: NetworkKind, message: String) -> HttpReply {
    HttpReply::Network(NetworkFailure { kind, message })
}

/// Why a streamed request cannot be read without readers (a driver that did not install
/// them).
const NO_READERS: &str = "no stream readers are installed for this run";

impl Engine<'_> {
    /// Installs the readers of this run's streamed responses (needed when the run
    /// streams; see [`StreamReaders`]).
    pub fn set_stream_readers(&mut self, readers: Box<dyn StreamReaders>) {
        self.readers = Some(readers);
    }

    /// True while the engine still waits for request `id`.
    fn wanted(&self, id: RequestId) -> bool {
        let preflight = matches!(
            &self.preflight,
            Some(p) if matches!(p.state, PreflightState::InFlight { id: i, .. } if i == id)
        );
        preflight
            || self
                .active
                .iter()
                .any(|a| matches!(a.phase, Phase::InFlight { id: i, .. } if i == id))
    }

    /// Whether the stream of `id` is still wanted (a stale one is dropped with its reader).
    fn live_stream(&mut self, id: RequestId) -> bool {
        if self.finished || !self.wanted(id) {
            self.drop_stream(id);
            return false;
        }
        self.streams.get_mut(&id).is_some()
    }

    /// Forgets the stream of `id` and its reader.
    pub(super) fn drop_stream(&mut self, id: RequestId) {
        if self.streams.remove(&id).is_some() {
            if let Some(r) = &mut self.readers {
                r.close(id.0);
            }
        }
    }

    /// Opens the reader of `id` for a response with `status`.
    fn open_reader(&mut self, id: RequestId, status: u16) -> bool {
        let provider = self.provider();
        match &mut self.readers {
            Some(r) => {
                r.open(id.0, provider, status);
                true
            }
            None => false,
        }
    }

    /// The reassembled body of `id` (its reader is dropped).
    fn finish_reader(&mut self, id: RequestId) -> Result<String, String> {
        match &mut self.readers {
            Some(r) => r.finish(id.0),
            None => Err(NO_READERS.to_owned()),
        }
    }

    /// What `reply` (a whole response, or a failure the driver reported) means for
    /// streamed request `id`: a whole response is read as an event stream; a connection
    /// that failed while the body was read says where the stream was cut (or, when the
    /// stream was already complete, the reply stands).
    pub(super) fn resolve_stream(&mut self, id: RequestId, reply: HttpReply) -> HttpReply {
        let Some(s) = self.streams.remove(&id) else {
            return reply;
        };
        match (reply, s.head) {
            (HttpReply::Response(r), _) => {
                if !self.open_reader(id, r.status) {
                    return failure(NetworkKind::Other, NO_READERS.to_owned());
                }
                let fed = match &mut self.readers {
                    Some(rd) => rd.feed(id.0, r.body.as_bytes()).map(|_| ()),
                    None => Err(NO_READERS.to_owned()),
                };
                match fed.and_then(|()| self.finish_reader(id)) {
                    Ok(body) => HttpReply::Response(HttpResponse { body, ..r }),
                    Err(e) => {
                        self.drop_reader(id);
                        failure(NetworkKind::Other, e)
                    }
                }
            }
            (HttpReply::Network(f), Some(head)) => match self.finish_reader(id) {
                Ok(body) => response(head, body),
                Err(e) => failure(f.kind, format!("{e} ({})", f.message)),
            },
            (other, _) => {
                self.drop_reader(id);
                other
            }
        }
    }

    /// Forgets every stream in flight and its reader (the run is over).
    pub(super) fn drop_streams(&mut self) {
        let ids: Vec<RequestId> = self.streams.iter().map(|(id, _)| *id).collect();
        for id in ids {
            self.drop_stream(id);
        }
    }

    fn drop_reader(&mut self, id: RequestId) {
        if let Some(r) = &mut self.readers {
            r.close(id.0);
        }
    }

    /// Ends streamed request `id` with `reply` (its reassembled body, or a failure).
    fn end_stream(&mut self, id: RequestId, reply: HttpReply, now: f64) {
        self.streams.remove(&id);
        self.drop_reader(id);
        self.process_reply(id, reply, now);
    }

    /// Reports the head of streamed request `id` (its status and headers).
    pub fn handle_head(&mut self, id: RequestId, head: HttpHead, now: f64) {
        if !self.live_stream(id) {
            return;
        }
        if !self.open_reader(id, head.status) {
            self.aborts.push_back(id);
            self.end_stream(id, failure(NetworkKind::Other, NO_READERS.to_owned()), now);
            self.check_finished(now);
            return;
        }
        if let Some(s) = self.streams.get_mut(&id) {
            s.head = Some(head);
            s.last = now;
        }
    }

    /// Reports the next chunk of streamed request `id`'s body. A chunk that makes the
    /// stream unusable fails the request and aborts it (see the module docs).
    pub fn handle_bytes(&mut self, id: RequestId, bytes: &[u8], now: f64) {
        if !self.live_stream(id) {
            return;
        }
        let opened = self.streams.get_mut(&id).is_some_and(|s| s.head.is_some());
        if !opened {
            self.handle_head(id, HttpHead::new(200), now);
            if !self.live_stream(id) {
                return;
            }
        }
        let Some(s) = self.streams.get_mut(&id) else {
            return;
        };
        s.last = now;
        let (sent_at, task) = (s.sent_at, s.task);
        let fed = match &mut self.readers {
            Some(r) => r.feed(id.0, bytes),
            None => Err(NO_READERS.to_owned()),
        };
        match fed {
            Ok(p) => {
                if p.first_output && task {
                    self.first_tokens.push((now - sent_at).max(0.0));
                }
                if p.finished {
                    // The stream's last event: the reply is complete whatever the
                    // transport reads after it (which is then ignored).
                    self.handle_end(id, now);
                }
            }
            Err(e) => {
                self.aborts.push_back(id);
                self.end_stream(id, failure(NetworkKind::Other, e), now);
                self.check_finished(now);
            }
        }
    }

    /// Reports that streamed request `id`'s body ended (the transport read it to its end,
    /// or stopped after the stream's last event).
    pub fn handle_end(&mut self, id: RequestId, now: f64) {
        if !self.live_stream(id) {
            return;
        }
        let head = self.streams.get_mut(&id).and_then(|s| s.head.take());
        let head = match head {
            Some(h) => h,
            None => {
                self.open_reader(id, 200);
                HttpHead::new(200)
            }
        };
        let reply = match self.finish_reader(id) {
            Ok(body) => response(head, body),
            Err(e) => failure(NetworkKind::Other, e),
        };
        self.end_stream(id, reply, now);
        self.check_finished(now);
    }

    /// Streams silent for longer than the idle timeout fail as timeouts (and are aborted).
    pub(super) fn stream_timeouts(&mut self, now: f64) {
        let idle = self.spec.stream_idle_timeout();
        let stalled: Vec<RequestId> = self
            .streams
            .iter()
            .filter(|(_, s)| s.idle_deadline(idle).is_some_and(|t| t <= now))
            .map(|(id, _)| *id)
            .collect();
        for id in stalled {
            if self.finished {
                return;
            }
            if !self.wanted(id) {
                self.drop_stream(id);
                continue;
            }
            let events = self.readers.as_ref().map_or(0, |r| r.events(id.0));
            self.aborts.push_back(id);
            let message = format!(
                "the event stream stalled: nothing arrived for {idle}s after event {events}"
            );
            self.end_stream(id, failure(NetworkKind::Timeout, message), now);
        }
    }

    /// The earliest idle deadline of the streams in flight.
    pub(super) fn next_stream_timeout(&self) -> Option<f64> {
        let idle = self.spec.stream_idle_timeout();
        self.streams
            .values()
            .filter_map(|s| s.idle_deadline(idle))
            .reduce(f64::min)
    }
}
