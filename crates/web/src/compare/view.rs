//! Compare: runs of the history compared pair by pair. The page chooses the runs (the
//! history's comparison set) and the lab module computes and renders the comparison;
//! its answer is spliced in as it is.

use crate::lab::CompareWait;
use crate::msg::LabPurpose;
use crate::state::{AppState, Tone};
use crate::ui::{el, el_text, Element, Node};

use crate::views::widgets::{button, heading, note};

fn picker(state: &AppState) -> Element {
    let fingerprint = state.dataset.map(|d| d.fingerprint.as_str());
    let rows = state.history.entries.iter().map(|e| {
        let chosen = state.history.compare.iter().any(|c| c == &e.id);
        let other = fingerprint.is_some_and(|f| f != e.dataset_fingerprint);
        let facts = format!(
            " {} — {} · {} of {} tasks scored · {}{}",
            e.label,
            e.status,
            e.tasks_scored,
            e.tasks_total,
            e.dataset_name,
            if other { " (another dataset)" } else { "" }
        );
        el("li").key(e.id.clone()).child(
            el("label")
                .class("check")
                .child(
                    el("input")
                        .attr("type", "checkbox")
                        .id(format!("pick-{}", e.id))
                        .flag("checked", chosen)
                        .action("compare-pick", &e.id),
                )
                .text(facts),
        )
    });
    el("fieldset")
        .id("compare-picker")
        .class("panel")
        .child(el_text("legend", "Runs to compare"))
        .child(if state.history.entries.is_empty() {
            el_text(
                "p",
                if state.history.loaded {
                    "No runs yet: runs you start, files you score and links you open are kept in the History."
                } else {
                    "Reading the history…"
                },
            )
            .class("muted")
        } else {
            el("ul").class("pick-list").children(rows)
        })
}

fn result(state: &AppState) -> Element {
    let busy = state.lab.busy(LabPurpose::Compare);
    let area = el("div")
        .id("compare-area")
        .attr_opt("aria-busy", busy.then_some("true"));
    if let Some(wait) = state.compare_wait() {
        let text = match wait {
            CompareWait::TooFew(n) => {
                format!("Choose two or more runs of the same dataset ({n} chosen).")
            }
            CompareWait::NoDataset => "Load the runs' dataset in Setup to compare them.".to_owned(),
            CompareWait::Reading => "Reading the chosen runs…".to_owned(),
            CompareWait::Missing(label) => {
                format!("The results of {label} are not stored in this browser.")
            }
        };
        return area.child(note("compare-wait", &text, Tone::Info));
    }
    let area = area.child_opt(busy.then(|| note("compare-wait", "Comparing…", Tone::Info)));
    match state.lab.answer(LabPurpose::Compare) {
        Some(Ok(json)) => area.child(Node::Raw(json.clone())),
        Some(Err(e)) if !busy => area.child(note("compare-error", e, Tone::Error)),
        _ => area,
    }
}

fn link_banner(state: &AppState) -> Option<Element> {
    state.lab.compare_link.as_ref()?;
    Some(
        el("div")
            .class("banner banner-info row")
            .id("compare-from-link")
            .child(el_text(
                "p",
                "This comparison was opened from a comparison link: it holds both runs' outcomes on every task, no traces.",
            ))
            .child(button(
                "Compare runs of this browser instead",
                "compare-link-close",
                "",
            )),
    )
}

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
                .action("model-search", ""),
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

/// The comparison view.
pub fn view(state: &AppState) -> Element {
    el("section")
        .id("view-compare")
        .class("view")
        .attr("aria-labelledby", "compare-title")
        .child(
            el("div")
                .class("section-head")
                .child(heading("h1", "compare-title", "Compare runs"))
                .child(el_text(
                    "p",
                    "Runs of one dataset, compared on the tasks both scored: exact McNemar test, paired session-bootstrap intervals (the same numbers as wildtool compare).",
                ).class("muted")),
        )
        .child_opt(link_banner(state))
        .child(picker(state))
        .child(result(state))
        .child_opt(match state.lab.answer(LabPurpose::Audit) {
            Some(Ok(json)) if state.compare_wait().is_none() => Some(Node::Raw(json.clone())),
            _ => None,
        })
}
