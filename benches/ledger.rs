//! The ledger environment's speed (native): one environment step (a tool call answered
//! from the state before the task), a write through the tools alone, and scoring the
//! gold agent's whole env run of the bundled suite (replaying every call).

use std::collections::BTreeMap;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

use wildtool_core::dataset::{fingerprint_hex, load_dataset, Lang};
use wildtool_core::json::Value;
use wildtool_core::ledger::answer::Answerer;
use wildtool_core::ledger::run_file::{score_file, SessionEnv};
use wildtool_core::ledger::tools::{call, ToolOptions};
use wildtool_core::protocol::ToolCall;

const ADD: &str = r#"{"date": "2025-03-14", "payee": "Whole Foods Market", "narration": "Groceries", "postings": [{"account": "Expenses:Food:Groceries", "amount": 86.47, "currency": "USD"}, {"account": "Liabilities:CreditCard:Visa", "amount": -86.47, "currency": "USD"}], "receipt_id": "rcpt_0314_wf_0193"}"#;

fn bench(c: &mut Criterion) {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/data/suite.jsonl"))
        .expect("suite");
    let loaded = load_dataset(&text, Lang::En);
    let session = loaded.sessions.first().expect("session 0").clone();
    let env = SessionEnv::of(&session).expect("scenario").expect("env");
    let mut g = c.benchmark_group("ledger");
    g.throughput(Throughput::Elements(1));
    g.bench_function("tool_write", |b| {
        b.iter(|| {
            let mut state = env.scenario.initial.clone();
            call(
                &mut state,
                "add_transaction",
                &Value::str(ADD),
                &session.tools,
                ToolOptions::default(),
            )
        })
    });
    let calls = vec![ToolCall {
        id: Value::str("call_1"),
        name: "add_transaction".to_owned(),
        arguments: Value::str(ADD),
    }];
    let mut envs = BTreeMap::new();
    envs.insert(0, env.clone());
    g.bench_function("env_step", |b| {
        let mut answerer = Answerer::new(envs.clone());
        let mut trial = 0u32;
        b.iter(|| {
            trial = trial.wrapping_add(1);
            let out = answerer.answer(trial, &session, 0, &[], &calls);
            answerer.forget(trial, 0, 0);
            out
        })
    });
    // The gold agent's env run of the suite, replayed and scored.
    let out = std::env::temp_dir().join(format!("wildtool-bench-ledger-{}", std::process::id()));
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_wildtool"))
        .args(["run", "--env", "ledger", "--provider", "gold", "--dataset"])
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/data/suite.jsonl"))
        .arg("--out")
        .arg(&out)
        .output()
        .expect("gold run");
    assert!(status.status.success());
    let result = std::fs::read_to_string(out.join("env-result.jsonl")).expect("env result");
    let fp = fingerprint_hex(&text);
    g.throughput(Throughput::Elements(64));
    g.bench_function("score_gold_suite_64_tasks", |b| {
        b.iter(|| score_file(&loaded.sessions, &fp, &result, false).expect("scores"))
    });
    g.finish();
    let _ = std::fs::remove_dir_all(&out);
}

criterion_group!(benches, bench);
criterion_main!(benches);
