//! Golden parity: scoring the official runs' result files against `mini.jsonl` reproduces
//! the official `mini_score.jsonl` and `mini_metric.json` byte for byte (PROTOCOL §4).

use std::path::PathBuf;

use wildtool::checker;
use wildtool::dataset::{load_dataset, Lang};
use wildtool::json::Value;
use wildtool::score::{ScoreOptions, Scorer};

fn fixture(path: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(path);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn score_run(run: &str) -> (String, String, wildtool::score::ScoreStats) {
    let loaded = load_dataset(&fixture("mini.jsonl"), Lang::En);
    assert!(loaded.is_valid(), "{:?}", loaded.problems);
    let seg = checker::default_segmenter();
    let check = |t: &Value, n: &str, p: &Value, g: &str| checker::check(t, n, p, g, seg.as_ref());
    let mut scorer = Scorer::new(&loaded, &check, ScoreOptions::default());
    let results = fixture(&format!("official-runs/{run}/mini_result.jsonl"));
    let mut lines: Vec<(usize, String)> = Vec::new();
    for (i, line) in results.lines().enumerate() {
        let scored = scorer.score_line(i + 1, line).expect("line scores");
        lines.push((scored.index, scored.score_line));
    }
    lines.sort_by_key(|l| l.0);
    let score = lines.into_iter().map(|l| l.1).collect::<Vec<_>>().join("\n");
    let metric = scorer.metric_json(scorer.model_name().unwrap_or("?"));
    (score, metric, scorer.stats().clone())
}

fn assert_same(kind: &str, got: &str, want: &str) {
    if got != want {
        for (i, (g, w)) in got.lines().zip(want.lines()).enumerate() {
            if g != w {
                let at = g.bytes().zip(w.bytes()).position(|(a, b)| a != b).unwrap_or(g.len().min(w.len()));
                let lo = at.saturating_sub(150);
                panic!(
                    "{kind}: line {} differs at byte {at}\n got: …{}\nwant: …{}",
                    i + 1,
                    &g[lo..(at + 150).min(g.len())],
                    &w[lo..(at + 150).min(w.len())]
                );
            }
        }
        panic!("{kind}: differs in line count or trailing bytes ({} vs {} bytes)", got.len(), want.len());
    }
}

#[test]
fn mock_seed_0_reproduces_official_score_and_metric() {
    let (score, metric, stats) = score_run("mock-seed-0");
    assert_same("score.jsonl", &score, &fixture("official-runs/mock-seed-0/mini_score.jsonl"));
    assert_same("metric.json", &metric, &fixture("official-runs/mock-seed-0/mini_metric.json"));
    assert_eq!(stats.label_disagreements, 0, "recorded labels are official: {stats:?}");
}

#[test]
fn mock_seed_5_reproduces_official_score_and_metric() {
    let (score, metric, stats) = score_run("mock-seed-5");
    assert_same("score.jsonl", &score, &fixture("official-runs/mock-seed-5/mini_score.jsonl"));
    assert_same("metric.json", &metric, &fixture("official-runs/mock-seed-5/mini_metric.json"));
    assert_eq!(stats.label_disagreements, 0, "recorded labels are official: {stats:?}");
}
