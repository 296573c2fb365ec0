//! The Verify drop zone: files dropped one after another are verified by the lab module
//! against the loaded dataset, and the page shows the claims as the core's verification
//! (the lines `wildtool verify` prints; `tests/it/verify_page.rs` checks those against
//! the command) gives them; a changed claimed number shows its ✗.

use super::*;

const RESULT: &str =
    include_str!("../../../../tests/fixtures/official-runs/mock-seed-0/mini_result.jsonl");
const METRIC: &str =
    include_str!("../../../../tests/fixtures/official-runs/mock-seed-0/mini_metric.json");

fn expected(metric: &str) -> Vec<String> {
    let input = wildtool_contract::inputs::VerifyInput {
        files: vec![
            ("mini_result.jsonl".into(), RESULT.into()),
            ("mini_metric.json".into(), metric.into()),
        ]
        .into(),
        dataset: Some(MINI.into()),
        lang: "en".into(),
    };
    wildtool_lab::verify::verdicts(&input)
        .unwrap()
        .lines()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn dropped_files_are_verified_against_the_loaded_dataset() {
    let mut b = open("http://page/?dataset=mini.jsonl");
    b.act("nav", "offline", "");
    b.drop_file("verify-file", "mini_result.jsonl", RESULT.as_bytes());
    assert!(b.text("verify-result").contains("mini_result.jsonl"));
    b.drop_file("verify-file", "mini_metric.json", METRIC.as_bytes());
    let shown = verify_claims(&b);
    assert_eq!(shown, expected(METRIC));
    assert!(shown.iter().all(|c| c.starts_with('✓')), "{shown:?}");
    assert!(b.text("verify-verdict").starts_with("Every claim holds"));
    // The same file dropped again, with one claimed number changed, replaces it.
    let changed = METRIC.replacen("\"correct_count\": ", "\"correct_count\": 1", 1);
    b.drop_file("verify-file", "mini_metric.json", changed.as_bytes());
    let shown = verify_claims(&b);
    assert_eq!(shown, expected(&changed));
    assert!(shown.iter().any(|c| c.starts_with('✗')), "{shown:?}");
    b.act("verify-clear", "", "");
    assert!(verify_claims(&b).is_empty());
}
