//! Traces: session → task → step, with search, filters (the error class by the taxonomy
//! chart's column titles), sorting, per-task tokens and latency. Rows are shown 50 at a
//! time; a task's steps are read from its score line only when it is opened, and each of
//! the model's calls is printed beside the closest gold candidate with the differences
//! marked. Sessions, tasks, steps and candidates are numbered from 1.

use wildtool_core::outcome::{ErrorColumn, TaskOutcome, TaskType, TurnSubtype};
use wildtool_core::trace::diff::{closest, pretty, CallDiff, Mark, Piece};
use wildtool_core::trace::{task_trace, Message, Step, TaskTrace};

use crate::shown::ShownRun;
use crate::state::AppState;
use crate::traces::{
    digests, error_class, session_id, step_anchor, subtype_name, task_anchor, verdict, Sort,
};
use crate::ui::{el, el_text, Element};

use super::widgets::{button, heading};

fn select(
    id: &str,
    label: &str,
    filter: &str,
    current: &str,
    options: Vec<(String, String)>,
) -> Element {
    el("label").attr("for", id).text(format!("{label} ")).child(
        el("select")
            .id(id)
            .action("trace-filter", filter)
            .attr("value", current)
            .children(
                options
                    .into_iter()
                    .map(|(value, text)| el("option").attr("value", value).text(text)),
            ),
    )
}

fn all_and(names: impl Iterator<Item = &'static str>) -> Vec<(String, String)> {
    std::iter::once((String::new(), "all".to_owned()))
        .chain(names.map(|n| (n.to_owned(), n.to_owned())))
        .collect()
}

/// `1234567` as `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn message(m: &Message) -> Element {
    let role: String = m.role.chars().filter(|c| c.is_ascii_lowercase()).collect();
    el("div")
        .class(format!("msg role-{role}"))
        .child(el_text("span", m.role.clone()).class("msg-role"))
        .child_opt((!m.text.is_empty()).then(|| el_text("pre", m.text.clone()).class("msg-text")))
        .children(
            m.calls.iter().map(|c| {
                el_text("pre", format!("→ {}({})", c.name, c.arguments)).class("msg-call")
            }),
        )
}

/// A marked piece of arguments: a span with the mark's class and, for screen readers, the
/// mark's name before it.
fn piece(p: &Piece) -> crate::ui::Node {
    match p.mark {
        Mark::Same => p.text.clone().into(),
        Mark::Expected => el_text("span", p.text.clone()).class("d-expected").into(),
        m => el("span")
            .class(format!("d-{}", m.name()))
            .child(el_text("span", format!("{}: ", m.name())).class("visually-hidden"))
            .text(p.text.clone())
            .into(),
    }
}

fn call_diff(c: &CallDiff, candidate: usize) -> Element {
    let note = match &c.gold {
        None => format!(
            "no gold action of candidate {} is left for this call",
            candidate + 1
        ),
        Some(g) if g.name != c.call.name => format!(
            "closest gold action: {} (another function) · {} argument difference{}",
            g.name,
            c.differences,
            if c.differences == 1 { "" } else { "s" }
        ),
        Some(_) if c.unreadable => "arguments are not JSON".to_owned(),
        Some(_) if c.differences == 0 => "arguments as in the gold".to_owned(),
        Some(_) => format!(
            "{} argument difference{} from the gold",
            c.differences,
            if c.differences == 1 { "" } else { "s" }
        ),
    };
    el("div")
        .class("call")
        .child(
            el("p")
                .class("call-head")
                .child(el_text("code", c.call.name.clone()))
                .text(format!(" — {note}")),
        )
        .child(el("pre").class("args").children(c.pieces.iter().map(piece)))
}

