//! The `wildtool` binary: validate / stats / score end to end.

use crate::support::{bin, fixture, tmp};

#[test]
fn score_writes_official_files_and_a_report() {
    for run in ["mock-seed-0", "mock-seed-5"] {
        let out = tmp(run);
        let status = bin()
            .args(["score", "--dataset"])
            .arg(fixture("mini.jsonl"))
            .arg("--results")
            .arg(fixture(&format!("official-runs/{run}/mini_result.jsonl")))
            .arg("--out")
            .arg(&out)
            .output()
            .expect("runs");
        assert!(
            status.status.success(),
            "{}",
            String::from_utf8_lossy(&status.stderr)
        );
        let stdout = String::from_utf8_lossy(&status.stdout);
        assert!(
            stdout.contains("Task accuracy") && stdout.contains("Session accuracy"),
            "{stdout}"
        );
        for (ours, theirs) in [
            ("score.jsonl", "mini_score.jsonl"),
            ("metric.json", "mini_metric.json"),
        ] {
            let a = std::fs::read(out.join(ours)).expect("written");
            let b =
                std::fs::read(fixture(&format!("official-runs/{run}/{theirs}"))).expect("fixture");
            assert!(a == b, "{run}/{ours} differs from the official file");
        }
        let report: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("report.json")).expect("report"))
                .expect("json");
        assert_eq!(report["report"]["tasks"], 32);
        assert!(report["report"]["errors"]["failed"].as_u64().unwrap_or(0) > 0);
        assert_eq!(report["scoring"]["label_disagreements"], 0);
    }
}

#[test]
fn score_survives_a_shuffled_file_with_garbage() {
    let out = tmp("garbage");
    let text = std::fs::read_to_string(fixture("official-runs/mock-seed-0/mini_result.jsonl"))
        .expect("fixture");
    let mut lines: Vec<&str> = text.lines().collect();
    lines.reverse();
    let mut body = lines.join("\n");
    body.push_str("\n{broken\n\n");
    let results = out.join("r.jsonl");
    std::fs::write(&results, body).expect("write");
    let o = score_on_mini(&results, &out);
    assert!(o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("result line 9"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let a = std::fs::read(out.join("score.jsonl")).expect("written");
    let b = std::fs::read(fixture("official-runs/mock-seed-0/mini_score.jsonl")).expect("fixture");
    assert!(a == b, "sorted output equals the official file");
}

#[test]
fn validate_exit_codes_and_messages() {
    let ok = bin()
        .arg("validate")
        .arg(fixture("mini.jsonl"))
        .output()
        .expect("runs");
    assert!(ok.status.success());
    assert!(String::from_utf8_lossy(&ok.stdout).contains("valid"));
    let dir = tmp("invalid");
    let text = std::fs::read_to_string(fixture("mini.jsonl")).expect("fixture");
    // Break a dependency of the first session (both language sides).
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    lines[0] = lines[0].replace("\"dependency_list\": [0]", "\"dependency_list\": [7]");
    let broken = lines.join("\n");
    let path = dir.join("bad.jsonl");
    std::fs::write(&path, broken).expect("write");
    let bad = bin().arg("validate").arg(&path).output().expect("runs");
    assert_eq!(bad.status.code(), Some(2));
    let out = String::from_utf8_lossy(&bad.stdout);
    assert!(
        out.contains("line 1") && out.contains("dependency_list") && out.contains("INVALID"),
        "{out}"
    );
    let stats = bin()
        .arg("stats")
        .arg(fixture("mini.jsonl"))
        .output()
        .expect("runs");
    assert!(String::from_utf8_lossy(&stats.stdout).contains("Parallel Multi-Tool"));
}

/// `--jobs N` writes the same bytes (and warnings) as one thread, for N below, at and
/// above the number of sessions (the mini fixture has 8), on a clean file and on a
/// shuffled one with a damaged line and a duplicate id.
#[test]
fn score_jobs_write_the_same_bytes_as_one_thread() {
    let dir = tmp("jobs");
    let clean = fixture("official-runs/mock-seed-5/mini_result.jsonl");
    let text = std::fs::read_to_string(&clean).expect("fixture");
    let mut lines: Vec<&str> = text.lines().collect();
    lines.reverse();
    let first = lines[0];
    lines.insert(3, "{broken");
    lines.push(first);
    let messy = dir.join("messy.jsonl");
    std::fs::write(&messy, lines.join("\n") + "\n").expect("write");
    for results in [clean, messy] {
        let score = |jobs: &str, out: &std::path::Path| {
            let o = bin()
                .args(["score", "--dataset"])
                .arg(fixture("mini.jsonl"))
                .arg("--results")
                .arg(&results)
                .arg("--out")
                .arg(out)
                .args(["--jobs", jobs])
                .output()
                .expect("runs");
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            (o.stdout, o.stderr)
        };
        let serial_out = dir.join("serial");
        let serial = score("1", &serial_out);
        for jobs in ["2", "3", "7", "64", "256"] {
            let out = dir.join(format!("jobs-{jobs}"));
            assert_eq!(score(jobs, &out).1, serial.1, "stderr with --jobs {jobs}");
            for name in ["score.jsonl", "metric.json", "report.json"] {
                let a = std::fs::read(serial_out.join(name)).expect("serial");
                let b = std::fs::read(out.join(name)).expect("parallel");
                assert!(a == b, "{name} with --jobs {jobs} differs from --jobs 1");
            }
        }
    }
}

/// A `--jobs` that is not a number from 1 to 256 is a usage error (exit 2), nothing written.
#[test]
fn score_jobs_out_of_range_is_a_usage_error() {
    for bad in ["0", "-1", "257", "two", ""] {
        let out = tmp(&format!("jobs-bad-{bad}"));
        let o = bin()
            .args(["score", "--dataset"])
            .arg(fixture("mini.jsonl"))
            .arg("--results")
            .arg(fixture("official-runs/mock-seed-0/mini_result.jsonl"))
            .arg("--out")
            .arg(&out)
            .args(["--jobs", bad])
            .output()
            .expect("runs");
        assert_eq!(o.status.code(), Some(2), "--jobs {bad:?}");
        assert!(
            !out.join("score.jsonl").exists(),
            "--jobs {bad:?} wrote files"
        );
    }
}

/// P19: result lines that repeat a session are all counted by metric.json (as the official
/// scorer counts them) and the CLI says so on stderr; the summary counts each task once.
#[test]
fn repeated_sessions_are_counted_by_the_metric_and_warned_about() {
    let dir = tmp("repeats");
    let text = std::fs::read_to_string(fixture("official-runs/mock-seed-0/mini_result.jsonl"))
        .expect("fixture");
    let twice = dir.join("twice.jsonl");
    std::fs::write(&twice, format!("{text}{text}")).expect("write");
    let out = dir.join("out");
    let o = score_on_mini(&twice, &out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("warning: ") && stderr.contains("8 result line(s) repeat a session"),
        "{stderr}"
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains("32 of 32 tasks scored"));
    let metric: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("metric.json")).expect("metric"))
            .expect("json");
    assert_eq!(metric["total_info"]["task"]["total_count"], 64);
}

/// `wildtool score` of `results` on the mini fixture into `out`.
fn score_on_mini(results: &std::path::Path, out: &std::path::Path) -> std::process::Output {
    bin()
        .args(["score", "--dataset"])
        .arg(fixture("mini.jsonl"))
        .arg("--results")
        .arg(results)
        .arg("--out")
        .arg(out)
        .output()
        .expect("runs")
}
