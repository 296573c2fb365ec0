//! Generated ledger-environment suites (`wildtool generate --env ledger`): a 256-session
//! suite validates with `--semantic --env` (strict replay: its observations are what the
//! environment computes), the gold agent scores 100% official and 100% `env_success` in
//! both history modes, the bytes are the same on a second run and in the core, each
//! challenge gives its task types, the worlds of a challenge sweep are paired session by
//! session, and impossible factor combinations exit with 2.

use crate::support::{tmp, wildtool};
use std::path::Path;
use std::process::Output;
use wildtool_core::generate::{GenerateSpec, PackText};
use wildtool_core::json::{loads, Value};

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap_or("")
}

fn json(p: &Path) -> Value {
    loads(&std::fs::read_to_string(p).expect("read")).expect("json")
}

fn metric(v: &Value, path: &[&str]) -> Option<f64> {
    let mut x = v;
    for k in path {
        x = x.get(k)?;
    }
    match x {
        Value::Float(f) => Some(*f),
        other => other.as_i64().map(|i| i as f64),
    }
}

fn packs() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/packs");
    wildtool_core::generate::pack::PACK_FILES
        .iter()
        .map(|n| {
            (
                (*n).to_owned(),
                std::fs::read_to_string(dir.join(n)).expect("pack"),
            )
        })
        .collect()
}

/// `wildtool generate --seed 7 --sessions 256 --env ledger --out FILE`.
pub(crate) fn generate_256(file: &Path) {
    let o = wildtool(&[
        "generate",
        "--seed",
        "7",
        "--sessions",
        "256",
        "--env",
        "ledger",
        "--out",
        s(file),
    ]);
    assert!(o.status.success(), "{}", text(&o));
}

/// The gold agent on `file` into `out`, with `extra` options.
fn gold_run(file: &Path, out: &Path, extra: &[&str]) {
    let mut args = vec![
        "run",
        "--dataset",
        s(file),
        "--provider",
        "gold",
        "--out",
        s(out),
    ];
    args.extend_from_slice(extra);
    let o = wildtool(&args);
    assert!(o.status.success(), "{}", text(&o));
}

fn core_generate(spec: &str) -> String {
    let p = packs();
    let texts: Vec<PackText<'_>> = p
        .iter()
        .map(|(n, t)| PackText { name: n, text: t })
        .collect();
    let spec = GenerateSpec::parse(spec).expect("spec");
    wildtool_core::ledger::generated::generate(&texts, &spec).expect("generate")
}

#[test]
fn a_generated_ledger_suite_validates_and_the_gold_agent_scores_everything_in_both_modes() {
    let dir = tmp("gen-ledger");
    let file = dir.join("suite.jsonl");
    generate_256(&file);
    let bytes = std::fs::read_to_string(&file).expect("suite");
    assert_eq!(bytes, core_generate("seed=7,sessions=256,env=ledger"));
    let again = dir.join("again.jsonl");
    generate_256(&again);
    assert_eq!(std::fs::read(&again).expect("again"), bytes.as_bytes());

    let v = wildtool(&["validate", "--semantic", "--env", s(&file)]);
    assert!(v.status.success(), "{}", text(&v));
    assert!(
        text(&v).contains("256 session(s) with ledger_env checked, 0 error(s)"),
        "{}",
        text(&v)
    );
    assert!(text(&v).contains("valid (0 warning(s))"), "{}", text(&v));

    // Every challenge appears under `mixed`, and no tool list repeats.
    let mut challenges = std::collections::BTreeSet::new();
    let mut tool_lists = std::collections::BTreeSet::new();
    for line in bytes.lines() {
        let v = loads(line).expect("line");
        let g = v.get("generated").expect("generated");
        challenges.insert(
            g.get("challenge")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
        );
        tool_lists.insert(wildtool_core::json::dumps(
            v.get("english_tools").expect("tools"),
            wildtool_core::json::Escape::Utf8,
        ));
    }
    assert_eq!(challenges.len(), 4, "{challenges:?}");
    assert_eq!(tool_lists.len(), 256);

    // Official gold history.
    let off = dir.join("official");
    gold_run(&file, &off, &[]);
    let m = std::fs::read_to_string(off.join("metric.json")).expect("metric");
    let m = loads(&m).expect("metric json");
    assert_eq!(metric(&m, &["total_info", "task", "accuracy"]), Some(1.0));
    assert_eq!(
        metric(&m, &["total_info", "session", "accuracy"]),
        Some(1.0)
    );

    // The ledger environment, gold history.
    let env = dir.join("env");
    gold_run(&file, &env, &["--env", "ledger"]);
    let r = json(&env.join("env-report.json"));
    let l = r.get("ledger_env").expect("ledger_env");
    assert_eq!(
        metric(l, &["env_task_success", "value"]),
        Some(1.0),
        "{l:?}"
    );
    assert_eq!(
        metric(l, &["env_task_success", "denominator"]),
        Some(1024.0)
    );
    assert_eq!(metric(l, &["env_session_success", "value"]), Some(1.0));
    assert_eq!(metric(l, &["answer_fact_recall", "value"]), Some(1.0));

    // … and own history.
    let own = dir.join("own");
    gold_run(&file, &own, &["--env", "ledger", "--history", "own"]);
    let r = json(&own.join("own-report.json"));
    let l = r.get("ledger_env").expect("ledger_env");
    assert_eq!(metric(l, &["sessions"]), Some(256.0));
    assert_eq!(
        metric(l, &["session_verdict", "final_ledger_correct"]),
        Some(256.0)
    );
    assert_eq!(
        metric(l, &["metrics", "env_task_success", "value"]),
        Some(1.0)
    );
    assert_eq!(metric(l, &["missing_prerequisite_tasks"]), Some(0.0));
    let tasks = r
        .get("report")
        .and_then(|x| x.get("tasks"))
        .and_then(Value::as_array)
        .expect("tasks");
    assert_eq!(tasks.len(), 1024);
    assert!(tasks
        .iter()
        .all(|t| matches!(t.get("correct"), Some(Value::Bool(true)))));
}

