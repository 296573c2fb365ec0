//! The streaming probe in the page (the *Check streaming* button beside the endpoint
//! check): the core's probe requests sent one after another through the page's `fetch`
//! transport, streamed ones read chunk by chunk into the core's probe reader, and the
//! core's report shown as text. Nothing is decided here.

use wildtool_core::runner::endpoint_url::EndpointUrl;
use wildtool_core::runner::http::HttpReply;
use wildtool_core::runner::probe::{
    self, ProbeAnswer, ProbeReport, ProbeRequest, ProbeStream, Verdict,
};
use wildtool_core::runner::provider::{Endpoint, HttpRequest, ProviderKind};

use crate::live::StreamIn;
use crate::msg::Effect;
use crate::state::AppState;

/// How long one probe request may take, in ms (model calls, not the model list).
const PROBE_TIMEOUT_MS: u32 = 120_000;

/// A probe request to send (the key attached only for the probed endpoint).
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeSend {
    /// Answer with this number ([`crate::msg::Msg::Probe`]).
    pub seq: u64,
    /// The request.
    pub request: HttpRequest,
    /// Read the response as a stream.
    pub stream: bool,
    /// `(header, value)` carrying the key, when there is one.
    pub auth: Option<(String, String)>,
    /// Give up after this long.
    pub timeout_ms: u32,
}

/// What came back for a probe request.
#[derive(Debug, Clone, PartialEq)]
pub enum ProbeIn {
    /// A part of a streamed response.
    Stream(StreamIn),
    /// A whole response, or a failure (streamed or not).
    Reply(HttpReply),
}

/// A probe in progress or done.
#[derive(Debug)]
pub struct PageProbe {
    provider: ProviderKind,
    requests: Vec<ProbeRequest>,
    auth: Option<(String, String)>,
    /// Sequence number of the first request (answers to an earlier probe are dropped).
    first_seq: u64,
    next: usize,
    plain: Option<ProbeAnswer>,
    stream: Option<ProbeStream>,
    answers: Vec<(ProbeAnswer, ProbeAnswer)>,
    /// The report, once every request is answered.
    pub report: Option<ProbeReport>,
}

impl PageProbe {
    /// `probeState` hook: `running`, or the verdict.
    pub fn state(&self) -> &'static str {
        match self.report.as_ref().map(|r| r.verdict) {
            None => "running",
            Some(Verdict::Agree) => "agree",
            Some(Verdict::Differ) => "differ",
            Some(Verdict::Inconclusive) => "inconclusive",
            Some(Verdict::Unusable) => "unusable",
        }
    }

    /// How far it is, for people.
    pub fn progress(&self) -> String {
        match &self.report {
            Some(_) => "done".to_owned(),
            None => format!(
                "request {} of {}",
                (self.next + 1).min(self.requests.len()),
                self.requests.len()
            ),
        }
    }

    fn send(&self) -> Option<ProbeSend> {
        let r = self.requests.get(self.next)?;
        Some(ProbeSend {
            seq: self.first_seq + self.next as u64,
            request: r.request.clone(),
            stream: r.streamed,
            auth: self.auth.clone(),
            timeout_ms: PROBE_TIMEOUT_MS,
        })
    }

    /// The current request got its answer: the next one to send, or the report.
    fn answered(&mut self, answer: ProbeAnswer) -> Option<ProbeSend> {
        let streamed = self.requests.get(self.next).is_some_and(|r| r.streamed);
        if streamed {
            let plain = self
                .plain
                .take()
                .unwrap_or_else(|| ProbeAnswer::Failed("not sent".to_owned()));
            self.answers.push((plain, answer));
        } else {
            self.plain = Some(answer);
        }
        self.next += 1;
        self.stream = None;
        if self.next >= self.requests.len() {
            self.report = Some(probe::judge(self.provider, &self.answers, None));
            return None;
        }
        self.send()
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
        let endpoint = Endpoint {
            base_url: url.to_string(),
            browser: true,
        };
        let key = f.key_for(&base);
        let auth = (!key.is_empty()).then(|| {
            let (name, value) = provider.auth().header(&key);
            (name.to_owned(), value)
        });
        self.probe_seq += 100;
        let p = PageProbe {
            provider,
            requests: probe::requests(provider, &endpoint, f.model.trim()),
            auth,
            first_seq: self.probe_seq,
            next: 0,
            plain: None,
            stream: None,
            answers: Vec::new(),
            report: None,
        };
        self.probe_error = None;
        let first = p.send();
        self.probe = Some(p);
        first.map(Effect::Probe).into_iter().collect()
    }

    /// An answer (or a part of one) for probe request `seq`.
    pub fn probe_input(&mut self, seq: u64, input: ProbeIn) -> Vec<Effect> {
        let Some(p) = &mut self.probe else {
            return Vec::new();
        };
        if p.report.is_some() || seq != p.first_seq + p.next as u64 {
            return Vec::new();
        }
        let provider = p.provider;
        let next = match input {
            ProbeIn::Stream(StreamIn::Head(head)) => {
                p.stream
                    .get_or_insert_with(|| ProbeStream::new(provider))
                    .head(head.status);
                None
            }
            ProbeIn::Stream(StreamIn::Bytes(bytes)) => {
                let s = p.stream.get_or_insert_with(|| ProbeStream::new(provider));
                s.bytes(&bytes);
                None
            }
            ProbeIn::Stream(StreamIn::End) => {
                let answer = p.stream.take().map_or(
                    ProbeAnswer::Failed("no response".to_owned()),
                    ProbeStream::finish,
                );
                Some(p.answered(answer))
            }
            ProbeIn::Reply(reply) => {
                let streamed = p.requests.get(p.next).is_some_and(|r| r.streamed);
                let answer = match (reply, streamed) {
                    // A streamed request answered whole: read as a stream all the same.
                    (HttpReply::Response(r), true) => {
                        let mut s = ProbeStream::new(provider);
                        s.head(r.status);
                        s.bytes(r.body.as_bytes());
                        s.finish()
                    }
                    (reply, true) => {
                        let mut s = p
                            .stream
                            .take()
                            .unwrap_or_else(|| ProbeStream::new(provider));
                        if let ProbeAnswer::Failed(m) = ProbeAnswer::from_reply(reply) {
                            s.fail(&m);
                        }
                        s.finish()
                    }
                    (reply, false) => ProbeAnswer::from_reply(reply),
                };
                Some(p.answered(answer))
            }
        };
        next.flatten().map(Effect::Probe).into_iter().collect()
    }
}
