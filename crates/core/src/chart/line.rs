//! Line charts: one line per series through its points, categories in order along the
//! bottom, values as proportions on a 0–100% axis, with 95% interval whiskers (a curve
//! such as pass^k over k). Series are told apart by colour, marker and (beyond twelve)
//! line pattern (see `palette`). A chart spec's kind and orientation are ignored here;
//! its data table is `chart::table` as for any chart.

use std::fmt::Write as _;

use super::describe::describe_line;
use super::format::escape_xml;
use super::palette::{marker_svg, series_style};
use super::svg::{legend, num, Svg};
use super::{safe_id, ChartSpec, Layout};

/// Renders `spec` as a line chart.
pub fn render_line_svg(spec: &ChartSpec, lay: Layout) -> String {
    let id = safe_id(&spec.id);
    let width = lay.width;
    let n_cat = spec.categories.len().max(1);
    let n_series = spec.series.len();
    let names: Vec<String> = spec.series.iter().map(|s| s.name.clone()).collect();
    let legend_h = if n_series > 1 {
        super::bars::legend_height(&names, width) + 6.0
    } else {
        0.0
    };
    let left = 56.0;
    let right = 16.0;
    let top = 48.0 + legend_h;
    let plot_w = width - left - right;
    let plot_h = 200.0;
    let bottom = top + plot_h;
    let height = bottom + 57.0; // room for three lines of category labels
    let mut svg = Svg::open(&id, width, height, &spec.title, &describe_line(spec));
    svg.set_min_font(lay.min_font);
    if n_series > 1 {
        legend(&mut svg, &names, 38.0, width);
    }
    let slot = plot_w / n_cat as f64;
    let x_of = |i: usize| left + slot * (i as f64 + 0.5);
    let y_of = |v: f64| bottom - v * plot_h;
    svg.value_grid(left, plot_w, bottom, plot_h);
    let label_chars = ((slot - 4.0) / (12.0 * 0.56)).floor().max(3.0) as usize;
    for (i, cat) in spec.categories.iter().enumerate() {
        super::bars::label_below(&mut svg, cat, x_of(i), bottom, label_chars);
    }
    if !spec.value_axis.is_empty() {
        // The value axis's title, along the axis (as in vertical bar charts).
        svg.text_rotated(14.0, top + plot_h / 2.0, -90.0, 12.0, &spec.value_axis);
    }
    let mut marks = String::new();
    for (k, series) in spec.series.iter().enumerate() {
        let style = series_style(k);
        // Whiskers sit side by side when several series share a point.
        let dx = (k as f64 - (n_series as f64 - 1.0) / 2.0) * 5.0;
        let dash = style
            .dash
            .map(|d| format!(" stroke-dasharray=\"{d}\""))
            .unwrap_or_default();
        // The line, broken where a point is missing.
        let mut run: Vec<String> = Vec::new();
        let flush = |run: &mut Vec<String>, marks: &mut String| {
            if run.len() > 1 {
                let _ = write!(
                    marks,
                    "<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{dash}/>",
                    run.join(" "),
                    style.colour
                );
            }
            run.clear();
        };
        for i in 0..spec.categories.len() {
            match series.point(i).clean_value() {
                Some(v) => run.push(format!("{},{}", num(x_of(i) + dx), num(y_of(v)))),
                None => flush(&mut run, &mut marks),
            }
        }
        flush(&mut run, &mut marks);
        for (i, cat) in spec.categories.iter().enumerate() {
            let p = series.point(i);
            let Some(v) = p.clean_value() else { continue };
            let x = x_of(i) + dx;
            let tip = super::bars::tooltip(&series.name, cat, &p);
            let _ = write!(marks, "<g><title>{}</title>", escape_xml(&tip));
            if let Some((lo, hi)) = p.clean_interval() {
                for (x1, y1, x2, y2) in [
                    (x, y_of(lo), x, y_of(hi)),
                    (x - 4.0, y_of(lo), x + 4.0, y_of(lo)),
                    (x - 4.0, y_of(hi), x + 4.0, y_of(hi)),
                ] {
                    let _ = write!(
                        marks,
                        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"1.5\"/>",
                        num(x1),
                        num(y1),
                        num(x2),
                        num(y2),
                        style.colour
                    );
                }
            }
            marks.push_str(&marker_svg(style.marker, x, y_of(v), 4.5, style.colour));
            marks.push_str("</g>");
        }
    }
    svg.raw(&marks);
    svg.finish()
}
