//! `wildtool generate` end to end: the file it writes validates with `--semantic`, the gold
//! agent run through `wildtool run` scores 100 %/100 %, `wildtool stats` prints the
//! generated suite's factor card and the same fingerprint `generate` reported, every pack
//! file under `data/packs/` is compiled in, the output is the same on a second run, and
//! bad options exit with 2.

use crate::support::{tmp, wildtool};
use std::path::Path;
use std::process::Output;

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn generate(out: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "generate",
        "--seed",
        "11",
        "--sessions",
        "40",
        "--out",
        out.to_str().unwrap_or(""),
    ];
    args.extend_from_slice(extra);
    wildtool(&args)
}

fn accuracy(metric: &str, level: &str) -> Option<f64> {
    let v = wildtool_core::json::loads(metric).ok()?;
    let a = v.get("total_info")?.get(level)?.get("accuracy")?;
    match a {
        wildtool_core::json::Value::Float(f) => Some(*f),
        other => other.as_i64().map(|i| i as f64),
    }
}

#[test]
fn generated_file_validates_scores_and_has_a_data_card() {
    let dir = tmp("e2e");
    let file = dir.join("suite.jsonl");
    let o = generate(&file, &["--transitions", "2", "--distractors", "1"]);
    assert!(o.status.success(), "{}", text(&o));
    let fp_line = text(&o);
    let fingerprint = fp_line
        .split("fingerprint ")
        .nth(1)
        .map(|s| s.trim().to_owned())
        .expect("generate reports the fingerprint");

    let v = wildtool(&["validate", "--semantic", file.to_str().unwrap_or("")]);
    assert!(v.status.success(), "{}", text(&v));
    assert!(text(&v).contains("valid (0 warning(s))"), "{}", text(&v));

    let s = wildtool(&["stats", file.to_str().unwrap_or("")]);
    let stats = text(&s);
    assert!(s.status.success(), "{stats}");
    assert!(stats.contains("generated suite"), "{stats}");
    assert!(
        stats.contains("seed=11,transitions=2,distractors=1"),
        "{stats}"
    );
    assert!(
        stats.contains(&format!("fingerprint                 {fingerprint}")),
        "{stats}"
    );
    let transitions_row = stats
        .lines()
        .skip_while(|l| !l.starts_with("instruction transitions"))
        .find(|l| l.starts_with('2'))
        .unwrap_or("");
    assert!(transitions_row.contains("40  100.0%"), "{transitions_row}");

    let out = dir.join("gold");
    let r = wildtool(&[
        "run",
        "--dataset",
        file.to_str().unwrap_or(""),
        "--provider",
        "gold",
        "--out",
        out.to_str().unwrap_or(""),
    ]);
    assert!(r.status.success(), "{}", text(&r));
    let metric = std::fs::read_to_string(out.join("metric.json")).unwrap_or_default();
    assert_eq!(accuracy(&metric, "task"), Some(1.0), "{metric}");
    assert_eq!(accuracy(&metric, "session"), Some(1.0), "{metric}");

    // Deterministic through the binary too.
    let again = dir.join("again.jsonl");
    assert!(
        generate(&again, &["--transitions", "2", "--distractors", "1"])
            .status
            .success()
    );
    assert_eq!(std::fs::read(&file).ok(), std::fs::read(&again).ok());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_pack_file_is_compiled_in() {
    let mut names: Vec<String> = std::fs::read_dir(crate::support::path("data/packs"))
        .expect("data/packs")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    // The list the page fetches (and the CLI's compiled-in list, by its unit test).
    assert_eq!(names, wildtool_core::generate::pack::PACK_FILES);
    let packs = names.len();
    let dir = tmp("domains");
    let file = dir.join("suite.jsonl");
    // 300 sessions reach every domain; each domain row of `stats` names one pack.
    let o = wildtool(&[
        "generate",
        "--seed",
        "2",
        "--sessions",
        "300",
        "--out",
        file.to_str().unwrap_or(""),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let stats = text(&wildtool(&["stats", file.to_str().unwrap_or("")]));
    let domains = stats
        .lines()
        .skip_while(|l| !l.starts_with("domain "))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .count();
    assert_eq!(domains + 1, packs, "{stats}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_options_exit_with_2() {
    let dir = tmp("bad");
    let file = dir.join("x.jsonl");
    for extra in [
        &["--width", "9"][..],
        &["--types", "chat,chat"],
        &["--domains", "atlantis"],
        &["--missing", "colour"],
    ] {
        let o = generate(&file, extra);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {}", text(&o));
        assert!(!file.exists());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
