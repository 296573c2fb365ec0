//! The "Extension: ledger environment" section of an HTML report, from an
//! `env-report.json` document: the badge, every metric with its count and 95% interval,
//! the correction outcomes, success by challenge, and path label × env success. Every
//! string is escaped; nothing from the report is markup. The tables are written by the
//! shared table writer of the HTML pages (`chart::page::table_html`).

use std::fmt::Write as _;

use crate::chart::page::table_html;
use crate::chart::{escape_xml, format_percent, ChartTable};
use crate::json::Value;

use super::metrics::EXTENSION_LABEL;

fn cell_rate(v: &Value) -> (String, String, String) {
    let n = |k: &str| v.get(k).and_then(Value::as_i64).unwrap_or(0);
    let value = match v.get("value") {
        Some(Value::Float(f)) => format_percent(*f),
        _ => "–".to_owned(),
    };
    let ci = match v.get("ci95").and_then(Value::as_array) {
        Some(a) if a.len() == 2 => {
            let f = |x: &Value| match x {
                Value::Float(f) => format_percent(*f),
                _ => String::new(),
            };
            format!("{} – {}", f(&a[0]), f(&a[1]))
        }
        _ => "–".to_owned(),
    };
    (
        value,
        format!("{} / {}", n("numerator"), n("denominator")),
        ci,
    )
}

/// The section (an `<section>` element) for `env-report.json` parsed as `doc`.
pub fn env_section(doc: &Value) -> String {
    let mut out = String::new();
    let s = |k: &str| doc.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    out.push_str("<section class=\"extension\" aria-labelledby=\"ledger-env\">");
    out.push_str("<h2 id=\"ledger-env\">Extension: ledger environment</h2>");
    let _ = write!(
        out,
        "<p class=\"banner\" role=\"note\"><strong>Extension, not a WildToolBench metric.</strong> {}</p>",
        escape_xml(EXTENSION_LABEL)
    );
    let _ = write!(
        out,
        "<p>{} · {} · {} history · status {} · {} of {} env tasks scored · {} session(s) without ledger_env skipped</p>",
        escape_xml(&s("model_name")),
        escape_xml(&s("env_version")),
        escape_xml(&s("history_mode")),
        escape_xml(&s("status")),
        doc.get("tasks_scored").and_then(Value::as_i64).unwrap_or(0),
        doc.get("tasks_total").and_then(Value::as_i64).unwrap_or(0),
        doc.get("sessions_without_env").and_then(Value::as_i64).unwrap_or(0),
    );
    let m = doc.get("ledger_env");
    let mut metrics_table = ChartTable {
        caption: "Ledger environment metrics".to_owned(),
        headers: ["metric", "value", "count", "95% interval"]
            .map(str::to_owned)
            .to_vec(),
        rows: Vec::new(),
    };
    if let Some(Value::Object(metrics)) = m {
        for (name, v) in metrics.iter() {
            if v.get("numerator").is_none() {
                continue;
            }
            let (value, count, ci) = cell_rate(v);
            metrics_table
                .rows
                .push(vec![name.clone(), value, count, ci]);
        }
        if let Some(ex) = metrics.get("mean_excess_writes") {
            let value = match ex.get("value") {
                Some(Value::Float(f)) => format!("{f:.3}"),
                _ => "–".to_owned(),
            };
            let n = ex.get("denominator").and_then(Value::as_i64).unwrap_or(0);
            metrics_table.rows.push(vec![
                "mean_excess_writes".to_owned(),
                value,
                format!("{n} tasks"),
                "–".to_owned(),
            ]);
        }
    }
    table_html(&mut out, &metrics_table);
    let small_table = |out: &mut String, caption: &str, key: &str, v: Option<&Value>| {
        let mut t = ChartTable {
            caption: caption.to_owned(),
            headers: vec![key.to_owned(), "value".to_owned()],
            rows: Vec::new(),
        };
        if let Some(Value::Object(o)) = v {
            for (k, x) in o.iter() {
                let text = match x {
                    Value::Object(_) => {
                        let (value, count, _) = cell_rate(x);
                        format!("{value} ({count})")
                    }
                    other => other.as_i64().map(|n| n.to_string()).unwrap_or_default(),
                };
                t.rows.push(vec![k.clone(), text]);
            }
        }
        table_html(out, &t);
    };
    small_table(
        &mut out,
        "Correction outcomes",
        "outcome",
        m.and_then(|m| m.get("correction_outcomes")),
    );
    small_table(
        &mut out,
        "Env success by challenge",
        "challenge",
        m.and_then(|m| m.get("env_success_by_challenge")),
    );
    small_table(
        &mut out,
        "Path label (official decision on the env replies, diagnostic) × env success",
        "path label × env success",
        m.and_then(|m| m.get("agreement")),
    );
    out.push_str("</section>");
    out
}

/// A whole page holding only the section (an env run without an official report).
pub fn env_page(doc: &Value) -> String {
    let model = doc.get("model_name").and_then(Value::as_str).unwrap_or("");
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>wildtool ledger environment — {m}</title><style>body{{font-family:system-ui,sans-serif;max-width:60rem;margin:auto;padding:1rem}}table{{border-collapse:collapse;margin:1rem 0}}th,td{{border:1px solid #999;padding:.2rem .5rem;text-align:left}}.banner{{border:2px solid #b60;padding:.5rem}}@media (prefers-color-scheme: dark){{body{{background:#111;color:#eee}}}}</style></head><body><header><h1>wildtool ledger environment — {m}</h1></header><main>{}</main></body></html>\n",
        env_section(doc),
        m = escape_xml(model)
    )
}
