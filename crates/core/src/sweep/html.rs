//! How a sweep is shown: the level table, the chart of accuracy against the level with
//! 95% intervals, the trend test in words — as text for the terminal, as the
//! self-contained `sweep.html` (no scripts, no external resources, all text escaped) and
//! as pieces the page's Sweep view draws. Every number comes from the [`SweepDoc`].

use std::fmt::Write as _;

use super::SweepDoc;
use crate::chart::delta::format_pp;
use crate::chart::page::{self, metric, table_html};
use crate::chart::{
    describe, escape_xml, format_percent, render_svg, table, ChartKind, ChartSpec, ChartTable,
    Orientation, Point, Series,
};
use crate::compare::html::{format_p, p_clause};

/// The level's label on charts and tables: `transitions = 2`.
pub fn level_label(doc: &SweepDoc, value: &str) -> String {
    format!("{} = {value}", doc.factor)
}

/// Accuracy against the level: task accuracy (session-bootstrap interval) and session
/// accuracy (Wilson interval), one bar pair per level.
pub fn chart(doc: &SweepDoc) -> ChartSpec {
    let task = Series {
        name: "Task accuracy".to_owned(),
        points: doc
            .levels
            .iter()
            .map(|l| match (l.task_accuracy, l.task_ci95) {
                (Some(a), Some(ci)) => Point::with_interval(a, ci.lo, ci.hi),
                (Some(a), None) => Point::new(a),
                _ => Point::missing(),
            })
            .collect(),
    };
    let session = Series {
        name: "Session accuracy".to_owned(),
        points: doc
            .levels
            .iter()
            .map(|l| match &l.session_accuracy {
                Some(r) => Point::with_interval(r.rate, r.ci95.lo, r.ci95.hi),
                None => Point::missing(),
            })
            .collect(),
    };
    ChartSpec {
        id: "sweep".to_owned(),
        title: match doc.mode {
            Some(_) => format!(
                "env_success by {} ({}; ledger environment, extension)",
                doc.factor, doc.model
            ),
            None => format!("Accuracy by {} ({})", doc.factor, doc.model),
        },
        summary: Some(format!(
            "Sweep of {} with the other factors held fixed ({}); 95% intervals.",
            doc.factor, doc.suite
        )),
        categories: doc
            .levels
            .iter()
            .map(|l| level_label(doc, &l.value))
            .collect(),
        series: vec![task, session],
        kind: ChartKind::Bars,
        orientation: Orientation::Vertical,
        value_axis: "Accuracy".to_owned(),
    }
}

fn interval_text(lo: f64, hi: f64) -> String {
    format!("{}–{}", format_percent(lo), format_percent(hi))
}

/// The level table: level, status, tasks scored, task accuracy and session accuracy with
/// their intervals, the dataset fingerprint.
pub fn level_table(doc: &SweepDoc) -> ChartTable {
    ChartTable {
        caption: format!("Levels of {}", doc.factor),
        headers: vec![
            "Level".to_owned(),
            "Status".to_owned(),
            "Tasks scored".to_owned(),
            "Task accuracy".to_owned(),
            "95% CI".to_owned(),
            "Session accuracy".to_owned(),
            "95% CI".to_owned(),
            "Dataset".to_owned(),
        ],
        rows: doc
            .levels
            .iter()
            .map(|l| {
                vec![
                    level_label(doc, &l.value),
                    l.status.clone(),
                    format!("{} of {}", l.tasks_scored, l.tasks_total),
                    l.task_accuracy.map(format_percent).unwrap_or("—".into()),
                    l.task_ci95
                        .map(|c| interval_text(c.lo, c.hi))
                        .unwrap_or("—".into()),
                    l.session_accuracy
                        .map(|r| format_percent(r.rate))
                        .unwrap_or("—".into()),
                    l.session_accuracy
                        .map(|r| interval_text(r.ci95.lo, r.ci95.hi))
                        .unwrap_or("—".into()),
                    l.fingerprint.clone(),
                ]
            })
            .collect(),
    }
}

/// The env metrics per level (ledger-environment sweeps; trial 1 of each level), `None`
/// for official sweeps.
pub fn env_table(doc: &SweepDoc) -> Option<ChartTable> {
    doc.mode.as_ref()?;
    let mut headers = vec!["Level".to_owned()];
    headers.extend(super::env::SHOWN.iter().map(|(_, l)| (*l).to_owned()));
    Some(ChartTable {
        caption: format!(
            "Ledger-environment metrics by {} (extension; trial 1 of each level)",
            doc.factor
        ),
        headers,
        rows: doc
            .levels
            .iter()
            .map(|l| {
                let mut row = vec![level_label(doc, &l.value)];
                row.extend(
                    super::env::SHOWN
                        .iter()
                        .map(|(k, _)| match l.env_metrics.first() {
                            Some(m) => super::env::metric_cell(m, k),
                            None => "—".to_owned(),
                        }),
                );
                row
            })
            .collect(),
    })
}

pub use crate::chart::thousands;

