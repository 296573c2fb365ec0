//! One counting rule: the report is the only place outcomes are counted; every rate is
//! over scored tasks; a cancelled run reads the same for its author and for the
//! recipient of its share link; charts, the comparison row and the headline read the
//! report; report.json round-trips.

use wildtool_core::chart::{dashboard, format_percent, table, Headline};
use wildtool_core::checker;
use wildtool_core::dataset::{fingerprint_hex, load_dataset, Lang};
use wildtool_core::formats::report_doc::{ReportDataset, ReportDoc, ReportInput};
use wildtool_core::outcome::TaskOutcome;
use wildtool_core::report::{fill_outcomes, RunReport, RunStatus};
use wildtool_core::score::{OfficialChecker, ScoreOptions, Scorer};
use wildtool_core::share::{decode, encode, task_shapes, ShareHeader, SharedRun};

use crate::support::read_fixture;

/// The mini run as a cancelled page run sees it: only the first `sessions` sessions
/// completed and were scored.
fn cancelled_run(sessions: usize) -> (Vec<TaskOutcome>, Vec<TaskOutcome>, String) {
    let text = read_fixture("mini.jsonl");
    let loaded = load_dataset(&text, Lang::En);
    let seg = checker::default_segmenter();
    let check = OfficialChecker::new(seg.as_ref());
    let mut scorer = Scorer::new(&loaded, &check, ScoreOptions::default());
    let mut scored = Vec::new();
    for (i, line) in read_fixture("official-runs/mock-seed-0/mini_result.jsonl")
        .lines()
        .take(sessions)
        .enumerate()
    {
        scored.extend(scorer.score_line(i + 1, line).expect("scores").outcomes);
    }
    let filled = fill_outcomes(&task_shapes(&loaded), &scored);
    (scored, filled, fingerprint_hex(&text))
}

#[test]
fn a_partial_run_counts_scored_tasks_only() {
    let (scored, filled, _) = cancelled_run(3);
    assert_eq!(filled.len(), 32);
    let unscored = filled.iter().filter(|o| o.incomplete).count() as u64;
    let report = RunReport::from_outcomes(&filled);
    assert_eq!(report.status, RunStatus::Partial);
    assert_eq!(report.tasks_total, 32);
    assert_eq!(report.tasks_scored, scored.len() as u64);
    assert_eq!(report.tasks_unscored, unscored);
    assert_eq!(report.tasks_scored + report.tasks_unscored, 32);
    let correct = scored.iter().filter(|o| o.correct).count() as u64;
    assert_eq!(report.task_accuracy.correct, correct);
    assert_eq!(report.task_accuracy.total, scored.len() as u64);
    assert_eq!(report.sessions, 3);
    // Every breakdown's denominators add up to the scored tasks, never to 32.
    let by_position: u64 = report.by_position.values().map(|r| r.total).sum();
    assert_eq!(by_position, scored.len() as u64);
    // The author's list of scored outcomes alone gives the same rates.
    let author = RunReport::from_outcomes(&scored);
    assert_eq!(author.task_accuracy, report.task_accuracy);
    assert_eq!(author.session_accuracy, report.session_accuracy);
    assert_eq!(author.by_type, report.by_type);
    assert_eq!(author.status, RunStatus::Done);
}

#[test]
fn the_link_recipient_sees_the_authors_report() {
    let (_, filled, fp) = cancelled_run(5);
    let text = read_fixture("mini.jsonl");
    let shapes = task_shapes(&load_dataset(&text, Lang::En));
    let author = RunReport::from_outcomes(&filled);
    let run = SharedRun {
        header: ShareHeader {
            scorer_version: wildtool_core::SCORER_VERSION.to_owned(),
            model_label: "mock".to_owned(),
            dataset_fingerprint: u64::from_str_radix(&fp, 16).expect("hex"),
            task_count: shapes.len() as u32,
        },
        outcomes: filled.clone(),
    };
    let link = encode(&run, &shapes).expect("encodes");
    // Decoded on another machine: the same dataset loaded from its own text.
    let other_shapes = task_shapes(&load_dataset(&text, Lang::En));
    let decoded = decode(&link, run.header.dataset_fingerprint, &other_shapes).expect("decodes");
    let recipient = RunReport::from_outcomes(&decoded.outcomes);
    assert_eq!(recipient, author);
    assert_eq!(Headline::of(&recipient), Headline::of(&author));
    let h = Headline::of(&author);
    assert_eq!(h.status, RunStatus::Partial);
    assert_eq!(
        h.scored,
        format!("{} of 32 tasks scored", author.tasks_scored)
    );
    assert_eq!(
        h.task_accuracy.as_deref(),
        Some(format_percent(author.task_accuracy.rate).as_str())
    );
}

