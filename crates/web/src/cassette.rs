//! The page's cassettes: "Record a cassette" keeps every response of a run as the lines
//! of `cassette.jsonl` (downloaded after the run); an uploaded cassette answers every
//! request of the next runs instead of the network, and a request it does not hold ends
//! its task incomplete with the core's reason (nothing is sent; no host probes either).
//! The format, the key and the replay rule are the core's
//! (`wildtool_core::provenance::cassette`), run in the lab module through its synchronous
//! `cassette` call (installed with the stream readers); this module only forwards texts.

use wildtool_core::json::{dumps, Escape, Map, Value};

use crate::engine::{HttpReply, HttpResponse};
use crate::msg::{Effect, FilePurpose, FileRef};
use crate::readers::StreamCall;
use crate::state::{AppState, Tone};

/// The Setup choices and what a recording gave.
#[derive(Debug, Default)]
pub struct CassetteSetup {
    /// Record the next run.
    pub record: bool,
    /// An uploaded cassette to replay: its file name and text.
    pub replay: Option<(String, String)>,
    /// The last recorded cassette's text.
    pub recorded: Option<String>,
}

/// A run's tape: recording (the lines so far and the requests in flight) or replaying.
#[derive(Default)]
pub struct Tape {
    /// Replaying (otherwise recording).
    pub replay: bool,
    lines: String,
    /// Requests in flight (a short list, no map: the shell stays small).
    sent: Vec<Pending>,
}

/// A recorded request waiting for its reply.
#[derive(Default)]
struct Pending {
    id: u64,
    method: String,
    url: String,
    body: String,
    start: f64,
    status: u16,
    bytes: Vec<u8>,
}

impl std::fmt::Debug for Tape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.replay {
            "Tape(replay)"
        } else {
            "Tape(record)"
        })
    }
}

fn op(call: &StreamCall, pairs: Vec<(&str, Value)>) -> Result<String, String> {
    let mut m = Map::new();
    for (k, v) in pairs {
        m.insert(k, v);
    }
    call(&dumps(&Value::Object(m), Escape::Utf8))
}

fn request_fields(method: &str, url: &str, body: &str) -> Vec<(&'static str, Value)> {
    vec![
        ("method", Value::str(method)),
        ("url", Value::str(url)),
        ("body", Value::str(body)),
    ]
}

/// What a replayed request gets.
pub enum Replayed {
    /// The recorded status, latency and body.
    Reply(u16, f64, String),
    /// The reason it was refused.
    Refused(String),
}

impl Tape {
    /// A recording (its header line first) or a replay of the cassette `text`.
    pub fn start(call: &StreamCall, replay: Option<&str>) -> Result<Self, String> {
        let mut tape = Tape::default();
        match replay {
            Some(text) => {
                op(
                    call,
                    vec![("op", Value::str("load")), ("text", Value::str(text))],
                )?;
                tape.replay = true;
            }
            None => {
                tape.lines = op(call, vec![("op", Value::str("header"))])? + "\n";
            }
        }
        Ok(tape)
    }

    /// The recorded lines.
    pub fn into_text(self) -> Option<String> {
        (!self.replay).then_some(self.lines)
    }

    /// The answer to a request from the loaded cassette.
    pub fn answer(call: &StreamCall, method: &str, url: &str, body: &str) -> Replayed {
        let mut fields = request_fields(method, url, body);
        fields.push(("op", Value::str("answer")));
        let out = match op(call, fields) {
            Ok(o) => o,
            Err(e) => return Replayed::Refused(format!("offline: {e}")),
        };
        let (head, reply) = out.split_once('\n').unwrap_or((out.as_str(), ""));
        let mut words = head.splitn(3, ' ');
        match (words.next(), words.next(), words.next()) {
            (Some("reply"), Some(s), Some(l)) => Replayed::Reply(
                s.parse().unwrap_or(0),
                l.parse().map_or(0.0, f64::from_bits),
                reply.to_owned(),
            ),
            _ => Replayed::Refused(head.strip_prefix("missing ").unwrap_or(head).to_owned()),
        }
    }

    /// A request went out at `mono` (recording).
    pub fn sent(&mut self, id: u64, method: &str, url: &str, body: &str, mono: f64) {
        if !self.replay {
            self.sent.push(Pending {
                id,
                method: method.to_owned(),
                url: url.to_owned(),
                body: body.to_owned(),
                start: mono,
                ..Pending::default()
            });
        }
    }

