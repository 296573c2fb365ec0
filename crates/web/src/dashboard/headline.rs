//! The headline cards of a run (the dashboard's and the Run view's), every number from
//! its report.

use wildtool_core::report::RunReport;

use super::ShownRun;
use crate::ui::{el, el_text, Element};
use crate::widgets::pct;

fn metric_card(name: &str, value: &str, ci: &str, note: &str) -> Element {
    el("div")
        .class("metric")
        .child(el_text("span", value).class("metric-value"))
        .child(el_text("span", name).class("metric-name"))
        .child(el_text("span", ci).class("metric-ci"))
        .child(el_text("span", note).class("metric-note"))
}

/// The headline cards of a run, every number from its report.
pub fn headline(id: &str, shown: &ShownRun) -> Element {
    let h = &shown.headline;
    let r: &RunReport = &shown.report;
    let scored = h.tasks_scored > 0;
    let ci = |lo: f64, hi: f64| {
        if scored {
            format!("95% CI {} – {}", pct(Some(lo)), pct(Some(hi)))
        } else {
            String::new()
        }
    };
    let task_note = if scored {
        format!(
            "{} / {} correct · {} · session bootstrap {} – {}",
            r.task_accuracy.correct,
            r.task_accuracy.total,
            h.scored,
            pct(Some(r.task_accuracy_bootstrap95.lo)),
            pct(Some(r.task_accuracy_bootstrap95.hi))
        )
    } else {
        h.scored.clone()
    };
    let optimal = r.optimal.get("Total").filter(|o| scored && o.total > 0);
    let progress = r.progress.get("Total").filter(|p| scored && p.nodes > 0);
    el("div")
        .id(id)
        .class("headline")
        .child(metric_card(
            "Task accuracy",
            h.task_accuracy.as_deref().unwrap_or("—"),
            &ci(r.task_accuracy.ci95.lo, r.task_accuracy.ci95.hi),
            &task_note,
        ))
        .child(metric_card(
            "Session accuracy",
            h.session_accuracy.as_deref().unwrap_or("—"),
            &ci(r.session_accuracy.ci95.lo, r.session_accuracy.ci95.hi),
            &if scored {
                format!(
                    "{} / {} sessions",
                    r.session_accuracy.correct, r.session_accuracy.total
                )
            } else {
                String::new()
            },
        ))
        .child(metric_card(
            "Optimal-path rate (Parallel + Mixed)",
            &pct(optimal.map(|o| o.rate)),
            &optimal
                .map(|o| ci(o.ci95.lo, o.ci95.hi))
                .unwrap_or_default(),
            &optimal
                .map(|o| format!("{} / {}", o.correct, o.total))
                .unwrap_or_else(|| "no Parallel or Mixed tasks scored".into()),
        ))
        .child(metric_card(
            "Progress rate (Sequential + Mixed, node-based)",
            &pct(progress.map(|p| p.ap_nodes)),
            "",
            &progress
                .map(|p| {
                    format!(
                        "{} gold nodes · official step-based {} (counts steps, not nodes: a step of parallel calls counts once, so even the gold agent stays below 100%)",
                        p.nodes,
                        pct(Some(p.step_based))
                    )
                })
                .unwrap_or_else(|| "no Sequential or Mixed tasks scored".into()),
        ))
}
