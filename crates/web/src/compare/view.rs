//! Compare: runs of the history compared pair by pair. The page chooses the runs (the
//! history's comparison set) and the lab module computes and renders the comparison;
//! its answer is spliced in as it is.

use crate::lab::CompareWait;
use crate::msg::LabPurpose;
use crate::state::{AppState, Tone};
use crate::ui::{el, el_text, Element, Node};
use wildtool_contract::Action;

use crate::widgets::{button, heading, note};

fn picker(state: &AppState) -> Element {
    let fingerprint = state.dataset.map(|d| d.fingerprint.as_str());
    let rows = state.history.entries.iter().map(|e| {
        let chosen = state.history.compare.iter().any(|c| c == &e.id);
        let other = fingerprint.is_some_and(|f| f != e.dataset_fingerprint);
        // What tells runs apart: when, where from, and how many trials.
        let origin = match (e.kind.as_str(), &e.endpoint_host) {
            (_, Some(host)) => format!("endpoint {host}"),
            ("upload", _) => "uploaded file".to_owned(),
            ("link", _) => "opened from a link".to_owned(),
            _ => format!(
                "built-in {} agent",
                e.provider.as_deref().unwrap_or(&e.model)
            ),
        };
        let trials = e.trials();
        // Which history the model saw: official runs always see gold history; env runs
        // (an extension) say which.
        let mode = if e.kind == crate::env::ENV_KIND {
            format!(
                " · ledger environment, {} history (extension)",
                e.setting("history").unwrap_or("gold")
            )
        } else {
            String::new()
        };
        let facts = format!(
            " {} — {} · {} of {} tasks scored · {}{} · started {} · {origin}{}{mode}",
            e.label,
            e.status,
            e.tasks_scored,
            e.tasks_total,
            e.dataset_name,
            if other { " (another dataset)" } else { "" },
            crate::widgets::when(e.started_ms),
            if trials > 1 {
                format!(" · {trials} trials")
            } else {
                String::new()
            }
        );
        el("li").key(e.id.clone()).child(
            el("label")
                .class("check")
                .child(
                    el("input")
                        .attr("type", "checkbox")
                        .id(format!("pick-{}", e.id))
                        .flag("checked", chosen)
                        .action(Action::ComparePick.name(), &e.id),
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
            CompareWait::Mixed => "A ledger-environment run (a wildtool extension) is not compared with an official run: choose env runs only, or official runs only.".to_owned(),
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
                Action::CompareLinkClose.name(),
                "",
            )),
    )
}

/// The comparison view.
/// The Compare view, with the compared runs' cost in money (`cost`, the budget's section).
pub fn view(state: &AppState, cost: Option<Element>) -> Element {
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
        .child_opt(cost)
        .child_opt(match state.lab.answer(LabPurpose::Audit) {
            Some(Ok(json)) if state.compare_wait().is_none() => Some(Node::Raw(json.clone())),
            _ => None,
        })
}
