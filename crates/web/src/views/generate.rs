//! Generate: a fresh suite from a seed, a size and factors (the core's factor table).
//! The lab module generates it (the bytes of `wildtool generate`) and renders what it
//! shows: spec, fingerprint, data card, the buttons to run or download it.

use wildtool_core::generate::{FactorInfo, FACTORS};

use crate::state::{AppState, Tone};
use crate::ui::{el, el_text, Element, Node};

use super::widgets::{button, heading, note};

/// The choices of a factor whose values are a small range (`2-8`) or a short list
/// (`parallel, sequential, mixed`); `None` for free text (types, subtypes, domains).
pub fn choices(info: &FactorInfo) -> Option<Vec<String>> {
    if info.values.contains(['(', ':']) {
        return None;
    }
    if let Some((lo, hi)) = info.values.split_once('-') {
        if let (Ok(lo), Ok(hi)) = (lo.parse::<u8>(), hi.parse::<u8>()) {
            return Some((lo..=hi).map(|v| v.to_string()).collect());
        }
    }
    Some(info.values.split(", ").map(str::to_owned).collect())
}

/// A labelled text input, or a select of `options` (an empty option reads "drawn"),
/// dispatching `gen-set` for `name`.
pub fn form_field(label: &str, name: &str, value: &str, options: Option<Vec<String>>) -> Element {
    let control = match options {
        Some(opts) => el("select")
            .attr("value", value)
            .children(opts.into_iter().map(|o| {
                let text = if o.is_empty() { "drawn" } else { o.as_str() };
                el("option").attr("value", o.clone()).text(text)
            })),
        None => el("input")
            .attr("type", "text")
            .attr("value", value)
            .attr("autocomplete", "off"),
    };
    el("label")
        .attr("for", name)
        .text(label)
        .child(control.id(name).action("gen-set", name))
}

/// The Generate view.
pub fn view(state: &AppState) -> Element {
    let g = &state.gen;
    let f = &g.form;
    let factors = FACTORS.iter().zip(&f.factors).map(|(info, value)| {
        form_field(
            info.name,
            &format!("gen-f-{}", info.name),
            value,
            choices(info).map(|c| std::iter::once(String::new()).chain(c).collect()),
        )
        .attr(
            "title",
            format!("{}; default: {}", info.values, info.default),
        )
    });
    let mut result = el("section")
        .id("generated")
        .class("panel")
        .attr("aria-labelledby", "generated-title")
        .child(heading("h2", "generated-title", "Generated suite"));
    result = match (&g.suite, &g.error) {
        _ if g.busy => result.child(note("generated-info", "Generating…", Tone::Info)),
        (_, Some(e)) => result.child(note("generated-info", e, Tone::Error)),
        (Some(s), None) => result
            .child(
                el_text(
                    "p",
                    format!(
                        "{} sessions in {:.2} s ({:.0} sessions/s).",
                        s.sessions,
                        s.seconds,
                        s.sessions as f64 / s.seconds.max(1e-6)
                    ),
                )
                .id("generated-time")
                .class("muted"),
            )
            .child(Node::Raw(s.view.clone())),
        (None, None) => result.child(
            el_text("p", "Nothing generated yet.")
                .id("generated-info")
                .class("muted"),
        ),
    };
    el("div")
        .child(
            el("div")
                .class("panel")
                .child(heading("h1", "generate-title", "Generate a fresh suite"))
                .child(el_text("p", "Fresh, uncontaminated data in the official format, the same bytes as wildtool generate for the same seed and factors; for comparing models, or levels of a factor (Sweep), not for claims about real-world difficulty (the language is templated). Unset factors are drawn per session.").class("muted")),
        )
        .child(
            el("fieldset")
                .class("panel")
                .child(el_text("legend", "Seed, size and factors"))
                .child(
                    el("div")
                        .class("grid3")
                        .child(form_field("seed", "gen-seed", &f.seed, None))
                        .child(form_field("sessions", "gen-sessions", &f.sessions, None))
                        .children(factors),
                )
                .child(
                    button("Generate", "generate", "")
                        .id("generate")
                        .class("primary")
                        .flag("disabled", g.busy),
                ),
        )
        .child(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factor_choices_come_from_the_core_table() {
        let by_name = |n: &str| FACTORS.iter().find(|f| f.name == n).and_then(choices);
        assert_eq!(
            by_name("transitions"),
            Some(vec!["0".into(), "1".into(), "2".into(), "3".into()])
        );
        assert_eq!(by_name("width").map(|c| c.len()), Some(7));
        assert_eq!(
            by_name("shape"),
            Some(vec![
                "chain-side".into(),
                "fan-out".into(),
                "fan-in".into(),
                "two-chains".into()
            ])
        );
        assert_eq!(by_name("args").map(|c| c.len()), Some(3));
        for free in ["types", "subtypes", "domains"] {
            assert_eq!(by_name(free), None, "{free}");
        }
    }
}
