//! Difference charts: paired differences (A − B) with 95% intervals, one row per
//! category, drawn as a dot-and-whisker ("forest") plot around a zero line. Several
//! series (pairs of runs) share a row, told apart by colour and, beyond twelve, by
//! marker and line pattern (see `palette`).

use std::fmt::Write as _;

use super::format::{escape_xml, shorten, text_width};
use super::palette::{marker_svg, series_style};
use super::svg::{num, Anchor, Svg, GRID, MUTED};
use super::{safe_id, ChartTable, Layout};
use serde::{Deserialize, Serialize};

const WIDTH: f64 = 640.0;
const NICE: [f64; 8] = [0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 0.75, 1.0];

/// One difference: estimate and interval, as proportions in `-1..=1`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub struct DeltaPoint {
    /// A − B (`None` or non-finite: no data).
    pub estimate: Option<f64>,
    /// 95% interval `(lo, hi)`.
    #[serde(default)]
    pub ci95: Option<(f64, f64)>,
}

impl DeltaPoint {
    fn value(&self) -> Option<f64> {
        self.estimate
            .filter(|v| v.is_finite())
            .map(|v| v.clamp(-1.0, 1.0))
    }

    fn interval(&self) -> Option<(f64, f64)> {
        let (a, b) = self.ci95?;
        if !a.is_finite() || !b.is_finite() {
            return None;
        }
        let (a, b) = (a.clamp(-1.0, 1.0), b.clamp(-1.0, 1.0));
        Some(if a <= b { (a, b) } else { (b, a) })
    }
}

/// One pair's differences, one point per category.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct DeltaSeries {
    /// Legend name (for example "A − B").
    pub name: String,
    /// One point per category.
    pub points: Vec<DeltaPoint>,
}

/// A difference chart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct DeltaChart {
    /// Element id prefix.
    pub id: String,
    /// Title.
    pub title: String,
    /// Optional sentence before the generated description.
    #[serde(default)]
    pub summary: Option<String>,
    /// Category labels (rows).
    pub categories: Vec<String>,
    /// Series (pairs).
    pub series: Vec<DeltaSeries>,
    /// What the difference is of (for example "Task accuracy").
    pub value_axis: String,
    /// Texts under the left and right ends of the axis (for example "B better",
    /// "A better").
    #[serde(default)]
    pub ends: Option<(String, String)>,
}

/// Formats a difference in percentage points: `+3.1 pp`, `−0.4 pp`, `0.0 pp`.
pub fn format_pp(v: f64) -> String {
    if !v.is_finite() {
        return "n/a".to_owned();
    }
    let pp = v * 100.0;
    if pp.abs() < 0.05 {
        "0.0 pp".to_owned()
    } else if pp > 0.0 {
        format!("+{pp:.1} pp")
    } else {
        format!("\u{2212}{:.1} pp", -pp)
    }
}

fn point_text(p: &DeltaPoint) -> String {
    match (p.value(), p.interval()) {
        (Some(v), Some((lo, hi))) => format!(
            "{} (95% CI {} to {})",
            format_pp(v),
            format_pp(lo),
            format_pp(hi)
        ),
        (Some(v), None) => format_pp(v),
        (None, _) => "no data".to_owned(),
    }
}

/// `+3.1 (−1.0, +7.2) pp`: the compact form printed beside a single-series plot.
fn short_text(p: &DeltaPoint) -> String {
    let bare = |v: f64| format_pp(v).trim_end_matches(" pp").to_owned();
    match (p.value(), p.interval()) {
        (Some(v), Some((lo, hi))) => format!("{} ({}, {}) pp", bare(v), bare(lo), bare(hi)),
        (Some(v), None) => format_pp(v),
        (None, _) => String::new(),
    }
}

fn point(series: &DeltaSeries, i: usize) -> DeltaPoint {
    series.points.get(i).copied().unwrap_or_default()
}

/// True when some category has a finite estimate.
pub fn delta_has_data(c: &DeltaChart) -> bool {
    (0..c.categories.len()).any(|i| c.series.iter().any(|s| point(s, i).value().is_some()))
}

