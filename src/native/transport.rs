//! The blocking HTTP transport. The API key lives only in the transport (memory) and is
//! attached to each request as it is sent. Redirects are never followed: a 3xx answer is
//! handed to the engine as it is (which fails the request without retry), so the key is
//! never sent to another origin. A body over the core's reply limit is not read past the
//! limit (nor at all when `Content-Length` announces it) and is reported as
//! [`HttpReply::TooLarge`]. A streamed request's body is handed over chunk by chunk as it
//! arrives ([`Transport::send_streaming`]); the core reassembles and limits it, and the
//! transport stops reading as soon as the sink says so.

use std::io::Read;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use wildtool_core::runner::http::{HttpHead, HttpReply, HttpResponse, NetworkFailure, NetworkKind};
use wildtool_core::runner::provider::{AuthStyle, HttpRequest};
use wildtool_core::runner::redact::Redactor;

/// Largest response body read (a longer one is reported as too large): the core's limit.
pub const MAX_BODY_BYTES: u64 = wildtool_core::input::limits::MAX_REPLY_BODY_BYTES as u64;

/// Bytes read per call while streaming.
const STREAM_READ: usize = 16 * 1024;

/// Where a streamed response goes as it arrives.
pub trait StreamSink {
    /// The status and headers.
    fn head(&mut self, head: HttpHead);
    /// The next chunk of the body; `false` stops reading at once (the request was aborted).
    fn bytes(&mut self, chunk: &[u8]) -> bool;
}

/// How a streamed send ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Streamed {
    /// The body was read to its end.
    Ended,
    /// The sink asked to stop.
    Stopped,
    /// No response, or the connection failed while the body was read.
    Failed(HttpReply),
}

/// Sends one request and waits for the whole response.
pub trait Transport: Send + Sync {
    /// Sends `req`, giving up after `timeout`.
    fn send(&self, req: &HttpRequest, timeout: Duration) -> HttpReply;

    /// Sends `req` and hands its response to `sink` as it arrives, giving up after
    /// `timeout` in all and after `idle` without a byte. A transport that cannot stream
    /// hands over the whole response at once.
    fn send_streaming(
        &self,
        req: &HttpRequest,
        timeout: Duration,
        idle: Duration,
        sink: &mut dyn StreamSink,
    ) -> Streamed {
        let _ = idle;
        whole_reply(self.send(req, timeout), sink)
    }
}

/// Hands a whole reply to a stream sink at once (transports that cannot stream).
pub fn whole_reply(reply: HttpReply, sink: &mut dyn StreamSink) -> Streamed {
    match reply {
        HttpReply::Response(r) => {
            sink.head(HttpHead {
                status: r.status,
                retry_after: r.retry_after,
                location: r.location,
                now_unix: r.now_unix,
            });
            if sink.bytes(r.body.as_bytes()) {
                Streamed::Ended
            } else {
                Streamed::Stopped
            }
        }
        other => Streamed::Failed(other),
    }
}

/// `ureq` 3 with a connection pool shared by all worker threads.
pub struct UreqTransport {
    agent: ureq::Agent,
    auth: Option<(AuthStyle, String)>,
    /// The key, redacted by value from everything a server sends back (bodies, streamed
    /// chunks, error texts), so that no echo of it reaches a message, log or file.
    redactor: Redactor,
}

/// A sink that redacts the key from a streamed body: text is handed on up to its last
/// line end (an event stream's events end with one), the rest held back until more
/// arrives or the body ends, so that a key split across chunks is still found.
struct RedactingSink<'a> {
    inner: &'a mut dyn StreamSink,
    redactor: &'a Redactor,
    held: Vec<u8>,
}

impl RedactingSink<'_> {
    /// Hands on everything held (at the end of the body).
    fn flush(&mut self) -> bool {
        if self.held.is_empty() {
            return true;
        }
        let out = self.redactor.redact_bytes(&self.held);
        self.held.clear();
        self.inner.bytes(&out)
    }
}

impl StreamSink for RedactingSink<'_> {
    fn head(&mut self, head: HttpHead) {
        self.inner.head(head);
    }

    fn bytes(&mut self, chunk: &[u8]) -> bool {
        self.held.extend_from_slice(chunk);
        let cut = match self.held.iter().rposition(|&b| b == b'\n') {
            Some(i) => i + 1,
            // A line far longer than any key: hand on all but a key's length.
            None if self.held.len() > 64 * 1024 => {
                self.held.len() - self.redactor.longest().min(self.held.len())
            }
            None => return true,
        };
        let rest = self.held.split_off(cut);
        let out = self.redactor.redact_bytes(&self.held);
        self.held = rest;
        self.inner.bytes(&out)
    }
}

impl std::fmt::Debug for UreqTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print the key.
        f.debug_struct("UreqTransport")
            .field("auth", &self.auth.as_ref().map(|(s, _)| s))
            .finish()
    }
}

/// The wall clock in Unix seconds (a response's arrival time).
pub(crate) fn now_unix() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

fn network(kind: NetworkKind, message: String) -> HttpReply {
    HttpReply::Network(NetworkFailure { kind, message })
}