#[test]
fn charts_and_comparison_rows_read_the_report() {
    let (_, filled, _) = cancelled_run(4);
    let report = RunReport::from_outcomes(&filled);
    let by_type = table(&dashboard::accuracy_by_type("run", &report));
    for row in &by_type.rows {
        let rate = report.by_type.get(&row[0]).expect("type in the report");
        let shown = if rate.total == 0 {
            "—".to_owned()
        } else {
            format_percent(rate.rate)
        };
        assert_eq!(row[1], shown, "{}", row[0]);
    }
    let row = dashboard::summarize("run", &report);
    assert_eq!(row.values[0], Some(report.task_accuracy.rate));
    assert_eq!(row.values[1], Some(report.session_accuracy.rate));
    let shares = dashboard::error_shares(&report).expect("failures");
    assert!((shares.iter().sum::<f64>() - 1.0).abs() < 1e-9);
}

#[test]
fn a_run_with_nothing_scored_is_failed_and_shows_no_rate() {
    let (_, filled, _) = cancelled_run(0);
    let report = RunReport::from_outcomes(&filled);
    assert_eq!(report.status, RunStatus::Failed);
    let h = Headline::of(&report);
    assert_eq!((h.task_accuracy, h.session_accuracy), (None, None));
    assert_eq!(dashboard::summarize("x", &report).values[0], None);
}

#[test]
fn report_json_round_trips_and_reads_version_one() {
    let (_, filled, fp) = cancelled_run(6);
    let doc = ReportDoc::build(ReportInput {
        model_name: "mock-seed-0",
        dataset: ReportDataset {
            file: Some("mini.jsonl".to_owned()),
            fingerprint: fp,
            sessions: 8,
            problems: 0,
        },
        tasks: filled,
        scoring: Default::default(),
        run: None,
        forced: None,
    });
    let text = doc.to_json();
    assert!(text.starts_with("{\n  \"wildtool_report\": 2,"));
    let back = ReportDoc::parse(text.as_bytes()).expect("reads");
    assert_eq!(back, doc);
    // The serde derive reads it too (floats to serde_json's parsing precision).
    let direct: ReportDoc = serde_json::from_str(&text).expect("serde");
    assert_eq!(direct.tasks, doc.tasks);
    assert_eq!(direct.status, doc.status);
    assert_eq!(
        direct.report.task_accuracy.correct,
        doc.report.task_accuracy.correct
    );
    assert_eq!(direct.report.tasks_total, 32);

    // A version-1 document (no marker, no status or counts, scored tasks only).
    let mut v1: serde_json::Value = serde_json::from_str(&text).expect("json");
    let obj = v1.as_object_mut().expect("object");
    for k in [
        "wildtool_report",
        "status",
        "tasks_scored",
        "tasks_total",
        "tasks_unscored",
        "forced",
        "run",
    ] {
        obj.remove(k);
    }
    let tasks: Vec<serde_json::Value> = obj["tasks"]
        .as_array()
        .expect("tasks")
        .iter()
        .filter(|t| t["incomplete"] == false)
        .cloned()
        .collect();
    obj.insert("tasks".to_owned(), serde_json::Value::Array(tasks));
    obj.insert("report".to_owned(), serde_json::json!({"tasks": 24}));
    let old = ReportDoc::parse(v1.to_string().as_bytes()).expect("reads version 1");
    assert_eq!(old.wildtool_report, 1);
    assert_eq!(old.status, RunStatus::Done);
    assert_eq!(old.report.task_accuracy, doc.report.task_accuracy);

    let e = ReportDoc::parse(b"{\"tasks\": [{\"session\": \"x\"}]}").unwrap_err();
    assert!(e.to_string().contains("field \"tasks[0]\""), "{e}");
}
