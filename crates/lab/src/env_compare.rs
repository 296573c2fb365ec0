//! Ledger-environment runs compared (an extension, never an official number): each run's
//! result file (`env-result.jsonl` in gold history, `own-result.jsonl` in own history) is
//! scored with the functions `wildtool env-score` and `wildtool run --history own --env
//! ledger` use, its tasks become outcomes whose `correct` is `env_success`, and the runs
//! are paired with the core's comparison — the `compare.json` `wildtool compare` writes for
//! the same env runs, with its exact McNemar test and paired session bootstrap. With a
//! gold-history and an own-history run among them (the first of each), the
//! self-conditioning figure on `env_success` is the CLI's `self-conditioning.json`.

use wildtool_contract::env::EnvCompareInput;
use wildtool_core::chart::format_percent;
use wildtool_core::compare::paired::CategoryDelta;
use wildtool_core::compare::{compare_runs, BootstrapOptions, CompareDoc, DatasetRef, RunInput};
use wildtool_core::ledger::metrics::{EnvMetrics, EXTENSION_LABEL};
use wildtool_core::ledger::outcomes::env_outcomes_on;
use wildtool_core::own::figure::{self_conditioning, Propagation, SelfConditioning};
use wildtool_ui::{el, el_text, Element};

use crate::compare::{estimate_text, p_text};
use crate::{read, LabError};

/// One scored run of the comparison.
#[derive(Debug, Clone)]
pub struct EnvRunScored {
    /// Its label in the comparison (`… (own history) (ledger env)` as the CLI labels it).
    pub label: String,
    /// Own history.
    pub own: bool,
    /// Its env metrics.
    pub metrics: EnvMetrics,
    /// Own history: sessions whose final ledger is right, of sessions.
    pub final_ledger: Option<(u64, u64)>,
}

/// The comparison's documents and the runs' metrics.
#[derive(Debug, Clone)]
pub struct EnvComparison {
    /// `compare.json` (as `wildtool compare` writes it for these runs).
    pub doc: CompareDoc,
    /// `self-conditioning.json`, with a gold-history and an own-history run.
    pub figure: Option<SelfConditioning>,
    /// The runs, in order.
    pub runs: Vec<EnvRunScored>,
}

/// Scores the runs and compares them.
pub fn documents(input: &EnvCompareInput) -> Result<EnvComparison, LabError> {
    let fingerprint = u64::from_str_radix(&input.fingerprint, 16)
        .map_err(|_| LabError::Input("the dataset fingerprint is not 16 hex digits".into()))?;
    let sessions = crate::env::sessions_of(&input.sessions)?;
    let mut runs = Vec::new();
    let mut scored_runs = Vec::new();
    for run in &input.runs {
        let (scored, verdicts) = crate::env::score_any(&sessions, &input.fingerprint, &run.result)
            .map_err(|e| LabError::Message(format!("{}: {e}", run.label)))?;
        let own = verdicts.is_some();
        let label = if own {
            format!("{} (own history) (ledger env)", run.label)
        } else {
            format!("{} (ledger env)", run.label)
        };
        runs.push(RunInput {
            label: label.clone(),
            fingerprint,
            trials: vec![env_outcomes_on(&input.shapes, &scored.sessions)],
        });
        scored_runs.push(EnvRunScored {
            label,
            own,
            metrics: scored.metrics,
            final_ledger: verdicts,
        });
    }
    let dataset = DatasetRef {
        fingerprint,
        shapes: &input.shapes,
    };
    let opts = BootstrapOptions::default();
    let doc = compare_runs(&runs, dataset, &opts)?;
    let gold = scored_runs.iter().position(|r| !r.own);
    let own = scored_runs.iter().position(|r| r.own);
    let figure = match (gold, own) {
        (Some(g), Some(o)) => {
            Some(self_conditioning(&runs[g], &runs[o], dataset, &opts)?.on_env_success())
        }
        _ => None,
    };
    Ok(EnvComparison {
        doc,
        figure,
        runs: scored_runs,
    })
}

