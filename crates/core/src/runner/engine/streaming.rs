//! The engine's side of streamed requests: each one's reader, its clock between chunks,
//! and the first-token time. A streamed response comes in as a head, chunks and an end
//! ([`Engine::handle_head`], [`Engine::handle_bytes`], [`Engine::handle_end`]); its
//! reassembled body then takes the path of a whole response, so retries, limits, the
//! preflight's diagnosis and the provider mapping are the same as without streaming.
//!
//! - A [`StreamError`] (a torn, oversized, unknown or malformed stream) fails the request
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
use super::super::provider::ProviderKind;
use super::super::stream::{StreamError, StreamReader};
use super::{Engine, Phase, PreflightState, RequestId};

/// One streamed request in flight.
#[derive(Debug)]
pub(super) struct InStream {
    /// When it was sent.
    sent_at: f64,
    /// It belongs to a task (not the preflight).
    task: bool,
    /// The head, once it came.
    head: Option<HttpHead>,
    reader: Option<StreamReader>,
    /// When the last chunk (or the head) arrived.
    last: f64,
}

impl InStream {
    pub(super) fn new(sent_at: f64, task: bool) -> Self {
        Self {
            sent_at,
            task,
            head: None,
            reader: None,
            last: sent_at,
        }
    }

    /// When silence times it out (`None` before the head: the deadline alone applies).
    fn idle_deadline(&self, idle: f64) -> Option<f64> {
        self.head.as_ref().map(|_| self.last + idle)
    }
}

fn failure(kind: NetworkKind, message: String) -> HttpReply {
    HttpReply::Network(NetworkFailure { kind, message })
}

fn stream_failure(e: &StreamError) -> HttpReply {
    failure(NetworkKind::Other, e.to_string())
}

impl InStream {
    /// What `reply` (a whole response, or a failure reported by the driver) means for this
    /// stream: a whole response is read as an event stream; a connection that failed while
    /// the body was read says where the stream was cut (or, when the stream was already
    /// complete, the reply stands).
    pub(super) fn resolve(self, provider: ProviderKind, reply: HttpReply) -> HttpReply {
        match (reply, self.reader, self.head) {
            (HttpReply::Response(r), _, _) => {
                match StreamReader::read_all(provider, r.status, r.body.as_bytes()) {
                    Ok(body) => HttpReply::Response(HttpResponse { body, ..r }),
                    Err(e) => stream_failure(&e),
                }
            }
            (HttpReply::Network(f), Some(reader), Some(head)) => match reader.finish() {
                Ok(body) => HttpReply::Response(HttpResponse {
                    status: head.status,
                    body,
                    retry_after: head.retry_after,
                    location: head.location,
                    now_unix: head.now_unix,
                }),
                Err(e) => failure(f.kind, format!("{e} ({})", f.message)),
            },
            (other, _, _) => other,
        }
    }
}

impl Engine<'_> {
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

    /// The stream of `id` if the engine still waits for it (a stale one is dropped).
    fn live_stream(&mut self, id: RequestId) -> Option<&mut InStream> {
        if self.finished || !self.wanted(id) {
            self.streams.remove(&id);
            return None;
        }
        self.streams.get_mut(&id)
    }

    /// Ends streamed request `id` with `reply` (its reassembled body, or a failure).
    fn end_stream(&mut self, id: RequestId, reply: HttpReply, now: f64) {
        self.streams.remove(&id);
        self.process_reply(id, reply, now);
    }

    /// Reports the head of streamed request `id` (its status and headers).
    pub fn handle_head(&mut self, id: RequestId, head: HttpHead, now: f64) {
        let provider = self.provider();
        if let Some(s) = self.live_stream(id) {
            s.reader = Some(StreamReader::new(provider, head.status));
            s.head = Some(head);
            s.last = now;
        }
    }

    /// Reports the next chunk of streamed request `id`'s body. A chunk that makes the
    /// stream unusable fails the request and aborts it (see the module docs).
    pub fn handle_bytes(&mut self, id: RequestId, bytes: &[u8], now: f64) {
        let provider = self.provider();
        let Some(s) = self.live_stream(id) else {
            return;
        };
        if s.head.is_none() {
            s.head = Some(HttpHead::new(200));
        }
        s.last = now;
        let (sent_at, task) = (s.sent_at, s.task);
        let fed = s
            .reader
            .get_or_insert_with(|| StreamReader::new(provider, 200))
            .feed(bytes);
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
                self.end_stream(id, stream_failure(&e), now);
                self.check_finished(now);
            }
        }
    }

    /// Reports that streamed request `id`'s body ended (the transport read it to its end,
    /// or stopped after the stream's last event).
    pub fn handle_end(&mut self, id: RequestId, now: f64) {
        let provider = self.provider();
        let Some(s) = self.live_stream(id) else {
            return;
        };
        let head = s.head.take().unwrap_or_else(|| HttpHead::new(200));
        let reader = s
            .reader
            .take()
            .unwrap_or_else(|| StreamReader::new(provider, head.status));
        let reply = match reader.finish() {
            Ok(body) => HttpReply::Response(HttpResponse {
                status: head.status,
                body,
                retry_after: head.retry_after,
                location: head.location,
                now_unix: head.now_unix,
            }),
            Err(e) => stream_failure(&e),
        };
        self.end_stream(id, reply, now);
        self.check_finished(now);
    }

    /// Streams silent for longer than the idle timeout fail as timeouts (and are aborted).
    pub(super) fn stream_timeouts(&mut self, now: f64) {
        let idle = self.spec.stream_idle_timeout();
        let stalled: Vec<(RequestId, usize)> = self
            .streams
            .iter()
            .filter(|(_, s)| s.idle_deadline(idle).is_some_and(|t| t <= now))
            .map(|(id, s)| (*id, s.reader.as_ref().map_or(0, StreamReader::events)))
            .collect();
        for (id, events) in stalled {
            if self.finished {
                return;
            }
            if !self.wanted(id) {
                self.streams.remove(&id);
                continue;
            }
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
