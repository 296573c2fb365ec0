//! The page's cassettes: the core's format, key and replay rule
//! (`wildtool_core::provenance::cassette`), run in the lab module so the app shell only
//! forwards texts. Like `stream_read`, this call keeps state: the cassette loaded for a
//! replay, with its count of used recordings.
//!
//! Input (JSON), one operation each:
//! - `{"op": "record", "method", "url", "body", "status", "reply", "latency_bits"}`: the
//!   latency as a replay will report it, a newline, and the exchange's cassette line (the
//!   header line is `{"op": "header"}`). Latencies travel as their IEEE 754 bits, so the
//!   shell formats and parses no floating-point number.
//! - `{"op": "load", "text"}`: reads an uploaded cassette for replaying; `ok <entries>`,
//!   or the failure naming the line.
//! - `{"op": "answer", "method", "url", "body"}`: `reply <status> <latency bits>`, a newline
//!   and the recorded body; or `missing <the reason the task ends with>` when the
//!   request is not in the cassette (it must not be sent).
//!
//! The same calls keep the run's exchange log for its manifest (the core's
//! [`ExchangeLog`]): `{"op": "log-start"}` begins a run's; `record` and `answer` carry
//! the request's `id` and task (`trial`, `line`, `task`; `trial` 0 for the preflight) and
//! log the request and its reply (`failed: true` on `record`: sent, no reply);
//! `{"op": "manifest", "entry", "result", "score", "metric", "resumed", "cassette_mode",
//! "cassette_file", "later"}` (`later`: trials 2.., each `[result, score, metric]`; an
//! env run, told by its result's header, sends its `env-result.jsonl` and
//! `env-report.json` as `result` and `score`, or its `own-result.jsonl` as `result`) ends
//! the log and writes the run's `manifest.json` (the history
//! entry's JSON gives versions, dataset, provider, model, settings, times and totals;
//! the files' texts their hashes and the headline claims) with the core's
//! [`Manifest::new`] and [`Manifest::with_log`], the functions `wildtool run` writes it
//! with.

use std::cell::RefCell;

use serde::Deserialize;

use wildtool_core::formats::meta::{rfc3339, DatasetMeta, Tokens};
use wildtool_core::formats::RunMeta;
use wildtool_core::ledger::run_file::ENV_RUN_FORMAT;
use wildtool_core::own::run_file::OWN_RUN_FORMAT;
use wildtool_core::provenance::cassette::{self, Answer, Cassette, Entry};
use wildtool_core::provenance::manifest::{output_claims, CassetteUse, ExchangeLog, Manifest};
use wildtool_core::runner::engine::TaskKey;
use wildtool_core::runner::http::{HttpReply, HttpResponse};

use crate::{read, LabError};

thread_local! {
    static LOADED: RefCell<Cassette> = RefCell::new(Cassette::default());
    static LOG: RefCell<ExchangeLog> = RefCell::new(ExchangeLog::default());
}

#[derive(Deserialize)]
struct Op {
    op: String,
    #[serde(default)]
    method: String,
    #[serde(default)]
    url: String,
    #[serde(default)]
    body: String,
    #[serde(default)]
    status: u16,
    #[serde(default)]
    reply: String,
    /// The latency's IEEE 754 bits (no float formatting or parsing in the shell).
    #[serde(default)]
    latency_bits: u64,
    #[serde(default)]
    text: String,
    /// The engine's request id (logging).
    #[serde(default)]
    id: u64,
    /// The request's task: trial (1-based; 0: the preflight), line, task.
    #[serde(default)]
    trial: u32,
    #[serde(default)]
    line: usize,
    #[serde(default)]
    task: usize,
    /// Sent, but no reply came back.
    #[serde(default)]
    failed: bool,
    /// The manifest's inputs.
    #[serde(default)]
    entry: String,
    #[serde(default)]
    result: Option<String>,
    #[serde(default)]
    score: Option<String>,
    #[serde(default)]
    metric: Option<String>,
    #[serde(default)]
    resumed: u64,
    #[serde(default)]
    cassette_mode: Option<String>,
    #[serde(default)]
    cassette_file: String,
    /// Trials 2.. of a run with repeated trials: each one's result, score and metric
    /// texts (trial 1's are `result`, `score`, `metric`).
    #[serde(default)]
    later: Vec<[Option<String>; 3]>,
}

impl Op {
    /// Logs the request and (unless `None`) its reply.
    fn log(&self, reply: Option<(u16, &str)>) {
        let task = (self.trial > 0).then_some(TaskKey {
            trial: self.trial,
            line: self.line,
            task: self.task,
        });
        LOG.with(|cell| {
            let mut log = cell.borrow_mut();
            log.sent(self.id, task, &self.body);
            if let Some((status, body)) = reply {
                log.replied(
                    self.id,
                    &HttpReply::Response(HttpResponse::new(status, body.to_owned())),
                );
            }
        });
    }
}

