//! The Compare view's planner, driven like the browser does: the lab module's plan of the
//! compared runs is the core's `plan` for the same runs (what `wildtool plan --pilot A
//! --pilot-b B` prints), typed fields change it, and a field that cannot be read is named.

use super::*;
use wildtool_core::plan::{plan, PlanPilot, PlanSettings};

#[test]
fn the_planner_states_the_cores_plan_of_the_compared_runs() {
    let (mut b, gold, baseline) = gold_and_baseline();
    b.act("nav", "compare", "");
    assert!(
        b.frame().root.by_id("plan-area").is_none(),
        "no runs, no plan"
    );
    b.act("compare-pick", &gold, "true");
    b.act("compare-pick", &baseline, "true");
    let stored = |id: &str| -> Vec<wildtool_core::outcome::TaskOutcome> {
        serde_json::from_str(&b.kv[&format!("out/{id}")]).unwrap()
    };
    let d = b.state.dataset.unwrap();
    let run = |id: &str| wildtool_core::compare::RunInput {
        label: b.state.history.get(id).unwrap().label.clone(),
        fingerprint: d.fingerprint_u64(),
        trials: vec![stored(id)],
    };
    let dataset = wildtool_core::compare::DatasetRef {
        fingerprint: d.fingerprint_u64(),
        shapes: &d.shapes,
    };
    let (a, bb) = (run(&gold), run(&baseline));
    let expected = |pair: bool, sessions: u64, trials: u32, difference: Option<f64>| {
        let pilot = PlanPilot::new(&a, pair.then_some(&bb), dataset).unwrap();
        plan(
            &pilot,
            &PlanSettings {
                sessions,
                trials,
                rule: Default::default(),
                power: 0.8,
                difference_points: difference,
            },
        )
        .unwrap()
        .summary_text()
    };
    let mut sessions: Vec<u32> = d.shapes.iter().map(|s| s.session).collect();
    sessions.dedup();
    let n = sessions.len() as u64;
    let shown = |b: &Browser| {
        let f = b.frame();
        f.root
            .by_id("plan-result")
            .map(|r| {
                r.elements()
                    .into_iter()
                    .filter(|e| e.get("class") == Some("plan-line"))
                    .map(|e| e.text_content())
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default()
    };
    // Two pilots at the dataset's size, one trial: the plan's own lines.
    assert_eq!(shown(&b) + "\n", expected(true, n, 1, None));
    assert!(shown(&b).contains("80% power"), "{}", shown(&b));
    // Sessions, trials and a drop typed: the same numbers as the core's.
    b.act("plan-set", "sessions", "200");
    b.act("plan-set", "trials", "3");
    b.act("plan-set", "difference", "5");
    assert_eq!(shown(&b) + "\n", expected(true, 200, 3, Some(5.0)));
    assert!(shown(&b).contains("for a drop of 5.0 points"));
    // One pilot only.
    b.act("plan-set", "pair", "false");
    assert_eq!(shown(&b) + "\n", expected(false, 200, 3, Some(5.0)));
    // A field that cannot be read is named, and nothing is planned.
    b.act("plan-set", "trials", "three");
    assert!(shown(&b).is_empty());
    assert!(
        b.deep_text("plan-error").contains("Trials: \"three\""),
        "{}",
        b.deep_text("plan-error")
    );
    b.act("plan-set", "trials", "");
    assert_eq!(shown(&b) + "\n", expected(false, 200, 1, Some(5.0)));
}
