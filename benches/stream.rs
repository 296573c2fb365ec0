//! Reassembly throughput of streamed replies (native): the core's reader turning event
//! streams into the body a non-streaming request returns, for the three dialects and for
//! the recorded server streams, fed in 64-byte and 16 KiB chunks.
//!
//! The streams are written by the core's own replay of whole replies: a 4 KiB text reply
//! in 4-character pieces (a token-by-token text stream) and four calls with 2 KiB of
//! arguments each in 4-character pieces (a token-by-token tool-call stream).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

use wildtool_core::json::{dumps, Escape, Value};
use wildtool_core::runner::provider::ProviderKind;
use wildtool_core::runner::stream::replay::events_for;
use wildtool_core::runner::stream::StreamReader;

fn text(n: usize) -> String {
    "The quick brown fox jumps over the lazy dog. ".repeat(n / 45 + 1)[..n].to_owned()
}

fn openai_text() -> String {
    format!(
        r#"{{"choices": [{{"index": 0, "message": {{"role": "assistant", "content": {}}}, "finish_reason": "stop"}}], "usage": {{"prompt_tokens": 1000, "completion_tokens": 1000}}}}"#,
        dumps(&Value::str(text(4096)), Escape::Utf8)
    )
}

fn openai_calls() -> String {
    let args = dumps(
        &Value::str(format!(
            r#"{{"body": {}}}"#,
            dumps(&Value::str(text(2048)), Escape::Utf8)
        )),
        Escape::Utf8,
    );
    let calls: Vec<String> = (0..4)
        .map(|i| format!(r#"{{"id": "call_{i}", "type": "function", "function": {{"name": "save_note", "arguments": {args}}}}}"#))
        .collect();
    format!(
        r#"{{"choices": [{{"index": 0, "message": {{"role": "assistant", "content": null, "tool_calls": [{}]}}, "finish_reason": "tool_calls"}}]}}"#,
        calls.join(", ")
    )
}

fn anthropic_calls() -> String {
    let input = format!(
        r#"{{"body": {}}}"#,
        dumps(&Value::str(text(2048)), Escape::Utf8)
    );
    let blocks: Vec<String> = (0..4)
        .map(|i| format!(r#"{{"type": "tool_use", "id": "toolu_{i}", "name": "save_note", "input": {input}}}"#))
        .collect();
    format!(
        r#"{{"id": "m", "type": "message", "role": "assistant", "content": [{}], "stop_reason": "tool_use", "usage": {{"input_tokens": 10, "output_tokens": 10}}}}"#,
        blocks.join(", ")
    )
}

fn gemini_text() -> String {
    format!(
        r#"{{"candidates": [{{"content": {{"role": "model", "parts": [{{"text": {}}}]}}, "finishReason": "STOP"}}]}}"#,
        dumps(&Value::str(text(4096)), Escape::Utf8)
    )
}

fn reassemble(provider: ProviderKind, bytes: &[u8], chunk: usize) -> usize {
    let mut r = StreamReader::new(provider, 200);
    for c in bytes.chunks(chunk) {
        r.feed(c).expect("a correct stream");
    }
    r.finish().expect("complete").len()
}

fn bench(c: &mut Criterion) {
    let mut streams: Vec<(String, ProviderKind, String)> = vec![
        (
            "openai-text".into(),
            ProviderKind::OpenAi,
            events_for(ProviderKind::OpenAi, &openai_text(), 4).expect("stream"),
        ),
        (
            "openai-calls".into(),
            ProviderKind::OpenAi,
            events_for(ProviderKind::OpenAi, &openai_calls(), 4).expect("stream"),
        ),
        (
            "anthropic-calls".into(),
            ProviderKind::Anthropic,
            events_for(ProviderKind::Anthropic, &anthropic_calls(), 4).expect("stream"),
        ),
        (
            "gemini-text".into(),
            ProviderKind::Gemini,
            events_for(ProviderKind::Gemini, &gemini_text(), 4).expect("stream"),
        ),
    ];
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/streams");
    for name in ["tgi", "llamacpp"] {
        let text = std::fs::read_to_string(format!("{fixtures}/{name}.sse")).expect("fixture");
        streams.push((format!("fixture-{name}"), ProviderKind::OpenAi, text));
    }
    let mut group = c.benchmark_group("stream_reassembly");
    for (name, provider, text) in &streams {
        group.throughput(Throughput::Bytes(text.len() as u64));
        for chunk in [64usize, 16 * 1024] {
            group.bench_with_input(BenchmarkId::new(name.as_str(), chunk), text, |b, t| {
                b.iter(|| reassemble(*provider, t.as_bytes(), chunk))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
