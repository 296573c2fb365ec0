//! SVG chart rendering (pure Rust, shared by the page and `wildtool report`).
//!
//! A chart is described by a [`ChartSpec`]: categories (bar labels), one or more
//! [`Series`] of values in `0..=1` with optional 95% intervals, and a [`ChartKind`].
//! [`render_svg`] turns it into a self-contained, accessible SVG string (`role="img"`,
//! `<title>`, `<desc>`, `aria-labelledby`, `viewBox`), and [`table`] into a
//! [`ChartTable`] for a data-table fallback. All text is XML-escaped, so untrusted
//! labels (model names, dataset strings) are safe to embed. Non-finite values are
//! treated as missing; a chart with nothing to draw renders a "No data" placeholder.
//!
//! Styling uses SVG presentation attributes only (no `style` attributes or `<style>`
//! elements), so the output works under a strict `style-src 'self'` CSP.

mod bars;
pub mod dashboard;
pub mod delta;
mod describe;
mod format;
pub mod headline;
pub mod html;
pub mod line;
pub(crate) mod page;
pub mod palette;
mod stacked;
pub mod stats;
mod svg;

use serde::{Deserialize, Serialize};

pub use describe::{describe, describe_line, table};
pub use format::{escape_xml, format_percent, thousands};
pub use headline::Headline;

/// One value of a series: a proportion in `0..=1` and an optional 95% interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub struct Point {
    /// The proportion; `None` (or a non-finite number) means "no data" for this category.
    pub value: Option<f64>,
    /// Optional interval `(lo, hi)`, both in `0..=1`.
    #[serde(default)]
    pub interval: Option<(f64, f64)>,
}

impl Point {
    /// A point without an interval.
    pub fn new(value: f64) -> Self {
        Point {
            value: Some(value),
            interval: None,
        }
    }

    /// A point with a 95% interval.
    pub fn with_interval(value: f64, lo: f64, hi: f64) -> Self {
        Point {
            value: Some(value),
            interval: Some((lo, hi)),
        }
    }

    /// A missing value.
    pub fn missing() -> Self {
        Point {
            value: None,
            interval: None,
        }
    }

    /// The value clamped to `0..=1`, or `None` when missing or not finite.
    pub fn clean_value(&self) -> Option<f64> {
        self.value
            .filter(|v| v.is_finite())
            .map(|v| v.clamp(0.0, 1.0))
    }

    /// The interval clamped to `0..=1` and ordered, or `None` when absent or not finite.
    pub fn clean_interval(&self) -> Option<(f64, f64)> {
        let (a, b) = self.interval?;
        if !a.is_finite() || !b.is_finite() {
            return None;
        }
        let (a, b) = (a.clamp(0.0, 1.0), b.clamp(0.0, 1.0));
        Some(if a <= b { (a, b) } else { (b, a) })
    }
}

/// A named sequence of points, one per category of the chart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Series {
    /// Legend name (for example the model label or "Refusal").
    pub name: String,
    /// One point per category; missing trailing points count as "no data".
    pub points: Vec<Point>,
}

impl Series {
    /// A series from plain values (no intervals).
    pub fn from_values(name: impl Into<String>, values: &[f64]) -> Self {
        Series {
            name: name.into(),
            points: values.iter().map(|v| Point::new(*v)).collect(),
        }
    }

    /// The point for category `i`, or a missing point.
    pub fn point(&self, i: usize) -> Point {
        self.points.get(i).copied().unwrap_or_default()
    }
}

/// Bar direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum Orientation {
    /// Categories down the left, bars grow to the right (good for long labels).
    #[default]
    Horizontal,
    /// Categories along the bottom, bars grow upwards.
    Vertical,
}

/// What to draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum ChartKind {
    /// One bar per category and series; several series are drawn side by side
    /// (a grouped bar chart) with a legend.
    #[default]
    Bars,
    /// One bar per category whose segments are the series (values are shares of
    /// the whole bar; a sum above 1 is scaled down to fit).
    Stacked,
    /// Like [`ChartKind::Stacked`] but every bar is normalised to 100%.
    Stacked100,
}

/// A chart description. Build it in Rust or deserialize it from JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ChartSpec {
    /// Element id prefix (sanitised to `[A-Za-z0-9_-]`); keep it unique on a page.
    pub id: String,
    /// Chart title (also the SVG `<title>` and the table caption).
    pub title: String,
    /// Optional sentence prepended to the generated accessible description.
    #[serde(default)]
    pub summary: Option<String>,
    /// Category labels (bars, or bar groups).
    pub categories: Vec<String>,
    /// The data series.
    pub series: Vec<Series>,
    /// Kind of chart.
    #[serde(default)]
    pub kind: ChartKind,
    /// Bar direction.
    #[serde(default)]
    pub orientation: Orientation,
    /// Axis title for the value axis (for example "Task accuracy").
    #[serde(default)]
    pub value_axis: String,
}