fn classify(e: &ureq::Error) -> NetworkKind {
    match e {
        ureq::Error::Timeout(_) => NetworkKind::Timeout,
        ureq::Error::HostNotFound | ureq::Error::ConnectionFailed => NetworkKind::Unreachable,
        ureq::Error::Io(io) => match io.kind() {
            std::io::ErrorKind::ConnectionRefused
            | std::io::ErrorKind::AddrNotAvailable
            | std::io::ErrorKind::HostUnreachable
            | std::io::ErrorKind::NetworkUnreachable => NetworkKind::Unreachable,
            std::io::ErrorKind::TimedOut => NetworkKind::Timeout,
            _ => NetworkKind::Other,
        },
        _ => NetworkKind::Other,
    }
}

impl UreqTransport {
    /// A transport; `auth` is the key and how to send it (`None` for keyless endpoints);
    /// `max_connections` sizes the idle-connection pool.
    pub fn new(auth: Option<(AuthStyle, String)>, max_connections: usize) -> Self {
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .max_idle_connections(max_connections.max(1) * 2)
            .max_idle_connections_per_host(max_connections.max(1))
            .build();
        let redactor = Redactor::new(auth.iter().map(|(_, key)| key.as_str()));
        Self {
            agent: config.into(),
            auth,
            redactor,
        }
    }
}

impl UreqTransport {
    /// Sends `req` with the key attached and returns the response head (and body to read).
    fn call(
        &self,
        req: &HttpRequest,
        timeout: Duration,
        per_read: Option<Duration>,
    ) -> Result<ureq::http::Response<ureq::Body>, HttpReply> {
        let mut builder = self
            .agent
            .post(&req.url)
            .config()
            .timeout_global(Some(timeout))
            .timeout_per_read(per_read)
            .build();
        for (k, v) in &req.headers {
            builder = builder.header(k.as_str(), v.as_str());
        }
        if let Some((style, key)) = &self.auth {
            let (name, value) = style.header(key);
            builder = builder.header(name, value);
        }
        builder
            .send(req.body.as_str())
            .map_err(|e| network(classify(&e), self.redactor.redact(&e.to_string())))
    }
}

fn io_kind(e: &std::io::Error) -> NetworkKind {
    match e.kind() {
        std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock => NetworkKind::Timeout,
        _ => NetworkKind::Other,
    }
}

impl Transport for UreqTransport {
    fn send_streaming(
        &self,
        req: &HttpRequest,
        timeout: Duration,
        idle: Duration,
        sink: &mut dyn StreamSink,
    ) -> Streamed {
        if !self.redactor.is_empty() {
            let mut redacting = RedactingSink {
                inner: sink,
                redactor: &self.redactor,
                held: Vec::new(),
            };
            let end = self.stream_into(req, timeout, idle, &mut redacting);
            return match end {
                Streamed::Ended if !redacting.flush() => Streamed::Stopped,
                Streamed::Failed(_) | Streamed::Ended => {
                    redacting.flush();
                    end
                }
                Streamed::Stopped => end,
            };
        }
        self.stream_into(req, timeout, idle, sink)
    }

    fn send(&self, req: &HttpRequest, timeout: Duration) -> HttpReply {
        match self.send_whole(req, timeout) {
            HttpReply::Response(mut r) if !self.redactor.is_empty() => {
                r.body = self.redactor.redact(&r.body);
                HttpReply::Response(r)
            }
            other => other,
        }
    }
}

impl UreqTransport {
    fn stream_into(
        &self,
        req: &HttpRequest,
        timeout: Duration,
        idle: Duration,
        sink: &mut dyn StreamSink,
    ) -> Streamed {
        let mut resp = match self.call(req, timeout, Some(idle)) {
            Ok(r) => r,
            Err(reply) => return Streamed::Failed(reply),
        };
        let header = |name: &str| {
            resp.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        sink.head(HttpHead {
            status: resp.status().as_u16(),
            retry_after: header("retry-after"),
            location: header("location"),
            now_unix: now_unix(),
        });
        let mut reader = resp.body_mut().as_reader();
        let mut buf = vec![0u8; STREAM_READ];
        loop {
            match reader.read(&mut buf) {
                Ok(0) => return Streamed::Ended,
                Ok(n) => {
                    if !sink.bytes(&buf[..n]) {
                        return Streamed::Stopped;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    return Streamed::Failed(network(
                        io_kind(&e),
                        format!("reading the stream: {e}"),
                    ))
                }
            }
        }
    }

    fn send_whole(&self, req: &HttpRequest, timeout: Duration) -> HttpReply {
        let mut resp = match self.call(req, timeout, None) {
            Ok(r) => r,
            Err(reply) => return reply,
        };
        let header = |name: &str| {
            resp.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let status = resp.status().as_u16();
        let retry_after = header("retry-after");
        let location = header("location");
        let announced = header("content-length").and_then(|v| v.trim().parse::<u64>().ok());
        if let Some(size) = announced.filter(|n| *n > MAX_BODY_BYTES) {
            return HttpReply::TooLarge { status, size };
        }
        let body = match resp
            .body_mut()
            .with_config()
            .limit(MAX_BODY_BYTES)
            .read_to_string()
        {
            Ok(b) => b,
            Err(ureq::Error::BodyExceedsLimit(_)) => {
                return HttpReply::TooLarge {
                    status,
                    size: MAX_BODY_BYTES + 1,
                }
            }
            Err(e) => return network(classify(&e), format!("reading the body: {e}")),
        };
        HttpReply::Response(HttpResponse {
            status,
            body,
            retry_after,
            location,
            now_unix: now_unix(),
            latency: None,
        })
    }
}
