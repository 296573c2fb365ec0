//! Views: pure functions from the page state to an element tree. [`frame`] builds the
//! whole page (header, navigation, status, the current view, footer) plus what the
//! runtime applies beside the tree: the title, the element to focus and the automation
//! hooks on `document.body.dataset`.
//!
//! A view is a feature's `view.rs` (`crate::setup::view`, …) with one
//! `pub fn view(&AppState) -> Element`, a variant of [`View`] and a line in [`view_for`].

use crate::route::{Route, View};
use crate::state::AppState;
use crate::ui::{el, el_text, Element, Node};
use crate::widgets::button;
use wildtool_contract::Action;

/// What the runtime renders.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// The page.
    pub root: Node,
    /// Document title.
    pub title: String,
    /// Id of the element to focus, once.
    pub focus: Option<String>,
    /// `document.body.dataset` entries (camelCase names).
    pub hooks: Hooks,
}

/// Automation hooks in order: `(name, value)`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Hooks(pub Vec<(&'static str, String)>);

impl Hooks {
    /// Sets hook `name`.
    pub fn insert(&mut self, name: &'static str, value: String) {
        self.0.retain(|(n, _)| *n != name);
        self.0.push((name, value));
    }

    /// The value of hook `name`.
    pub fn get(&self, name: &str) -> Option<&String> {
        self.0.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }
}

impl Frame {
    /// JSON for the runtime: `{"root": node, "title": …, "focus": id or null, "hooks":
    /// {name: value}}`. Raw subtrees (views rendered by the lab module) are spliced in
    /// as they are.
    pub fn to_json(&self) -> String {
        use crate::ui::push_json_string;
        let mut out = String::with_capacity(16 * 1024);
        out.push_str("{\"root\":");
        self.root.write_json(&mut out);
        out.push_str(",\"title\":");
        push_json_string(&mut out, &self.title);
        out.push_str(",\"focus\":");
        match &self.focus {
            Some(f) => push_json_string(&mut out, f),
            None => out.push_str("null"),
        }
        out.push_str(",\"hooks\":{");
        for (i, (k, v)) in self.hooks.0.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            push_json_string(&mut out, k);
            out.push(':');
            push_json_string(&mut out, v);
        }
        out.push_str("}}");
        out
    }
}

/// The element of the current view.
pub fn view_for(state: &AppState) -> Element {
    match state.route.view {
        View::Setup => crate::setup::view::view(
            state,
            crate::budget::view::setup_panel(state),
            crate::env::view::setup_block(state),
        ),
        View::Run => crate::run::view::view(state),
        // An env run's dashboard and traces are the ledger environment's own.
        View::Dashboard => crate::env::view::dashboard(state).unwrap_or_else(|| {
            crate::dashboard::view::view(
                state,
                crate::budget::view::cost_section(
                    state,
                    "dash-cost",
                    crate::msg::LabPurpose::DashCost,
                ),
            )
        }),
        View::Traces => {
            crate::env::view::traces(state).unwrap_or_else(|| crate::traces::view::view(state))
        }
        View::Upload => el("div")
            .child(crate::upload::view::view(state))
            .child(crate::verify::view::panel(state)),
        View::History => crate::history::view::view(state),
        View::Compare => crate::compare::view::view(
            state,
            (state.compare_wait().is_none() && state.lab.compare_link.is_none()).then(|| {
                crate::budget::view::cost_section(
                    state,
                    "compare-cost",
                    crate::msg::LabPurpose::CompareCost,
                )
            }),
        ),
        View::Generate => crate::generate::view::view(state),
        View::Sweep => crate::generate::sweep::view(state),
    }
}

fn nav(state: &AppState) -> Element {
    el("nav")
        .class("tabs")
        .attr("aria-label", "Views")
        .children(View::ALL.iter().map(|v| {
            let mut r = Route::view(*v);
            if matches!(v, View::Dashboard | View::Traces) {
                r.run = state.shown.as_ref().map(|s| s.id.clone());
            }
            el("a")
                .attr("href", r.to_query(&state.keep_query))
                .attr("data-view", v.slug())
                .action(Action::Nav.name(), v.slug())
                .attr_opt("aria-current", (state.route.view == *v).then_some("page"))
                .text(v.title())
        }))
}

