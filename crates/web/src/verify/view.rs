//! The Verify panel of the Offline view: a drop zone for a bundle's files and the
//! verdicts the lab module gives (the lines `wildtool verify` prints for the same files).

use crate::msg::LabPurpose;
use crate::state::{AppState, Tone};
use crate::ui::{el, el_text, Element, Node};
use wildtool_contract::{Action, FileAction};

use crate::widgets::{button, note};

/// The panel.
pub fn panel(state: &AppState) -> Element {
    let v = &state.verify;
    let busy = v.reading > 0 || state.lab.busy(LabPurpose::Verify);
    let panel = el("div")
        .class("panel")
        .id("verify")
        .child(el_text("h2", "Verify a run").id("verify-title"))
        .child(el_text(
            "p",
            "Drop a run's files one after another — manifest.json, result.jsonl, the claimed metric.json, score.jsonl or report.json, a cassette — to re-score them against the dataset loaded in Setup (checked by its fingerprint; a dataset dropped here is used instead). Each claim is shown with ✓ or ✗, as wildtool verify prints it. Nothing is sent anywhere.",
        ).class("muted"))
        .child(
            el("div")
                .id("verify-drop")
                .class("drop")
                .on_drop(FileAction::VerifyFile.name())
                .child(el("label").attr("for", "verify-input").text("A file of the run — choose it, or drop it here"))
                .child(
                    el("input")
                        .id("verify-input")
                        .attr("type", "file")
                        .attr("accept", ".jsonl,.json,.txt")
                        .action(FileAction::VerifyFile.name(), ""),
                ),
        );
    if v.files.is_empty() && !busy {
        return panel;
    }
    let area = el("div")
        .id("verify-area")
        .attr_opt("aria-busy", busy.then_some("true"))
        .attr("aria-live", "polite");
    let area = match state.lab.answer(LabPurpose::Verify) {
        _ if busy => area.child(note("verify-wait", "Verifying…", Tone::Info)),
        Some(Ok(json)) => area.child(Node::Raw(json.clone())),
        Some(Err(e)) => area.child(note("verify-error", e, Tone::Error)),
        None => area,
    };
    panel
        .child(area)
        .child(button("Start again", Action::VerifyClear.name(), ""))
}
