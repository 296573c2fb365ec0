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
    if let Some(usage) = usage(e) {
        facts.push(usage);
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

/// What a run cost in requests and tokens, said so that a built-in agent (which asks no
/// model) and an endpoint that reported no usage are not shown as "0 + 0 tokens".
fn usage(e: &HistoryRow) -> Option<String> {
    let took = duration(e.duration_s);
    if e.builtin {
        return Some(format!(
            "built-in agent: no model asked, no tokens · {took}"
        ));
    }
    if e.requests == 0 {
        return None;
    }
    if e.input_tokens + e.output_tokens == 0 {
        return Some(format!(
            "{} requests · the endpoint reported no token usage · {took}",
            e.requests
        ));
    }
    Some(format!(
        "{} requests · {} + {} tokens · {took}",
        e.requests, e.input_tokens, e.output_tokens
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(builtin: bool, requests: u64, tokens: (u64, u64)) -> HistoryRow {
        HistoryRow {
            id: "h1".into(),
            label: "run".into(),
            renaming: None,
            compared: false,
            status: "done".into(),
            task_accuracy: None,
            tasks_scored: 4,
            tasks_total: 4,
            dataset_name: "mini".into(),
            dataset_fingerprint: "f".into(),
            kind: "live".into(),
            provider: None,
            model: "m".into(),
            started_ms: 0.0,
            endpoint_host: None,
            requests,
            input_tokens: tokens.0,
            output_tokens: tokens.1,
            duration_s: Some(2.0),
            reason: None,
            has_checkpoint: false,
            resumable: false,
            trials: 1,
            builtin,
        }
    }

    #[test]
    fn usage_is_said_for_what_answered() {
        let builtin = usage(&row(true, 322, (0, 0))).unwrap();
        assert!(
            builtin.starts_with("built-in agent: no model asked"),
            "{builtin}"
        );
        let silent = usage(&row(false, 5, (0, 0))).unwrap();
        assert!(silent.contains("reported no token usage"), "{silent}");
        let model = usage(&row(false, 5, (10, 3))).unwrap();
        assert!(model.starts_with("5 requests · 10 + 3 tokens"), "{model}");
        assert_eq!(usage(&row(false, 0, (0, 0))), None);
    }
}
