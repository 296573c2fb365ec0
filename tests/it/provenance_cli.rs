//! Run manifests and cassettes end to end: a run against the mock writes `manifest.json`
//! with every exchange hashed and no key; a run recorded with `--cassette` and replayed
//! `--offline` with the mock stopped writes byte-identical `result.jsonl`, `score.jsonl`
//! and `metric.json`; a replay on a changed dataset refuses the requests the cassette does
//! not hold (tasks incomplete with the reason, nothing sent, exit 3).

use std::path::Path;
use std::process::Output;

use crate::runner_live::{model_server, run, run_at, stderr, Behaviour};
use crate::support::{fixture, tmp, wildtool};
use wildtool_core::json::{loads, Value};
use wildtool_core::provenance::sha256_hex;

fn json(path: &Path) -> Value {
    loads(&std::fs::read_to_string(path).unwrap_or_default()).unwrap_or(Value::Null)
}

fn offline(out: &Path, dataset: &Path, cassette: &Path, base_url: &str) -> Output {
    let c = cassette.to_string_lossy();
    run_at(
        base_url,
        dataset,
        out,
        &["--cassette", &c, "--offline"],
        None,
    )
}

#[test]
fn manifest_hashes_every_exchange_and_holds_no_key() {
    let server = model_server(Behaviour::Gold, |_, _| None);
    let out = tmp("manifest");
    let o = run(&server, &out, &[], Some("sk-test-secret-0123"));
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(out.join("manifest.json")).unwrap_or_default();
    assert!(
        !text.contains("sk-test-secret-0123"),
        "no key in the manifest"
    );
    assert!(!text.to_lowercase().contains("authorization"), "no header");
    let m = json(&out.join("manifest.json"));
    assert_eq!(m.get("model").and_then(Value::as_str), Some("mock/model"));
    let models = m.get("server").and_then(|s| s.get("models")).cloned();
    assert_eq!(models, loads(r#"["mock"]"#).ok());
    // Every request the server saw is hashed in the manifest, in order per task.
    let seen: Vec<String> = server
        .requests()
        .iter()
        .map(|r| sha256_hex(r.body.as_bytes()))
        .collect();
    let tasks = m
        .get("exchanges")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    assert_eq!(tasks.len(), 32, "one entry per task of the mini fixture");
    let mut listed = 0;
    for t in &tasks {
        for e in t
            .get("exchanges")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
        {
            let h = e
                .get("request_sha256")
                .and_then(Value::as_str)
                .unwrap_or("");
            assert!(
                seen.iter().any(|s| s == h),
                "hash of a request the server saw"
            );
            assert!(e.get("reply_sha256").and_then(Value::as_str).is_some());
            listed += 1;
        }
    }
    let preflight = m
        .get("preflight")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    assert_eq!(listed + preflight, seen.len());
    let bytes = std::fs::read(out.join("metric.json")).unwrap_or_default();
    let files = m
        .get("outputs")
        .and_then(Value::as_array)
        .and_then(|o| o.first())
        .and_then(|o| o.get("files"))
        .cloned();
    assert_eq!(
        files
            .as_ref()
            .and_then(|f| f.get("metric.json"))
            .and_then(Value::as_str),
        Some(sha256_hex(&bytes).as_str())
    );
}

#[test]
fn cassette_replay_offline_is_byte_identical_and_refuses_unknown_requests() {
    let server = model_server(Behaviour::BadArguments, |_, _| None);
    let base = server.base_url();
    let recorded = tmp("recorded");
    std::fs::create_dir_all(&recorded).unwrap_or_default();
    let cassette = recorded.join("run.cassette.jsonl");
    let o = run(
        &server,
        &recorded,
        &["--cassette", &cassette.to_string_lossy()],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let sent = server.requests().len();
    drop(server);

    let replayed = tmp("replayed");
    let o = offline(&replayed, &fixture("mini.jsonl"), &cassette, &base);
    assert!(o.status.success(), "{}", stderr(&o));
    for f in ["result.jsonl", "score.jsonl", "metric.json"] {
        assert_eq!(
            std::fs::read(recorded.join(f)).ok(),
            std::fs::read(replayed.join(f)).ok(),
            "{f} differs between the recorded run and its offline replay"
        );
    }
    let m = json(&replayed.join("manifest.json"));
    assert_eq!(
        m.get("cassette")
            .and_then(|c| c.get("mode"))
            .and_then(Value::as_str),
        Some("replay")
    );
    assert_eq!(m.get("requests").and_then(Value::as_i64), Some(sent as i64));

    // A changed dataset: the first session's first user turn differs, so its requests are
    // not in the cassette. Nothing listens at the base URL any more: a request sent would
    // fail as unreachable, not as "not in the cassette".
    let text = std::fs::read_to_string(fixture("mini.jsonl")).unwrap_or_default();
    let changed = text.replace(
        "What's the weather in Paris right now?",
        "What's the weather in Lyon right now?",
    );
    assert_ne!(changed, text);
    let dir = tmp("changed");
    std::fs::create_dir_all(&dir).unwrap_or_default();
    let ds = dir.join("changed.jsonl");
    std::fs::write(&ds, changed).unwrap_or_default();
    let out = dir.join("out");
    let o = offline(&out, &ds, &cassette, &base);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let inc = std::fs::read_to_string(out.join("incomplete.json")).unwrap_or_default();
    assert!(inc.contains("not in the cassette"), "{inc}");
    assert!(
        !inc.contains("unreachable") && !inc.contains("refused"),
        "{inc}"
    );
}

/// `wildtool verify` on a run directory: (exit code, the ✗ lines, stdout).
fn verify(dir: &Path, dataset: &Path) -> (Option<i32>, Vec<String>, String) {
    let o = wildtool(&[
        "verify",
        &dir.to_string_lossy(),
        "--dataset",
        &dataset.to_string_lossy(),
    ]);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let failed = out
        .lines()
        .filter(|l| l.starts_with('✗'))
        .map(str::to_owned)
        .collect();
    (o.status.code(), failed, out)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_default();
    for e in std::fs::read_dir(from).into_iter().flatten().flatten() {
        if e.path().is_file() {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap_or_default();
        }
    }
}

fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    assert!(text.contains(from), "{} has no {from:?}", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).unwrap_or_default();
}

#[test]
fn verify_holds_on_a_genuine_run_and_names_each_tampered_claim() {
    let server = model_server(Behaviour::Gold, |_, _| None);
    let run_dir = tmp("genuine");
    std::fs::create_dir_all(&run_dir).unwrap_or_default();
    let cassette = run_dir.join("run.cassette.jsonl");
    let o = run(
        &server,
        &run_dir,
        &["--cassette", &cassette.to_string_lossy()],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    drop(server);
    let mini = fixture("mini.jsonl");

    let (code, failed, out) = verify(&run_dir, &mini);
    assert_eq!(code, Some(0), "{out}");
    assert!(failed.is_empty(), "{out}");
    for claim in [
        "dataset",
        "labels",
        "result.jsonl sha256",
        "metric.json",
        "score.jsonl",
        "report.json",
        "manifest files",
        "headline",
        "replies",
    ] {
        assert!(
            out.lines().any(|l| l.starts_with(&format!("✓ {claim}:"))),
            "{claim} checked: {out}"
        );
    }

    // One recorded label: the labels claim names the task (the file's hash fails too).
    let d = tmp("label");
    copy_dir(&run_dir, &d);
    edit(
        &d.join("result.jsonl"),
        r#""action_name_label": "correct""#,
        r#""action_name_label": "error""#,
    );
    let (code, failed, out) = verify(&d, &mini);
    assert_eq!(code, Some(1), "{out}");
    // The cause comes first; the rest are its consequences (the file's hash, and the
    // report's count of disagreeing labels with the manifest's hash of the report).
    assert!(
        failed[0].starts_with(
            "✗ labels: session wild_tool_bench_0, task 1 (task_idx 0): action_name_label"
        ),
        "{out}"
    );
    assert!(failed[1].starts_with("✗ result.jsonl sha256"), "{out}");
    assert!(
        failed[2].starts_with("✗ report.json: scoring.label_disagreements: claimed 0, re-scored 1"),
        "{out}"
    );
    assert!(
        failed[3].starts_with("✗ manifest files: report.json"),
        "{out}"
    );
    assert_eq!(failed.len(), 4, "{out}");

    // One claimed number in metric.json: exactly that claim, with the member.
    let d = tmp("number");
    copy_dir(&run_dir, &d);
    edit(
        &d.join("metric.json"),
        r#""accuracy": 1.0"#,
        r#""accuracy": 0.97"#,
    );
    let (code, failed, out) = verify(&d, &mini);
    assert_eq!(code, Some(1), "{out}");
    assert_eq!(
        failed,
        ["✗ metric.json: total_info.task.accuracy: claimed 0.97, re-scored 1.0"],
        "{out}"
    );

    // One number the manifest claims.
    let d = tmp("headline");
    copy_dir(&run_dir, &d);
    edit(
        &d.join("manifest.json"),
        r#""task.correct_count": 32"#,
        r#""task.correct_count": 31"#,
    );
    let (code, failed, out) = verify(&d, &mini);
    assert_eq!(code, Some(1), "{out}");
    assert_eq!(
        failed,
        ["✗ headline: task.correct_count: claimed 31, re-scored 32"],
        "{out}"
    );

    // One reply body in the cassette: the replies claim names the task.
    let d = tmp("reply");
    copy_dir(&run_dir, &d);
    edit(
        &d.join("run.cassette.jsonl"),
        "chatcmpl-mock",
        "chatcmpl-m0ck",
    );
    let (code, failed, out) = verify(&d, &mini);
    assert_eq!(code, Some(1), "{out}");
    assert_eq!(failed.len(), 1, "{out}");
    assert!(
        failed[0].starts_with("✗ replies: session wild_tool_bench_"),
        "{out}"
    );
    assert!(failed[0].contains("the manifest says"), "{out}");

    // The dataset: the dataset claim comes first and names the first differing task.
    let text = std::fs::read_to_string(&mini).unwrap_or_default();
    let changed = text.replace("How about Berlin and Madrid?", "How about Rome and Madrid?");
    let ds = tmp("dataset").join("changed.jsonl");
    std::fs::create_dir_all(ds.parent().unwrap_or(Path::new("."))).unwrap_or_default();
    std::fs::write(&ds, changed).unwrap_or_default();
    let (code, failed, out) = verify(&run_dir, &ds);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        failed[0].starts_with("✗ dataset: the manifest's dataset has fingerprint"),
        "{out}"
    );
    assert!(
        failed[0].contains("session wild_tool_bench_0, task 2 (task_idx 1)"),
        "{out}"
    );

    // Unreadable bundles: exit 2.
    let (code, _, _) = verify(&tmp("empty"), &mini);
    assert_eq!(code, Some(2));
}

#[test]
fn official_harness_files_verify_against_their_metric_json() {
    let dir = fixture("official-runs/mock-seed-0");
    let o = wildtool(&[
        "verify",
        &dir.join("mini_result.jsonl").to_string_lossy(),
        &dir.join("mini_metric.json").to_string_lossy(),
        &dir.join("mini_score.jsonl").to_string_lossy(),
        "--dataset",
        &fixture("mini.jsonl").to_string_lossy(),
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert_eq!(
        out.lines().filter(|l| l.starts_with('✓')).count(),
        3,
        "{out}"
    );
}

/// Exports `run` as Every Eval Ever and validates every file with the schema's own
/// validator (the every-eval-ever package, a separate process); returns the samples'
/// lines.
fn export_and_validate(run_dir: &Path, dataset: &Path) -> Vec<Value> {
    let out = run_dir.join("eee");
    let o = wildtool(&[
        "export",
        "--format",
        "eee",
        "--dataset",
        &dataset.to_string_lossy(),
        "--out",
        &out.to_string_lossy(),
        &run_dir.to_string_lossy(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let python = crate::support::root().join(".venv-eee/bin/python");
    assert!(
        python.exists(),
        "the every-eval-ever validator is not installed: run bash scripts/setup-eee.sh"
    );
    let mut files = Vec::new();
    let mut stack = vec![out];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            if e.path().is_dir() {
                stack.push(e.path());
            } else {
                files.push(e.path());
            }
        }
    }
    files.sort();
    assert!(files.len() >= 2, "{files:?}");
    let o = std::process::Command::new(&python)
        .args(["-m", "every_eval_ever.validate", "--format", "json"])
        .args(&files)
        .output()
        .unwrap_or_else(|e| panic!("python: {e}"));
    let report = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(o.status.code(), Some(0), "{report}{}", stderr(&o));
    let reports = loads(&report).unwrap_or(Value::Null);
    for r in reports.as_array().cloned().unwrap_or_default() {
        assert_eq!(r.get("valid"), Some(&Value::Bool(true)), "{report}");
        assert_eq!(
            r.get("warnings").and_then(Value::as_array).map(Vec::len),
            Some(0),
            "{report}"
        );
    }
    files
        .iter()
        .filter(|f| f.to_string_lossy().ends_with("_samples.jsonl"))
        .flat_map(|f| {
            std::fs::read_to_string(f)
                .unwrap_or_default()
                .lines()
                .filter_map(|l| loads(l).ok())
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn every_eval_ever_export_passes_its_validator_for_single_trials_and_env_runs() {
    // A single run against the mock, with failed tasks (their error class is exported).
    let server = model_server(Behaviour::BadArguments, |_, _| None);
    let single = tmp("eee-single");
    let o = run(&server, &single, &[], None);
    assert!(o.status.success(), "{}", stderr(&o));
    drop(server);
    let rows = export_and_validate(&single, &fixture("mini.jsonl"));
    assert_eq!(rows.len(), 32);
    let failed: Vec<&Value> = rows
        .iter()
        .filter(|r| {
            r.get("evaluation").and_then(|e| e.get("is_correct")) == Some(&Value::Bool(false))
        })
        .collect();
    assert!(!failed.is_empty());
    for r in &failed {
        assert!(
            r.get("metadata")
                .and_then(|m| m.get("error_class"))
                .is_some(),
            "{r:?}"
        );
        assert!(r.get("error").and_then(Value::as_str).is_some());
    }
    assert!(rows
        .iter()
        .all(|r| r.get("interaction_type").and_then(Value::as_str) == Some("multi_turn")));
    assert!(rows.iter().any(|r| r
        .get("token_usage")
        .is_some_and(|t| t.get("input_tokens").is_some())));

    // Trials: one aggregate record and samples file per trial.
    let trials = tmp("eee-trials");
    let o = wildtool(&[
        "run",
        "--dataset",
        &fixture("mini.jsonl").to_string_lossy(),
        "--provider",
        "gold",
        "--trials",
        "2",
        "--out",
        &trials.to_string_lossy(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        export_and_validate(&trials, &fixture("mini.jsonl")).len(),
        64
    );

    // An env run (an extension: its own benchmark name).
    let env = tmp("eee-env");
    let suite = crate::support::path("data/suite.jsonl");
    let o = wildtool(&[
        "run",
        "--env",
        "ledger",
        "--dataset",
        &suite.to_string_lossy(),
        "--provider",
        "gold",
        "--out",
        &env.to_string_lossy(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows = export_and_validate(&env, &suite);
    assert!(!rows.is_empty());
    assert!(rows.iter().all(|r| r
        .get("evaluation_id")
        .and_then(Value::as_str)
        .is_some_and(|i| i.starts_with("wildtoolbench-ledger-env/"))));
}

#[test]
fn a_run_file_in_the_pages_format_verifies_on_the_command_line_trial_by_trial() {
    use wildtool_core::formats::run_export::RunSettings;
    use wildtool_core::formats::{RunExport, RunMeta};
    use wildtool_core::provenance::manifest::Manifest;
    let mini = fixture("mini.jsonl");
    let dir = tmp("verify-run-file");
    let o = wildtool(&[
        "run",
        "--dataset",
        &mini.to_string_lossy(),
        "--provider",
        "baseline",
        "--trials",
        "2",
        "--out",
        &dir.to_string_lossy(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let manifest = std::fs::read_to_string(dir.join("manifest.json")).unwrap_or_default();
    let m = Manifest::parse(&manifest).expect("the run's manifest");
    let checkpoint = std::fs::read_to_string(dir.join("checkpoint.jsonl")).unwrap_or_default();
    let fp = wildtool_core::dataset::fingerprint_hex(&std::fs::read_to_string(&mini).unwrap());
    // The page's run file: its checkpoint records (no header) and its manifest.
    let file = |m: &Manifest| {
        let mut doc = RunExport::new(RunMeta::new("b", "baseline", &fp), RunSettings::default());
        doc.records = Some(checkpoint.lines().skip(1).map(str::to_owned).collect());
        doc.manifest = Some(m.to_json());
        let path = dir.join("b.wildtool-run.json");
        std::fs::write(&path, doc.to_json()).unwrap_or_default();
        path
    };
    let (code, failed, out) = verify(&file(&m), &mini);
    assert_eq!(code, Some(0), "{out}");
    assert!(failed.is_empty(), "{out}");
    for t in ["trial-1", "trial-2"] {
        assert!(out.contains(&format!("✓ {t}/labels")), "{out}");
        assert!(out.contains(&format!("✓ {t}/headline")), "{out}");
    }
    // One claimed number of trial 2 changed: exit 1, that claim named.
    let mut changed = m.clone();
    let n = changed.outputs[1].claims["task.correct_count"]
        .as_u64()
        .unwrap_or(0);
    changed.outputs[1]
        .claims
        .insert("task.correct_count".into(), serde_json::json!(n + 1));
    let (code, failed, out) = verify(&file(&changed), &mini);
    assert_eq!(code, Some(1), "{out}");
    assert_eq!(failed.len(), 1, "{out}");
    assert!(failed[0].starts_with("✗ trial-2/headline"), "{out}");
}
