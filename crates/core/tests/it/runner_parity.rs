//! Request parity: feeding the recorded outputs of the official runs into the task
//! machine rebuilds exactly the recorded `inference_input` (messages and tools) of every
//! step, up to the random `toolu_bdrk_` history ids; and the OpenAI request body carries
//! exactly those fields.

use wildtool_core::dataset::{load_dataset, Lang};
use wildtool_core::json::{dumps, loads, Escape, Value};
use wildtool_core::protocol::{Reply, SeededIds, TaskMachine};
use wildtool_core::runner::provider::{ChatRequest, Endpoint, ProviderKind};

use crate::support::read_fixture;

/// Replaces every `toolu_bdrk_` + 24 alphanumerics with a placeholder.
fn mask_ids(text: &str) -> String {
    const P: &str = "toolu_bdrk_";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(P) {
        out.push_str(&rest[..i]);
        let after = &rest[i + P.len()..];
        let n = after
            .chars()
            .take(24)
            .take_while(char::is_ascii_alphanumeric)
            .count();
        out.push_str("toolu_bdrk_<ID>");
        rest = &after[n..];
    }
    out.push_str(rest);
    out
}

#[test]
fn rebuilt_requests_equal_the_recorded_official_inputs() {
    let loaded = load_dataset(&read_fixture("mini.jsonl"), Lang::En);
    let mut steps_checked = 0;
    for run in ["mock-seed-0", "mock-seed-5"] {
        let text = read_fixture(&format!("official-runs/{run}/mini_result.jsonl"));
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let v = loads(line).unwrap_or(Value::Null);
            let id = v.get("id").and_then(Value::as_str).unwrap_or("");
            let session = loaded
                .sessions
                .iter()
                .find(|s| s.id == id)
                .unwrap_or_else(|| panic!("no session {id}"));
            let tasks = v
                .get("result")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            for (t, task) in tasks.iter().enumerate() {
                let mut ids = SeededIds::new(99);
                let mut machine =
                    TaskMachine::new(session, t, &mut ids).unwrap_or_else(|e| panic!("{e}"));
                let log = task.get("inference_log").cloned().unwrap_or(Value::Null);
                let mut s = 0;
                while let Some(step) = log.get(&format!("step_{s}")) {
                    assert!(
                        !machine.is_finished(),
                        "{run} {id} task {t}: machine finished before step_{s}"
                    );
                    let input = step.get("inference_input").cloned().unwrap_or(Value::Null);
                    let want_messages = mask_ids(&dumps(
                        input.get("messages").unwrap_or(&Value::Null),
                        Escape::Utf8,
                    ));
                    let got_messages = mask_ids(&dumps(
                        &Value::Array(machine.messages().to_vec()),
                        Escape::Utf8,
                    ));
                    assert_eq!(
                        got_messages, want_messages,
                        "{run} {id} task {t} step {s}: messages differ"
                    );
                    let want_tools =
                        dumps(input.get("tools").unwrap_or(&Value::Null), Escape::Utf8);
                    assert_eq!(
                        dumps(machine.tools(), Escape::Utf8),
                        want_tools,
                        "{run} {id} task {t} step {s}: tools differ"
                    );

                    let req = ChatRequest {
                        model: run,
                        temperature: 0.0,
                        messages: machine.messages(),
                        tools: machine.tools(),
                    };
                    let http = ProviderKind::OpenAi.build(
                        &req,
                        &Endpoint {
                            base_url: "http://x/v1".to_owned(),
                            browser: false,
                        },
                    );
                    let body = loads(&http.body).unwrap_or(Value::Null);
                    let keys: Vec<&String> = body
                        .as_object()
                        .map(|m| m.keys().collect())
                        .unwrap_or_default();
                    assert_eq!(keys, ["messages", "model", "temperature", "tools"]);
                    assert_eq!(
                        mask_ids(&dumps(
                            body.get("messages").unwrap_or(&Value::Null),
                            Escape::Utf8
                        )),
                        want_messages
                    );

                    let output = step.get("inference_output").cloned().unwrap_or(Value::Null);
                    machine.feed(&Reply::from_recorded_output(&output));
                    steps_checked += 1;
                    s += 1;
                }
                assert!(
                    machine.is_finished(),
                    "{run} {id} task {t}: the log ended before the machine did"
                );
            }
        }
    }
    assert!(steps_checked > 60, "only {steps_checked} steps checked");
}
