//! `wildtool compare` end to end: counts and the exact McNemar p-value recomputed here
//! from the official score files, trial directories, refusals and escaping.

use crate::support::{bin, path, tmp};
use std::path::Path;
use std::process::Command;

/// Per-task verdicts (`label == "correct"`) of an official score file, keyed by
/// (session index from the id, task position).
fn verdicts(score_jsonl: &Path) -> Vec<((u32, u32), bool)> {
    let text = std::fs::read_to_string(score_jsonl).expect("score file");
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line).expect("json line");
        let id = v["id"].as_str().expect("id");
        let session: u32 = id
            .rsplit('_')
            .next()
            .and_then(|n| n.parse().ok())
            .expect("n");
        for (t, r) in v["results"].as_array().expect("results").iter().enumerate() {
            out.push(((session, t as u32), r["label"] == "correct"));
        }
    }
    out.sort();
    out
}

/// Exact two-sided binomial test, in integers: 2 · Σ_{i ≤ min} C(n, i) / 2^n, capped at 1.
fn exact_p(b: u64, c: u64) -> f64 {
    let n = b + c;
    let k = b.min(c);
    assert!(n < 120, "test helper is for small n");
    let mut coef: u128 = 1;
    let mut sum: u128 = 1;
    for i in 0..k {
        coef = coef * u128::from(n - i) / u128::from(i + 1);
        sum += coef;
    }
    ((2 * sum) as f64 / 2f64.powi(n as i32)).min(1.0)
}

fn run_ok(cmd: &mut Command) -> String {
    let out = cmd.output().expect("runs");
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn read_json(p: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(p).expect("file")).expect("json")
}

#[test]
fn official_runs_compare_to_independently_recomputed_counts() {
    let out = tmp("official");
    let a = path("tests/fixtures/official-runs/mock-seed-0/mini_result.jsonl");
    let b = path("tests/fixtures/official-runs/mock-seed-5/mini_result.jsonl");
    let stdout = run_ok(
        bin()
            .arg("compare")
            .arg(&a)
            .arg(&b)
            .arg("--dataset")
            .arg(path("tests/fixtures/mini.jsonl"))
            .arg("--out")
            .arg(&out)
            .args(["--label", "seed 0", "--label", "seed 5"]),
    );
    assert!(stdout.contains("seed 0 vs seed 5"), "{stdout}");
    // Independent: the official scorer's own score files.
    let va = verdicts(&path(
        "tests/fixtures/official-runs/mock-seed-0/mini_score.jsonl",
    ));
    let vb = verdicts(&path(
        "tests/fixtures/official-runs/mock-seed-5/mini_score.jsonl",
    ));
    assert_eq!(va.len(), vb.len());
    let (mut both, mut a_only, mut b_only, mut neither) = (0u64, 0u64, 0u64, 0u64);
    for ((ka, x), (kb, y)) in va.iter().zip(&vb) {
        assert_eq!(ka, kb);
        match (x, y) {
            (true, true) => both += 1,
            (true, false) => a_only += 1,
            (false, true) => b_only += 1,
            (false, false) => neither += 1,
        }
    }
    assert!(a_only + b_only > 0, "the fixtures differ somewhere");
    let doc = read_json(&out.join("compare.json"));
    let p = &doc["pairs"][0];
    assert_eq!(p["a"], "seed 0");
    assert_eq!(p["b"], "seed 5");
    assert_eq!(p["tasks"], va.len() as u64);
    assert_eq!(p["both_correct"], both);
    assert_eq!(p["a_only"], a_only);
    assert_eq!(p["b_only"], b_only);
    assert_eq!(p["neither"], neither);
    let pv = p["mcnemar_p"].as_f64().expect("p");
    assert!((pv - exact_p(a_only, b_only)).abs() < 1e-12, "{pv}");
    let n = va.len() as f64;
    let delta = (both + a_only) as f64 / n - (both + b_only) as f64 / n;
    let est = p["task_accuracy_delta"]["estimate"]
        .as_f64()
        .expect("estimate");
    assert!((est - delta).abs() < 1e-12);
    let lo = p["task_accuracy_delta"]["ci95"]["lo"].as_f64().expect("lo");
    let hi = p["task_accuracy_delta"]["ci95"]["hi"].as_f64().expect("hi");
    assert!(lo <= est && est <= hi);
    assert!(p["session_accuracy_delta"]["estimate"].is_number());
    let html = std::fs::read_to_string(out.join("compare.html")).expect("html");
    assert!(html.contains("<svg") && !html.contains("<script"));
}

