//! Sweep: one generated suite per level of a factor, run one after another with the Setup
//! model; the levels' progress, then the lab module's analysis (accuracy against the
//! level with 95% intervals and the test for trend — the same as `wildtool sweep`) with
//! `sweep.json` and `sweep.html` to download.

use wildtool_core::generate::FACTORS;

use crate::generator::{SweepPhase, SweepRun};
use crate::live::Phase;
use crate::state::{AppState, Tone};
use crate::ui::{el, el_text, Element, Node};

use super::generate::form_field;
use super::widgets::{button, heading, note};

fn form(state: &AppState) -> Element {
    let f = &state.gen.sweep_form;
    let mut factor = el("select")
        .id("sweep-factor")
        .action("gen-set", "sweep-factor")
        .attr("value", f.factor.clone());
    for info in FACTORS {
        factor = factor.child(el("option").attr("value", info.name).text(info.name));
    }
    let hint = FACTORS
        .iter()
        .find(|i| i.name == f.factor)
        .map(|i| format!("Levels of {}: {}, joined by commas.", i.name, i.values))
        .unwrap_or_default();
    let busy = state.gen.sweep.as_ref().is_some_and(|s| s.phase.active());
    let model = if state.setup.is_builtin() {
        format!("the built-in {} agent", state.setup.provider)
    } else {
        format!(
            "{} at {} ({})",
            if state.setup.model.trim().is_empty() {
                "(no model name)"
            } else {
                state.setup.model.trim()
            },
            state.setup.effective_base_url(),
            state.setup.provider
        )
    };
    el("fieldset")
        .class("panel")
        .child(el_text("legend", "Factor, levels and suite"))
        .child(
            el("div")
                .class("grid3")
                .child(
                    el("label")
                        .attr("for", "sweep-factor")
                        .text("Factor")
                        .child(factor),
                )
                .child(form_field("Levels", "sweep-levels", &f.levels, None))
                .child(form_field("Sessions per level", "sweep-per-level", &f.per_level, None))
                .child(form_field("Seed", "sweep-seed", &f.seed, None)),
        )
        .child(el_text("p", hint).class("muted").id("sweep-hint"))
        .child(
            el("div").class("sub").child(form_field(
                "Factors held fixed (name=value, joined by commas; the others are drawn per session and paired across levels)",
                "sweep-hold",
                &f.hold,
                None,
            )),
        )
        .child(el("p").class("muted").id("sweep-model").text(format!(
            "Every level runs with {model}, as set in Setup (concurrency, timeout, retries and preflight too)."
        )))
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
                )
                .child(button("Setup", "nav", "setup")),
        )
}

fn level_rows(state: &AppState, sweep: &SweepRun) -> Element {
    let rows = sweep.levels.iter().enumerate().map(|(i, level)| {
        let run = sweep.runs.get(i);
        let live = run
            .and_then(|r| r.run.as_ref())
            .and_then(|id| state.run.as_ref().filter(|r| &r.id == id));
        let status = match (&sweep.phase, run.and_then(|r| r.outcome.as_ref())) {
            (_, Some(outcome)) => format!(
                "{outcome}{}",
                run.and_then(|r| r.accuracy.as_ref())
                    .map(|a| format!(" · task accuracy {a}"))
                    .unwrap_or_default()
            ),
            (SweepPhase::Generating(j), None) if *j == i => "generating the suite…".into(),
            (SweepPhase::Running(j), None) if *j == i => match live {
                Some(r) if r.phase == Phase::Finishing => "scoring…".into(),
                Some(r) => format!(
                    "running: {} of {} tasks",
                    r.progress.done + r.progress.incomplete,
                    r.progress.total
                ),
                None => "running…".into(),
            },
            _ => "waiting".into(),
        };
        let mut li = el("li")
            .key(level.dir.clone())
            .id(format!("sweep-{}", level.dir))
            .child(
                el_text("span", format!("{} = {}", sweep.factor, level.value)).class("level-name"),
            )
            .child(el_text("span", format!(" — {status}")));
        if let Some(fp) = run
            .map(|r| r.fingerprint.as_str())
            .filter(|f| !f.is_empty())
        {
            li = li.child(el_text("span", format!(" · dataset {fp}")).class("muted"));
        }
        if let Some(id) = run
            .and_then(|r| r.run.as_ref())
            .filter(|_| run.is_some_and(|r| r.outcome.is_some()))
        {
            li = li.child(button("Open", "history-open", id).attr(
                "aria-label",
                format!("Open the run of {} = {}", sweep.factor, level.value),
            ));
        }
        li
    });
    el("ol")
        .id("sweep-levels-progress")
        .class("sweep-levels")
        .children(rows)
}

fn progress(state: &AppState, sweep: &SweepRun) -> Element {
    let mut panel = el("section")
        .class("panel")
        .id("sweep-progress")
        .attr("aria-labelledby", "sweep-progress-title")
        .child(
            el_text(
                "h2",
                format!(
                    "Sweep of {}",
                    if sweep.factor.is_empty() {
                        "…"
                    } else {
                        &sweep.factor
                    }
                ),
            )
            .id("sweep-progress-title"),
        )
        .child(
            el_text(
                "p",
                format!(
                    "{} · suite {} · model {}",
                    sweep.form.factor_levels,
                    if sweep.suite.is_empty() {
                        "(being checked)"
                    } else {
                        &sweep.suite
                    },
                    sweep.model
                ),
            )
            .class("muted"),
        );
    match &sweep.phase {
        SweepPhase::Failed(why) => {
            panel = panel.child(note(
                "sweep-error",
                &format!("The sweep could not run: {why}"),
                Tone::Error,
            ));
        }
        SweepPhase::Stopped(why) => {
            panel = panel.child(note(
                "sweep-error",
                &format!("The sweep stopped early: {why}. The levels that ran are analysed below."),
                Tone::Warn,
            ));
        }
        _ => {}
    }
    panel = panel.child(level_rows(state, sweep));
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
    } else if sweep.phase == SweepPhase::Analysing {
        panel = panel.child(note("sweep-analysing", "Analysing the levels…", Tone::Info));
    }
    panel
}

/// The Sweep view.
pub fn view(state: &AppState) -> Element {
    let mut out = el("div")
        .child(
            el("div")
                .class("panel")
                .child(heading("h1", "sweep-title", "Sweep a factor"))
                .child(el_text(
                    "p",
                    "One generated suite per level of a factor, with every other factor held fixed and the sessions paired across levels (session i of every level has the same domain, date, distractors and topology draws). Each level runs with the Setup model and is kept in the History; then accuracy against the level, with 95% intervals, and a test for trend over the paired sessions — the same numbers as wildtool sweep.",
                ).class("muted")),
        )
        .child(form(state));
    if let Some(sweep) = &state.gen.sweep {
        out = out.child(progress(state, sweep));
    }
    out
}
