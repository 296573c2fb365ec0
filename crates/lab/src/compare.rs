//! The comparison view: two or more runs of one dataset compared pair by pair with the
//! core's [`compare_runs`] (the numbers of `wildtool compare`'s `compare.json`).

use serde::{Deserialize, Serialize};
use wildtool_core::chart::delta::format_pp;
use wildtool_core::chart::format_percent;
use wildtool_core::compare::html::format_p;
use wildtool_core::compare::paired::{Estimate, PairResult};
use wildtool_core::compare::{compare_runs, BootstrapOptions, CompareDoc, DatasetRef, RunInput};
use wildtool_core::share::TaskShape;
use wildtool_ui::{el, el_text, Element, Node};

use crate::{read, LabError};

/// What the page sends: the loaded dataset's fingerprint and task shapes, and the runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompareInput {
    /// Fingerprint of the loaded dataset.
    pub fingerprint: u64,
    /// Every task of the dataset, in dataset order.
    pub shapes: Vec<TaskShape>,
    /// The runs, in the order chosen (each carries its own dataset fingerprint).
    pub runs: Vec<RunInput>,
}

/// The comparison document for `input` (the same as `wildtool compare` writes).
pub fn document(input: &CompareInput) -> Result<CompareDoc, LabError> {
    let dataset = DatasetRef {
        fingerprint: input.fingerprint,
        shapes: &input.shapes,
    };
    Ok(compare_runs(
        &input.runs,
        dataset,
        &BootstrapOptions::default(),
    )?)
}

/// The comparison view (wire JSON of a `section`); a refusal (other datasets, fewer than
/// two runs, a run with nothing scored) is an error carrying the core's reason.
pub fn view(input: &str) -> Result<String, LabError> {
    let input: CompareInput = read(input)?;
    let doc = document(&input)?;
    Ok(render(&doc).to_json())
}

fn estimate_text(e: &Estimate) -> String {
    format!(
        "{} (95% CI {} to {})",
        format_pp(e.estimate),
        format_pp(e.ci95.lo),
        format_pp(e.ci95.hi)
    )
}

/// `p = 0.0414`, or `p < 0.0001`.
pub fn p_text(p: f64) -> String {
    let text = format_p(p);
    if text.starts_with('<') {
        format!("p {text}")
    } else {
        format!("p = {text}")
    }
}

fn row(name: &str, value: String) -> Element {
    el("tr")
        .child(el_text("th", name).attr("scope", "row"))
        .child(el_text("td", value))
}

fn pair_section(pair: &PairResult, index: usize) -> Element {
    let n = index + 1;
    let session = match (&pair.session_accuracy, &pair.session_accuracy_delta) {
        (Some(r), Some(d)) => format!(
            "{} vs {}: {}",
            format_percent(r.a),
            format_percent(r.b),
            estimate_text(d)
        ),
        _ => "no session scored in both runs".to_owned(),
    };
    let mut counts = vec![
        row(
            "Tasks compared",
            format!(
                "{} of {} ({} left out: unscored in one run or both)",
                pair.tasks, pair.tasks_total, pair.dropped
            ),
        ),
        row("Both correct", pair.both_correct.to_string()),
        row(&format!("Only {} correct", pair.a), pair.a_only.to_string())
            .id(format!("pair-{n}-a-only")),
        row(&format!("Only {} correct", pair.b), pair.b_only.to_string())
            .id(format!("pair-{n}-b-only")),
        row("Neither correct", pair.neither.to_string()),
    ];
    if pair.ties > 0 {
        counts.push(row(
            "Equal pass rates between 0 and 1",
            pair.ties.to_string(),
        ));
    }
    counts.push(row("Exact McNemar test", p_text(pair.mcnemar_p)).id(format!("pair-{n}-p")));
    counts.push(
        row(
            "Task accuracy",
            format!(
                "{} vs {}: {}",
                format_percent(pair.task_accuracy.a),
                format_percent(pair.task_accuracy.b),
                estimate_text(&pair.task_accuracy_delta)
            ),
        )
        .id(format!("pair-{n}-task-delta")),
    );
    counts.push(row("Session accuracy", session).id(format!("pair-{n}-session-delta")));
    el("section")
        .id(format!("pair-{n}"))
        .class("panel pair")
        .attr("aria-labelledby", format!("pair-{n}-title"))
        .key(format!("pair-{n}"))
        .child(el_text("h3", format!("{} vs {}", pair.a, pair.b)).id(format!("pair-{n}-title")))
        .child(
            el("div").class("table").child(
                el("table")
                    .child(el_text(
                        "caption",
                        format!("{} − {} on the tasks both scored", pair.a, pair.b),
                    ))
                    .child(el("tbody").children(counts)),
            ),
        )
}

