//! JUnit XML for CI systems: one test case per task of a run, and the gate's decision as
//! one more case.
//!
//! Mapping (one `<testsuite>` per run, named by its label):
//! - `classname` is the session (`session N`, N as in the result id `…_N`), `name` the
//!   task's number in its session (1-based) and type: `task 2 (Clarify)`;
//! - a task that passed in every scored trial passes;
//! - a task that passed in no scored trial has a `<failure>` whose `message` is its error
//!   class (the published error column) and the first differing argument or the step's
//!   error, whose `type` is the raw error label;
//! - a task scored in no trial is `<skipped>` with the reason;
//! - with trials, a task that passed in some trials and failed in others passes and
//!   carries one `<flakyFailure>` per failed trial (the Maven Surefire convention);
//! - every suite has the properties `wildtool.passed`, `wildtool.failed`,
//!   `wildtool.skipped`, `wildtool.flaky` and `wildtool.trials`.
//!
//! The gate is a suite `wildtool gate` with one case named by its metric, failing with
//! the decision as its message when the gate fails. Every text is escaped for XML 1.0
//! (characters it forbids are dropped).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::chart::escape_xml;
use crate::compare::gate::GateVerdict;
use crate::json::{loads, Value};
use crate::outcome::TaskOutcome;
use crate::share::TaskShape;

/// What a test case says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CaseResult {
    /// Passed (in every scored trial).
    Passed,
    /// Failed (in every scored trial).
    Failed {
        /// Error class and first difference.
        message: String,
        /// Raw error label.
        kind: String,
    },
    /// Not scored.
    Skipped {
        /// Why.
        reason: String,
    },
    /// Passed in some trials, failed in others: one message per failed trial.
    Flaky {
        /// `trial N: …` per failed trial.
        failures: Vec<(String, String)>,
    },
    /// The case could not be decided (the gate on unusable inputs).
    Error {
        /// Why.
        message: String,
    },
}

/// One test case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    /// Class name.
    pub classname: String,
    /// Name.
    pub name: String,
    /// Result.
    pub result: CaseResult,
    /// Text for `<system-out>`, if any.
    pub out: Option<String>,
}

/// A suite of cases.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suite {
    /// Name.
    pub name: String,
    /// Cases.
    pub cases: Vec<Case>,
    /// Trials the run had.
    pub trials: u32,
}

/// Counts of a suite, as the run's figures name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
    /// Cases.
    pub tests: u64,
    /// Passed in every scored trial.
    pub passed: u64,
    /// Failed in every scored trial.
    pub failed: u64,
    /// Not scored.
    pub skipped: u64,
    /// Passed in some trials only.
    pub flaky: u64,
    /// Undecided.
    pub errors: u64,
}

impl Suite {
    /// The suite's counts.
    pub fn counts(&self) -> Counts {
        let mut c = Counts::default();
        for case in &self.cases {
            c.tests += 1;
            match case.result {
                CaseResult::Passed => c.passed += 1,
                CaseResult::Failed { .. } => c.failed += 1,
                CaseResult::Skipped { .. } => c.skipped += 1,
                CaseResult::Flaky { .. } => c.flaky += 1,
                CaseResult::Error { .. } => c.errors += 1,
            }
        }
        c
    }
}

/// Why a failed task failed, per task of a scored file: `(session, position)` → the
/// first argument check that failed (`step 2: error_match: …`) or the first step error.
pub type Details = BTreeMap<(u32, u8), String>;

/// The failure details of every failed task of a `score.jsonl` text.
pub fn details(score_text: &str) -> Details {
    let mut out = Details::new();
    for_each_failed_task(score_text, |session, position, task| {
        if let Some(text) = first_difference(task) {
            out.insert((session, position), text);
        }
    });
    out
}

/// Calls `visit(session, position, task)` for every task of a `score.jsonl` text whose
/// label is not `correct` (lines that are not scored sessions are passed over).
pub(crate) fn for_each_failed_task(score_text: &str, mut visit: impl FnMut(u32, u8, &Value)) {
    for line in score_text.split('\n') {
        let session = crate::formats::score_file::sort_key(line);
        let Ok(session) = u32::try_from(session) else {
            continue;
        };
        let Ok(value) = loads(line) else {
            continue;
        };
        let Some(tasks) = value.get("results").and_then(Value::as_array) else {
            continue;
        };
        for (position, task) in tasks.iter().enumerate() {
            if task.get("label").and_then(Value::as_str) == Some("correct") {
                continue;
            }
            if let Ok(position) = u8::try_from(position) {
                visit(session, position, task);
            }
        }
    }
}

