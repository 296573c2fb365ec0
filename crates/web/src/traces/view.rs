//! Traces: session → task → step, with search, filters (the error class by the taxonomy
//! chart's column titles), sorting, per-task tokens and latency. Rows are shown 50 at a
//! time; a task's steps are read from its score line only when it is opened, and an
//! opened step (each of the model's calls beside the closest gold candidate, with the
//! differences marked) is rendered by the lab module. Sessions, tasks and steps are
//! numbered from 1.
//!
//! (Loops rather than iterator adapters build the lists here: each adapter chain is its
//! own code in the app shell.)

use wildtool_contract::Action;
use wildtool_core::outcome::{ErrorColumn, TaskOutcome, TaskType, TurnSubtype};
use wildtool_core::trace::{task_trace, StepHead, TaskTrace};

use crate::dashboard::ShownRun;
use crate::msg::LabPurpose;
use crate::state::AppState;
use crate::traces::{
    error_class, run_digests, session_id, step_anchor, subtype_name, task_anchor, verdict, Sort,
};
use crate::ui::{el, el_text, Element, Node};

use crate::widgets::{button, heading};

/// A filter menu: `options` are `(value, label)`, an empty value first meaning "all".
fn select(id: &str, label: &str, filter: &str, current: &str, options: &[(&str, &str)]) -> Element {
    let mut s = el("select")
        .id(id)
        .action(Action::TraceFilter.name(), filter)
        .attr("value", current);
    for (value, text) in options {
        s = s.child(el("option").attr("value", *value).text(*text));
    }
    el("label")
        .attr("for", id)
        .text(format!("{label} "))
        .child(s)
}

pub use wildtool_core::chart::thousands;

fn step(
    state: &AppState,
    session: u32,
    position: u8,
    k: usize,
    s: &StepHead,
    open: bool,
) -> Element {
    let v = if s.correct { "correct" } else { "error" };
    let dash = |x: &str| {
        if x.is_empty() {
            "—".to_owned()
        } else {
            x.to_owned()
        }
    };
    let key = format!("{session}:{position}:{k}");
    let d = el("details")
        .class(format!("step verdict-{v}"))
        .action(Action::TraceStep.name(), key.clone())
        .flag("open", open)
        .key(key)
        .child(
            el_text(
                "summary",
                format!(
                    "Step {} · names {} · arguments {}",
                    k + 1,
                    dash(&s.names),
                    dash(&s.arguments)
                ),
            )
            .id(step_anchor(session, position, k)),
        );
    if !open {
        return d;
    }
    // The step's content (differences from the closest gold candidate …) is rendered by
    // the lab module.
    let purpose = LabPurpose::TraceStep(session, position, k as u16);
    d.child(match state.lab.answer(purpose) {
        _ if state.lab.busy(purpose) => el_text("p", "Reading the step…").class("muted"),
        Some(Ok(json)) => el("div").child(Node::Raw(json.clone())),
        Some(Err(e)) => el_text("p", e.clone()).class("verdict error"),
        None => el_text("p", "Reading the step…").class("muted"),
    })
}

fn task_detail(state: &AppState, o: &TaskOutcome) -> Element {
    let (session, position) = (o.session, o.position);
    let user = state
        .dataset
        .and_then(|d| d.session(session as usize))
        .and_then(|s| s.tasks.get(position as usize))
        .map(|t| t.user_message.clone())
        .unwrap_or_default();
    let mut box_ = el("div")
        .class("task-detail")
        .child(el_text("p", format!("User: {user}")).class("user-msg"));
    let line = state
        .shown
        .as_ref()
        .and_then(|s| s.scored.as_ref())
        .and_then(|sc| sc.line_of(session as usize));
    let Some(line) = line else {
        return box_.child(
            el_text(
                "p",
                if o.incomplete {
                    "Unscored: no result for this task (its session did not finish)."
                } else {
                    "No trace is available for this run (share links carry outcomes only)."
                },
            )
            .class("muted"),
        );
    };
    match task_trace(line, position as usize) {
        TaskTrace::SessionError(e) => box_.child(
            el_text("p", format!("The session's result is an error string: {e}"))
                .class("verdict error"),
        ),
        TaskTrace::Missing => {
            box_.child(el_text("p", "No trace recorded for this task.").class("muted"))
        }
        TaskTrace::Steps {
            label,
            names,
            optimal,
            steps,
        } => {
            let raw = match o.error {
                Some(e) => format!(" · error class in the official files: {}", e.as_str()),
                None => String::new(),
            };
            box_ = box_.child(el_text(
                "p",
                format!(
                    "Official verdict: {label} · tool names: {names} · shortest path: {}{raw}",
                    if optimal { "yes" } else { "no" }
                ),
            ));
            for (k, s) in steps.iter().enumerate() {
                let open = state.traces.open_steps.contains(&(session, position, k));
                box_ = box_.child(step(state, session, position, k, s, open));
            }
            box_
        }
    }
}

