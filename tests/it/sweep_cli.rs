//! `wildtool sweep` end to end with the built-in agents: one directory per level holding
//! the suite `wildtool generate` writes for that level and the files `wildtool run`
//! writes; levels paired session by session; `sweep.json` agreeing with the levels'
//! `report.json` files and with a trend statistic computed here by hand; re-running
//! resumes an interrupted level and keeps the finished ones; bad options exit with 2.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::{tmp, wildtool};
use wildtool_core::dataset::{load_dataset, Lang};
use wildtool_core::formats::ReportDoc;
use wildtool_core::generate::card::distractors;
use wildtool_core::sweep::SweepDoc;

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn sweep_doc(dir: &Path) -> SweepDoc {
    SweepDoc::parse(&read(&dir.join("sweep.json"))).expect("sweep.json")
}

fn report(dir: &Path) -> ReportDoc {
    ReportDoc::parse(read(&dir.join("report.json")).as_bytes()).expect("report.json")
}

#[test]
fn a_gold_sweep_writes_paired_levels_that_match_generate() {
    let dir = tmp("gold");
    let out = dir.join("sweep");
    let o = wildtool(&[
        "sweep",
        "--factor",
        "transitions=0,1,2,3",
        "--per-level",
        "8",
        "--seed",
        "21",
        "--provider",
        "gold",
        "--out",
        out.to_str().unwrap_or(""),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    // Only the sweep's table on stdout (the levels' summaries are not repeated there).
    assert!(
        stdout.starts_with("sweep of transitions · gold"),
        "{stdout}"
    );
    assert!(
        stdout.contains("transitions = 3  done    32 of 32      100.0%"),
        "{stdout}"
    );

    let doc = sweep_doc(&out);
    assert_eq!(doc.status, "done");
    assert_eq!(doc.suite, "seed=21,sessions=8");
    assert_eq!(doc.levels.len(), 4);
    let mut suites = Vec::new();
    for (k, level) in doc.levels.iter().enumerate() {
        let ldir = out.join(format!("level-{k}"));
        assert_eq!(level.dir, format!("level-{k}"));
        for f in [
            "dataset.jsonl",
            "checkpoint.jsonl",
            "result.jsonl",
            "score.jsonl",
            "metric.json",
            "report.json",
            "run.json",
        ] {
            assert!(ldir.join(f).is_file(), "{k}: {f}");
        }
        // The level's suite is exactly what `wildtool generate` writes for it.
        let generated = dir.join(format!("t{k}.jsonl"));
        let g = wildtool(&[
            "generate",
            "--seed",
            "21",
            "--sessions",
            "8",
            "--transitions",
            &k.to_string(),
            "--out",
            generated.to_str().unwrap_or(""),
        ]);
        assert!(g.status.success(), "{}", text(&g));
        let suite = read(&ldir.join("dataset.jsonl"));
        assert_eq!(suite, read(&generated), "level {k}");
        assert_eq!(
            level.fingerprint,
            wildtool_core::dataset::fingerprint_hex(&suite)
        );
        assert_eq!(level.task_accuracy, Some(1.0));
        assert_eq!((level.tasks_scored, level.tasks_total), (32, 32));
        assert_eq!(report(&ldir).tasks_scored, 32);
        suites.push(load_dataset(&suite, Lang::En));
    }
    // Paired: session i has the same domain, date and distractor tools at every level,
    // and exactly k transitions at level k.
    for (k, l) in suites.iter().enumerate() {
        assert_eq!(l.sessions.len(), 8);
        for (i, s) in l.sessions.iter().enumerate() {
            let first = &suites[0].sessions[i];
            assert_eq!(s.domain, first.domain, "session {i}, level {k}");
            assert_eq!(s.env_info, first.env_info, "session {i}, level {k}");
            assert_eq!(s.transitions() as usize, k);
        }
    }
    // Gold is right everywhere: no trend, and the test says so.
    let t = doc.trend.as_ref().expect("trend");
    assert_eq!((t.blocks, t.slope, t.z), (8, 0.0, 0.0));
    assert_eq!((t.p_normal, t.p_permutation), (1.0, 1.0));
    let html = read(&out.join("sweep.html"));
    assert!(html.contains("<svg") && html.contains("Test for trend"));
    assert!(!html.contains("<script") && !html.contains("src=\"http"));
}

#[test]
fn a_baseline_sweep_agrees_with_its_levels_and_resumes() {
    let dir = tmp("baseline");
    let out = dir.join("sweep");
    let args = [
        "sweep",
        "--factor",
        "distractors=0,2,4",
        "--hold",
        "args=literal,domains=weather+finance-ledger+maps",
        "--per-level",
        "10",
        "--seed",
        "4",
        "--provider",
        "baseline",
        "--concurrency",
        "3",
        "--out",
        out.to_str().unwrap_or(""),
    ];
    let o = wildtool(&args);
    assert!(o.status.success(), "{}", text(&o));
    let doc = sweep_doc(&out);
    assert_eq!(doc.model, "baseline");
    assert_eq!(
        doc.suite,
        "seed=4,sessions=10,args=literal,domains=weather+finance-ledger+maps"
    );

    // Every number recomputed from the levels' report.json files.
    let scores = [0.0, 2.0, 4.0];
    let mut rows = vec![Vec::new(); 10];
    for (k, level) in doc.levels.iter().enumerate() {
        let rep = report(&out.join(format!("level-{}", scores[k])));
        let correct = rep.tasks.iter().filter(|t| t.correct).count() as f64;
        assert_eq!(level.task_accuracy, Some(correct / 40.0), "level {k}");
        assert_eq!(level.tasks_scored, 40);
        for (s, row) in rows.iter_mut().enumerate() {
            let c = rep
                .tasks
                .iter()
                .filter(|t| t.session as usize == s && t.correct)
                .count();
            row.push(c as f64 / 4.0);
        }
        let suite = read(&out.join(format!("level-{}/dataset.jsonl", scores[k])));
        let loaded = load_dataset(&suite, Lang::En);
        for s in &loaded.sessions {
            assert_eq!(distractors(s), scores[k] as usize);
        }
    }
    // The stratified trend statistic by hand: centred scores −2, 0, 2; the variance of
    // each session's row under within-session permutation is Sxx · SS / (L − 1).
    let t_hand: f64 = rows.iter().map(|r| -2.0 * r[0] + 2.0 * r[2]).sum();
    let var: f64 = rows
        .iter()
        .map(|r| {
            let m = r.iter().sum::<f64>() / 3.0;
            8.0 * r.iter().map(|y| (y - m) * (y - m)).sum::<f64>() / 2.0
        })
        .sum();
    let trend = doc.trend.as_ref().expect("trend");
    assert!((trend.statistic - t_hand).abs() < 1e-9);
    if var > 0.0 {
        assert!((trend.z - t_hand / var.sqrt()).abs() < 1e-9);
    }
    assert!((trend.slope - t_hand / (10.0 * 8.0)).abs() < 1e-12);
    assert!(trend.p_permutation > 0.0 && trend.p_permutation <= 1.0);

    // An interrupted level: its outputs gone and half its checkpoint kept.
    let level = out.join("level-2");
    for f in [
        "report.json",
        "result.jsonl",
        "score.jsonl",
        "metric.json",
        "run.json",
    ] {
        std::fs::remove_file(level.join(f)).expect("remove");
    }
    let checkpoint = read(&level.join("checkpoint.jsonl"));
    let lines: Vec<&str> = checkpoint.lines().collect();
    let kept = lines[..lines.len() / 2].join("\n") + "\n";
    std::fs::write(level.join("checkpoint.jsonl"), kept).expect("truncate");
    let before = read(&out.join("sweep.json"));
    let again = wildtool(&args);
    let log = text(&again);
    assert!(again.status.success(), "{log}");
    assert!(log.contains("level 1/3 level-0: done (kept)"), "{log}");
    assert!(log.contains("level 3/3 level-4: done (kept)"), "{log}");
    assert!(log.contains("level 2/3 level-2: distractors = 2"), "{log}");
    assert!(!log.contains(" 0 resumed from the checkpoint"), "{log}");
    assert_eq!(read(&out.join("sweep.json")), before);

    // The same directory with another seed: refused before anything runs.
    let mut other = args.to_vec();
    other[8] = "5";
    let refused = wildtool(&other);
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused));
    assert!(text(&refused).contains("holds another suite"));
    // Another model in the same directory: finished levels are not taken for its own.
    let mut gold = args.to_vec();
    gold[10] = "gold";
    let refused = wildtool(&gold);
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused));
    assert!(text(&refused).contains("level-0"), "{}", text(&refused));
    assert_eq!(read(&out.join("sweep.json")), before);
}