fn candidates(s: &Step, closest_at: Option<usize>) -> Element {
    el("div")
        .class("sub")
        .child(el_text("h3", "Gold candidates accepted at this step"))
        .children(s.candidates.iter().enumerate().map(|(i, c)| {
            el("div")
                .class(if closest_at == Some(i) {
                    "cand closest"
                } else {
                    "cand"
                })
                .child(el_text(
                    "p",
                    format!(
                        "Candidate {}{}",
                        i + 1,
                        if closest_at == Some(i) {
                            " (closest)"
                        } else {
                            ""
                        }
                    ),
                ))
                .children(c.actions.iter().map(|a| {
                    el("div")
                        .class("call")
                        .child(
                            el("p")
                                .class("call-head")
                                .child(el_text("code", a.name.clone())),
                        )
                        .child(el_text("pre", pretty(&a.arguments)).class("args"))
                }))
                .child_opt(
                    c.observation
                        .as_ref()
                        .map(|o| el_text("p", format!("Observation: {o}")).class("muted")),
                )
        }))
}

fn step(session: u32, position: u8, k: usize, s: &Step, open: bool) -> Element {
    let v = if s.correct { "correct" } else { "error" };
    let dash = |x: &str| {
        if x.is_empty() {
            "—".to_owned()
        } else {
            x.to_owned()
        }
    };
    let key = format!("{session}:{position}:{k}");
    let mut d = el("details")
        .class(format!("step verdict-{v}"))
        .action("trace-step", key.clone())
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
    let diff = closest(&s.output.calls, &s.candidates);
    let mut output = el("div")
        .class("sub")
        .child(el_text("h3", "Model output"))
        .child_opt(
            (!s.output.text.is_empty())
                .then(|| el_text("pre", s.output.text.clone()).class("msg-text")),
        )
        .child_opt(
            s.reasoning
                .as_ref()
                .map(|r| el_text("pre", r.clone()).class("msg-text muted")),
        );
    match &diff {
        Some(diff) => {
            output = output
                .child(
                    el_text(
                        "p",
                        format!(
                            "Calls beside gold candidate {} (the closest).",
                            diff.candidate + 1
                        ),
                    )
                    .class("muted"),
                )
                .children(diff.calls.iter().map(|c| call_diff(c, diff.candidate)))
                .children(diff.unpaired.iter().map(|a| {
                    el("div")
                        .class("call")
                        .child(
                            el("p")
                                .class("call-head")
                                .child(el_text("code", a.name.clone()))
                                .text(" — in the gold, not called"),
                        )
                        .child(el("pre").class("args").child(piece(&Piece {
                            text: pretty(&a.arguments),
                            mark: Mark::Missing,
                        })))
                }));
        }
        None => {
            output = output.children(s.output.calls.iter().map(|c| {
                el("div")
                    .class("call")
                    .child(
                        el("p")
                            .class("call-head")
                            .child(el_text("code", c.name.clone())),
                    )
                    .child(el_text("pre", pretty(&c.arguments)).class("args"))
            }));
        }
    }
    d = d
        .child(
            el_text(
                "p",
                format!(
                    "Verdict: {v}{}",
                    if s.reasons.is_empty() {
                        String::new()
                    } else {
                        format!(" — {}", s.reasons.join(" · "))
                    }
                ),
            )
            .class(format!("verdict {v}")),
        )
        .child(output)
        .child(candidates(s, diff.map(|d| d.candidate)))
        .child(
            el("details")
                .class("sub")
                .child(el_text(
                    "summary",
                    format!("Messages the model saw ({})", s.seen.len()),
                ))
                .children(s.seen.iter().map(message)),
        );
    d
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
                    "Label {label} · names {names} · optimal {}{}",
                    if optimal { "yes" } else { "no" },
                    o.error
                        .map(|e| format!(" · raw error label {}", e.as_str()))
                        .unwrap_or_default()
                ),
            ));
            for (k, s) in steps.iter().enumerate() {
                let open = state.traces.open_steps.contains(&(session, position, k));
                box_ = box_.child(step(session, position, k, s, open));
            }
        }
    }
    box_
}

fn legend() -> Element {
    el("p")
        .class("muted legend")
        .text("Arguments are marked against the closest gold candidate: ")
        .child(el_text("span", "extra").class("d-extra"))
        .text(" (only the model's), ")
        .child(el_text("span", "missing").class("d-missing"))
        .text(" (only the gold's), ")
        .child(el_text("span", "changed").class("d-changed"))
        .text(" (a different value, the expected one after it).")
}