/// The slope's unit in words.
fn unit(doc: &SweepDoc) -> String {
    let numeric = doc
        .levels
        .iter()
        .all(|l| l.value.trim().parse::<f64>().is_ok());
    if numeric {
        format!("per unit of {}", doc.factor)
    } else {
        "per level step (levels scored 0, 1, 2, … in the order given)".to_owned()
    }
}

/// The trend test in sentences (the headline first), or why there is none.
pub fn trend_lines(doc: &SweepDoc) -> Vec<String> {
    let Some(t) = &doc.trend else {
        return vec![format!(
            "No test for trend: fewer than two paired sessions are scored at every level (of {}).",
            doc.blocks_total
        )];
    };
    vec![
        format!(
            "Slope {} {} (95% CI {} to {}).",
            format_pp(t.slope),
            unit(doc),
            format_pp(t.slope_ci95.lo),
            format_pp(t.slope_ci95.hi)
        ),
        format!(
            "Test for trend: p {} (two-sided, {} within-session permutations); normal approximation z = {:.2}, p {}.",
            p_clause(t.p_permutation),
            thousands(t.permutations),
            t.z,
            p_clause(t.p_normal)
        ),
        format!(
            "{} of {} paired sessions are scored at every level and enter the test.",
            t.blocks, doc.blocks_total
        ),
    ]
}

/// The sweep for a terminal: a header, the level table and the trend test.
pub fn summary_text(doc: &SweepDoc) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "sweep of {} · {} · suite {} · status {}",
        doc.factor, doc.model, doc.suite, doc.status
    );
    if doc.mode.is_some() {
        let _ = writeln!(out, "{}", super::env::ENV_NOTE);
    }
    let mut tables = vec![level_table(doc)];
    tables.extend(env_table(doc));
    for t in &tables {
        text_table(&mut out, t);
    }
    for l in trend_lines(doc) {
        let _ = writeln!(out, "{l}");
    }
    out
}

fn text_table(out: &mut String, t: &ChartTable) {
    let mut widths: Vec<usize> = t.headers.iter().map(|h| h.chars().count()).collect();
    for row in &t.rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &[String]| -> String {
        let mut s = String::new();
        for (i, (cell, w)) in cells.iter().zip(&widths).enumerate() {
            if i > 0 {
                s.push_str("  ");
            }
            let pad = w.saturating_sub(cell.chars().count());
            s.push_str(cell);
            s.extend(std::iter::repeat_n(' ', pad));
        }
        s.trim_end().to_owned()
    };
    let _ = writeln!(out, "{}", line(&t.headers));
    for row in &t.rows {
        let _ = writeln!(out, "{}", line(row));
    }
}

/// `sweep.html`: the sweep as one self-contained page.
pub fn sweep_html(doc: &SweepDoc) -> String {
    let mut out = String::with_capacity(32 * 1024);
    let title = format!("wildtool sweep — {} · {}", doc.factor, doc.model);
    page::open(
        &mut out,
        &title,
        &format!(
            "suite {} · {} level(s) · status {} · scorer {}",
            doc.suite,
            doc.levels.len(),
            doc.status,
            doc.scorer
        ),
    );
    out.push_str("<div class=\"headline\">");
    if let Some(t) = &doc.trend {
        metric(
            &mut out,
            &format_pp(t.slope),
            &format!("Slope {}", unit(doc)),
            &[format!(
                "95% CI {} to {}",
                format_pp(t.slope_ci95.lo),
                format_pp(t.slope_ci95.hi)
            )],
        );
        metric(
            &mut out,
            &format_p(t.p_permutation),
            "Test for trend: p (two-sided, within-session permutations)",
            &[format!(
                "normal approximation z = {:.2}, p {}",
                t.z,
                p_clause(t.p_normal)
            )],
        );
    }
    out.push_str("</div>");
    let spec = chart(doc);
    out.push_str("<div class=\"charts single\">");
    page::figure(
        &mut out,
        "sweep-chart",
        &render_svg(&spec),
        &describe(&spec),
        &table(&spec),
    );
    out.push_str("</div>");
    out.push_str("<h2>Levels</h2>");
    table_html(&mut out, &level_table(doc));
    if let Some(t) = env_table(doc) {
        out.push_str("<h2>Extension: ledger environment</h2>");
        let _ = write!(
            out,
            "<p class=\"note\">{}</p>",
            escape_xml(super::env::ENV_NOTE)
        );
        table_html(&mut out, &t);
    }
    out.push_str("<h2>Test for trend</h2>");
    for l in trend_lines(doc) {
        let _ = write!(out, "<p class=\"note\">{}</p>", escape_xml(&l));
    }
    if let Some(t) = &doc.trend {
        let _ = write!(
            out,
            "<p class=\"note\">Method: {}. Level scores: {}. Seed {}, {} resamples for the slope interval.</p>",
            escape_xml(&t.method),
            escape_xml(
                &t.scores
                    .iter()
                    .map(|s| s.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            t.seed,
            t.resamples
        );
    }
    out.push_str("<h2>Notes</h2><ul>");
    for n in &doc.notes {
        let _ = write!(out, "<li class=\"note\">{}</li>", escape_xml(n));
    }
    out.push_str("</ul>");
    page::close(&mut out);
    out
}
