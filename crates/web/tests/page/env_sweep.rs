//! Ledger-environment sweeps in the page (an extension): a `challenge` sweep runs every
//! level in the ledger environment through the env runner (the lab module's `env_step`),
//! and its `sweep.json` is the lab module's analysis of the levels' `env-result.jsonl`
//! files — the analysis `wildtool sweep` writes (`tests/it/sweep_cli.rs`; the page's bytes
//! against the CLI's in `tests/e2e/env.test.mjs`).

use super::*;

#[test]
fn a_challenge_sweep_runs_each_level_in_the_environment_and_counts_env_success() {
    let mut b = open("http://page/?provider=baseline&view=sweep");
    assert!(!b.state.setup.env);
    b.act("gen-set", "sweep-factor", "challenge");
    b.act("gen-set", "sweep-levels", "question,clarify");
    b.act("gen-set", "sweep-per-level", "4");
    b.act("gen-set", "sweep-seed", "3");
    b.act("sweep-start", "", "");
    assert_eq!(
        b.hook("sweep").as_deref(),
        Some("done"),
        "{}",
        b.text("status")
    );
    assert_eq!(b.hook("view").as_deref(), Some("sweep"));
    // Every level's tool calls were answered by the environment (its synchronous
    // `env_step`), once it was loaded.
    // (The view's factor picker aside, which is drawn before the sweep starts.)
    let calls: Vec<&str> = b
        .lab_calls
        .iter()
        .copied()
        .filter(|c| *c != "factor_picker")
        .collect();
    assert_eq!(calls.first(), Some(&"sweep_plan"), "{calls:?}");
    assert_eq!(calls.iter().filter(|c| **c == "env_info").count(), 1);
    assert!(b.state.env.step_ms.1 > 0);
    assert_eq!(calls.last(), Some(&"sweep_view"), "{calls:?}");
    // The setup's own choice is given back after the sweep.
    assert!(!b.state.setup.env);
    let sweep = b.state.gen.sweep.clone().unwrap();
    assert!(sweep.env);
    let mut levels = Vec::new();
    for (i, value) in ["question", "clarify"].iter().enumerate() {
        let id = sweep.runs[i].run.clone().unwrap();
        let entry = b.state.history.get(&id).unwrap();
        assert_eq!(entry.label, format!("baseline · challenge = {value}"));
        assert_eq!(entry.kind, wildtool_web::env::ENV_KIND);
        let plan = wildtool_core::sweep::SweepPlan::from_options(
            "challenge=question,clarify",
            "3",
            "4",
            "",
        )
        .unwrap();
        let suite = core_suite(&plan.level_spec(i).unwrap().to_text());
        let env = sweep.runs[i].env.clone().expect("a ledger level");
        assert_eq!(env.dataset, suite);
        // The level's env-result.jsonl is the one stored with its history entry.
        assert_eq!(b.kv[&format!("envres/{id}")], env.result);
        assert!(sweep.runs[i]
            .accuracy
            .as_deref()
            .is_some_and(|a| a.starts_with("env task success")));
        levels.push(wildtool_lab::sweep::LevelRun {
            fingerprint: wildtool_core::dataset::fingerprint_hex(&suite),
            outcomes: Vec::new(),
            env: Some(wildtool_lab::sweep::EnvRun {
                dataset: suite,
                result: env.result,
            }),
        });
    }
    let input = wildtool_lab::sweep::ViewInput {
        plan: wildtool_lab::sweep::PlanInput {
            factor: "challenge=question,clarify".into(),
            seed: "3".into(),
            per_level: "4".into(),
            hold: String::new(),
        },
        model: "baseline".into(),
        levels,
        width: 0.0,
    };
    let expected: wildtool_lab::sweep::ViewOutput = serde_json::from_str(
        &wildtool_lab::sweep::view(&serde_json::to_string(&input).unwrap()).unwrap(),
    )
    .unwrap();
    b.act("sweep-download", "json", "");
    let doc = b.downloads.last().unwrap().1.clone();
    assert_eq!(doc, expected.doc);
    let parsed = wildtool_core::sweep::SweepDoc::parse(&doc).unwrap();
    assert_eq!(parsed.mode.as_deref(), Some("ledger-env"));
    assert!(parsed.notes[0].starts_with("Extension: ledger environment"));
    for l in &parsed.levels {
        assert_eq!(l.status, "done", "{}", l.dir);
        assert_eq!(l.env_metrics.len(), 1);
        assert!(l.env_metrics[0]["write_after_question_rate"].is_object());
    }
    b.act("sweep-download", "html", "");
    assert_eq!(b.downloads.last().unwrap().1, expected.html);
}