fn resume_offer(state: &AppState) -> Option<Element> {
    if state.flags.resume != Some("offered") {
        return None;
    }
    let e = state.resume_candidate()?;
    let remote = e.provider.is_some() && !e.is_builtin();
    Some(
        el("section")
            .id("resume-offer")
            .class("panel offer")
            .attr("aria-labelledby", "resume-title")
            .child(el_text("h2", "Unfinished run found").id("resume-title"))
            .child(
                el("p")
                    .id("resume-text")
                    .text(format!(
                        "{} on {}: {} of {} tasks saved (interrupted).",
                        e.label, e.dataset_name, e.tasks_saved, e.tasks_total
                    ))
                    .text(if remote {
                        " If the endpoint needs an API key, type it in Setup before resuming (keys are never stored with a run)."
                    } else {
                        ""
                    }),
            )
            .child(
                el("div")
                    .class("row")
                    .child(button("Resume", Action::Resume.name(), &e.id).id("resume-run").class("primary"))
                    .child(button("Discard", Action::Discard.name(), &e.id).id("discard-run")),
            ),
    )
}

fn hooks(state: &AppState) -> Hooks {
    let mut h = Hooks::default();
    h.insert("view", state.route.view.slug().to_owned());
    if let Some(d) = state.dataset {
        h.insert("dataset", d.fingerprint.clone());
    }
    let dataset_state = match &state.flags.dataset_error {
        _ if state.pending_dataset.is_some() => "loading",
        Some(e) => {
            h.insert("datasetError", e.clone());
            "error"
        }
        None if state.dataset.is_some() => "ready",
        None => "loading",
    };
    h.insert("datasetState", dataset_state.to_owned());
    match &state.run {
        Some(run) => {
            h.insert("runState", run.phase.run_state().to_owned());
            h.insert(
                "tasksSaved",
                run.records.len().saturating_sub(1).to_string(),
            );
            if let Some(end) = run
                .end
                .as_ref()
                .filter(|_| run.phase == crate::run::Phase::Ended)
            {
                h.insert("runOutcome", end.outcome.clone());
                if end.outcome == "failed" || end.reason.is_some() {
                    h.insert("runError", end.reason.clone().unwrap_or_default());
                }
            }
        }
        None => {
            h.insert("runState", "idle".to_owned());
        }
    }
    if let Some(p) = &state.probe {
        h.insert("probeState", p.state().to_owned());
    }
    if let Some(s) = &state.shown {
        h.insert("headline", s.headline_json());
        h.insert("dashboard", "ready".to_owned());
    }
    if let Some((ms, n)) = state.env_step_cost() {
        h.insert(
            "envStepMs",
            format!("{ms:.3} ms per step call over {n} calls"),
        );
    }
    if let Some(v) = state.env_headline() {
        h.insert("envHeadline", v.to_owned());
        h.insert("dashboard", "ready".to_owned());
        h.insert("leaderboard", "hidden".to_owned());
        h.insert(
            "envView",
            match &state.env.view {
                Some(Ok(_)) => "ready",
                Some(Err(_)) => "error",
                None => "busy",
            }
            .to_owned(),
        );
    }
    if let Some(v) = state.flags.score_state {
        h.insert("scoreState", v.to_owned());
    }
    if let Some(v) = &state.flags.score_error {
        h.insert("scoreError", v.clone());
    }
    if let Some(v) = state.upload.state.name() {
        h.insert("offline", v.to_owned());
        h.insert("offlineFinished", state.upload.finished.to_string());
    }
    if let Some(v) = state.flags.share {
        h.insert("share", v.to_owned());
    }
    if let Some(v) = state.flags.resume {
        h.insert("resume", v.to_owned());
    }
    if state.flags.dictionary {
        h.insert("dictionary", "loaded".to_owned());
    }
    if state.route.view == View::Dashboard && state.shown_trials().is_some() {
        use crate::msg::LabPurpose;
        let id = state.shown.as_ref().map(|s| s.id.as_str());
        let v = match state.lab.answer(LabPurpose::Trials) {
            _ if state.lab.busy(LabPurpose::Trials) || state.lab.trials_panel_of() != id => "busy",
            Some(Ok(_)) => "ready",
            Some(Err(_)) => "error",
            None => "busy",
        };
        h.insert("trials", v.to_owned());
    }
    if state.route.view == View::Dashboard && state.shown.is_some() {
        use crate::msg::LabPurpose;
        let v = if !state.overlay().is_some_and(|o| o.shown) {
            "hidden"
        } else if state.lab.busy(LabPurpose::Leaderboard) {
            "busy"
        } else {
            match state.lab.answer(LabPurpose::Leaderboard) {
                Some(Ok(_)) => "shown",
                Some(Err(_)) => "error",
                None => "busy",
            }
        };
        h.insert("leaderboard", v.to_owned());
    }
    if state.route.view == View::Compare {
        use crate::msg::LabPurpose;
        let v = if state.lab.busy(LabPurpose::Compare) {
            "busy"
        } else {
            match state.lab.answer(LabPurpose::Compare) {
                _ if state.compare_wait().is_some() => "waiting",
                Some(Ok(_)) => "ready",
                Some(Err(_)) => "error",
                None => "waiting",
            }
        };
        h.insert("compare", v.to_owned());
    }
    if state.gen.busy {
        h.insert("generate", "busy".to_owned());
    } else if state.gen.error.is_some() {
        h.insert("generate", "error".to_owned());
    } else if state.gen.suite.is_some() {
        h.insert("generate", "done".to_owned());
    }
    if let Some(s) = &state.gen.sweep {
        let busy = s.phase == crate::generate::SweepPhase::Analysing
            || (matches!(s.phase, crate::generate::SweepPhase::Stopped(_)) && s.result.is_none());
        h.insert(
            "sweep",
            if busy { "analysing" } else { s.phase.hook() }.to_owned(),
        );
    }
    // `busy` while the lab module owes an answer (a view it draws may still change),
    // `idle` once every call was answered.
    if state.lab.any_busy() {
        h.insert("lab", "busy".to_owned());
    } else if state.lab.loaded {
        h.insert("lab", "idle".to_owned());
    }
    if state.history.loaded {
        h.insert("history", state.history.entries.len().to_string());
    }
    if state.render_ms > 0.0 {
        h.insert("renderMs", format!("{:.1}", state.render_ms));
    }
    h
}

