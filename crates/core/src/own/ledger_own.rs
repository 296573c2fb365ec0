//! Ledger sessions in own history: the model's ledger carries from task to task.
//!
//! Per task `t`: `pre_t` is the state the model's earlier tasks left; the expected state
//! is `pre_t` plus the gold delta of `t` (the task's gold calls executed on `pre_t`), with
//! every gold transaction id replaced by the id of the record the model created for it.
//! The mapping: the transactions gold creates in a task are matched, in order, to the
//! ones the model created in the same task with the same booking key (date, payee,
//! accounts). A gold call naming a transaction the model never created (an unmappable
//! id) makes the task `state_correct = false` with reason `missing_prerequisite`. The
//! session verdict compares the final ledger with the initial one plus all gold writes.

use std::collections::BTreeMap;

use crate::dataset::{LoadedDataset, Session};
use crate::json::{dumps, Escape, Map, Value};
use crate::ledger::check::booking_key;
use crate::ledger::metrics::EnvMetrics;
use crate::ledger::run_file::SessionEnv;
use crate::ledger::score::{score_task_on, state_equal, Basis, TaskScore};
use crate::ledger::tools::call;
use crate::ledger::trace::TaskTrace;
use crate::ledger::Ledger;
use crate::outcome::TaskOutcome;

/// A ledger session scored in own history.
#[derive(Debug, Clone)]
pub struct OwnLedgerSession {
    /// Per-task scores (expectations through the id mapping).
    pub tasks: Vec<TaskScore>,
    /// Tasks whose gold delta names a transaction the model never created.
    pub missing_prerequisite: Vec<usize>,
    /// The final ledger equals the initial one plus all gold writes.
    pub session_correct: bool,
}

fn map_ids(
    v: &Value,
    map: &BTreeMap<String, String>,
    unmapped: &mut bool,
    known: &Ledger,
) -> Value {
    match v {
        Value::Str(s) => match map.get(s) {
            Some(m) => Value::Str(m.clone()),
            None => {
                if s.starts_with("txn_") && !known.txns.contains_key(s) {
                    *unmapped = true;
                }
                v.clone()
            }
        },
        Value::Array(a) => {
            Value::Array(a.iter().map(|x| map_ids(x, map, unmapped, known)).collect())
        }
        Value::Object(o) => {
            let mut m = Map::new();
            for (k, x) in o.iter() {
                m.insert(k.clone(), map_ids(x, map, unmapped, known));
            }
            Value::Object(m)
        }
        other => other.clone(),
    }
}

fn created(before: &Ledger, after: &Ledger) -> Vec<(String, Vec<String>)> {
    after
        .txns
        .iter()
        .filter(|(id, _)| !before.txns.contains_key(*id))
        .map(|(id, t)| (id.clone(), booking_key(t)))
        .collect()
}

/// Scores a ledger session's own-history traces (in task order).
pub fn score_session(
    session: &Session,
    env: &SessionEnv,
    traces: &[Value],
) -> Result<OwnLedgerSession, String> {
    let scenario = &env.scenario;
    let replay = &env.replay;
    let mut pre = replay.before(0).ok_or("no initial ledger")?.clone();
    let mut map: BTreeMap<String, String> = BTreeMap::new();
    let mut tasks = Vec::new();
    let mut missing = Vec::new();
    for (t, tv) in traces.iter().enumerate() {
        let trace = TaskTrace::from_value(tv, &format!("tasks[{t}]")).map_err(|e| e.to_string())?;
        let mut exp = pre.clone();
        let mut unmapped = false;
        let task = session.tasks.get(t).ok_or_else(|| format!("no task {t}"))?;
        for gc in replay.calls.iter().filter(|c| c.task == t) {
            let Some(node) = task.nodes.get(gc.node) else {
                continue;
            };
            let args = map_ids(&node.arguments, &map, &mut unmapped, &exp);
            call(
                &mut exp,
                &node.name,
                &args,
                &session.tools,
                scenario.options,
            );
        }
        let amends = scenario
            .tasks
            .get(t)
            .and_then(|m| m.amends.clone())
            .map(|x| map.get(&x).cloned().unwrap_or(x));
        let mut score = score_task_on(
            session,
            scenario,
            replay,
            &trace,
            false,
            Basis {
                pre: &pre,
                exp: &exp,
                amends: amends.as_deref(),
            },
        )
        .map_err(|e| e.to_string())?;
        if unmapped {
            missing.push(t);
            score.components.state_correct = false;
            score.env_success = false;
        }
        // Map the transactions gold creates in this task to the model's.
        if let (Some(gb), Some(ga)) = (replay.before(t), replay.expected(t)) {
            let mut mine = created(&pre, &score.actual);
            for (gid, key) in created(gb, ga) {
                if let Some(i) = mine.iter().position(|(_, k)| *k == key) {
                    let (mid, _) = mine.remove(i);
                    map.insert(gid, mid);
                }
            }
        }
        pre = score.actual.clone();
        tasks.push(score);
    }
    let final_expected = replay.pre.last().ok_or("no final ledger")?;
    let session_correct = traces.len() == session.tasks.len()
        && state_equal(final_expected, &pre, &scenario.compare)
        && scenario.assertions.iter().all(|a| a.holds(&pre));
    Ok(OwnLedgerSession {
        tasks,
        missing_prerequisite: missing,
        session_correct,
    })
}