#[test]
fn bad_sweep_options_exit_2_before_anything_runs() {
    let dir = tmp("bad");
    for (factor, hold) in [
        ("transitions=0,7", ""),
        ("transitions=1", ""),
        ("transitions", ""),
        ("colour=red,blue", ""),
        ("transitions=0,1", "transitions=1"),
        ("transitions=0,1", "types=single+single+chat+chat"),
        ("width=2,3", "nonsense"),
    ] {
        let out = dir.join("out");
        let mut args = vec![
            "sweep",
            "--factor",
            factor,
            "--per-level",
            "4",
            "--seed",
            "1",
            "--provider",
            "gold",
            "--out",
            out.to_str().unwrap_or(""),
        ];
        if !hold.is_empty() {
            args.extend(["--hold", hold]);
        }
        let o = wildtool(&args);
        assert_eq!(o.status.code(), Some(2), "{factor} {hold}: {}", text(&o));
        assert!(!out.exists(), "{factor} {hold}: nothing is written");
    }
}

/// Every file under `dir`, recursively.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read dir").flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out
}

fn sweep_with_env(args: &[&str], key: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wildtool"))
        .args(args)
        .env("SWEEP_TEST_KEY", key)
        .output()
        .unwrap_or_else(|e| panic!("spawn: {e}"))
}

