//! The Compare view's planner: from the compared runs as pilots, the smallest drop the
//! regression gate detects with 80% power at N sessions × K trials, and the sessions a
//! given drop needs — the core's [`plan`], the numbers and lines of `wildtool plan
//! --pilot A [--pilot-b B]` for the same runs.

use wildtool_contract::inputs::PlanInput;
use wildtool_core::compare::gate::GateRule;
use wildtool_core::compare::DatasetRef;
use wildtool_core::plan::{plan, PlanDoc, PlanPilot, PlanSettings};
use wildtool_ui::{el, el_text, Element};

use crate::{read, LabError};

/// The plan for `input` (the document `wildtool plan --json` writes).
pub fn document(input: &PlanInput) -> Result<PlanDoc, LabError> {
    let a = input
        .runs
        .first()
        .ok_or_else(|| LabError::Message("Choose a run to plan from.".to_owned()))?;
    let b = if input.pair { input.runs.get(1) } else { None };
    let dataset = DatasetRef {
        fingerprint: input.fingerprint,
        shapes: &input.shapes,
    };
    let pilot = PlanPilot::new(a, b, dataset).map_err(|e| LabError::Message(e.to_string()))?;
    let mut sessions: Vec<u32> = input.shapes.iter().map(|s| s.session).collect();
    sessions.dedup();
    let settings = PlanSettings {
        sessions: whole(&input.sessions, "Sessions", sessions.len() as u64)?,
        trials: u32::try_from(whole(&input.trials, "Trials", 1)?)
            .map_err(|_| LabError::Message("Trials: too large.".to_owned()))?,
        rule: GateRule::default(),
        power: 0.8,
        difference_points: match input.difference.trim() {
            "" => None,
            t => Some(
                t.parse::<f64>()
                    .ok()
                    .filter(|d| d.is_finite())
                    .ok_or_else(|| {
                        LabError::Message(format!("Drop to detect: \"{t}\" is not a number."))
                    })?,
            ),
        },
    };
    plan(&pilot, &settings).map_err(|e| LabError::Message(field_names(&e.to_string())))
}

/// A whole number typed in field `name` (`default` when empty).
fn whole(text: &str, name: &str, default: u64) -> Result<u64, LabError> {
    match text.trim() {
        "" => Ok(default),
        t => t
            .parse::<u64>()
            .map_err(|_| LabError::Message(format!("{name}: \"{t}\" is not a whole number."))),
    }
}

/// The core's messages name the CLI's flags; the page's fields have names of their own.
fn field_names(message: &str) -> String {
    message
        .replace("--sessions", "Sessions")
        .replace("--trials", "Trials")
        .replace("--difference", "Drop to detect")
}

fn field(id: &str, label: &str, value: &str, hint: &str) -> Element {
    el("div")
        .class("field")
        .child(el("label").attr("for", id).text(label))
        .child(
            el("input")
                .id(id)
                .attr("type", "text")
                .attr("inputmode", "decimal")
                .attr("autocomplete", "off")
                .attr("value", value.to_owned())
                .attr("placeholder", hint.to_owned())
                .action("plan-set", &id["plan-".len()..]),
        )
}

