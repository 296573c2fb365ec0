//! The item audit under the comparison: the lab module's audit of the compared runs is
//! the core's audit of their stored outcomes (the numbers of `wildtool audit`), asked for
//! once per choice of runs.

use super::*;

#[test]
fn the_comparison_shows_the_item_audit_of_the_stored_runs() {
    let (mut b, gold, baseline) = gold_and_baseline();
    b.act("nav", "compare", "");
    b.act("compare-pick", &gold, "true");
    b.act("compare-pick", &baseline, "true");
    let stored = |id: &str| -> Vec<wildtool_core::outcome::TaskOutcome> {
        serde_json::from_str(&b.kv[&format!("out/{id}")]).unwrap()
    };
    let d = b.state.dataset.unwrap();
    let run = |id: &str| wildtool_core::audit::AuditRun {
        label: b.state.history.get(id).unwrap().label.clone(),
        trials: vec![stored(id)],
        failures: Vec::new(),
    };
    let doc = wildtool_core::audit::audit(
        &[run(&gold), run(&baseline)],
        &d.shapes,
        d.fingerprint_u64(),
    )
    .unwrap();
    let summary = b.deep_text("audit-summary");
    assert!(
        summary.starts_with(&format!(
            "{} items over 2 runs: {} never passed, {} passed by every run",
            doc.summary.items, doc.summary.never_passed, doc.summary.always_passed
        )),
        "{summary}"
    );
    // The gold agent passes every task, so no item is never passed.
    assert_eq!(doc.summary.never_passed, 0);
    let md = b.deep_text("audit-md");
    assert_eq!(md, doc.markdown("the loaded dataset"));
    // Other messages do not compute it again.
    b.act("nav", "history", "");
    b.act("nav", "compare", "");
    assert_eq!(
        b.lab_calls.iter().filter(|c| **c == "audit_view").count(),
        1
    );
}
