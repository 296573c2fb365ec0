//! Run: pause, cancel, progress (tasks, ETA, tokens, requests, retries, waits, the
//! concurrency in force), the last failure while it happens, a failed run's reason, and
//! the results so far.

use crate::run::Phase;
use crate::state::AppState;
use crate::ui::{el, el_text, Element};
use wildtool_contract::Action;

use crate::dashboard::headline::headline;
use crate::widgets::{button, duration, heading};

fn stat(name: &str, value: String) -> [Element; 2] {
    [el_text("dt", name), el_text("dd", value)]
}

/// The concurrency in force: the engine's limit (lowered by rate limiting, with the
/// lowest so far), requests in flight, and the browser's cap when it is lower.
fn concurrency(run: &crate::run::LiveRun) -> String {
    let p = &run.progress;
    let in_flight = match run.browser_cap() {
        Some(cap) => format!(
            "{} in flight: the browser's per-host limit is {cap} ({} connections per host name over HTTP/1.1{})",
            p.in_flight.min(cap),
            crate::run::hosts::PER_HOST_CONNECTIONS,
            match run.hosts.as_ref().map(|h| h.names().len()).unwrap_or(1) {
                1 => String::new(),
                n => format!(", {n} names of the server"),
            }
        ),
        None => format!("{} in flight", p.in_flight),
    };
    let spread = run
        .hosts
        .as_ref()
        .map(|h| h.names())
        .filter(|n| n.len() > 1 && run.browser_cap().is_none())
        .map(|n| {
            format!(
                ", spread over {} host names of the server ({})",
                n.len(),
                n.join(", ")
            )
        })
        .unwrap_or_default();
    let limit = if p.concurrency_limit < p.concurrency_max {
        format!(
            "{} of {} after rate limiting",
            p.concurrency_limit, p.concurrency_max
        )
    } else {
        p.concurrency_limit.to_string()
    };
    let lowest = if run.min_limit < p.concurrency_max {
        format!(", lowest {}", run.min_limit)
    } else {
        String::new()
    };
    format!("{limit} ({in_flight}{spread}{lowest})")
}

/// The run view.
pub fn view(state: &AppState) -> Element {
    let mut section = el("section")
        .id("view-run")
        .class("view")
        .attr("aria-labelledby", "run-title");
    let Some(run) = &state.run else {
        return section
            .child(crate::widgets::heading("h1", "run-title", "Run"))
            .child(
                el_text("p", "No run yet: choose a model in Setup and start one.").class("muted"),
            );
    };
    let p = &run.progress;
    let settled = p.done + p.incomplete;
    let sessions = state.dataset.map(|d| d.dataset.sessions.len()).unwrap_or(0);
    let mut panel = el("div").class("panel").child(
        el("div")
            .class("section-head")
            .child(heading("h1", "run-title", "Run"))
            .child(
                el("p")
                    .id("run-label")
                    .class("muted")
                    .text(if run.model == run.provider {
                        // A built-in agent: its name once ("gold", not "gold (gold)").
                        format!("the built-in {} agent on {sessions} sessions", run.model)
                    } else {
                        format!("{} ({}) on {sessions} sessions", run.model, run.provider)
                    }),
            ),
    );
    if let Some(end) = run
        .end
        .as_ref()
        .filter(|e| e.outcome == "failed" && run.phase == Phase::Ended)
    {
        panel = panel.child(
            el("div")
                .class("failure")
                .attr("role", "alert")
                .child(heading("h2", "run-failure", "The run failed"))
                .child(el("p").id("run-error").class("error-text").text(end.reason.clone().unwrap_or_default()))
                .child_opt(end.fix.as_ref().map(|f| el_text("p", format!("How to fix it: {f}")).class("fix")))
                .child(el_text("p", "There is no accuracy and no share link for this run. Check the endpoint settings in Setup (the help there explains CORS) and start again.").class("muted"))
                .child(button("Back to Setup", Action::Nav.name(), "setup").class("primary")),
        );
        // A failed run has nothing to pause, cancel or count.
        return section.child(panel);
    }
    let active = run.active();
    panel = panel.child(
        el("div")
            .class("row")
            .child(
                button(
                    if run.phase == Phase::Paused {
                        "Resume"
                    } else {
                        "Pause"
                    },
                    Action::Pause.name(),
                    "",
                )
                .id("pause-run")
                .flag("disabled", !active),
            )
            .child(
                button("Cancel", Action::Cancel.name(), "")
                    .id("cancel-run")
                    .flag("disabled", !active),
            ),
    );
    let total = p.total.max(1);
    panel = panel
        .child(
            el("label")
                .attr("for", "run-bar")
                .class("visually-hidden")
                .text("Run progress"),
        )
        .child(
            el("progress")
                .id("run-bar")
                .attr("max", total.to_string())
                .attr("value", settled.min(total).to_string()),
        );
    let eta = if run.phase == Phase::Running {
        duration(p.eta)
    } else {
        "—".into()
    };
    let waits = if p.waiting > 0 {
        format!("{} (longest {})", p.waiting, duration(p.longest_wait))
    } else {
        "0".into()
    };
    let mut dl = el("dl").id("run-stats").class("stats");
    for pair in [
        stat(
            "Tasks",
            format!(
                "{settled} / {}{}",
                p.total,
                if p.resumed > 0 {
                    format!(" (+{} resumed)", p.resumed)
                } else {
                    String::new()
                }
            ),
        ),
        stat("ETA", eta),
        stat("Elapsed", duration(Some(p.elapsed))),
        stat(
            "Tokens (in + out)",
            format!("{} + {}", p.input_tokens, p.output_tokens),
        ),
        stat("Requests", p.requests.to_string()),
        stat("Retries", p.retries.to_string()),
        stat("Waiting to retry", waits),
        stat("Concurrency", concurrency(run)),
        stat("Incomplete", p.incomplete.to_string()),
        stat(
            "State",
            match (&run.end, run.phase) {
                (Some(e), Phase::Ended) => e.outcome.clone(),
                _ if p.preflight => "checking the endpoint".to_owned(),
                _ => run.phase.run_state().to_owned(),
            },
        ),
    ] {
        dl = dl.children(pair);
    }
    if run.streamed() {
        let first = match &p.first_token {
            Some(t) => format!(
                "{:.2} s median, p90 {:.2} s ({} streamed requests)",
                t.median, t.p90, t.count
            ),
            None => "—".to_owned(),
        };
        dl = dl.children(stat("First token", first));
    }
    panel = panel.child(dl);
    if run.phase != Phase::Ended {
        if let Some(err) = &run.last_error {
            panel = panel.child(
                el("p")
                    .id("run-error")
                    .class("error-text")
                    .text(format!("Last failure: {err}")),
            );
        }
    }
    section = section.child(panel);
    if run.end.as_ref().is_some_and(|e| e.outcome == "failed") {
        return section;
    }
    let live = el("div")
        .class("panel")
        .child(el_text("h2", "Results so far"));
    let live = match &run.sofar {
        Some(s) => live.child(headline("run-live", s)),
        None => live.child(
            el("p")
                .id("run-live")
                .class("muted")
                .text("Sessions are scored as soon as all their tasks finish; the first results appear here then."),
        ),
    };
    section.child(live)
}
