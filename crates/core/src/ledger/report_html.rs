//! The "Extension: ledger environment" section of an HTML report, from an
//! `env-report.json` document: the badge, every metric with its count and 95% interval,
//! the correction outcomes, success by challenge, and path label × env success. Every
//! string is escaped; nothing from the report is markup.

use std::fmt::Write as _;

use crate::chart::{escape_xml, format_percent};
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
    out.push_str("<table><caption>Ledger environment metrics</caption><thead><tr><th scope=\"col\">metric</th><th scope=\"col\">value</th><th scope=\"col\">count</th><th scope=\"col\">95% interval</th></tr></thead><tbody>");
    if let Some(Value::Object(metrics)) = m {
        for (name, v) in metrics.iter() {
            if v.get("numerator").is_none() {
                continue;
            }
            let (value, count, ci) = cell_rate(v);
            let _ = write!(
                out,
                "<tr><th scope=\"row\">{}</th><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape_xml(name),
                escape_xml(&value),
                escape_xml(&count),
                escape_xml(&ci)
            );
        }
        if let Some(ex) = metrics.get("mean_excess_writes") {
            let value = match ex.get("value") {
                Some(Value::Float(f)) => format!("{f:.3}"),
                _ => "–".to_owned(),
            };
            let _ = write!(
                out,
                "<tr><th scope=\"row\">mean_excess_writes</th><td>{}</td><td>{} tasks</td><td>–</td></tr>",
                escape_xml(&value),
                ex.get("denominator").and_then(Value::as_i64).unwrap_or(0)
            );
        }
    }
    out.push_str("</tbody></table>");
    let small_table = |out: &mut String, caption: &str, v: Option<&Value>| {
        let _ = write!(
            out,
            "<table><caption>{}</caption><tbody>",
            escape_xml(caption)
        );
        if let Some(Value::Object(o)) = v {
            for (k, x) in o.iter() {
                let text = match x {
                    Value::Object(_) => {
                        let (value, count, _) = cell_rate(x);
                        format!("{value} ({count})")
                    }
                    other => other.as_i64().map(|n| n.to_string()).unwrap_or_default(),
                };
                let _ = write!(
                    out,
                    "<tr><th scope=\"row\">{}</th><td>{}</td></tr>",
                    escape_xml(k),
                    escape_xml(&text)
                );
            }
        }
        out.push_str("</tbody></table>");
    };
    small_table(
        &mut out,
        "Correction outcomes",
        m.and_then(|m| m.get("correction_outcomes")),
    );
    small_table(
        &mut out,
        "Env success by challenge",
        m.and_then(|m| m.get("env_success_by_challenge")),
    );
    small_table(
        &mut out,
        "Path label (official decision on the env replies, diagnostic) × env success",
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
