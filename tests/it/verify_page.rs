//! The page's Verify drop zone gives the verdicts `wildtool verify` prints: the lab
//! module's `verify_view` (what the page calls with the dropped files and the loaded
//! dataset) on a genuine run's files and on the same files with one claimed number
//! changed gives exactly the CLI's ✓/✗ lines; so does an own-history run's
//! `own-result.jsonl` and `own-report.json`.

use std::path::Path;

use crate::support::{fixture, tmp, wildtool};
use wildtool_contract::inputs::VerifyInput;

const FILES: [&str; 5] = [
    "manifest.json",
    "result.jsonl",
    "score.jsonl",
    "metric.json",
    "report.json",
];

fn page_lines(dir: &Path, dataset: &str) -> String {
    page_lines_of(dir, &FILES, dataset)
}

fn page_lines_of(dir: &Path, files: &[&str], dataset: &str) -> String {
    let input = VerifyInput {
        files: files
            .iter()
            .map(|f| {
                (
                    (*f).to_owned(),
                    std::fs::read_to_string(dir.join(f)).unwrap_or_default(),
                )
            })
            .collect::<Vec<_>>()
            .into(),
        dataset: Some(dataset.to_owned().into()),
        lang: "en".into(),
    };
    match wildtool_lab::verify::verdicts(&input) {
        Ok(v) => v.lines(),
        Err(e) => e,
    }
}

fn cli_lines(dir: &Path, dataset: &Path) -> (Option<i32>, String) {
    cli_lines_of(dir, &FILES, dataset)
}

fn cli_lines_of(dir: &Path, files: &[&str], dataset: &Path) -> (Option<i32>, String) {
    let mut args = vec!["verify".to_owned()];
    args.extend(files.iter().map(|f| dir.join(f).display().to_string()));
    args.push("--dataset".into());
    args.push(dataset.display().to_string());
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = wildtool(&argv);
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
    )
}

#[test]
fn the_page_shows_the_verdicts_wildtool_verify_prints_for_the_same_files() {
    let dir = tmp("verify-page");
    let dataset = fixture("mini.jsonl");
    let text = std::fs::read_to_string(&dataset).unwrap_or_default();
    let run = dir.join("run");
    let r = wildtool(&[
        "run",
        "--provider",
        "baseline",
        "--dataset",
        &dataset.display().to_string(),
        "--out",
        &run.display().to_string(),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let (code, cli) = cli_lines(&run, &dataset);
    assert_eq!(code, Some(0), "{cli}");
    assert!(
        cli.lines().count() >= 6 && cli.lines().all(|l| l.starts_with('✓')),
        "{cli}"
    );
    assert_eq!(page_lines(&run, &text), cli);
    // One claimed number changed: the same ✗ in both.
    let metric = std::fs::read_to_string(run.join("metric.json")).unwrap_or_default();
    let changed = metric.replacen("\"correct_count\": ", "\"correct_count\": 1", 1);
    assert_ne!(changed, metric);
    std::fs::write(run.join("metric.json"), changed).unwrap_or_default();
    let (code, cli) = cli_lines(&run, &dataset);
    assert_eq!(code, Some(1), "{cli}");
    assert!(cli.lines().any(|l| l.starts_with('✗')), "{cli}");
    assert_eq!(page_lines(&run, &text), cli);
    // Against another dataset: the dataset claim fails in both.
    let other = std::fs::read_to_string(fixture("mini.jsonl"))
        .unwrap_or_default()
        .replacen("Paris", "Lyon", 1);
    let other_path = dir.join("other.jsonl");
    std::fs::write(&other_path, &other).unwrap_or_default();
    let (_, cli) = cli_lines(&run, &other_path);
    assert!(cli.starts_with("✗ dataset"), "{cli}");
    assert_eq!(page_lines(&run, &other), cli);
}

#[test]
fn an_own_history_run_verifies_the_same_in_the_page_and_the_cli() {
    const OWN: [&str; 3] = ["manifest.json", "own-result.jsonl", "own-report.json"];
    let dir = tmp("verify-page-own");
    let dataset = fixture("mini.jsonl");
    let text = std::fs::read_to_string(&dataset).unwrap_or_default();
    let run = dir.join("run");
    let r = wildtool(&[
        "run",
        "--provider",
        "baseline",
        "--history",
        "own",
        "--dataset",
        &dataset.display().to_string(),
        "--out",
        &run.display().to_string(),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let (code, cli) = cli_lines_of(&run, &OWN, &dataset);
    assert_eq!(code, Some(0), "{cli}");
    assert!(
        cli.contains("✓ own-report.json: equals the re-scored file"),
        "{cli}"
    );
    assert_eq!(page_lines_of(&run, &OWN, &text), cli);
    // One claimed share changed: the same ✗ in both.
    let report = std::fs::read_to_string(run.join("own-report.json")).unwrap_or_default();
    let changed = report.replacen("\"tasks_scored\": ", "\"tasks_scored\": 1", 1);
    assert_ne!(changed, report);
    std::fs::write(run.join("own-report.json"), changed).unwrap_or_default();
    let (code, cli) = cli_lines_of(&run, &OWN, &dataset);
    assert_eq!(code, Some(1), "{cli}");
    assert!(cli.contains("✗ own-report.json"), "{cli}");
    assert_eq!(page_lines_of(&run, &OWN, &text), cli);
}
