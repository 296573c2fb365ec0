//! The Compare view's planner: from the compared runs as pilots, the smallest drop the
//! regression gate detects with 80% power at N sessions × K trials, and the sessions a
//! given drop needs — the core's [`plan`], the numbers and lines of `wildtool plan
//! --pilot A [--pilot-b B]` for the same runs. It is drawn below the comparison (its
//! fields are part of the comparison's input).

use wildtool_contract::inputs::PlanFields;
use wildtool_contract::Action;
use wildtool_core::compare::gate::GateRule;
use wildtool_core::compare::{DatasetRef, RunInput};
use wildtool_core::plan::{plan, PlanDoc, PlanPilot, PlanSettings};
use wildtool_core::share::TaskShape;
use wildtool_ui::{el, el_text, Element};

use crate::LabError;

/// What the planner plans from: the dataset, the compared runs and the fields.
#[derive(Debug, Clone, Copy)]
pub struct PlanInput<'a> {
    /// Fingerprint of the loaded dataset.
    pub fingerprint: u64,
    /// Every task of the dataset, in dataset order.
    pub shapes: &'a [TaskShape],
    /// The compared runs, in the order chosen.
    pub runs: &'a [RunInput],
    /// The fields as typed.
    pub fields: &'a PlanFields,
}

/// The plan for `input` (the document `wildtool plan --json` writes).
pub fn document(input: &PlanInput<'_>) -> Result<PlanDoc, LabError> {
    let a = input
        .runs
        .first()
        .ok_or_else(|| LabError::Message("Choose a run to plan from.".to_owned()))?;
    let f = input.fields;
    let b = if f.pair { input.runs.get(1) } else { None };
    let dataset = DatasetRef {
        fingerprint: input.fingerprint,
        shapes: input.shapes,
    };
    let pilot = PlanPilot::new(a, b, dataset).map_err(|e| LabError::Message(e.to_string()))?;
    let mut sessions: Vec<u32> = input.shapes.iter().map(|s| s.session).collect();
    sessions.dedup();
    let settings = PlanSettings {
        sessions: whole(&f.sessions, "Sessions", sessions.len() as u64)?,
        trials: u32::try_from(whole(&f.trials, "Trials", 1)?)
            .map_err(|_| LabError::Message("Trials: too large.".to_owned()))?,
        rule: GateRule::default(),
        power: 0.8,
        difference_points: match f.difference.trim() {
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
                .action(Action::Budget.name(), id),
        )
}

/// The planner panel: its fields and the plan's lines, or the reason there is none.
pub fn panel(input: &PlanInput<'_>) -> Element {
    let f = input.fields;
    let mut sessions: Vec<u32> = input.shapes.iter().map(|s| s.session).collect();
    sessions.dedup();
    let pilots = match (f.pair, input.runs.get(1)) {
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
            &f.sessions,
            &sessions.len().to_string(),
        ))
        .child(field("plan-trials", "Trials", &f.trials, "1"))
        .child(field(
            "plan-difference",
            "Drop to detect (points)",
            &f.difference,
            "e.g. 5",
        ))
        .child(
            el("label")
                .class("check")
                .child(
                    el("input")
                        .attr("type", "checkbox")
                        .id("plan-pair")
                        .flag("checked", f.pair)
                        .flag("disabled", input.runs.len() < 2)
                        .action(Action::Budget.name(), "plan-pair"),
                )
                .text(" Second run as a second pilot"),
        );
    let body = match document(input) {
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
    el("section")
        .id("plan-panel")
        .class("panel")
        .attr("aria-labelledby", "plan-title")
        .child(el_text("h2", "How many sessions does a claim need?").id("plan-title"))
        .child(el_text("p", pilots).class("muted"))
        .child(form)
        .child(body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use wildtool_core::outcome::TaskType;

    fn shapes() -> Vec<TaskShape> {
        (0..30u32)
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
            .collect()
    }

    fn run(shapes: &[TaskShape], label: &str, flip: u32) -> RunInput {
        RunInput {
            label: label.to_owned(),
            fingerprint: 7,
            trials: vec![shapes
                .iter()
                .map(|s| {
                    let correct = (s.session * 3 + u32::from(s.position) + flip) % 4 != 0;
                    crate::test_outcome(s.session, s.position, s.task_type, correct)
                })
                .collect()],
        }
    }

    fn fields(sessions: &str, trials: &str, difference: &str) -> PlanFields {
        PlanFields {
            pair: true,
            sessions: sessions.to_owned(),
            trials: trials.to_owned(),
            difference: difference.to_owned(),
        }
    }

    #[test]
    fn the_plan_is_the_cores_and_bad_fields_are_named() {
        let sh = shapes();
        let runs = [run(&sh, "a", 0), run(&sh, "b", 1)];
        let f = fields("", "", "10");
        let input = PlanInput {
            fingerprint: 7,
            shapes: &sh,
            runs: &runs,
            fields: &f,
        };
        let doc = document(&input).expect("plan");
        assert_eq!(doc.sessions, 30, "the dataset's sessions by default");
        assert_eq!(doc.trials, 1);
        assert!(doc.sessions_needed.is_some());
        let text = panel(&input).to_json();
        let first = doc.summary_text();
        assert!(text.contains(first.lines().nth(2).unwrap_or("?")), "{text}");
        for (s, t, d, named) in [
            ("x", "", "", "Sessions: \"x\""),
            ("", "0", "", "Trials must be"),
            ("", "", "abc", "Drop to detect: \"abc\""),
            ("", "", "200", "Drop to detect must be"),
        ] {
            let f = fields(s, t, d);
            let e = document(&PlanInput {
                fields: &f,
                ..input
            })
            .unwrap_err()
            .to_string();
            assert!(e.contains(named), "{e}");
        }
    }
}
