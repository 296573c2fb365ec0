//! `compare.html`: a self-contained page for a comparison — the runs, every pair's
//! counts, exact test and paired intervals, difference charts per category (SVG with
//! descriptions and data tables) and the tasks on which the runs differ. One file, no
//! scripts, no external resources; every piece of text is escaped.

use std::fmt::Write as _;

use super::paired::{CategoryGroup, CompareDoc, DiffClass, Estimate, PairResult};
use super::runs::RunStatus;
use crate::chart::delta::{
    delta_table, describe_delta, format_pp, render_delta_svg, DeltaChart, DeltaPoint, DeltaSeries,
};
use crate::chart::page::{self, metric, table_html};
use crate::chart::{escape_xml, format_percent, ChartTable};

fn pct(x: f64) -> String {
    format_percent(x)
}

fn estimate_text(e: &Estimate) -> String {
    format!(
        "{} (95% CI {} to {})",
        format_pp(e.estimate),
        format_pp(e.ci95.lo),
        format_pp(e.ci95.hi)
    )
}

/// Formats a p-value: four decimals, or `< 0.0001`.
pub fn format_p(p: f64) -> String {
    if !p.is_finite() {
        "n/a".to_owned()
    } else if p < 0.0001 {
        "< 0.0001".to_owned()
    } else {
        format!("{p:.4}")
    }
}

/// `= 0.0414` or `< 0.0001`.
pub(crate) fn p_clause(p: f64) -> String {
    let text = format_p(p);
    if text.starts_with('<') {
        text
    } else {
        format!("= {text}")
    }
}

fn figure(out: &mut String, chart: &DeltaChart) {
    page::figure(
        out,
        &chart.id,
        &render_delta_svg(chart),
        &describe_delta(chart),
        &delta_table(chart),
    );
}

fn point(e: Option<&Estimate>) -> DeltaPoint {
    DeltaPoint {
        estimate: e.map(|e| e.estimate),
        ci95: e.map(|e| (e.ci95.lo, e.ci95.hi)),
    }
}

/// The difference charts of one pair: headline rates, then one chart per category group.
pub fn pair_charts(pair: &PairResult, index: usize) -> Vec<DeltaChart> {
    let ends = Some((format!("{} better", pair.b), format!("{} better", pair.a)));
    let mut charts = vec![DeltaChart {
        id: format!("pair{index}-headline"),
        title: format!("{} \u{2212} {}: task and session accuracy", pair.a, pair.b),
        summary: None,
        categories: vec!["Task accuracy".to_owned(), "Session accuracy".to_owned()],
        series: vec![DeltaSeries {
            name: String::new(),
            points: vec![
                point(Some(&pair.task_accuracy_delta)),
                point(pair.session_accuracy_delta.as_ref()),
            ],
        }],
        value_axis: "accuracy".to_owned(),
        ends: ends.clone(),
    }];
    for group in CategoryGroup::ALL {
        let rows: Vec<_> = pair
            .categories
            .iter()
            .filter(|c| c.group == group)
            .collect();
        let group_ends = if group.higher_is_better() {
            ends.clone()
        } else {
            Some((format!("{} fewer", pair.a), format!("{} fewer", pair.b)))
        };
        charts.push(DeltaChart {
            id: format!("pair{index}-{group:?}").to_lowercase(),
            title: format!("{} \u{2212} {}: {}", pair.a, pair.b, group.title()),
            summary: Some(format!(
                "Paired differences over the tasks both runs scored; intervals resample sessions ({} group).",
                group.title()
            )),
            categories: rows
                .iter()
                .map(|c| {
                    // Transition counts are bare values under a title that names them.
                    let tick = if group == CategoryGroup::Transitions {
                        &c.key
                    } else {
                        &c.label
                    };
                    format!("{tick} (n = {})", c.tasks)
                })
                .collect(),
            series: vec![DeltaSeries {
                name: String::new(),
                points: rows.iter().map(|c| point(c.delta.as_ref())).collect(),
            }],
            value_axis: if group.higher_is_better() {
                "accuracy".to_owned()
            } else {
                "share of tasks with this error".to_owned()
            },
            ends: group_ends,
        });
    }
    charts
}

