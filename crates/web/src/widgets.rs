//! Small view pieces shared by several views.

use wildtool_contract::Action;
use wildtool_core::chart::format_percent;

use crate::state::Tone;
use crate::ui::{el, Element, Node};

pub use wildtool_views::widgets::{button, date, duration, heading, plural, table};

/// A labelled text-like input bound to setup field `name`.
pub fn field(label: &str, name: &str, kind: &str, value: &str) -> Vec<Node> {
    vec![
        el("label").attr("for", name).text(label).into(),
        el("input")
            .id(name)
            .attr("type", kind)
            .attr("value", value)
            .attr("spellcheck", "false")
            .attr("autocomplete", "off")
            .action(Action::Set.name(), name)
            .into(),
    ]
}

/// A message paragraph with a tone.
pub fn note(id: &str, text: &str, tone: Tone) -> Element {
    el("p")
        .id(id)
        .class(format!("note note-{}", tone.name()))
        .text(text)
}

/// A proportion as the charts print it, or a dash.
pub fn pct(x: Option<f64>) -> String {
    match x {
        Some(v) if v.is_finite() => format_percent(v),
        _ => "—".to_owned(),
    }
}

/// A moment to the second, `2026-12-02 20:31:07 UTC` (runs a minute apart are told apart).
pub fn when(ms: f64) -> String {
    let d = crate::widgets::date(ms);
    let secs = ((ms / 1000.0) as i64).rem_euclid(60);
    d.replace(" UTC", &format!(":{secs:02} UTC"))
}
