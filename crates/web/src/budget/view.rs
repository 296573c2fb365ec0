//! The budget feature's views: Setup's cost panel.

use super::*;
use crate::msg::LabPurpose;
use crate::state::{AppState, Tone};
use crate::ui::{el, Element, Node};
use crate::widgets::note;
use wildtool_contract::Action;

/// A lab answer in a holder, or a note while it is computed (a refusal is said as the
/// page's message).
fn holder(state: &AppState, id: &str, purpose: LabPurpose) -> Element {
    let holder = el("div").id(id);
    match state.lab.answer(purpose) {
        Some(Ok(json)) => holder.child(Node::Raw(json.clone())),
        _ => holder.attr("aria-busy", "true").child(note(
            &[id, "-note"].concat(),
            "Computing…",
            Tone::Info,
        )),
    }
}

/// Setup's "What will this cost?" with the price table (a disclosure, computed when
/// opened).
pub fn setup_panel(state: &AppState) -> Element {
    let open = state.open.iter().any(|n| n == PRICES_ID);
    el("details")
        .id("prices-details")
        .flag("open", open)
        .action(Action::Toggle.name(), PRICES_ID)
        .child(el("summary").text("What will this cost? (estimate and prices)"))
        .child_opt(open.then(|| holder(state, "prices-area", LabPurpose::PriceEditor)))
}

/// The cost section for `purpose`, or a note while it is computed.
pub fn cost_section(state: &AppState, id: &str, purpose: LabPurpose) -> Element {
    let holder = el("div").id(id);
    match state.lab.answer(purpose) {
        Some(Ok(json)) => holder.child(Node::Raw(json.clone())),
        Some(Err(e)) => holder.child(note(&[id, "-note"].concat(), e, Tone::Error)),
        None => holder.attr("aria-busy", "true").child(note(
            &[id, "-note"].concat(),
            "Pricing…",
            Tone::Info,
        )),
    }
}
