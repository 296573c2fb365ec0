//! The streaming probe in the page (the *Check streaming* button beside the endpoint
//! check): the core's probe requests (asked of the lab module) sent one after another
//! through the page's `fetch` transport, and the answers — a streamed one as the bytes
//! that arrived — handed to the lab module, where the core reassembles and judges them;
//! its verdict and report are shown as text. Nothing is decided here.

mod update;

use serde_json::Value;

use wildtool_core::json::{dumps, Escape, Map, Value as CoreValue};
use wildtool_core::runner::http::HttpReply;
use wildtool_core::runner::provider::{HttpRequest, ProviderKind};

use crate::msg::{Effect, LabPurpose, ProbeSend};

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
        pairs.push((
            "stream",
            CoreValue::Str(crate::run::readers::base64_url(&bytes)),
        ));
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
