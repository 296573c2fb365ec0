//! The history list: every run kept in this browser, with its facts and what can be done
//! with it (open, rename, export, checkpoint, compare, resume, delete).

use wildtool_contract::inputs::{HistoryInput, HistoryRow};
use wildtool_contract::Action;
use wildtool_ui::{el, el_text, Element};

use crate::widgets::{button, date, duration};

fn row(input: &HistoryInput, e: &HistoryRow) -> Element {
    let title = match e.renaming.clone() {
        Some(draft) => el("form")
            .class("row")
            .action(Action::HistoryRenameSave.name(), "")
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
                    .action(Action::HistoryLabel.name(), ""),
            )
            .child(el("button").attr("type", "submit").text("Save")),
        None => el("h2").class("run-title").text(e.label.clone()),
    };
    let compared = e.compared;
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
    if e.trials > 1 {
        facts.push(format!("{} trials", e.trials));
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
        .child(named(
            button("Open", Action::HistoryOpen.name(), &e.id),
            "Open",
        ))
        .child(named(
            button("Rename", Action::HistoryRename.name(), &e.id),
            "Rename",
        ))
        .child(named(
            button("Export", Action::HistoryExport.name(), &e.id),
            "Export",
        ));
    if e.has_checkpoint {
        actions = actions.child(named(
            button("Checkpoint", Action::HistoryCheckpoint.name(), &e.id),
            "Download the checkpoint of",
        ));
    }
    actions = actions.child(if compared {
        named(
            button(
                "Remove from comparison",
                Action::CompareRemove.name(),
                &e.id,
            ),
            "Remove from the comparison:",
        )
    } else {
        named(
            button("Add to comparison", Action::CompareAdd.name(), &e.id),
            "Add to the comparison:",
        )
    });
    if e.has_checkpoint && e.resumable && input.can_resume {
        actions = actions.child(named(
            button("Resume", Action::Resume.name(), &e.id),
            "Resume",
        ));
    }
    actions = actions.child(named(
        button("Delete", Action::HistoryDelete.name(), &e.id).class("danger"),
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

/// The list (`ol#history-list`, or a note while there is none).
pub fn view(input: &HistoryInput) -> Element {
    if input.entries.is_empty() {
        return el_text(
            "p",
            if input.loaded {
                "No runs yet. Runs you start, files you score and links you open are kept here."
            } else {
                "Reading the history…"
            },
        )
        .class("muted");
    }
    el("ol")
        .id("history-list")
        .class("history-list")
        .children(input.entries.iter().map(|e| row(input, e)))
}
