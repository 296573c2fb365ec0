//! A trace step opened in the page: the verdict and its reasons, the model's output with
//! each call printed beside the closest gold candidate (the core's `trace::diff`: extra,
//! missing and changed values marked, the mark's name there for screen readers), the gold
//! candidates accepted at the step (numbered from 1, the closest one said), and the
//! messages the model saw. Also the text a trace search looks through, for every task of a
//! run ([`search_texts`]), and the dashboard's glossary (the core's `report::glossary`),
//! shown when it is unfolded. And one task's traces of two runs side by side
//! ([`pair_view`]): each column the run's label, its verdict on the task and every step
//! rendered as an opened step is.

use serde::Deserialize;
use wildtool_core::trace::diff::{closest, pretty, Mark, Piece};
use wildtool_core::trace::{
    read_step, session_digests, step_text, task_trace, Call, Message, Step, TaskTrace,
};
use wildtool_ui::{el, el_text, Element, Node};

use wildtool_contract::inputs::{PairColumn, PairInput};

use crate::{read, LabError};

/// What the page sends: one logged step as JSON text (`trace::step_text`).
#[derive(Debug, Deserialize)]
pub struct StepInput {
    /// The step's JSON.
    pub step: String,
}

/// The opened step's content (wire JSON of a `div`).
pub fn step_view(input: &str) -> Result<String, LabError> {
    let input: StepInput = read(input)?;
    let step = read_step(&input.step).ok_or_else(|| LabError::Input("not a logged step".into()))?;
    Ok(render(&step).to_json())
}

/// One task's traces of two runs side by side (wire JSON of a `div`): per run its label,
/// its verdict (correct, the error class, or incomplete) and every step as an opened step
/// shows it ([`render`]).
pub fn pair_view(input: &str) -> Result<String, LabError> {
    let input: PairInput<'static> = read(input)?;
    let mut out = el("div").class("pair-cols");
    for (c, which) in input.columns.iter().zip(["a", "b"]) {
        out = out.child(pair_column(c, which, input.position));
    }
    Ok(out.to_json())
}

fn pair_column(c: &PairColumn<'_>, which: &str, position: usize) -> Element {
    let id = format!("pair-{which}");
    let (verdict, text) = match &*c.verdict {
        "correct" => ("correct", "correct".to_owned()),
        "failed" if c.class.is_empty() => ("failed", "failed".to_owned()),
        "failed" => ("failed", format!("failed · {}", c.class)),
        "unscored" => ("unscored", "incomplete (not scored)".to_owned()),
        _ => ("", String::new()),
    };
    let mut col = el("section")
        .class("pair-col")
        .id(id.clone())
        .attr("aria-labelledby", format!("{id}-title"))
        .attr("data-verdict", verdict)
        .child(el("h3").id(format!("{id}-title")).text(format!(
            "{} · {}",
            which.to_uppercase(),
            c.label
        )));
    if !verdict.is_empty() {
        col = col.child(
            el("p")
                .class("pair-verdict")
                .text("Verdict: ")
                .child(el_text("strong", text).class(format!("badge v-{verdict}"))),
        );
    }
    let Some(line) = &c.line else {
        return col.child(el_text("p", c.note.to_string()).class("muted pair-note"));
    };
    match task_trace(line, position) {
        TaskTrace::SessionError(e) => col.child(
            el_text("p", format!("The session's result is an error string: {e}"))
                .class("verdict error"),
        ),
        TaskTrace::Missing => {
            col.child(el_text("p", "No trace recorded for this task.").class("muted pair-note"))
        }
        TaskTrace::Steps {
            label,
            names,
            optimal,
            steps,
        } => {
            col = col.child(el_text(
                "p",
                format!(
                    "Label {label} · names {names} · optimal {} · {}",
                    if optimal { "yes" } else { "no" },
                    plural(steps.len(), "step")
                ),
            ));
            for (k, h) in steps.iter().enumerate() {
                let dash = |x: &str| {
                    if x.is_empty() {
                        "—".to_owned()
                    } else {
                        x.to_owned()
                    }
                };
                let v = if h.correct { "correct" } else { "error" };
                let mut step = el("div")
                    .class(format!("pair-step verdict-{v}"))
                    .child(el_text(
                        "h4",
                        format!(
                            "Step {} · names {} · arguments {}",
                            k + 1,
                            dash(&h.names),
                            dash(&h.arguments)
                        ),
                    ));
                step = match step_text(line, position, k).as_deref().and_then(read_step) {
                    Some(s) => step.child(render(&s)),
                    None => step.child(el_text("p", "This step cannot be read.").class("muted")),
                };
                col = col.child(step);
            }
            col
        }
    }
}