/// The view of a comparison document.
pub fn render(doc: &CompareDoc) -> Node {
    let runs = doc
        .runs
        .iter()
        .map(|r| {
            el_text(
                "li",
                format!(
                    "{}: {} of {} tasks scored ({}), {} trial(s)",
                    r.label,
                    r.tasks_scored,
                    doc.dataset.tasks,
                    r.status.as_str(),
                    r.trials
                ),
            )
        })
        .collect::<Vec<_>>();
    el("div")
        .id("compare-result")
        .class("compare-result")
        .attr("data-pairs", doc.pairs.len().to_string())
        .child(
            el_text(
                "p",
                format!(
                    "{} runs on dataset {} ({} tasks, {} sessions). Differences are A − B.",
                    doc.runs.len(),
                    doc.dataset.fingerprint,
                    doc.dataset.tasks,
                    doc.dataset.sessions
                ),
            )
            .class("note"),
        )
        .child(el("ul").id("compared-runs").children(runs))
        .children(
            doc.pairs
                .iter()
                .enumerate()
                .map(|(i, p)| pair_section(p, i)),
        )
        .child(
            el_text(
                "p",
                format!(
                    "Test: {}. Intervals: paired session bootstrap, {} resamples, seed {}.",
                    doc.method.test, doc.method.bootstrap.resamples, doc.method.bootstrap.seed
                ),
            )
            .class("note"),
        )
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use wildtool_core::dataset::{fingerprint_hex, load_dataset, Lang};
    use wildtool_core::outcome::TaskOutcome;
    use wildtool_core::share::task_shapes;
    use wildtool_ui::wire;

    const SUITE: &str = include_str!("../../../data/suite.jsonl");

    fn outcomes(shapes: &[TaskShape], correct: impl Fn(usize) -> bool) -> Vec<TaskOutcome> {
        shapes
            .iter()
            .enumerate()
            .map(|(i, s)| TaskOutcome {
                session: s.session,
                position: s.position,
                task_type: s.task_type,
                subtype: s.subtype,
                transitions: s.transitions,
                correct: correct(i),
                name_correct: correct(i),
                optimal: correct(i),
                steps_logged: 1,
                nodes_total: s.nodes_total,
                nodes_done: if correct(i) { s.nodes_total } else { 0 },
                error: None,
                incomplete: false,
            })
            .collect()
    }

    pub(crate) fn suite_input() -> CompareInput {
        let d = load_dataset(SUITE, Lang::En);
        let shapes = task_shapes(&d);
        let fingerprint = u64::from_str_radix(&fingerprint_hex(SUITE), 16).unwrap();
        let run = |label: &str, c: &dyn Fn(usize) -> bool| RunInput {
            label: label.to_owned(),
            fingerprint,
            trials: vec![outcomes(&shapes, c)],
        };
        CompareInput {
            fingerprint,
            runs: vec![run("A", &|i| i % 3 != 0), run("B", &|i| i % 2 == 0)],
            shapes,
        }
    }

    #[test]
    fn the_view_shows_the_cores_counts_and_test() {
        let input = suite_input();
        let n = input.shapes.len();
        let (mut a_only, mut b_only) = (0u64, 0u64);
        for i in 0..n {
            match (i % 3 != 0, i % 2 == 0) {
                (true, false) => a_only += 1,
                (false, true) => b_only += 1,
                _ => {}
            }
        }
        let json = view(&serde_json::to_string(&input).unwrap()).unwrap();
        let tree = wire::parse(&json).unwrap();
        let cell = |id: &str| tree.by_id(id).unwrap().text_content();
        assert_eq!(cell("pair-1-a-only"), format!("Only A correct{a_only}"));
        assert_eq!(cell("pair-1-b-only"), format!("Only B correct{b_only}"));
        let p = wildtool_core::compare::exact::mcnemar_exact(a_only, b_only);
        assert_eq!(cell("pair-1-p"), format!("Exact McNemar test{}", p_text(p)));
        let doc = document(&input).unwrap();
        assert_eq!(doc.pairs[0].a_only, a_only);
        assert!(
            cell("pair-1-task-delta").contains(&estimate_text(&doc.pairs[0].task_accuracy_delta))
        );
        assert_eq!(
            tree.by_id("compare-result").unwrap().get("data-pairs"),
            Some("1")
        );
    }

    #[test]
    fn runs_of_another_dataset_are_refused_with_the_cores_reason() {
        let mut input = suite_input();
        input.runs[1].fingerprint ^= 1;
        let e = view(&serde_json::to_string(&input).unwrap()).unwrap_err();
        assert!(matches!(e, LabError::Compare(_)));
        assert!(e.to_string().contains("different dataset"), "{e}");
        input.runs.truncate(1);
        let e = view(&serde_json::to_string(&input).unwrap()).unwrap_err();
        assert!(e.to_string().contains("at least two runs"), "{e}");
    }
}