/// Tabular view of a chart, for a data-table fallback.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChartTable {
    /// Table caption (the chart title).
    pub caption: String,
    /// Column headers; the first one names the category column.
    pub headers: Vec<String>,
    /// One row per category: the label, then formatted cells.
    pub rows: Vec<Vec<String>>,
}

/// How a chart is laid out: its width in CSS pixels and the smallest font size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Layout {
    /// Width of the drawing (vertical charts with many categories may be wider).
    pub width: f64,
    /// No text is smaller than this (0: the standard sizes, 9 to 13 px).
    pub min_font: f64,
}

impl Layout {
    /// The standard layout: 640 px wide, standard font sizes.
    pub const STANDARD: Layout = Layout {
        width: 640.0,
        min_font: 0.0,
    };

    /// A layout for a narrow screen: `width` (clamped to 280..=640) and text of at least
    /// 12 px, so that charts drawn at their natural size stay readable on a phone.
    pub fn narrow(width: f64) -> Layout {
        Layout {
            width: if width.is_finite() {
                width.clamp(280.0, 640.0)
            } else {
                640.0
            },
            min_font: 12.0,
        }
    }

    /// The widest category label, in pixels, for horizontal charts.
    pub(crate) fn label_cap(self) -> f64 {
        (self.width * 0.38).min(200.0)
    }
}

/// Renders the chart as a standalone SVG document fragment (an `<svg>` element).
pub fn render_svg(spec: &ChartSpec) -> String {
    render_svg_with(spec, Layout::STANDARD)
}

/// Renders the chart with `layout` (see [`Layout::narrow`] for phones).
pub fn render_svg_with(spec: &ChartSpec, layout: Layout) -> String {
    if !has_data(spec) {
        return bars::render_empty(spec, layout);
    }
    match spec.kind {
        ChartKind::Bars => bars::render(spec, layout),
        ChartKind::Stacked => stacked::render(spec, false, layout),
        ChartKind::Stacked100 => stacked::render(spec, true, layout),
    }
}

/// True when at least one category has a finite value in some series.
pub fn has_data(spec: &ChartSpec) -> bool {
    (0..spec.categories.len()).any(|i| {
        spec.series
            .iter()
            .any(|s| s.point(i).clean_value().is_some())
    })
}

/// Sanitised id prefix used for element ids.
pub(crate) fn safe_id(id: &str) -> String {
    let cleaned: String = id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .take(48)
        .collect();
    if cleaned.is_empty() {
        "chart".to_owned()
    } else {
        format!("c-{cleaned}")
    }
}

#[cfg(test)]
mod layout_tests {
    use super::*;
    use crate::outcome::{TaskOutcome, TaskType};

    fn fonts(svg: &str) -> Vec<f64> {
        svg.split("font-size=\"")
            .skip(1)
            .filter_map(|s| s.split('"').next()?.parse().ok())
            .collect()
    }

    #[test]
    fn the_narrow_layout_is_narrow_with_text_of_at_least_12_px() {
        let outcomes: Vec<TaskOutcome> = (0..40)
            .map(|i| TaskOutcome {
                session: i / 4,
                position: (i % 4) as u8,
                task_type: TaskType::ALL[(i % 6) as usize],
                subtype: None,
                transitions: (i % 4) as u8,
                correct: i % 3 == 0,
                name_correct: i % 2 == 0,
                optimal: false,
                steps_logged: 1,
                nodes_total: 1,
                nodes_done: 0,
                error: None,
                incomplete: false,
            })
            .collect();
        let report = crate::report::RunReport::from_outcomes(&outcomes);
        let mut specs = dashboard::standard_charts("run", &report);
        specs.push(dashboard::comparison(&[
            dashboard::summarize("a", &report),
            dashboard::summarize("a much longer label of a second run", &report),
        ]));
        for spec in &specs {
            let narrow = render_svg_with(spec, Layout::narrow(340.0));
            let w: f64 = narrow
                .split(" width=\"")
                .nth(1)
                .and_then(|s| s.split('"').next())
                .and_then(|s| s.parse().ok())
                .unwrap_or(0.0);
            assert!(w <= 340.0, "{}: {w}", spec.id);
            assert!(fonts(&narrow).iter().all(|f| *f >= 12.0), "{}", spec.id);
        }
        assert_eq!(
            Layout::narrow(f64::NAN),
            Layout {
                width: 640.0,
                min_font: 12.0
            }
        );
        assert_eq!(Layout::narrow(100.0).width, 280.0);
    }
}
