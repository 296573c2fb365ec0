//! Ledger-environment runs in the Compare view (an extension): a gold-history and an
//! own-history env run of one agent are compared on `env_success` by the lab module's
//! `env_compare_view` from their stored result files — the `compare.json` and
//! `self-conditioning.json` of `wildtool compare` on the same files
//! (`tests/it/env_compare.rs`) — and never with an official run.

use super::*;

fn env_run(url: &str, kv: std::collections::BTreeMap<String, String>) -> Browser {
    let mut b = Browser::open(url, kv);
    b.act("start", "", "");
    assert_eq!(
        b.hook("runOutcome").as_deref(),
        Some("done"),
        "{}",
        b.text("status")
    );
    b
}

#[test]
fn env_runs_of_both_history_modes_are_compared_on_env_success_with_the_figure() {
    let gold = env_run(
        "http://page/?provider=baseline&env=ledger&history=gold",
        Default::default(),
    );
    let gold_id = gold.state.env.shown.as_ref().unwrap().id.clone();
    let own = env_run(
        "http://page/?provider=baseline&env=ledger&history=own",
        gold.kv.clone(),
    );
    let own_id = own.state.env.shown.as_ref().unwrap().id.clone();
    let official = env_run("http://page/?provider=baseline", own.kv.clone());
    let official_id = official.state.shown.as_ref().unwrap().id.clone();

    let mut b = Browser::open("http://page/?view=compare", official.kv.clone());
    // The picker's rows say which history each env run saw.
    let rows = b.deep_text("compare-picker");
    assert!(
        rows.contains("ledger environment, gold history (extension)"),
        "{rows}"
    );
    assert!(
        rows.contains("ledger environment, own history (extension)"),
        "{rows}"
    );
    assert_eq!(rows.matches("history (extension)").count(), 2, "{rows}");
    b.act("compare-pick", &gold_id, "true");
    b.act("compare-pick", &own_id, "true");
    assert!(
        b.lab_calls.contains(&"env_compare_view"),
        "{:?}",
        b.lab_calls
    );
    assert!(!b.lab_calls.contains(&"compare_view"));
    let text = b.deep_text("env-compare");
    assert!(text.contains("Extension: ledger environment"), "{text}");
    assert!(
        text.contains("baseline (own history) (ledger env)"),
        "{text}"
    );
    assert!(b
        .deep_text("env-compare-metrics")
        .contains("write after question rate"));
    assert!(b
        .deep_text("env-sc-title")
        .contains("Self-conditioning on env_success"));

    // The numbers are the lab module's documents of the two stored result files.
    let sessions = b
        .state
        .env_sessions()
        .into_iter()
        .map(|s| wildtool_contract::env::EnvSession {
            line: s.index,
            text: wildtool_core::json::dumps(&s.raw, wildtool_core::json::Escape::Utf8),
        })
        .collect();
    let input = wildtool_contract::env::EnvCompareInput {
        fingerprint: wildtool_core::dataset::fingerprint_hex(SUITE),
        shapes: b.state.dataset.unwrap().shapes.clone(),
        sessions,
        runs: [&gold_id, &own_id]
            .iter()
            .map(|id| wildtool_contract::env::EnvCompareRun {
                label: "baseline".into(),
                result: b.kv[&format!("envres/{id}")].clone(),
            })
            .collect(),
    };
    let c = wildtool_lab::env_compare::documents(&input).unwrap();
    let f = c.figure.unwrap();
    let overall = b.deep_text("env-sc-overall");
    assert!(
        overall.contains(&format!("over {} paired tasks", f.tasks)),
        "{overall}"
    );
    assert!(overall.contains(&format!("{} succeeded in own history only", f.own_only)));
    let pair = &c.doc.pairs[0];
    assert!(b
        .deep_text("env-pair-1")
        .contains(&format!("{} succeeded only here", pair.a_only)));

    // An official run is never compared with an env run.
    b.act("compare-pick", &official_id, "true");
    assert!(
        b.text("compare-wait")
            .contains("not compared with an official run"),
        "{}",
        b.text("compare-area")
    );
    // Official runs alone are compared as before.
    b.act("compare-pick", &gold_id, "false");
    b.act("compare-pick", &own_id, "false");
    let mut other = env_run("http://page/?provider=gold", b.kv.clone());
    let gold_official = other.state.shown.as_ref().unwrap().id.clone();
    other.act("nav", "compare", "");
    other.act("compare-pick", &official_id, "true");
    other.act("compare-pick", &gold_official, "true");
    assert!(other.lab_calls.contains(&"compare_view"));
    assert!(other.deep_text("compare-area").contains("baseline"));
}
