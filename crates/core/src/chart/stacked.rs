//! Stacked (and 100%-stacked) horizontal bar charts, e.g. the error-taxonomy breakdown.

use super::bars::{category_label, percent_axis, tooltip};
use super::describe::describe;
use super::format::{format_percent, text_width};
use super::svg::{colour, ink_on, legend, Anchor, Svg};
use super::{safe_id, ChartSpec, Layout};

/// Renders one stacked bar per category; series are the segments.
pub(crate) fn render(spec: &ChartSpec, normalise: bool, lay: Layout) -> String {
    let id = safe_id(&spec.id);
    let width = lay.width;
    let names: Vec<String> = spec.series.iter().map(|s| s.name.clone()).collect();
    let mut probe = Svg::open(&id, width, 1.0, "", "");
    let legend_h = legend(&mut probe, &names, 38.0, width) + 6.0;
    let cap = lay.label_cap();
    let label_chars = ((cap / (12.0 * 0.56)).floor() as usize).clamp(8, 30);
    let labels = super::bars::side_labels(&spec.categories, label_chars);
    let label_w = labels
        .iter()
        .map(|l| super::bars::side_width(l))
        .fold(40.0, f64::max)
        .min(cap);
    let left = 16.0 + label_w + 10.0;
    let plot_w = width - left - 24.0;
    let bar_h = 22.0;
    let band = bar_h + 12.0;
    let top = 40.0 + legend_h;
    let bottom = top + band * spec.categories.len() as f64;
    let height = bottom + 52.0;

    let mut svg = Svg::open(&id, width, height, &spec.title, &describe(spec));
    svg.set_min_font(lay.min_font);
    legend(&mut svg, &names, 38.0, width);
    percent_axis(&mut svg, &spec.value_axis, left, top, plot_w, bottom);
    for (i, (cat, label)) in spec.categories.iter().zip(&labels).enumerate() {
        let y = top + band * i as f64 + 6.0;
        category_label(&mut svg, cat, label, left, y + bar_h / 2.0);
        let values: Vec<f64> = spec
            .series
            .iter()
            .map(|s| s.point(i).clean_value().unwrap_or(0.0))
            .collect();
        let sum: f64 = values.iter().sum();
        if sum <= 0.0 {
            svg.text(
                left + 4.0,
                y + bar_h / 2.0 + 3.5,
                Anchor::Start,
                10.0,
                "#6b6b6b",
                false,
                "no data",
            );
            continue;
        }
        let scale = if normalise || sum > 1.0 {
            1.0 / sum
        } else {
            1.0
        };
        let mut x = left;
        for (k, (series, v)) in spec.series.iter().zip(&values).enumerate() {
            if *v <= 0.0 {
                continue;
            }
            let w = v * scale * plot_w;
            let tip = tooltip(&series.name, cat, &series.point(i));
            svg.rect(x, y, w, bar_h, colour(k), Some(&tip));
            let text = format_percent(v * scale);
            if w >= text_width(&text, 10.0_f64.max(lay.min_font)) + 6.0 {
                svg.text(
                    x + w / 2.0,
                    y + bar_h / 2.0 + 3.5,
                    Anchor::Middle,
                    10.0,
                    ink_on(colour(k)),
                    false,
                    &text,
                );
            }
            x += w;
            svg.line(x, y, x, y + bar_h, "#ffffff", 1.0);
        }
    }
    svg.finish()
}