/// The search text of every task of a run. The input holds one record per line, a session
/// index (0-based), a tab and that session's score line; the output one record per task:
/// session index, tab, task position (0-based), tab, the task's lower-cased search text
/// (`trace::search_text`) with tabs and line breaks as spaces.
pub fn search_texts(input: &str) -> Result<String, LabError> {
    let mut out = String::new();
    for record in input.lines() {
        let Some((session, line)) = record.split_once('\t') else {
            continue;
        };
        let session: u32 = session
            .parse()
            .map_err(|_| LabError::Input(format!("not a session index: {session:.20}")))?;
        for (t, d) in session_digests(line).into_iter().enumerate() {
            out.push_str(&format!("{session}\t{t}\t"));
            out.extend(d.text.chars().map(|c| {
                if c == '\t' || c == '\n' || c == '\r' {
                    ' '
                } else {
                    c
                }
            }));
            out.push('\n');
        }
    }
    Ok(out)
}

/// The dashboard's glossary: every metric's term and meaning (wire JSON of a `dl`; the
/// input is ignored).
pub fn glossary_view(_input: &str) -> Result<String, LabError> {
    let mut dl = el("dl");
    for (term, text) in wildtool_core::report::glossary::GLOSSARY {
        dl = dl.child(el_text("dt", term)).child(el_text("dd", text));
    }
    Ok(dl.to_json())
}

fn plural(n: usize, one: &str) -> String {
    format!("{n} {one}{}", if n == 1 { "" } else { "s" })
}

fn message(m: &Message) -> Element {
    let role: String = m.role.chars().filter(|c| c.is_ascii_lowercase()).collect();
    let mut e = el("div")
        .class(format!("msg role-{role}"))
        .child(el_text("span", m.role.clone()).class("msg-role"));
    if !m.text.is_empty() {
        e = e.child(el_text("pre", m.text.clone()).class("msg-text"));
    }
    for c in &m.calls {
        e = e.child(el_text("pre", format!("→ {}({})", c.name, c.arguments)).class("msg-call"));
    }
    e
}

/// A call: its name, a note, and its arguments as marked pieces.
fn call_box(name: &str, note: &str, pieces: &[Piece]) -> Element {
    let mut args = el("pre").class("args");
    for p in pieces {
        args = args.child(match p.mark {
            Mark::Same => Node::from(p.text.clone()),
            Mark::Expected => el_text("span", p.text.clone()).class("d-expected").into(),
            m => el("span")
                .class(format!("d-{}", m.name()))
                .child(el_text("span", format!("{}: ", m.name())).class("visually-hidden"))
                .text(p.text.clone())
                .into(),
        });
    }
    el("div")
        .class("call")
        .child(
            el("p")
                .class("call-head")
                .child(el_text("code", name))
                .text(note),
        )
        .child(args)
}

fn plain(c: &Call, note: &str, mark: Mark) -> Element {
    call_box(
        &c.name,
        note,
        &[Piece {
            text: pretty(&c.arguments),
            mark,
        }],
    )
}

