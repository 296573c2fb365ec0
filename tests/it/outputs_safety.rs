//! Outputs beyond crashes: a dataset changed during a run, an
//! output onto an input, a symlink planted in an output directory, a key a server echoes
//! in any wording, and usage errors that exit 2 in every command (the subcommands taken
//! from clap, so that a new one cannot be missed).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::mock_server::{Action, MockServer};
use crate::runner_live::{mini, model_reply, preflight_reply, Behaviour};
use crate::support::{fixture, path, tmp};
use wildtool_core::json::{loads, Value};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_wildtool"));
    c.env_remove("OPENAI_API_KEY");
    c
}

fn run(args: &[&str]) -> Output {
    bin()
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("spawn: {e}"))
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap_or("")
}

fn json(path: &Path) -> Value {
    loads(&std::fs::read_to_string(path).unwrap_or_default()).unwrap_or(Value::Null)
}

fn copy_mini(dir: &Path) -> PathBuf {
    let ds = dir.join("ds.jsonl");
    std::fs::copy(fixture("mini.jsonl"), &ds).unwrap_or_else(|e| panic!("{e}"));
    ds
}

#[test]
fn a_dataset_changed_during_a_run_is_named_and_nothing_is_overwritten() {
    let dir = tmp("changed");
    let ds = copy_mini(&dir);
    let out = dir.join("out");
    let loaded = mini();
    let change = Arc::new(AtomicBool::new(false));
    let (flag, file) = (change.clone(), ds.clone());
    let server = MockServer::start(move |req| {
        if flag.swap(false, Ordering::SeqCst) {
            // The dataset changes under the running run: its last session is dropped.
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            let kept: Vec<&str> = text.lines().collect();
            let n = kept.len().saturating_sub(1);
            let _ = std::fs::write(&file, kept[..n].join("\n") + "\n");
        }
        match model_reply(&loaded, &req.body, Behaviour::Gold) {
            Some(body) => Action::ok(body),
            None => Action::status(400, "{}"),
        }
    });
    let args = [
        "run",
        "--dataset",
        p(&ds),
        "--model",
        "m",
        "--base-url",
        &server.base_url(),
        "--out",
        p(&out),
        "--no-preflight",
        "--concurrency",
        "1",
    ];
    let first = run(&args);
    assert!(first.status.success(), "{}", err(&first));
    let before: Vec<Vec<u8>> = ["result.jsonl", "score.jsonl", "metric.json", "report.json"]
        .iter()
        .map(|f| std::fs::read(out.join(f)).unwrap_or_default())
        .collect();
    std::fs::remove_file(out.join("checkpoint.jsonl")).unwrap_or_else(|e| panic!("{e}"));
    change.store(true, Ordering::SeqCst);
    let second = run(&args);
    let e = err(&second);
    assert_eq!(second.status.code(), Some(2), "{e}");
    assert!(
        e.contains("the dataset changed on disk during the run") && e.contains(p(&ds)),
        "{e}"
    );
    let run_json = json(&out.join("run.json"));
    assert_eq!(
        run_json.get("status").and_then(Value::as_str),
        Some("refused"),
        "{run_json:?}"
    );
    assert!(run_json
        .get("reason")
        .and_then(Value::as_str)
        .is_some_and(|r| r.contains("changed on disk")));
    let after: Vec<Vec<u8>> = ["result.jsonl", "score.jsonl", "metric.json", "report.json"]
        .iter()
        .map(|f| std::fs::read(out.join(f)).unwrap_or_default())
        .collect();
    assert_eq!(before, after, "the previous results were overwritten");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn outputs_never_land_on_inputs() {
    let dir = tmp("onto-inputs");
    let ds = copy_mini(&dir);
    let sd = dir.join("sd");
    let results = fixture("official-runs/mock-seed-0/mini_result.jsonl");
    let o = run(&[
        "score",
        "--dataset",
        p(&ds),
        "--results",
        p(&results),
        "--out",
        p(&sd),
    ]);
    assert!(o.status.success(), "{}", err(&o));
    let report = std::fs::read(sd.join("report.json")).unwrap_or_default();
    let dataset = std::fs::read(&ds).unwrap_or_default();
    let link = dir.join("link.html");
    std::os::unix::fs::symlink(&ds, &link).unwrap_or_else(|e| panic!("{e}"));
    let score_dir = sd.join("report.json");
    let cases: Vec<Vec<&str>> = vec![
        vec!["report", "--score-dir", p(&sd), "--out", p(&score_dir)],
        vec![
            "report",
            "--from",
            p(&score_dir),
            "--dataset",
            p(&ds),
            "--out",
            p(&ds),
        ],
        vec!["report", "--score-dir", p(&sd), "--out", p(&link)],
        vec![
            "report",
            "--score-dir",
            p(&sd),
            "--dataset",
            p(&ds),
            "--out",
            p(&sd),
        ],
    ];
    for args in cases {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", err(&o));
        assert!(err(&o).contains(&"wildtool: ".to_owned()), "{args:?}");
    }
    // score --out onto its own results: the results file is the future score.jsonl.
    let own = sd.join("score.jsonl");
    let before = std::fs::read(&own).unwrap_or_default();
    let o = run(&[
        "score",
        "--dataset",
        p(&ds),
        "--results",
        p(&own),
        "--out",
        p(&sd),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert_eq!(std::fs::read(&own).unwrap_or_default(), before);
    // generate onto a dataset through a link planted where the suite goes.
    let o = run(&[
        "generate",
        "--seed",
        "1",
        "--sessions",
        "2",
        "--out",
        p(&link),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(err(&o).contains("symbolic link"), "{}", err(&o));
    assert_eq!(
        std::fs::read(sd.join("report.json")).unwrap_or_default(),
        report
    );
    assert_eq!(std::fs::read(&ds).unwrap_or_default(), dataset);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_symlink_planted_in_an_output_directory_is_refused() {
    let dir = tmp("symlinks");
    let ds = copy_mini(&dir);
    let dataset = std::fs::read(&ds).unwrap_or_default();
    let results = fixture("official-runs/mock-seed-0/mini_result.jsonl");
    let gold_run: Vec<String> = ["run", "--dataset", p(&ds), "--provider", "gold"]
        .iter()
        .map(|x| x.to_string())
        .collect();
    let cases: Vec<(&str, Vec<String>)> = vec![
        ("result.jsonl", gold_run.clone()),
        ("checkpoint.jsonl", gold_run),
        (
            "metric.json",
            vec![
                "score".into(),
                "--dataset".into(),
                p(&ds).into(),
                "--results".into(),
                p(&results).into(),
            ],
        ),
        (
            "compare.html",
            vec![
                "compare".into(),
                p(&results).into(),
                p(&fixture("official-runs/mock-seed-5/mini_result.jsonl")).into(),
                "--dataset".into(),
                p(&ds).into(),
            ],
        ),
    ];
    for (i, (name, args)) in cases.into_iter().enumerate() {
        let out = dir.join(format!("out-{i}"));
        std::fs::create_dir_all(&out).unwrap_or_else(|e| panic!("{e}"));
        std::os::unix::fs::symlink(&ds, out.join(name)).unwrap_or_else(|e| panic!("{e}"));
        let mut all = args.clone();
        all.extend(["--out".to_owned(), p(&out).to_owned()]);
        let o = bin().args(&all).output().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(o.status.code(), Some(2), "{name}: {}", err(&o));
        assert!(err(&o).contains("symbolic link"), "{name}: {}", err(&o));
        assert_eq!(std::fs::read(&ds).unwrap_or_default(), dataset, "{name}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

const KEY: &str = "sk-echo-5f3a9c1b7e2d4c6a8b0e";

/// Every file below `dir`, read as bytes.
fn files_below(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = e.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap_or_default();
                found.push((path, bytes));
            }
        }
    }
    found
}

fn assert_no_key(o: &Output, out: &Path, what: &str) {
    let piece = &KEY[4..16];
    for (name, bytes) in [("stdout", &o.stdout), ("stderr", &o.stderr)] {
        let text = String::from_utf8_lossy(bytes);
        assert!(
            !text.contains(piece),
            "{what}: the key is on {name}: {text}"
        );
    }
    for (path, bytes) in files_below(out) {
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains(piece),
            "{what}: the key is in {}",
            path.display()
        );
    }
}

#[test]
fn a_key_echoed_in_any_wording_never_leaves_memory() {
    let dir = tmp("echo");
    let echoes = [
        format!("invalid credentials {KEY}"),
        format!(
            "{{\"error\": {{\"message\": \"The key {KEY} was revoked\", \"type\": \"auth\"}}}}"
        ),
        format!("{{\"detail\": \"bad header: Authorization: Bearer {KEY}\"}}"),
        format!(
            "<!DOCTYPE html><html><body><h1>401 Unauthorized</h1><p>key={KEY}</p></body></html>"
        ),
    ];
    // The preflight answer echoes it.
    let server = MockServer::start(|req| {
        if preflight_reply(&req.body).is_some() {
            return Action::status(
                401,
                format!("{{\"error\": {{\"message\": \"key {KEY} rejected; header x-api-key: {KEY}\"}}}}"),
            );
        }
        Action::status(400, "{}")
    });
    let out = dir.join("preflight");
    let o = bin()
        .args([
            "run",
            "--dataset",
            p(&fixture("mini.jsonl")),
            "--model",
            "m",
            "--base-url",
            &server.base_url(),
            "--api-key-env",
            "WT_ECHO_KEY",
            "--out",
            p(&out),
        ])
        .env("WT_ECHO_KEY", KEY)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(o.status.code(), Some(4), "{}", err(&o));
    assert!(err(&o).contains("<redacted>"), "{}", err(&o));
    assert_no_key(&o, &out, "preflight");
    drop(server);
    // Every task request is answered with one of the wordings, whole or streamed.
    for stream in [false, true] {
        let counter = std::sync::atomic::AtomicUsize::new(0);
        let bodies = echoes.clone();
        let server = MockServer::start(move |req| {
            let n = counter.fetch_add(1, Ordering::SeqCst);
            let body = bodies[n % bodies.len()].clone();
            if crate::runner_live::asks_to_stream(&req.body) {
                return Action::events(&format!(
                    "data: {{\"error\": {{\"message\": \"{}\"}}}}\n\n",
                    body.replace('"', "'")
                ));
            }
            Action::Respond {
                status: [400, 401, 403, 500][n % 4],
                headers: vec![("WWW-Authenticate".to_owned(), format!("Bearer {KEY}"))],
                body,
            }
        });
        let out = dir.join(format!("tasks-{stream}"));
        let mini = fixture("mini.jsonl");
        let mut args = vec!["run", "--dataset", p(&mini), "--model", "m", "--base-url"];
        let url = server.base_url();
        args.push(&url);
        args.extend([
            "--api-key-env",
            "WT_ECHO_KEY",
            "--no-preflight",
            "--retries",
            "0",
            "--concurrency",
            "1",
            "--out",
            p(&out),
        ]);
        if stream {
            args.push("--stream");
        }
        let o = bin()
            .args(&args)
            .env("WT_ECHO_KEY", KEY)
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(!o.status.success(), "{}", err(&o));
        assert!(out.join("run.json").is_file(), "{}", err(&o));
        assert_no_key(&o, &out, &format!("tasks (stream {stream})"));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// One invalid use of each subcommand (besides an unknown flag, which every one gets).
fn invalid_uses(scratch: &Path) -> Vec<(&'static str, Vec<String>)> {
    let mini = p(&fixture("mini.jsonl")).to_owned();
    let result = p(&fixture("official-runs/mock-seed-0/mini_result.jsonl")).to_owned();
    let csv = scratch.join("x.csv");
    let _ = std::fs::write(&csv, "a,b\n1,2\n");
    let csv = p(&csv).to_owned();
    let out = |n: &str| p(&scratch.join(n)).to_owned();
    let v = |xs: &[&str]| xs.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    vec![
        ("validate", v(&[&csv])),
        ("stats", v(&[&csv])),
        (
            "score",
            v(&["--dataset", &mini, "--results", &mini, "--out", &out("s")]),
        ),
        (
            "env-score",
            v(&["--dataset", &mini, "--results", &result, "--out", &out("e")]),
        ),
        (
            "env-export",
            v(&[
                "--run",
                &out("none"),
                "--dataset",
                &csv,
                "--session",
                "0",
                "--out",
                &csv,
            ]),
        ),
        (
            "compare",
            v(&[
                &result,
                &result,
                "--dataset",
                &mini,
                "--out",
                &out("c"),
                "--label",
                "a",
                "--label",
                "b",
                "--label",
                "c",
            ]),
        ),
        (
            "gate",
            v(&[
                "--baseline",
                &result,
                "--candidate",
                &result,
                "--dataset",
                &mini,
                "--alpha",
                "2",
            ]),
        ),
        (
            "plan",
            v(&["--pilot", &result, "--dataset", &mini, "--power", "1.5"]),
        ),
        ("verify", v(&[&out("no-such-bundle"), "--dataset", &mini])),
        (
            "audit",
            v(&[&result, "--dataset", &mini, "--label", "a", "--label", "b"]),
        ),
        (
            "export",
            v(&[
                "--format",
                "eee",
                "--dataset",
                &mini,
                &out("none"),
                "--out",
                &mini,
            ]),
        ),
        (
            "generate",
            v(&["--seed", "1", "--sessions", "0", "--out", &out("g.jsonl")]),
        ),
        (
            "run",
            v(&[
                "--dataset",
                &mini,
                "--provider",
                "gold",
                "--concurrency",
                "0",
                "--out",
                &out("r"),
            ]),
        ),
        (
            "sweep",
            v(&[
                "--factor",
                "transitions=0,1",
                "--per-level",
                "2",
                "--seed",
                "1",
                "--provider",
                "gold",
                "--hold",
                "domains=nosuch",
                "--out",
                &out("sw"),
            ]),
        ),
        (
            "probe-stream",
            v(&["--base-url", "notaurl", "--model", "m"]),
        ),
        ("report", v(&["--from", &mini, "--out", &out("r.html")])),
    ]
}

#[test]
fn usage_errors_exit_2_in_every_command() {
    let scratch = tmp("usage");
    let commands: BTreeSet<String> = wildtool::cli::command()
        .get_subcommands()
        .map(|c| c.get_name().to_owned())
        .filter(|n| n != "help")
        .collect();
    let uses = invalid_uses(&scratch);
    let covered: BTreeSet<String> = uses.iter().map(|(c, _)| c.to_string()).collect();
    assert_eq!(
        commands, covered,
        "every subcommand needs an invalid use in invalid_uses()"
    );
    for name in &commands {
        let o = run(&[name, "--no-such-flag"]);
        assert_eq!(
            o.status.code(),
            Some(2),
            "{name} --no-such-flag: {}",
            err(&o)
        );
    }
    for (name, args) in uses {
        let o = bin()
            .arg(name)
            .args(&args)
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(o.status.code(), Some(2), "{name} {args:?}: {}", err(&o));
        assert!(
            !err(&o).is_empty() || !o.stdout.is_empty(),
            "{name}: no reason given"
        );
    }
    let _ = path("Cargo.toml");
    let _ = std::fs::remove_dir_all(&scratch);
}
