//! Built-in agents through `wildtool run`: gold scores 100 %, replay reproduces the
//! official metric of the run it replays, baseline is deterministic and non-trivial, and
//! resume after a kill (checkpoint cut mid-line) gives the same result file.

use crate::support::{root, tmp, wildtool};
use std::path::Path;

fn run_agent(dataset: &Path, provider: &str, out: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "run",
        "--dataset",
        dataset.to_str().unwrap_or(""),
        "--provider",
        provider,
        "--out",
        out.to_str().unwrap_or(""),
    ];
    args.extend_from_slice(extra);
    let o = wildtool(&args);
    assert!(
        o.status.success(),
        "{provider}: {}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

fn metric(out: &Path) -> wildtool_core::json::Value {
    let text = std::fs::read_to_string(out.join("metric.json")).unwrap_or_default();
    wildtool_core::json::loads(&text).unwrap_or(wildtool_core::json::Value::Null)
}

fn accuracy(m: &wildtool_core::json::Value, level: &str) -> Option<f64> {
    match m.get("total_info")?.get(level)?.get("accuracy")? {
        wildtool_core::json::Value::Float(f) => Some(*f),
        wildtool_core::json::Value::Int(_) => m
            .get("total_info")?
            .get(level)?
            .get("accuracy")?
            .as_i64()
            .map(|i| i as f64),
        _ => None,
    }
}

#[test]
fn gold_scores_everything_on_mini_and_the_suite() {
    let mut datasets = vec![root().join("tests/fixtures/mini.jsonl")];
    let suite = root().join("data/suite.jsonl");
    if suite.exists() {
        datasets.push(suite);
    }
    for (i, ds) in datasets.iter().enumerate() {
        let out = tmp(&format!("gold{i}"));
        run_agent(ds, "gold", &out, &[]);
        let m = metric(&out);
        assert_eq!(accuracy(&m, "task"), Some(1.0), "{}: {m:?}", ds.display());
        assert_eq!(accuracy(&m, "session"), Some(1.0), "{}", ds.display());
        let _ = std::fs::remove_dir_all(&out);
    }
}

#[test]
fn replay_reproduces_the_official_metric_byte_for_byte() {
    let mini = root().join("tests/fixtures/mini.jsonl");
    for run in ["mock-seed-0", "mock-seed-5"] {
        let dir = root().join("tests/fixtures/official-runs").join(run);
        let out = tmp(&format!("replay-{run}"));
        let file = dir.join("mini_result.jsonl");
        run_agent(
            &mini,
            "replay",
            &out,
            &["--model", run, "--replay-file", file.to_str().unwrap_or("")],
        );
        let got = std::fs::read_to_string(out.join("metric.json")).unwrap_or_default();
        let want = std::fs::read_to_string(dir.join("mini_metric.json")).unwrap_or_default();
        assert_eq!(got, want, "{run}");
        let _ = std::fs::remove_dir_all(&out);
    }
}

#[test]
fn baseline_is_deterministic_and_non_trivial() {
    let mini = root().join("tests/fixtures/mini.jsonl");
    let a = tmp("baseline-a");
    let b = tmp("baseline-b");
    run_agent(&mini, "baseline", &a, &["--concurrency", "3"]);
    run_agent(&mini, "baseline", &b, &["--concurrency", "1"]);
    let ra = std::fs::read_to_string(a.join("result.jsonl")).unwrap_or_default();
    assert_eq!(
        ra,
        std::fs::read_to_string(b.join("result.jsonl")).unwrap_or_default()
    );
    let acc = accuracy(&metric(&a), "task").unwrap_or(-1.0);
    assert!(acc > 0.0 && acc < 1.0, "baseline task accuracy {acc}");
    let _ = std::fs::remove_dir_all(&a);
    let _ = std::fs::remove_dir_all(&b);
}

#[test]
fn resume_after_a_kill_loses_nothing_and_gives_the_same_result() {
    let mini = root().join("tests/fixtures/mini.jsonl");
    let out = tmp("resume");
    run_agent(&mini, "gold", &out, &[]);
    let full = std::fs::read_to_string(out.join("result.jsonl")).unwrap_or_default();
    let ckpt = out.join("checkpoint.jsonl");
    let text = std::fs::read_to_string(&ckpt).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 33, "header + 32 tasks");
    // Keep the header and 10 tasks, then half of the 11th line (killed mid-write).
    let mut cut = lines[..11].join("\n");
    cut.push('\n');
    cut.push_str(&lines[11][..lines[11].len() / 2]);
    std::fs::write(&ckpt, cut).unwrap_or_default();
    std::fs::remove_file(out.join("result.jsonl")).unwrap_or_default();
    let o = run_agent(&mini, "gold", &out, &[]);
    let log = String::from_utf8_lossy(&o.stderr);
    assert!(log.contains("22 task(s) finished now, 10 resumed"), "{log}");
    // A built-in agent asks no model: its tokens are said as such, not as "0+0".
    assert!(
        log.contains("retr(y/ies), built-in agent: no model asked, no tokens,"),
        "{log}"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("result.jsonl")).unwrap_or_default(),
        full
    );
    let after = std::fs::read_to_string(&ckpt).unwrap_or_default();
    assert_eq!(after.lines().count(), 33);
    assert!(
        after.lines().all(|l| wildtool_core::json::loads(l).is_ok()),
        "the cut line was removed"
    );
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_checkpoint_of_another_model_is_refused() {
    let mini = root().join("tests/fixtures/mini.jsonl");
    let out = tmp("mismatch");
    run_agent(&mini, "gold", &out, &["--sessions", "0"]);
    let o = wildtool(&[
        "run",
        "--dataset",
        mini.to_str().unwrap_or(""),
        "--provider",
        "baseline",
        "--out",
        out.to_str().unwrap_or(""),
    ]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("checkpoint was written for model"));
    let _ = std::fs::remove_dir_all(&out);
}
