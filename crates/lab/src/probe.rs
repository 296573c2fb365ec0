//! The streaming probe's requests and report for the page: the core's probe tasks as
//! requests to send, and the core's verdict and report text from the answers the page
//! collected (streamed answers as the bytes that arrived, reassembled here by the core's
//! probe reader).

use serde::{Deserialize, Serialize};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use wildtool_core::runner::probe::{self, ProbeAnswer, ProbeStream, Verdict};
use wildtool_core::runner::provider::{Endpoint, ProviderKind};

use crate::{read, LabError};

#[derive(Deserialize)]
struct PlanInput {
    provider: String,
    base_url: String,
    model: String,
}

#[derive(Serialize)]
struct Request<'a> {
    streamed: bool,
    method: &'a str,
    url: &'a str,
    headers: &'a [(String, String)],
    body: &'a str,
}

fn provider(name: &str) -> Result<ProviderKind, LabError> {
    ProviderKind::from_name(name)
        .ok_or_else(|| LabError::Input(format!("unknown provider {name:?}")))
}

/// The probe's requests, in order (`[{streamed, method, url, headers, body}]`), for
/// `{provider, base_url, model}` (sent from a browser).
pub fn requests(input: &str) -> Result<String, LabError> {
    let i: PlanInput = read(input)?;
    let endpoint = Endpoint {
        base_url: i.base_url,
        browser: true,
    };
    let all = probe::requests(provider(&i.provider)?, &endpoint, &i.model);
    let out: Vec<Request<'_>> = all
        .iter()
        .map(|r| Request {
            streamed: r.streamed,
            method: r.request.method,
            url: &r.request.url,
            headers: &r.request.headers,
            body: &r.request.body,
        })
        .collect();
    serde_json::to_string(&out).map_err(|e| LabError::Input(e.to_string()))
}

/// One answer as the page sends it: an HTTP answer (for a streamed request, the bytes
/// that arrived, URL-safe base64 without padding), and the failure, if any.
#[derive(Deserialize)]
struct Answer {
    #[serde(default)]
    status: Option<u16>,
    #[serde(default)]
    body: String,
    #[serde(default)]
    stream: Option<String>,
    #[serde(default)]
    failed: Option<String>,
}

impl Answer {
    fn core(self, provider: ProviderKind) -> Result<ProbeAnswer, LabError> {
        let Some(stream) = self.stream else {
            return Ok(match self.failed {
                Some(f) => ProbeAnswer::Failed(f),
                None => ProbeAnswer::Body {
                    status: self.status.unwrap_or(0),
                    body: self.body,
                    notes: Vec::new(),
                },
            });
        };
        let bytes = URL_SAFE_NO_PAD
            .decode(stream.as_bytes())
            .map_err(|e| LabError::Input(e.to_string()))?;
        let mut s = ProbeStream::new(provider);
        if let Some(status) = self.status {
            s.head(status);
            s.bytes(&bytes);
        }
        if let Some(f) = &self.failed {
            s.fail(f);
        }
        Ok(s.finish())
    }
}

#[derive(Deserialize)]
struct ReportInput {
    provider: String,
    /// Per task: the answer without streaming, then the streamed one.
    answers: Vec<(Answer, Answer)>,
}

#[derive(Serialize)]
struct ReportOutput {
    state: &'static str,
    text: String,
}

/// The verdict (`agree`, `differ`, `inconclusive`, `unusable`) and the report's text.
pub fn report(input: &str) -> Result<String, LabError> {
    let i: ReportInput = read(input)?;
    let kind = provider(&i.provider)?;
    let answers = i
        .answers
        .into_iter()
        .map(|(p, s)| Ok((p.core(kind)?, s.core(kind)?)))
        .collect::<Result<Vec<_>, LabError>>()?;
    let r = probe::judge(kind, &answers, None);
    let state = match r.verdict {
        Verdict::Agree => "agree",
        Verdict::Differ => "differ",
        Verdict::Inconclusive => "inconclusive",
        Verdict::Unusable => "unusable",
    };
    serde_json::to_string(&ReportOutput {
        state,
        text: r.text(),
    })
    .map_err(|e| LabError::Input(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_and_the_report_are_the_cores() {
        let plan = requests(r#"{"provider": "openai", "base_url": "http://h/v1", "model": "m"}"#)
            .expect("plan");
        let v: serde_json::Value = serde_json::from_str(&plan).expect("json");
        let list = v.as_array().expect("list");
        assert_eq!(list.len(), 2 * probe::tasks::TASKS.len());
        assert_eq!(list[1]["streamed"], true);
        assert_eq!(list[0]["url"], "http://h/v1/chat/completions");
        let failed = r#"{"failed": "nothing answered"}"#;
        let input = format!(
            r#"{{"provider": "openai", "answers": [{}]}}"#,
            vec![format!("[{failed}, {failed}]"); 4].join(", ")
        );
        let out: serde_json::Value =
            serde_json::from_str(&report(&input).expect("report")).expect("json");
        assert_eq!(out["state"], "unusable");
        assert!(out["text"]
            .as_str()
            .is_some_and(|t| t.contains("nothing answered")));
        assert!(matches!(
            requests(r#"{"provider": "x", "base_url": "", "model": ""}"#),
            Err(LabError::Input(_))
        ));
    }
}
