//! The page's readers of streamed responses: the core's [`CoreReaders`], kept in this
//! module between calls, so that the reassembly of event streams is loaded only when a run
//! streams. Unlike the other calls this one keeps state: one reader per response, from
//! `open` to `finish` (or `close`), keyed by the page's request id.
//!
//! Input `{"op": "open", "id", "provider", "status"}`, `{"op": "feed", "id", "chunk"}`
//! (the bytes in URL-safe base64 without padding), `{"op": "finish", "id"}`,
//! `{"op": "events", "id"}`, `{"op": "close", "id"}`. The output is plain text, cheap to
//! read in the page's module: `ok`, `progress <first output 0|1> <finished 0|1>`,
//! `body <the reassembled body>`, `events <n>`, or `error <the stream failure's message>`.

use std::cell::RefCell;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde::Deserialize;

use wildtool_core::runner::provider::ProviderKind;
use wildtool_core::runner::stream::{CoreReaders, StreamReaders};

use crate::{read, LabError};

thread_local! {
    static READERS: RefCell<CoreReaders> = RefCell::new(CoreReaders::default());
}

#[derive(Deserialize)]
struct Op {
    op: String,
    id: u64,
    #[serde(default)]
    provider: String,
    #[serde(default)]
    status: u16,
    #[serde(default)]
    chunk: String,
}

/// One operation on the readers (see the module docs).
pub fn read_stream(input: &str) -> Result<String, LabError> {
    let o: Op = read(input)?;
    READERS.with(|cell| {
        let mut r = cell.borrow_mut();
        Ok(match o.op.as_str() {
            "open" => {
                let provider = ProviderKind::from_name(&o.provider)
                    .ok_or_else(|| LabError::Input(format!("unknown provider {:?}", o.provider)))?;
                r.open(o.id, provider, o.status);
                "ok".to_owned()
            }
            "feed" => {
                let bytes = URL_SAFE_NO_PAD
                    .decode(o.chunk.as_bytes())
                    .map_err(|e| LabError::Input(e.to_string()))?;
                match r.feed(o.id, &bytes) {
                    Ok(p) => format!(
                        "progress {} {}",
                        u8::from(p.first_output),
                        u8::from(p.finished)
                    ),
                    Err(e) => format!("error {e}"),
                }
            }
            "finish" => match r.finish(o.id) {
                Ok(body) => format!("body {body}"),
                Err(e) => format!("error {e}"),
            },
            "events" => format!("events {}", r.events(o.id)),
            "close" => {
                r.close(o.id);
                "ok".to_owned()
            }
            other => {
                return Err(LabError::Input(format!(
                    "unknown stream operation {other:?}"
                )))
            }
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn op(v: serde_json::Value) -> String {
        read_stream(&v.to_string()).expect("call")
    }

    #[test]
    fn a_stream_fed_in_pieces_reassembles_and_failures_are_named() {
        let text = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: [DONE]\n\n";
        op(json!({"op": "open", "id": 7, "provider": "openai", "status": 200}));
        let mut first = false;
        for c in text.as_bytes().chunks(9) {
            let p = op(json!({"op": "feed", "id": 7, "chunk": URL_SAFE_NO_PAD.encode(c)}));
            first |= p.starts_with("progress 1");
        }
        assert!(first);
        assert_eq!(op(json!({"op": "events", "id": 7})), "events 2");
        let body = op(json!({"op": "finish", "id": 7}));
        assert!(
            body.starts_with("body {") && body.contains("\"content\": \"Hi\""),
            "{body}"
        );
        op(json!({"op": "open", "id": 8, "provider": "openai", "status": 200}));
        let cut = URL_SAFE_NO_PAD.encode(&text.as_bytes()[..20]);
        op(json!({"op": "feed", "id": 8, "chunk": cut}));
        let e = op(json!({"op": "finish", "id": 8}));
        assert!(
            e.starts_with("error ") && e.contains("cut in the middle of event 1"),
            "{e}"
        );
        assert!(read_stream(r#"{"op": "nope", "id": 1}"#).is_err());
    }
}
