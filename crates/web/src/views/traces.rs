//! Traces: session → task → step, with filters. Rows are shown 50 at a time; a task's
//! steps are read from its score line only when it is opened.

use wildtool_core::outcome::{RawErrorLabel, TaskType, TurnSubtype};

use crate::state::AppState;
use crate::traces::{subtype_name, task_trace, TaskTrace, TraceMessage, TraceStep};
use crate::ui::{el, el_text, Element};

use super::widgets::{button, heading};

fn select(id: &str, label: &str, filter: &str, current: &str, options: Vec<String>) -> Element {
    el("label").attr("for", id).text(format!("{label} ")).child(
        el("select")
            .id(id)
            .action("trace-filter", filter)
            .attr("value", current)
            .child(el("option").attr("value", "").text("all"))
            .children(
                options
                    .into_iter()
                    .map(|o| el("option").attr("value", o.clone()).text(o)),
            ),
    )
}

fn message(m: &TraceMessage) -> Element {
    let role: String = m.role.chars().filter(|c| c.is_ascii_lowercase()).collect();
    el("div")
        .class(format!("msg role-{role}"))
        .child(el_text("span", m.role.clone()).class("msg-role"))
        .child_opt((!m.text.is_empty()).then(|| el_text("pre", m.text.clone()).class("msg-text")))
        .children(
            m.calls
                .iter()
                .map(|c| el_text("pre", c.clone()).class("msg-call")),
        )
}

fn step(key: &str, k: usize, s: &TraceStep, open: bool) -> Element {
    let verdict = if s.correct { "correct" } else { "error" };
    let mut d = el("details")
        .class(format!("step verdict-{verdict}"))
        .action("trace-step", format!("{key}:{k}"))
        .flag("open", open)
        .key(format!("{key}:{k}"))
        .child(el_text(
            "summary",
            format!(
                "Step {} · names {} · arguments {}",
                k + 1,
                if s.names.is_empty() { "—" } else { &s.names },
                if s.arguments.is_empty() {
                    "—"
                } else {
                    &s.arguments
                }
            ),
        ));
    if open {
        d = d
            .child(
                el_text(
                    "p",
                    format!(
                        "Verdict: {verdict}{}",
                        if s.reasons.is_empty() {
                            String::new()
                        } else {
                            format!(" — {}", s.reasons.join(" · "))
                        }
                    ),
                )
                .class(format!("verdict {verdict}")),
            )
            .child(
                el("div")
                    .class("sub")
                    .child(el_text("h3", "Model output"))
                    .child(message(&s.output))
                    .child_opt(
                        s.reasoning
                            .as_ref()
                            .map(|r| el_text("pre", r.clone()).class("msg-text muted")),
                    ),
            )
            .child(
                el("div")
                    .class("sub")
                    .child(el_text("h3", "Gold candidates accepted at this step"))
                    .children(
                        s.gold
                            .iter()
                            .map(|g| el_text("pre", g.clone()).class("msg-call")),
                    ),
            )
            .child(
                el("details")
                    .class("sub")
                    .child(el_text(
                        "summary",
                        format!("Messages the model saw ({})", s.seen.len()),
                    ))
                    .children(s.seen.iter().map(message)),
            );
    }
    d
}

