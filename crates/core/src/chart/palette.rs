//! Series styles for charts with many series (runs and published models side by side).
//!
//! The first [`COLOURS`]`.len()` (12) series get distinct colours, each with at least 3:1
//! contrast against white (WCAG 2.x non-text contrast) and mutually far apart in CIELAB.
//! Beyond 12 the colours repeat and a second cue tells series apart: the marker shape
//! (circle, square, triangle, diamond, inverted triangle, cross) and the stroke pattern
//! change with every further block of 12, so 72 series have distinct (colour, marker)
//! pairs.

use std::fmt::Write as _;

use super::format::escape_xml;
use super::svg::num;
use serde::{Deserialize, Serialize};

/// Twelve series colours (Okabe–Ito first, then colours chosen for distance and contrast).
pub const COLOURS: [&str; 12] = [
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#000000", "#999933", "#9C27B0", "#666666",
    "#E7298A", "#4169E1", "#2CA02C", "#8B4513",
];

/// Marker shapes, the second cue beyond twelve series.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Marker {
    /// ●
    Circle,
    /// ■
    Square,
    /// ▲
    Triangle,
    /// ◆
    Diamond,
    /// ▼
    TriangleDown,
    /// ✚
    Cross,
}

impl Marker {
    /// Every marker, in the order blocks of twelve series use them.
    pub const ALL: [Marker; 6] = [
        Marker::Circle,
        Marker::Square,
        Marker::Triangle,
        Marker::Diamond,
        Marker::TriangleDown,
        Marker::Cross,
    ];
}

/// How to draw series `i`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeriesStyle {
    /// Fill/stroke colour (`#rrggbb`).
    pub colour: &'static str,
    /// Marker shape.
    pub marker: Marker,
    /// SVG `stroke-dasharray` for lines and whiskers (`None`: solid).
    pub dash: Option<&'static str>,
}

const DASHES: [Option<&str>; 3] = [None, Some("6 3"), Some("2 2")];

/// The style of series `i` (0-based): colour `i mod 12`, marker and dash by block of 12.
pub fn series_style(i: usize) -> SeriesStyle {
    let block = i / COLOURS.len();
    SeriesStyle {
        colour: COLOURS.get(i % COLOURS.len()).copied().unwrap_or("#0072B2"),
        marker: Marker::ALL
            .get(block % Marker::ALL.len())
            .copied()
            .unwrap_or(Marker::Circle),
        dash: DASHES.get(block % DASHES.len()).copied().flatten(),
    }
}

/// SVG markup of `marker` centred on (`cx`, `cy`) with radius `r`, filled with `fill`
/// (white outline so markers stay visible on top of bars and lines).
pub fn marker_svg(marker: Marker, cx: f64, cy: f64, r: f64, fill: &str) -> String {
    let fill = escape_xml(fill);
    let outline = "stroke=\"#ffffff\" stroke-width=\"1\"";
    let pts: &[(f64, f64)] = match marker {
        Marker::Circle => {
            return format!(
                "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{fill}\" {outline}/>",
                num(cx),
                num(cy),
                num(r)
            )
        }
        Marker::Square => {
            let (x, y, w) = (num(cx - r * 0.85), num(cy - r * 0.85), num(r * 1.7));
            return format!(
                "<rect x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{w}\" fill=\"{fill}\" {outline}/>"
            );
        }
        Marker::Triangle => &[(0.0, -1.1), (1.0, 0.75), (-1.0, 0.75)],
        Marker::Diamond => &[(0.0, -1.2), (1.0, 0.0), (0.0, 1.2), (-1.0, 0.0)],
        Marker::TriangleDown => &[(0.0, 1.1), (1.0, -0.75), (-1.0, -0.75)],
        Marker::Cross => &[
            (-0.35, -1.0),
            (0.35, -1.0),
            (0.35, -0.35),
            (1.0, -0.35),
            (1.0, 0.35),
            (0.35, 0.35),
            (0.35, 1.0),
            (-0.35, 1.0),
            (-0.35, 0.35),
            (-1.0, 0.35),
            (-1.0, -0.35),
            (-0.35, -0.35),
        ],
    };
    let mut out = String::from("<polygon points=\"");
    for (i, (x, y)) in pts.iter().enumerate() {
        let sep = if i == 0 { "" } else { " " };
        let _ = write!(out, "{sep}{},{}", num(cx + x * r), num(cy + y * r));
    }
    let _ = write!(out, "\" fill=\"{fill}\" {outline}/>");
    out
}
