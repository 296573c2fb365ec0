//! File detection and uploads against real files: the fixtures, the bundled suite, a
//! checkpoint and run exports made from the mini run.

use wildtool_core::checker;
use wildtool_core::dataset::{fingerprint_hex, load_dataset, Lang};
use wildtool_core::formats::upload::{checkpoint_results, run_export_results};
use wildtool_core::formats::{check_belongs, sniff, FileKind, RunExport, RunMeta};
use wildtool_core::runner::checkpoint::{CheckpointFile, CheckpointHeader};
use wildtool_core::score::{OfficialChecker, ScoreOptions, Scorer};

use crate::support::bytes;

fn kind_of(b: &[u8]) -> FileKind {
    sniff(&b[..b.len().min(65_536)], b.len() as u64)
}

fn checkpoint_text(fp: &str) -> String {
    let text = String::from_utf8(bytes(
        "tests/fixtures/official-runs/mock-seed-5/mini_result.jsonl",
    ))
    .expect("utf8");
    let mut out = CheckpointHeader::new("mock-seed-5", fp).to_line() + "\n";
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("line");
        let id = v["id"].as_str().unwrap_or_default();
        let index: usize = id
            .rsplit('_')
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        for (task, result) in v["result"].as_array().into_iter().flatten().enumerate() {
            out.push_str(
                &serde_json::json!({"id": id, "line": index, "task": task, "result": result})
                    .to_string(),
            );
            out.push('\n');
        }
    }
    out
}

#[test]
fn real_files_are_recognised() {
    let result = bytes("tests/fixtures/official-runs/mock-seed-0/mini_result.jsonl");
    assert_eq!(kind_of(&result), FileKind::Results);
    let mut bom = b"\xEF\xBB\xBF".to_vec();
    bom.extend_from_slice(&result);
    assert_eq!(kind_of(&bom), FileKind::Results);
    assert_eq!(
        kind_of(&bytes("tests/fixtures/mini.jsonl")),
        FileKind::Dataset
    );
    assert_eq!(kind_of(&bytes("data/suite.jsonl")), FileKind::Dataset);
    assert_eq!(
        kind_of(&bytes(
            "tests/fixtures/official-runs/mock-seed-0/mini_score.jsonl"
        )),
        FileKind::ScoreFile
    );
    assert_eq!(
        kind_of(&bytes(
            "tests/fixtures/official-runs/mock-seed-0/mini_metric.json"
        )),
        FileKind::Metric
    );
    assert_eq!(
        kind_of(checkpoint_text("00").as_bytes()),
        FileKind::Checkpoint
    );
    let export = RunExport::new(RunMeta::new("l", "m", "00"), Default::default()).to_json();
    assert_eq!(
        kind_of(export.as_bytes()),
        FileKind::RunExport { version: 2 }
    );
    let pretty =
        serde_json::to_string_pretty(&serde_json::json!({"wildtool_run": 1, "model": "m"}))
            .expect("json");
    assert_eq!(
        kind_of(pretty.as_bytes()),
        FileKind::RunExport { version: 1 }
    );
    assert_eq!(kind_of(b""), FileKind::Empty);
    assert_eq!(kind_of(b"a,b\n1,2\n"), FileKind::Csv);
    assert_eq!(kind_of(&[0x00, 0x01, 0xFF, 0x10]), FileKind::Binary);
    assert!(matches!(
        kind_of(b"lorem ipsum dolor\n"),
        FileKind::Other { .. }
    ));
    for k in [
        FileKind::Empty,
        FileKind::Csv,
        FileKind::Dataset,
        FileKind::Binary,
    ] {
        assert!(!k.is_scorable());
    }
}

#[test]
fn a_checkpoint_upload_scores_like_its_results() {
    let dataset = String::from_utf8(bytes("tests/fixtures/mini.jsonl")).expect("utf8");
    let fp = fingerprint_hex(&dataset);
    let loaded = load_dataset(&dataset, Lang::En);
    let file = CheckpointFile::parse(checkpoint_text(&fp).as_bytes()).expect("reads");
    assert_eq!(file.records.len(), 32);
    let assembled = checkpoint_results(&file, &loaded, &fp).expect("same dataset");
    assert_eq!(assembled.sessions, 8);
    let seg = checker::default_segmenter();
    let check = OfficialChecker::new(seg.as_ref());
    let mut scorer = Scorer::new(&loaded, &check, ScoreOptions::default());
    for (i, line) in assembled.text.lines().enumerate() {
        scorer.score_line(i + 1, line).expect("scores");
    }
    assert_eq!(
        scorer.metric_json("mock-seed-5").into_bytes(),
        bytes("tests/fixtures/official-runs/mock-seed-5/mini_metric.json")
    );
    assert!(check_belongs(&scorer.final_stats()).is_ok());
    // Another dataset's checkpoint is refused by fingerprint.
    assert!(checkpoint_results(&file, &loaded, "0123456789abcdef")
        .unwrap_err()
        .to_string()
        .contains("another dataset"));
}

#[test]
fn a_run_export_upload_is_checked_field_by_field() {
    let dataset = String::from_utf8(bytes("tests/fixtures/mini.jsonl")).expect("utf8");
    let fp = fingerprint_hex(&dataset);
    let loaded = load_dataset(&dataset, Lang::En);
    let records: Vec<String> = checkpoint_text(&fp)
        .lines()
        .skip(1)
        .map(str::to_owned)
        .collect();
    let mut doc = RunExport::new(RunMeta::new("mock", "mock-seed-5", &fp), Default::default());
    doc.records = Some(records);
    let back = RunExport::parse(doc.to_json().as_bytes()).expect("reads");
    let text = run_export_results(&back, &loaded, &fp).expect("results");
    assert_eq!(text.lines().count(), 8);
    // A model name that is not a string is named, not trapped.
    let mut v: serde_json::Value = serde_json::from_str(&doc.to_json()).expect("json");
    v["meta"]["model"] = serde_json::json!({"x": 1});
    let e = RunExport::parse(v.to_string().as_bytes())
        .unwrap_err()
        .to_string();
    assert!(e.contains("field \"meta.model\""), "{e}");
}
