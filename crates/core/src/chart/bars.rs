//! Single-series and grouped bar charts, horizontal or vertical, with interval whiskers.

use super::describe::describe;
use super::format::{format_interval, format_percent, shorten, text_width, wrap};
use super::svg::{colour, legend, Anchor, Svg, AXIS, GRID, MUTED, TICKS};
use super::{safe_id, ChartSpec, Layout, Orientation, Point};

/// Tooltip for one bar: "Series — Category: 56.3% (95% CI …)".
/// Vertical grid lines with percent ticks under a horizontal plot, and the value-axis
/// title (shared by grouped and stacked horizontal charts).
pub(crate) fn percent_axis(
    svg: &mut Svg,
    title: &str,
    left: f64,
    top: f64,
    plot_w: f64,
    bottom: f64,
) {
    for t in TICKS {
        let x = left + t * plot_w;
        svg.line(x, top, x, bottom, GRID, 1.0);
        // Narrow plots label every other tick, so the labels do not overlap.
        if plot_w < 240.0 && (t == 0.25 || t == 0.75) {
            continue;
        }
        svg.text(
            x,
            bottom + 16.0,
            Anchor::Middle,
            11.0,
            MUTED,
            false,
            &format_percent(t).replace(".0%", "%"),
        );
    }
    if !title.is_empty() {
        svg.text(
            left + plot_w / 2.0,
            bottom + 36.0,
            Anchor::Middle,
            12.0,
            "#333333",
            false,
            title,
        );
    }
}

/// A category label left of a horizontal plot, centred on `y_mid`, in its own group.
/// A category's label left of its bars: its lines (`\n`) centred on `y_mid`.
pub(crate) fn category_label(svg: &mut Svg, category: &str, label: &str, left: f64, y_mid: f64) {
    svg.group_open(category);
    let lines: Vec<&str> = label.split('\n').collect();
    let first = y_mid + 4.0 - 6.5 * (lines.len() - 1) as f64;
    for (i, line) in lines.iter().enumerate() {
        svg.text(
            left - 8.0,
            first + 13.0 * i as f64,
            Anchor::End,
            12.0,
            "#222222",
            false,
            line,
        );
    }
    svg.group_close();
}

/// A category's label under its bars or point: up to three lines of `chars` characters.
pub(crate) fn label_below(svg: &mut Svg, category: &str, x: f64, bottom: f64, chars: usize) {
    svg.group_open(category);
    for (i, line) in wrap(category, chars, 3).iter().enumerate() {
        svg.text(
            x,
            bottom + 18.0 + 13.0 * i as f64,
            Anchor::Middle,
            12.0,
            "#222222",
            false,
            line,
        );
    }
    svg.group_close();
}

/// Category labels for the left of horizontal bars: two lines when one does not fit.
pub(crate) fn side_labels(categories: &[String], chars: usize) -> Vec<String> {
    categories
        .iter()
        .map(|c| wrap(c, chars, 2).join("\n"))
        .collect()
}

/// The width of a side label's longest line.
pub(crate) fn side_width(label: &str) -> f64 {
    label
        .split('\n')
        .map(|l| text_width(l, 12.0))
        .fold(0.0, f64::max)
}

pub(crate) fn tooltip(series: &str, category: &str, p: &Point) -> String {
    let value = p
        .clean_value()
        .map(format_percent)
        .unwrap_or_else(|| "no data".to_owned());
    let ci = p
        .clean_interval()
        .map(|(lo, hi)| format!(" (95% CI {})", format_interval(lo, hi)))
        .unwrap_or_default();
    if series.is_empty() {
        format!("{category}: {value}{ci}")
    } else {
        format!("{series} — {category}: {value}{ci}")
    }
}

/// The "No data" placeholder chart.
pub(crate) fn render_empty(spec: &ChartSpec, lay: Layout) -> String {
    let id = safe_id(&spec.id);
    let width = lay.width;
    let mut svg = Svg::open(&id, width, 110.0, &spec.title, &describe(spec));
    svg.set_min_font(lay.min_font);
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
    svg.finish()
}

