//! Small view pieces both page modules use.

use wildtool_contract::Action;
use wildtool_core::chart::{self, ChartSpec, ChartTable, Layout};
use wildtool_ui::{el, el_text, Element, Node};

/// A button dispatching `action` with `arg`.
pub fn button(label: &str, action: &str, arg: &str) -> Element {
    el("button")
        .attr("type", "button")
        .action(action, arg)
        .text(label)
}

/// A view heading that takes focus when the view is entered.
pub fn heading(tag: &'static str, id: &str, text: &str) -> Element {
    el(tag).id(id).attr("tabindex", "-1").text(text)
}

/// `n` and a noun, `s` added unless `n` is 1.
pub fn plural(n: usize, one: &str) -> String {
    format!("{n} {one}{}", if n == 1 { "" } else { "s" })
}

/// A box a wide table scrolls sideways in, reachable by keyboard (a named region).
pub fn table_box() -> Element {
    el("div")
        .class("table-box")
        .attr("tabindex", "0")
        .attr("role", "region")
        .attr("aria-label", "Table (scrolls sideways on narrow screens)")
}

/// A data table (first column as row headers).
pub fn table(t: &ChartTable) -> Element {
    wildtool_ui::data_table(&t.caption, &t.headers, &t.rows)
}

/// The chart layout for a page `width` (CSS pixels) and smallest text `min_font` as the
/// page sends them (the standard width when not a positive number).
pub fn layout(width: f64, min_font: f64) -> Layout {
    Layout {
        width: if width.is_finite() && width > 0.0 {
            width
        } else {
            Layout::STANDARD.width
        },
        min_font: if min_font.is_finite() {
            min_font.max(0.0)
        } else {
            0.0
        },
    }
}

/// A chart drawn for the page.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    /// Stable id (`by-type` …).
    pub id: String,
    /// Title.
    pub title: String,
    /// SVG markup.
    pub svg: String,
    /// Data table.
    pub table: ChartTable,
    /// Natural size (CSS pixels).
    pub size: (f64, f64),
}

impl Chart {
    /// Renders `spec` with `layout`.
    pub fn of(spec: &ChartSpec, layout: Layout) -> Chart {
        let svg = chart::render_svg_with(spec, layout);
        Chart {
            id: spec.id.clone(),
            title: spec.title.clone(),
            size: svg_size(&svg),
            table: chart::table(spec),
            svg,
        }
    }
}

/// The `width`/`height` attributes of an `<svg>` start tag (640 × 400 when absent).
pub fn svg_size(svg: &str) -> (f64, f64) {
    let head = svg.split('>').next().unwrap_or("");
    let attr = |name: &str| {
        let key = format!(" {name}=\"");
        head.find(&key)
            .and_then(|i| head[i + key.len()..].split('"').next())
            .and_then(|v| v.parse::<f64>().ok())
    };
    (
        attr("width").unwrap_or(640.0),
        attr("height").unwrap_or(400.0),
    )
}

/// A chart figure: the SVG, its data table and downloads.
pub fn chart_figure(c: &Chart) -> Element {
    el("figure")
        .class("chart")
        .attr("data-chart", c.id.clone())
        .key(c.id.clone())
        .child(el("div").class("chart-box").child(Node::Svg(c.svg.clone())))
        .child(
            el("div")
                .class("chart-tools")
                .child(
                    el("details")
                        .child(el_text("summary", "Data table"))
                        .child(table_box().child(table(&c.table))),
                )
                .child(
                    button("SVG", Action::ChartSvg.name(), &c.id)
                        .attr("aria-label", format!("Download {} as SVG", c.title)),
                )
                .child(
                    button("PNG", Action::ChartPng.name(), &c.id)
                        .attr("aria-label", format!("Download {} as PNG", c.title)),
                ),
        )
}

/// A date as `YYYY-MM-DD HH:MM UTC` from milliseconds since the epoch.
pub fn date(ms: f64) -> String {
    if !ms.is_finite() || ms <= 0.0 {
        return "—".into();
    }
    let secs = (ms / 1000.0) as i64;
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rem / 3600,
        (rem % 3600) / 60
    )
}

/// Seconds as `12 s`, `3 min 4 s`, `1 h 2 min`.
pub fn duration(s: Option<f64>) -> String {
    match s {
        Some(s) if s.is_finite() && s >= 0.0 => {
            let s = s.round() as u64;
            if s < 60 {
                format!("{s} s")
            } else if s < 3600 {
                format!("{} min {} s", s / 60, s % 60)
            } else {
                format!("{} h {} min", s / 3600, (s % 3600) / 60)
            }
        }
        _ => "—".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_durations() {
        assert_eq!(date(0.0), "—");
        assert_eq!(date(1_764_602_400_000.0), "2025-12-01 15:20 UTC");
        assert_eq!(date(951_782_400_000.0), "2000-02-29 00:00 UTC");
        assert_eq!(duration(Some(59.4)), "59 s");
        assert_eq!(duration(Some(125.0)), "2 min 5 s");
        assert_eq!(duration(Some(7300.0)), "2 h 1 min");
        assert_eq!(duration(None), "—");
    }

    #[test]
    fn svg_size_reads_the_start_tag() {
        assert_eq!(
            svg_size(r#"<svg xmlns="x" width="640" height="212.5"><rect width="3"/></svg>"#),
            (640.0, 212.5)
        );
        assert_eq!(svg_size("<svg>"), (640.0, 400.0));
    }
}