    fn take(&mut self, id: u64) -> Option<Pending> {
        let i = self.sent.iter().position(|p| p.id == id)?;
        Some(self.sent.swap_remove(i))
    }

    /// Records an exchange; the latency a replay of it reports.
    fn push(&mut self, call: &StreamCall, p: &Pending, status: u16, reply: &str, mono: f64) -> f64 {
        let latency = mono - p.start;
        let mut fields = request_fields(&p.method, &p.url, &p.body);
        fields.extend([
            ("op", Value::str("record")),
            ("status", Value::int(i64::from(status))),
            ("reply", Value::str(reply)),
            ("latency_bits", Value::int(latency.to_bits() as i64)),
        ]);
        let Ok(out) = op(call, fields) else {
            return latency;
        };
        let (read, line) = out.split_once('\n').unwrap_or(("", ""));
        self.lines.push_str(line);
        self.lines.push('\n');
        read.parse().map_or(latency, f64::from_bits)
    }

    /// A whole reply arrived (recording): it is recorded with its latency, which the run
    /// reports too (so a replay writes the same result file).
    pub fn replied(&mut self, call: &StreamCall, id: u64, reply: &mut HttpReply, mono: f64) {
        let Some(p) = self.take(id) else {
            return;
        };
        if let HttpReply::Response(r) = reply {
            let body = std::mem::take(&mut r.body);
            r.latency = Some(self.push(call, &p, r.status, &body, mono));
            r.body = body;
        }
    }

    /// A streamed reply's head (`Some(status)`), bytes, or end (`end` the time).
    pub fn stream(
        &mut self,
        call: &StreamCall,
        id: u64,
        status: Option<u16>,
        bytes: &[u8],
        end: Option<f64>,
    ) {
        let Some(p) = self.sent.iter_mut().find(|p| p.id == id) else {
            return;
        };
        if let Some(st) = status {
            p.status = st;
        }
        p.bytes.extend_from_slice(bytes);
        if let Some(mono) = end {
            if let Some(p) = self.take(id) {
                let body = String::from_utf8_lossy(&p.bytes).into_owned();
                let _ = self.push(call, &p, p.status, &body, mono);
            }
        }
    }
}

/// A replayed reply as the engine takes it.
pub fn response(status: u16, latency: f64, body: String, now_unix: f64) -> HttpResponse {
    HttpResponse {
        status,
        body,
        retry_after: None,
        location: None,
        now_unix,
        latency: Some(latency),
    }
}

impl AppState {
    /// "Record a cassette" ticked or not.
    pub fn cassette_record(&mut self, on: bool) -> Vec<Effect> {
        self.cassette.record = on;
        Vec::new()
    }

    /// A cassette chosen for replaying (or, `None`, forgotten).
    pub fn cassette_file(&mut self, file: Option<FileRef>) -> Vec<Effect> {
        match file {
            None => {
                self.cassette.replay = None;
                Vec::new()
            }
            Some(file) => {
                let len = file.size;
                vec![Effect::ReadFile {
                    file,
                    offset: 0,
                    len,
                    purpose: FilePurpose::Cassette,
                }]
            }
        }
    }

    /// The chosen cassette was read.
    pub fn cassette_read(&mut self, file: FileRef, bytes: Result<Vec<u8>, String>) -> Vec<Effect> {
        match bytes {
            Ok(b) => {
                let text = String::from_utf8_lossy(&b).into_owned();
                self.say(
                    format!(
                        "Runs are answered from {} until it is removed; nothing is sent.",
                        file.name
                    ),
                    Tone::Info,
                );
                self.cassette.replay = Some((file.name.clone(), text));
            }
            Err(e) => self.say(format!("Cannot read {}: {e}.", file.name), Tone::Error),
        }
        vec![Effect::ReleaseFile(file.id)]
    }

    /// Downloads the recorded cassette.
    pub fn cassette_download(&mut self) -> Vec<Effect> {
        match &self.cassette.recorded {
            Some(text) => vec![Effect::Download {
                name: "cassette.jsonl".into(),
                mime: "application/x-ndjson",
                data: text.clone(),
            }],
            None => Vec::new(),
        }
    }
}
