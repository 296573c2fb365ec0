//! History: every run kept in this browser — open, rename, export, delete, compare,
//! resume, and import a run file.

use crate::history::HistoryEntry;
use crate::state::AppState;
use crate::ui::{el, el_text, Element};

use super::widgets::{button, date, duration, heading};

fn row(state: &AppState, e: &HistoryEntry) -> Element {
    let renaming = state
        .history
        .renaming
        .as_ref()
        .filter(|(id, _)| id == &e.id)
        .map(|(_, d)| d.clone());
    let title = match renaming {
        Some(draft) => el("form")
            .class("row")
            .action("history-rename-save", "")
            .child(
                el("label")
                    .attr("for", "history-label")
                    .class("visually-hidden")
                    .text("New label"),
            )
            .child(
                el("input")
                    .id("history-label")
                    .attr("type", "text")
                    .attr("value", draft)
                    .action("history-label", ""),
            )
            .child(el("button").attr("type", "submit").text("Save")),
        None => el("h2").class("run-title").text(e.label.clone()),
    };
    let compared = state.history.compare.iter().any(|c| c == &e.id);
    let accuracy = e
        .task_accuracy
        .as_deref()
        .map(|a| format!("task accuracy {a}"))
        .unwrap_or_else(|| "no accuracy".into());
    let mut facts = vec![
        format!("{} · {}", e.status, accuracy),
        format!("{} of {} tasks scored", e.tasks_scored, e.tasks_total),
        format!("{} ({})", e.dataset_name, e.dataset_fingerprint),
        format!(
            "{} · {}",
            e.kind,
            e.provider.clone().unwrap_or_else(|| e.model.clone())
        ),
        format!("started {}", date(e.started_ms)),
    ];
    if let Some(host) = &e.endpoint_host {
        facts.push(format!("endpoint {host}"));
    }
    if e.requests > 0 {
        facts.push(format!(
            "{} requests · {} + {} tokens · {}",
            e.requests,
            e.input_tokens,
            e.output_tokens,
            duration(e.duration_s)
        ));
    }
    if let Some(r) = &e.reason {
        facts.push(format!("reason: {r}"));
    }
    let label = e.label.clone();
    let named = |b: Element, what: &str| b.attr("aria-label", format!("{what} {label}"));
    let mut actions = el("div")
        .class("row")
        .child(named(button("Open", "history-open", &e.id), "Open"))
        .child(named(button("Rename", "history-rename", &e.id), "Rename"))
        .child(named(button("Export", "history-export", &e.id), "Export"));
    if e.has_checkpoint {
        actions = actions.child(named(
            button("Checkpoint", "history-checkpoint", &e.id),
            "Download the checkpoint of",
        ));
    }
    actions = actions.child(if compared {
        named(
            button("Remove from comparison", "compare-remove", &e.id),
            "Remove from the comparison:",
        )
    } else {
        named(
            button("Add to comparison", "compare-add", &e.id),
            "Add to the comparison:",
        )
    });
    if e.has_checkpoint && e.resumable && !state.run.as_ref().is_some_and(|r| r.active()) {
        actions = actions.child(named(button("Resume", "resume", &e.id), "Resume"));
    }
    actions = actions.child(named(
        button("Delete", "history-delete", &e.id).class("danger"),
        "Delete",
    ));
    el("li")
        .key(e.id.clone())
        .id(format!("history-row-{}", e.id))
        .attr("tabindex", "-1")
        .class(format!("panel history-entry status-{}", e.status))
        .child(title)
        .child(
            el("ul")
                .class("facts")
                .children(facts.into_iter().map(|f| el_text("li", f))),
        )
        .child(actions)
}

/// The history view.
pub fn view(state: &AppState) -> Element {
    let h = &state.history;
    let list: Element = if h.entries.is_empty() {
        el_text(
            "p",
            if h.loaded {
                "No runs yet. Runs you start, files you score and links you open are kept here."
            } else {
                "Reading the history…"
            },
        )
        .class("muted")
    } else {
        el("ol")
            .id("history-list")
            .class("history-list")
            .children(h.entries.iter().map(|e| row(state, e)))
    };
    el("section")
        .id("view-history")
        .class("view")
        .attr("aria-labelledby", "history-title")
        .child(
            el("div")
                .class("section-head")
                .child(heading("h1", "history-title", "History"))
                .child(el("p").class("muted").text(format!(
                    "{} run(s) kept in this browser; {} in the comparison.",
                    h.entries.len(),
                    h.compare.len()
                ))),
        )
        .child(
            el("div")
                .class("panel drop")
                .on_drop("history-import")
                .child(
                    el("label")
                        .attr("for", "history-import")
                        .text("Import a run file or checkpoint"),
                )
                .child(
                    el("input")
                        .id("history-import")
                        .attr("type", "file")
                        .attr("accept", ".json,.jsonl")
                        .action("history-import", ""),
                ),
        )
        .child(list)
}
