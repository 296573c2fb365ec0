//! Cost in money in the page: the price table (the bundled one or the one the user
//! saved), its editor and its check, runs priced from their recorded usage (the core's
//! `cost::figures`, the `cost` of `report.json` and `compare.json`) and the estimate
//! before a run (the core's `runner::dry_run`, what `wildtool run --dry-run` prints).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use wildtool_contract::Action;

use wildtool_contract::inputs::{CostInput, CostRun, PriceEditorInput};
use wildtool_core::cost::figures::{money, run_figures};
use wildtool_core::cost::usage::{record_cached, task_steps, StepTokens};
use wildtool_core::cost::{CostFigures, PriceTable, Pricing};
use wildtool_core::dataset::{load_dataset, Lang, LoadedDataset};
use wildtool_core::runner::checkpoint::TaskRecord;
use wildtool_core::runner::dry_run::estimate_run;
use wildtool_core::runner::provider::{Endpoint, ProviderKind};
use wildtool_ui::{data_table, el, el_text, Element};

use crate::widgets::button;
use crate::{read, LabError};

/// The name of a table the user saved, as a source.
pub const SAVED_SOURCE: &str = "price table saved in this browser";

/// The table in use and its source: the saved one, else the bundled one.
fn table(saved: Option<&str>) -> Result<(PriceTable, String), LabError> {
    match saved {
        Some(text) => PriceTable::parse(text)
            .map(|t| (t, SAVED_SOURCE.to_owned()))
            .map_err(|e| LabError::Message(e.to_string())),
        None => Ok((PriceTable::bundled(), Pricing::bundled_source())),
    }
}

/// Usage by `(session, task)` of one trial, from checkpoint records (later records of a
/// task replace earlier ones, as on resume) or from a result or score file's text.
fn trial_usage(run: &CostRun, trial: u32) -> Vec<(usize, usize, Vec<StepTokens>)> {
    if let Some(records) = &run.records {
        let mut by_task: BTreeMap<(usize, usize), Vec<StepTokens>> = BTreeMap::new();
        for line in records {
            let Some(rec) = TaskRecord::from_line(line).filter(|r| r.trial == trial) else {
                continue;
            };
            let Some(session) = rec.id.rsplit('_').next().and_then(|n| n.parse().ok()) else {
                continue;
            };
            let cached = wildtool_core::json::loads(line)
                .ok()
                .and_then(|v| record_cached(&v));
            by_task.insert(
                (session, rec.task),
                task_steps(&rec.result, cached.as_deref()),
            );
        }
        return by_task.into_iter().map(|((s, t), u)| (s, t, u)).collect();
    }
    if trial != 1 {
        return Vec::new();
    }
    run.text
        .as_deref()
        .unwrap_or_default()
        .lines()
        .flat_map(|l| wildtool_core::cost::usage::line_usage(l, &|_, _| None))
        .collect()
}

/// What a run's cost is: its figures, or why there are none.
#[derive(Debug, Clone, PartialEq)]
pub enum RunCost {
    /// Priced.
    Known(CostFigures),
    /// No price table entry for the model.
    NotPriced(String),
    /// The server reported no token counts (or the run's requests are not stored).
    Unknown(String),
}

/// The cost of `run` with `table` (the figures `report.json` has; with trials, the sum
/// over the trials).
pub fn run_cost(run: &CostRun, table: &PriceTable, source: &str) -> RunCost {
    if run.builtin {
        return RunCost::NotPriced(
            "no cost: a built-in agent answers without asking a model".to_owned(),
        );
    }
    let Some(pricing) = Pricing::find(table, &run.model, source) else {
        return RunCost::NotPriced(format!(
            "not priced: no price for \"{}\" in the {source}",
            run.model
        ));
    };
    if run.records.is_none() && run.text.is_none() {
        return RunCost::Unknown(
            "cost unknown: this run's requests are not stored in this browser".to_owned(),
        );
    }
    let parts: Vec<CostFigures> = run
        .trials
        .iter()
        .zip(1u32..)
        .map(|(outcomes, t)| run_figures(&pricing, outcomes, &trial_usage(run, t)))
        .collect();
    match CostFigures::combine(&parts) {
        Some(f) if f.requests > 0 && f.unreported_requests < f.requests => RunCost::Known(f),
        _ => RunCost::Unknown("cost unknown: the server reported no usage".to_owned()),
    }
}

