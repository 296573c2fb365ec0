//! A tiny SVG writer: every piece of text goes through [`escape_xml`].

use super::format::{escape_xml, format_percent};
use std::fmt::Write as _;

/// Grid lines.
pub(crate) const GRID: &str = "#e3e3e3";
/// Axis lines.
pub(crate) const AXIS: &str = "#555555";
/// Tick labels and secondary text.
pub(crate) const MUTED: &str = "#6b6b6b";
/// The value axis's ticks (proportions).
pub(crate) const TICKS: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

/// Text colour with enough contrast on top of a series colour: black or white, whichever
/// contrasts more (WCAG 2.x contrast ratios, worked out for the palette's colours).
pub(crate) fn ink_on(fill: &str) -> &'static str {
    match fill {
        "#D55E00" | "#009E73" | "#CC79A7" | "#999933" | "#E7298A" | "#2CA02C" => "#000000",
        _ => "#ffffff",
    }
}

/// Colour of series `i` (the series palette: twelve distinct colours, see `palette`).
pub(crate) fn colour(i: usize) -> &'static str {
    super::palette::series_style(i).colour
}

/// Formats a coordinate with at most one decimal.
pub(crate) fn num(v: f64) -> String {
    let v = if v.is_finite() { v } else { 0.0 };
    let s = format!("{v:.1}");
    s.strip_suffix(".0").map(str::to_owned).unwrap_or(s)
}

/// Horizontal text anchoring.
#[derive(Clone, Copy)]
pub(crate) enum Anchor {
    Start,
    Middle,
    End,
}

impl Anchor {
    fn as_str(self) -> &'static str {
        match self {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        }
    }
}

/// Accumulates the SVG markup.
pub(crate) struct Svg {
    out: String,
    min_font: f64,
    /// The drawing is shifted down under a title of several lines (a group to close).
    shifted: bool,
}

impl Svg {
    /// Opens the root element with the accessibility attributes and the visible title.
    /// A title too long for one line wraps (up to three lines) and the drawing below it
    /// moves down by the lines added, so nothing is cut at narrow widths.
    pub(crate) fn open(id: &str, width: f64, height: f64, title: &str, desc: &str) -> Self {
        let mut out = String::with_capacity(4096);
        let per_line = ((width - 32.0) / (15.0 * 0.56)).floor().max(8.0) as usize;
        let lines = super::format::wrap(title, per_line, 3);
        let extra = 19.0 * (lines.len().max(1) - 1) as f64;
        let (w, h) = (num(width), num(height + extra));
        let _ = write!(
            out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" \
             aria-labelledby=\"{id}-title {id}-desc\" viewBox=\"0 0 {w} {h}\" \
             width=\"{w}\" height=\"{h}\" \
             font-family=\"system-ui, -apple-system, Segoe UI, Roboto, Noto Sans, sans-serif\" \
             font-size=\"12\">"
        );
        let _ = write!(
            out,
            "<title id=\"{id}-title\">{}</title><desc id=\"{id}-desc\">{}</desc>",
            escape_xml(title),
            escape_xml(desc)
        );
        let _ = write!(out, "<rect width=\"{w}\" height=\"{h}\" fill=\"#ffffff\"/>");
        let mut svg = Svg {
            out,
            min_font: 0.0,
            shifted: extra > 0.0,
        };
        for (i, line) in lines.iter().enumerate() {
            svg.text(
                16.0,
                24.0 + 19.0 * i as f64,
                Anchor::Start,
                15.0,
                "#111111",
                true,
                line,
            );
        }
        if svg.shifted {
            let _ = write!(svg.out, "<g transform=\"translate(0 {})\">", num(extra));
        }
        svg
    }

