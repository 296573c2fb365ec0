//! The ledger environment's views (an extension): its Setup block, dashboard section and
//! traces.

use super::*;
use crate::state::AppState;
use crate::ui::{el, el_text, Element, Node};
use serde_json::Value as Json;
use wildtool_contract::Action;

fn task_list(state: &AppState, s: &EnvShown) -> Element {
    let summary = parse(&s.summary);
    let tasks = summary
        .get("tasks")
        .and_then(Json::as_array)
        .cloned()
        .unwrap_or_default();
    let mut list = el("ol").id("env-tasks").class("env-tasks");
    for t in &tasks {
        let line = t.get("line").and_then(Json::as_u64).unwrap_or(0);
        let task = t.get("task").and_then(Json::as_u64).unwrap_or(0);
        let ok = t.get("ok").and_then(Json::as_bool).unwrap_or(false);
        let text = format!(
            "{} task {} · {} · {}",
            t.get("id").and_then(Json::as_str).unwrap_or(""),
            task + 1,
            t.get("challenge")
                .and_then(Json::as_str)
                .unwrap_or("")
                .replace('_', " "),
            if ok { "env success" } else { "env failure" }
        );
        let item = if s.result.is_some() && state.dataset.is_some() {
            el("li").child(
                el("button")
                    .attr("type", "button")
                    .class(if ok { "link ok" } else { "link bad" })
                    .action(Action::EnvOpen.name(), format!("{line} {task}"))
                    .text(text),
            )
        } else {
            el_text("li", text)
        };
        list = list.child(item.key(format!("{line}-{task}")));
    }
    list
}

fn tasks_panel(state: &AppState, s: &EnvShown, title: &str) -> Element {
    el("section")
        .class("panel")
        .attr("aria-labelledby", "env-tasks-title")
        .child(el_text("h2", title).id("env-tasks-title"))
        .child(task_list(state, s))
}

/// The dashboard of an env run, when one is shown.
pub fn dashboard(state: &AppState) -> Option<Element> {
    let s = state.env.shown.as_ref()?;
    Some(
        el("section")
            .id("view-dashboard")
            .class("view")
            .attr("aria-labelledby", "dashboard-title")
            .child(
                el("div")
                    .class("section-head")
                    .child(crate::widgets::heading("h1", "dashboard-title", "Dashboard"))
                    .child(el("p").id("dash-label").class("muted").text(format!(
                        "{} · ledger environment (extension) · {} history",
                        s.label, s.history
                    ))),
            )
            .child(
                el("p")
                    .id("env-official-note")
                    .class("banner")
                    .attr("role", "note")
                    .text("This run used the ledger environment, a wildtool extension: it has no official WildToolBench numbers, and the leaderboard is not shown for it."),
            )
            .child(lab_node(state.env.view.as_ref(), "env-view", "Drawing the ledger environment section…"))
            .child(tasks_panel(state, s, "Tasks (open one for its steps and ledger diff)"))
            .child(
                el("div")
                    .id("env-exports")
                    .class("panel row")
                    .child(
                        el("button")
                            .attr("type", "button")
                            .id("env-copy-link")
                            .action(Action::EnvCopyLink.name(), "")
                            .text("Copy link"),
                    )
                    .child_opt(s.result.as_ref().map(|_| {
                        el("button")
                            .attr("type", "button")
                            .id("env-exp-result")
                            .action(Action::EnvFile.name(), "result")
                            .text(s.result_name())
                    }))
                    .child_opt(s.report.as_ref().map(|_| {
                        el("button")
                            .attr("type", "button")
                            .id("env-exp-report")
                            .action(Action::EnvFile.name(), "report")
                            .text("env-report.json")
                    }))
                    .child_opt(s.manifest.as_ref().map(|_| {
                        el("button")
                            .attr("type", "button")
                            .id("env-exp-manifest")
                            .action(Action::EnvFile.name(), "manifest")
                            .text("manifest.json")
                    })),
            ),
    )
}

/// The traces view of an env run, when one is shown.
pub fn traces(state: &AppState) -> Option<Element> {
    let s = state.env.shown.as_ref()?;
    let body: Node = if state.env.task.is_some() {
        lab_node(
            state.env.task_view.as_ref(),
            "env-task",
            "Reading the task…",
        )
    } else {
        el_text("p", "Choose a task.").class("muted").into()
    };
    Some(
        el("section")
            .id("view-traces")
            .class("view")
            .attr("aria-labelledby", "traces-title")
            .child(crate::widgets::heading("h1", "traces-title", "Traces"))
            .child(el("p").class("muted").text(format!(
                "{} · ledger environment (extension) · {} history",
                s.label, s.history
            )))
            .child(body)
            .child(tasks_panel(state, s, "Tasks")),
    )
}

/// The setup form's ledger environment choices (an extension).
pub fn setup_block(state: &AppState) -> Option<Element> {
    use crate::field::Field;
    let f = &state.setup;
    let option = |value: &str, label: &str| {
        el("option")
            .attr("value", value)
            .flag("selected", f.history == value)
            .text(label)
    };
    Some(
    el("fieldset")
        .id("env-setup")
        .child(el_text("legend", "Extension: ledger environment"))
        .child(
            el("label")
                .class("check")
                .child(
                    el("input")
                        .id("m-env")
                        .attr("type", "checkbox")
                        .flag("checked", f.env)
                        .action(Action::Set.name(), Field::Env.name()),
                )
                .text(" Run the sessions with a ledger in the ledger environment (like --env ledger: a wildtool extension, never official numbers)"),
        )
        .child(
            el("label")
                .attr("for", "m-history")
                .text("History (env runs)"),
        )
        .child(
            el("select")
                .id("m-history")
                .flag("disabled", !f.env)
                .action(Action::Set.name(), Field::History.name())
                .child(option("gold", "gold: each task sees the gold history (default)"))
                .child(option("own", "own: each task continues the model's own session")),
        )
    )
}
