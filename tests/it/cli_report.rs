//! `wildtool report`: a self-contained, escaped HTML report from a `score` directory.

use crate::support::{fixture, tmp, wildtool};

#[test]
fn report_from_a_score_directory_has_every_chart_and_escapes_text() {
    let dir = tmp("ok");
    let dataset = fixture("mini.jsonl");
    let results = fixture("official-runs/mock-seed-0/mini_result.jsonl");
    let evil = "<img src=x onerror=alert(1)>";
    let o = wildtool(&[
        "score",
        "--dataset",
        dataset.to_str().unwrap_or(""),
        "--results",
        results.to_str().unwrap_or(""),
        "--out",
        dir.to_str().unwrap_or(""),
        "--model-name",
        evil,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = dir.join("report.html");
    let o = wildtool(&[
        "report",
        "--dataset",
        dataset.to_str().unwrap_or(""),
        "--score-dir",
        dir.to_str().unwrap_or(""),
        "--out",
        out.to_str().unwrap_or(""),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let html = std::fs::read_to_string(&out).unwrap_or_default();
    assert!(html.starts_with("<!doctype html>"));
    for id in [
        "by-type",
        "by-position",
        "by-subtype",
        "by-transitions",
        "errors",
        "comparison",
    ] {
        assert!(
            html.contains(&format!("<figure id=\"{id}\">")),
            "missing chart {id}"
        );
    }
    assert_eq!(html.matches("<svg").count(), 6);
    assert_eq!(html.matches("<table>").count(), 6);
    // 18/32 tasks correct in this fixture (metric.json says 0.5625).
    assert!(html.contains("56.2%"), "headline task accuracy");
    assert!(html.contains("GPT-4o"), "leaderboard comparison");
    assert!(!html.contains("<img"), "unescaped model name");
    assert!(!html.contains("<script"));
    assert!(
        !html.contains(" src=\"") && !html.contains(" href=\""),
        "no external resources"
    );
    assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;"));
}

#[test]
fn report_checks_the_dataset_fingerprint_and_inputs() {
    let dir = tmp("bad");
    let dataset = fixture("mini.jsonl");
    let results = fixture("official-runs/mock-seed-5/mini_result.jsonl");
    let o = wildtool(&[
        "score",
        "--dataset",
        dataset.to_str().unwrap_or(""),
        "--results",
        results.to_str().unwrap_or(""),
        "--out",
        dir.to_str().unwrap_or(""),
    ]);
    assert!(o.status.success());
    let other = crate::support::path("data/suite.jsonl");
    let out = dir.join("r.html");
    let o = wildtool(&[
        "report",
        "--dataset",
        other.to_str().unwrap_or(""),
        "--score-dir",
        dir.to_str().unwrap_or(""),
        "--out",
        out.to_str().unwrap_or(""),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("fingerprint"));
    assert!(!out.exists());
    let o = wildtool(&[
        "report",
        "--from",
        dataset.to_str().unwrap_or(""),
        "--out",
        out.to_str().unwrap_or(""),
    ]);
    assert_eq!(o.status.code(), Some(2), "a dataset is not a report.json");
    let o = wildtool(&["report", "--out", out.to_str().unwrap_or("")]);
    assert_eq!(o.status.code(), Some(2));
}