/// The first failed argument check of a scored task, else its first step error.
fn first_difference(task: &Value) -> Option<String> {
    let steps: Vec<(usize, &Value)> = crate::trace::steps_of(task)
        .enumerate()
        .filter_map(|(k, step)| step.get("inference_output").map(|o| (k, o)))
        .collect();
    for (k, out) in &steps {
        if out
            .get("current_action_arguments_label")
            .and_then(Value::as_str)
            == Some("error")
        {
            let check = out
                .get("current_action_arguments_check_result")
                .and_then(Value::as_array)
                .and_then(|r| {
                    r.iter()
                        .filter_map(Value::as_str)
                        .find(|t| *t != "correct")
                        .map(str::to_owned)
                });
            return Some(format!(
                "step {}: {}",
                k + 1,
                check.unwrap_or_else(|| "arguments differ from the gold".to_owned())
            ));
        }
    }
    steps.iter().find_map(|(k, out)| {
        out.get("error_reason")
            .and_then(Value::as_str)
            .map(|r| format!("step {}: {r}", k + 1))
    })
}

/// The suite of a run: `trials[t]` are the outcomes of trial `t + 1`, `details[t]` its
/// failure details, `reasons` why unscored tasks were not scored (a default otherwise).
pub fn run_suite(
    name: &str,
    shapes: &[TaskShape],
    trials: &[Vec<TaskOutcome>],
    details: &[Details],
    reasons: &BTreeMap<(u32, u8), String>,
) -> Suite {
    let index: BTreeMap<(u32, u8), usize> = crate::order::map_from(
        shapes
            .iter()
            .enumerate()
            .map(|(i, s)| ((s.session, s.position), i)),
    );
    // Per task and trial: Some(outcome) when scored.
    let mut scored: Vec<Vec<Option<&TaskOutcome>>> = vec![vec![None; trials.len()]; shapes.len()];
    for (t, list) in trials.iter().enumerate() {
        for o in list {
            if o.incomplete {
                continue;
            }
            if let Some(slot) = index
                .get(&(o.session, o.position))
                .and_then(|&i| scored.get_mut(i))
                .and_then(|row| row.get_mut(t))
            {
                if slot.is_none() {
                    *slot = Some(o);
                }
            }
        }
    }
    let failure = |o: &TaskOutcome, t: usize| -> (String, String) {
        let class = o
            .error
            .map(|e| e.default_column().as_str().to_owned())
            .unwrap_or_else(|| "Unclassified error".to_owned());
        let detail = details.get(t).and_then(|d| d.get(&(o.session, o.position)));
        let message = match detail {
            Some(d) => format!("{class}: {d}"),
            None => class,
        };
        let kind = o
            .error
            .map(|e| e.as_str().to_owned())
            .unwrap_or_else(|| "error".to_owned());
        (message, kind)
    };
    let cases = shapes
        .iter()
        .zip(&scored)
        .map(|(shape, row)| {
            let runs: Vec<(usize, &TaskOutcome)> = row
                .iter()
                .enumerate()
                .filter_map(|(t, o)| o.map(|o| (t, o)))
                .collect();
            let passed = runs.iter().filter(|(_, o)| o.correct).count();
            let result = if runs.is_empty() {
                CaseResult::Skipped {
                    reason: reasons
                        .get(&(shape.session, shape.position))
                        .cloned()
                        .unwrap_or_else(|| {
                            "not scored: its session has no complete result".to_owned()
                        }),
                }
            } else if passed == runs.len() {
                CaseResult::Passed
            } else if passed == 0 {
                let (t, o) = runs[0];
                let (message, kind) = failure(o, t);
                let message = if trials.len() > 1 {
                    format!("{message} (failed in all {} scored trials)", runs.len())
                } else {
                    message
                };
                CaseResult::Failed { message, kind }
            } else {
                CaseResult::Flaky {
                    failures: runs
                        .iter()
                        .filter(|(_, o)| !o.correct)
                        .map(|&(t, o)| {
                            let (m, k) = failure(o, t);
                            (format!("trial {}: {m}", t + 1), k)
                        })
                        .collect(),
                }
            };
            Case {
                classname: format!("session {}", shape.session),
                name: format!(
                    "task {} ({})",
                    u16::from(shape.position) + 1,
                    shape.task_type.as_str()
                ),
                result,
                out: None,
            }
        })
        .collect();
    Suite {
        name: name.to_owned(),
        cases,
        trials: trials.len() as u32,
    }
}

