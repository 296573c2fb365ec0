//! A self-contained HTML report (`wildtool report`): the page's headline rates, the same
//! SVG charts with their data tables, and the summary table. One file, no scripts, no
//! external resources; every piece of text is escaped.

use std::fmt::Write as _;

use super::{describe, format_percent, render_svg, table, ChartSpec, ChartTable, Headline};
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

const STYLE: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1b1f24;background:#f4f6f8;margin:0;line-height:1.45}\
header{background:#10263b;color:#fff;padding:18px 28px}header h1{margin:0;font-size:1.4rem}header p{margin:4px 0 0;color:#c9d6e3}\
main{max-width:1280px;margin:0 auto;padding:20px 28px 40px}\
.headline{display:grid;grid-template-columns:repeat(auto-fit,minmax(220px,1fr));gap:12px;margin-bottom:18px}\
.metric{background:#fff;border:1px solid #d9dee4;border-radius:8px;padding:12px 14px}\
.banner{background:#fff4d6;border:1px solid #c98a00;border-radius:8px;padding:10px 14px;margin-bottom:14px}\
.metric b{display:block;font-size:1.6rem;color:#0072b2}.metric span{display:block;color:#5b6470;font-size:.85rem}\
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,560px),1fr));gap:16px}\
figure{margin:0;background:#fff;border:1px solid #d9dee4;border-radius:8px;padding:10px}figure svg{width:100%;height:auto;display:block}\
figure{min-width:0}.table{overflow-x:auto;max-width:100%}table{border-collapse:collapse;font-size:.85rem;margin-top:6px}caption{text-align:left;font-weight:600}\
th,td{border-bottom:1px solid #d9dee4;padding:3px 8px;text-align:right;white-space:nowrap}th[scope=row]{text-align:left}\
pre{background:#fff;border:1px solid #d9dee4;border-radius:8px;padding:12px;overflow-x:auto;font-size:.8rem}";

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
    let _ = write!(
        out,
        "<div class=\"metric\"><b>{}</b><span>{}</span>",
        value.map(pct).unwrap_or_else(|| "—".to_owned()),
        escape_xml(name)
    );
    for n in notes {
        let _ = write!(out, "<span>{}</span>", escape_xml(n));
    }
    out.push_str("</div>");
}

fn rate_notes(r: &Rate) -> Vec<String> {
    vec![
        format!("95% CI {} – {}", pct(r.ci95.lo), pct(r.ci95.hi)),
        format!("{} / {}", r.correct, r.total),
    ]
}

fn table_html(out: &mut String, t: &ChartTable) {
    let _ = write!(
        out,
        "<div class=\"table\"><table><caption>{}</caption><thead><tr>",
        escape_xml(&t.caption)
    );
    for h in &t.headers {
        let _ = write!(out, "<th scope=\"col\">{}</th>", escape_xml(h));
    }
    out.push_str("</tr></thead><tbody>");
    for row in &t.rows {
        out.push_str("<tr>");
        for (i, cell) in row.iter().enumerate() {
            if i == 0 {
                let _ = write!(out, "<th scope=\"row\">{}</th>", escape_xml(cell));
            } else {
                let _ = write!(out, "<td>{}</td>", escape_xml(cell));
            }
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table></div>");
}

/// Renders the report page.
pub fn report_html(meta: &ReportMeta, report: &RunReport, charts: &[ChartSpec]) -> String {
    let mut out = String::with_capacity(64 * 1024);
    out.push_str("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
    out.push_str("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">");
    let _ = write!(
        out,
        "<title>wildtool report — {}</title><style>{STYLE}</style></head><body>",
        escape_xml(&meta.model)
    );
    let headline = Headline::of(report);
    let _ = write!(
        out,
        "<header><h1>wildtool report — {}</h1><p>{} · fingerprint {} · {} sessions · {} · {} · scorer {}</p></header><main>",
        escape_xml(&meta.model),
        escape_xml(&meta.dataset),
        escape_xml(&meta.fingerprint),
        report.sessions,
        escape_xml(&headline.scored),
        report.status.as_str(),
        escape_xml(&meta.scorer)
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
        let _ = write!(out, "<figure id=\"{}\">", escape_xml(&spec.id));
        out.push_str(&render_svg(spec));
        let _ = write!(
            out,
            "<figcaption>{}</figcaption>",
            escape_xml(&describe(spec))
        );
        table_html(&mut out, &table(spec));
        out.push_str("</figure>");
    }
    out.push_str("</section>");
    if !meta.summary.is_empty() {
        let _ = write!(
            out,
            "<h2>Summary</h2><pre>{}</pre>",
            escape_lines(&meta.summary)
        );
    }
    out.push_str("</main></body></html>\n");
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
