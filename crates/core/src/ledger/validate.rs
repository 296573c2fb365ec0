//! The scenario checks of `wildtool validate --semantic --env`, for every session with a
//! `ledger_env`: (1) the initial ledger reads and passes the checker; (2) every tool the
//! gold calls is implemented; (3) strict replay: the environment's observations for the
//! gold calls equal the dataset's as parsed JSON (byte equality is reported as well);
//! (4) no gold parallel step is order-dependent: every order of its calls gives the same
//! observations, modulo the ids allocated (the first 720 orders are tried); (5) the
//! expected states satisfy the assertions; and the gold itself passes: its answers
//! mention every `must_mention` item and its writes leave no soft violation.

use crate::dataset::{NodeKind, Session};
use crate::json::{py_eq, Value};

use super::check::soft_violations;
use super::run_file::SessionEnv;
use super::scenario::gold_steps;
use super::score::mentions;
use super::tools::{call, is_implemented};

/// One problem, naming the session and task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvProblem {
    /// Session id.
    pub session: String,
    /// Task, when the problem is about one.
    pub task: Option<usize>,
    /// What is wrong.
    pub message: String,
    /// A warning (byte inequality of equal JSON) rather than an error.
    pub warning: bool,
}

impl std::fmt::Display for EnvProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.task {
            Some(t) => write!(f, "{} task {t}: {}", self.session, self.message),
            None => write!(f, "{}: {}", self.session, self.message),
        }
    }
}

/// Observation values with allocated ids masked.
fn masked(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, x)| {
                    if k == "transaction_id" || k == "recurring_id" {
                        (k.clone(), Value::Null)
                    } else {
                        (k.clone(), masked(x))
                    }
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(masked).collect()),
        other => other.clone(),
    }
}

fn permutations(n: usize, cap: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut p: Vec<usize> = (0..n).collect();
    fn go(k: usize, p: &mut Vec<usize>, out: &mut Vec<Vec<usize>>, cap: usize) {
        if out.len() >= cap {
            return;
        }
        if k == p.len() {
            out.push(p.clone());
            return;
        }
        for i in k..p.len() {
            p.swap(k, i);
            go(k + 1, p, out, cap);
            p.swap(k, i);
        }
    }
    go(0, &mut p, &mut out, cap);
    out
}

/// Every problem of the session's scenario (empty when it has none or all checks pass).
pub fn scenario_problems(session: &Session) -> Vec<EnvProblem> {
    let mut out = Vec::new();
    let problem = |task: Option<usize>, message: String, warning: bool| EnvProblem {
        session: session.id.clone(),
        task,
        message,
        warning,
    };
    let env = match SessionEnv::of(session) {
        Ok(Some(e)) => e,
        Ok(None) => return out,
        Err(e) => {
            out.push(problem(None, e.to_string(), false));
            return out;
        }
    };
    for c in &env.replay.calls {
        if !is_implemented(&c.name) {
            out.push(problem(
                Some(c.task),
                format!(
                    "the gold calls {}, which the ledger environment does not implement",
                    c.name
                ),
                false,
            ));
        } else if !c.matches() {
            out.push(problem(
                Some(c.task),
                format!(
                    "strict replay fails at node {} ({}): the environment computes {}",
                    c.node,
                    c.name,
                    crate::json::dumps(&c.outcome.result, crate::json::Escape::Utf8)
                ),
                false,
            ));
        } else if !c.matches_bytes() {
            out.push(problem(
                Some(c.task),
                format!(
                    "node {} ({}): equal as JSON but not byte for byte",
                    c.node, c.name
                ),
                true,
            ));
        }
    }
    for (t, task) in session.tasks.iter().enumerate() {
        let (Some(pre), Some(exp)) = (env.replay.before(t), env.replay.expected(t)) else {
            continue;
        };
        for (s, step) in gold_steps(session, t)
            .unwrap_or_default()
            .iter()
            .enumerate()
        {
            if step.len() < 2 {
                continue;
            }
            let mut state = pre.clone();
            for earlier in gold_steps(session, t).unwrap_or_default().iter().take(s) {
                for &i in earlier {
                    if let Some(n) = task.nodes.get(i) {
                        call(
                            &mut state,
                            &n.name,
                            &n.arguments,
                            &session.tools,
                            env.scenario.options,
                        );
                    }
                }
            }
            let run = |order: &[usize]| -> Vec<(usize, Value)> {
                let mut st = state.clone();
                let mut got: Vec<(usize, Value)> = order
                    .iter()
                    .filter_map(|&k| step.get(k))
                    .filter_map(|&i| task.nodes.get(i).map(|n| (i, n)))
                    .map(|(i, n)| {
                        (
                            i,
                            masked(
                                &call(
                                    &mut st,
                                    &n.name,
                                    &n.arguments,
                                    &session.tools,
                                    env.scenario.options,
                                )
                                .result,
                            ),
                        )
                    })
                    .collect();
                crate::order::sort_by_key(&mut got, |g| g.0);
                got
            };
            let reference = run(&(0..step.len()).collect::<Vec<_>>());
            let dependent = permutations(step.len(), 720).iter().skip(1).any(|order| {
                let other = run(order);
                other.len() != reference.len()
                    || other
                        .iter()
                        .zip(&reference)
                        .any(|(a, b)| !py_eq(&a.1, &b.1))
            });
            if dependent {
                out.push(problem(
                    Some(t),
                    format!("parallel step {s}: the observations depend on the order of its calls"),
                    false,
                ));
            }
        }
        for a in &env.scenario.assertions {
            if !a.holds(exp) {
                out.push(problem(
                    Some(t),
                    format!("the expected state fails the assertion {a:?}"),
                    false,
                ));
            }
        }
        let before = soft_violations(pre, Some(exp));
        for v in soft_violations(exp, Some(exp)).difference(&before) {
            out.push(problem(
                Some(t),
                format!("the gold writes leave a soft violation: {v}"),
                false,
            ));
        }
        if let Some(meta) = env.scenario.tasks.get(t) {
            let answer = task
                .nodes
                .iter()
                .find(|n| n.kind == NodeKind::Prepare)
                .and_then(|n| n.observation.as_str())
                .unwrap_or("");
            for m in &meta.must_mention {
                if !mentions(answer, m) {
                    out.push(problem(
                        Some(t),
                        format!("the gold answer does not mention {m:?}"),
                        false,
                    ));
                }
            }
        }
    }
    out
}
