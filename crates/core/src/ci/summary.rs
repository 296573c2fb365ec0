//! A Markdown summary for a pull-request comment: the headline of a run or a comparison,
//! the gate's verdict and the biggest per-category changes. Labels and other untrusted
//! text are escaped so they cannot add markup.

use std::fmt::Write as _;

use crate::chart::format_percent;
use crate::compare::gate::{points_bare, GateVerdict};
use crate::compare::paired::{CategoryGroup, PairResult};
use crate::cost::figures::money;
use crate::cost::CostFigures;
use crate::report::RunReport;

/// Categories shown at most in a comparison's table.
pub const MAX_CATEGORIES: usize = 5;

/// Escapes text for Markdown (inline or in a table cell).
pub fn escape_md(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' | '`' | '*' | '_' | '{' | '}' | '[' | ']' | '(' | ')' | '#' | '+' | '-' | '.'
            | '!' | '|' | '~' | '>' => {
                out.push('\\');
                out.push(c);
            }
            '<' => out.push_str("&lt;"),
            '&' => out.push_str("&amp;"),
            '\n' | '\r' | '\t' => out.push(' '),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

fn cost_line(out: &mut String, label: &str, cost: &CostFigures) {
    let per = |v: Option<f64>| v.map(money).unwrap_or_else(|| "n/a".to_owned());
    let _ = writeln!(
        out,
        "- Cost of {}: **{} {}** ({} per task, {} per solved task; {} prices)",
        escape_md(label),
        money(cost.total),
        escape_md(&cost.pricing.currency),
        per(cost.per_task),
        per(cost.per_solved_task),
        escape_md(&cost.pricing.model)
    );
}

/// The summary of one run.
pub fn run_markdown(label: &str, report: &RunReport, cost: Option<&CostFigures>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "### wildtool run: {}\n", escape_md(label));
    let _ = writeln!(
        out,
        "- Status: **{}**, {} of {} tasks scored",
        report.status.as_str(),
        report.tasks_scored,
        report.tasks_total
    );
    let _ = writeln!(
        out,
        "- Task accuracy: **{}** (95% interval {} to {})",
        format_percent(report.task_accuracy.rate),
        format_percent(report.task_accuracy_bootstrap95.lo),
        format_percent(report.task_accuracy_bootstrap95.hi)
    );
    let _ = writeln!(
        out,
        "- Session accuracy: **{}** ({} of {} sessions)",
        format_percent(report.session_accuracy.rate),
        report.session_accuracy.correct,
        report.session_accuracy.total
    );
    if let Some(c) = cost {
        cost_line(&mut out, label, c);
    }
    out
}

/// The summary of a comparison of A (baseline) and B (candidate), with the gate's verdict
/// when there is one.
pub fn pair_markdown(
    pair: &PairResult,
    verdict: Option<&GateVerdict>,
    costs: [Option<&CostFigures>; 2],
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "### wildtool: {} vs {}\n",
        escape_md(&pair.b),
        escape_md(&pair.a)
    );
    if let Some(v) = verdict {
        let mark = if v.outcome.fails() { "❌" } else { "✅" };
        let _ = writeln!(out, "{mark} **Gate:** {}\n", escape_md(&v.reason));
    }
    let _ = writeln!(
        out,
        "- Task accuracy: {} {} → {} {} ({} points, 95% interval {} to {}; exact McNemar p {})",
        escape_md(&pair.a),
        format_percent(pair.task_accuracy.a),
        escape_md(&pair.b),
        format_percent(pair.task_accuracy.b),
        points_bare(-pair.task_accuracy_delta.estimate),
        points_bare(-pair.task_accuracy_delta.ci95.hi),
        points_bare(-pair.task_accuracy_delta.ci95.lo),
        crate::compare::gate::p_text(pair.mcnemar_p)
            .trim_start_matches("= ")
            .to_owned()
    );
    let _ = writeln!(
        out,
        "- {} of {} tasks compared in {} sessions; only {} passed: {}, only {} passed: {}",
        pair.tasks,
        pair.tasks_total,
        pair.sessions,
        escape_md(&pair.a),
        pair.a_only,
        escape_md(&pair.b),
        pair.b_only
    );
    for (label, cost) in [&pair.a, &pair.b].into_iter().zip(costs) {
        if let Some(c) = cost {
            cost_line(&mut out, label, c);
        }
    }
    let mut cats: Vec<_> = pair
        .categories
        .iter()
        .filter(|c| c.group != CategoryGroup::ErrorClass)
        .filter_map(|c| c.delta.map(|d| (c, d)))
        .filter(|(_, d)| d.estimate != 0.0)
        .collect();
    crate::order::sort_by(&mut cats, |x, y| {
        y.1.estimate.abs().total_cmp(&x.1.estimate.abs())
    });
    if !cats.is_empty() {
        let _ = writeln!(
            out,
            "\n| Biggest changes (candidate − baseline) | tasks | change | 95% interval | p |\n|---|---:|---:|---:|---:|"
        );
        for (c, d) in cats.into_iter().take(MAX_CATEGORIES) {
            let _ = writeln!(
                out,
                "| {}: {} | {} | {} | {} to {} | {} |",
                escape_md(c.group.title()),
                escape_md(&c.label),
                c.tasks,
                points_bare(-d.estimate),
                points_bare(-d.ci95.hi),
                points_bare(-d.ci95.lo),
                crate::compare::gate::p_text(c.p).trim_start_matches("= ")
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untrusted_text_adds_no_markup() {
        assert_eq!(escape_md("a|b"), "a\\|b");
        assert_eq!(escape_md("<img src=x>"), "&lt;img src=x\\>");
        assert_eq!(escape_md("[x](y)"), "\\[x\\]\\(y\\)");
        assert_eq!(escape_md("l1\nl2"), "l1 l2");
    }
}