fn row(state: &AppState, shown: &ShownRun, o: &TaskOutcome) -> Element {
    let t = &state.traces;
    let open = t.open_tasks.contains(&(o.session, o.position));
    let id = session_id(state.dataset, o.session);
    let usage = shown
        .scored
        .as_ref()
        .and_then(|s| digests(s).get(&(o.session, o.position)))
        .map(|d| d.usage);
    let v = verdict(o);
    let mut summary = el("summary")
        .id(task_anchor(o.session, o.position))
        .text(format!(
            "Session {} · {} · Task {} · {} / {} · ",
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
    if let Some(u) = usage {
        summary = summary.child(
            el_text(
                "span",
                format!(" · {} tokens · {:.1} s", thousands(u.tokens()), u.latency),
            )
            .class("usage"),
        );
    }
    let mut d = el("details")
        .action("trace-task", format!("{}:{}", o.session, o.position))
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

/// The dashboard's way into the traces: one button per error class of the taxonomy chart
/// (its column titles), with the number of failed tasks in it.
pub fn class_links(shown: &ShownRun) -> Option<Element> {
    let counts: Vec<(ErrorColumn, usize)> = ErrorColumn::ALL
        .iter()
        .map(|c| {
            let n = shown
                .outcomes
                .iter()
                .filter(|o| !o.incomplete && error_class(o) == Some(*c))
                .count();
            (*c, n)
        })
        .filter(|(_, n)| *n > 0)
        .collect();
    if counts.is_empty() {
        return None;
    }
    Some(
        el("nav")
            .class("class-links")
            .attr("aria-label", "Traces by error class")
            .child(el_text("p", "Open the traces of a class:").class("muted"))
            .child(el("ul").children(counts.into_iter().map(|(c, n)| {
                el("li").child(
                    button(
                        &format!("{} · {n} task{}", c.as_str(), if n == 1 { "" } else { "s" }),
                        "trace-class",
                        c.as_str(),
                    )
                    .attr("data-class", c.as_str()),
                )
            }))),
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
            .child(el_text("p", "Traces come from a run in this page or an uploaded result file (share links carry no traces).").class("muted").id("trace-empty"));
    };
    let t = &state.traces;
    let d = state.dataset;
    let matching = t.rows(&shown.outcomes, shown.scored.as_ref().map(digests), |i| {
        session_id(d, i)
    });
    let shown_rows = matching.len().min(t.limit);
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
                        .action("trace-filter", "search"),
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
                                .action("trace-filter", "failed"),
                        )
                        .text(" Failed only"),
                )
                .child(select(
                    "f-type",
                    "Type",
                    "type",
                    &t.task_type,
                    all_and(TaskType::ALL.iter().map(|x| x.as_str())),
                ))
                .child(select(
                    "f-subtype",
                    "Subtype",
                    "subtype",
                    &t.subtype,
                    all_and(
                        std::iter::once("First turn")
                            .chain(TurnSubtype::ALL.iter().map(|x| x.as_str())),
                    ),
                ))
                .child(select(
                    "f-error",
                    "Error class",
                    "error",
                    &t.error,
                    all_and(ErrorColumn::ALL.iter().map(|c| c.as_str())),
                ))
                .child(select(
                    "f-sort",
                    "Sort by",
                    "sort",
                    t.sort.slug(),
                    Sort::ALL
                        .iter()
                        .map(|s| (s.slug().to_owned(), s.title().to_owned()))
                        .collect(),
                )),
        )
        .child(legend());
    let rows = matching.iter().take(t.limit).map(|o| row(state, shown, o));
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
        .child(filters)
        .child_opt(shown.scored.is_none().then(|| {
            el_text("p", "This run has outcomes only (opened from a link, or its files are not stored): tasks can be listed but not opened down to the steps.").class("muted").id("trace-empty")
        }))
        .child(el("ol").id("trace-list").class("trace-list").children(rows))
        .child_opt((shown_rows < matching.len()).then(|| button("Show more", "trace-more", "").id("trace-more")))
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
