//! Cost in money on the dashboard and in the comparison: the shown run priced by the lab
//! module's `cost_view` from its recorded usage with the price table Setup saved; the
//! compared runs priced from their stored lines; a server without usage is "cost unknown".

use super::*;

const PRICES: &str =
    r#"{"wildtool_prices": 1, "currency": "USD", "models": {"m": {"input": 2.0, "output": 8.0}}}"#;

/// A run against a server answering every request with `usage` (or none).
fn priced_run(b: &mut Browser, usage: bool) -> String {
    b.state.budget.prices = Some(PRICES.to_owned());
    b.server = Some(Box::new(move |_| {
        let usage = if usage {
            r#", "usage": {"prompt_tokens": 1000, "completion_tokens": 100}"#
        } else {
            ""
        };
        Reply::Response(HttpResponse::new(
            200,
            format!(
                r#"{{"choices": [{{"index": 0, "message": {{"role": "assistant", "content": "Done."}}, "finish_reason": "stop"}}]{usage}}}"#
            ),
        ))
    }));
    b.act("start", "", "");
    finish(b);
    assert_eq!(b.hook("runOutcome").as_deref(), Some("done"));
    b.state.shown.as_ref().unwrap().id.clone()
}

/// The cells of the rows of the cost table `id`.
fn rows(b: &Browser, id: &str) -> Vec<Vec<String>> {
    let f = b.frame();
    let Some(t) = f.root.by_id(id) else {
        return Vec::new();
    };
    t.elements()
        .into_iter()
        .filter(|e| e.tag == "tr")
        .skip(1)
        .map(|r| {
            r.elements()
                .into_iter()
                .filter(|c| c.tag == "td" || c.tag == "th")
                .map(|c| c.text_content())
                .collect()
        })
        .collect()
}

#[test]
fn the_dashboard_and_the_comparison_show_what_runs_cost() {
    let mut b = open(&endpoint("&backoff=0.01"));
    let first = priced_run(&mut b, true);
    let dash = rows(&b, "dash-cost");
    assert_eq!(dash.len(), 1, "{dash:?}");
    // The section says "Cost in money" once: its heading, not again in the caption.
    let section = b.text("dash-cost");
    assert_eq!(section.matches("Cost in money").count(), 1, "{section}");
    let row = &dash[0];
    // Every request cost 1000 × 2 + 100 × 8 per million: 0.0028 USD.
    let requests: f64 = row[4]
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .expect("the requests priced");
    let shown = b.state.shown.as_ref().unwrap();
    let tasks = shown.outcomes.iter().filter(|o| !o.incomplete).count() as f64;
    use wildtool_core::cost::figures::money;
    assert_eq!(
        row[1],
        format!("{} USD", money(requests * 0.0028)),
        "{row:?}"
    );
    assert_eq!(
        row[2],
        format!("{} USD", money(requests * 0.0028 / tasks)),
        "{row:?}"
    );
    assert!(
        row[4].contains("prices of m from the price table saved in this browser"),
        "{row:?}"
    );

    // Without usage the cost is unknown, said in words.
    b.act("nav", "setup", "");
    let second = priced_run(&mut b, false);
    let dash = rows(&b, "dash-cost");
    assert_eq!(dash[0][1], "cost unknown: the server reported no usage");

    // Both runs in the comparison, read from the store.
    b.act("nav", "compare", "");
    b.act("compare-pick", &first, "true");
    b.act("compare-pick", &second, "true");
    let both = rows(&b, "compare-cost");
    assert_eq!(both.len(), 2, "{both:?}");
    assert!(both.iter().any(|r| r[1..4] == row[1..4]), "{both:?}");
    assert!(both
        .iter()
        .any(|r| r[1] == "cost unknown: the server reported no usage"));
}
