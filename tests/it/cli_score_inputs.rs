//! `wildtool score` on inputs that are not clean result files of the dataset: damaged
//! bytes, a file cut short, lines over the limit, files that are not results at all,
//! another dataset's results, checkpoints and run exports. Outputs are replaced together
//! or not at all.

use crate::support::{bin, fixture, tmp};
use std::path::{Path, PathBuf};
use std::process::Output;

fn suite() -> PathBuf {
    crate::support::path("data/suite.jsonl")
}

fn official(run: &str, file: &str) -> Vec<u8> {
    std::fs::read(fixture(&format!("official-runs/{run}/mini_{file}"))).expect("fixture")
}

fn score(dataset: &Path, results: &Path, out: &Path, extra: &[&str]) -> Output {
    bin()
        .args(["score", "--dataset"])
        .arg(dataset)
        .arg("--results")
        .arg(results)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .expect("runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn outputs(dir: &Path) -> Vec<Vec<u8>> {
    ["score.jsonl", "metric.json", "report.json"]
        .iter()
        .map(|f| std::fs::read(dir.join(f)).unwrap_or_default())
        .collect()
}

fn no_temporary_files(dir: &Path) {
    let names: Vec<String> = std::fs::read_dir(dir)
        .expect("dir")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().all(|n| !n.contains(".tmp-")),
        "temporary files left: {names:?}"
    );
}

/// The byte offset of a position inside a multi-byte character of `line`.
fn inside_a_character(line: &[u8]) -> usize {
    line.iter()
        .position(|&b| b >= 0xC0)
        .map(|start| start + 1)
        .expect("the line has a multi-byte character")
}

/// A harness killed while writing Chinese text leaves a last line cut inside a character:
/// that line is skipped and named, everything else is scored, and all three outputs
/// belong to this run (the previous run's files in the same directory are replaced).
#[test]
fn a_last_line_cut_inside_a_character_costs_that_line_only() {
    let out = tmp("cut");
    let first = score(
        &fixture("mini.jsonl"),
        &fixture("official-runs/mock-seed-0/mini_result.jsonl"),
        &out,
        &[],
    );
    assert!(first.status.success(), "{}", stderr(&first));

    let mut bytes = official("mock-seed-5", "result.jsonl");
    let last = bytes
        .split(|&b| b == b'\n')
        .rfind(|l| l.iter().any(|&b| b >= 0x80))
        .expect("a line with Chinese text")
        .to_vec();
    bytes.extend_from_slice(&last[..inside_a_character(&last)]);
    let results = out.join("cut_result.jsonl");
    std::fs::write(&results, &bytes).expect("write");

    let o = score(&fixture("mini.jsonl"), &results, &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("result line 9: ends in the middle of a UTF-8 character"),
        "{err}"
    );
    let [score_jsonl, metric, report] = <[Vec<u8>; 3]>::try_from(outputs(&out)).expect("three");
    assert!(score_jsonl == official("mock-seed-5", "score.jsonl"));
    assert!(metric == official("mock-seed-5", "metric.json"));
    let report: serde_json::Value = serde_json::from_slice(&report).expect("json");
    assert_eq!(report["model_name"], "mock-seed-5");
    assert_eq!(report["scoring"]["skipped"][0]["line"], 9);
    no_temporary_files(&out);
}

/// An invalid byte inside one line costs that line, named as not UTF-8; every other
/// session scores exactly as in the official file.
#[test]
fn invalid_bytes_cost_exactly_their_line() {
    let out = tmp("invalid");
    let mut lines: Vec<Vec<u8>> = official("mock-seed-0", "result.jsonl")
        .split(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect();
    let at = lines[3]
        .windows(9)
        .position(|w| w == b"\"content\"")
        .expect("a content field")
        + 12;
    lines[3][at] = 0xFF;
    let results = out.join("bad_result.jsonl");
    std::fs::write(&results, lines.join(&b'\n')).expect("write");
    let o = score(&fixture("mini.jsonl"), &results, &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("result line 4: not valid UTF-8"), "{err}");
    assert!(!err.contains("Extra data"), "{err}");
    let ours = std::fs::read_to_string(out.join("score.jsonl")).expect("score");
    let theirs = String::from_utf8(official("mock-seed-0", "score.jsonl")).expect("utf8");
    let expected: Vec<&str> = theirs
        .lines()
        .filter(|l| !l.starts_with("{\"id\": \"wild_tool_bench_3\""))
        .collect();
    assert_eq!(ours.lines().collect::<Vec<_>>(), expected);
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).expect("report"))
            .expect("json");
    assert_eq!(report["status"], "partial");
    assert_eq!(report["tasks_total"], 32);
    assert_eq!(
        report["tasks_scored"].as_u64().unwrap_or(0)
            + report["tasks_unscored"].as_u64().unwrap_or(0),
        32
    );
    // The HTML report says the run is partial and how many tasks were scored.
    let scored = report["tasks_scored"].as_u64().unwrap_or(0);
    let html_path = out.join("report.html");
    let o = bin()
        .args(["report", "--score-dir"])
        .arg(&out)
        .arg("--out")
        .arg(&html_path)
        .output()
        .expect("runs");
    assert!(o.status.success(), "{}", stderr(&o));
    let html = std::fs::read_to_string(&html_path).expect("html");
    assert!(
        html.contains(&format!("{scored} of 32 tasks scored")),
        "{html}"
    );
    assert!(html.contains("data-status=\"partial\"") && html.contains("Partial run"));
}

