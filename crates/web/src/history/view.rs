//! History: every run kept in this browser — open, rename, export, delete, compare,
//! resume, and import a run file.

use wildtool_contract::inputs::{HistoryInput, HistoryRow};
use wildtool_contract::FileAction;

use crate::history::HistoryEntry;
use crate::msg::LabPurpose;
use crate::placement::HISTORY_LIST;
use crate::state::AppState;
use crate::ui::{el, Element};

use crate::widgets::heading;

/// What the history list is drawn from.
pub fn input(state: &AppState) -> HistoryInput {
    let h = &state.history;
    HistoryInput {
        loaded: h.loaded,
        can_resume: !state.run.as_ref().is_some_and(|r| r.active()),
        entries: h.entries.iter().map(|e| row_input(state, e)).collect(),
    }
}

fn row_input(state: &AppState, e: &HistoryEntry) -> HistoryRow {
    HistoryRow {
        id: e.id.clone(),
        label: e.label.clone(),
        renaming: state
            .history
            .renaming
            .as_ref()
            .filter(|(id, _)| id == &e.id)
            .map(|(_, d)| d.clone()),
        compared: state.history.compare.iter().any(|c| c == &e.id),
        status: e.status.clone(),
        task_accuracy: e.task_accuracy.clone(),
        tasks_scored: e.tasks_scored,
        tasks_total: e.tasks_total,
        dataset_name: e.dataset_name.clone(),
        dataset_fingerprint: e.dataset_fingerprint.clone(),
        kind: e.kind.clone(),
        provider: e.provider.clone(),
        model: e.model.clone(),
        started_ms: e.started_ms,
        endpoint_host: e.endpoint_host.clone(),
        requests: e.requests,
        input_tokens: e.input_tokens,
        output_tokens: e.output_tokens,
        duration_s: e.duration_s,
        reason: e.reason.clone(),
        has_checkpoint: e.has_checkpoint,
        resumable: e.resumable,
        trials: e.trials(),
        builtin: e.is_builtin(),
    }
}

/// The history view.
pub fn view(state: &AppState) -> Element {
    let h = &state.history;
    let list = state.movable(
        HISTORY_LIST,
        LabPurpose::HistoryList,
        || input(state),
        wildtool_views::history::view,
        "history-list",
        "Reading the history…",
    );
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
                .on_drop(FileAction::HistoryImport.name())
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
                        .action(FileAction::HistoryImport.name(), ""),
                ),
        )
        .child(list)
}
