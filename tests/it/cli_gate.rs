//! `wildtool run`, `gate`, `plan` and the CI outputs end to end against the scripted mock:
//! gate exit codes, JUnit counts read by a real parser (junitparser, a separate process)
//! equal to the run's, cost figures equal to tokens × prices from the recorded usage, the
//! dry-run estimate within its stated error of the actual cost, `--max-cost` stopping
//! before the limit and resuming, and the CI script's steps (a live run and a cassette
//! replay); a trials run's flaky tasks counted by the parser as the run has them.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::mock_server::Action;
use crate::runner_live::{mini_path, model_server, tmp, Behaviour};
use crate::support::root;
use wildtool_core::json::{loads, Value};

const PRICES: &str = r#"{"wildtool_prices": 1, "currency": "USD", "models": {"mock/model": {"input": 2.0, "cached_input": 1.0, "output": 8.0}}}"#;

fn wildtool(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wildtool"))
        .args(args)
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap_or_else(|e| panic!("spawn: {e}"))
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap_or("")
}

fn run(base: &str, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "run",
        "--dataset",
        s(&mini_path()).to_owned().leak(),
        "--model",
        "mock/model",
        "--base-url",
        base,
        "--out",
        s(out),
        "--timeout",
        "10",
        "--backoff",
        "0.01",
        "--concurrency",
        "4",
    ];
    args.extend_from_slice(extra);
    wildtool(&args)
}

fn json(path: &Path) -> Value {
    loads(&std::fs::read_to_string(path).unwrap_or_default()).unwrap_or(Value::Null)
}

fn num(v: &Value, path: &[&str]) -> f64 {
    let mut cur = v;
    for k in path {
        cur = cur.get(k).unwrap_or(&Value::Null);
    }
    match cur {
        Value::Float(f) => *f,
        other => other.as_i64().map(|i| i as f64).unwrap_or(f64::NAN),
    }
}

