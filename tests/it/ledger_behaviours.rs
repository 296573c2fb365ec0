//! The five behaviours of the ledger environment's design, played by scripted replies
//! against a mock server through `wildtool run --env ledger` on the bundled suite, get
//! exactly the design's verdicts — and the same replies through the official `wildtool
//! run` get the official labels the design names (the environment changes nothing
//! official). Every other step is answered along the gold path.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use crate::mock_server::{Action, MockServer};
use crate::runner_live::{locate, preflight_reply, tmp};
use wildtool_core::dataset::{load_dataset, Lang, LoadedDataset};
use wildtool_core::json::{dumps, loads, Escape, Map, Value};
use wildtool_core::runner::agents::GoldAgent;
use wildtool_core::runner::driver::{Responder, StepContext, TaskStats};

fn suite_path() -> String {
    format!("{}/data/suite.jsonl", env!("CARGO_MANIFEST_DIR"))
}

/// A scripted reply: tool calls `(name, arguments JSON)`, or text.
#[derive(Clone)]
enum Say {
    Calls(Vec<(&'static str, &'static str)>),
    Text(&'static str),
}

type Script = BTreeMap<(usize, usize, usize), Say>;

fn reply_body(message: Map) -> String {
    format!(
        r#"{{"id": "chatcmpl-mock", "object": "chat.completion", "model": "mock", "choices": [{{"index": 0, "message": {}, "finish_reason": "stop"}}], "usage": {{"prompt_tokens": 10, "completion_tokens": 5}}}}"#,
        dumps(&Value::Object(message), Escape::Utf8)
    )
}

fn answer(ds: &LoadedDataset, script: &Script, body: &str) -> Option<String> {
    if let Some(p) = preflight_reply(body) {
        return Some(p);
    }
    let req = loads(body).ok()?;
    let messages = req.get("messages")?.as_array()?.clone();
    let tools = req.get("tools")?.clone();
    let (line, task, step) = locate(ds, &messages)?;
    let mut message = Map::new();
    message.insert("role", Value::str("assistant"));
    match script.get(&(line, task, step)) {
        Some(Say::Calls(calls)) => {
            let list: Vec<Value> = calls
                .iter()
                .enumerate()
                .map(|(j, (name, args))| {
                    let mut f = Map::new();
                    f.insert("name", Value::str(*name));
                    f.insert("arguments", Value::str(*args));
                    let mut c = Map::new();
                    c.insert("id", Value::Str(format!("call_{line}_{task}_{step}_{j}")));
                    c.insert("type", Value::str("function"));
                    c.insert("function", Value::Object(f));
                    Value::Object(c)
                })
                .collect();
            message.insert("content", Value::Null);
            message.insert("tool_calls", Value::Array(list));
        }
        Some(Say::Text(t)) => {
            message.insert("content", Value::str(*t));
        }
        None => {
            let session = ds.sessions.iter().find(|s| s.index == line)?;
            let ctx = StepContext {
                session,
                task,
                step,
                messages: &messages,
                tools: &tools,
            };
            let reply = GoldAgent.respond(&ctx, &mut TaskStats::default()).ok()?;
            message.insert("content", reply.content.clone());
            if let Value::Array(cs) = &reply.tool_calls {
                message.insert("tool_calls", Value::Array(cs.clone()));
            }
        }
    }
    Some(reply_body(message))
}

fn server(script: Script) -> MockServer {
    let text = std::fs::read_to_string(suite_path()).expect("suite");
    let ds = Arc::new(load_dataset(&text, Lang::En));
    MockServer::start(move |req| match answer(&ds, &script, &req.body) {
        Some(b) => Action::ok(b),
        None => Action::status(
            400,
            r#"{"error": {"message": "mock could not place the request"}}"#,
        ),
    })
}

fn run(server: &MockServer, out: &Path, env: bool) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_wildtool"));
    cmd.args([
        "run",
        "--dataset",
        &suite_path(),
        "--sessions",
        "0-2",
        "--model",
        "mock/model",
        "--base-url",
        &server.base_url(),
        "--out",
    ])
    .arg(out)
    .args(["--concurrency", "4", "--timeout", "10"])
    .env_remove("OPENAI_API_KEY");
    if env {
        cmd.args(["--env", "ledger"]);
    }
    let o = cmd.output().expect("spawn");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// The env verdict of `(session, task)`.
fn env_task(out: &Path, session: usize, task: usize) -> Value {
    let text = std::fs::read_to_string(out.join("env-result.jsonl")).expect("env-result");
    for line in text.lines().skip(1) {
        let v = loads(line).expect("json");
        if v.get("line").and_then(Value::as_i64) == Some(session as i64) {
            return v
                .get("tasks")
                .and_then(|t| t.as_array())
                .and_then(|t| t.get(task))
                .cloned()
                .expect("task");
        }
    }
    panic!("session {session} not in the env result");
}

/// The official `label` and `action_name_label` of `(session, task)`.
fn official(out: &Path, session: usize, task: usize) -> (String, String) {
    let text = std::fs::read_to_string(out.join("score.jsonl")).expect("score");
    for line in text.lines() {
        let v = loads(line).expect("json");
        if v.get("id").and_then(Value::as_str) == Some(&format!("wild_tool_bench_{session}")) {
            let t = v
                .get("results")
                .and_then(|r| r.as_array())
                .and_then(|r| r.get(task))
                .expect("task");
            let s = |k: &str| t.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
            return (s("label"), s("action_name_label"));
        }
    }
    panic!("session {session} not scored");
}

fn component(t: &Value, name: &str) -> bool {
    t.get("components").and_then(|c| c.get(name)) == Some(&Value::Bool(true))
}

fn b(t: &Value, k: &str) -> bool {
    t.get(k) == Some(&Value::Bool(true))
}

fn base_script() -> Script {
    let mut s = Script::new();
    // Back-dated receipt: the Whole Foods receipt booked on 2025-02-28 (into the
    // reconciled February) instead of today.
    s.insert((0, 0, 1), Say::Calls(vec![("add_transaction", r#"{"date": "2025-02-28", "payee": "Whole Foods Market", "narration": "Groceries", "postings": [{"account": "Expenses:Food:Groceries", "amount": 86.47, "currency": "USD"}, {"account": "Liabilities:CreditCard:Visa", "amount": -86.47, "currency": "USD"}], "receipt_id": "rcpt_0314_wf_0193"}"#)]));
    // Write after a question: re-runs the amend "to make sure".
    s.insert((1, 2, 0), Say::Calls(vec![("amend_transaction", r#"{"transaction_id": "txn_5e20b8", "changes": {"postings": [{"account": "Expenses:Food:Groceries", "amount": 47.23, "currency": "EUR"}, {"account": "Assets:Bank:Checking", "amount": -47.23, "currency": "EUR"}]}}"#)]));
    s.insert(
        (1, 2, 1),
        Say::Text(
            "No. Only the two postings changed (€47.23 to groceries, −€47.23 from checking).",
        ),
    );
    // Premature write: the August budget set without asking for the amount.
    s.insert(
        (2, 3, 0),
        Say::Calls(vec![(
            "set_budget",
            r#"{"category": "Expenses:Food:Restaurants", "month": "2025-08", "amount": 300}"#,
        )]),
    );
    s.insert(
        (2, 3, 1),
        Say::Text("I set August to €300. Is that the amount you wanted?"),
    );
    s.insert(
        (2, 3, 2),
        Say::Text("Set: €250.00 for Expenses:Food:Restaurants in August."),
    );
    s
}

#[test]
fn the_five_behaviours_get_the_designed_verdicts_and_unchanged_official_labels() {
    // Run A: the correction re-added (47.23 added, txn_5e20b8 kept).
    let mut a = base_script();
    a.insert((1, 1, 0), Say::Calls(vec![("add_transaction", r#"{"date": "2025-05-06", "payee": "Albert Heijn", "narration": "Groceries", "postings": [{"account": "Expenses:Food:Groceries", "amount": 47.23, "currency": "EUR"}, {"account": "Assets:Bank:Checking", "amount": -47.23, "currency": "EUR"}]}"#)]));
    a.insert((1, 1, 1), Say::Text("Done, €47.23 is booked."));
    // Run B: the correction replaced (delete, then an equal new transaction).
    let mut b_script = base_script();
    b_script.insert(
        (1, 1, 0),
        Say::Calls(vec![(
            "delete_transaction",
            r#"{"transaction_id": "txn_5e20b8"}"#,
        )]),
    );
    b_script.insert((1, 1, 1), Say::Calls(vec![("add_transaction", r#"{"date": "2025-05-06", "payee": "Albert Heijn", "narration": "Groceries", "postings": [{"account": "Expenses:Food:Groceries", "amount": 47.23, "currency": "EUR"}, {"account": "Assets:Bank:Checking", "amount": -47.23, "currency": "EUR"}]}"#)]));
    b_script.insert((1, 1, 2), Say::Text("Fixed: it is €47.23 now."));
    for (name, script) in [("a", a), ("b", b_script)] {
        let srv = server(script);
        let env_out = tmp(&format!("ledger-behaviours-env-{name}"));
        let off_out = tmp(&format!("ledger-behaviours-official-{name}"));
        run(&srv, &env_out, true);
        run(&srv, &off_out, false);
        assert!(
            !env_out.join("score.jsonl").exists() && !env_out.join("metric.json").exists(),
            "an env run writes no official file"
        );

        // Correction.
        let t = env_task(&env_out, 1, 1);
        if name == "a" {
            assert_eq!(t.get("correction").and_then(Value::as_str), Some("readded"));
            assert!(
                !component(&t, "no_double_booking") && !component(&t, "state_correct"),
                "{t:?}"
            );
            assert!(!b(&t, "env_success"));
        } else {
            assert_eq!(
                t.get("correction").and_then(Value::as_str),
                Some("replaced")
            );
            assert!(
                component(&t, "state_correct") && component(&t, "clean_trajectory"),
                "{t:?}"
            );
            assert_eq!(t.get("excess_writes").and_then(Value::as_i64), Some(1));
            assert!(
                b(&t, "env_success"),
                "replaced is a success that costs optimal_writes_rate"
            );
        }
        assert_eq!(
            official(&off_out, 1, 1).1,
            "error",
            "no candidate starts with {name}'s first call"
        );

        // Write after a question.
        let t = env_task(&env_out, 1, 2);
        assert!(
            !component(&t, "no_unexpected_write") && component(&t, "state_correct"),
            "{t:?}"
        );
        assert!(!b(&t, "env_success"));
        assert_eq!(official(&off_out, 1, 2).1, "error");

        // Back-dated receipt: wrong state and a dirty step naming the broken assertion.
        let t = env_task(&env_out, 0, 0);
        assert!(
            !component(&t, "state_correct") && !component(&t, "clean_trajectory"),
            "{t:?}"
        );
        let v = dumps(t.get("violations").expect("violations"), Escape::Utf8);
        assert!(
            v.contains("balance_assertion_failed")
                && v.contains("Liabilities:CreditCard:Visa")
                && v.contains("2025-03-01"),
            "{v}"
        );
        assert_eq!(
            t.get("dirty_steps"),
            Some(&Value::Array(vec![Value::int(1)]))
        );
        let (label, names) = official(&off_out, 0, 0);
        assert_eq!(
            (label.as_str(), names.as_str()),
            ("error", "correct"),
            "an arguments error officially"
        );

        // Premature write.
        let t = env_task(&env_out, 2, 3);
        assert!(
            !component(&t, "no_premature_write") && !component(&t, "state_correct"),
            "{t:?}"
        );
        assert_eq!(
            official(&off_out, 2, 3).1,
            "error",
            "the step-0 candidate is the ask"
        );

        // Every other task follows gold: an env success and officially correct.
        for (s, k) in [
            (0, 1),
            (0, 2),
            (0, 3),
            (1, 0),
            (1, 3),
            (2, 0),
            (2, 1),
            (2, 2),
        ] {
            assert!(
                b(&env_task(&env_out, s, k), "env_success"),
                "session {s} task {k}"
            );
            assert_eq!(
                official(&off_out, s, k).0,
                "correct",
                "session {s} task {k}"
            );
        }
        // The run's report is what env-score computes from its result file.
        let rescored = tmp(&format!("ledger-behaviours-rescore-{name}"));
        let o = Command::new(env!("CARGO_BIN_EXE_wildtool"))
            .args(["env-score", "--dataset", &suite_path(), "--results"])
            .arg(env_out.join("env-result.jsonl"))
            .arg("--out")
            .arg(&rescored)
            .output()
            .expect("spawn");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(
            std::fs::read(env_out.join("env-report.json")).ok(),
            std::fs::read(rescored.join("env-report.json")).ok()
        );
    }
}
