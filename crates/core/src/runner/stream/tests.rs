//! The reader's failure modes: every torn or malformed stream ends as its own
//! [`StreamError`], and a chunk boundary anywhere gives the same result.

use super::*;
use crate::runner::provider::ProviderKind;

const OK: &str = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";

fn read(provider: ProviderKind, text: &str) -> Result<String, StreamError> {
    StreamReader::read_all(provider, 200, text.as_bytes())
}

/// The same result for every split of `text` into two chunks.
fn read_split(provider: ProviderKind, text: &str) -> Result<String, StreamError> {
    let whole = read(provider, text);
    let bytes = text.as_bytes();
    for cut in 0..=bytes.len() {
        let mut r = StreamReader::new(provider, 200);
        let fed = r.feed(&bytes[..cut]).and_then(|_| r.feed(&bytes[cut..]));
        let res = match fed {
            Err(e) => Err(e),
            Ok(_) => r.finish(),
        };
        assert_eq!(res, whole, "cut at {cut}");
    }
    whole
}

#[test]
fn a_complete_stream_reads_the_same_at_every_cut() {
    let body = read_split(ProviderKind::OpenAi, OK).expect("complete");
    assert!(body.contains("\"content\": \"Hi\""), "{body}");
}

#[test]
fn a_connection_closed_mid_event_names_the_event() {
    let torn = &OK[..OK.find("finish_reason").unwrap_or(0)];
    assert_eq!(
        read_split(ProviderKind::OpenAi, torn),
        Err(StreamError::ClosedMidEvent { event: 2 })
    );
    let e = read(ProviderKind::OpenAi, torn).unwrap_err().to_string();
    assert!(e.contains("cut in the middle of event 2"), "{e}");
}

#[test]
fn a_stream_that_stops_between_events_before_the_end_says_what_is_missing() {
    let first = &OK[..OK.find("\n\n").unwrap_or(0) + 2];
    let e = read_split(ProviderKind::OpenAi, first).unwrap_err();
    assert_eq!(
        e,
        StreamError::EndedEarly {
            events: 1,
            missing: "data: [DONE] or a finish_reason"
        }
    );
    let anth = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"content\":[],\"usage\":{\"input_tokens\":1}}}\n\n";
    let e = read(ProviderKind::Anthropic, anth).unwrap_err().to_string();
    assert!(e.contains("without a message_stop event"), "{e}");
    assert!(matches!(
        read(ProviderKind::Gemini, ""),
        Err(StreamError::EndedEarly { events: 0, .. })
    ));
}

#[test]
fn unknown_event_types_are_refused_where_the_dialect_has_none() {
    let text = format!("event: surprise\ndata: {{}}\n\n{OK}");
    assert_eq!(
        read_split(ProviderKind::OpenAi, &text),
        Err(StreamError::UnknownEvent {
            event: 1,
            kind: "surprise".to_owned()
        })
    );
    assert!(matches!(
        read(ProviderKind::Gemini, "event: x\ndata: {}\n\n"),
        Err(StreamError::UnknownEvent { event: 1, .. })
    ));
}

#[test]
fn anthropic_ignores_new_event_types_but_not_unknown_tool_deltas() {
    let head = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"usage\":{\"input_tokens\":3}}}\n\n";
    let stop = "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
    let future =
        format!("{head}event: future_thing\ndata: {{\"type\":\"future_thing\"}}\n\n{stop}");
    let mut r = StreamReader::new(ProviderKind::Anthropic, 200);
    r.feed(future.as_bytes()).expect("ignored");
    assert_eq!(r.notes().len(), 1, "{:?}", r.notes());
    assert!(r.finish().is_ok());
    let tool = format!(
        "{head}event: content_block_start\ndata: {{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"f\",\"input\":{{}}}}}}\n\nevent: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"mystery_delta\",\"x\":1}}}}\n\n{stop}"
    );
    let e = read(ProviderKind::Anthropic, &tool)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("event 3 (content_block_delta)") && e.contains("\"mystery_delta\""),
        "{e}"
    );
    let merged = format!(
        "{head}event: content_block_start\ndata: {{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"f\",\"input\":{{}}}}}}\n\nevent: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"input_json_delta\",\"partial_json\":\"{{\\\"a\\\":1}}{{\\\"a\\\":2}}\"}}}}\n\nevent: content_block_stop\ndata: {{\"type\":\"content_block_stop\",\"index\":0}}\n\n{stop}"
    );
    let e = read(ProviderKind::Anthropic, &merged)
        .unwrap_err()
        .to_string();
    assert!(e.contains("is not one JSON object"), "{e}");
    let orphan = format!("{head}event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":4,\"delta\":{{\"type\":\"text_delta\",\"text\":\"x\"}}}}\n\n{stop}");
    let e = read(ProviderKind::Anthropic, &orphan)
        .unwrap_err()
        .to_string();
    assert!(e.contains("block 4, which is not open"), "{e}");
}