/// The suite of a gate decision.
pub fn gate_suite(verdict: &GateVerdict) -> Suite {
    let result = if verdict.outcome.fails() {
        CaseResult::Failed {
            message: verdict.reason.clone(),
            kind: "regression".to_owned(),
        }
    } else {
        CaseResult::Passed
    };
    Suite {
        name: "wildtool gate".to_owned(),
        cases: vec![Case {
            classname: "wildtool gate".to_owned(),
            name: format!(
                "{} of {} against {}",
                verdict.metric_title, verdict.candidate, verdict.baseline
            ),
            result,
            out: Some(format!("{}\n{}", verdict.reason, verdict.context())),
        }],
        trials: 1,
    }
}

/// The suite of a gate that could not decide.
pub fn gate_error_suite(metric: &str, message: &str) -> Suite {
    Suite {
        name: "wildtool gate".to_owned(),
        cases: vec![Case {
            classname: "wildtool gate".to_owned(),
            name: metric.to_owned(),
            result: CaseResult::Error {
                message: message.to_owned(),
            },
            out: None,
        }],
        trials: 1,
    }
}

fn attr(out: &mut String, name: &str, value: &str) {
    let _ = write!(out, " {name}=\"{}\"", escape_xml(value));
}

/// The JUnit XML document of `suites`.
pub fn junit_xml(suites: &[Suite]) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let total = suites.iter().fold(Counts::default(), |mut acc, s| {
        let c = s.counts();
        acc.tests += c.tests;
        acc.failed += c.failed;
        acc.skipped += c.skipped;
        acc.errors += c.errors;
        acc
    });
    let _ = writeln!(
        out,
        "<testsuites name=\"wildtool\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\">",
        total.tests, total.failed, total.errors, total.skipped
    );
    for suite in suites {
        let c = suite.counts();
        out.push_str("  <testsuite");
        attr(&mut out, "name", &suite.name);
        let _ = writeln!(
            out,
            " tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\">",
            c.tests, c.failed, c.errors, c.skipped
        );
        out.push_str("    <properties>\n");
        for (k, v) in [
            ("wildtool.passed", c.passed),
            ("wildtool.failed", c.failed),
            ("wildtool.skipped", c.skipped),
            ("wildtool.flaky", c.flaky),
            ("wildtool.trials", u64::from(suite.trials)),
        ] {
            let _ = writeln!(out, "      <property name=\"{k}\" value=\"{v}\"/>");
        }
        out.push_str("    </properties>\n");
        for case in &suite.cases {
            out.push_str("    <testcase");
            attr(&mut out, "classname", &case.classname);
            attr(&mut out, "name", &case.name);
            let body = match &case.result {
                CaseResult::Passed => String::new(),
                CaseResult::Failed { message, kind } => element("failure", message, kind),
                CaseResult::Skipped { reason } => {
                    let mut s = String::from("      <skipped");
                    attr(&mut s, "message", reason);
                    s.push_str("/>\n");
                    s
                }
                CaseResult::Flaky { failures } => failures
                    .iter()
                    .map(|(m, k)| element("flakyFailure", m, k))
                    .collect(),
                CaseResult::Error { message } => element("error", message, "unusable"),
            };
            let system_out = case
                .out
                .as_ref()
                .map(|t| format!("      <system-out>{}</system-out>\n", escape_xml(t)))
                .unwrap_or_default();
            if body.is_empty() && system_out.is_empty() {
                out.push_str("/>\n");
            } else {
                out.push_str(">\n");
                out.push_str(&body);
                out.push_str(&system_out);
                out.push_str("    </testcase>\n");
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

fn element(tag: &str, message: &str, kind: &str) -> String {
    let mut s = format!("      <{tag}");
    attr(&mut s, "message", message);
    attr(&mut s, "type", kind);
    let _ = writeln!(s, ">{}</{tag}>", escape_xml(message));
    s
}
