//! The recorded event streams of `tests/fixtures/streams/` (one per server kind, written
//! from each server's public docs and tests) read as a correct client reads them: every
//! stream, fed whole, cut at every byte, one byte at a time and in seeded random chunks,
//! reassembles to the same body, and the provider mapping reads that body as the reply
//! the fixture documents (names, argument text, ids, text, reasoning, token counts).

use std::path::PathBuf;

use wildtool_core::json::{loads, Value};
use wildtool_core::protocol::{Reply, SeededIds};
use wildtool_core::runner::provider::ProviderKind;
use wildtool_core::runner::stream::StreamReader;

pub(crate) fn streams_dir() -> PathBuf {
    crate::support::fixture("streams")
}

/// Every fixture: (name, stream bytes, documented expectations).
pub(crate) fn fixtures() -> Vec<(String, Vec<u8>, Value)> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(streams_dir())
        .expect("fixtures folder")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "sse"))
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|p| {
            let stem = p
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or("")
                .to_owned();
            let bytes = std::fs::read(&p).expect("stream");
            let doc = std::fs::read_to_string(p.with_extension("json")).expect("expectations");
            (stem, bytes, loads(&doc).expect("expectations are JSON"))
        })
        .collect()
}

pub(crate) fn provider_of(doc: &Value) -> ProviderKind {
    doc.get("provider")
        .and_then(Value::as_str)
        .and_then(ProviderKind::from_name)
        .expect("a provider")
}

/// The body reassembled from `chunks`, and the reader's notes.
fn reassemble(provider: ProviderKind, chunks: &[&[u8]]) -> (String, usize) {
    let mut r = StreamReader::new(provider, 200);
    for c in chunks {
        r.feed(c)
            .unwrap_or_else(|e| panic!("a correct stream: {e}"));
    }
    let notes = r.notes().len();
    (
        r.finish().unwrap_or_else(|e| panic!("complete: {e}")),
        notes,
    )
}

/// A tiny seeded generator (xorshift) for chunk sizes.
fn chunk_sizes(seed: u64, len: usize) -> Vec<usize> {
    let mut x = seed | 1;
    let mut out = Vec::new();
    let mut left = len;
    while left > 0 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let n = ((x % 97) as usize + 1).min(left);
        out.push(n);
        left -= n;
    }
    out
}

pub(crate) fn reply_of(provider: ProviderKind, body: &str) -> Reply {
    provider
        .parse_response(200, body, 0.0, &mut SeededIds::new(11))
        .unwrap_or_else(|e| panic!("the mapping reads the body: {e}\n{body}"))
}

fn check_reply(name: &str, reply: &Reply, expect: &Value) {
    let field = |k: &str| expect.get(k).cloned().unwrap_or(Value::Null);
    assert_eq!(reply.content, field("content"), "{name}: content");
    assert_eq!(
        reply.reasoning_content,
        field("reasoning_content"),
        "{name}: reasoning"
    );
    assert_eq!(
        Value::Bool(reply.echo_reasoning),
        field("echo_reasoning"),
        "{name}: echo"
    );
    assert_eq!(
        reply.input_tokens,
        field("input_tokens"),
        "{name}: input tokens"
    );
    assert_eq!(
        reply.output_tokens,
        field("output_tokens"),
        "{name}: output tokens"
    );
    let calls = reply.tool_calls.as_array().cloned().unwrap_or_default();
    let want = expect
        .get("tool_calls")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    assert_eq!(calls.len(), want.len(), "{name}: call count");
    let mut ids = Vec::new();
    for (got, w) in calls.iter().zip(&want) {
        let f = got.get("function");
        assert_eq!(f.and_then(|f| f.get("name")), w.get("name"), "{name}: name");
        assert_eq!(
            f.and_then(|f| f.get("arguments")),
            w.get("arguments"),
            "{name}: arguments"
        );
        let id = got
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        match w.get("id") {
            Some(Value::Null) | None => assert!(!id.is_empty(), "{name}: a generated id"),
            Some(want_id) => assert_eq!(Some(&Value::Str(id.clone())), Some(want_id), "{name}: id"),
        }
        assert_eq!(
            got.get("extra_content"),
            w.get("extra_content"),
            "{name}: extra"
        );
        ids.push(id);
    }
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), ids.len(), "{name}: distinct ids");
}

#[test]
fn every_recorded_stream_reassembles_to_its_documented_reply_at_any_cut() {
    let all = fixtures();
    let kinds: Vec<&str> = all.iter().map(|(n, _, _)| n.as_str()).collect();
    for expected in [
        "openai",
        "vllm",
        "vllm-dropped-arguments",
        "sglang-merged-calls",
        "llamacpp",
        "ollama",
        "tgi",
        "anthropic",
        "gemini",
    ] {
        assert!(
            kinds.contains(&expected),
            "fixture {expected} is present: {kinds:?}"
        );
    }
    for (name, bytes, doc) in &all {
        let provider = provider_of(doc);
        let (body, notes) = reassemble(provider, &[bytes]);
        let reply = reply_of(provider, &body);
        check_reply(name, &reply, doc.get("reply").unwrap_or(&Value::Null));
        let want_notes = doc.get("notes").and_then(Value::as_i64).unwrap_or(0) as usize;
        assert_eq!(notes, want_notes, "{name}: recovered irregularities");
        for cut in 0..=bytes.len() {
            let (a, b) = bytes.split_at(cut);
            assert_eq!(
                reassemble(provider, &[a, b]).0,
                body,
                "{name}: cut at {cut}"
            );
        }
        let singles: Vec<&[u8]> = bytes.chunks(1).collect();
        assert_eq!(
            reassemble(provider, &singles).0,
            body,
            "{name}: byte by byte"
        );
        for seed in 1..=20u64 {
            let mut chunks = Vec::new();
            let mut at = 0;
            for n in chunk_sizes(seed, bytes.len()) {
                chunks.push(&bytes[at..at + n]);
                at += n;
            }
            assert_eq!(reassemble(provider, &chunks).0, body, "{name}: seed {seed}");
        }
    }
}

#[test]
fn the_buggy_shapes_differ_from_their_non_streaming_reply_as_documented() {
    for (name, bytes, doc) in fixtures() {
        let Some(plain) = doc.get("non_streaming") else {
            continue;
        };
        let provider = provider_of(&doc);
        let (body, _) = reassemble(provider, &[&bytes]);
        let streamed = reply_of(provider, &body);
        let names = |calls: &Value| -> Vec<String> {
            calls
                .as_array()
                .map(|l| {
                    l.iter()
                        .map(|c| {
                            let f = c.get("function").unwrap_or(c);
                            format!(
                                "{}{}",
                                f.get("name").and_then(Value::as_str).unwrap_or(""),
                                f.get("arguments").and_then(Value::as_str).unwrap_or("")
                            )
                        })
                        .collect()
                })
                .unwrap_or_default()
        };
        assert_ne!(
            names(&streamed.tool_calls),
            names(plain.get("tool_calls").unwrap_or(&Value::Null)),
            "{name}: the streamed reply is not the non-streaming one"
        );
    }
}

#[test]
fn the_fixture_folder_says_where_each_stream_comes_from() {
    let readme = std::fs::read_to_string(streams_dir().join("README.md")).unwrap_or_default();
    for (name, _, doc) in fixtures() {
        assert!(
            readme.contains(&format!("`{name}.sse`")),
            "{name} is listed in the README"
        );
        let sources = doc
            .get("sources")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        assert!(sources > 0, "{name} names its sources");
    }
}