/// Renders a bar chart (grouped when there are several series).
pub(crate) fn render(spec: &ChartSpec, lay: Layout) -> String {
    match spec.orientation {
        Orientation::Horizontal => horizontal(spec, lay),
        Orientation::Vertical => vertical(spec, lay),
    }
}

/// Beyond twelve series the colours repeat: a marker at the end of each bar (the shape
/// the legend shows for that series) tells them apart.
fn second_cue(svg: &mut Svg, spec: &ChartSpec, k: usize, x: f64, y: f64) {
    if spec.series.len() > super::palette::COLOURS.len() {
        let style = super::palette::series_style(k);
        svg.raw(&super::palette::marker_svg(
            style.marker,
            x,
            y,
            4.5,
            style.colour,
        ));
    }
}

fn legend_names(spec: &ChartSpec) -> Option<Vec<String>> {
    (spec.series.len() > 1).then(|| spec.series.iter().map(|s| s.name.clone()).collect())
}

/// Estimated legend height (must match `svg::legend`'s wrapping).
pub(crate) fn legend_height(names: &[String], width: f64) -> f64 {
    let mut x = 16.0;
    let mut rows = 1.0;
    for name in names {
        let item_w = 16.0 + text_width(&shorten(name, 28), 12.0) + 14.0;
        if x + item_w > width - 8.0 && x > 16.0 {
            x = 16.0;
            rows += 1.0;
        }
        x += item_w;
    }
    rows * 18.0
}

fn horizontal(spec: &ChartSpec, lay: Layout) -> String {
    let id = safe_id(&spec.id);
    let width = lay.width;
    let n_series = spec.series.len().max(1) as f64;
    let names = legend_names(spec);
    let legend_h = names
        .as_ref()
        .map(|n| legend_height(n, width) + 6.0)
        .unwrap_or(0.0);
    let cap = lay.label_cap();
    let label_chars = ((cap / (12.0 * 0.56)).floor() as usize).clamp(8, 30);
    let labels = side_labels(&spec.categories, label_chars);
    let label_w = labels
        .iter()
        .map(|l| side_width(l))
        .fold(40.0, f64::max)
        .min(cap);
    let left = 16.0 + label_w + 10.0;
    let right = 64.0;
    let plot_w = width - left - right;
    let bar_h = if n_series > 1.0 { 14.0 } else { 20.0 };
    let group_h = n_series * bar_h + (n_series - 1.0) * 2.0;
    let band = group_h + 12.0;
    let top = 40.0 + legend_h;
    let plot_h = band * spec.categories.len() as f64;
    let bottom = top + plot_h;
    let height = bottom + 52.0;

    let mut svg = Svg::open(&id, width, height, &spec.title, &describe(spec));
    svg.set_min_font(lay.min_font);
    if let Some(names) = &names {
        legend(&mut svg, names, 38.0, width);
    }
    percent_axis(&mut svg, &spec.value_axis, left, top, plot_w, bottom);
    svg.line(left, top, left, bottom, AXIS, 1.0);
    for (i, (cat, label)) in spec.categories.iter().zip(&labels).enumerate() {
        let y0 = top + band * i as f64 + 6.0;
        category_label(&mut svg, cat, label, left, y0 + group_h / 2.0);
        for (k, series) in spec.series.iter().enumerate() {
            let p = series.point(i);
            let y = y0 + k as f64 * (bar_h + 2.0);
            let tip = tooltip(&series.name, cat, &p);
            match p.clean_value() {
                Some(v) => {
                    svg.rect(left, y, v * plot_w, bar_h, colour(k), Some(&tip));
                    second_cue(&mut svg, spec, k, left + v * plot_w, y + bar_h / 2.0);
                    let mut end = v;
                    if let Some((lo, hi)) = p.clean_interval() {
                        let (xl, xh, cy) =
                            (left + lo * plot_w, left + hi * plot_w, y + bar_h / 2.0);
                        svg.line(xl, cy, xh, cy, "#1a1a1a", 1.5);
                        svg.line(xl, cy - bar_h * 0.3, xl, cy + bar_h * 0.3, "#1a1a1a", 1.5);
                        svg.line(xh, cy - bar_h * 0.3, xh, cy + bar_h * 0.3, "#1a1a1a", 1.5);
                        end = end.max(hi);
                    }
                    let fs = if n_series > 1.0 { 10.0 } else { 11.0 };
                    svg.text(
                        left + end * plot_w + 4.0,
                        y + bar_h / 2.0 + fs * 0.35,
                        Anchor::Start,
                        fs,
                        "#222222",
                        false,
                        &format_percent(v),
                    );
                }
                None => {
                    svg.text(
                        left + 4.0,
                        y + bar_h / 2.0 + 3.5,
                        Anchor::Start,
                        10.0,
                        MUTED,
                        false,
                        "no data",
                    );
                }
            }
        }
    }
    svg.finish()
}

