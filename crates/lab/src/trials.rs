//! Repeated trials on the dashboard: the pass^k curve (j = 1..k) with its intervals,
//! pass@k, the per-trial accuracies and the consistency of each task type, all from the
//! core's [`trials_report`] (the numbers of `wildtool run --trials`'s `trials.json`).

use serde::{Deserialize, Serialize};
use wildtool_core::chart::line::render_line_svg;
use wildtool_core::chart::{
    describe, describe_line, format_percent, render_svg_with, table, ChartKind, ChartSpec,
    Orientation, Point, Series,
};
use wildtool_core::compare::trials::TrialsDoc;
use wildtool_core::compare::{trials_report, BootstrapOptions, DatasetRef, RunInput};
use wildtool_core::report::intervals::Interval;
use wildtool_core::share::TaskShape;
use wildtool_ui::{el, el_text, Element, Node};

use crate::widgets::{metric, table as table_el, PageContext};
use crate::{read, LabError};

/// What the page sends: the dataset and the run with every trial's outcomes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrialsInput {
    /// Fingerprint of the loaded dataset.
    pub fingerprint: u64,
    /// Every task of the dataset, in dataset order.
    pub shapes: Vec<TaskShape>,
    /// The run (`trials[t]`: outcomes of trial `t + 1`).
    pub run: RunInput,
    /// The page.
    #[serde(default)]
    pub page: PageContext,
}

/// The trials document for `input` (the same as `trials.json`).
pub fn document(input: &TrialsInput) -> Result<TrialsDoc, LabError> {
    Ok(trials_report(
        &input.run,
        DatasetRef {
            fingerprint: input.fingerprint,
            shapes: &input.shapes,
        },
        &BootstrapOptions::default(),
    )?)
}

/// The repeated-trials panel (wire JSON of a `section`).
pub fn view(input: &str) -> Result<String, LabError> {
    let input: TrialsInput = read(input)?;
    let doc = document(&input)?;
    Ok(render(&doc, &input.page).to_json())
}

fn point(v: Option<f64>, ci: Option<Interval>) -> Point {
    match (v, ci) {
        (Some(v), Some(ci)) => Point::with_interval(v, ci.lo, ci.hi),
        (Some(v), None) => Point::new(v),
        (None, _) => Point::missing(),
    }
}

/// The pass^k curve: pass^j and pass@j (and the session form of pass^j) for j = 1..k.
pub fn curve(doc: &TrialsDoc) -> ChartSpec {
    let k = doc.trials as usize;
    let series = |name: &str, v: &[Option<f64>], ci: &[Option<Interval>]| Series {
        name: name.to_owned(),
        points: (0..k)
            .map(|j| point(v.get(j).copied().flatten(), ci.get(j).copied().flatten()))
            .collect(),
    };
    ChartSpec {
        id: "trials-curve".to_owned(),
        title: format!("pass^j and pass@j over j = 1..{k} trials"),
        summary: Some(format!(
            "pass^j: the chance that j trials of a task drawn at random all pass; pass@j: that at least one passes; means over the tasks with at least j scored trials, 95% session-bootstrap intervals ({} run).",
            doc.label
        )),
        categories: (1..=k).map(|j| format!("j = {j}")).collect(),
        series: vec![
            series("pass^j (tasks)", &doc.pass_hat_k.0, &doc.pass_hat_k_ci95.0),
            series("pass@j (tasks)", &doc.pass_at_k.0, &doc.pass_at_k_ci95.0),
            series(
                "pass^j (sessions)",
                &doc.session_pass_hat_k.0,
                &doc.session_pass_hat_k_ci95.0,
            ),
        ],
        kind: ChartKind::Bars,
        orientation: Orientation::Vertical,
        value_axis: "Share passing (95% CI)".to_owned(),
    }
}