    /// A filled rectangle, with an optional tooltip (`<title>` child).
    pub(crate) fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str, tip: Option<&str>) {
        let _ = write!(
            self.out,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"",
            num(x),
            num(y),
            num(w.max(0.0)),
            num(h.max(0.0)),
            escape_xml(fill)
        );
        match tip {
            Some(t) => {
                let _ = write!(self.out, "><title>{}</title></rect>", escape_xml(t));
            }
            None => self.out.push_str("/>"),
        }
    }

    /// The vertical value axis of a 0–100% plot: a grid line and a label per tick, and the
    /// baseline.
    pub(crate) fn value_grid(&mut self, left: f64, plot_w: f64, bottom: f64, plot_h: f64) {
        for t in TICKS {
            let y = bottom - t * plot_h;
            self.line(left, y, left + plot_w, y, GRID, 1.0);
            self.text(
                left - 6.0,
                y + 4.0,
                Anchor::End,
                11.0,
                MUTED,
                false,
                &format_percent(t).replace(".0%", "%"),
            );
        }
        self.line(left, bottom, left + plot_w, bottom, AXIS, 1.0);
    }

    /// A straight line.
    pub(crate) fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, stroke: &str, width: f64) {
        let _ = write!(
            self.out,
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"{}\"/>",
            num(x1),
            num(y1),
            num(x2),
            num(y2),
            escape_xml(stroke),
            num(width)
        );
    }

    /// Text is never set smaller than `size` from here on (narrow layouts).
    pub(crate) fn set_min_font(&mut self, size: f64) {
        self.min_font = size;
    }

    /// A text element.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn text(
        &mut self,
        x: f64,
        y: f64,
        anchor: Anchor,
        size: f64,
        fill: &str,
        bold: bool,
        content: &str,
    ) {
        let weight = if bold { " font-weight=\"600\"" } else { "" };
        let _ = write!(
            self.out,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"{}\" font-size=\"{}\" fill=\"{}\"{weight}>{}</text>",
            num(x),
            num(y),
            anchor.as_str(),
            num(size.max(self.min_font)),
            escape_xml(fill),
            escape_xml(content)
        );
    }

    /// A text element rotated around its anchor point.
    pub(crate) fn text_rotated(&mut self, x: f64, y: f64, angle: f64, size: f64, content: &str) {
        let _ = write!(
            self.out,
            "<text x=\"{x}\" y=\"{y}\" text-anchor=\"middle\" font-size=\"{}\" fill=\"#333333\" \
             transform=\"rotate({} {x} {y})\">{}</text>",
            num(size.max(self.min_font)),
            num(angle),
            escape_xml(content),
            x = num(x),
            y = num(y)
        );
    }

    /// Opens a group with a tooltip (the group's `<title>`).
    pub(crate) fn group_open(&mut self, tip: &str) {
        let _ = write!(self.out, "<g><title>{}</title>", escape_xml(tip));
    }

    /// Closes a group.
    pub(crate) fn group_close(&mut self) {
        self.out.push_str("</g>");
    }

    /// Appends markup made by another writer of this module (already escaped).
    pub(crate) fn raw(&mut self, markup: &str) {
        self.out.push_str(markup);
    }

    /// Closes the root element and returns the markup.
    pub(crate) fn finish(mut self) -> String {
        if self.shifted {
            self.out.push_str("</g>");
        }
        self.out.push_str("</svg>");
        self.out
    }
}

/// Lays out legend entries in rows under the title; returns the height used.
pub(crate) fn legend(svg: &mut Svg, names: &[String], top: f64, width: f64) -> f64 {
    let mut x = 16.0;
    let mut y = top;
    let row_h = 18.0;
    for (i, name) in names.iter().enumerate() {
        let label = super::format::shorten(name, 28);
        let item_w = 16.0 + super::format::text_width(&label, 12.0) + 14.0;
        if x + item_w > width - 8.0 && x > 16.0 {
            x = 16.0;
            y += row_h;
        }
        if names.len() > super::palette::COLOURS.len() {
            // Beyond twelve series the colours repeat: the marker tells them apart.
            let style = super::palette::series_style(i);
            svg.group_open(name);
            svg.raw(&super::palette::marker_svg(
                style.marker,
                x + 5.0,
                y + 5.0,
                5.5,
                style.colour,
            ));
            svg.group_close();
        } else {
            svg.rect(x, y, 10.0, 10.0, colour(i), Some(name));
        }
        svg.text(
            x + 14.0,
            y + 9.5,
            Anchor::Start,
            12.0,
            "#222222",
            false,
            &label,
        );
        x += item_w;
    }
    y + row_h - top
}