#[test]
fn an_endpoint_sweep_uses_the_run_options_and_stops_at_a_failed_preflight() {
    const KEY: &str = "sk-sweep-secret-4711";
    // A model that answers every request with text: Chat tasks pass, tool tasks fail.
    let server = crate::mock_server::MockServer::start(|_| {
        crate::mock_server::Action::ok(
            r#"{"choices": [{"index": 0, "message": {"role": "assistant", "content": "I can tell you that."}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 5, "completion_tokens": 3}}"#,
        )
    });
    let dir = tmp("endpoint");
    let out = dir.join("sweep");
    let base = server.base_url();
    let args = [
        "sweep",
        "--factor",
        "transitions=0,3",
        "--per-level",
        "6",
        "--seed",
        "8",
        "--provider",
        "openai",
        "--base-url",
        &base,
        "--model",
        "text-model",
        "--api-key-env",
        "SWEEP_TEST_KEY",
        "--concurrency",
        "2",
        "--retries",
        "1",
        "--timeout",
        "5",
        "--out",
        out.to_str().unwrap_or(""),
    ];
    let o = sweep_with_env(&args, KEY);
    assert!(o.status.success(), "{}", text(&o));
    let requests = server.requests();
    let preflights = requests
        .iter()
        .filter(|r| !r.body.starts_with(r#"{"messages": [{"role": "system""#))
        .count();
    assert_eq!(preflights, 2, "one preflight per level");
    assert!(requests
        .iter()
        .all(|r| r.header("authorization") == Some(&format!("Bearer {KEY}"))));
    assert!(requests.iter().all(|r| r.body.contains("\"text-model\"")));
    for f in files_under(&out) {
        assert!(!read(&f).contains(KEY), "{} holds the key", f.display());
    }
    let doc = sweep_doc(&out);
    assert_eq!(doc.model, "text-model");
    assert_eq!(doc.status, "done");
    // Text answers pass exactly the Chat tasks.
    for level in &doc.levels {
        let rep = report(&out.join(&level.dir));
        let chats = rep
            .tasks
            .iter()
            .filter(|t| t.task_type == wildtool_core::outcome::TaskType::Chat)
            .count();
        assert_eq!(
            level.task_accuracy,
            Some(chats as f64 / 24.0),
            "{}",
            level.dir
        );
        let run_meta = rep.run.expect("run metadata");
        assert_eq!(run_meta.provider.as_deref(), Some("openai"));
    }

    // An endpoint that refuses the key: exit 4 at the first level's preflight, nothing
    // else sent.
    let refusing = crate::mock_server::MockServer::start(|_| {
        crate::mock_server::Action::status(401, r#"{"error": {"message": "bad key"}}"#)
    });
    let out2 = dir.join("refused");
    let refusing_base = refusing.base_url();
    let mut args2 = args.to_vec();
    args2[10] = &refusing_base;
    let last = args2.len() - 1;
    let out2_text = out2.to_str().unwrap_or("").to_owned();
    args2[last] = &out2_text;
    let o = sweep_with_env(&args2, KEY);
    assert_eq!(o.status.code(), Some(4), "{}", text(&o));
    assert!(text(&o).contains("level-0"), "{}", text(&o));
    assert_eq!(refusing.requests().len(), 1);
    assert!(!out2.join("level-3/checkpoint.jsonl").exists());
}

/// A `challenge` sweep runs every level in the ledger environment: `sweep.json` carries
/// the env metrics per level (`write_after_question_rate` …) and the trend test on
/// `env_success`; the page's analysis (the lab module's `sweep` call, given each level's
/// dataset and `env-result.jsonl`) writes the same `sweep.json` and `sweep.html` bytes.
#[test]
fn a_challenge_sweep_reports_env_metrics_and_the_page_computes_the_same_document() {
    let out = tmp("challenge");
    let levels = "compositional,correction,question,clarify";
    let o = wildtool(&[
        "sweep",
        "--factor",
        &format!("challenge={levels}"),
        "--per-level",
        "8",
        "--seed",
        "5",
        "--provider",
        "baseline",
        "--out",
        out.to_str().unwrap_or(""),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("write after question"), "{}", text(&o));
    let json_text = read(&out.join("sweep.json"));
    let doc = sweep_doc(&out);
    assert_eq!(doc.mode.as_deref(), Some("ledger-env"));
    assert!(doc.notes[0].starts_with("Extension: ledger environment"));
    assert!(doc.trend.is_some());
    let mut run_levels = Vec::new();
    for (i, l) in doc.levels.iter().enumerate() {
        let dir = out.join(&l.dir);
        assert!(dir.join("env-result.jsonl").is_file(), "{}", l.dir);
        assert!(!dir.join("report.json").exists(), "{}", l.dir);
        assert_eq!(l.env_metrics.len(), 1);
        let m = &l.env_metrics[0];
        assert!(m["write_after_question_rate"]["denominator"].as_u64() > Some(0));
        // The level's rate is its env-report.json's.
        let report: serde_json::Value =
            serde_json::from_str(&read(&dir.join("env-report.json"))).expect("env-report");
        assert_eq!(m, &report["ledger_env"], "level {i}");
        assert_eq!(
            l.task_accuracy,
            report["ledger_env"]["env_task_success"]["value"].as_f64()
        );
        let dataset = read(&dir.join("dataset.jsonl"));
        run_levels.push(wildtool_lab::sweep::LevelRun {
            fingerprint: wildtool_core::dataset::fingerprint_hex(&dataset),
            outcomes: Vec::new(),
            env: Some(wildtool_lab::sweep::EnvRun {
                dataset,
                result: read(&dir.join("env-result.jsonl")),
            }),
        });
    }
    let input = wildtool_lab::sweep::ViewInput {
        plan: wildtool_lab::sweep::PlanInput {
            factor: format!("challenge={levels}"),
            seed: "5".into(),
            per_level: "8".into(),
            hold: String::new(),
        },
        model: "baseline".into(),
        levels: run_levels,
        width: 0.0,
    };
    let page: wildtool_lab::sweep::ViewOutput = serde_json::from_str(
        &wildtool_lab::sweep::view(&serde_json::to_string(&input).expect("input")).expect("view"),
    )
    .expect("view output");
    assert_eq!(page.doc, json_text);
    assert_eq!(page.html, read(&out.join("sweep.html")));
    assert!(page.view.contains("sweep-env"));

    // Levels of different kinds cannot be swept together.
    let o = wildtool(&[
        "sweep",
        "--factor",
        "env=none,ledger",
        "--per-level",
        "4",
        "--seed",
        "5",
        "--provider",
        "gold",
        "--out",
        tmp("mixed-env").to_str().unwrap_or(""),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
}
