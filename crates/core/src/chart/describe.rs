//! Accessible description and data-table view of a chart.

use super::format::{format_interval, format_percent};
use super::{has_data, ChartKind, ChartSpec, ChartTable, Point};

fn point_text(p: &Point) -> String {
    match (p.clean_value(), p.clean_interval()) {
        (Some(v), Some((lo, hi))) => {
            format!("{} (95% CI {})", format_percent(v), format_interval(lo, hi))
        }
        (Some(v), None) => format_percent(v),
        (None, _) => "no data".to_owned(),
    }
}

/// A plain-language summary of the chart's data (used as the SVG `<desc>`).
pub fn describe(spec: &ChartSpec) -> String {
    let mut parts: Vec<String> = Vec::new();
    if let Some(s) = spec.summary.as_deref().filter(|s| !s.trim().is_empty()) {
        parts.push(s.trim().to_owned());
    }
    if !has_data(spec) {
        parts.push("No data available.".to_owned());
        return parts.join(" ");
    }
    let measure = if spec.value_axis.trim().is_empty() {
        "value"
    } else {
        spec.value_axis.trim()
    };
    let names: Vec<&str> = spec.series.iter().map(|s| s.name.as_str()).collect();
    match (spec.kind, spec.series.len()) {
        (ChartKind::Bars, 1) => {
            parts.push(format!(
                "Bar chart of {measure} for {} categories.",
                spec.categories.len()
            ));
            let cells: Vec<String> = spec
                .categories
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let p = spec.series.first().map(|s| s.point(i)).unwrap_or_default();
                    format!("{c}: {}", point_text(&p))
                })
                .collect();
            parts.push(format!("{}.", cells.join("; ")));
            if let Some(series) = spec.series.first() {
                let valued: Vec<(usize, f64)> = (0..spec.categories.len())
                    .filter_map(|i| series.point(i).clean_value().map(|v| (i, v)))
                    .collect();
                let hi = valued
                    .iter()
                    .copied()
                    .fold(None, |m: Option<(usize, f64)>, x| match m {
                        Some(b) if b.1 >= x.1 => Some(b),
                        _ => Some(x),
                    });
                let lo = valued
                    .iter()
                    .copied()
                    .fold(None, |m: Option<(usize, f64)>, x| match m {
                        Some(b) if b.1 <= x.1 => Some(b),
                        _ => Some(x),
                    });
                if let (Some(h), Some(l)) = (hi, lo) {
                    if valued.len() > 1 && h.0 != l.0 {
                        parts.push(format!(
                            "Highest: {} ({}); lowest: {} ({}).",
                            spec.categories.get(h.0).map(String::as_str).unwrap_or(""),
                            format_percent(h.1),
                            spec.categories.get(l.0).map(String::as_str).unwrap_or(""),
                            format_percent(l.1)
                        ));
                    }
                }
            }
        }
        (ChartKind::Bars, n) => {
            parts.push(format!(
                "Grouped bar chart of {measure} comparing {n} series ({}) over {} categories.",
                names.join(", "),
                spec.categories.len()
            ));
            for (i, c) in spec.categories.iter().enumerate() {
                let cells: Vec<String> = spec
                    .series
                    .iter()
                    .map(|s| format!("{} {}", s.name, point_text(&s.point(i))))
                    .collect();
                parts.push(format!("{c}: {}.", cells.join(", ")));
            }
        }
        (ChartKind::Stacked | ChartKind::Stacked100, n) => {
            parts.push(format!(
                "Stacked bar chart of {measure}: {} bars split into {n} parts.",
                spec.categories.len()
            ));
            for (i, c) in spec.categories.iter().enumerate() {
                let cells: Vec<String> = spec
                    .series
                    .iter()
                    .filter_map(|s| {
                        let v = s.point(i).clean_value()?;
                        (v > 0.0).then(|| format!("{} {}", s.name, format_percent(v)))
                    })
                    .collect();
                let body = if cells.is_empty() {
                    "no data".to_owned()
                } else {
                    cells.join(", ")
                };
                parts.push(format!("{c}: {body}."));
            }
        }
    }
    parts.join(" ")
}

/// A plain-language summary of a line chart's data (see `line`).
pub fn describe_line(spec: &ChartSpec) -> String {
    let mut parts: Vec<String> = Vec::new();
    if let Some(s) = spec.summary.as_deref().filter(|s| !s.trim().is_empty()) {
        parts.push(s.trim().to_owned());
    }
    if !has_data(spec) {
        parts.push("No data available.".to_owned());
        return parts.join(" ");
    }
    let names: Vec<&str> = spec.series.iter().map(|s| s.name.as_str()).collect();
    parts.push(format!(
        "Line chart of {}: {} series ({}) over {} points.",
        if spec.value_axis.trim().is_empty() {
            "value"
        } else {
            spec.value_axis.trim()
        },
        spec.series.len(),
        names.join(", "),
        spec.categories.len()
    ));
    for s in &spec.series {
        let cells: Vec<String> = spec
            .categories
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{c}: {}", point_text(&s.point(i))))
            .collect();
        parts.push(format!("{}: {}.", s.name, cells.join("; ")));
    }
    parts.join(" ")
}

/// The chart's data as a table: one row per category, one column per series, plus a
/// "95% CI" column for each series that has intervals. Missing values show as `—`.
pub fn table(spec: &ChartSpec) -> ChartTable {
    let mut headers = vec!["Category".to_owned()];
    let with_ci: Vec<bool> = spec
        .series
        .iter()
        .map(|s| s.points.iter().any(|p| p.clean_interval().is_some()))
        .collect();
    for (s, ci) in spec.series.iter().zip(&with_ci) {
        headers.push(if s.name.is_empty() {
            "Value".to_owned()
        } else {
            s.name.clone()
        });
        if *ci {
            headers.push(format!(
                "{} 95% CI",
                if s.name.is_empty() { "Value" } else { &s.name }
            ));
        }
    }
    let rows = spec
        .categories
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut row = vec![c.clone()];
            for (s, ci) in spec.series.iter().zip(&with_ci) {
                let p = s.point(i);
                row.push(
                    p.clean_value()
                        .map(format_percent)
                        .unwrap_or_else(|| "—".to_owned()),
                );
                if *ci {
                    row.push(
                        p.clean_interval()
                            .map(|(lo, hi)| format_interval(lo, hi))
                            .unwrap_or_else(|| "—".to_owned()),
                    );
                }
            }
            row
        })
        .collect();
    ChartTable {
        caption: spec.title.clone(),
        headers,
        rows,
    }
}
