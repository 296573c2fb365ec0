//! Golden parity: scoring the official runs' result files against `mini.jsonl` reproduces
//! the official `mini_score.jsonl` and `mini_metric.json` byte for byte (PROTOCOL §4).

use wildtool_core::checker;
use wildtool_core::dataset::{load_dataset, Lang};
use wildtool_core::json::Value;
use wildtool_core::score::{ScoreOptions, Scorer};

use crate::support::read_fixture;

fn score_run(run: &str) -> (String, String, wildtool_core::score::ScoreStats) {
    let loaded = load_dataset(&read_fixture("mini.jsonl"), Lang::En);
    assert!(loaded.is_valid(), "{:?}", loaded.problems);
    let seg = checker::default_segmenter();
    let check = |t: &Value, n: &str, p: &Value, g: &str| checker::check(t, n, p, g, seg.as_ref());
    let mut scorer = Scorer::new(&loaded, &check, ScoreOptions::default());
    let results = read_fixture(&format!("official-runs/{run}/mini_result.jsonl"));
    let mut lines: Vec<(usize, String)> = Vec::new();
    for (i, line) in results.lines().enumerate() {
        let scored = scorer.score_line(i + 1, line).expect("line scores");
        lines.push((scored.index, scored.score_line));
    }
    lines.sort_by_key(|l| l.0);
    let score = lines
        .into_iter()
        .map(|l| l.1)
        .collect::<Vec<_>>()
        .join("\n");
    let metric = scorer.metric_json(scorer.model_name().unwrap_or("?"));
    (score, metric, scorer.stats().clone())
}

fn assert_same(kind: &str, got: &str, want: &str) {
    if got != want {
        for (i, (g, w)) in got.lines().zip(want.lines()).enumerate() {
            if g != w {
                let at = g
                    .bytes()
                    .zip(w.bytes())
                    .position(|(a, b)| a != b)
                    .unwrap_or(g.len().min(w.len()));
                let lo = at.saturating_sub(150);
                panic!(
                    "{kind}: line {} differs at byte {at}\n got: …{}\nwant: …{}",
                    i + 1,
                    &g[lo..(at + 150).min(g.len())],
                    &w[lo..(at + 150).min(w.len())]
                );
            }
        }
        panic!(
            "{kind}: differs in line count or trailing bytes ({} vs {} bytes)",
            got.len(),
            want.len()
        );
    }
}

#[test]
fn mock_seed_0_reproduces_official_score_and_metric() {
    let (score, metric, stats) = score_run("mock-seed-0");
    assert_same(
        "score.jsonl",
        &score,
        &read_fixture("official-runs/mock-seed-0/mini_score.jsonl"),
    );
    assert_same(
        "metric.json",
        &metric,
        &read_fixture("official-runs/mock-seed-0/mini_metric.json"),
    );
    assert_eq!(
        stats.label_disagreements, 0,
        "recorded labels are official: {stats:?}"
    );
}

#[test]
fn mock_seed_5_reproduces_official_score_and_metric() {
    let (score, metric, stats) = score_run("mock-seed-5");
    assert_same(
        "score.jsonl",
        &score,
        &read_fixture("official-runs/mock-seed-5/mini_score.jsonl"),
    );
    assert_same(
        "metric.json",
        &metric,
        &read_fixture("official-runs/mock-seed-5/mini_metric.json"),
    );
    assert_eq!(
        stats.label_disagreements, 0,
        "recorded labels are official: {stats:?}"
    );
}

