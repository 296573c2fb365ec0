//! Sweep: one generated suite per level of a factor, run one after another with the Setup
//! model; the levels' progress, then the lab module's analysis (the numbers of
//! `wildtool sweep`) with `sweep.json` and `sweep.html` to download.

use crate::generate::SweepPhase;
use crate::state::{AppState, Tone};
use crate::ui::{el, el_text, Element, Node};
use wildtool_contract::Action;

use crate::generate::view::form_field;
use crate::widgets::{button, heading, note};

/// The Sweep view.
pub fn view(state: &AppState) -> Element {
    let f = &state.gen.sweep_form;
    let busy = state.gen.sweep.as_ref().is_some_and(|s| s.phase.active());
    let form = el("fieldset")
        .class("panel")
        .child(el_text("legend", "Factor, levels and suite"))
        .child(
            el("div")
                .class("grid3")
                .child(form_field("factor", "sweep-factor", &f.factor))
                .child(form_field("levels", "sweep-levels", &f.levels))
                .child(form_field(
                    "sessions per level",
                    "sweep-per-level",
                    &f.per_level,
                ))
                .child(form_field("seed", "sweep-seed", &f.seed))
                .child(form_field(
                    "held fixed (name=value,…)",
                    "sweep-hold",
                    &f.hold,
                )),
        )
        .child(super::view::picker(state))
        .child(
            el("div")
                .class("row")
                .child(
                    button(
                        &format!("Start the sweep with {}", state.setup.display_model()),
                        Action::SweepStart.name(),
                        "",
                    )
                    .id("sweep-start")
                    .class("primary")
                    .flag("disabled", busy),
                )
                .child(
                    button("Stop", Action::SweepStop.name(), "")
                        .id("sweep-stop")
                        .flag("disabled", !busy),
                ),
        );
    let mut out = el("div")
        .child(
            el("div")
                .class("panel")
                .child(heading("h1", "sweep-title", "Sweep a factor"))
                .child(el_text("p", "One generated suite per level, sessions paired across levels, each run with the Setup model and kept in the History; then accuracy by level and a test for trend, as wildtool sweep computes them.").class("muted")),
        )
        .child(form);
    let Some(sweep) = &state.gen.sweep else {
        return out;
    };
    let rows = sweep
        .levels
        .iter()
        .zip(&sweep.runs)
        .enumerate()
        .map(|(i, (level, run))| {
            let status = match (&run.outcome, &sweep.phase) {
                (Some(o), _) => {
                    format!("{o} · {}", run.accuracy.as_deref().unwrap_or("no accuracy"))
                }
                (None, SweepPhase::Generating(j)) if *j == i => "generating…".into(),
                (None, SweepPhase::Running(j)) if *j == i => state
                    .run
                    .as_ref()
                    .map(|r| {
                        format!(
                            "running: {} of {} tasks",
                            r.progress.settled(),
                            r.progress.total
                        )
                    })
                    .unwrap_or_default(),
                _ => "waiting".into(),
            };
            el("li")
                .key(level.value.clone())
                .text(format!("{} = {}: {status}", sweep.factor, level.value))
        });
    let mut panel = el("section")
        .id("sweep-progress")
        .class("panel")
        .attr("aria-labelledby", "sweep-progress-title")
        .child(
            el_text(
                "h2",
                format!("{} · {}", sweep.form.factor_levels(), sweep.model),
            )
            .id("sweep-progress-title"),
        )
        .child(el("ol").class("sweep-levels").children(rows));
    let problem = match &sweep.phase {
        SweepPhase::Failed(why) => Some(format!("The sweep could not run: {why}.")),
        SweepPhase::Stopped(why) => Some(format!("The sweep stopped early: {why}.")),
        _ => None,
    };
    if let Some(text) = problem {
        panel = panel.child(note("sweep-error", &text, Tone::Warn));
    }
    if let Some(r) = &sweep.result {
        panel = panel.child(Node::Raw(r.view.clone()));
    }
    out = out.child(panel);
    out
}
