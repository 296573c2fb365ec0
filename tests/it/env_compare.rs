//! Ledger-environment runs compared (an extension): `wildtool compare` pairs a
//! gold-history env run with an own-history `--env ledger` run on `env_success` and writes
//! the self-conditioning figure on `env_success`; the page's comparison (the lab module's
//! `env_compare_view`, given the two result files) computes the same `compare.json` and
//! `self-conditioning.json`, byte for byte.

use std::path::Path;
use std::process::Command;

use crate::runner_live::tmp;

fn suite() -> String {
    format!("{}/data/suite.jsonl", env!("CARGO_MANIFEST_DIR"))
}

fn spawn(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_wildtool"))
        .args(args)
        .env_remove("OPENAI_API_KEY")
        .output()
        .expect("spawn")
}

fn wt(args: &[&str]) -> std::process::Output {
    let o = spawn(args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// `agent`'s gold-history env run of the suite into `out`.
fn env_run(agent: &str, out: &Path) {
    wt(&[
        "run",
        "--env",
        "ledger",
        "--dataset",
        &suite(),
        "--provider",
        agent,
        "--out",
        &out.display().to_string(),
    ]);
}

fn run_pair(agent: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let gold = tmp(&format!("envcmp-{agent}-gold"));
    let own = tmp(&format!("envcmp-{agent}-own"));
    let suite = suite();
    let o = own.display().to_string();
    env_run(agent, &gold);
    wt(&[
        "run",
        "--history",
        "own",
        "--env",
        "ledger",
        "--sessions",
        "0-15",
        "--dataset",
        &suite,
        "--provider",
        agent,
        "--out",
        &o,
    ]);
    (gold, own)
}

fn lab_input(gold: &Path, own: &Path, agent: &str) -> wildtool_contract::env::EnvCompareInput {
    let text = read(Path::new(&suite()));
    let loaded = wildtool_core::dataset::load_dataset(&text, wildtool_core::dataset::Lang::En);
    let sessions = loaded
        .sessions
        .iter()
        .filter(|s| s.raw.get("ledger_env").is_some())
        .map(|s| wildtool_contract::env::EnvSession {
            line: s.index,
            text: wildtool_core::json::dumps(&s.raw, wildtool_core::json::Escape::Utf8),
        })
        .collect();
    wildtool_contract::env::EnvCompareInput {
        fingerprint: wildtool_core::dataset::fingerprint_hex(&text),
        shapes: wildtool_core::share::task_shapes(&loaded),
        sessions,
        runs: vec![
            wildtool_contract::env::EnvCompareRun {
                label: agent.into(),
                result: read(&gold.join("env-result.jsonl")),
            },
            wildtool_contract::env::EnvCompareRun {
                label: agent.into(),
                result: read(&own.join("own-result.jsonl")),
            },
        ],
    }
}

#[test]
fn env_runs_of_both_history_modes_compare_on_env_success_in_the_cli_and_the_page() {
    for agent in ["gold", "baseline"] {
        let (gold, own) = run_pair(agent);
        let out = tmp(&format!("envcmp-{agent}-cmp"));
        let o = wt(&[
            "compare",
            &gold.display().to_string(),
            &own.display().to_string(),
            "--dataset",
            &suite(),
            "--out",
            &out.display().to_string(),
        ]);
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert!(stdout.contains("runs paired on env_success"), "{stdout}");
        assert!(stdout.contains("on env_success"), "{stdout}");
        let cmp = read(&out.join("compare.json"));
        let fig = read(&out.join("self-conditioning.json"));
        let f: serde_json::Value = serde_json::from_str(&fig).expect("figure");
        assert!(f["on"]
            .as_str()
            .is_some_and(|s| s.starts_with("env_success")));
        assert_eq!(f["own"], format!("{agent} (own history) (ledger env)"));
        assert_eq!(f["gold"], format!("{agent} (ledger env)"));
        assert_eq!(f["tasks"], 64);
        if agent == "gold" {
            assert_eq!(f["task_accuracy_delta"]["estimate"], 0.0);
            assert_eq!(f["propagation_own"]["failures_with_predecessor"], 0);
        }
        // The page's comparison of the same two result files.
        let c = wildtool_lab::env_compare::documents(&lab_input(&gold, &own, agent))
            .expect("the lab compares");
        assert_eq!(c.doc.to_json() + "\n", cmp, "{agent}: compare.json");
        assert_eq!(
            c.figure.expect("a figure").to_json(),
            fig,
            "{agent}: self-conditioning.json"
        );
        let view = wildtool_lab::call(
            "env_compare_view",
            &serde_json::to_string(&lab_input(&gold, &own, agent)).expect("input"),
        )
        .expect("view");
        assert!(view.contains("Extension: ledger environment"));
        assert!(view.contains("env-self-conditioning"));
    }
}

#[test]
fn an_own_history_run_without_the_ledger_is_not_compared_with_env_runs() {
    let suite = suite();
    let gold = tmp("envcmp-refuse-gold");
    let own = tmp("envcmp-refuse-own");
    env_run("gold", &gold);
    wt(&[
        "run",
        "--history",
        "own",
        "--sessions",
        "0-3",
        "--dataset",
        &suite,
        "--provider",
        "gold",
        "--out",
        &own.display().to_string(),
    ]);
    let o = spawn(&[
        "compare",
        &gold.display().to_string(),
        &own.display().to_string(),
        "--dataset",
        &suite,
        "--out",
        &tmp("envcmp-refuse-out").display().to_string(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("without the ledger environment"));
}
