//! The readable summary table printed by `wildtool score` and `wildtool run`.

use std::fmt::Write as _;

use super::{Rate, RunReport};

fn pct(x: f64) -> String {
    format!("{:6.2}%", x * 100.0)
}

fn rate_row(out: &mut String, label: &str, r: &Rate) {
    let _ = writeln!(
        out,
        "  {label:<28} {}  ({:>4}/{:<4})  95% CI [{}, {}]",
        pct(r.rate),
        r.correct,
        r.total,
        pct(r.ci95.lo).trim_start(),
        pct(r.ci95.hi).trim_start()
    );
}

/// Renders the summary table of a report.
pub fn summary_table(model: &str, report: &RunReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "wildtool summary — {model}");
    let _ = writeln!(
        out,
        "  {} sessions, {} of {} tasks scored ({})",
        report.sessions,
        report.tasks_scored,
        report.tasks_total,
        report.status.as_str()
    );
    if report.status != super::RunStatus::Done {
        let _ = writeln!(
            out,
            "  {} task(s) not scored: every rate below is over the {} scored task(s) only",
            report.tasks_unscored, report.tasks_scored
        );
    }
    rate_row(&mut out, "Task accuracy", &report.task_accuracy);
    let _ = writeln!(
        out,
        "  {:<28}          session bootstrap 95% CI [{}, {}]",
        "",
        pct(report.task_accuracy_bootstrap95.lo).trim_start(),
        pct(report.task_accuracy_bootstrap95.hi).trim_start()
    );
    rate_row(&mut out, "Session accuracy", &report.session_accuracy);
    let _ = writeln!(out, "By task type");
    let type_order = [
        "Single-Tool",
        "Multi-Tool",
        "Parallel Multi-Tool",
        "Sequential Multi-Tool",
        "Mixed Multi-Tool",
        "Clarify",
        "Chat",
    ];
    for k in type_order {
        if let Some(r) = report.by_type.get(k) {
            rate_row(&mut out, k, r);
        }
    }
    let _ = writeln!(out, "By task position");
    for (k, r) in &report.by_position {
        rate_row(&mut out, &format!("Task {k}"), r);
    }
    let _ = writeln!(out, "By hidden intent");
    let subtype_order = [
        "First Turn",
        "Subsequent Turn",
        "Coreferential Reference",
        "Partial Information",
        "Long-Range Dependency",
    ];
    for k in subtype_order {
        if let Some(r) = report.by_subtype.get(k) {
            rate_row(&mut out, k, r);
        }
    }
    let _ = writeln!(out, "By instruction transitions (session)");
    for (k, r) in &report.by_transitions {
        rate_row(&mut out, &format!("{k} transitions"), r);
    }
    let _ = writeln!(out, "Optimal path (OP)");
    for k in ["Parallel Multi-Tool", "Mixed Multi-Tool", "Total"] {
        if let Some(r) = report.optimal.get(k) {
            rate_row(&mut out, k, r);
        }
    }
    let _ = writeln!(out, "Progress: official step-based | node-based AP");
    for (k, p) in ["Sequential Multi-Tool", "Mixed Multi-Tool", "Total"]
        .iter()
        .filter_map(|k| report.progress.get(*k).map(|p| (k, p)))
    {
        let _ = writeln!(
            out,
            "  {k:<28} {} | {}  ({} nodes)",
            pct(p.step_based),
            pct(p.ap_nodes),
            p.nodes
        );
    }
    if report.errors.failed > 0 {
        let _ = writeln!(
            out,
            "Errors ({} failed tasks; {})",
            report.errors.failed, report.errors.mapping
        );
        for (name, n, share) in &report.errors.columns {
            let _ = writeln!(out, "  {name:<28} {n:>5}  {}", pct(*share));
        }
    }
    if report.tasks_unscored > 0 {
        let _ = writeln!(
            out,
            "Not scored (incomplete or without a result; not model errors): {}",
            report.tasks_unscored
        );
    }
    out
}