/// A form setting's text as JSON: a number or a truth value when it reads as one.
fn setting(v: &str) -> serde_json::Value {
    match v {
        "true" => serde_json::Value::Bool(true),
        "false" => serde_json::Value::Bool(false),
        _ => v
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .and_then(serde_json::Number::from_f64)
            .map_or_else(
                || serde_json::Value::String(v.to_owned()),
                serde_json::Value::Number,
            ),
    }
}

/// The run's manifest from the exchange log and the history entry (see the module docs).
fn manifest(o: Op) -> Result<String, LabError> {
    use serde_json::{json, Value};
    let e: Value =
        serde_json::from_str(&o.entry).map_err(|err| LabError::Input(format!("entry: {err}")))?;
    let text = |k: &str| e.get(k).and_then(Value::as_str).map(str::to_owned);
    let num = |k: &str| e.get(k).and_then(Value::as_f64);
    let mut settings = std::collections::BTreeMap::new();
    for pair in e
        .get("settings")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let (Some(k), Some(v)) = (
            pair.get(0).and_then(Value::as_str),
            pair.get(1).and_then(Value::as_str),
        ) {
            if k != "provider" {
                settings.insert(k.to_owned(), setting(v));
            }
        }
    }
    let endpoint = text("base_url").and_then(|b| RunMeta::endpoint_of(&b));
    settings.insert("endpoint".to_owned(), json!(endpoint));
    settings.insert(
        "seeds".to_owned(),
        json!("per task and trial: runner::engine::trial_seed(trial, line, task)"),
    );
    // An env run is told by its result file's header: `result` is its `env-result.jsonl`
    // (then `score` is its `env-report.json`) or its `own-result.jsonl`.
    let head = o
        .result
        .as_deref()
        .and_then(|r| r.lines().next())
        .unwrap_or("");
    let kind = if head.contains(OWN_RUN_FORMAT) {
        "own:ledger"
    } else if head.contains(ENV_RUN_FORMAT) {
        "env:ledger"
    } else {
        "official"
    };
    let own = kind.starts_with("own");
    settings.insert(
        "history_mode".to_owned(),
        json!(if own { "own" } else { "gold" }),
    );
    if kind != "official" {
        settings.insert("env".to_owned(), json!("ledger"));
    }
    settings.insert(
        "offline".to_owned(),
        json!(o.cassette_mode.as_deref() == Some("replay")),
    );
    let dataset = DatasetMeta {
        fingerprint: text("dataset_fingerprint").unwrap_or_default(),
        name: text("dataset_name"),
    };
    let mut m = Manifest::new(
        kind,
        &text("wildtool_version").unwrap_or_default(),
        dataset,
        &text("provider").unwrap_or_default(),
        &text("model").unwrap_or_default(),
    );
    m.settings = settings;
    m.started_at = num("started_ms").and_then(|ms| rfc3339(ms / 1000.0));
    m.finished_at = num("finished_ms").and_then(|ms| rfc3339(ms / 1000.0));
    m.duration_seconds = num("duration_s").unwrap_or(0.0);
    m.tokens = Tokens {
        input: num("input_tokens").unwrap_or(0.0) as u64,
        output: num("output_tokens").unwrap_or(0.0) as u64,
    };
    m.requests = num("requests").unwrap_or(0.0) as u64;
    m.resumed_tasks = o.resumed;
    m.cassette = o.cassette_mode.clone().map(|mode| CassetteUse {
        mode,
        file: o.cassette_file.clone(),
    });
    // One output per trial, in the directories `wildtool run --trials K` writes
    // (`trial-1`, `trial-2`, …; the run directory itself for a single trial).
    let outputs = match kind {
        "env:ledger" => vec![output_claims(
            ".",
            &[
                ("env-result.jsonl", o.result.as_deref().map(str::as_bytes)),
                ("env-report.json", o.score.as_deref().map(str::as_bytes)),
            ],
            "env-report.json",
        )],
        // The page's own-history report is not the CLI's `own-report.json` (it covers
        // the ledger sessions only): the result file is hashed, no number is claimed.
        "own:ledger" => vec![output_claims(
            ".",
            &[("own-result.jsonl", o.result.as_deref().map(str::as_bytes))],
            "",
        )],
        _ => official_outputs(&o),
    };
    let log = LOG.with(|cell| std::mem::take(&mut *cell.borrow_mut()));
    Ok(m.with_log(log, outputs).to_json())
}

