//! Streaming in the page: a run with *Stream the replies* scores exactly as the same run
//! without it, sends every request with the stream switch and shows first-token latency;
//! a torn stream is retried; the *Check streaming* button runs the core's probe and shows
//! its verdict and evidence.

use super::*;
use wildtool_core::runner::provider::ProviderKind;
use wildtool_core::runner::stream::replay::events_for;

const TEXT: &str = r#"{"choices": [{"index": 0, "message": {"role": "assistant", "content": "Done."}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 12, "completion_tokens": 3}}"#;

fn streams(out: &wildtool_web::msg::Outgoing) -> bool {
    out.transmit.request.body.contains(r#""stream": true"#)
}

/// Answers every request with the same text reply, streamed when asked.
fn text_server() -> Server {
    Box::new(|out| {
        let body = if streams(out) {
            events_for(ProviderKind::OpenAi, TEXT, 2).expect("stream")
        } else {
            TEXT.to_owned()
        };
        Reply::Response(HttpResponse::new(200, body))
    })
}

fn run_with(stream: bool, server: Server) -> Browser {
    let mut b = open(&endpoint("&backoff=0.01"));
    if stream {
        b.act("set", "m-stream", "true");
    }
    b.server = Some(server);
    b.act("start", "", "");
    finish(&mut b);
    assert_eq!(
        b.hook("runOutcome").as_deref(),
        Some("done"),
        "{:?}",
        b.hook("runError")
    );
    b
}

#[test]
fn a_streamed_run_scores_as_the_same_run_without_streaming() {
    let plain = run_with(false, text_server());
    let streamed = run_with(true, text_server());
    assert!(plain.sent.iter().all(|o| !o.transmit.stream && !streams(o)));
    assert!(
        streamed
            .sent
            .iter()
            .all(|o| o.transmit.stream && streams(o)),
        "every request, the endpoint check's too, carries the stream switch"
    );
    assert_eq!(plain.headline(), streamed.headline());
    // Both load the lab module once before they start (every run with an endpoint logs
    // its exchanges there for its manifest); the streamed one reads its streams through
    // the readers installed then.
    assert_eq!((plain.reader_loads, streamed.reader_loads), (1, 1));
    assert!(streamed.state.stream_call.is_some());
    let outcomes = |b: &Browser| b.state.shown.as_ref().map(|s| s.outcomes.clone());
    assert!(outcomes(&plain).is_some());
    assert_eq!(outcomes(&plain), outcomes(&streamed));
    let mut b = streamed;
    b.act("nav", "run", "");
    let stats = b.text("run-stats");
    assert!(stats.contains("First token"), "{stats}");
    assert!(stats.contains("streamed requests"), "{stats}");
    let entry = &b.state.run.as_ref().expect("run").entry;
    let first = entry
        .meta()
        .stream
        .and_then(|s| s.first_token)
        .expect("recorded");
    assert_eq!(
        first.count + 1,
        entry.requests,
        "every task request (not the check)"
    );
    let mut p = plain;
    p.act("nav", "run", "");
    assert!(!p.text("run-stats").contains("First token"));
    assert_eq!(p.state.run.as_ref().expect("run").entry.meta().stream, None);
}

#[test]
fn a_torn_stream_is_retried_and_the_run_still_finishes() {
    let mut seen = std::collections::HashSet::new();
    let server: Server = Box::new(move |out| {
        let events = events_for(ProviderKind::OpenAi, TEXT, 2).expect("stream");
        let body = if seen.insert(out.transmit.request.body.clone()) {
            // Cut in the middle of the second event.
            let second = events.find("\n\n").unwrap_or(0) + 8;
            events[..second].to_owned()
        } else {
            events
        };
        Reply::Response(HttpResponse::new(200, body))
    });
    let b = run_with(true, server);
    let p = &b.state.run.as_ref().expect("run").progress;
    assert!(p.retries > 0, "{p:?}");
    assert_eq!(p.incomplete, 0);
}

/// A probe server: the calls of each probe task, whole or streamed; `drop_args` sends
/// streamed calls without their arguments (vLLM's argument-dropping shape).
fn probe_server(drop_args: bool) -> ProbeServer {
    Box::new(move |send| {
        let body = r#"{"choices": [{"index": 0, "message": {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]}, "finish_reason": "tool_calls", "stop_reason": null}]}"#;
        if !send.stream {
            return Reply::Response(HttpResponse::new(200, body));
        }
        let events = if drop_args {
            concat!(
                "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\",\"index\":0,\"function\":{\"name\":\"get_weather\",\"arguments\":\"\"}}]},\"stop_reason\":null}]}\n\n",
                "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\",\"stop_reason\":null}]}\n\n",
                "data: [DONE]\n\n"
            )
            .to_owned()
        } else {
            events_for(ProviderKind::OpenAi, body, 3).expect("stream")
        };
        Reply::Response(HttpResponse::new(200, events))
    })
}

#[test]
fn the_streaming_check_shows_the_cores_verdict_and_evidence() {
    let mut b = open(&endpoint(""));
    b.probe_server = Some(probe_server(false));
    b.act("probe-stream", "", "");
    assert_eq!(b.hook("probeState").as_deref(), Some("agree"));
    assert!(b
        .text("probe-report")
        .contains("streamed and non-streamed tool calls agree"));

    b.probe_server = Some(probe_server(true));
    b.act("probe-stream", "", "");
    assert_eq!(b.hook("probeState").as_deref(), Some("differ"));
    let report = b.text("probe-report");
    assert!(report.contains("(vLLM)"), "{report}");
    assert!(
        report.contains("lost its arguments when streaming"),
        "{report}"
    );
    assert!(
        report.contains(r#"without streaming: get_weather({"city": "Paris"})"#),
        "{report}"
    );
    assert!(
        report.contains("streamed:          get_weather({})"),
        "{report}"
    );

    b.act("set", "m-provider", "gold");
    b.act("nav", "setup", "");
    assert!(
        b.frame().root.by_id("probe-stream").is_none(),
        "agents do not stream"
    );
}

#[test]
fn the_streaming_check_needs_an_endpoint_and_a_model() {
    let mut b = open("http://page/?provider=openai&base_url=http%3A%2F%2F127.0.0.1%3A9%2Fv1");
    b.act("probe-stream", "", "");
    assert!(b.text("probe-error").contains("Name the model first"));
    assert_eq!(b.hook("probeState"), None);
    b.act("set", "m-model", "m");
    b.probe_server = None;
    b.act("probe-stream", "", "");
    assert_eq!(
        b.hook("probeState").as_deref(),
        Some("unusable"),
        "nothing answered: {}",
        b.text("probe-report")
    );
}