/// A plain-language description (the SVG `<desc>`).
pub fn describe_delta(c: &DeltaChart) -> String {
    let mut parts: Vec<String> = Vec::new();
    if let Some(s) = c.summary.as_deref().filter(|s| !s.trim().is_empty()) {
        parts.push(s.trim().to_owned());
    }
    if !delta_has_data(c) {
        parts.push("No data available.".to_owned());
        return parts.join(" ");
    }
    parts.push(format!(
        "Differences in {} with 95% intervals for {} categories.",
        if c.value_axis.trim().is_empty() {
            "value"
        } else {
            c.value_axis.trim()
        },
        c.categories.len()
    ));
    for s in &c.series {
        let cells: Vec<String> = c
            .categories
            .iter()
            .enumerate()
            .map(|(i, cat)| format!("{cat}: {}", point_text(&point(s, i))))
            .collect();
        if c.series.len() > 1 {
            parts.push(format!("{}: {}.", s.name, cells.join("; ")));
        } else {
            parts.push(format!("{}.", cells.join("; ")));
        }
    }
    parts.join(" ")
}

/// The chart as a data table (one column per series).
pub fn delta_table(c: &DeltaChart) -> ChartTable {
    let mut headers = vec!["Category".to_owned()];
    headers.extend(c.series.iter().map(|s| {
        if s.name.is_empty() {
            "Difference (95% CI)".to_owned()
        } else {
            format!("{} (95% CI)", s.name)
        }
    }));
    ChartTable {
        caption: c.title.clone(),
        headers,
        rows: c
            .categories
            .iter()
            .enumerate()
            .map(|(i, cat)| {
                let mut row = vec![cat.clone()];
                row.extend(c.series.iter().map(|s| point_text(&point(s, i))));
                row
            })
            .collect(),
    }
}

/// Half-width of the value axis: the smallest "nice" extent holding every value.
fn extent(c: &DeltaChart) -> f64 {
    let mut m: f64 = 0.0;
    for s in &c.series {
        for i in 0..c.categories.len() {
            let p = point(s, i);
            if let Some(v) = p.value() {
                m = m.max(v.abs());
            }
            if let Some((lo, hi)) = p.interval() {
                m = m.max(lo.abs()).max(hi.abs());
            }
        }
    }
    NICE.iter().copied().find(|e| *e >= m).unwrap_or(1.0)
}

/// Renders the chart as an `<svg>` element (every string escaped).
pub fn render_delta_svg(c: &DeltaChart) -> String {
    render_delta_svg_with(c, Layout::STANDARD)
}