fn row(state: &AppState, shown: &ShownRun, o: &TaskOutcome) -> Element {
    let open = state.traces.open_tasks.contains(&(o.session, o.position));
    let id = session_id(state.dataset, o.session);
    let v = verdict(o);
    let mut summary = el("summary")
        .id(task_anchor(o.session, o.position))
        .text(format!(
            "Session {} (id {}) · Task {} · {} / {} · ",
            o.session + 1,
            if id.is_empty() { "—" } else { &id },
            o.position + 1,
            o.task_type.as_str(),
            subtype_name(o),
        ))
        .child(el_text("strong", v).class(format!("badge v-{v}")));
    if let Some(c) = error_class(o) {
        summary = summary.text(format!(" · {}", c.as_str()));
    }
    // Tokens and latency as recorded (built-in agents record none).
    if let Some(d) = run_digests(shown).and_then(|d| d.get(o.session, o.position)) {
        let u = d.usage;
        let mut text = String::new();
        if u.tokens() > 0 {
            text = format!(" · {} tokens", thousands(u.tokens()));
        }
        if u.latency > 0.0 {
            text.push_str(&format!(" · {:.1} s", u.latency));
        }
        if !text.is_empty() {
            summary = summary.child(el_text("span", text).class("usage"));
        }
    }
    let mut d = el("details")
        .action(
            Action::TraceTask.name(),
            format!("{}:{}", o.session, o.position),
        )
        .flag("open", open)
        .child(summary);
    if open {
        d = d.child(task_detail(state, o));
    }
    el("li")
        .key(format!("{}:{}", o.session, o.position))
        .class(format!("trace {}", if o.correct { "ok" } else { "bad" }))
        .child(d)
}

/// Both runs' traces of the task the address names side by side (its `vs=`), rendered
/// by the lab module; `data-pair` is `ready` once both columns are drawn with what they
/// will show (no column still reading its trace).
fn pair_panel(state: &AppState) -> Option<Element> {
    let r = &state.route;
    let (Some(run), Some(_), Some(s), Some(t)) = (&r.run, &r.vs, r.session, r.task) else {
        return None;
    };
    let p = LabPurpose::TracePair;
    let (ready, body) = match state.lab.answer(p) {
        Some(Ok(json)) => (
            !state.lab.busy(p) && !state.vs.as_ref().is_some_and(|v| v.reading),
            el("div").child(Node::Raw(json.clone())),
        ),
        Some(Err(e)) => (true, el_text("p", e.clone()).class("verdict error")),
        None => (false, el_text("p", "Reading both traces…").class("muted")),
    };
    let single = crate::route::Route {
        vs: None,
        step: None,
        ..r.clone()
    }
    .to_query(&state.keep_query);
    Some(
        el("section")
            .id("trace-pair")
            .class("panel trace-pair")
            .attr("aria-labelledby", "trace-pair-title")
            .attr("data-pair", if ready { "ready" } else { "busy" })
            .child(heading(
                "h2",
                "trace-pair-title",
                &format!("Session {} · Task {} side by side", s + 1, t + 1),
            ))
            .child(
                el("p").child(
                    el("a")
                        .attr("href", single.clone())
                        .action(Action::Go.name(), single)
                        .text(format!(
                            "Only {}'s traces",
                            state.history.get(run).map_or(run.as_str(), |e| &e.label)
                        )),
                ),
            )
            .child(body),
    )
}