/// The content of an opened step.
pub fn render(s: &Step) -> Element {
    let v = if s.correct { "correct" } else { "error" };
    let diff = closest(&s.output.calls, &s.candidates);
    let mut output = el("div").class("sub").child(el_text("h3", "Model output"));
    if !s.output.text.is_empty() {
        output = output.child(el_text("pre", s.output.text.clone()).class("msg-text"));
    }
    if let Some(r) = &s.reasoning {
        output = output.child(el_text("pre", r.clone()).class("msg-text muted"));
    }
    let closest_at = diff.as_ref().map(|d| d.candidate);
    match &diff {
        Some(diff) => {
            let n = diff.candidate + 1;
            output = output.child(
                el_text(
                    "p",
                    format!("Calls beside gold candidate {n} (the closest)."),
                )
                .class("muted"),
            );
            for c in &diff.calls {
                let count = plural(c.differences, "argument difference");
                let note = match &c.gold {
                    None => format!(" — no gold action of candidate {n} is left for this call"),
                    Some(g) if g.name != c.call.name => {
                        format!(
                            " — closest gold action: {} (another function) · {count}",
                            g.name
                        )
                    }
                    Some(_) if c.unreadable => " — arguments are not JSON".to_owned(),
                    Some(_) if c.differences == 0 => " — arguments as in the gold".to_owned(),
                    Some(_) => format!(" — {count} from the gold"),
                };
                output = output.child(call_box(&c.call.name, &note, &c.pieces));
            }
            for a in &diff.unpaired {
                output = output.child(plain(a, " — in the gold, not called", Mark::Missing));
            }
        }
        None => {
            for c in &s.output.calls {
                output = output.child(plain(c, "", Mark::Same));
            }
        }
    }
    let mut gold = el("div")
        .class("sub")
        .child(el_text("h3", "Gold candidates accepted at this step"));
    for (i, c) in s.candidates.iter().enumerate() {
        let best = closest_at == Some(i);
        let mut cand = el("div")
            .class(if best { "cand closest" } else { "cand" })
            .child(el_text(
                "p",
                format!(
                    "Candidate {}{}",
                    i + 1,
                    if best { " (closest)" } else { "" }
                ),
            ));
        for a in &c.actions {
            cand = cand.child(plain(a, "", Mark::Same));
        }
        if let Some(o) = &c.observation {
            cand = cand.child(el_text("p", format!("Observation: {o}")).class("muted"));
        }
        gold = gold.child(cand);
    }
    let mut seen = el("details").class("sub").child(el_text(
        "summary",
        format!("Messages the model saw ({})", s.seen.len()),
    ));
    for m in &s.seen {
        seen = seen.child(message(m));
    }
    let reasons = if s.reasons.is_empty() {
        String::new()
    } else {
        format!(" — {}", s.reasons.join(" · "))
    };
    el("div")
        .class("step-body")
        .child(el_text("p", format!("Verdict: {v}{reasons}")).class(format!("verdict {v}")))
        .child(output)
        .child(gold)
        .child(seen)
}

#[cfg(test)]
mod tests {
    use super::*;

    const STEP: &str = r#"{"inference_input": {"messages": [{"role": "user", "content": "Price of AAPL and MSFT?"}]}, "inference_output": {"content": null, "tool_calls": [{"id": "c0", "function": {"name": "get_stock_price", "arguments": "{\"symbol\": \"AAPL.\", \"note\": 1}"}, "type": "function"}], "current_action_name_label": "correct", "current_action_arguments_label": "error", "current_action_arguments_check_result": ["error_schema: args not defined"]}, "inference_answer": {"candidate_0_answer_function_list": {"action": [{"name": "get_stock_price", "arguments": "{\"symbol\": \"AAPL\"}"}, {"name": "get_stock_price", "arguments": "{\"symbol\": \"MSFT\"}"}]}}}"#;

    fn input(step: &str) -> String {
        serde_json::json!({ "step": step }).to_string()
    }