/// The ledger sessions among `traces` scored in own history (by session index), and the
/// sessions that could not be scored with why.
fn score_sessions(
    dataset: &LoadedDataset,
    envs: &BTreeMap<usize, SessionEnv>,
    traces: &BTreeMap<usize, Vec<Value>>,
) -> (BTreeMap<usize, OwnLedgerSession>, Vec<String>) {
    let mut scored = BTreeMap::new();
    let mut problems = Vec::new();
    for (index, tr) in traces {
        let (Some(env), Some(session)) = (envs.get(index), dataset.session_at(*index)) else {
            continue;
        };
        match score_session(session, env, tr) {
            Ok(s) => {
                scored.insert(*index, s);
            }
            Err(e) => problems.push(format!("{}: {e}", session.id)),
        }
    }
    (scored, problems)
}

/// One outcome per dataset task whose `correct` is the task's own-history `env_success`
/// (the ledger sessions among `traces`; every other task unscored): what pass^k over the
/// trials of an own-history ledger run is computed from, as `env-trials.json` is for
/// gold-history env runs.
pub fn env_outcomes(
    dataset: &LoadedDataset,
    envs: &BTreeMap<usize, SessionEnv>,
    traces: &BTreeMap<usize, Vec<Value>>,
) -> Vec<TaskOutcome> {
    let (scored, _) = score_sessions(dataset, envs, traces);
    let tasks: BTreeMap<usize, Vec<TaskScore>> =
        scored.into_iter().map(|(i, s)| (i, s.tasks)).collect();
    crate::ledger::outcomes::env_outcomes(dataset, &tasks)
}

/// The own-history env metrics of the ledger sessions among `traces` (`None` when no
/// scored session has a ledger environment): the env metrics over the per-task scores,
/// and the session verdicts on the final ledgers.
pub fn metrics_json(
    dataset: &LoadedDataset,
    envs: &BTreeMap<usize, SessionEnv>,
    traces: &BTreeMap<usize, Vec<Value>>,
) -> Option<serde_json::Value> {
    let mut metrics = EnvMetrics::default();
    let (mut sessions, mut correct, mut missing) = (0u64, 0u64, 0u64);
    let (scored, problems) = score_sessions(dataset, envs, traces);
    for s in scored.values() {
        metrics.add_session(&s.tasks);
        sessions += 1;
        correct += u64::from(s.session_correct);
        missing += s.missing_prerequisite.len() as u64;
    }
    if sessions == 0 && problems.is_empty() {
        return None;
    }
    let text = dumps(&metrics.to_value(), Escape::Utf8);
    let mut out = serde_json::json!({
        "extension": super::OWN_LABEL,
        "sessions": sessions,
        "session_verdict": {
            "final_ledger_correct": correct,
            "sessions": sessions,
            "rate": if sessions == 0 { 0.0 } else { correct as f64 / sessions as f64 },
        },
        "missing_prerequisite_tasks": missing,
        "problems": problems,
    });
    if let (Ok(m), Some(o)) = (
        serde_json::from_str::<serde_json::Value>(&text),
        out.as_object_mut(),
    ) {
        o.insert("metrics".to_owned(), m);
    }
    Some(out)
}
