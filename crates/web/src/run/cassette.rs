//! The page's cassettes: "Record a cassette" keeps every response of a run as the lines
//! of `cassette.jsonl` (downloaded after the run); an uploaded cassette answers every
//! request of the next runs instead of the network, and a request it does not hold ends
//! its task incomplete with the core's reason (nothing is sent; no host probes either).
//! The format, the key and the replay rule are the core's
//! (`wildtool_core::provenance::cassette`), run in the lab module through its synchronous
//! `cassette` call (installed with the stream readers); this module only forwards texts.
//! The same call keeps every HTTP run's exchange log and writes its manifest, so every
//! run with an endpoint has a tape: recording a cassette, replaying one, or only logging.

use wildtool_core::json::{dumps, Escape, Map, Value};

use crate::msg::{Effect, FilePurpose, FileRef};
use crate::run::engine::{HttpReply, HttpResponse};
use crate::run::readers::StreamCall;
use crate::state::{AppState, Tone};

/// A run's tape: recording (the lines so far and the requests in flight) or replaying.
#[derive(Default)]
pub struct Tape {
    /// Replaying (otherwise recording or logging).
    pub replay: bool,
    /// Keeping the cassette's lines.
    record: bool,
    lines: String,
    /// Requests in flight (a short list, no map: the shell stays small).
    sent: Vec<Pending>,
}

/// A recorded request waiting for its reply.
#[derive(Default)]
struct Pending {
    id: u64,
    key: (u32, usize, usize),
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

fn request_fields(
    id: u64,
    key: (u32, usize, usize),
    method: &str,
    url: &str,
    body: &str,
) -> Vec<(&'static str, Value)> {
    vec![
        ("id", Value::int(id as i64)),
        ("trial", Value::int(i64::from(key.0))),
        ("line", Value::int(key.1 as i64)),
        ("task", Value::int(key.2 as i64)),
        ("method", Value::str(method)),
        ("url", Value::str(url)),
        ("body", Value::str(body)),
    ]
}

/// A request's task as the lab's log takes it (trial 0: the preflight).
pub fn task_key(t: &wildtool_core::runner::engine::Transmit) -> (u32, usize, usize) {
    t.task.map_or((0, 0, 0), |k| (k.trial, k.line, k.task))
}

/// What a replayed request gets.
pub enum Replayed {
    /// The recorded status, latency and body.
    Reply(u16, f64, String),
    /// The reason it was refused.
    Refused(String),
}

impl Tape {
    /// A replay of the cassette `text`, a recording (its header line first) or a log only.
    pub fn start(call: &StreamCall, replay: Option<&str>, record: bool) -> Result<Self, String> {
        let mut tape = Tape {
            record: record && replay.is_none(),
            ..Tape::default()
        };
        op(call, vec![("op", Value::str("log-start"))])?;
        match replay {
            Some(text) => {
                op(
                    call,
                    vec![("op", Value::str("load")), ("text", Value::str(text))],
                )?;
                tape.replay = true;
            }
            None if tape.record => {
                tape.lines = op(call, vec![("op", Value::str("header"))])? + "\n";
            }
            None => {}
        }
        Ok(tape)
    }

    /// The recorded lines (once), when recording.
    pub fn take_text(&mut self) -> Option<String> {
        self.record.then(|| std::mem::take(&mut self.lines))
    }

    /// How the run used a cassette: `record` or `replay`.
    pub fn mode(&self) -> Option<&'static str> {
        if self.replay {
            Some("replay")
        } else {
            self.record.then_some("record")
        }
    }

    /// The answer to a request from the loaded cassette.
    pub fn answer(call: &StreamCall, t: &wildtool_core::runner::engine::Transmit) -> Replayed {
        let r = &t.request;
        let mut fields = request_fields(t.id.0, task_key(t), r.method, &r.url, &r.body);
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

    /// A request went out at `mono` (recording or logging).
    pub fn sent(&mut self, t: &wildtool_core::runner::engine::Transmit, mono: f64) {
        let (id, r) = (t.id.0, &t.request);
        let (method, url, body) = (r.method, &r.url, &r.body);
        if !self.replay {
            self.sent.push(Pending {
                id,
                key: task_key(t),
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
        let mut fields = request_fields(p.id, p.key, &p.method, &p.url, &p.body);
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
        if self.record {
            self.lines.push_str(line);
            self.lines.push('\n');
        }
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
        } else {
            // Sent, and no reply came back: logged for the manifest, never recorded.
            let mut fields = request_fields(p.id, p.key, &p.method, &p.url, &p.body);
            fields.extend([("op", Value::str("record")), ("failed", Value::Bool(true))]);
            let _ = op(call, fields);
        }
    }

    /// The run's manifest (the lab module's, from its log of this run): the history
    /// entry's JSON, the files' texts, tasks resumed and the cassette's name.
    pub fn manifest(
        &self,
        call: &StreamCall,
        entry: &str,
        files: [Option<String>; 3],
        later: Vec<[Option<String>; 3]>,
        resumed: u64,
        cassette_file: &str,
    ) -> Option<String> {
        let text = |f: Option<String>| f.map_or(Value::Null, |t| Value::str(&t));
        let [result, score, metric] = files.map(text);
        let later = later
            .into_iter()
            .map(|t| Value::Array(t.into_iter().map(text).collect()))
            .collect();
        let mut fields = vec![
            ("op", Value::str("manifest")),
            ("entry", Value::str(entry)),
            ("result", result),
            ("score", score),
            ("metric", metric),
            ("resumed", Value::int(resumed as i64)),
            ("cassette_file", Value::str(cassette_file)),
            ("later", Value::Array(later)),
        ];
        if let Some(m) = self.mode() {
            fields.push(("cassette_mode", Value::str(m)));
        }
        op(call, fields).ok()
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
