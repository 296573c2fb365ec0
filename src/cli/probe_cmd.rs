//! `wildtool probe-stream`: sends the core's probe tasks to an endpoint once without
//! streaming and once streamed, and prints the core's verdict with the evidence. Exit
//! codes: 0 the calls agree, 1 the server loses or changes calls when streaming, 2 usage,
//! 3 inconclusive (nothing to compare), 4 the endpoint gave no usable reply.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use wildtool_core::runner::endpoint_url::EndpointUrl;
use wildtool_core::runner::engine::DEFAULT_STREAM_IDLE_TIMEOUT;
use wildtool_core::runner::http::HttpHead;
use wildtool_core::runner::probe::{self, servers, ProbeAnswer, ProbeStream, Verdict};
use wildtool_core::runner::provider::Endpoint;
use wildtool_core::runner::registry;

use crate::native::transport::{StreamSink, Streamed};
use crate::native::{Transport, UreqTransport};

use super::{EXIT_FAILURE, EXIT_INCOMPLETE, EXIT_PREFLIGHT};

/// Options of `wildtool probe-stream`.
#[derive(Debug, clap::Args)]
pub struct ProbeOpts {
    /// The endpoint's API dialect: openai, anthropic or gemini.
    #[arg(long, default_value = "openai")]
    provider: String,
    /// Endpoint base URL, e.g. http://127.0.0.1:8000/v1 (default: the provider's own API).
    #[arg(long)]
    base_url: Option<String>,
    /// Model name sent to the endpoint.
    #[arg(long)]
    model: String,
    /// Environment variable holding the API key (default: the provider's, e.g.
    /// OPENAI_API_KEY). The key is never written anywhere.
    #[arg(long)]
    api_key_env: Option<String>,
    /// Per-request timeout in seconds (0.1-3600).
    #[arg(long, default_value_t = registry::DEFAULTS.timeout_secs)]
    timeout: f64,
    /// The serving stack, when its replies do not give it away (vllm, sglang, llamacpp,
    /// ollama, tgi): the report then says what to look for on it.
    #[arg(long)]
    server: Option<String>,
    /// Print the report as JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// Why the probe could not start.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ProbeUsage(pub String);

/// Feeds a streamed response into the core's probe reader.
struct Sink<'a>(&'a mut ProbeStream);

impl StreamSink for Sink<'_> {
    fn head(&mut self, head: HttpHead) {
        self.0.head(head.status);
    }
    fn bytes(&mut self, chunk: &[u8]) -> bool {
        self.0.bytes(chunk)
    }
}

/// Runs the probe (see the module docs for the exit codes).
pub fn probe_stream(o: &ProbeOpts) -> Result<ExitCode, ProbeUsage> {
    let info = registry::provider_named(&o.provider).ok_or_else(|| {
        ProbeUsage(format!(
            "unknown --provider {:?} (openai, anthropic, gemini)",
            o.provider
        ))
    })?;
    let base = match (&o.base_url, info.default_base_url) {
        (Some(u), _) => u.clone(),
        (None, Some(d)) => d.to_owned(),
        (None, None) => {
            return Err(ProbeUsage(format!(
                "--base-url is required for --provider {}",
                o.provider
            )))
        }
    };
    let base_url =
        EndpointUrl::parse(&base).map_err(|e| ProbeUsage(format!("invalid base URL: {e}")))?;
    if o.model.trim().is_empty() {
        return Err(ProbeUsage("the model name is empty".to_owned()));
    }
    let (lo, hi) = registry::LIMITS.timeout_secs;
    if !(o.timeout.is_finite() && (lo..=hi).contains(&o.timeout)) {
        return Err(ProbeUsage(format!(
            "invalid timeout {}: expected a number of seconds from {lo} to {hi}",
            o.timeout
        )));
    }
    let server = match &o.server {
        Some(name) => Some(servers::named(name).ok_or_else(|| {
            ProbeUsage(format!(
                "unknown --server {name:?} ({})",
                servers::names().join(", ")
            ))
        })?),
        None => None,
    };
    let var = o
        .api_key_env
        .clone()
        .unwrap_or_else(|| info.key_env.to_owned());
    // The key is read here and kept only inside the transport.
    let key = std::env::var(&var).ok().filter(|k| !k.is_empty());
    if let Some(k) = &key {
        super::register_secret(k);
    }
    if key.is_none() {
        eprintln!("note: ${var} is not set; sending requests without an API key");
    }
    let transport = Arc::new(UreqTransport::new(key.map(|k| (info.kind.auth(), k)), 1));
    let endpoint = Endpoint {
        base_url: base_url.to_string(),
        browser: false,
    };
    let timeout = Duration::from_secs_f64(o.timeout);
    let idle = Duration::from_secs_f64(o.timeout.min(DEFAULT_STREAM_IDLE_TIMEOUT));
    let requests = probe::requests(info.kind, &endpoint, &o.model);
    let mut answers: Vec<(ProbeAnswer, ProbeAnswer)> = Vec::new();
    let mut plain = None;
    for r in &requests {
        let task = probe::tasks::TASKS.get(r.task).map_or("", |t| t.name);
        eprintln!(
            "probe-stream: {task} ({}/{}), {}",
            r.task + 1,
            probe::tasks::TASKS.len(),
            if r.streamed {
                "streamed"
            } else {
                "not streamed"
            }
        );
        if !r.streamed {
            plain = Some(ProbeAnswer::from_reply(transport.send(&r.request, timeout)));
            continue;
        }
        let mut stream = ProbeStream::new(info.kind);
        let outcome = transport.send_streaming(&r.request, timeout, idle, &mut Sink(&mut stream));
        if let Streamed::Failed(reply) = outcome {
            match ProbeAnswer::from_reply(reply) {
                ProbeAnswer::Failed(m) => stream.fail(&m),
                ProbeAnswer::Body { .. } => {}
            }
        }
        let answer = stream.finish();
        answers.push((
            plain
                .take()
                .unwrap_or(ProbeAnswer::Failed("not sent".to_owned())),
            answer,
        ));
    }
    let report = probe::judge(info.kind, &answers, server);
    if o.json {
        println!("{}", super::redact(&report.to_json()));
    } else {
        print!("{}", super::redact(&report.text()));
    }
    Ok(ExitCode::from(match report.verdict {
        Verdict::Agree => 0,
        Verdict::Differ => EXIT_FAILURE,
        Verdict::Inconclusive => EXIT_INCOMPLETE,
        Verdict::Unusable => EXIT_PREFLIGHT,
    }))
}