/// The whole page.
pub fn frame(state: &AppState) -> Frame {
    // "Ready: … start a run" speaks of Setup: elsewhere, or beside an unfinished run's
    // offer, it steps aside.
    let setup_note = |s: &crate::state::Status| {
        s.is_readiness()
            && (state.route.view != View::Setup || state.flags.resume == Some("offered"))
    };
    let status = match state.status.as_ref().filter(|s| !setup_note(s)) {
        Some(s) => el("p")
            .id("status")
            .class("status")
            .attr("role", "status")
            .attr("aria-live", "polite")
            .attr("data-kind", s.tone.name())
            .attr("tabindex", "-1")
            .text(s.text.clone()),
        None => el("p")
            .id("status")
            .class("status")
            .attr("role", "status")
            .attr("aria-live", "polite")
            .attr("data-kind", "info")
            .flag("hidden", true),
    };
    let root = el("div")
        .class("page")
        .child(
            el("a")
                .class("skip")
                .attr("href", "#main")
                .text("Skip to the content"),
        )
        .child(
            el("header")
                .class("top")
                .child(
                    el("div")
                        .child(el_text("p", "wildtool").class("brand"))
                        .child(el_text(
                            "p",
                            "Evaluate LLM tool use on WildToolBench, in your browser. No server; keys never leave this page except to the endpoint you choose.",
                        ).class("tagline")),
                )
                .child(nav(state)),
        )
        .child(
            el("main")
                .id("main")
                .child(status)
                .child_opt(resume_offer(state))
                .child(view_for(state).key(state.route.view.slug())),
        )
        .child(
            el("footer").class("foot").child(el_text(
                "span",
                format!(
                    "wildtool {} · scorer {} · WebAssembly core",
                    env!("CARGO_PKG_VERSION"),
                    wildtool_core::SCORER_VERSION
                ),
            )),
        );
    Frame {
        root: root.into(),
        title: format!("wildtool — {}", state.route.view.title()),
        focus: state.focus.clone(),
        hooks: hooks(state),
    }
}