/// A line over the line limit is never read into memory: it is skipped with the limit
/// named, and the other lines are scored.
#[test]
fn a_line_over_the_limit_is_skipped_and_named() {
    let out = tmp("limit");
    let limit = wildtool_core::input::limits::MAX_LINE_BYTES;
    let mut bytes = official("mock-seed-0", "result.jsonl");
    let mut huge =
        b"{\"id\": \"wild_tool_bench_0\", \"model_name\": \"m\", \"result\": \"".to_vec();
    huge.resize(limit + 16, b'a');
    huge.extend_from_slice(b"\"}\n");
    bytes.extend_from_slice(&huge);
    let results = out.join("huge_result.jsonl");
    std::fs::write(&results, &bytes).expect("write");
    let o = score(&fixture("mini.jsonl"), &results, &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("result line 9: ") && err.contains("more than the limit of 67108864 bytes"),
        "{err}"
    );
    assert!(outputs(&out)[0] == official("mock-seed-0", "score.jsonl"));
}

/// Files that hold no results are refused (exit 2) with their own message, and nothing
/// is written.
#[test]
fn files_that_are_not_results_are_refused_with_their_own_message() {
    let dir = tmp("kinds");
    let csv = dir.join("tasks.csv");
    std::fs::write(&csv, "session,task,correct\n0,0,true\n0,1,false\n").expect("write");
    let empty = dir.join("empty.jsonl");
    std::fs::write(&empty, "").expect("write");
    let garbage = dir.join("garbage.jsonl");
    std::fs::write(&garbage, "this is not a result file\nat all\n").expect("write");
    let binary = dir.join("image.png");
    std::fs::write(&binary, b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").expect("write");
    let cases: [(&Path, &str); 6] = [
        (&csv, "looks like a CSV file"),
        (&empty, "The file is empty"),
        (
            &garbage,
            "This is not a result file: the first line is not JSON",
        ),
        (&binary, "This is not a text file"),
        (
            &fixture("mini.jsonl"),
            "This is a dataset file, not results",
        ),
        (
            &fixture("official-runs/mock-seed-0/mini_score.jsonl"),
            "This is a score file",
        ),
    ];
    for (path, message) in cases {
        let out = dir.join("out");
        let o = score(&fixture("mini.jsonl"), path, &out, &[]);
        assert_eq!(
            o.status.code(),
            Some(2),
            "{}: {}",
            path.display(),
            stderr(&o)
        );
        assert!(
            stderr(&o).contains(message),
            "{}: {}",
            path.display(),
            stderr(&o)
        );
        assert!(!out.join("metric.json").exists());
    }
}

/// The mini fixture's results scored against the bundled suite: ids 0–7 exist in both,
/// but the recorded user turns are the mini dataset's. Refused with exit 2 and nothing
/// written (earlier outputs stay); `--force` scores and records it; the right dataset
/// is accepted (see `cli_score`).
#[test]
fn another_datasets_results_are_refused_unless_forced() {
    let out = tmp("other");
    let ok = score(
        &suite(),
        &fixture("official-runs/mock-seed-0/mini_result.jsonl"),
        &out,
        &[],
    );
    assert_eq!(ok.status.code(), Some(2), "{}", stderr(&ok));
    let err = stderr(&ok);
    assert!(
        err.contains(
            "These results belong to another dataset: 32 of 32 recorded user turns differ"
        ),
        "{err}"
    );
    assert!(err.contains("--force"), "{err}");
    assert!(!out.join("score.jsonl").exists() && !out.join("report.json").exists());
    no_temporary_files(&out);

    // Earlier outputs in the directory survive a refusal untouched.
    let good = score(
        &fixture("mini.jsonl"),
        &fixture("official-runs/mock-seed-0/mini_result.jsonl"),
        &out,
        &[],
    );
    assert!(good.status.success());
    let before = outputs(&out);
    let refused = score(
        &suite(),
        &fixture("official-runs/mock-seed-5/mini_result.jsonl"),
        &out,
        &[],
    );
    assert_eq!(refused.status.code(), Some(2));
    assert!(outputs(&out) == before, "a refused run changed the outputs");
    no_temporary_files(&out);

    let forced = score(
        &suite(),
        &fixture("official-runs/mock-seed-0/mini_result.jsonl"),
        &out,
        &["--force"],
    );
    assert!(forced.status.success(), "{}", stderr(&forced));
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).expect("report"))
            .expect("json");
    assert!(report["forced"]["reason"]
        .as_str()
        .is_some_and(|r| r.contains("another dataset")));
    assert_eq!(report["status"], "partial");
    assert_eq!(report["tasks_total"], 256);
    assert_eq!(report["tasks_scored"], 32);
}

