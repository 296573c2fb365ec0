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
        b.frame().root.by_id("plan-panel").is_none(),
        "no runs, no plan"
    );
    b.act("compare-pick", &gold, "true");
    b.act("compare-pick", &baseline, "true");
    let d = b.state.dataset.unwrap();
    let run = |id: &str| stored_run(&b, id);
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
    b.act("budget", "plan-sessions", "200");
    b.act("budget", "plan-trials", "3");
    b.act("budget", "plan-difference", "5");
    assert_eq!(shown(&b) + "\n", expected(true, 200, 3, Some(5.0)));
    assert!(shown(&b).contains("for a drop of 5.0 points"));
    // One pilot only.
    b.act("budget", "plan-pair", "false");
    assert_eq!(shown(&b) + "\n", expected(false, 200, 3, Some(5.0)));
    // A field that cannot be read is named, and nothing is planned.
    b.act("budget", "plan-trials", "three");
    assert!(shown(&b).is_empty());
    assert!(
        b.deep_text("plan-error").contains("Trials: \"three\""),
        "{}",
        b.deep_text("plan-error")
    );
    b.act("budget", "plan-trials", "");
    assert_eq!(shown(&b) + "\n", expected(false, 200, 1, Some(5.0)));
}

const PRICES: &str = r#"{"wildtool_prices": 1, "currency": "USD", "models": {"m": {"input": 2.0, "cached_input": 1.0, "output": 8.0}}}"#;

#[test]
fn prices_are_edited_checked_and_kept_only_when_saved() {
    let mut b = open(&endpoint("&backoff=0.01"));
    assert!(
        b.frame().root.by_id("prices-editor").is_none(),
        "closed at first"
    );
    assert!(
        b.lab_calls.is_empty(),
        "Setup loads no lab module by itself"
    );
    b.act("toggle", "prices", "true");
    assert!(b.deep_text("prices-source").contains("bundled price table"));
    assert!(b.deep_text("prices-area").contains("gpt-4o"));
    // An invalid entry is refused, naming the field; nothing is stored.
    b.act(
        "budget",
        "prices-draft",
        &PRICES.replace("8.0", "\"eight\""),
    );
    b.act("budget", "prices-save", "");
    assert!(
        b.deep_text("prices-error").contains("models.m.output"),
        "{}",
        b.deep_text("prices-error")
    );
    assert!(!b.kv.contains_key(PRICES_STORAGE));
    b.act("budget", "prices-draft", "{\"wildtool_prices\": 1");
    b.act("budget", "prices-save", "");
    assert!(b.deep_text("prices-error").contains("not JSON"));
    // Typing alone stores nothing; a valid table saved is kept and used.
    b.act("budget", "prices-draft", PRICES);
    assert!(!b.kv.contains_key(PRICES_STORAGE));
    b.act("budget", "prices-save", "");
    assert_eq!(b.kv.get(PRICES_STORAGE).map(String::as_str), Some(PRICES));
    assert!(b.frame().root.by_id("prices-error").is_none());
    assert!(b
        .deep_text("prices-source")
        .contains("saved in this browser"));
    // A reopened page has it; "Use the bundled prices" removes it.
    let mut r = Browser::open(&endpoint("&backoff=0.01"), b.kv.clone());
    r.act("toggle", "prices", "true");
    assert!(r
        .deep_text("prices-source")
        .contains("saved in this browser"));
    r.act("budget", "prices-reset", "");
    assert!(!r.kv.contains_key(PRICES_STORAGE));
    assert!(r.deep_text("prices-source").contains("bundled price table"));
}

#[test]
fn the_estimate_is_the_dry_runs_for_the_forms_run() {
    let mut b = open(&endpoint("&backoff=0.01&trials=2"));
    b.kv.insert(PRICES_STORAGE.to_owned(), PRICES.to_owned());
    let mut b = Browser::open(&endpoint("&backoff=0.01&trials=2"), b.kv.clone());
    assert!(
        b.frame().root.by_id("cost-estimate").is_none(),
        "closed at first"
    );
    b.act("toggle", "prices", "true");
    let d = b.state.dataset.unwrap();
    let sessions: Vec<_> = d.dataset.sessions.iter().collect();
    let table = wildtool_core::cost::PriceTable::parse(PRICES).unwrap();
    let est = wildtool_core::runner::dry_run::estimate_run(
        &sessions,
        2,
        wildtool_core::runner::provider::ProviderKind::OpenAi,
        &wildtool_core::runner::provider::Endpoint {
            base_url: "http://127.0.0.1:9/v1".into(),
            browser: false,
        },
        "m",
        0.0,
        table.lookup("m").map(|(_, p)| p),
    );
    let line = b.deep_text("cost-estimate");
    let cost = wildtool_core::cost::figures::money(est.cost.unwrap());
    assert!(
        line.contains(&format!("About {cost} USD (± 30%")),
        "{line} vs {est:?}"
    );
    assert!(
        line.contains(&format!(
            "{} prompt and {} completion tokens",
            est.input_tokens, est.output_tokens
        )),
        "{line}"
    );
    // It follows the form.
    b.act("set", "m-trials", "1");
    assert!(b
        .deep_text("cost-estimate")
        .contains(&format!("{} task(s)", est.tasks / 2)));
    b.act("set", "m-model", "unpriced");
    assert!(b
        .deep_text("cost-estimate")
        .contains("Unknown: no price for \"unpriced\""));
}
