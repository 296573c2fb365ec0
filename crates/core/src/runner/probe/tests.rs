//! The probe against scripted answers: a faithful server agrees, the argument-dropping and
//! call-merging shapes differ with the symptom named and the server's fix, a stream that
//! breaks is the server's, and answers without calls or without a reply are inconclusive.

use super::*;
use crate::runner::stream::replay::events_for;

fn endpoint() -> Endpoint {
    Endpoint {
        base_url: "http://127.0.0.1:8000/v1".to_owned(),
        browser: false,
    }
}

/// A non-streaming body with `calls` (name, arguments) and the server's `extra` fields.
fn body(calls: &[(&str, &str)], extra: &str) -> String {
    let calls: Vec<String> = calls
        .iter()
        .enumerate()
        .map(|(i, (n, a))| {
            format!(
                r#"{{"id": "c{i}", "type": "function", "function": {{"name": "{n}", "arguments": {}}}}}"#,
                crate::json::dumps(&Value::str(*a), crate::json::Escape::Utf8)
            )
        })
        .collect();
    format!(
        r#"{{"id": "x"{extra}, "choices": [{{"index": 0, "message": {{"role": "assistant", "content": null, "tool_calls": [{}]}}, "finish_reason": "tool_calls"}}]}}"#,
        calls.join(", ")
    )
}

fn plain(b: &str) -> ProbeAnswer {
    ProbeAnswer::Body {
        status: 200,
        body: b.to_owned(),
        notes: Vec::new(),
    }
}

/// The streamed answer for the event stream `events`, read in 7-byte chunks.
fn streamed(events: &str) -> ProbeAnswer {
    let mut s = ProbeStream::new(ProviderKind::OpenAi);
    s.head(200);
    for c in events.as_bytes().chunks(7) {
        if !s.bytes(c) {
            break;
        }
    }
    s.finish()
}