/// Consistency by task type: the share of tasks that passed in all, some or none of
/// their scored trials.
pub fn consistency(doc: &TrialsDoc) -> ChartSpec {
    let mut rows: Vec<(String, [u64; 3])> = doc
        .consistency
        .by_type
        .iter()
        .map(|(t, c)| (t.clone(), [c.all, c.some, c.none]))
        .filter(|(_, c)| c.iter().sum::<u64>() > 0)
        .collect();
    let o = doc.consistency.overall;
    rows.insert(0, ("All tasks".to_owned(), [o.all, o.some, o.none]));
    let share = |c: &[u64; 3], i: usize| {
        let n: u64 = c.iter().sum();
        if n == 0 {
            Point::missing()
        } else {
            Point::new(c[i] as f64 / n as f64)
        }
    };
    ChartSpec {
        id: "trials-consistency".to_owned(),
        title: "Consistency over trials, by task type".to_owned(),
        summary: Some(
            "Share of the tasks scored at least once that passed in every, some or none of their scored trials.".to_owned(),
        ),
        categories: rows.iter().map(|(t, c)| format!("{t} (n = {})", c.iter().sum::<u64>())).collect(),
        series: ["Passed in every trial", "Passed in some", "Passed in none"]
            .iter()
            .enumerate()
            .map(|(i, name)| Series {
                name: (*name).to_owned(),
                points: rows.iter().map(|(_, c)| share(c, i)).collect(),
            })
            .collect(),
        kind: ChartKind::Stacked100,
        orientation: Orientation::Horizontal,
        value_axis: "Share of tasks".to_owned(),
    }
}

/// The consistency chart's colours read as success and failure: "every trial" keeps the
/// palette's blue, "some" turns neutral grey and "none" takes the palette's vermillion
/// (blue against vermillion stays apart for the common colour-vision deficiencies).
pub fn outcome_colours(svg: &str) -> String {
    svg.replace("#D55E00", "#767676")
        .replace("#009E73", "#D55E00")
}

fn figure(spec: &ChartSpec, page: &PageContext, line: bool) -> Element {
    let (svg, desc) = if line {
        (render_line_svg(spec, page.layout()), describe_line(spec))
    } else {
        (render_svg_with(spec, page.layout()), describe(spec))
    };
    let svg = if spec.id == "trials-consistency" {
        outcome_colours(&svg)
    } else {
        svg
    };
    el("figure")
        .class("chart")
        .attr("data-chart", spec.id.clone())
        .key(spec.id.clone())
        .child(el("div").class("chart-box").child(Node::Svg(svg)))
        .child(el_text("figcaption", desc).class("visually-hidden"))
        .child(
            el("details")
                .class("chart-tools")
                .child(el_text("summary", "Data table"))
                .child(wildtool_views::widgets::table_box().child(table_el(&table(spec)))),
        )
}

fn ci_text(ci: Option<Interval>) -> String {
    ci.map(|c| format!("95% CI {}–{}", format_percent(c.lo), format_percent(c.hi)))
        .unwrap_or_default()
}

fn pct(v: Option<f64>) -> String {
    v.map(format_percent).unwrap_or_else(|| "—".to_owned())
}