fn junit_counts(file: &Path) -> Value {
    let python = root().join(".venv-junit/bin/python");
    assert!(
        python.exists(),
        "junitparser is not installed: run bash scripts/setup-junit.sh"
    );
    let o = Command::new(python)
        .arg(root().join("scripts/junit-counts.py"))
        .arg(file)
        .output()
        .unwrap_or_else(|e| panic!("python: {e}"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    loads(String::from_utf8_lossy(&o.stdout).trim()).unwrap_or(Value::Null)
}

#[test]
fn gate_junit_and_cost_against_the_mock() {
    let dir = tmp("gate-e2e");
    std::fs::create_dir_all(&dir).ok();
    let prices = dir.join("prices.json");
    std::fs::write(&prices, PRICES).ok();
    let gold = model_server(Behaviour::Gold, |_, _| None);
    let worse = model_server(Behaviour::WrongNames, |_, _| None);
    // Dry run first: nothing written, an estimate with its stated error.
    let (a, b, c) = (dir.join("a"), dir.join("b"), dir.join("c"));
    let dry = run(&gold.base_url(), &a, &["--prices", s(&prices), "--dry-run"]);
    assert!(
        dry.status.success(),
        "{}",
        String::from_utf8_lossy(&dry.stderr)
    );
    assert!(!a.exists(), "a dry run writes nothing");
    let text = String::from_utf8_lossy(&dry.stdout).into_owned();
    let estimate: f64 = text
        .split("estimated cost: ")
        .nth(1)
        .and_then(|t| t.split_whitespace().next())
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("{text}"));
    // Two runs of the same deterministic model, with JUnit and cost.
    for d in [&a, &b] {
        let junit = d.with_extension("xml");
        let o = run(
            &gold.base_url(),
            d,
            &[
                "--prices",
                s(&prices),
                "--junit",
                s(&junit),
                "--no-preflight",
            ],
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let report = json(&d.join("report.json"));
        let counts = junit_counts(&junit);
        let scored = num(&report, &["tasks_scored"]);
        let correct = num(&report, &["report", "task_accuracy", "correct"]);
        assert_eq!(num(&counts, &["passed"]), correct);
        assert_eq!(num(&counts, &["failed"]), scored - correct);
        assert_eq!(
            num(&counts, &["skipped"]),
            num(&report, &["tasks_unscored"])
        );
        assert_eq!(num(&counts, &["flaky"]), 0.0);
        // Cost = recorded tokens × prices (no cached tokens reported by the mock).
        let cost = report.get("cost").cloned().unwrap_or(Value::Null);
        let (i, o_) = (
            num(&report, &["scoring", "input_tokens"]),
            num(&report, &["scoring", "output_tokens"]),
        );
        let expected = (i * 2.0 + o_ * 8.0) / 1e6;
        assert!(
            (num(&cost, &["total"]) - expected).abs() < 1e-12,
            "{cost:?}"
        );
        assert!((num(&cost, &["per_solved_task"]) - expected / correct).abs() < 1e-12);
        // The dry-run estimate is within its stated ±30%.
        assert!(
            (estimate - expected).abs() <= 0.3 * expected,
            "estimate {estimate} vs actual {expected}"
        );
    }
    let gate = |cand: &Path, extra: &[&str]| {
        let mut args = vec![
            "gate",
            "--baseline",
            s(&a),
            "--candidate",
            s(cand),
            "--dataset",
            s(&mini_path()).to_owned().leak(),
        ];
        args.extend_from_slice(extra);
        wildtool(&args)
    };
    let same = gate(&b, &[]);
    assert_eq!(
        same.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&same.stderr)
    );
    assert!(String::from_utf8_lossy(&same.stdout).starts_with("no significant regression"));
    // A candidate that fails every task: exit 1, with a JUnit gate case and a summary.
    let o = run(&worse.base_url(), &c, &["--no-preflight"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (junit, md) = (dir.join("gate.xml"), dir.join("gate.md"));
    let bad = gate(&c, &["--junit", s(&junit), "--summary-md", s(&md)]);
    assert_eq!(
        bad.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&bad.stderr)
    );
    assert!(String::from_utf8_lossy(&bad.stdout).starts_with("regression: \u{2212}"));
    let counts = junit_counts(&junit);
    assert_eq!(num(&counts, &["tests"]), 33.0, "32 tasks and the gate");
    assert!(std::fs::read_to_string(&md)
        .unwrap_or_default()
        .contains("**Gate:** regression"));
    // The numbers are compare's.
    let cmp = wildtool(&[
        "compare",
        s(&a),
        s(&c),
        "--dataset",
        s(&mini_path()),
        "--out",
        s(&dir.join("cmp")),
        "--junit",
        s(&dir.join("cmp.xml")),
        "--summary-md",
        s(&dir.join("cmp.md")),
    ]);
    assert!(
        cmp.status.success(),
        "{}",
        String::from_utf8_lossy(&cmp.stderr)
    );
    // compare --junit: one suite per run (a case per task), read by a real parser; its
    // counts are the two runs' together.
    let counts = junit_counts(&dir.join("cmp.xml"));
    assert_eq!(num(&counts, &["tests"]), 64.0, "{counts:?}");
    let (ra, rc) = (json(&a.join("report.json")), json(&c.join("report.json")));
    let correct = |r: &Value| num(r, &["report", "task_accuracy", "correct"]);
    let scored = |r: &Value| num(r, &["tasks_scored"]);
    assert_eq!(num(&counts, &["passed"]), correct(&ra) + correct(&rc));
    assert_eq!(
        num(&counts, &["failed"]),
        scored(&ra) - correct(&ra) + scored(&rc) - correct(&rc)
    );
    assert!(correct(&rc) < correct(&ra), "the worse run fails tasks");
    // The priced run's cost is compare's too (compare.json and compare.html); the unpriced
    // one says so.
    let cmp_doc = json(&dir.join("cmp/compare.json"));
    let run_cost = |i: usize| {
        cmp_doc
            .get("runs")
            .and_then(|r| r.as_array())
            .and_then(|r| r.get(i))
            .and_then(|r| r.get("cost"))
            .cloned()
            .unwrap_or(Value::Null)
    };
    assert_eq!(num(&run_cost(0), &["total"]), num(&ra, &["cost", "total"]));
    assert_eq!(run_cost(1), Value::Null, "run c was not priced");
    let html = std::fs::read_to_string(dir.join("cmp/compare.html")).unwrap_or_default();
    assert!(html.contains("Cost per solved task") && html.contains("not priced"));
    let md = std::fs::read_to_string(dir.join("cmp.md")).unwrap_or_default();
    assert!(md.starts_with("### wildtool: "), "{md}");
    assert!(!md.contains("**Gate:**"), "compare has no verdict: {md}");
    let doc = json(&dir.join("cmp/compare.json"));
    let p = doc
        .get("pairs")
        .and_then(|p| p.as_array())
        .and_then(|p| p.first())
        .cloned()
        .unwrap_or(Value::Null);
    let p_text = wildtool_core::compare::gate::p_text(num(&p, &["mcnemar_p"]));
    assert!(String::from_utf8_lossy(&bad.stdout).contains(&format!("p {p_text}")));
    // Unusable inputs: exit 2 (min sessions; another dataset).
    assert_eq!(gate(&c, &["--min-sessions", "9"]).status.code(), Some(2));
    let other = gate(&c, &["--dataset", s(&root().join("data/suite.jsonl"))]);
    assert_eq!(other.status.code(), Some(2));
}

#[test]
fn max_cost_stops_before_the_limit_and_resumes() {
    let dir = tmp("max-cost");
    std::fs::create_dir_all(&dir).ok();
    let prices = dir.join("prices.json");
    std::fs::write(&prices, PRICES).ok();
    let gold = model_server(Behaviour::Gold, |_, _| None);
    let out = dir.join("run");
    // A request costs about 0.001 here (and reserves 512 completion tokens, 0.004, before
    // its reply): the limit lets part of the run through.
    let limit = "0.05";
    let o = run(
        &gold.base_url(),
        &out,
        &[
            "--prices",
            s(&prices),
            "--max-cost",
            limit,
            "--no-preflight",
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(3),
        "partial: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let status = json(&out.join("run.json"));
    let spent = num(&status, &["counters", "spent"]);
    assert!(spent > 0.0 && spent <= 0.05, "{spent}");
    // What the scored tasks' recorded usage costs is part of what was spent.
    if let Some(cost) = json(&out.join("report.json")).get("cost") {
        assert!(num(cost, &["total"]) <= spent + 1e-12);
    }
    assert_eq!(
        status.get("status").and_then(Value::as_str),
        Some("partial")
    );
    // Resuming with a higher limit finishes the run.
    let o = run(
        &gold.base_url(),
        &out,
        &["--prices", s(&prices), "--max-cost", "10", "--no-preflight"],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        num(&json(&out.join("report.json")), &["tasks_unscored"]),
        0.0
    );
}

/// Runs `scripts/ci-gate.sh` against `base` into `out` with the `extra` settings; it
/// must exit 0.
fn ci_script(base: &str, out: &Path, extra: &[(&str, &Path)]) {
    let mut cmd = Command::new("bash");
    cmd.arg(root().join("scripts/ci-gate.sh"))
        .env("WILDTOOL", env!("CARGO_BIN_EXE_wildtool"))
        .env("WILDTOOL_DATASET", mini_path())
        .env("WILDTOOL_BASE_URL", base)
        .env("WILDTOOL_MODEL", "mock/model")
        .env("WILDTOOL_OUT", out)
        .env_remove("OPENAI_API_KEY");
    for (k, v) in extra {
        cmd.env(k, v);
    }
    let o = cmd.output().unwrap_or_else(|e| panic!("bash: {e}"));
    assert!(
        o.status.success(),
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn the_ci_script_runs_against_the_mock() {
    let dir = tmp("ci-script");
    let gold = model_server(Behaviour::Gold, |_, _| None);
    ci_script(&gold.base_url(), &dir, &[]);
    for f in ["junit.xml", "summary.md"] {
        assert!(PathBuf::from(&dir).join(f).is_file(), "{f}");
    }
}

#[test]
fn the_ci_script_replays_a_cassette_with_the_endpoint_gone() {
    let dir = tmp("ci-script-cassette");
    let tape = dir.join("cassette.jsonl");
    let recorded = dir.join("recorded");
    let gold = model_server(Behaviour::Gold, |_, _| None);
    let base = gold.base_url();
    let o = run(&base, &recorded, &["--cassette", s(&tape)]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    drop(gold);
    let out = dir.join("ci");
    ci_script(
        &base,
        &out,
        &[
            ("WILDTOOL_BASELINE", &recorded),
            ("WILDTOOL_CASSETTE", &tape),
        ],
    );
    let candidate = out.join("candidate");
    let manifest = json(&candidate.join("manifest.json"));
    assert_eq!(
        manifest
            .get("cassette")
            .and_then(|c| c.get("mode"))
            .and_then(Value::as_str),
        Some("replay")
    );
    let read = |p: PathBuf| std::fs::read_to_string(p).unwrap_or_default();
    assert_eq!(
        read(candidate.join("metric.json")),
        read(recorded.join("metric.json"))
    );
    assert!(out.join("junit.xml").is_file());
}

/// Each task's labels in a `score.jsonl` (session order, then task order).
fn labels(path: &Path) -> Vec<bool> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut out = Vec::new();
    for line in text.lines() {
        let v = loads(line).unwrap_or(Value::Null);
        if let Some(Value::Array(results)) = v.get("results") {
            for r in results {
                out.push(r.get("label").and_then(Value::as_str) == Some("correct"));
            }
        }
    }
    out
}

#[test]
fn junit_counts_flaky_tasks_of_a_trials_run_as_the_run_does() {
    // The second time the mock sees a request (the same request of the other trial, since
    // bodies carry no seed) it answers with text only: the task fails in that trial.
    let noisy = model_server(Behaviour::Gold, |_, n| {
        (n == 2).then(|| {
            Action::ok(
                r#"{"choices": [{"index": 0, "message": {"role": "assistant", "content": "No."}, "finish_reason": "stop"}]}"#,
            )
        })
    });
    let out = tmp("junit-flaky");
    let junit = out.join("junit.xml");
    let o = run(
        &noisy.base_url(),
        &out.join("run"),
        &["--trials", "2", "--no-preflight", "--junit", s(&junit)],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (a, b) = (
        labels(&out.join("run/trial-1/score.jsonl")),
        labels(&out.join("run/trial-2/score.jsonl")),
    );
    assert_eq!(a.len(), b.len());
    let both = a.iter().zip(&b).filter(|(x, y)| **x && **y).count();
    let neither = a.iter().zip(&b).filter(|(x, y)| !**x && !**y).count();
    let flaky = a.len() - both - neither;
    assert!(flaky > 0, "the mock makes tasks flaky");
    let counts = junit_counts(&junit);
    assert_eq!(num(&counts, &["tests"]), a.len() as f64);
    assert_eq!(num(&counts, &["passed"]), both as f64);
    assert_eq!(num(&counts, &["failed"]), neither as f64);
    assert_eq!(num(&counts, &["flaky"]), flaky as f64);
    assert_eq!(num(&counts, &["skipped"]), 0.0);
}