#[test]
fn errors_inside_the_stream_are_the_servers() {
    let vllm = "data: {\"object\":\"error\",\"message\":\"Incorrect API key provided: sk-abc.\",\"type\":\"BadRequestError\",\"code\":400}\n\n";
    let e = read(ProviderKind::OpenAi, vllm).unwrap_err();
    assert_eq!(
        e,
        StreamError::Api {
            event: 1,
            message: "Incorrect API key provided: <key>.".to_owned()
        }
    );
    let openai = "data: {\"error\": {\"message\": \"overloaded\"}}\n\n";
    assert!(matches!(
        read(ProviderKind::OpenAi, openai),
        Err(StreamError::Api { event: 1, .. })
    ));
    let anth = "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n";
    assert_eq!(
        read(ProviderKind::Anthropic, anth),
        Err(StreamError::Api {
            event: 1,
            message: "Overloaded".to_owned()
        })
    );
}

#[test]
fn json_that_is_not_an_event_stream_is_told_apart() {
    let whole = r#"{"choices": [{"index": 0, "message": {"role": "assistant", "content": "x"}}]}"#;
    assert_eq!(
        read(ProviderKind::OpenAi, whole),
        Err(StreamError::NotAStream)
    );
    let err = r#"{"error": {"message": "bad request"}}"#;
    assert_eq!(read(ProviderKind::OpenAi, err).as_deref(), Ok(err));
    let mut r = StreamReader::new(ProviderKind::OpenAi, 500);
    r.feed(b"data: not an event stream, a 500 page")
        .expect("collected");
    assert_eq!(
        r.finish().as_deref(),
        Ok("data: not an event stream, a 500 page")
    );
    let e = read(ProviderKind::OpenAi, "data: {not json\n\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("malformed event stream at event 1: the data is not JSON"),
        "{e}"
    );
}

#[test]
fn the_first_output_and_the_end_are_reported_once() {
    let mut r = StreamReader::new(ProviderKind::OpenAi, 200);
    let role = r
        .feed(b"data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n")
        .expect("ok");
    assert_eq!(role, Progress::default(), "a role chunk is not output");
    let a = r
        .feed(b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"H\"}}]}\n\n")
        .expect("ok");
    let b = r
        .feed(b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"i\"}}]}\n\n")
        .expect("ok");
    assert!(a.first_output && !b.first_output);
    let end = r.feed(b"data: [DONE]\n\n").expect("ok");
    assert!(end.finished);
}

#[test]
fn a_reply_over_the_limit_is_refused_while_it_grows() {
    let mut budget = Budget::default();
    assert!(budget
        .add(crate::input::limits::MAX_REPLY_BODY_BYTES)
        .is_ok());
    assert!(matches!(budget.add(1), Err(StreamError::ReplyTooLarge(_))));
}

#[test]
fn a_whole_reply_streamed_and_reassembled_reads_as_the_whole_reply() {
    use crate::protocol::SeededIds;
    let bodies = [
        (
            ProviderKind::OpenAi,
            r#"{"choices": [{"index": 0, "message": {"role": "assistant", "content": "Sure — both.", "reasoning_content": "two calls", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "a", "arguments": "{\"x\": [1, 2], \"y\": \"é\"}"}}, {"id": "c2", "type": "function", "function": {"name": "b", "arguments": "{}"}}]}, "finish_reason": "tool_calls"}], "usage": {"prompt_tokens": 9, "completion_tokens": 4}}"#,
        ),
        (
            ProviderKind::OpenAi,
            r#"{"choices": [{"index": 0, "message": {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "a", "arguments": ""}}]}, "finish_reason": "tool_calls"}]}"#,
        ),
        (
            ProviderKind::Anthropic,
            r#"{"id": "m", "type": "message", "role": "assistant", "content": [{"type": "thinking", "thinking": "hm"}, {"type": "text", "text": "Hello there"}, {"type": "tool_use", "id": "t1", "name": "f", "input": {"q": "ü", "n": 2}}], "stop_reason": "tool_use", "usage": {"input_tokens": 5, "output_tokens": 6}}"#,
        ),
        (
            ProviderKind::Gemini,
            r#"{"candidates": [{"content": {"role": "model", "parts": [{"text": "Looking"}, {"functionCall": {"name": "f", "args": {"a": 1}}, "thoughtSignature": "sig"}]}, "finishReason": "STOP"}], "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 2}}"#,
        ),
    ];
    for (provider, body) in bodies {
        let whole = provider
            .parse_response(200, body, 0.0, &mut SeededIds::new(3))
            .expect("whole");
        for piece in [1, 3, 1000] {
            let events = replay::events_for(provider, body, piece).expect("streamable");
            let text = StreamReader::read_all(provider, 200, events.as_bytes())
                .unwrap_or_else(|e| panic!("{provider:?} piece {piece}: {e}\n{events}"));
            let streamed = provider
                .parse_response(200, &text, 0.0, &mut SeededIds::new(3))
                .expect("streamed");
            assert_eq!(streamed, whole, "{provider:?} piece {piece}");
        }
    }
}