/// An overview chart of every pair's task and session accuracy difference (one series
/// per pair), for comparisons of three or more runs.
pub fn overview_chart(doc: &CompareDoc) -> DeltaChart {
    DeltaChart {
        id: "overview".to_owned(),
        title: "Every pair: differences in task and session accuracy".to_owned(),
        summary: None,
        categories: vec!["Task accuracy".to_owned(), "Session accuracy".to_owned()],
        series: doc
            .pairs
            .iter()
            .map(|p| DeltaSeries {
                name: format!("{} \u{2212} {}", p.a, p.b),
                points: vec![
                    point(Some(&p.task_accuracy_delta)),
                    point(p.session_accuracy_delta.as_ref()),
                ],
            })
            .collect(),
        value_axis: "accuracy".to_owned(),
        ends: None,
    }
}

fn status_text(s: RunStatus) -> &'static str {
    match s {
        RunStatus::Done => "done",
        RunStatus::Partial => "partial",
        RunStatus::Failed => "failed",
    }
}

fn pair_section(out: &mut String, pair: &PairResult, index: usize) {
    let _ = write!(
        out,
        "<section aria-labelledby=\"pair{index}\"><h2 id=\"pair{index}\">{} vs {}</h2>",
        escape_xml(&pair.a),
        escape_xml(&pair.b)
    );
    let _ = write!(
        out,
        "<p class=\"note\">{} of {} tasks compared (scored in both runs; {} left out), {} sessions.</p>",
        pair.tasks, pair.tasks_total, pair.dropped, pair.sessions
    );
    out.push_str("<div class=\"headline\">");
    metric(
        out,
        &format_pp(pair.task_accuracy_delta.estimate),
        "Task accuracy difference (A \u{2212} B)",
        &[
            format!(
                "95% CI {} to {}",
                format_pp(pair.task_accuracy_delta.ci95.lo),
                format_pp(pair.task_accuracy_delta.ci95.hi)
            ),
            format!(
                "{} {} · {} {}",
                pair.a,
                pct(pair.task_accuracy.a),
                pair.b,
                pct(pair.task_accuracy.b)
            ),
        ],
    );
    match (&pair.session_accuracy_delta, &pair.session_accuracy) {
        (Some(d), Some(r)) => metric(
            out,
            &format_pp(d.estimate),
            "Session accuracy difference (A \u{2212} B)",
            &[
                format!(
                    "95% CI {} to {}",
                    format_pp(d.ci95.lo),
                    format_pp(d.ci95.hi)
                ),
                format!("{} {} · {} {}", pair.a, pct(r.a), pair.b, pct(r.b)),
            ],
        ),
        _ => metric(out, "—", "Session accuracy difference", &[]),
    }
    let trials = pair.diff.iter().any(|d| d.a_trials > 1 || d.b_trials > 1);
    metric(
        out,
        &format_p(pair.mcnemar_p),
        if trials {
            "Exact sign test p on pass rates (two-sided)"
        } else {
            "Exact McNemar p (two-sided)"
        },
        &[format!(
            "{} tasks better in {}, {} better in {}",
            pair.a_only, pair.a, pair.b_only, pair.b
        )],
    );
    out.push_str("</div>");
    let better = |x: &str, y: &str| {
        if trials {
            format!("Higher pass rate in {x}")
        } else {
            format!("{x} correct, {y} wrong")
        }
    };
    let mut rows = vec![
        vec!["Both correct".to_owned(), pair.both_correct.to_string()],
        vec![better(&pair.a, &pair.b), pair.a_only.to_string()],
        vec![better(&pair.b, &pair.a), pair.b_only.to_string()],
        vec!["Neither correct".to_owned(), pair.neither.to_string()],
    ];
    if trials {
        rows.push(vec![
            "Equal pass rates between 0 and 100%".to_owned(),
            pair.ties.to_string(),
        ]);
    }
    let counts = ChartTable {
        caption: "Task outcomes of the two runs".to_owned(),
        headers: vec!["Outcome".to_owned(), "Tasks".to_owned()],
        rows,
    };
    table_html(out, &counts);
    out.push_str("<div class=\"charts\">");
    for chart in pair_charts(pair, index) {
        figure(out, &chart);
    }
    out.push_str("</div>");
    let rows: Vec<Vec<String>> = pair
        .diff
        .iter()
        .filter(|d| matches!(d.class, DiffClass::AOnly | DiffClass::BOnly))
        .map(|d| {
            vec![
                format!("Session {}, task {}", d.session + 1, d.position + 1),
                d.task_type.as_str().to_owned(),
                pct(d.a),
                pct(d.b),
                if d.class == DiffClass::AOnly {
                    format!("{} better", pair.a)
                } else {
                    format!("{} better", pair.b)
                },
            ]
        })
        .collect();
    let diff = ChartTable {
        caption: format!("Tasks where the runs differ ({})", rows.len()),
        headers: vec![
            "Task".to_owned(),
            "Type".to_owned(),
            format!("{} pass rate", pair.a),
            format!("{} pass rate", pair.b),
            "Difference".to_owned(),
        ],
        rows,
    };
    table_html(out, &diff);
    out.push_str("</section>");
}