fn task_detail(state: &AppState, session: u32, position: u8, incomplete: bool) -> Element {
    let key = format!("{session}:{position}");
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
                if incomplete {
                    "Unscored: no result for this task (its session did not finish)."
                } else {
                    "No trace is available for this run (share links carry outcomes only)."
                },
            )
            .class("muted"),
        );
    };
    match task_trace(line, position as usize) {
        TaskTrace::SessionError(e) => {
            box_ = box_.child(
                el_text("p", format!("The session's result is an error string: {e}"))
                    .class("verdict error"),
            );
        }
        TaskTrace::Missing => {
            box_ = box_.child(el_text("p", "No trace recorded for this task.").class("muted"));
        }
        TaskTrace::Steps {
            label,
            names,
            optimal,
            steps,
        } => {
            box_ = box_.child(el_text(
                "p",
                format!(
                    "Label {label} · names {names} · optimal {}",
                    if optimal { "yes" } else { "no" }
                ),
            ));
            for (k, s) in steps.iter().enumerate() {
                let open = state.traces.open_steps.contains(&(session, position, k));
                box_ = box_.child(step(&key, k, s, open));
            }
        }
    }
    box_
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
            .child(el_text("p", "Traces come from a run in this page or an uploaded result file (share links carry no traces).").class("muted").id("trace-empty"));
    };
    let t = &state.traces;
    let matching: Vec<_> = shown.outcomes.iter().filter(|o| t.matches(o)).collect();
    let shown_rows = matching.len().min(t.limit);
    let errors: Vec<String> = RawErrorLabel::ALL
        .iter()
        .filter(|l| shown.outcomes.iter().any(|o| o.error == Some(**l)))
        .map(|l| l.as_str().to_owned())
        .collect();
    let filters = el("div")
        .class("panel row filters")
        .child(
            el("label")
                .class("check")
                .child(
                    el("input")
                        .id("f-failed")
                        .attr("type", "checkbox")
                        .flag("checked", t.failed_only)
                        .action("trace-filter", "failed"),
                )
                .text(" Failed only"),
        )
        .child(select(
            "f-type",
            "Type",
            "type",
            &t.task_type,
            TaskType::ALL
                .iter()
                .map(|x| x.as_str().to_owned())
                .collect(),
        ))
        .child(select(
            "f-subtype",
            "Subtype",
            "subtype",
            &t.subtype,
            std::iter::once("First turn".to_owned())
                .chain(TurnSubtype::ALL.iter().map(|x| x.as_str().to_owned()))
                .collect(),
        ))
        .child(select("f-error", "Error class", "error", &t.error, errors));
    let rows = matching.iter().take(t.limit).map(|o| {
        let key = format!("{}:{}", o.session, o.position);
        let open = t.open_tasks.contains(&(o.session, o.position));
        let id = state
            .dataset
            .and_then(|d| d.session(o.session as usize))
            .map(|s| s.id.clone())
            .unwrap_or_else(|| format!("session {}", o.session + 1));
        let verdict = if o.incomplete {
            "unscored"
        } else if o.correct {
            "correct"
        } else {
            "failed"
        };
        let mut d = el("details")
            .action("trace-task", key.clone())
            .flag("open", open)
            .child(el_text(
                "summary",
                format!(
                    "{id} · task {} · {} / {} · {verdict}{}",
                    o.position + 1,
                    o.task_type.as_str(),
                    subtype_name(o),
                    o.error
                        .map(|e| format!(" · {}", e.as_str()))
                        .unwrap_or_default()
                ),
            ));
        if open {
            d = d.child(task_detail(state, o.session, o.position, o.incomplete));
        }
        el("li")
            .key(key)
            .class(format!("trace {}", if o.correct { "ok" } else { "bad" }))
            .child(d)
    });
    section
        .child(
            el("div")
                .class("section-head")
                .child(heading("h1", "traces-title", "Traces"))
                .child(el("p").id("trace-count").class("muted").text(format!(
                    "{} of {} tasks match; showing {shown_rows} · {}",
                    matching.len(),
                    shown.outcomes.len(),
                    shown.label
                ))),
        )
        .child(filters)
        .child_opt(shown.scored.is_none().then(|| {
            el_text("p", "This run has outcomes only (opened from a link, or its files are not stored): tasks can be listed but not opened down to the steps.").class("muted").id("trace-empty")
        }))
        .child(el("ol").id("trace-list").class("trace-list").children(rows))
        .child_opt((shown_rows < matching.len()).then(|| button("Show more", "trace-more", "").id("trace-more")))
}
