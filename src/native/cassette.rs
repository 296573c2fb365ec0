//! The cassette adapter: a [`Transport`] around another that records every response into
//! a cassette file ([`CassetteTransport::record`]), or one that answers from a cassette
//! without any network ([`CassetteTransport::replay`]) and refuses a request the cassette
//! does not hold. The format, the key and the replay rule are the core's
//! (`wildtool_core::provenance::cassette`); the engine is the same either way.
//!
//! Recording reports the latency it measured around the send with the response, and a
//! replay reports the recorded one, so the recorded run and its replay write the same
//! result file.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use wildtool_core::provenance::cassette::{self, Answer, Cassette, Entry};
use wildtool_core::runner::http::{HttpHead, HttpReply, HttpRequest, HttpResponse};

use super::transport::{now_unix, whole_reply, StreamSink, Streamed, Transport};

enum Mode {
    Record {
        inner: Arc<dyn Transport>,
        file: Mutex<(File, PathBuf)>,
    },
    Replay(Mutex<Cassette>),
}

/// A transport that records to or replays from a cassette.
pub struct CassetteTransport {
    mode: Mode,
}

impl std::fmt::Debug for CassetteTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mode = match self.mode {
            Mode::Record { .. } => "record",
            Mode::Replay(_) => "replay",
        };
        f.debug_struct("CassetteTransport")
            .field("mode", &mode)
            .finish()
    }
}

impl CassetteTransport {
    /// Sends with `inner` and appends every response to the cassette at `path` (created
    /// with its header when missing or empty).
    pub fn record(inner: Arc<dyn Transport>, path: &Path) -> std::io::Result<Self> {
        let mut file = OpenOptions::new().create(true).append(true).open(path)?;
        if file.metadata()?.len() == 0 {
            file.write_all(format!("{}\n", cassette::HEADER).as_bytes())?;
            file.flush()?;
        }
        Ok(Self {
            mode: Mode::Record {
                inner,
                file: Mutex::new((file, path.to_path_buf())),
            },
        })
    }

    /// Answers from `cassette` only; nothing is sent.
    pub fn replay(cassette: Cassette) -> Self {
        Self {
            mode: Mode::Replay(Mutex::new(cassette)),
        }
    }

    fn append(file: &Mutex<(File, PathBuf)>, entry: &Entry) {
        if let Ok(mut guard) = file.lock() {
            let (f, path) = &mut *guard;
            let line = entry.to_line() + "\n";
            if let Err(e) = f.write_all(line.as_bytes()).and_then(|()| f.flush()) {
                eprintln!("warning: cassette {}: {e}", path.display());
            }
        }
    }

    fn answer(cassette: &Mutex<Cassette>, req: &HttpRequest) -> HttpReply {
        let Ok(mut c) = cassette.lock() else {
            return HttpReply::Refused("offline: the cassette is unavailable".to_owned());
        };
        match c.answer(req.method, &req.url, &req.body) {
            Answer::Recorded(e) => HttpReply::Response(HttpResponse {
                status: e.status,
                body: e.reply.clone(),
                retry_after: None,
                location: None,
                now_unix: now_unix(),
                latency: Some(e.latency),
            }),
            Answer::Missing { key } => HttpReply::Refused(cassette::missing_reason(&key)),
        }
    }
}

/// Passes a stream on and keeps its bytes for the cassette.
struct Tee<'a> {
    sink: &'a mut dyn StreamSink,
    status: u16,
    body: Vec<u8>,
}

impl StreamSink for Tee<'_> {
    fn head(&mut self, head: HttpHead) {
        self.status = head.status;
        self.sink.head(head);
    }

    fn bytes(&mut self, chunk: &[u8]) -> bool {
        self.body.extend_from_slice(chunk);
        self.sink.bytes(chunk)
    }
}

impl Transport for CassetteTransport {
    fn send(&self, req: &HttpRequest, timeout: Duration) -> HttpReply {
        match &self.mode {
            Mode::Replay(c) => Self::answer(c, req),
            Mode::Record { inner, file } => {
                let start = Instant::now();
                let mut reply = inner.send(req, timeout);
                if let HttpReply::Response(r) = &mut reply {
                    let latency = start.elapsed().as_secs_f64();
                    r.latency = Some(latency);
                    let entry =
                        Entry::new(req.method, &req.url, &req.body, r.status, &r.body, latency);
                    Self::append(file, &entry);
                }
                reply
            }
        }
    }

    fn send_streaming(
        &self,
        req: &HttpRequest,
        timeout: Duration,
        idle: Duration,
        sink: &mut dyn StreamSink,
    ) -> Streamed {
        match &self.mode {
            Mode::Replay(c) => whole_reply(Self::answer(c, req), sink),
            Mode::Record { inner, file } => {
                let start = Instant::now();
                let mut tee = Tee {
                    sink,
                    status: 0,
                    body: Vec::new(),
                };
                let outcome = inner.send_streaming(req, timeout, idle, &mut tee);
                if outcome == Streamed::Ended {
                    let body = String::from_utf8_lossy(&tee.body);
                    let entry = Entry::new(
                        req.method,
                        &req.url,
                        &req.body,
                        tee.status,
                        &body,
                        start.elapsed().as_secs_f64(),
                    );
                    Self::append(file, &entry);
                }
                outcome
            }
        }
    }
}