/// Ids beyond the dataset: refused with the id evidence.
#[test]
fn ids_not_in_the_dataset_are_refused() {
    let out = tmp("ids");
    let text = String::from_utf8(official("mock-seed-0", "result.jsonl")).expect("utf8");
    let moved: String = text
        .lines()
        .map(|l| l.replacen("\"wild_tool_bench_", "\"wild_tool_bench_10", 1) + "\n")
        .collect();
    let results = out.join("moved_result.jsonl");
    std::fs::write(&results, moved).expect("write");
    let o = score(&fixture("mini.jsonl"), &results, &out, &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("8 of 8 result lines point at sessions this dataset does not have"),
        "{}",
        stderr(&o)
    );
}

fn checkpoint_of(run: &str) -> String {
    use wildtool_core::runner::checkpoint::CheckpointHeader;
    let dataset = std::fs::read_to_string(fixture("mini.jsonl")).expect("dataset");
    let fp = wildtool_core::dataset::fingerprint_hex(&dataset);
    let text = String::from_utf8(official(run, "result.jsonl")).expect("utf8");
    let mut out = CheckpointHeader::new(run, &fp).to_line() + "\n";
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

/// A checkpoint and a run export are scored like the result file they hold (same
/// parity files); a checkpoint whose header has a field of the wrong type is refused with
/// the field named.
#[test]
fn checkpoints_and_run_exports_score_like_their_results() {
    let dir = tmp("uploads");
    let checkpoint = dir.join("checkpoint.jsonl");
    std::fs::write(&checkpoint, checkpoint_of("mock-seed-5")).expect("write");
    let out = dir.join("from-checkpoint");
    let o = score(&fixture("mini.jsonl"), &checkpoint, &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        std::fs::read(out.join("metric.json")).expect("metric")
            == official("mock-seed-5", "metric.json")
    );

    let export = dir.join("run.wildtool-run.json");
    let doc = serde_json::json!({
        "wildtool_run": 1,
        "model": "mock-seed-0",
        "label": "mock",
        "result_jsonl": String::from_utf8(official("mock-seed-0", "result.jsonl")).expect("utf8"),
        "outcomes": [],
    });
    std::fs::write(&export, doc.to_string()).expect("write");
    let out = dir.join("from-export");
    let o = score(&fixture("mini.jsonl"), &export, &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        std::fs::read(out.join("score.jsonl")).expect("score")
            == official("mock-seed-0", "score.jsonl")
    );

    let bad = dir.join("bad-checkpoint.jsonl");
    let text = checkpoint_of("mock-seed-0").replacen(
        "\"model_name\": \"mock-seed-0\"",
        "\"model_name\": 42",
        1,
    );
    std::fs::write(&bad, text).expect("write");
    let o = score(&fixture("mini.jsonl"), &bad, &dir.join("bad"), &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("field \"model_name\" must be a string, not a number"),
        "{}",
        stderr(&o)
    );

    let other = dir.join("other-checkpoint.jsonl");
    let text = checkpoint_of("mock-seed-0").replacen("\"dataset\": \"", "\"dataset\": \"ff", 1);
    std::fs::write(&other, text).expect("write");
    let o = score(&fixture("mini.jsonl"), &other, &dir.join("other"), &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("made on another dataset"),
        "{}",
        stderr(&o)
    );
}

/// `wildtool validate` on a file that is not a dataset says what it is (exit 2); a
/// dataset with a damaged line names the line instead of failing on the whole file.
#[test]
fn validate_names_what_it_was_given() {
    let o = bin()
        .arg("validate")
        .arg(fixture("official-runs/mock-seed-0/mini_result.jsonl"))
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(2));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("not a dataset. An official result file"),
        "{out}"
    );

    let dir = tmp("validate");
    let mut bytes = std::fs::read(fixture("mini.jsonl")).expect("fixture");
    let second = bytes.iter().position(|&b| b == b'\n').expect("lines") + 40;
    bytes[second] = 0xFF;
    let path = dir.join("damaged.jsonl");
    std::fs::write(&path, &bytes).expect("write");
    let o = bin().arg("validate").arg(&path).output().expect("runs");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("line 2: not valid UTF-8"),
        "{}",
        stderr(&o)
    );
}

/// A run of selected sessions counts those sessions' tasks: it is done, not partial.
#[test]
fn a_run_of_selected_sessions_is_done() {
    let out = tmp("selected");
    let o = bin()
        .args([
            "run",
            "--provider",
            "gold",
            "--sessions",
            "1-2",
            "--dataset",
        ])
        .arg(fixture("mini.jsonl"))
        .arg("--out")
        .arg(&out)
        .output()
        .expect("runs");
    assert!(o.status.success(), "{}", stderr(&o));
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).expect("report"))
            .expect("json");
    assert_eq!(report["status"], "done");
    assert_eq!(report["tasks_total"], 8);
    assert_eq!(report["tasks_scored"], 8);
    assert_eq!(report["report"]["task_accuracy"]["rate"], 1.0);
}
