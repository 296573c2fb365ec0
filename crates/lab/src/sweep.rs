//! Sweeps in the page: the plan (levels and their suites, checked by the core as
//! `wildtool sweep` checks them) and, once every level ran, the core's analysis —
//! `sweep.json`, `sweep.html` and the view, from the same code as the CLI.

use serde::{Deserialize, Serialize};
use wildtool_contract::Action;
use wildtool_core::chart::{describe, render_svg_with, table, ChartTable, Layout};
use wildtool_core::dataset::Lang;
use wildtool_core::outcome::TaskOutcome;
use wildtool_core::sweep::env::env_trial;
use wildtool_core::sweep::html::{
    chart, env_table, level_table, sweep_html, thousands, trend_lines,
};
use wildtool_core::sweep::{analyse, LevelInput, SweepDoc, SweepInput, SweepPlan, TrendOptions};
use wildtool_ui::{el, el_text, Element, Node};

use crate::{read, LabError};

/// The sweep's options as the page's form holds them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanInput {
    /// `factor=level,level,…`.
    pub factor: String,
    /// The seed.
    pub seed: String,
    /// Sessions per level.
    pub per_level: String,
    /// Factors held fixed (`name=value,…`, may be empty).
    #[serde(default)]
    pub hold: String,
}

impl PlanInput {
    /// The core's plan.
    pub fn plan(&self) -> Result<SweepPlan, LabError> {
        Ok(SweepPlan::from_options(
            &self.factor,
            &self.seed,
            &self.per_level,
            &self.hold,
        )?)
    }
}

/// One level of a plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlannedLevel {
    /// The level's value.
    pub value: String,
    /// Its directory name in the CLI (the page's label).
    pub dir: String,
    /// Its suite's spec (what the `generate` call takes).
    pub spec: String,
}

/// A checked plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanOutput {
    /// The swept factor.
    pub factor: String,
    /// The suite every level shares.
    pub suite: String,
    /// The levels in order.
    pub levels: Vec<PlannedLevel>,
    /// The levels are ledger-environment suites: each runs in the ledger environment
    /// (gold history) and the sweep is counted on `env_success`.
    #[serde(default)]
    pub env: bool,
}

/// Checks the options and lists the levels with their suites' specs.
pub fn plan(input: &str) -> Result<String, LabError> {
    let input: PlanInput = read(input)?;
    let plan = input.plan()?;
    let levels = (0..plan.levels.len())
        .map(|i| {
            Ok(PlannedLevel {
                value: plan.levels.get(i).cloned().unwrap_or_default(),
                dir: plan.dir_name(i),
                spec: plan.level_spec(i)?.to_text(),
            })
        })
        .collect::<Result<Vec<_>, LabError>>()?;
    let out = PlanOutput {
        factor: plan.factor.name().to_owned(),
        suite: plan.base.to_text(),
        levels,
        env: plan.is_ledger(),
    };
    serde_json::to_string(&out).map_err(|e| LabError::Input(e.to_string()))
}

/// One level's run as the page holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LevelRun {
    /// Its dataset's fingerprint.
    pub fingerprint: String,
    /// One outcome per task of its dataset (empty when the level did not run; ignored
    /// when `env` is given).
    pub outcomes: Vec<TaskOutcome>,
    /// A ledger-environment level (`env=ledger` suites, e.g. a `challenge` sweep): its
    /// dataset and `env-result.jsonl` texts, scored here as `wildtool sweep` scores them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<EnvRun>,
}

/// A ledger-environment level's run as the page holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnvRun {
    /// The level's dataset (JSON Lines).
    pub dataset: String,
    /// Its `env-result.jsonl`.
    pub result: String,
}

/// What the page sends once the levels ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ViewInput {
    /// The options (the plan is derived again, as the CLI does).
    pub plan: PlanInput,
    /// The model or agent label.
    pub model: String,
    /// One entry per level, in plan order.
    pub levels: Vec<LevelRun>,
    /// The chart's width in CSS pixels (0: the standard layout).
    #[serde(default)]
    pub width: f64,
}

