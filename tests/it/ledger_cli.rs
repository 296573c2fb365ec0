//! The ledger environment's CLI: `run --env ledger` refuses a dataset without ledger_env
//! (exit 2), skips such sessions with a count, resumes from its checkpoint and runs
//! trials; `env-score` reproduces the run's report byte for byte and a damaged line costs
//! that line only (named); `score` refuses env files naming `env-score`; `validate
//! --semantic --env` passes the suite; `env-export` writes ledgers and diffs; `report` and
//! `compare` label env runs as the extension they are.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use wildtool_core::json::{loads, Value};

fn root(p: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(p)
}

fn wt(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wildtool"))
        .args(args)
        .output()
        .expect("spawn")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("wildtool-ledger-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

fn gold_run(out: &Path, extra: &[&str]) -> Output {
    let suite = s(&root("data/suite.jsonl"));
    let mut args = vec![
        "run",
        "--env",
        "ledger",
        "--provider",
        "gold",
        "--dataset",
        &suite,
    ];
    let o = s(out);
    args.extend(["--out", &o]);
    args.extend(extra);
    wt(&args)
}

#[test]
fn a_dataset_without_ledger_env_is_refused_and_others_are_skipped_with_a_count() {
    let out = tmp("none");
    let mini = s(&root("tests/fixtures/mini.jsonl"));
    let o = wt(&[
        "run",
        "--env",
        "ledger",
        "--provider",
        "gold",
        "--dataset",
        &mini,
        "--out",
        &s(&out),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("ledger_env"),
        "{o:?}"
    );
    let out = tmp("skip");
    let o = gold_run(&out, &["--sessions", "0-1,20-21"]);
    assert!(o.status.success(), "{o:?}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("2 selected session(s) have no ledger_env"));
    let report = loads(&std::fs::read_to_string(out.join("env-report.json")).expect("report"))
        .expect("json");
    assert_eq!(
        report.get("sessions_without_env").and_then(Value::as_i64),
        Some(2)
    );
    assert_eq!(report.get("tasks_scored").and_then(Value::as_i64), Some(8));
    assert_eq!(
        report.get("extension").and_then(Value::as_str),
        Some(wildtool_core::ledger::metrics::EXTENSION_LABEL)
    );
    for f in ["score.jsonl", "metric.json", "result.jsonl", "report.json"] {
        assert!(!out.join(f).exists(), "{f} is an official file");
    }
}

#[test]
fn env_score_is_byte_identical_and_a_damaged_line_costs_that_line_only() {
    let out = tmp("rescore");
    assert!(gold_run(&out, &[]).status.success());
    let again = tmp("rescore-out");
    let suite = s(&root("data/suite.jsonl"));
    let results = out.join("env-result.jsonl");
    let o = wt(&[
        "env-score",
        "--dataset",
        &suite,
        "--results",
        &s(&results),
        "--out",
        &s(&again),
    ]);
    assert!(o.status.success(), "{o:?}");
    assert_eq!(
        std::fs::read(out.join("env-report.json")).ok(),
        std::fs::read(again.join("env-report.json")).ok()
    );
    // Damage line 3 (the second session).
    let text = std::fs::read_to_string(&results).expect("results");
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    lines[2] = lines[2][..lines[2].len() / 2].to_owned();
    let damaged = out.join("damaged.jsonl");
    std::fs::write(&damaged, lines.join("\n") + "\n").expect("write");
    let third = tmp("rescore-damaged");
    let o = wt(&[
        "env-score",
        "--dataset",
        &suite,
        "--results",
        &s(&damaged),
        "--out",
        &s(&third),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("line 3"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let r = loads(&std::fs::read_to_string(third.join("env-report.json")).expect("report"))
        .expect("json");
    assert_eq!(r.get("sessions_scored").and_then(Value::as_i64), Some(15));
    assert_eq!(
        r.get("damaged_lines"),
        Some(&Value::Array(vec![Value::int(3)]))
    );
    // A recorded result that the environment no longer gives: refused strictly, scored
    // leniently.
    let drifted = out.join("drifted.jsonl");
    std::fs::write(
        &drifted,
        text.replacen("\"balance\": 1284.16", "\"balance\": 1284.17", 1),
    )
    .expect("write");
    let o = wt(&[
        "env-score",
        "--dataset",
        &suite,
        "--results",
        &s(&drifted),
        "--out",
        &s(&tmp("drift")),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--lenient"));
    let o = wt(&[
        "env-score",
        "--lenient",
        "--dataset",
        &suite,
        "--results",
        &s(&drifted),
        "--out",
        &s(&tmp("drift-lenient")),
    ]);
    assert!(o.status.success(), "{o:?}");
    // The official scorer refuses env files and names env-score.
    for f in [results, out.join("env-checkpoint.jsonl")] {
        let o = wt(&[
            "score",
            "--dataset",
            &suite,
            "--results",
            &s(&f),
            "--out",
            &s(&tmp("score")),
        ]);
        assert_eq!(o.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&o.stderr).contains("env-score"));
    }
}

#[test]
fn an_interrupted_env_run_resumes_and_trials_give_pass_k() {
    let out = tmp("resume");
    assert!(gold_run(&out, &["--sessions", "0-3"]).status.success());
    let full = std::fs::read(out.join("env-report.json")).expect("report");
    // Keep the header and 5 task records only, as if killed: the rerun finishes the rest.
    let cp = out.join("env-checkpoint.jsonl");
    let kept: Vec<String> = std::fs::read_to_string(&cp)
        .expect("cp")
        .lines()
        .take(6)
        .map(str::to_owned)
        .collect();
    std::fs::write(&cp, kept.join("\n") + "\n").expect("cut");
    let o = gold_run(&out, &["--sessions", "0-3"]);
    assert!(o.status.success(), "{o:?}");
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("5 resumed"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(std::fs::read(out.join("env-report.json")).ok(), Some(full));
    // An official checkpoint in the way is another run.
    let official = tmp("official-cp");
    std::fs::create_dir_all(&official).expect("dir");
    std::fs::write(
        official.join("env-checkpoint.jsonl"),
        "{\"wildtool_checkpoint\": 1, \"model_name\": \"gold\", \"dataset\": \"x\"}\n",
    )
    .expect("write");
    assert_eq!(
        gold_run(&official, &["--sessions", "0"]).status.code(),
        Some(2)
    );
    let trials = tmp("trials");
    let o = gold_run(&trials, &["--sessions", "0-1", "--trials", "2"]);
    assert!(o.status.success(), "{o:?}");
    for t in ["trial-1", "trial-2"] {
        assert!(trials.join(t).join("env-report.json").is_file());
    }
    let doc = std::fs::read_to_string(trials.join("env-trials.json")).expect("trials");
    assert!(
        doc.contains("env_success") && doc.contains("pass_hat"),
        "{doc}"
    );
}

#[test]
fn validate_export_report_and_compare() {
    let suite = s(&root("data/suite.jsonl"));
    let o = wt(&["validate", "--semantic", "--env", &suite]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
    assert!(String::from_utf8_lossy(&o.stdout)
        .contains("16 session(s) with ledger_env checked, 0 error(s)"));
    // A scenario whose gold no longer replays is an error naming the session.
    let text = std::fs::read_to_string(root("data/suite.jsonl")).expect("suite");
    let broken = tmp("broken");
    std::fs::create_dir_all(&broken).expect("dir");
    let bad = broken.join("suite.jsonl");
    std::fs::write(&bad, text.replace("\"total\": 612.38", "\"total\": 612.39")).expect("write");
    let o = wt(&["validate", "--semantic", "--env", &s(&bad)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stdout)
        .contains("wild_tool_bench_0 task 0: strict replay fails"));

    let out = tmp("export");
    assert!(gold_run(&out, &["--sessions", "0-1"]).status.success());
    let a = out.join("a.beancount");
    let o = wt(&[
        "env-export",
        "--run",
        &s(&out),
        "--session",
        "1",
        "--task",
        "1",
        "--which",
        "actual",
        "--out",
        &s(&a),
    ]);
    assert!(o.status.success(), "{o:?}");
    let ledger = std::fs::read_to_string(&a).expect("ledger");
    assert!(ledger.starts_with("; actual ledger of wild_tool_bench_1"));
    assert!(
        ledger.contains("not part of WildToolBench")
            && ledger.contains("wt-id: \"txn_5e20b8\"")
            && ledger.contains("47.23 EUR")
    );
    let d = out.join("d.diff");
    assert!(wt(&[
        "env-export",
        "--run",
        &s(&out),
        "--session",
        "1",
        "--which",
        "diff",
        "--out",
        &s(&d)
    ])
    .status
    .success());
    assert_eq!(
        std::fs::read_to_string(&d).expect("diff"),
        "",
        "gold leaves the expected ledger"
    );

    let html = out.join("r.html");
    assert!(wt(&["report", "--score-dir", &s(&out), "--out", &s(&html)])
        .status
        .success());
    let page = std::fs::read_to_string(&html).expect("html");
    assert!(
        page.contains("Extension: ledger environment")
            && page.contains("not a WildToolBench metric")
    );

    let off = tmp("official");
    assert!(wt(&[
        "run",
        "--provider",
        "gold",
        "--dataset",
        &suite,
        "--sessions",
        "0-1",
        "--out",
        &s(&off)
    ])
    .status
    .success());
    let o = wt(&[
        "compare",
        &s(&out),
        &s(&off),
        "--dataset",
        &suite,
        "--out",
        &s(&tmp("cmp")),
    ]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "env and official runs are never mixed"
    );
    let o = wt(&[
        "compare",
        &s(&out),
        &s(&out),
        "--dataset",
        &suite,
        "--out",
        &s(&tmp("cmp2")),
    ]);
    assert!(o.status.success(), "{o:?}");
    assert!(String::from_utf8_lossy(&o.stdout).contains("runs paired on env_success"));
}

#[test]
fn gate_reads_env_runs_with_env_metrics_only() {
    let out = tmp("gate-env");
    let o = gold_run(&out, &[]);
    assert!(o.status.success(), "{o:?}");
    let suite = s(&root("data/suite.jsonl"));
    let gate = |a: &Path, b: &Path, metric: &str| {
        wt(&[
            "gate",
            "--baseline",
            &s(a),
            "--candidate",
            &s(b),
            "--dataset",
            &suite,
            "--metric",
            metric,
        ])
    };
    for metric in ["env_task", "env_session"] {
        let o = gate(&out, &out, metric);
        assert_eq!(o.status.code(), Some(0), "{metric}: {o:?}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("ledger environment"),
            "{metric}: the verdict names the extension: {o:?}"
        );
    }
    // An official metric on env runs, and an env metric on official runs: exit 2, naming
    // the metric to use.
    let o = gate(&out, &out, "task");
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("env_task"),
        "{o:?}"
    );
    let off = tmp("gate-official");
    assert!(wt(&[
        "run",
        "--provider",
        "gold",
        "--dataset",
        &suite,
        "--sessions",
        "0-1",
        "--out",
        &s(&off)
    ])
    .status
    .success());
    let o = gate(&off, &off, "env_task");
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("official runs"),
        "{o:?}"
    );
}
