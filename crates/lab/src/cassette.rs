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

use std::cell::RefCell;

use serde::Deserialize;

use wildtool_core::provenance::cassette::{self, Answer, Cassette, Entry};

use crate::{read, LabError};

thread_local! {
    static LOADED: RefCell<Cassette> = RefCell::new(Cassette::default());
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
}

/// One operation (see the module docs).
pub fn cassette(input: &str) -> Result<String, LabError> {
    let o: Op = read(input)?;
    match o.op.as_str() {
        "header" => Ok(cassette::HEADER.to_owned()),
        "record" => {
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
                    format!("reply {} {}\n{}", e.status, e.latency.to_bits(), e.reply)
                }
                Answer::Missing { key } => format!("missing {}", cassette::missing_reason(&key)),
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
