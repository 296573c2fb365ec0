//! Generate: a fresh suite from a seed, a size and factors (the core's factor table).
//! The lab module generates it (the bytes of `wildtool generate`) and renders what it
//! shows: spec, fingerprint, data card, the buttons to run or download it.

use crate::state::{AppState, Tone};
use crate::ui::{el, el_text, Element, Node};
use wildtool_contract::Action;

use crate::widgets::{button, heading, note};

/// A labelled text input dispatching `gen-set` for `name`.
pub fn form_field(label: &str, name: &str, value: &str) -> Element {
    el("label").attr("for", name).text(label).child(
        el("input")
            .attr("type", "text")
            .attr("value", value)
            .attr("autocomplete", "off")
            .id(name)
            .action(Action::GenSet.name(), name),
    )
}

/// The factors and their levels from the core's table, as the lab module draws them.
pub fn picker(state: &AppState) -> Node {
    crate::placement::lab_answer(
        state.lab.answer(crate::msg::LabPurpose::FactorPicker),
        "factor-picker",
        "Reading the factors…",
    )
}

/// The Generate view.
pub fn view(state: &AppState) -> Element {
    let g = &state.gen;
    let f = &g.form;
    let mut result = el("section")
        .id("generated")
        .class("panel")
        .attr("aria-labelledby", "generated-title")
        .child(heading("h2", "generated-title", "Generated suite"));
    result = match (&g.suite, &g.error) {
        _ if g.busy => result.child(note("generated-info", "Generating…", Tone::Info)),
        (_, Some(e)) => result.child(note("generated-info", e, Tone::Error)),
        // The run button names the model Setup holds now (the lab's view is kept).
        (Some(s), None) => result
            .child(
                button(
                    &format!("Run it now with {}", state.setup.display_model()),
                    Action::GenRun.name(),
                    "",
                )
                .id("generated-run")
                .class("primary"),
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
                .child(el_text("p", "Fresh, uncontaminated data in the official format, the bytes wildtool generate writes for the same seed and factors: for comparing models or levels of a factor, not for claims about real-world difficulty.").class("muted")),
        )
        .child(
            el("fieldset")
                .class("panel")
                .child(el_text("legend", "Seed, size and factors"))
                .child(
                    el("div")
                        .class("grid3")
                        .child(form_field("seed", "gen-seed", &f.seed))
                        .child(form_field("sessions", "gen-sessions", &f.sessions)),
                )
                .child(el("div").class("grid3").child(form_field(
                    "factors set (name=value, joined by commas: transitions=2,domains=weather+maps; the others are drawn per session)",
                    "gen-factors",
                    &f.factors,
                )))
                .child(picker(state))
                .child(
                    button("Generate", Action::Generate.name(), "")
                        .id("generate")
                        .class("primary")
                        .flag("disabled", g.busy),
                ),
        )
        .child(result)
}
