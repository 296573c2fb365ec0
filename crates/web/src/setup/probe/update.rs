//! The streaming probe's handlers: its requests sent in turn, the answers handed to the lab
//! module.

use super::*;
use crate::msg::{Effect, LabPurpose, ProbeIn, StreamIn};
use crate::state::AppState;
use serde_json::Value;
use wildtool_core::json::{dumps, Escape, Value as CoreValue};
use wildtool_core::runner::endpoint_url::EndpointUrl;
use wildtool_core::runner::http::HttpReply;
use wildtool_core::runner::provider::ProviderKind;

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
