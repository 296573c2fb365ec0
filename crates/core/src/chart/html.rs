//! A self-contained HTML report (`wildtool report`): the page's headline rates, the same
//! SVG charts with their data tables, and the summary table, in the shell of `chart::page`
//! (one file, no scripts, no external resources, every piece of text escaped).

use std::fmt::Write as _;

use super::{describe, format_percent, page, render_svg, table, ChartSpec, Headline};
use crate::chart::format::escape_xml;
use crate::report::{Rate, RunReport, RunStatus};

/// What the report is about.
#[derive(Debug, Clone, Default)]
pub struct ReportMeta {
    /// Model label.
    pub model: String,
    /// Dataset file name or label.
    pub dataset: String,
    /// Dataset fingerprint (hex).
    pub fingerprint: String,
    /// Scorer version string.
    pub scorer: String,
    /// The plain-text summary table (`wildtool score` output).
    pub summary: String,
}

/// Escapes multi-line text for a `<pre>` block: like [`escape_xml`], but line breaks stay.
fn escape_lines(text: &str) -> String {
    text.split('\n')
        .map(escape_xml)
        .collect::<Vec<_>>()
        .join("\n")
}

fn pct(x: f64) -> String {
    format_percent(x)
}

fn metric(out: &mut String, name: &str, value: Option<f64>, notes: &[String]) {
    let value = value.map(pct).unwrap_or_else(|| "—".to_owned());
    page::metric(out, &value, name, notes);
}

fn rate_notes(r: &Rate) -> Vec<String> {
    vec![
        format!("95% CI {} – {}", pct(r.ci95.lo), pct(r.ci95.hi)),
        format!("{} / {}", r.correct, r.total),
    ]
}

/// Renders the report page.
pub fn report_html(meta: &ReportMeta, report: &RunReport, charts: &[ChartSpec]) -> String {
    let mut out = String::with_capacity(64 * 1024);
    let headline = Headline::of(report);
    page::open(
        &mut out,
        &format!("wildtool report — {}", meta.model),
        &format!(
            "{} · fingerprint {} · {} sessions · {} · {} · scorer {}",
            meta.dataset,
            meta.fingerprint,
            report.sessions,
            headline.scored,
            report.status.as_str(),
            meta.scorer
        ),
    );
    if let Some(note) = &headline.note {
        let _ = write!(
            out,
            "<p class=\"banner\" role=\"status\" data-status=\"{}\">{}</p>",
            report.status.as_str(),
            escape_xml(note)
        );
    }
    let scored = report.status != RunStatus::Failed;
    out.push_str("<section class=\"headline\" aria-label=\"Headline rates\">");
    let mut task_notes = rate_notes(&report.task_accuracy);
    task_notes.push(format!(
        "session bootstrap {} – {}",
        pct(report.task_accuracy_bootstrap95.lo),
        pct(report.task_accuracy_bootstrap95.hi)
    ));
    if !scored {
        task_notes.clear();
    }
    metric(
        &mut out,
        "Task accuracy",
        scored.then_some(report.task_accuracy.rate),
        &task_notes,
    );
    metric(
        &mut out,
        "Session accuracy",
        scored.then_some(report.session_accuracy.rate),
        &if scored {
            rate_notes(&report.session_accuracy)
        } else {
            Vec::new()
        },
    );
    match report.optimal.get("Total").filter(|r| r.total > 0) {
        Some(r) => metric(
            &mut out,
            "Optimal-path rate (Parallel + Mixed)",
            Some(r.rate),
            &rate_notes(r),
        ),
        None => metric(&mut out, "Optimal-path rate (Parallel + Mixed)", None, &[]),
    }
    match report.progress.get("Total").filter(|p| p.nodes > 0) {
        Some(p) => metric(
            &mut out,
            "Progress rate (Sequential + Mixed, node-based)",
            Some(p.ap_nodes),
            &[format!(
                "{} gold nodes · official step-based {}",
                p.nodes,
                pct(p.step_based)
            )],
        ),
        None => metric(
            &mut out,
            "Progress rate (Sequential + Mixed, node-based)",
            None,
            &[],
        ),
    }
    out.push_str("</section><section class=\"charts\" aria-label=\"Charts\">");
    for spec in charts {
        page::figure(
            &mut out,
            &spec.id,
            &render_svg(spec),
            &describe(spec),
            &table(spec),
        );
    }
    out.push_str("</section>");
    if !meta.summary.is_empty() {
        let _ = write!(
            out,
            "<h2>Summary</h2><pre>{}</pre>",
            escape_lines(&meta.summary)
        );
    }
    page::close(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::dashboard::standard_charts;

    #[test]
    fn hostile_text_is_escaped_and_every_chart_is_present() {
        let evil = "<img src=x onerror=alert(1)>";
        let report = RunReport::from_outcomes(&[]);
        let charts = standard_charts(evil, &report);
        let meta = ReportMeta {
            model: evil.to_owned(),
            dataset: evil.to_owned(),
            fingerprint: "00".to_owned(),
            scorer: "s".to_owned(),
            summary: evil.to_owned(),
        };
        let html = report_html(&meta, &report, &charts);
        assert!(!html.contains("<img"), "{html}");
        assert!(!html.contains("<script"));
        assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;"));
        assert_eq!(html.matches("<figure").count(), charts.len());
        assert_eq!(html.matches("<svg").count(), charts.len());
        let multi = ReportMeta {
            summary: "line 1\nline <2>".to_owned(),
            ..meta
        };
        assert!(report_html(&multi, &report, &[]).contains("<pre>line 1\nline &lt;2&gt;</pre>"));
    }
}