fn types_of(suite: &str) -> Vec<Vec<String>> {
    suite
        .lines()
        .map(|l| {
            let v = loads(l).expect("line");
            v.get("english_task_types")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default()
        })
        .collect()
}

#[test]
fn each_challenge_has_its_tasks_and_the_worlds_are_paired_across_levels() {
    let expect = [
        (
            "compositional",
            [
                "Mixed Multi-Tool",
                "Single-Tool",
                "Single-Tool",
                "Single-Tool",
            ],
            ["compositional", "read", "write", "read"],
        ),
        (
            "correction",
            ["Single-Tool", "Single-Tool", "Single-Tool", "Single-Tool"],
            ["write", "correction", "read", "read"],
        ),
        (
            "question",
            ["Sequential Multi-Tool", "Chat", "Single-Tool", "Chat"],
            [
                "write",
                "question_after_write",
                "write",
                "question_after_write",
            ],
        ),
        (
            "clarify",
            ["Single-Tool", "Clarify", "Clarify", "Single-Tool"],
            ["read", "clarify", "clarify", "read"],
        ),
    ];
    let mut initials: Vec<Vec<String>> = Vec::new();
    for (level, types, challenges) in expect {
        let suite = core_generate(&format!("seed=3,sessions=12,challenge={level}"));
        for t in types_of(&suite) {
            assert_eq!(t, types, "{level}");
        }
        let mut inits = Vec::new();
        for l in suite.lines() {
            let v = loads(l).expect("line");
            let env = v.get("ledger_env").expect("ledger_env");
            let got: Vec<&str> = env
                .get("tasks")
                .and_then(Value::as_array)
                .expect("tasks")
                .iter()
                .filter_map(|t| t.get("challenge").and_then(Value::as_str))
                .collect();
            assert_eq!(got, challenges, "{level}");
            inits.push(
                env.get("initial")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
            );
        }
        initials.push(inits);
    }
    // Session i of every level starts from the same ledger.
    for level in &initials[1..] {
        assert_eq!(level, &initials[0]);
    }
}

#[test]
fn impossible_ledger_factors_exit_with_2() {
    let dir = tmp("gen-ledger-bad");
    let out = dir.join("x.jsonl");
    for extra in [
        &["--env", "none", "--challenge", "question"][..],
        &["--env", "ledger", "--transitions", "2"],
        &["--challenge", "clarify", "--domains", "weather"],
        &["--challenge", "sometimes"],
        &["--env", "maybe"],
    ] {
        let mut args = vec![
            "generate",
            "--seed",
            "1",
            "--sessions",
            "4",
            "--out",
            s(&out),
        ];
        args.extend_from_slice(extra);
        let o = wildtool(&args);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {}", text(&o));
    }
}