/// Renders `compare.html` for a comparison; `dataset_label` names the dataset file.
pub fn compare_html(doc: &CompareDoc, dataset_label: &str) -> String {
    let mut out = String::with_capacity(128 * 1024);
    let labels: Vec<&str> = doc.runs.iter().map(|r| r.label.as_str()).collect();
    let title = format!("wildtool comparison — {}", labels.join(" vs "));
    page::open(
        &mut out,
        &title,
        &format!(
            "{dataset_label} · fingerprint {} · {} sessions · {} tasks · scorer {}",
            doc.dataset.fingerprint, doc.dataset.sessions, doc.dataset.tasks, doc.scorer
        ),
    );
    // The cost columns appear when a run was priced (`--prices`); an unpriced run reads
    // "not priced" there, never a number.
    let priced = doc.runs.iter().any(|r| r.cost.is_some());
    let mut headers = vec![
        "Run".to_owned(),
        "Trials".to_owned(),
        "Tasks scored".to_owned(),
        "Status".to_owned(),
    ];
    if priced {
        headers.extend(["Cost".to_owned(), "Cost per solved task".to_owned()]);
    }
    let runs = ChartTable {
        caption: "Runs".to_owned(),
        headers,
        rows: doc
            .runs
            .iter()
            .map(|r| {
                let mut row = vec![
                    r.label.clone(),
                    r.trials.to_string(),
                    format!("{} of {}", r.tasks_scored, doc.dataset.tasks),
                    status_text(r.status).to_owned(),
                ];
                if priced {
                    match &r.cost {
                        Some(c) => row.extend([
                            crate::cost::figures::money(c.total),
                            c.per_solved_task
                                .map(crate::cost::figures::money)
                                .unwrap_or_else(|| "no solved task".to_owned()),
                        ]),
                        None => row.extend(["not priced".to_owned(), "not priced".to_owned()]),
                    }
                }
                row
            })
            .collect(),
    };
    table_html(&mut out, &runs);
    let _ = write!(
        out,
        "<p class=\"note\">Test: {}. Intervals: {} bootstrap over {}s, {} resamples, seed {}. {}.</p>",
        escape_xml(&doc.method.test),
        escape_xml(&doc.method.bootstrap.interval),
        escape_xml(&doc.method.bootstrap.unit),
        doc.method.bootstrap.resamples,
        doc.method.bootstrap.seed,
        escape_xml(&upper_first(&doc.method.trials))
    );
    if doc.pairs.len() > 1 {
        out.push_str("<div class=\"charts\">");
        figure(&mut out, &overview_chart(doc));
        out.push_str("</div>");
    }
    for (i, pair) in doc.pairs.iter().enumerate() {
        pair_section(&mut out, pair, i + 1);
    }
    page::close(&mut out);
    out
}

fn upper_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// One line per pair for a terminal: counts, p-value and deltas.
pub fn summary_text(doc: &CompareDoc) -> String {
    let mut out = String::new();
    for r in &doc.runs {
        if let Some(c) = &r.cost {
            let _ = writeln!(out, "{}: {}", r.label, c.line());
        }
    }
    for p in &doc.pairs {
        let _ = writeln!(
            out,
            "{} vs {}: {} of {} tasks compared ({} left out)",
            p.a, p.b, p.tasks, p.tasks_total, p.dropped
        );
        let _ = writeln!(
            out,
            "  both correct {} · only {} {} · only {} {} · neither {}{}",
            p.both_correct,
            p.a,
            p.a_only,
            p.b,
            p.b_only,
            p.neither,
            if p.ties > 0 {
                format!(" · equal partial {}", p.ties)
            } else {
                String::new()
            }
        );
        let _ = writeln!(
            out,
            "  exact McNemar p {} · task accuracy {} vs {}, difference {}",
            p_clause(p.mcnemar_p),
            pct(p.task_accuracy.a),
            pct(p.task_accuracy.b),
            estimate_text(&p.task_accuracy_delta)
        );
        if let Some(d) = &p.session_accuracy_delta {
            let _ = writeln!(out, "  session accuracy difference {}", estimate_text(d));
        }
    }
    out
}