#[test]
fn run_directories_and_trial_directories() {
    let dir = tmp("runs");
    let dataset = path("tests/fixtures/mini.jsonl");
    for agent in ["gold", "baseline"] {
        run_ok(
            bin()
                .args(["run", "--provider", agent, "--dataset"])
                .arg(&dataset)
                .arg("--out")
                .arg(dir.join(agent)),
        );
    }
    let out = dir.join("cmp");
    run_ok(
        bin()
            .arg("compare")
            .arg(dir.join("gold"))
            .arg(dir.join("baseline"))
            .arg("--dataset")
            .arg(&dataset)
            .arg("--out")
            .arg(&out),
    );
    let doc = read_json(&out.join("compare.json"));
    let p = &doc["pairs"][0];
    let gold = verdicts(&dir.join("gold/score.jsonl"));
    let base = verdicts(&dir.join("baseline/score.jsonl"));
    assert!(
        gold.iter().all(|(_, ok)| *ok),
        "the gold agent passes everything"
    );
    let base_ok = base.iter().filter(|(_, ok)| *ok).count() as u64;
    assert_eq!(p["both_correct"], base_ok);
    assert_eq!(p["a_only"], gold.len() as u64 - base_ok);
    assert_eq!(p["b_only"], 0);
    assert_eq!(p["neither"], 0);
    assert_eq!(doc["runs"][0]["label"], "gold");
    assert_eq!(doc["runs"][0]["status"], "done");

    // A trials directory: the two official mock runs as trials 1 and 2.
    let trials = dir.join("mock-trials");
    for (t, seed) in [(1, 0), (2, 5)] {
        let d = trials.join(format!("trial-{t}"));
        std::fs::create_dir_all(&d).expect("dir");
        std::fs::copy(
            path(&format!(
                "tests/fixtures/official-runs/mock-seed-{seed}/mini_result.jsonl"
            )),
            d.join("result.jsonl"),
        )
        .expect("copy");
    }
    let out = dir.join("cmp-trials");
    run_ok(
        bin()
            .arg("compare")
            .arg(&trials)
            .arg(dir.join("gold"))
            .arg("--dataset")
            .arg(&dataset)
            .arg("--out")
            .arg(&out),
    );
    let doc = read_json(&out.join("compare.json"));
    assert_eq!(doc["runs"][0]["trials"], 2);
    let p = &doc["pairs"][0];
    let v0 = verdicts(&path(
        "tests/fixtures/official-runs/mock-seed-0/mini_score.jsonl",
    ));
    let v5 = verdicts(&path(
        "tests/fixtures/official-runs/mock-seed-5/mini_score.jsonl",
    ));
    // Against gold (rate 1 everywhere): tasks passed in both trials tie at 1, the rest
    // are better in gold.
    let both_trials = v0.iter().zip(&v5).filter(|(x, y)| x.1 && y.1).count() as u64;
    assert_eq!(p["both_correct"], both_trials);
    assert_eq!(p["b_only"], v0.len() as u64 - both_trials);
    let mean_rate: f64 = v0
        .iter()
        .zip(&v5)
        .map(|(x, y)| (u8::from(x.1) + u8::from(y.1)) as f64 / 2.0)
        .sum::<f64>()
        / v0.len() as f64;
    let a_acc = p["task_accuracy"]["a"].as_f64().expect("a");
    assert!((a_acc - mean_rate).abs() < 1e-12, "{a_acc} vs {mean_rate}");
}

#[test]
fn refuses_other_datasets_and_bad_inputs_with_exit_2() {
    let dir = tmp("refuse");
    run_ok(
        bin()
            .args(["run", "--provider", "gold", "--dataset"])
            .arg(path("tests/fixtures/mini.jsonl"))
            .arg("--out")
            .arg(dir.join("gold")),
    );
    let out = bin()
        .arg("compare")
        .arg(dir.join("gold"))
        .arg(dir.join("gold"))
        .arg("--dataset")
        .arg(path("data/suite.jsonl"))
        .arg("--out")
        .arg(dir.join("x"))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("different dataset") && err.contains("fingerprint"),
        "{err}"
    );
    assert!(!dir.join("x/compare.json").exists());

    let out = bin()
        .arg("compare")
        .arg(dir.join("gold"))
        .arg(dir.join("nothing-here"))
        .arg("--dataset")
        .arg(path("tests/fixtures/mini.jsonl"))
        .arg("--out")
        .arg(dir.join("y"))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no such file"));

    // Hostile labels are escaped in the HTML.
    let evil = "<img src=x onerror=alert(1)>";
    run_ok(
        bin()
            .arg("compare")
            .arg(dir.join("gold"))
            .arg(path(
                "tests/fixtures/official-runs/mock-seed-0/mini_result.jsonl",
            ))
            .arg("--dataset")
            .arg(path("tests/fixtures/mini.jsonl"))
            .arg("--out")
            .arg(dir.join("z"))
            .args(["--label", evil]),
    );
    let html = std::fs::read_to_string(dir.join("z/compare.html")).expect("html");
    assert!(!html.contains("<img"), "label must be escaped");
    assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;"));
}
