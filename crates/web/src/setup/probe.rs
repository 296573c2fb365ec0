//! The streaming probe in the page (the *Check streaming* button beside the endpoint
//! check): the core's probe requests (asked of the lab module) sent one after another
//! through the page's `fetch` transport, and the answers — a streamed one as the bytes
//! that arrived — handed to the lab module, where the core reassembles and judges them;
//! its verdict and report are shown as text. Nothing is decided here.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde_json::Value;

use wildtool_core::json::{dumps, Escape, Map, Value as CoreValue};
use wildtool_core::runner::endpoint_url::EndpointUrl;
use wildtool_core::runner::http::HttpReply;
use wildtool_core::runner::provider::{HttpRequest, ProviderKind};

use crate::msg::{Effect, LabPurpose, ProbeIn, ProbeSend, StreamIn};
use crate::state::AppState;

/// How long one probe request may take, in ms (model calls, not the model list).
const PROBE_TIMEOUT_MS: u32 = 120_000;

/// The probe's result, as the lab module gave it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeResult {
    /// `agree`, `differ`, `inconclusive` or `unusable`.
    pub state: String,
    /// The report for people.
    pub text: String,
}

/// A probe in progress or done.
#[derive(Debug)]
pub struct PageProbe {
    provider: ProviderKind,
    /// `(streamed, request)` in order; empty until the lab module has answered.
    requests: Vec<(bool, HttpRequest)>,
    auth: Option<(String, String)>,
    /// Sequence number of the first request (answers to an earlier probe are dropped).
    first_seq: u64,
    next: usize,
    /// The streamed answer being read: its status and the bytes so far.
    stream: Option<(u16, Vec<u8>)>,
    /// Answers so far (`[plain, streamed]` per task, as the lab module reads them).
    answers: Vec<CoreValue>,
    plain: Option<CoreValue>,
    /// The result, once every request is answered and judged.
    pub result: Option<ProbeResult>,
}

/// True for the lab answers the probe owns.
pub fn owns(purpose: LabPurpose) -> bool {
    matches!(purpose, LabPurpose::ProbePlan | LabPurpose::ProbeReport)
}

fn obj(pairs: Vec<(&str, CoreValue)>) -> CoreValue {
    let mut m = Map::new();
    for (k, v) in pairs {
        m.insert(k, v);
    }
    CoreValue::Object(m)
}

/// An answer as the lab module reads it: `{status, body}` or `{status, stream}` (the bytes
/// of a streamed answer, URL-safe base64), with `failed` when the transport failed.
fn answer_of(streamed: Option<(u16, Vec<u8>)>, reply: Option<HttpReply>) -> CoreValue {
    let mut pairs = Vec::new();
    if let Some((status, bytes)) = streamed {
        pairs.push(("status", CoreValue::int(i64::from(status))));
        pairs.push(("stream", CoreValue::Str(URL_SAFE_NO_PAD.encode(bytes))));
    }
    let failed = |m: String| ("failed", CoreValue::Str(m));
    match reply {
        Some(HttpReply::Response(r)) => {
            pairs.push(("status", CoreValue::int(i64::from(r.status))));
            pairs.push(("body", CoreValue::Str(r.body)));
        }
        Some(HttpReply::Network(f)) => pairs.push(failed(f.message)),
        Some(HttpReply::Aborted) => pairs.push(failed("the request was aborted".into())),
        Some(HttpReply::Refused(reason)) => pairs.push(failed(reason)),
        Some(HttpReply::TooLarge { status, size }) => pairs.push(failed(format!(
            "HTTP {status}: the reply is too long ({size} bytes or more)"
        ))),
        None => {}
    }
    obj(pairs)
}

/// A request from the lab module's plan.
fn request_of(v: &Value) -> Option<(bool, HttpRequest)> {
    let text = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
    let headers = v
        .get("headers")?
        .as_array()?
        .iter()
        .filter_map(|h| {
            let h = h.as_array()?;
            Some((
                h.first()?.as_str()?.to_owned(),
                h.get(1)?.as_str()?.to_owned(),
            ))
        })
        .collect();
    Some((
        v.get("streamed")?.as_bool()?,
        HttpRequest {
            method: if text("method")? == "GET" {
                "GET"
            } else {
                "POST"
            },
            url: text("url")?,
            headers,
            body: text("body")?,
        },
    ))
}

impl PageProbe {
    /// `probeState` hook: `running`, or the verdict.
    pub fn state(&self) -> &str {
        self.result.as_ref().map_or("running", |r| r.state.as_str())
    }

    /// How far it is, for people.
    pub fn progress(&self) -> String {
        match self.requests.len() {
            0 => "preparing the requests".to_owned(),
            n => format!("request {} of {n}", (self.next + 1).min(n)),
        }
    }

    fn send(&self) -> Option<ProbeSend> {
        let (stream, request) = self.requests.get(self.next)?;
        Some(ProbeSend {
            seq: self.first_seq + self.next as u64,
            request: request.clone(),
            stream: *stream,
            auth: self.auth.clone(),
            timeout_ms: PROBE_TIMEOUT_MS,
        })
    }