/// A table that scrolls sideways on a narrow screen (a focusable, labelled region), its
/// cells kept on one line.
fn boxed(table: Element, id: &str, label: &str) -> Element {
    el("div")
        .class("table-box")
        .id(format!("{id}-box"))
        .attr("tabindex", "0")
        .attr("role", "region")
        .attr(
            "aria-label",
            format!("{label} (scrolls sideways on narrow screens)"),
        )
        .child(table.class("data-table leaderboard").id(id))
}

fn metrics_table(runs: &[EnvRunScored]) -> Element {
    let mut headers = vec!["metric".to_owned()];
    headers.extend(runs.iter().map(|r| r.label.clone()));
    let names: Vec<&'static str> = runs
        .first()
        .map(|r| r.metrics.rates().into_iter().map(|(n, _)| n).collect())
        .unwrap_or_default();
    let mut rows: Vec<Vec<String>> = names
        .iter()
        .map(|name| {
            let mut row = vec![name.replace('_', " ")];
            for r in runs {
                let rate = r.metrics.rates().into_iter().find(|(n, _)| n == name);
                row.push(rate.map(|(_, x)| x.text()).unwrap_or_else(|| "–".into()));
            }
            row
        })
        .collect();
    let mut excess = vec!["mean excess writes".to_owned()];
    excess.extend(runs.iter().map(|r| match r.metrics.mean_excess() {
        Some((m, lo, hi)) => format!("{m:.2}  (95% {lo:.2}–{hi:.2})"),
        None => "–".into(),
    }));
    rows.push(excess);
    if runs.iter().any(|r| r.own) {
        let mut row = vec!["final ledger correct (own history)".to_owned()];
        row.extend(runs.iter().map(|r| match r.final_ledger {
            Some((k, n)) if n > 0 => format!(
                "{}  ({k}/{n} sessions)",
                format_percent(k as f64 / n as f64)
            ),
            Some(_) => "–".into(),
            None => "gold history".into(),
        }));
        rows.push(row);
    }
    boxed(
        wildtool_ui::data_table(
            "Ledger environment metrics per run (counts and 95% Wilson intervals; an extension)",
            &headers,
            &rows,
        ),
        "env-compare-metrics",
        "Env metrics per run",
    )
}

fn pair_block(doc: &CompareDoc, n: usize) -> Option<Element> {
    let p = doc.pairs.get(n)?;
    let rows = vec![
        vec![
            "env task success".to_owned(),
            format_percent(p.task_accuracy.a),
            format_percent(p.task_accuracy.b),
            estimate_text(&p.task_accuracy_delta),
        ],
        vec![
            "tasks where they differ".to_owned(),
            format!("{} succeeded only here", p.a_only),
            format!("{} succeeded only here", p.b_only),
            format!("exact McNemar {}", p_text(p.mcnemar_p)),
        ],
    ];
    let headers = vec![
        "measure".to_owned(),
        p.a.clone(),
        p.b.clone(),
        format!("{} − {}", p.a, p.b),
    ];
    Some(
        el("section")
            .class("panel")
            .id(format!("env-pair-{}", n + 1))
            .attr("aria-labelledby", format!("env-pair-{}-title", n + 1))
            .child(el_text("h3", format!("{} vs {}", p.a, p.b)).id(format!("env-pair-{}-title", n + 1)))
            .child(
                el_text(
                    "p",
                    format!(
                        "{} tasks paired over {} sessions (the tasks both runs scored); paired session bootstrap interval, exact two-sided McNemar test on env_success.",
                        p.tasks, p.sessions
                    ),
                )
                .class("muted"),
            )
            .child(boxed(
                wildtool_ui::data_table(
                    "Env task success, paired (an extension, not a WildToolBench metric)",
                    &headers,
                    &rows,
                ),
                &format!("env-pair-{}-table", n + 1),
                "The pair's env task success",
            )),
    )
}