/// The analysis: the document, the self-contained page and the view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ViewOutput {
    /// `sweep.json`, as `wildtool sweep` writes it.
    pub doc: String,
    /// `sweep.html`, as `wildtool sweep` writes it.
    pub html: String,
    /// The view (wire JSON of a node).
    pub view: String,
}

/// The sweep's document for `input` (the same as `wildtool sweep` writes).
pub fn document(input: &ViewInput) -> Result<SweepDoc, LabError> {
    let plan = input.plan.plan()?;
    if plan.is_ledger()
        && input
            .levels
            .iter()
            .any(|r| r.env.is_none() && !r.outcomes.is_empty())
    {
        return Err(LabError::Input(
            "the levels are ledger-environment suites: a sweep of them is counted on env_success, so each level needs its env-result.jsonl (run it in the ledger environment)".into(),
        ));
    }
    let levels = (0..plan.levels.len())
        .map(|i| {
            let run = input.levels.get(i);
            let mut level = LevelInput {
                value: plan.levels.get(i).cloned().unwrap_or_default(),
                dir: plan.dir_name(i),
                fingerprint: run.map(|r| r.fingerprint.clone()).unwrap_or_default(),
                trials: match run {
                    Some(r) if !r.outcomes.is_empty() => vec![r.outcomes.clone()],
                    _ => Vec::new(),
                },
                env_metrics: Vec::new(),
            };
            if let Some(env) = run.and_then(|r| r.env.as_ref()) {
                let t = env_trial(&env.dataset, &env.result, Lang::En)
                    .map_err(|e| LabError::Input(format!("{}: {e}", level.dir)))?;
                level.trials = vec![t.outcomes];
                level.env_metrics = vec![t.metrics];
            }
            Ok(level)
        })
        .collect::<Result<Vec<_>, LabError>>()?;
    Ok(analyse(
        &SweepInput {
            plan: &plan,
            model: input.model.clone(),
            levels,
        },
        TrendOptions::default(),
    ))
}

/// Analyses the levels' runs: `sweep.json`, `sweep.html` and the view.
pub fn view(input: &str) -> Result<String, LabError> {
    let input: ViewInput = read(input)?;
    let doc = document(&input)?;
    let layout = if input.width > 0.0 && input.width < 640.0 {
        Layout::narrow(input.width)
    } else {
        Layout::STANDARD
    };
    let out = ViewOutput {
        doc: doc.to_json() + "\n",
        html: sweep_html(&doc),
        view: render(&doc, layout).to_json(),
    };
    serde_json::to_string(&out).map_err(|e| LabError::Input(e.to_string()))
}

fn data_table(t: &ChartTable) -> Element {
    wildtool_ui::data_table(&t.caption, &t.headers, &t.rows)
}

