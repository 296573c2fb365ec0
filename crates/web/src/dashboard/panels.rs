//! The dashboard's lab-built panels and the published models' picker: the repeated-trials
//! panel, the ranked leaderboard, the model search and which models it matches.

use crate::msg::LabPurpose;
use crate::state::{AppState, Tone};
use crate::ui::{el, el_text, Element, Node};
use crate::widgets::note;
use wildtool_contract::Action;

/// The repeated-trials panel of the run on the dashboard (rendered by the lab module),
/// for runs with repeated trials.
pub fn trials_panel(state: &AppState) -> Option<Element> {
    let k = state.shown_trials()?;
    let id = state.shown.as_ref().map(|s| s.id.as_str());
    let busy = state.lab.busy(LabPurpose::Trials) || state.lab.trials_panel_of() != id;
    let holder = el("div")
        .id("trials-area")
        .attr_opt("aria-busy", busy.then_some("true"));
    Some(match state.lab.answer(LabPurpose::Trials) {
        Some(Ok(json)) if !busy => holder.child(Node::Raw(json.clone())),
        Some(Err(e)) if !busy => holder.child(note("trials-error", e, Tone::Error)),
        _ => holder.child(note(
            "trials-wait",
            &format!("Computing pass^k over the {k} trials…"),
            Tone::Info,
        )),
    })
}

/// True when published model `m` matches the picker's search text (case-insensitive;
/// a model picked for the chart always shows).
pub fn model_matches(state: &AppState, m: &str) -> bool {
    let q = state.lab.model_filter.trim().to_lowercase();
    q.is_empty() || m.to_lowercase().contains(&q) || state.compare_models.iter().any(|c| c == m)
}

/// The search field of the published-model picker.
pub fn model_search(state: &AppState, models: &[String]) -> Element {
    let shown = models.iter().filter(|m| model_matches(state, m)).count();
    el("div")
        .class("row")
        .child(el("label").attr("for", "model-search").text("Find a model"))
        .child(
            el("input")
                .id("model-search")
                .attr("type", "search")
                .attr("value", state.lab.model_filter.clone())
                .attr("autocomplete", "off")
                .attr("aria-describedby", "model-count")
                .action(Action::ModelSearch.name(), ""),
        )
        .child(
            el_text(
                "span",
                format!("{shown} of {} models (sorted by name)", models.len()),
            )
            .id("model-count")
            .class("muted"),
        )
}

/// The ranked leaderboard (rendered by the lab module): the run shown and the compared
/// runs among the published models — only on the official dataset.
pub fn leaderboard_panel(state: &AppState) -> Option<Element> {
    state.shown.as_ref()?;
    if !state.overlay().is_some_and(|o| o.shown)
        || state.leaderboard.as_ref().is_none_or(|m| m.is_empty())
    {
        return None;
    }
    let busy = state.lab.busy(LabPurpose::Leaderboard);
    let holder = el("div")
        .id("leaderboard-area")
        .attr_opt("aria-busy", busy.then_some("true"))
        .child(el_text("h3", "Ranked with the published models").id("leaderboard-title"));
    Some(match state.lab.answer(LabPurpose::Leaderboard) {
        Some(Ok(json)) => holder.child(Node::Raw(json.clone())),
        Some(Err(e)) if !busy => holder.child(note("leaderboard-error", e, Tone::Error)),
        _ => holder.child(note("leaderboard-wait", "Ranking…", Tone::Info)),
    })
}