/// Recorded labels are not trusted: a result file whose labels, reasons, candidates and
/// task verdicts were all overwritten still scores to the official files, and the
/// tampering is counted.
#[test]
fn labels_are_rederived_not_trusted() {
    use wildtool_core::json::{dumps, loads, Escape};
    for run in ["mock-seed-0", "mock-seed-5"] {
        let results = read_fixture(&format!("official-runs/{run}/mini_result.jsonl"));
        let mut tampered = Vec::new();
        for line in results.lines() {
            let mut v = loads(line).expect("fixture line");
            if let Some(Value::Array(tasks)) = v.as_object_mut().and_then(|o| o.get_mut("result")) {
                for t in tasks.iter_mut().filter_map(Value::as_object_mut) {
                    t.insert("action_name_label", Value::str("correct"));
                    t.insert("is_optimal", Value::Bool(true));
                    if let Some(Value::Object(log)) = t.get_mut("inference_log") {
                        for (_, step) in log.iter_mut() {
                            if let Some(step) = step.as_object_mut() {
                                step.remove("inference_answer");
                                if let Some(Value::Object(out)) = step.get_mut("inference_output") {
                                    out.insert("current_action_name_label", Value::str("correct"));
                                    out.remove("error_reason");
                                }
                            }
                        }
                    }
                }
            }
            tampered.push(dumps(&v, Escape::Utf8));
        }
        let loaded = load_dataset(&read_fixture("mini.jsonl"), Lang::En);
        let seg = checker::default_segmenter();
        let check =
            |t: &Value, n: &str, p: &Value, g: &str| checker::check(t, n, p, g, seg.as_ref());
        let mut scorer = Scorer::new(&loaded, &check, ScoreOptions::default());
        let mut lines: Vec<(usize, String)> = tampered
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let s = scorer.score_line(i + 1, l).expect("scores");
                (s.index, s.score_line)
            })
            .collect();
        lines.sort_by_key(|l| l.0);
        let score = lines
            .into_iter()
            .map(|l| l.1)
            .collect::<Vec<_>>()
            .join("\n");
        assert_same(
            "score.jsonl",
            &score,
            &read_fixture(&format!("official-runs/{run}/mini_score.jsonl")),
        );
        let metric = scorer.metric_json(scorer.model_name().unwrap_or("?"));
        assert_same(
            "metric.json",
            &metric,
            &read_fixture(&format!("official-runs/{run}/mini_metric.json")),
        );
        assert!(
            scorer.stats().label_disagreements >= 10,
            "{:?}",
            scorer.stats()
        );
    }
}

/// Result lines in any order, duplicates and error-string sessions (C2) are handled as the
/// official scorer does (or, for C2, as PROTOCOL §6 prescribes), and unreadable lines are
/// reported without losing the rest.
#[test]
fn out_of_order_duplicates_errors_and_garbage() {
    let loaded = load_dataset(&read_fixture("mini.jsonl"), Lang::En);
    let seg = checker::default_segmenter();
    let check = |t: &Value, n: &str, p: &Value, g: &str| checker::check(t, n, p, g, seg.as_ref());
    let mut scorer = Scorer::new(&loaded, &check, ScoreOptions::default());
    let results = read_fixture("official-runs/mock-seed-0/mini_result.jsonl");
    let lines: Vec<&str> = results.lines().collect();
    // Reverse order, session 3 replaced by an inference error, one garbage line.
    let mut scored = Vec::new();
    for (i, line) in lines.iter().enumerate().rev() {
        let text = if i == 3 {
            r#"{"id": "wild_tool_bench_3", "result": "Error during inference: boom"}"#.to_owned()
        } else {
            (*line).to_owned()
        };
        scored.push(scorer.score_line(i + 1, &text).expect("scores"));
    }
    let err = scorer
        .score_line(99, "{not json")
        .expect_err("garbage is an error");
    assert!(err.to_string().contains("line 99"), "{err}");
    let err = scorer
        .score_line(100, r#"{"id": "wild_tool_bench_77", "result": []}"#)
        .expect_err("unknown id");
    assert!(err.to_string().contains("77"), "{err}");
    // A duplicate is scored and counted again (P19).
    scored.push(scorer.score_line(101, lines[0]).expect("dup"));
    let stats = scorer.stats();
    assert_eq!(stats.duplicate_ids, 1);
    assert_eq!(stats.error_sessions, 1);
    assert_eq!(stats.skipped.len(), 2);
    assert_eq!(stats.official_crashes.get("C2"), Some(&1));
    let c2 = scored.iter().find(|s| s.index == 3).expect("session 3");
    assert_eq!(
        c2.score_line,
        r#"{"id": "wild_tool_bench_3", "results": "Error during inference: boom"}"#
    );
    assert!(c2.outcomes.iter().all(|o| !o.correct) && c2.outcomes.len() == 4);
    // 9 sessions counted (8 + duplicate), 36 tasks.
    let m = scorer.metrics();
    assert_eq!((m.session.total, m.task.total), (9, 36));
}
