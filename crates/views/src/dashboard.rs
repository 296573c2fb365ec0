//! The dashboard's charts: the run's own charts (from its report), the comparison chart
//! and, below the error taxonomy, one button per error class that opens its traces.

use wildtool_contract::inputs::{ChartFileInput, ChartsInput};
use wildtool_contract::Action;
use wildtool_core::chart::dashboard;
use wildtool_core::outcome::{ErrorColumn, TaskOutcome};
use wildtool_core::report::RunReport;
use wildtool_ui::{el, el_text, Element};

use crate::widgets::{button, chart_figure, layout, plural, Chart};

/// Every chart of the dashboard, the comparison chart last.
pub fn charts(input: &ChartsInput) -> Vec<Chart> {
    let report = RunReport::from_outcomes(&input.outcomes);
    let layout = layout(input.width, input.min_font);
    let mut out: Vec<Chart> = dashboard::standard_charts(&input.label, &report)
        .iter()
        .map(|s| Chart::of(s, layout))
        .collect();
    // An error chart with nothing to draw because nothing failed says so.
    if report.errors.failed == 0 {
        for c in out.iter_mut().filter(|c| c.id == "errors") {
            c.svg = c.svg.replace(">No data<", ">No failed tasks<");
        }
    }
    let mut rows = vec![dashboard::summarize(&input.label, &report)];
    rows.extend(input.others.iter().cloned());
    unique_labels(&mut rows);
    let mut spec = dashboard::comparison(&rows);
    // The title says what is drawn: on the page the leaderboard's models are among the
    // rows only where it is shown, so the core's "published leaderboard" title would lie.
    spec.title = match input.others.len() {
        0 => format!(
            "{} by task type (no other run chosen for comparison)",
            input.label
        ),
        n => format!(
            "{} beside {n} other run(s) or model(s), by task type",
            input.label
        ),
    };
    out.push(Chart::of(&spec, layout));
    out
}

/// Series names told apart: a label seen before gets its place among its namesakes
/// ("baseline", "baseline (2)"), so a legend never repeats a name.
pub fn unique_labels(rows: &mut [wildtool_core::chart::dashboard::ComparisonRow]) {
    let mut seen: Vec<String> = Vec::new();
    for r in rows.iter_mut() {
        let n = seen.iter().filter(|l| **l == r.label).count();
        seen.push(r.label.clone());
        if n > 0 {
            r.label = format!("{} ({})", r.label, n + 1);
        }
    }
}

/// The charts block (`div#charts`).
pub fn view(input: &ChartsInput) -> Element {
    el("div")
        .id("charts")
        .class("charts")
        .children(charts(input).iter().map(|c| match c.id.as_str() {
            "errors" => chart_figure(c).child_opt(class_links(&input.outcomes)),
            _ => chart_figure(c),
        }))
}

/// One chart as a file: its SVG and natural size.
pub fn chart_file(input: &ChartFileInput) -> Option<Chart> {
    charts(&input.charts).into_iter().find(|c| c.id == input.id)
}

/// The error class of a failed task, titled as the error-taxonomy chart titles it.
pub fn error_class(o: &TaskOutcome) -> Option<ErrorColumn> {
    o.error.map(|e| e.default_column())
}

/// The dashboard's way into the traces: one button per error class of the taxonomy chart
/// (its column titles) with failed tasks, saying how many.
pub fn class_links(outcomes: &[TaskOutcome]) -> Option<Element> {
    let mut counts = [0usize; ErrorColumn::ALL.len()];
    for o in outcomes {
        if let Some(c) = error_class(o).filter(|_| !o.incomplete) {
            if let Some(n) = counts.get_mut(c as usize) {
                *n += 1;
            }
        }
    }
    let mut list = el("ul");
    for (c, n) in ErrorColumn::ALL.iter().zip(counts) {
        if n > 0 {
            let title = c.as_str();
            list = list.child(
                el("li").child(
                    button(
                        &format!("{title} · {}", plural(n, "task")),
                        Action::TraceClass.name(),
                        title,
                    )
                    .attr("data-class", title),
                ),
            );
        }
    }
    counts.iter().any(|n| *n > 0).then(|| {
        el("nav")
            .class("class-links")
            .attr("aria-label", "Traces by error class")
            .child(el_text("p", "Open the traces of a class:"))
            .child(list)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use wildtool_core::chart::dashboard::ComparisonRow;

    #[test]
    fn series_names_never_repeat() {
        let row = |l: &str| ComparisonRow {
            label: l.into(),
            values: Vec::new(),
        };
        let mut rows = vec![
            row("baseline"),
            row("gold"),
            row("baseline"),
            row("baseline"),
        ];
        unique_labels(&mut rows);
        let labels: Vec<&str> = rows.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(labels, ["baseline", "gold", "baseline (2)", "baseline (3)"]);
    }
}
