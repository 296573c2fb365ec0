//! `wildtool probe-stream` end to end against mock endpoints: a server that streams the
//! same calls it returns without streaming passes (exit 0); one that drops arguments or
//! merges calls only when streaming fails (exit 1) with the difference named, both replies
//! shown and the server's fix; a model that makes no call is inconclusive (3); an endpoint
//! that refuses every request is unusable (4); bad options exit 2.

use crate::mock_server;
use crate::runner_live::asks_to_stream;

use std::process::{Command, Output};

use mock_server::{Action, MockServer};
use wildtool_core::json::{dumps, loads, Escape, Map, Value};
use wildtool_core::runner::probe::tasks::TASKS;
use wildtool_core::runner::provider::ProviderKind;
use wildtool_core::runner::stream::replay::events_for;

/// The calls a scripted model makes for the probe task whose user turn is `user`.
fn calls_for(user: &str) -> Vec<(&'static str, String)> {
    let task = TASKS.iter().find(|t| t.user_text() == user);
    match task.map(|t| t.name) {
        Some("parallel") => vec![
            ("book_table", r#"{"restaurant": "Trattoria Roma", "party_size": 4, "time": "19:30"}"#.to_owned()),
            ("send_sms", r#"{"to": "+44 20 7946 0958", "text": "Running ten minutes late"}"#.to_owned()),
        ],
        Some("nested") => vec![(
            "create_event",
            r#"{"title": "Quarterly design review", "date": "2025-03-14", "start": "10:00", "end": "11:30", "location": {"building": "North", "room": "4B"}, "attendees": [{"name": "Ana Silva", "email": "ana@example.com"}, {"name": "Ben Okafor", "email": "ben@example.com"}], "reminders": [{"minutes_before": 15}]}"#.to_owned(),
        )],
        Some("long") => {
            let note = user.split_once("\n\n").map_or("", |(_, n)| n);
            let mut args = Map::new();
            args.insert("title", Value::str("Release checklist"));
            args.insert("body", Value::str(note));
            vec![("save_note", dumps(&Value::Object(args), Escape::Utf8))]
        }
        Some("repeated") => ["Paris", "Tokyo", "Lima", "Oslo"]
            .iter()
            .map(|c| ("get_weather", format!(r#"{{"city": "{c}"}}"#)))
            .collect(),
        _ => Vec::new(),
    }
}

fn user_turn(body: &str) -> String {
    loads(body)
        .ok()
        .and_then(|v| {
            v.get("messages")?
                .as_array()?
                .iter()
                .rev()
                .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))?
                .get("content")?
                .as_str()
                .map(str::to_owned)
        })
        .unwrap_or_default()
}

fn whole(calls: &[(&str, String)], choice_extra: &str) -> String {
    let list: Vec<String> = calls
        .iter()
        .enumerate()
        .map(|(i, (n, a))| {
            format!(
                r#"{{"id": "call_{i}", "type": "function", "function": {{"name": "{n}", "arguments": {}}}}}"#,
                dumps(&Value::str(a.as_str()), Escape::Utf8)
            )
        })
        .collect();
    format!(
        r#"{{"id": "chatcmpl-1", "object": "chat.completion", "choices": [{{"index": 0, "message": {{"role": "assistant", "content": null, "tool_calls": [{}]}}, "finish_reason": "tool_calls"{choice_extra}}}]}}"#,
        list.join(", ")
    )
}

fn chunk(delta: &str, extra: &str) -> String {
    format!("data: {{\"object\":\"chat.completion.chunk\",\"choices\":[{{\"index\":0,\"delta\":{delta}{extra}}}]}}\n\n")
}

#[derive(Clone, Copy, PartialEq)]
enum Server {
    Faithful,
    DropsArguments,
    MergesCalls,
    TextOnly,
}

fn mock(kind: Server) -> MockServer {
    MockServer::start(move |req| {
        let calls = calls_for(&user_turn(&req.body));
        if kind == Server::TextOnly || calls.is_empty() {
            let text = r#"{"choices": [{"index": 0, "message": {"role": "assistant", "content": "I cannot do that."}, "finish_reason": "stop"}]}"#;
            return if asks_to_stream(&req.body) {
                Action::events(&events_for(ProviderKind::OpenAi, text, 4).unwrap_or_default())
            } else {
                Action::ok(text)
            };
        }
        let (extra, extra_json) = match kind {
            Server::DropsArguments => (",\"stop_reason\":null", r#", "stop_reason": null"#),
            Server::MergesCalls => (",\"matched_stop\":null", r#", "matched_stop": null"#),
            _ => ("", ""),
        };
        let body = whole(&calls, extra_json);
        if !asks_to_stream(&req.body) {
            return Action::ok(body);
        }
        let text = match kind {
            Server::DropsArguments => {
                let mut t = chunk(r#"{"role":"assistant","content":""}"#, extra);
                for (i, (name, _)) in calls.iter().enumerate() {
                    t.push_str(&chunk(
                        &format!(r#"{{"tool_calls":[{{"id":"chatcmpl-tool-{i}","type":"function","index":{i},"function":{{"name":"{name}","arguments":""}}}}]}}"#),
                        extra,
                    ));
                }
                t.push_str(&chunk(
                    r#"{"content":""},"finish_reason":"tool_calls""#,
                    extra,
                ));
                t + "data: [DONE]\n\n"
            }
            Server::MergesCalls => {
                let mut t = String::new();
                for (name, args) in &calls {
                    t.push_str(&chunk(
                        &format!(r#"{{"tool_calls":[{{"id":"call_same","index":0,"type":"function","function":{{"name":"{name}","arguments":""}}}}]}}"#),
                        extra,
                    ));
                    t.push_str(&chunk(
                        &format!(
                            r#"{{"tool_calls":[{{"index":0,"function":{{"arguments":{}}}}}]}}"#,
                            dumps(&Value::str(args.as_str()), Escape::Utf8)
                        ),
                        extra,
                    ));
                }
                t.push_str(&chunk(r#"{},"finish_reason":"tool_calls""#, extra));
                t + "data: [DONE]\n\n"
            }
            _ => events_for(ProviderKind::OpenAi, &body, 6).unwrap_or_default(),
        };
        Action::events(&text)
    })
}

fn probe(server: &MockServer, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wildtool"))
        .args([
            "probe-stream",
            "--model",
            "m",
            "--base-url",
            &server.base_url(),
            "--timeout",
            "10",
        ])
        .args(extra)
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap_or_else(|e| panic!("spawn: {e}"))
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn a_faithful_server_passes() {
    let server = mock(Server::Faithful);
    let o = probe(&server, &[]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}{}",
        stdout(&o),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        stdout(&o).contains("streamed and non-streamed tool calls agree"),
        "{}",
        stdout(&o)
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 2 * TASKS.len());
    assert_eq!(
        requests.iter().filter(|r| asks_to_stream(&r.body)).count(),
        TASKS.len()
    );
    assert!(requests
        .iter()
        .all(|r| r.body.contains(r#""temperature": 0.0"#)));
}

#[test]
fn dropped_arguments_fail_the_probe_with_the_evidence_and_the_fix() {
    let server = mock(Server::DropsArguments);
    let o = probe(&server, &[]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("loses or changes tool calls when streaming (vLLM)"),
        "{out}"
    );
    assert!(
        out.contains("call 1 (create_event) lost its arguments when streaming"),
        "{out}"
    );
    assert!(out.contains("streamed:          create_event({})"), "{out}");
    assert!(
        out.contains(r#"without streaming: create_event({"title": "Quarterly design review""#),
        "{out}"
    );
    assert!(
        out.contains("look for: vLLM sends a call's name with empty arguments"),
        "{out}"
    );
}

#[test]
fn merged_calls_fail_the_probe_and_json_names_the_difference() {
    let server = mock(Server::MergesCalls);
    let o = probe(&server, &[]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("4 calls merged into one when streaming"),
        "{out}"
    );
    assert!(
        out.contains("3 call(s) lost when streaming: 4 without streaming, 1 streamed"),
        "{out}"
    );
    assert!(out.contains("PR #31860"), "{out}");
    let o = probe(&server, &["--json"]);
    assert_eq!(o.status.code(), Some(1));
    let report = loads(&stdout(&o)).expect("JSON");
    assert_eq!(report.get("verdict"), Some(&Value::str("differ")));
    assert_eq!(report.get("server"), Some(&Value::str("SGLang")));
    let repeated = report
        .get("tasks")
        .and_then(Value::as_array)
        .and_then(|t| {
            t.iter()
                .find(|t| t.get("task") == Some(&Value::str("repeated")))
        })
        .cloned()
        .unwrap_or(Value::Null);
    let kinds: Vec<String> = repeated
        .get("differences")
        .and_then(Value::as_array)
        .map(|d| {
            d.iter()
                .filter_map(|x| x.get("kind").and_then(Value::as_str).map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(kinds, ["count", "merged"]);
}

#[test]
fn no_calls_no_reply_and_bad_options_have_their_own_codes() {
    let server = mock(Server::TextOnly);
    let o = probe(&server, &[]);
    assert_eq!(o.status.code(), Some(3), "{}", stdout(&o));
    assert!(stdout(&o).contains("not checked: the model made no call"));
    let refusing =
        MockServer::start(|_| Action::status(401, r#"{"error": {"message": "bad key"}}"#));
    let o = probe(&refusing, &[]);
    assert_eq!(o.status.code(), Some(4), "{}", stdout(&o));
    let o = probe(&refusing, &["--server", "nosuch"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown --server \"nosuch\""));
    let o = probe(&refusing, &["--timeout", "inf"]);
    assert_eq!(o.status.code(), Some(2));
}