/// The view of a sweep: the trend test's headline, the chart with its data table, the
/// level table, the test in words and the notes.
pub fn render(doc: &SweepDoc, layout: Layout) -> Node {
    let spec = chart(doc);
    let mut lines = trend_lines(doc).into_iter();
    let headline = lines.next().unwrap_or_default();
    let mut result = el("div")
        .id("sweep-result")
        .class("sweep-result")
        .attr("data-status", doc.status.clone())
        .child(
            el("div")
                .class("row")
                .child(
                    crate::generate::button(
                        "Download sweep.json",
                        Action::SweepDownload.name(),
                        "json",
                    )
                    .id("sweep-json"),
                )
                .child(
                    crate::generate::button(
                        "Download sweep.html",
                        Action::SweepDownload.name(),
                        "html",
                    )
                    .id("sweep-html"),
                ),
        )
        .child(el_text("p", headline).id("sweep-slope").class("lead"));
    for (i, l) in lines.enumerate() {
        result = result.child(el_text("p", l).id(format!("sweep-trend-{}", i + 1)));
    }
    if let Some(t) = &doc.trend {
        result = result.child(
            el_text(
                "p",
                format!(
                    "Method: {}. Level scores: {}. {} permutations, {} resamples, seed {}.",
                    t.method,
                    t.scores
                        .iter()
                        .map(|s| s.to_string())
                        .collect::<Vec<_>>()
                        .join(", "),
                    thousands(t.permutations),
                    thousands(t.resamples),
                    t.seed
                ),
            )
            .class("muted"),
        );
    }
    result
        .child(
            el("figure")
                .class("chart")
                .attr("data-chart", "sweep")
                .child(
                    el("div")
                        .class("chart-box")
                        .child(Node::Svg(render_svg_with(&spec, layout))),
                )
                .child(el_text("figcaption", describe(&spec)).class("visually-hidden"))
                .child(
                    el("details").child(el_text("summary", "Data table")).child(
                        wildtool_views::widgets::table_box().child(data_table(&table(&spec))),
                    ),
                ),
        )
        .child(
            el("div")
                .class("table-box")
                .id("sweep-levels")
                .attr("tabindex", "0")
                .attr("role", "region")
                .attr("aria-label", "Levels (scrolls sideways on narrow screens)")
                .child(data_table(&level_table(doc))),
        )
        .children(env_table(doc).map(|t| {
            el("div")
                .class("table-box")
                .id("sweep-env")
                .attr("tabindex", "0")
                .attr("role", "region")
                .attr(
                    "aria-label",
                    "Ledger-environment metrics (scrolls sideways on narrow screens)",
                )
                .child(data_table(&t))
        }))
        .child(
            el("ul")
                .class("muted")
                .children(doc.notes.iter().map(|n| el_text("li", n.clone()))),
        )
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use wildtool_ui::wire;

    fn plan_input(factor: &str) -> PlanInput {
        PlanInput {
            factor: factor.to_owned(),
            seed: "7".to_owned(),
            per_level: "4".to_owned(),
            hold: "distractors=1".to_owned(),
        }
    }

    #[test]
    fn plans_list_the_levels_suites_or_say_what_is_wrong() {
        let out = plan(&serde_json::to_string(&plan_input("transitions=0,2")).unwrap()).unwrap();
        let p: PlanOutput = serde_json::from_str(&out).unwrap();
        assert_eq!(p.factor, "transitions");
        assert_eq!(p.suite, "seed=7,sessions=4,distractors=1");
        assert_eq!(
            p.levels
                .iter()
                .map(|l| (l.value.as_str(), l.dir.as_str(), l.spec.as_str()))
                .collect::<Vec<_>>(),
            vec![
                (
                    "0",
                    "level-0",
                    "seed=7,sessions=4,transitions=0,distractors=1"
                ),
                (
                    "2",
                    "level-2",
                    "seed=7,sessions=4,transitions=2,distractors=1"
                ),
            ]
        );
        let e = plan(&serde_json::to_string(&plan_input("transitions=0,9")).unwrap()).unwrap_err();
        assert!(e.to_string().contains("transitions must be"), "{e}");
        let mut held = plan_input("distractors=0,1");
        assert!(plan(&serde_json::to_string(&held).unwrap()).is_err());
        held.seed = "x".into();
        let e = plan(&serde_json::to_string(&held).unwrap()).unwrap_err();
        assert!(e.to_string().contains("seed"), "{e}");
    }

    #[test]
    fn the_view_is_the_documents() {
        let input = ViewInput {
            plan: plan_input("transitions=0,2"),
            model: "m".into(),
            levels: vec![
                LevelRun {
                    fingerprint: "a".into(),
                    outcomes: Vec::new(),
                    env: None,
                },
                LevelRun {
                    fingerprint: "b".into(),
                    outcomes: Vec::new(),
                    env: None,
                },
            ],
            width: 390.0,
        };
        let out: ViewOutput =
            serde_json::from_str(&view(&serde_json::to_string(&input).unwrap()).unwrap()).unwrap();
        let doc = SweepDoc::parse(&out.doc).unwrap();
        assert_eq!(doc.status, "failed");
        assert_eq!(doc.levels[0].status, "not run");
        assert_eq!(out.doc, document(&input).unwrap().to_json() + "\n");
        let tree = wire::parse(&out.view).unwrap();
        assert!(tree
            .by_id("sweep-slope")
            .unwrap()
            .text_content()
            .starts_with("No test for trend"));
        assert!(out.html.starts_with("<!doctype html>"));
    }
}