fn category_rows(
    cats: &[CategoryDelta],
    name: &dyn Fn(&CategoryDelta) -> String,
) -> Vec<Vec<String>> {
    cats.iter()
        .map(|c| match (&c.delta, &c.rates) {
            (Some(d), Some(r)) => vec![
                name(c),
                c.tasks.to_string(),
                format_percent(r.a),
                format_percent(r.b),
                estimate_text(d),
                p_text(c.p),
            ],
            _ => vec![
                name(c),
                c.tasks.to_string(),
                "–".into(),
                "–".into(),
                "no paired task".into(),
                "–".into(),
            ],
        })
        .collect()
}

fn share_text(p: &Propagation) -> String {
    match p.share {
        Some(s) => format!(
            "{} ({} of {} failed tasks at positions 2–4 follow an earlier failure of their session)",
            format_percent(s),
            p.following_failure,
            p.failures_with_predecessor
        ),
        None => "none (no failed task at positions 2–4)".to_owned(),
    }
}

fn figure_block(f: &SelfConditioning) -> Element {
    let headers: Vec<String> = [
        "",
        "tasks",
        "own history",
        "gold history",
        "own − gold",
        "exact test",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    el("section")
        .class("panel")
        .id("env-self-conditioning")
        .attr("aria-labelledby", "env-sc-title")
        .child(el_text("h3", "Self-conditioning on env_success (own − gold history)").id("env-sc-title"))
        .child(el_text("p", f.extension).class("badge extension"))
        .child(el_text(
            "p",
            format!(
                "{} minus {}: {} over {} paired tasks; {} succeeded in own history only, {} in gold history only ({}).",
                f.own,
                f.gold,
                estimate_text(&f.task_accuracy_delta),
                f.tasks,
                f.own_only,
                f.gold_only,
                p_text(f.mcnemar_p)
            ),
        ).id("env-sc-overall"))
        .child(boxed(
            wildtool_ui::data_table(
                "By task position",
                &headers,
                &category_rows(&f.by_position, &|c| c.label.clone()),
            ),
            "env-sc-position",
            "By task position",
        ))
        .child(boxed(
            wildtool_ui::data_table(
                "By the session's instruction transitions",
                &headers,
                &category_rows(&f.by_transitions, &|c| format!("{} transitions", c.key)),
            ),
            "env-sc-transitions",
            "By instruction transitions",
        ))
        .child(
            el("ul")
                .id("env-sc-propagation")
                .child(el_text("li", format!("Error propagation, own history: {}", share_text(&f.propagation_own))))
                .child(el_text("li", format!("Error propagation, gold history (the baseline): {}", share_text(&f.propagation_gold)))),
        )
        .child(el_text(
            "p",
            "What it can show: how much env success the model loses or gains when it carries its own history and ledger, where in the session, and how often a failure follows another. What it cannot: why — a failure after a failure may be caused by it or share its cause; the gold-history share is the baseline.",
        ).class("muted"))
}

/// The comparison view (wire JSON of an element).
pub fn view(input: &str) -> Result<String, LabError> {
    let input: EnvCompareInput = read(input)?;
    let c = documents(&input)?;
    let mut section = el("section")
        .id("env-compare")
        .attr("aria-labelledby", "env-compare-title")
        .child(el_text("h2", "Extension: ledger environment — runs compared").id("env-compare-title"))
        .child(
            el_text(
                "p",
                format!("{EXTENSION_LABEL}. The runs are paired on env_success, as wildtool compare pairs env runs; no official number is shown or mixed in."),
            )
            .class("banner")
            .id("env-compare-note")
            .attr("role", "note"),
        )
        .child(metrics_table(&c.runs));
    for n in 0..c.doc.pairs.len() {
        if let Some(b) = pair_block(&c.doc, n) {
            section = section.child(b);
        }
    }
    if let Some(f) = &c.figure {
        section = section.child(figure_block(f));
    }
    Ok(section.to_json())
}