/// The runs' cost (wire JSON of a `section`): a table of cost, cost per task and per
/// solved task, each run's state said in words where there is no number.
pub fn view(input: &str) -> Result<String, LabError> {
    let input: CostInput = read(input)?;
    let (table, source) = table(input.prices.as_deref())?;
    let mut notes = Vec::new();
    let rows: Vec<Vec<String>> = input
        .runs
        .iter()
        .map(|r| match run_cost(r, &table, &source) {
            RunCost::Known(f) => {
                let cur = &f.pricing.currency;
                let per = |v: Option<f64>| v.map_or("no task solved".to_owned(), |x| format!("{} {cur}", money(x)));
                if f.unreported_requests > 0 {
                    notes.push(format!(
                        "{}: {} of {} requests reported no usage and count as 0.",
                        r.label, f.unreported_requests, f.requests
                    ));
                }
                if !f.cached_known {
                    notes.push(format!(
                        "{}: no cached prompt tokens were reported; every prompt token is priced as uncached.",
                        r.label
                    ));
                }
                vec![
                    r.label.clone(),
                    format!("{} {cur}", money(f.total)),
                    f.per_task.map_or("—".to_owned(), |x| format!("{} {cur}", money(x))),
                    per(f.per_solved_task),
                    format!(
                        "{} requests, {} prompt ({} cached), {} completion tokens; prices of {} from the {}",
                        f.requests,
                        f.input_tokens,
                        f.cached_input_tokens,
                        f.output_tokens,
                        f.pricing.model,
                        f.pricing.source
                    ),
                ]
            }
            RunCost::NotPriced(why) | RunCost::Unknown(why) => {
                vec![r.label.clone(), why, String::new(), String::new(), String::new()]
            }
        })
        .collect();
    let headers = ["Run", "Cost", "Per task", "Per solved task", "From"].map(str::to_owned);
    Ok(el("section")
        .id("cost")
        .attr("aria-labelledby", "cost-title")
        .child(el_text("h3", "Cost in money").id("cost-title"))
        .child(wildtool_views::widgets::table_box().child(data_table(
            "Every recorded request of the scored tasks at the price table's prices (with trials, all trials)",
            &headers,
            &rows,
        )))
        .children(notes.into_iter().map(|n| el_text("p", n).class("muted")))
        .to_json())
}

/// Checks a price table's text: the table as it will be saved, or the reason it is
/// refused naming the field (`price table: models.gpt-4o.input must be …`).
pub fn check(input: &str) -> Result<String, LabError> {
    let text: String = read(input)?;
    PriceTable::parse(&text).map_err(|e| LabError::Message(e.to_string()))?;
    Ok(text.trim().to_owned())
}