/// The traces view.
pub fn view(state: &AppState) -> Element {
    let section = el("section")
        .id("view-traces")
        .class("view")
        .attr("aria-labelledby", "traces-title");
    let Some(shown) = &state.shown else {
        return section
            .child(heading("h1", "traces-title", "Traces"))
            .child_opt(pair_panel(state))
            .child(el_text("p", "Traces come from a run in this page or an uploaded result file (share links carry no traces).").class("muted").id("trace-empty"));
    };
    let t = &state.traces;
    let d = state.dataset;
    let matching = t.rows(&shown.outcomes, run_digests(shown), |i| session_id(d, i));
    let shown_rows = matching.len().min(t.limit);
    let mut types = vec![("", "all")];
    types.extend(TaskType::ALL.iter().map(|x| (x.as_str(), x.as_str())));
    let mut subtypes = vec![("", "all"), ("First turn", "First turn")];
    subtypes.extend(TurnSubtype::ALL.iter().map(|x| (x.as_str(), x.as_str())));
    let mut classes = vec![("", "all")];
    classes.extend(ErrorColumn::ALL.iter().map(|x| (x.as_str(), x.as_str())));
    let sorts: Vec<(&str, &str)> = Sort::ALL.iter().map(|s| (s.slug(), s.title())).collect();
    let filters = el("div")
        .class("panel filters")
        .child(
            el("div")
                .class("row")
                .child(el("label").attr("for", "f-search").text("Search "))
                .child(
                    el("input")
                        .id("f-search")
                        .attr("type", "search")
                        .attr("value", t.search.clone())
                        .attr("placeholder", "messages, arguments, verdicts")
                        .attr("spellcheck", "false")
                        .attr("autocomplete", "off")
                        .action(Action::TraceFilter.name(), "search"),
                ),
        )
        .child(
            el("div")
                .class("row")
                .child(
                    el("label")
                        .class("check")
                        .child(
                            el("input")
                                .id("f-failed")
                                .attr("type", "checkbox")
                                .flag("checked", t.failed_only)
                                .action(Action::TraceFilter.name(), "failed"),
                        )
                        .text(" Failed only"),
                )
                .child(select("f-type", "Type", "type", &t.task_type, &types))
                .child(select(
                    "f-subtype",
                    "Subtype",
                    "subtype",
                    &t.subtype,
                    &subtypes,
                ))
                .child(select(
                    "f-error",
                    "Error class",
                    "error",
                    &t.error,
                    &classes,
                ))
                .child(select("f-sort", "Sort by", "sort", t.sort.slug(), &sorts)),
        )
        .child(
            el("p")
                .class("muted legend")
                .text("Arguments are marked against the closest gold candidate: ")
                .child(el_text("span", "extra").class("d-extra"))
                .text(" (only the model's), ")
                .child(el_text("span", "missing").class("d-missing"))
                .text(" (only the gold's), ")
                .child(el_text("span", "changed").class("d-changed"))
                .text(" (a different value; the expected one follows)."),
        );
    let mut list = el("ol").id("trace-list").class("trace-list");
    for o in matching.iter().take(t.limit) {
        list = list.child(row(state, shown, o));
    }
    // A task the address names (a deep link) further down is shown after the first rows.
    let (s, k) = (state.route.session, state.route.task);
    let linked = matching
        .iter()
        .enumerate()
        .skip(t.limit)
        .find(|(_, o)| Some(o.session as usize) == s && Some(usize::from(o.position)) == k);
    if let Some((at, o)) = linked {
        list = list
            .child(
                el_text(
                    "li",
                    format!("… the linked task, row {} of {}:", at + 1, matching.len()),
                )
                .class("muted gap")
                .key("gap"),
            )
            .child(row(state, shown, o));
    }
    section
        .child(
            el("div")
                .class("section-head")
                .child(heading("h1", "traces-title", "Traces"))
                .child(el("p").id("trace-count").class("muted").attr("role", "status").text(format!(
                    "{} of {} tasks match; showing {shown_rows} · {}",
                    matching.len(),
                    shown.outcomes.len(),
                    shown.label
                ))),
        )
        .child_opt(pair_panel(state))
        .child(filters)
        .child_opt(run_digests(shown).filter(|d| !d.texts).map(|_| {
            el_text("p", "Reading the logs for search… (until then the search sees sessions, types and classes only)").class("muted").id("trace-reading")
        }))
        .child_opt(shown.scored.is_none().then(|| {
            el_text("p", "This run has outcomes only (opened from a link, or its files are not stored): tasks can be listed but not opened down to the steps.").class("muted").id("trace-empty")
        }))
        .child(list)
        .child_opt((shown_rows < matching.len()).then(|| button("Show more", Action::TraceMore.name(), "").id("trace-more")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
