//! Sweep: one generated suite per level of a factor, run one after another with the Setup
//! model; the levels' progress, then the lab module's analysis (the numbers of
//! `wildtool sweep`) with `sweep.json` and `sweep.html` to download.

use wildtool_core::generate::FACTORS;

use crate::generator::SweepPhase;
use crate::state::{AppState, Tone};
use crate::ui::{el, el_text, Element, Node};

use super::generate::form_field;
use super::widgets::{button, heading, note};

/// The Sweep view.
pub fn view(state: &AppState) -> Element {
    let f = &state.gen.sweep_form;
    let busy = state.gen.sweep.as_ref().is_some_and(|s| s.phase.active());
    let names = FACTORS.iter().map(|i| i.name.to_owned()).collect();
    let form = el("fieldset")
        .class("panel")
        .child(el_text("legend", "Factor, levels and suite"))
        .child(
            el("div")
                .class("grid3")
                .child(form_field("factor", "sweep-factor", &f.factor, Some(names)))
                .child(form_field("levels", "sweep-levels", &f.levels, None))
                .child(form_field(
                    "sessions per level",
                    "sweep-per-level",
                    &f.per_level,
                    None,
                ))
                .child(form_field("seed", "sweep-seed", &f.seed, None))
                .child(form_field(
                    "held fixed (name=value,…)",
                    "sweep-hold",
                    &f.hold,
                    None,
                )),
        )
        .child(
            el("div")
                .class("row")
                .child(
                    button("Start the sweep", "sweep-start", "")
                        .id("sweep-start")
                        .class("primary")
                        .flag("disabled", busy),
                )
                .child(
                    button("Stop", "sweep-stop", "")
                        .id("sweep-stop")
                        .flag("disabled", !busy),
                ),
        );
    let mut out = el("div")
        .child(
            el("div")
                .class("panel")
                .child(heading("h1", "sweep-title", "Sweep a factor"))
                .child(el_text("p", "One generated suite per level, the other factors held fixed and the sessions paired across levels; every level runs with the model set in Setup and is kept in the History. Then accuracy by level with 95% intervals and a test for trend over the paired sessions, as wildtool sweep computes them.").class("muted")),
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
                .key(level.dir.clone())
                .text(format!("{} = {}: {status}", sweep.factor, level.value))
                .child_opt(
                    run.run
                        .as_ref()
                        .filter(|_| run.outcome.is_some())
                        .map(|id| {
                            button("Open", "history-open", id).attr(
                                "aria-label",
                                format!("Open the run of {} = {}", sweep.factor, level.value),
                            )
                        }),
                )
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
        .child(el_text("p", format!("Suite: {}", sweep.suite)).class("muted"))
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
        panel = panel
            .child(
                el("div")
                    .class("row")
                    .child(button("Download sweep.json", "sweep-download", "json").id("sweep-json"))
                    .child(
                        button("Download sweep.html", "sweep-download", "html").id("sweep-html"),
                    ),
            )
            .child(Node::Raw(r.view.clone()));
    }
    out = out.child(panel);
    out
}