/// The panel of a trials document.
pub fn render(doc: &TrialsDoc, page: &PageContext) -> Node {
    let k = doc.trials as usize;
    let last = k.saturating_sub(1);
    let per_trial = doc
        .task_accuracy_by_trial
        .iter()
        .enumerate()
        .map(|(i, a)| format!("trial {}: {}", i + 1, pct(*a)))
        .collect::<Vec<_>>()
        .join(" · ");
    let cards = el("div")
        .class("headline")
        .id("trials-headline")
        .child(metric(
            "trials-pass1",
            "pass^1 (mean task accuracy over trials)",
            pct(doc.pass_hat_k.get(1).copied().flatten()),
            ci_text(doc.pass_hat_k_ci95.0.first().copied().flatten()),
            format!("{} tasks", doc.tasks_per_j.0.first().copied().unwrap_or(0)),
        ))
        .child(metric(
            "trials-passk",
            &format!("pass^{k} (a task passes all {k} trials)"),
            pct(doc.pass_hat_k.0.get(last).copied().flatten()),
            ci_text(doc.pass_hat_k_ci95.0.get(last).copied().flatten()),
            format!(
                "{} tasks with {k} scored trials",
                doc.tasks_per_j.0.get(last).copied().unwrap_or(0)
            ),
        ))
        .child(metric(
            "trials-passatk",
            &format!("pass@{k} (a task passes at least once)"),
            pct(doc.pass_at_k.0.get(last).copied().flatten()),
            ci_text(doc.pass_at_k_ci95.0.get(last).copied().flatten()),
            format!(
                "consistent: {} all, {} some, {} none",
                doc.consistency.overall.all,
                doc.consistency.overall.some,
                doc.consistency.overall.none
            ),
        ));
    el("section")
        .id("trials")
        .class("panel")
        .attr("aria-labelledby", "trials-title")
        .attr("data-trials", k.to_string())
        .child(el_text("h2", format!("Repeated trials: {k} trials")).id("trials-title"))
        .child(
            el_text(
                "p",
                format!(
                    "The headline, charts, exports and share link above show trial 1 (the same prompts and seeds as a run without trials). This panel covers all {k} trials ({}; {} of {} tasks scored in at least one trial, status {}).",
                    per_trial,
                    doc.tasks_scored,
                    doc.tasks,
                    doc.status.as_str()
                ),
            )
            .class("muted")
            .id("trials-note"),
        )
        .child(
            el_text(
                "p",
                "The built-in gold and baseline agents answer the same way every time, so their trials are identical; repeated trials tell something only for a model that samples (a temperature above 0).",
            )
            .class("muted")
            .id("trials-deterministic"),
        )
        .child(cards)
        .child(
            el("div")
                .class("charts")
                .child(figure(&curve(doc), page, true))
                .child(figure(&consistency(doc), page, false)),
        )
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::tests::suite_input;
    use wildtool_ui::wire;

    #[test]
    fn the_panel_shows_the_cores_pass_hat_k_and_consistency() {
        let c = suite_input();
        // Three trials: A's outcomes, B's, then A's again.
        let run = RunInput {
            label: "three".into(),
            fingerprint: c.fingerprint,
            trials: vec![
                c.runs[0].trials[0].clone(),
                c.runs[1].trials[0].clone(),
                c.runs[0].trials[0].clone(),
            ],
        };
        let input = TrialsInput {
            fingerprint: c.fingerprint,
            shapes: c.shapes.clone(),
            run,
            page: PageContext::default(),
        };
        let json = view(&serde_json::to_string(&input).unwrap()).unwrap();
        let tree = wire::parse(&json).unwrap();
        let doc = document(&input).unwrap();
        // Independently: a task passes all three trials when it passes in A and in B.
        let n = c.shapes.len();
        let all = (0..n).filter(|i| i % 3 != 0 && i % 2 == 0).count();
        assert_eq!(doc.consistency.overall.all, all as u64);
        let hat3 = all as f64 / n as f64;
        assert!((doc.pass_hat_k.0[2].unwrap() - hat3).abs() < 1e-12);
        let card = tree.by_id("trials-passk").unwrap().text_content();
        assert!(card.starts_with(&format_percent(hat3)), "{card}");
        assert!(card.contains("pass^3"));
        assert_eq!(tree.by_id("trials").unwrap().get("data-trials"), Some("3"));
        let svgs = tree.svgs();
        assert_eq!(svgs.len(), 2);
        assert!(
            svgs[0].contains("<polyline"),
            "the pass^k curve is a line chart"
        );
        assert!(tree
            .by_id("trials-note")
            .unwrap()
            .text_content()
            .contains("trial 1"));
    }
}