/// The planner panel (wire JSON of a `section`): its fields and the plan's lines, or the
/// reason there is none.
pub fn view(input: &str) -> Result<String, LabError> {
    let input: PlanInput = read(input)?;
    let mut sessions: Vec<u32> = input.shapes.iter().map(|s| s.session).collect();
    sessions.dedup();
    let pilots = match (input.pair, input.runs.get(1)) {
        (true, Some(b)) => format!(
            "Pilots: {} and {} (their disagreement is the noise).",
            input.runs[0].label, b.label
        ),
        _ => format!(
            "Pilot: {} (its own noise{}).",
            input.runs.first().map_or("", |r| r.label.as_str()),
            if input.runs.first().is_some_and(|r| r.trials.len() > 1) {
                ", from its trials"
            } else {
                ", a single trial: pessimistic"
            }
        ),
    };
    let form = el("div")
        .class("row plan-fields")
        .child(field(
            "plan-sessions",
            "Sessions",
            &input.sessions,
            &sessions.len().to_string(),
        ))
        .child(field("plan-trials", "Trials", &input.trials, "1"))
        .child(field(
            "plan-difference",
            "Drop to detect (points)",
            &input.difference,
            "e.g. 5",
        ))
        .child(
            el("label")
                .class("check")
                .child(
                    el("input")
                        .attr("type", "checkbox")
                        .id("plan-pair")
                        .flag("checked", input.pair)
                        .flag("disabled", input.runs.len() < 2)
                        .action("plan-set", "pair"),
                )
                .text(" Second run as a second pilot"),
        );
    let body = match document(&input) {
        Ok(doc) => {
            let lines = doc.summary_text();
            el("div")
                .id("plan-result")
                .attr("aria-live", "polite")
                .children(
                    lines
                        .lines()
                        .map(|l| el_text("p", l.to_owned()).class("plan-line")),
                )
                .child(
                    el_text(
                        "p",
                        format!(
                            "Gate: alpha {}, margin {} points, {:.0}% power; the same numbers as wildtool plan --pilot A{} for these runs. Method: {}.",
                            doc.alpha,
                            doc.margin_points,
                            doc.power * 100.0,
                            if doc.pilot.b.is_some() { " --pilot-b B" } else { "" },
                            doc.method
                        ),
                    )
                    .class("muted"),
                )
        }
        Err(e) => el("div")
            .id("plan-result")
            .attr("aria-live", "polite")
            .child(
                el_text("p", e.to_string())
                    .id("plan-error")
                    .class("banner banner-error"),
            ),
    };
    Ok(el("section")
        .id("plan-panel")
        .class("panel")
        .attr("aria-labelledby", "plan-title")
        .child(el_text("h2", "How many sessions does a claim need?").id("plan-title"))
        .child(el_text("p", pilots).class("muted"))
        .child(form)
        .child(body)
        .to_json())
}

#[cfg(test)]
mod tests {
    use super::*;
    use wildtool_core::compare::RunInput;
    use wildtool_core::outcome::{TaskOutcome, TaskType};
    use wildtool_core::share::TaskShape;

    fn input(sessions: &str, trials: &str, difference: &str) -> PlanInput {
        let shapes: Vec<TaskShape> = (0..30u32)
            .flat_map(|s| {
                (0..3u8).map(move |p| TaskShape {
                    session: s,
                    position: p,
                    task_type: TaskType::ALL[p as usize],
                    subtype: None,
                    transitions: 0,
                    nodes_total: 1,
                    min_length: 1,
                })
            })
            .collect();
        let run = |label: &str, flip: u32| RunInput {
            label: label.to_owned(),
            fingerprint: 7,
            trials: vec![shapes
                .iter()
                .map(|s| {
                    let correct = (s.session * 3 + u32::from(s.position) + flip) % 4 != 0;
                    TaskOutcome {
                        session: s.session,
                        position: s.position,
                        task_type: s.task_type,
                        subtype: None,
                        transitions: 0,
                        correct,
                        name_correct: correct,
                        optimal: false,
                        steps_logged: 1,
                        nodes_total: 1,
                        nodes_done: u16::from(correct),
                        error: None,
                        incomplete: false,
                    }
                })
                .collect()],
        };
        PlanInput {
            fingerprint: 7,
            runs: vec![run("a", 0), run("b", 1)],
            shapes,
            pair: true,
            sessions: sessions.to_owned(),
            trials: trials.to_owned(),
            difference: difference.to_owned(),
        }
    }

    #[test]
    fn the_plan_is_the_cores_and_bad_fields_are_named() {
        let i = input("", "", "10");
        let doc = document(&i).expect("plan");
        assert_eq!(doc.sessions, 30, "the dataset's sessions by default");
        assert_eq!(doc.trials, 1);
        assert!(doc.sessions_needed.is_some());
        let text = view(&serde_json::to_string(&i).unwrap_or_default()).expect("view");
        let first = doc.summary_text();
        assert!(text.contains(first.lines().nth(2).unwrap_or("?")), "{text}");
        for (s, t, d, named) in [
            ("x", "", "", "Sessions: \"x\""),
            ("", "0", "", "Trials must be"),
            ("", "", "abc", "Drop to detect: \"abc\""),
            ("", "", "200", "Drop to detect must be"),
        ] {
            let e = document(&input(s, t, d)).unwrap_err().to_string();
            assert!(e.contains(named), "{e}");
        }
    }
}