/// Renders the chart with `layout`: on a narrow layout the drawing is as wide as the
/// screen, no text is smaller than its minimum, and a single series' values are left to
/// the data table rather than printed beside the plot.
pub fn render_delta_svg_with(c: &DeltaChart, layout: Layout) -> String {
    let width = if layout.width.is_finite() {
        layout.width.clamp(280.0, WIDTH)
    } else {
        WIDTH
    };
    let id = safe_id(&c.id);
    let desc = describe_delta(c);
    if !delta_has_data(c) {
        let mut svg = Svg::open(&id, width, 110.0, &c.title, &desc);
        svg.set_min_font(layout.min_font);
        svg.rect(16.0, 40.0, width - 32.0, 54.0, "#f4f4f4", None);
        svg.text(
            width / 2.0,
            72.0,
            Anchor::Middle,
            13.0,
            MUTED,
            false,
            "No data",
        );
        return svg.finish();
    }
    let n_series = c.series.len().max(1);
    let multi = n_series > 1;
    let values_beside = !multi && width >= 480.0;
    let label_cap = (width * 0.38).min(200.0);
    let label_font = 12.0f64.max(layout.min_font);
    let label_chars = ((label_cap / (label_font * 0.56)).floor() as usize).clamp(8, 30);
    let labels: Vec<String> = c
        .categories
        .iter()
        .map(|l| shorten(l, label_chars))
        .collect();
    let label_w = labels
        .iter()
        .map(|l| text_width(l, label_font))
        .fold(40.0, f64::max)
        .min(label_cap);
    let left = 16.0 + label_w + 10.0;
    // Single series: the value and interval are printed right of the plot.
    let value_texts: Vec<String> = (0..c.categories.len())
        .map(|i| {
            c.series
                .first()
                .map(|s| short_text(&point(s, i)))
                .unwrap_or_default()
        })
        .collect();
    let right = if !values_beside {
        24.0
    } else {
        value_texts
            .iter()
            .map(|t| text_width(t, 11.0))
            .fold(60.0, f64::max)
            .min(220.0)
            + 16.0
    };
    let plot_w = width - left - right;
    let row_h = 12.0 * n_series as f64 + 12.0;
    let legend_h = if multi {
        18.0 * n_series.min(12) as f64 / 2.0 + 18.0
    } else {
        0.0
    };
    let top = 40.0 + legend_h;
    let bottom = top + row_h * c.categories.len() as f64;
    let height = bottom + 56.0;
    let e = extent(c);
    let x_of = |v: f64| left + (v + e) / (2.0 * e) * plot_w;

    let mut svg = Svg::open(&id, width, height, &c.title, &desc);
    svg.set_min_font(layout.min_font);
    let mut extra = String::new();
    if multi {
        // Legend: two columns of marker + name.
        for (k, s) in c.series.iter().enumerate() {
            let style = series_style(k);
            let (col, row) = (k % 2, k / 2);
            let x = 16.0 + col as f64 * (width / 2.0);
            let y = 40.0 + row as f64 * 18.0;
            extra.push_str(&marker_svg(
                style.marker,
                x + 5.0,
                y + 5.0,
                5.0,
                style.colour,
            ));
            svg.text(
                x + 14.0,
                y + 9.5,
                Anchor::Start,
                12.0,
                "#222222",
                false,
                &shorten(&s.name, 40),
            );
        }
    }
    for i in (1..c.categories.len()).step_by(2) {
        svg.rect(
            16.0,
            top + row_h * i as f64,
            width - 32.0,
            row_h,
            "#f7f7f7",
            None,
        );
    }
    for t in [-e, -e / 2.0, 0.0, e / 2.0, e] {
        let x = x_of(t);
        let zero = t == 0.0;
        svg.line(
            x,
            top,
            x,
            bottom,
            if zero { "#333333" } else { GRID },
            if zero { 1.5 } else { 1.0 },
        );
        let tick = format_pp(t).replace(".0 pp", " pp");
        svg.text(x, bottom + 16.0, Anchor::Middle, 11.0, MUTED, false, &tick);
    }
    if let Some((l, r)) = &c.ends {
        svg.text(
            left,
            bottom + 32.0,
            Anchor::Start,
            11.0,
            "#333333",
            false,
            &format!("\u{2190} {l}"),
        );
        svg.text(
            left + plot_w,
            bottom + 32.0,
            Anchor::End,
            11.0,
            "#333333",
            false,
            &format!("{r} \u{2192}"),
        );
    }
    if !c.value_axis.is_empty() {
        svg.text(
            left + plot_w / 2.0,
            bottom + 48.0,
            Anchor::Middle,
            12.0,
            "#333333",
            false,
            &format!("Difference in {} (A \u{2212} B)", c.value_axis),
        );
    }
    for (i, (cat, label)) in c.categories.iter().zip(&labels).enumerate() {
        let y0 = top + row_h * i as f64 + 6.0;
        svg.group_open(cat);
        svg.text(
            left - 8.0,
            y0 + row_h / 2.0 - 2.0,
            Anchor::End,
            12.0,
            "#222222",
            false,
            label,
        );
        svg.group_close();
        for (k, s) in c.series.iter().enumerate() {
            let p = point(s, i);
            let style = series_style(k);
            let cy = y0 + 6.0 + 12.0 * k as f64;
            let tip = if s.name.is_empty() {
                format!("{cat}: {}", point_text(&p))
            } else {
                format!("{} \u{2014} {cat}: {}", s.name, point_text(&p))
            };
            match p.value() {
                Some(v) => {
                    let _ = write!(extra, "<g><title>{}</title>", escape_xml(&tip));
                    if let Some((lo, hi)) = p.interval() {
                        let dash = style
                            .dash
                            .map(|d| format!(" stroke-dasharray=\"{d}\""))
                            .unwrap_or_default();
                        let _ = write!(
                            extra,
                            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2\"{dash}/>",
                            num(x_of(lo)), num(cy), num(x_of(hi)), num(cy), style.colour
                        );
                        for x in [x_of(lo), x_of(hi)] {
                            let _ = write!(
                                extra,
                                "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2\"/>",
                                num(x), num(cy - 4.0), num(x), num(cy + 4.0), style.colour
                            );
                        }
                    }
                    extra.push_str(&marker_svg(style.marker, x_of(v), cy, 5.0, style.colour));
                    extra.push_str("</g>");
                    if values_beside {
                        let text = value_texts.get(i).cloned().unwrap_or_default();
                        svg.text(
                            left + plot_w + 8.0,
                            cy + 4.0,
                            Anchor::Start,
                            11.0,
                            "#222222",
                            false,
                            &text,
                        );
                    }
                }
                None => svg.text(
                    x_of(0.0) + 6.0,
                    cy + 4.0,
                    Anchor::Start,
                    10.0,
                    MUTED,
                    false,
                    "no data",
                ),
            }
        }
    }
    let body = svg.finish();
    // Insert the marker and whisker markup (already escaped) before the closing tag.
    match body.strip_suffix("</svg>") {
        Some(head) => format!("{head}{extra}</svg>"),
        None => body,
    }
}
