//! Compare: runs of the history compared pair by pair. The page chooses the runs (the
//! history's comparison set) and the lab module computes and renders the comparison;
//! its answer is spliced in as it is.

use crate::lab::CompareWait;
use crate::msg::LabPurpose;
use crate::state::{AppState, Tone};
use crate::ui::{el, el_text, Element, Node};

use super::widgets::{heading, note};

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
    let area = el("div")
        .id("compare-area")
        .attr("aria-live", "polite")
        .attr_opt(
            "aria-busy",
            state.lab.busy(LabPurpose::Compare).then_some("true"),
        );
    match state.compare_wait() {
        Some(wait) => {
            let text = match wait {
                CompareWait::TooFew(n) => {
                    format!("Choose two or more runs of the same dataset ({n} chosen).")
                }
                CompareWait::NoDataset => {
                    "Load the runs' dataset in Setup to compare them.".to_owned()
                }
                CompareWait::Reading => "Reading the chosen runs…".to_owned(),
                CompareWait::Missing(label) => {
                    format!("The results of {label} are not stored in this browser.")
                }
            };
            area.child(note("compare-wait", &text, Tone::Info))
        }
        None => match state.lab.answer(LabPurpose::Compare) {
            _ if state.lab.busy(LabPurpose::Compare) => {
                area.child(note("compare-wait", "Comparing…", Tone::Info))
            }
            Some(Ok(json)) => area.child(Node::Raw(json.clone())),
            Some(Err(e)) => area.child(note("compare-error", e, Tone::Error)),
            None => area,
        },
    }
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
        .child(picker(state))
        .child(result(state))
}