/// An official run's outputs: one per trial, in the directories `wildtool run --trials K`
/// writes (`trial-1`, `trial-2`, …; the run directory itself for a single trial).
fn official_outputs(o: &Op) -> Vec<wildtool_core::provenance::manifest::OutputClaims> {
    let first = [o.result.clone(), o.score.clone(), o.metric.clone()];
    let trials: Vec<&[Option<String>; 3]> = std::iter::once(&first).chain(&o.later).collect();
    trials
        .iter()
        .enumerate()
        .map(|(i, [result, score, metric])| {
            let files = [
                ("result.jsonl", result.as_deref().map(str::as_bytes)),
                ("score.jsonl", score.as_deref().map(str::as_bytes)),
                ("metric.json", metric.as_deref().map(str::as_bytes)),
            ];
            let dir = match trials.len() {
                1 => ".".to_owned(),
                _ => format!("trial-{}", i + 1),
            };
            output_claims(&dir, &files, "metric.json")
        })
        .collect()
}

/// One operation (see the module docs).
pub fn cassette(input: &str) -> Result<String, LabError> {
    let o: Op = read(input)?;
    match o.op.as_str() {
        "header" => Ok(cassette::HEADER.to_owned()),
        "log-start" => {
            LOG.with(|cell| *cell.borrow_mut() = ExchangeLog::default());
            Ok(String::new())
        }
        "manifest" => manifest(o),
        "record" if o.failed => {
            o.log(None);
            Ok(String::new())
        }
        "record" => {
            o.log(Some((o.status, &o.reply)));
            // The latency as a replay of this line reads it, for the recording run to
            // report (JSON number parsing may move the last digit).
            let line = Entry::new(
                &o.method,
                &o.url,
                &o.body,
                o.status,
                &o.reply,
                f64::from_bits(o.latency_bits),
            )
            .to_line();
            let read = serde_json::from_str::<Entry>(&line)
                .map_or(f64::from_bits(o.latency_bits), |e| e.latency);
            Ok(format!("{}\n{line}", read.to_bits()))
        }
        "load" => {
            let c = Cassette::parse(o.text.as_bytes())
                .map_err(|e| LabError::Message(format!("not a usable cassette: {e}")))?;
            let n = c.entries().len();
            LOADED.with(|cell| *cell.borrow_mut() = c);
            Ok(format!("ok {n}"))
        }
        "answer" => LOADED.with(|cell| {
            Ok(match cell.borrow_mut().answer(&o.method, &o.url, &o.body) {
                Answer::Recorded(e) => {
                    o.log(Some((e.status, &e.reply)));
                    format!("reply {} {}\n{}", e.status, e.latency.to_bits(), e.reply)
                }
                Answer::Missing { key } => {
                    o.log(None);
                    format!("missing {}", cassette::missing_reason(&key))
                }
            })
        }),
        other => Err(LabError::Input(format!("unknown cassette op {other:?}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(v: serde_json::Value) -> String {
        cassette(&v.to_string()).unwrap_or_else(|e| format!("error {e}"))
    }

    #[test]
    fn a_recorded_line_replays_and_a_missing_request_is_refused() {
        let line = op(serde_json::json!({"op": "record", "method": "POST",
            "url": "http://127.0.0.1:9/v1/chat/completions", "body": "{\"a\": 1}",
            "status": 200, "reply": "{\"ok\": true}", "latency_bits": 0.25f64.to_bits()}));
        // The same line the CLI's recorder writes for this exchange.
        let cli = Entry::new(
            "POST",
            "http://h/v1/chat/completions",
            "{\"a\": 1}",
            200,
            "{\"ok\": true}",
            0.25,
        );
        assert_eq!(line, format!("{}\n{}", 0.25f64.to_bits(), cli.to_line()));
        let line = line
            .split_once('\n')
            .map(|(_, l)| l.to_owned())
            .unwrap_or_default();
        let text = format!("{}\n{line}\n", op(serde_json::json!({"op": "header"})));
        assert_eq!(op(serde_json::json!({"op": "load", "text": text})), "ok 1");
        let got = op(serde_json::json!({"op": "answer", "method": "POST",
            "url": "http://other:1/v1/chat/completions", "body": "{\"a\":1}"}));
        assert_eq!(
            got,
            format!("reply 200 {}\n{{\"ok\": true}}", 0.25f64.to_bits())
        );
        let got = op(serde_json::json!({"op": "answer", "method": "POST",
            "url": "http://other:1/v1/chat/completions", "body": "{\"a\": 2}"}));
        assert!(
            got.starts_with("missing offline: this request is not in the cassette"),
            "{got}"
        );
        assert!(op(serde_json::json!({"op": "load", "text": "{}"})).contains("line 1"));
    }
}