    #[test]
    fn a_step_shows_marked_differences_and_the_gold_left_uncalled() {
        let json = step_view(&input(STEP)).expect("a view");
        let tree = wildtool_ui::wire::parse(&json).expect("wire JSON");
        let marked = |class: &str| -> Vec<String> {
            tree.elements()
                .into_iter()
                .filter(|e| e.has_class(class))
                .map(|e| e.text_content())
                .collect()
        };
        assert_eq!(marked("d-changed"), ["changed: \"AAPL.\""]);
        assert_eq!(marked("d-expected"), ["(expected \"AAPL\")"]);
        assert_eq!(marked("d-extra"), ["extra: \"note\": 1"]);
        assert_eq!(
            marked("d-missing"),
            ["missing: {\n  \"symbol\": \"MSFT\"\n}"],
            "the second gold call was not made"
        );
        let text = tree.text_content();
        assert!(text.contains("Verdict: error — argument checks: error_schema: args not defined"));
        assert!(text.contains("get_stock_price — 2 argument differences from the gold"));
        assert!(text.contains("Candidate 1 (closest)"));
        assert!(text.contains("Messages the model saw (1)"));
        assert!(text.contains("Price of AAPL and MSFT?"));
    }

    #[test]
    fn search_texts_name_session_and_task() {
        let line = format!(
            r#"{{"id": "wild_tool_bench_3", "results": [{{"inference_log": {{"step_0": {}}}}}, {{}}]}}"#,
            STEP
        );
        let out = search_texts(&format!("3\t{line}\n7\tnot json\n")).unwrap();
        let records: Vec<&str> = out.lines().collect();
        assert_eq!(records.len(), 2, "{out}");
        assert!(records[0].starts_with("3\t0\t"), "{out}");
        assert!(records[0].contains("get_stock_price") && records[0].contains("error"));
        assert_eq!(records[0].split('\t').count(), 3, "no tab in the text");
        assert!(records[1].starts_with("3\t1\t"));
        assert!(search_texts("x\t{}").is_err());
    }

    #[test]
    fn the_glossary_lists_every_term() {
        let tree = wildtool_ui::wire::parse(&glossary_view("{}").unwrap()).expect("wire JSON");
        let terms = tree
            .elements()
            .into_iter()
            .filter(|e| e.tag == "dt")
            .count();
        assert_eq!(terms, wildtool_core::report::glossary::GLOSSARY.len());
    }

    #[test]
    fn two_runs_of_a_task_side_by_side_show_their_own_verdicts_and_steps() {
        let line = format!(
            r#"{{"id": "wild_tool_bench_3", "results": [{{"label": "error", "inference_log": {{"step_0": {}}}}}]}}"#,
            STEP
        );
        let input = serde_json::json!({
            "position": 0,
            "columns": [
                {"label": "model one", "verdict": "failed", "class": "Param Value Error", "line": line},
                {"label": "model two", "verdict": "", "note": "No trace recorded in this browser for run r2."}
            ]
        });
        let tree = wildtool_ui::wire::parse(&pair_view(&input.to_string()).unwrap()).unwrap();
        let a = tree.by_id("pair-a").expect("column A");
        assert_eq!(a.get("data-verdict"), Some("failed"));
        let text = a.text_content();
        assert!(text.contains("A · model one"), "{text}");
        assert!(text.contains("failed · Param Value Error"), "{text}");
        assert!(
            text.contains("Step 1 · names correct · arguments error"),
            "{text}"
        );
        assert!(text.contains("get_stock_price"), "{text}");
        let b = tree.by_id("pair-b").expect("column B");
        assert_eq!(b.get("data-verdict"), Some(""));
        let text = b.text_content();
        assert!(text.contains("No trace recorded in this browser for run r2."));
        assert!(
            !text.contains("get_stock_price"),
            "never the other run's steps"
        );
        assert!(pair_view("{}").is_err());
    }

    #[test]
    fn bad_input_is_refused_with_a_reason() {
        let e = step_view(&input("[1, 2]")).unwrap_err();
        assert!(e.to_string().contains("not a logged step"), "{e}");
        assert!(step_view("not json").is_err());
    }
}