fn vertical(spec: &ChartSpec, lay: Layout) -> String {
    let id = safe_id(&spec.id);
    let n_series = spec.series.len().max(1) as f64;
    let n_cat = spec.categories.len().max(1) as f64;
    let bar_w = if n_series > 1.0 { 18.0 } else { 40.0 };
    let group_w = n_series * bar_w + (n_series - 1.0) * 2.0;
    let slot = group_w + if lay.width < 640.0 { 12.0 } else { 28.0 };
    let left = 56.0;
    let width = (left + slot * n_cat + 16.0).max(lay.width);
    let plot_w = width - left - 16.0;
    let slot = plot_w / n_cat;
    let names = legend_names(spec);
    let legend_h = names
        .as_ref()
        .map(|n| legend_height(n, width) + 6.0)
        .unwrap_or(0.0);
    let top = 48.0 + legend_h;
    let plot_h = 220.0;
    let bottom = top + plot_h;
    let height = bottom + 57.0; // room for three lines of category labels
    let label_chars = ((slot - 4.0) / (12.0 * 0.56)).floor().max(3.0) as usize;

    let mut svg = Svg::open(&id, width, height, &spec.title, &describe(spec));
    svg.set_min_font(lay.min_font);
    if let Some(names) = &names {
        legend(&mut svg, names, 38.0, width);
    }
    svg.value_grid(left, plot_w, bottom, plot_h);
    if !spec.value_axis.is_empty() {
        svg.text_rotated(14.0, top + plot_h / 2.0, -90.0, 12.0, &spec.value_axis);
    }
    for (i, cat) in spec.categories.iter().enumerate() {
        let cx = left + slot * (i as f64 + 0.5);
        let x0 = cx - group_w / 2.0;
        label_below(&mut svg, cat, cx, bottom, label_chars);
        for (k, series) in spec.series.iter().enumerate() {
            let p = series.point(i);
            let x = x0 + k as f64 * (bar_w + 2.0);
            let tip = tooltip(&series.name, cat, &p);
            match p.clean_value() {
                Some(v) => {
                    svg.rect(
                        x,
                        bottom - v * plot_h,
                        bar_w,
                        v * plot_h,
                        colour(k),
                        Some(&tip),
                    );
                    second_cue(&mut svg, spec, k, x + bar_w / 2.0, bottom - v * plot_h);
                    let mut end = v;
                    if let Some((lo, hi)) = p.clean_interval() {
                        let (yl, yh, cx) =
                            (bottom - lo * plot_h, bottom - hi * plot_h, x + bar_w / 2.0);
                        svg.line(cx, yl, cx, yh, "#1a1a1a", 1.5);
                        svg.line(cx - bar_w * 0.3, yl, cx + bar_w * 0.3, yl, "#1a1a1a", 1.5);
                        svg.line(cx - bar_w * 0.3, yh, cx + bar_w * 0.3, yh, "#1a1a1a", 1.5);
                        end = end.max(hi);
                    }
                    // Narrow grouped bars carry their value in the tooltip and the table only.
                    if n_series == 1.0 {
                        svg.text(
                            x + bar_w / 2.0,
                            bottom - end * plot_h - 4.0,
                            Anchor::Middle,
                            11.0,
                            "#222222",
                            false,
                            &format_percent(v),
                        );
                    }
                }
                None => {
                    svg.text(
                        x + bar_w / 2.0,
                        bottom - 4.0,
                        Anchor::Middle,
                        9.0,
                        MUTED,
                        false,
                        "n/a",
                    );
                }
            }
        }
    }
    svg.finish()
}
