//! Offline scoring: drop or choose a result file, a checkpoint or a run file; the page
//! says what the file is, scores what can be scored and refuses the rest with a reason.

use crate::state::AppState;
use crate::ui::{el, el_text, Element};
use crate::upload::UploadState;
use wildtool_contract::FileAction;

use crate::widgets::{heading, note};

/// The offline scoring view.
/// (The frame shows the Verify panel below it.)
pub fn view(state: &AppState) -> Element {
    let u = &state.upload;
    let dataset = state
        .dataset
        .map(|d| {
            format!(
                "{} ({} tasks, fingerprint {})",
                d.source.display(),
                d.tasks,
                d.fingerprint
            )
        })
        .unwrap_or_else(|| "no dataset loaded — load one in Setup first".into());
    let mut panel = el("div")
        .class("panel")
        .child(heading("h1", "offline-title", "Offline scoring"))
        .child(el("p").class("muted").text(format!(
            "Score an official result.jsonl (streamed; large files are fine), a wildtool run checkpoint (checkpoint.jsonl) or a run file exported from this page, against the dataset loaded in Setup: {dataset}. Nothing is sent anywhere."
        )))
        .child(
            el("div")
                .id("result-drop")
                .class("drop")
                .on_drop(FileAction::Upload.name())
                .child(el("label").attr("for", "result-file").text("Result file — choose it, or drop it here"))
                .child(
                    el("input")
                        .id("result-file")
                        .attr("type", "file")
                        .attr("accept", ".jsonl,.json,.txt")
                        .action(FileAction::Upload.name(), ""),
                ),
        );
    if u.state == UploadState::Scoring {
        panel = panel
            .child(
                el("label")
                    .attr("for", "offline-bar")
                    .class("visually-hidden")
                    .text("Scoring progress"),
            )
            .child(
                el("progress")
                    .id("offline-bar")
                    .attr("max", u.total.max(1).to_string())
                    .attr("value", u.read.min(u.total.max(1)).to_string()),
            );
    }
    match &u.message {
        Some((text, tone)) => {
            panel.child(note("offline-info", text, *tone).attr("aria-live", "polite"))
        }
        None => panel.child(
            el_text("p", "")
                .id("offline-info")
                .attr("aria-live", "polite"),
        ),
    }
}