/// The price table editor (wire JSON of a `div`): the prices in use as a table, the
/// table's text to edit, Save and Use the bundled prices.
pub fn editor(input: &str) -> Result<String, LabError> {
    let input: PriceEditorInput = read(input)?;
    let estimate = estimate(&input);
    let text = input
        .draft
        .clone()
        .or_else(|| input.saved.clone())
        .unwrap_or_else(|| wildtool_core::cost::prices::BUNDLED.trim().to_owned());
    let (shown, source) = table(input.saved.as_deref())?;
    let rows: Vec<Vec<String>> = shown
        .models
        .iter()
        .map(|(name, p)| {
            vec![
                name.clone(),
                p.input.to_string(),
                p.cached_input.to_string(),
                p.output.to_string(),
                p.tiers
                    .iter()
                    .map(|t| {
                        format!(
                            "above {} prompt tokens: {} / {} / {}",
                            t.above_prompt_tokens, t.input, t.cached_input, t.output
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("; "),
            ]
        })
        .collect();
    let headers = ["Model", "Input", "Cached input", "Output", "Tiers"].map(str::to_owned);
    Ok(el("div")
        .id("prices-editor")
        .child(estimate)
        .child(el_text(
            "p",
            format!(
                "In use: the {source}, {} per million tokens{}. A model is found by its exact name, then the part after its last /, then the longest prefix* key.",
                shown.currency,
                shown
                    .as_of
                    .as_deref()
                    .map(|d| format!(", as of {d}"))
                    .unwrap_or_default()
            ),
        ).id("prices-source"))
        .child(wildtool_views::widgets::table_box().child(data_table(
            &format!("Prices in {} per million tokens", shown.currency),
            &headers,
            &rows,
        )))
        .child(el("p").child(el("label").attr("for", "prices-text").text("Price table (JSON, the format of wildtool --prices)")))
        .child(el("div").child(
            el("textarea")
                .id("prices-text")
                .attr("rows", "10")
                .attr("cols", "34")
                .attr("spellcheck", "false")
                .attr_opt("aria-invalid", input.error.is_some().then_some("true"))
                .attr_opt(
                    "aria-describedby",
                    input.error.is_some().then_some("prices-error"),
                )
                .attr("value", text)
                .action(Action::Budget.name(), "prices-draft"),
        ))
        .child_opt(input.error.map(|e| {
            el_text("p", e)
                .id("prices-error")
                .class("banner banner-error")
                .attr("role", "alert")
        }))
        .child(
            el("div")
                .class("row")
                .child(button("Save prices", Action::Budget.name(), "prices-save"))
                .child_opt(
                    input
                        .saved
                        .is_some()
                        .then(|| button("Use the bundled prices", Action::Budget.name(), "prices-reset")),
                ),
        )
        .to_json())
}

thread_local! {
    /// The dataset the last estimate read, by fingerprint.
    static DATASET: RefCell<Option<(String, Rc<LoadedDataset>)>> = const { RefCell::new(None) };
}

fn dataset(input: &PriceEditorInput, fingerprint: &str) -> Rc<LoadedDataset> {
    let lang = if input.lang == "zh" {
        Lang::Zh
    } else {
        Lang::En
    };
    let key = format!("{fingerprint}|{}", input.lang);
    if let Some(d) = DATASET.with(|d| {
        d.borrow()
            .as_ref()
            .filter(|(k, _)| *k == key)
            .map(|(_, d)| d.clone())
    }) {
        return d;
    }
    let d = Rc::new(load_dataset(&input.dataset, lang));
    DATASET.with(|c| *c.borrow_mut() = Some((key, d.clone())));
    d
}

/// The "What will this cost?" line: the dry run's estimate of the form's run with its
/// stated error, or why there is no number.
pub fn estimate(input: &PriceEditorInput) -> Element {
    let line = |text: String| el_text("p", text).id("cost-estimate");
    let Some(fingerprint) = input.fingerprint.as_deref() else {
        return line("What will this cost? Load a dataset first.".to_owned());
    };
    if wildtool_core::runner::registry::agent(&input.provider).is_some() {
        return line(
            "What will this cost? Nothing: a built-in agent answers, no requests are sent."
                .to_owned(),
        );
    }
    let settings = || -> Result<(ProviderKind, f64, u32, &str), String> {
        let provider = ProviderKind::from_name(&input.provider)
            .ok_or_else(|| format!("unknown provider {:?}", input.provider))?;
        let t = input.temperature.trim();
        let temperature = t
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .ok_or_else(|| format!("temperature: {t:?} is not a number"))?;
        let k = input.trials.trim();
        let trials = k
            .parse::<u32>()
            .ok()
            .filter(|k| *k >= 1)
            .ok_or_else(|| format!("trials: {k:?} is not a whole number of at least 1"))?;
        let model = input.model.trim();
        if model.is_empty() {
            return Err("the model name is missing".to_owned());
        }
        Ok((provider, temperature, trials, model))
    };
    let (provider, temperature, trials, model) = match settings() {
        Ok(s) => s,
        Err(e) => {
            return line(format!(
                "What will this cost? Complete the settings first: {e}."
            ))
        }
    };
    let (table, source) = match table(input.saved.as_deref()) {
        Ok(t) => t,
        Err(e) => return line(format!("What will this cost? Unknown: the saved {e}")),
    };
    let pricing = Pricing::find(&table, model, &source);
    let data = dataset(input, fingerprint);
    let sessions: Vec<_> = data.sessions.iter().collect();
    let est = estimate_run(
        &sessions,
        trials,
        provider,
        &Endpoint {
            base_url: input.base_url.clone(),
            browser: false,
        },
        model,
        temperature,
        pricing.as_ref().map(|p| &p.prices),
    );
    let err = est.relative_error * 100.0;
    let size = format!(
        "{} task(s), about {} request(s) along the gold paths, {} prompt and {} completion tokens (± {err:.0}%, bytes / 4 of the rendered requests)",
        est.tasks, est.requests, est.input_tokens, est.output_tokens
    );
    line(match (est.cost, pricing) {
        (Some(c), Some(p)) => format!(
            "What will this cost? About {} {} (± {err:.0}%: {} to {}) for {size}; prices of {} from the {}. Reasoning tokens and extra steps are not included; prompt caching would lower it.",
            money(c),
            p.currency,
            money(c * (1.0 - est.relative_error)),
            money(c * (1.0 + est.relative_error)),
            p.model,
            p.source
        ),
        _ => format!(
            "What will this cost? Unknown: no price for \"{model}\" in the {source} (add it under Prices); {size}."
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use wildtool_core::outcome::{TaskOutcome, TaskType};

    fn outcome(session: u32, correct: bool) -> TaskOutcome {
        crate::test_outcome(session, 0, TaskType::ALL[0], correct)
    }

    fn record(session: u32, input: &str, output: &str, cached: Option<&str>) -> String {
        format!(
            r#"{{"id": "s_{session}", "line": {session}, "task": 0, "result": {{"input_token_count": [{input}], "output_token_count": [{output}]}}{}}}"#,
            cached
                .map(|c| format!(r#", "usage": {{"cached_input_token_count": [{c}]}}"#))
                .unwrap_or_default()
        )
    }

    const PRICES: &str = r#"{"wildtool_prices": 1, "currency": "USD", "models": {"m": {"input": 2.0, "cached_input": 1.0, "output": 8.0}}}"#;

    #[test]
    fn cost_is_tokens_times_prices_and_no_usage_is_said() {
        let (t, src) = table(Some(PRICES)).expect("table");
        let run = CostRun {
            label: "a".into(),
            model: "m".into(),
            trials: vec![vec![outcome(0, true), outcome(1, false)]],
            records: Some(vec![
                record(0, "1000", "100", Some("400")),
                record(1, "2000", "50", None),
            ]),
            text: None,
            builtin: false,
        };
        let RunCost::Known(f) = run_cost(&run, &t, &src) else {
            panic!("priced")
        };
        let expected = (600.0 * 2.0 + 400.0 * 1.0 + 100.0 * 8.0 + 2000.0 * 2.0 + 50.0 * 8.0) / 1e6;
        assert!((f.total - expected).abs() < 1e-15, "{f:?}");
        assert_eq!(f.per_solved_task, Some(f.total));
        assert_eq!(f.per_task, Some(f.total / 2.0));
        let silent = CostRun {
            records: Some(vec![record(0, "null", "null", None)]),
            ..run.clone()
        };
        assert!(
            matches!(run_cost(&silent, &t, &src), RunCost::Unknown(w) if w == "cost unknown: the server reported no usage")
        );
        let other = CostRun {
            model: "n".into(),
            ..run.clone()
        };
        assert!(matches!(run_cost(&other, &t, &src), RunCost::NotPriced(_)));
        // A built-in agent asked no model: nothing to price, whatever its name.
        let agent = CostRun {
            model: "baseline".into(),
            builtin: true,
            ..run
        };
        assert!(
            matches!(run_cost(&agent, &t, &src), RunCost::NotPriced(w) if w.starts_with("no cost: a built-in agent"))
        );
    }

    #[test]
    fn a_bad_table_is_refused_naming_the_field() {
        let bad = PRICES.replace("\"output\": 8.0", "\"output\": -1");
        let e = check(&serde_json::to_string(&bad).unwrap_or_default()).unwrap_err();
        assert!(e.to_string().contains("models.m.output"), "{e}");
        assert!(check(&serde_json::to_string(PRICES).unwrap_or_default()).is_ok());
    }
}