    fn streamed_now(&self) -> bool {
        self.requests.get(self.next).is_some_and(|(s, _)| *s)
    }

    /// The current request got its answer: the next request, or the call that judges.
    fn answered(&mut self, answer: CoreValue) -> Effect {
        if self.streamed_now() {
            let plain = self
                .plain
                .take()
                .unwrap_or_else(|| obj(vec![("failed", CoreValue::str("not sent"))]));
            self.answers.push(CoreValue::Array(vec![plain, answer]));
        } else {
            self.plain = Some(answer);
        }
        self.next += 1;
        self.stream = None;
        match self.send() {
            Some(s) => Effect::Probe(s),
            None => Effect::Lab {
                call: wildtool_contract::Call::ProbeReport,
                input: dumps(
                    &obj(vec![
                        ("provider", CoreValue::str(self.provider.name())),
                        (
                            "answers",
                            CoreValue::Array(std::mem::take(&mut self.answers)),
                        ),
                    ]),
                    Escape::Utf8,
                ),
                purpose: LabPurpose::ProbeReport,
            },
        }
    }
}

impl AppState {
    /// Starts the probe on the endpoint of the setup form.
    pub fn probe_start(&mut self) -> Vec<Effect> {
        let f = &self.setup;
        let Some(provider) = ProviderKind::from_name(&f.provider) else {
            self.probe_error =
                Some("Pick an endpoint provider first: built-in agents do not stream.".into());
            return Vec::new();
        };
        let base = f.effective_base_url();
        let Ok(url) = EndpointUrl::parse(&base) else {
            self.probe_error = Some("Type the endpoint's base URL first.".into());
            return Vec::new();
        };
        if f.model.trim().is_empty() {
            self.probe_error = Some("Name the model first.".into());
            return Vec::new();
        }
        let key = f.key_for(&base);
        let auth = (!key.is_empty()).then(|| {
            let (name, value) = provider.auth().header(&key);
            (name.to_owned(), value)
        });
        let input = dumps(
            &obj(vec![
                ("provider", CoreValue::str(provider.name())),
                ("base_url", CoreValue::Str(url.to_string())),
                ("model", CoreValue::str(f.model.trim())),
            ]),
            Escape::Utf8,
        );
        self.probe_seq += 100;
        self.probe_error = None;
        self.probe = Some(PageProbe {
            provider,
            requests: Vec::new(),
            auth,
            first_seq: self.probe_seq,
            next: 0,
            stream: None,
            answers: Vec::new(),
            plain: None,
            result: None,
        });
        vec![Effect::Lab {
            call: wildtool_contract::Call::ProbeRequests,
            input,
            purpose: LabPurpose::ProbePlan,
        }]
    }

    /// The lab module answered one of the probe's calls.
    pub fn probe_lab(
        &mut self,
        purpose: LabPurpose,
        answer: Result<String, String>,
    ) -> Vec<Effect> {
        let Some(p) = &mut self.probe else {
            return Vec::new();
        };
        let output = match answer {
            Ok(o) => o,
            Err(e) => {
                self.probe_error = Some(format!("The streaming check could not run: {e}"));
                self.probe = None;
                return Vec::new();
            }
        };
        let v: Value = serde_json::from_str(&output).unwrap_or(Value::Null);
        match purpose {
            LabPurpose::ProbePlan if p.requests.is_empty() => {
                p.requests = v
                    .as_array()
                    .map(|l| l.iter().filter_map(request_of).collect())
                    .unwrap_or_default();
                p.send().map(Effect::Probe).into_iter().collect()
            }
            LabPurpose::ProbeReport => {
                let text = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
                p.result = Some(ProbeResult {
                    state: text("state"),
                    text: text("text"),
                });
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    /// An answer (or a part of one) for probe request `seq`.
    pub fn probe_input(&mut self, seq: u64, input: ProbeIn) -> Vec<Effect> {
        let Some(p) = &mut self.probe else {
            return Vec::new();
        };
        if p.result.is_some() || p.requests.is_empty() || seq != p.first_seq + p.next as u64 {
            return Vec::new();
        }
        let streamed = p.streamed_now();
        let answer = match input {
            ProbeIn::Stream(StreamIn::Head(head)) => {
                p.stream = Some((head.status, Vec::new()));
                None
            }
            ProbeIn::Stream(StreamIn::Bytes(bytes)) => {
                p.stream
                    .get_or_insert_with(|| (200, Vec::new()))
                    .1
                    .extend_from_slice(&bytes);
                None
            }
            ProbeIn::Stream(StreamIn::End) => Some(answer_of(
                Some(p.stream.take().unwrap_or((200, Vec::new()))),
                None,
            )),
            // A streamed request answered whole: read as a stream all the same.
            ProbeIn::Reply(HttpReply::Response(r)) if streamed => {
                Some(answer_of(Some((r.status, r.body.into_bytes())), None))
            }
            ProbeIn::Reply(reply) => Some(answer_of(p.stream.take(), Some(reply))),
        };
        answer.map(|a| p.answered(a)).into_iter().collect()
    }
}
