//! Small view pieces the lab's views share: data tables, chart figures, metric cards,
//! the page context every view call carries, and address building.

use serde::{Deserialize, Serialize};
use wildtool_core::chart::delta::{delta_table, describe_delta, render_delta_svg_with, DeltaChart};
use wildtool_core::chart::Layout;
use wildtool_ui::{el, el_text, Element, Node};

/// What every view call knows about the page: where it is served (for links), the query
/// it keeps in addresses, and the chart layout for the screen's width.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PageContext {
    /// The page's address without query and fragment.
    pub base: String,
    /// Query parameters kept in every address (`dataset`, `lang`), as `name=value` pairs
    /// already encoded.
    pub query: Vec<String>,
    /// Chart width in CSS pixels.
    pub width: f64,
    /// Smallest chart text in pixels (0: the standard sizes).
    pub min_font: f64,
}

impl Default for PageContext {
    fn default() -> Self {
        PageContext {
            base: String::new(),
            query: Vec::new(),
            width: Layout::STANDARD.width,
            min_font: Layout::STANDARD.min_font,
        }
    }
}

impl PageContext {
    /// The chart layout.
    pub fn layout(&self) -> Layout {
        wildtool_views::widgets::layout(self.width, self.min_font)
    }

    /// A page address: `?` + `params` + the kept query.
    pub fn address(&self, params: &[(&str, String)]) -> String {
        let mut parts: Vec<String> = params
            .iter()
            .map(|(k, v)| format!("{k}={}", encode(v)))
            .collect();
        parts.extend(self.query.iter().cloned());
        format!("?{}", parts.join("&"))
    }
}

pub use wildtool_ui::encode_component as encode;

pub use wildtool_views::widgets::{button, table};

/// A difference chart: the SVG, its description and its data table.
pub fn delta_figure(c: &DeltaChart, layout: Layout) -> Element {
    el("figure")
        .class("chart")
        .attr("data-chart", c.id.clone())
        .key(c.id.clone())
        .child(
            el("div")
                .class("chart-box")
                .child(Node::Svg(render_delta_svg_with(c, layout))),
        )
        .child(el_text("figcaption", describe_delta(c)).class("visually-hidden"))
        .child(
            el("details")
                .class("chart-tools")
                .child(el_text("summary", "Data table"))
                .child(wildtool_views::widgets::table_box().child(table(&delta_table(c)))),
        )
}

/// A headline card: value, name, interval and a note.
pub fn metric(id: &str, name: &str, value: String, ci: String, note: String) -> Element {
    el("div")
        .class("metric")
        .id(id)
        .child(el_text("span", value).class("metric-value"))
        .child(el_text("span", name).class("metric-name"))
        .child(el_text("span", ci).class("metric-ci"))
        .child(el_text("span", note).class("metric-note"))
}