const CALLS: [(&str, &str); 2] = [
    ("get_weather", r#"{"city": "Paris"}"#),
    ("get_weather", r#"{"city": "Lima"}"#),
];

#[test]
fn the_probe_sends_each_task_plain_then_streamed_at_temperature_0() {
    let r = requests(ProviderKind::OpenAi, &endpoint(), "m");
    assert_eq!(r.len(), 2 * TASKS.len());
    for pair in r.chunks(2) {
        assert!(!pair[0].streamed && pair[1].streamed && pair[0].task == pair[1].task);
        assert!(pair[0].request.body.contains(r#""temperature": 0.0"#));
        let official = &pair[0].request.body;
        assert!(pair[1]
            .request
            .body
            .starts_with(&official[..official.len() - 1]));
        assert!(pair[1].request.body.contains(r#""stream": true"#));
    }
}

#[test]
fn a_faithful_server_agrees() {
    let b = body(&CALLS, "");
    let events = events_for(ProviderKind::OpenAi, &b, 3).expect("stream");
    let answers: Vec<_> = TASKS
        .iter()
        .map(|_| (plain(&b), streamed(&events)))
        .collect();
    let report = judge(ProviderKind::OpenAi, &answers, None);
    assert_eq!(report.verdict, Verdict::Agree, "{}", report.text());
    assert!(report.advice.is_empty());
    assert!(report
        .text()
        .starts_with("probe-stream: streamed and non-streamed tool calls agree"));
}

#[test]
fn dropped_arguments_are_named_with_the_servers_fix() {
    let b = body(&CALLS[..1], "");
    // The argument-dropping shape: the name with empty arguments, nothing after.
    let dropped = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"stop_reason\":null}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"id\":\"t\",\"type\":\"function\",\"index\":0,\"function\":{\"name\":\"get_weather\",\"arguments\":\"\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\"},\"finish_reason\":\"tool_calls\",\"stop_reason\":null}]}\n\n",
        "data: [DONE]\n\n"
    );
    let mut answers: Vec<_> = TASKS
        .iter()
        .map(|_| (plain(&b), streamed(dropped)))
        .collect();
    answers[0].1 = streamed(&events_for(ProviderKind::OpenAi, &b, 4).expect("stream"));
    let report = judge(ProviderKind::OpenAi, &answers, None);
    assert_eq!(report.verdict, Verdict::Differ);
    assert_eq!(
        report.server,
        Some("vLLM"),
        "recognised from the stream's stop_reason"
    );
    let t = &report.tasks[1];
    assert_eq!(t.verdict, TaskVerdict::Differ);
    assert_eq!(t.differences[0].symptom(), Symptom::EmptyArguments);
    let text = report.text();
    assert!(text.contains("lost its arguments when streaming"), "{text}");
    assert!(
        text.contains(r#"without streaming: get_weather({"city": "Paris"})"#),
        "{text}"
    );
    assert!(
        text.contains("streamed:          get_weather({})"),
        "{text}"
    );
    assert!(text.contains("PRs #48852, #55115, #55550"), "{text}");
}

#[test]
fn merged_calls_are_named_and_a_named_server_is_used() {
    let b = body(&CALLS, "");
    let merged = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"id\":\"s\",\"index\":0,\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\": \\\"Paris\\\"}\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"id\":\"s\",\"index\":0,\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\": \\\"Lima\\\"}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n",
        "data: [DONE]\n\n"
    );
    let answers: Vec<_> = TASKS
        .iter()
        .map(|_| (plain(&b), streamed(merged)))
        .collect();
    let report = judge(ProviderKind::OpenAi, &answers, servers::named("sglang"));
    assert_eq!(report.verdict, Verdict::Differ);
    let d = &report.tasks[0].differences;
    assert!(
        d.iter()
            .any(|d| matches!(d, Difference::Merged { objects: 2, .. })),
        "{d:?}"
    );
    assert!(report
        .text()
        .contains("2 calls merged into one when streaming"));
    assert!(
        report.advice.iter().any(|a| a.contains("PR #31860")),
        "{:?}",
        report.advice
    );
}

#[test]
fn a_broken_stream_is_the_servers_and_missing_answers_are_inconclusive() {
    let b = body(&CALLS, "");
    let torn = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel";
    let mut s = ProbeStream::new(ProviderKind::OpenAi);
    s.head(200);
    s.bytes(torn.as_bytes());
    s.fail("connection reset");
    let broken = s.finish();
    assert!(
        matches!(&broken, ProbeAnswer::Failed(m) if m.contains("cut in the middle of event 1") && m.contains("connection reset")),
        "{broken:?}"
    );
    let answers: Vec<_> = TASKS.iter().map(|_| (plain(&b), broken.clone())).collect();
    let report = judge(ProviderKind::OpenAi, &answers, None);
    assert_eq!(report.verdict, Verdict::Differ);
    assert_eq!(
        report.tasks[0].differences[0].symptom(),
        Symptom::BrokenStream
    );

    let text_only =
        r#"{"choices": [{"index": 0, "message": {"role": "assistant", "content": "Sure."}}]}"#;
    let events = events_for(ProviderKind::OpenAi, text_only, 2).expect("stream");
    let answers: Vec<_> = TASKS
        .iter()
        .map(|_| (plain(text_only), streamed(&events)))
        .collect();
    assert_eq!(
        judge(ProviderKind::OpenAi, &answers, None).verdict,
        Verdict::Inconclusive
    );

    let down = ProbeAnswer::Failed("connection refused".to_owned());
    let answers: Vec<_> = TASKS.iter().map(|_| (down.clone(), down.clone())).collect();
    assert_eq!(
        judge(ProviderKind::OpenAi, &answers, None).verdict,
        Verdict::Unusable
    );
    let mut answers: Vec<_> = TASKS
        .iter()
        .map(|_| {
            (
                plain(&b),
                streamed(&events_for(ProviderKind::OpenAi, &b, 5).expect("s")),
            )
        })
        .collect();
    answers[3] = (down.clone(), down);
    assert_eq!(
        judge(ProviderKind::OpenAi, &answers, None).verdict,
        Verdict::Inconclusive,
        "a task without a reply leaves the probe inconclusive"
    );
}
