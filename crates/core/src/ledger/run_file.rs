//! `env-result.jsonl`: a header line
//! `{"format": "wildtool-env-run/1", "env_version", "dataset_fingerprint", "history_mode",
//! "model_name", "trial", "status", "tasks_total", "sessions_without_env", "extension"}`,
//! then one line per complete session with every task's trace (steps, calls and results,
//! each call annotated with whether it was a write, accepted, and the violations it
//! introduced), writes and verdict components. Re-scoring reads only the traces and
//! recomputes everything else, so the run's own report and `env-score`'s are the same
//! function of the same text.

use std::collections::BTreeMap;

use crate::dataset::Session;
use crate::input::lines;
use crate::json::{dumps, loads, Escape, Map, Value};

use super::metrics::{report_text, EnvMetrics, ReportHead, EXTENSION_LABEL};
use super::scenario::{replay_gold, scenario_of, Replay, Scenario};
use super::score::{score_task, TaskScore};
use super::text::{without_ids, write_ledger};
use super::trace::TaskTrace;
use super::ENV_VERSION;

/// The `env-result.jsonl` format marker.
pub const ENV_RUN_FORMAT: &str = "wildtool-env-run/1";

/// The header line.
pub fn header_line(head: &ReportHead) -> String {
    let mut m = Map::new();
    m.insert("format", Value::str(ENV_RUN_FORMAT));
    m.insert("env_version", Value::str(head.env_version.clone()));
    m.insert(
        "dataset_fingerprint",
        Value::str(head.dataset_fingerprint.clone()),
    );
    m.insert("history_mode", Value::str(head.history_mode.clone()));
    m.insert("model_name", Value::str(head.model_name.clone()));
    m.insert("trial", Value::int(head.trial as i64));
    m.insert("status", Value::str(head.status.clone()));
    m.insert("tasks_total", Value::int(head.tasks_total as i64));
    m.insert(
        "sessions_without_env",
        Value::int(head.sessions_without_env as i64),
    );
    m.insert("extension", Value::str(EXTENSION_LABEL));
    dumps(&Value::Object(m), Escape::Utf8)
}

/// The fields of a run file's header line, read one by one with the field named in
/// each error (shared by the env and own-history run files).
pub(crate) struct HeaderFields(Value);

impl HeaderFields {
    /// The header `line` of a file whose `format` must be `format` (`what` names the file
    /// in the message).
    pub(crate) fn read(line: &str, format: &str, what: &str) -> Result<Self, String> {
        let v = loads(line).map_err(|e| format!("the header is not JSON: {e}"))?;
        if v.get("format").and_then(Value::as_str) != Some(format) {
            return Err(format!(
                "the first line is not an {what} header ({{\"format\": \"{format}\", …}})"
            ));
        }
        Ok(HeaderFields(v))
    }

    /// The string field `k`.
    pub(crate) fn text(&self, k: &str) -> Result<String, String> {
        self.0
            .get(k)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| format!("header field {k:?} must be a string"))
    }

    /// The whole-number field `k`.
    pub(crate) fn count(&self, k: &str) -> Result<u64, String> {
        self.0
            .get(k)
            .and_then(Value::as_i64)
            .and_then(|x| u64::try_from(x).ok())
            .ok_or_else(|| format!("header field {k:?} must be a whole number"))
    }
}

/// Reads a header line.
pub fn parse_header(line: &str) -> Result<ReportHead, String> {
    let h = HeaderFields::read(line, ENV_RUN_FORMAT, "env-result")?;
    let (s, n) = (|k: &str| h.text(k), |k: &str| h.count(k));
    Ok(ReportHead {
        model_name: s("model_name")?,
        dataset_fingerprint: s("dataset_fingerprint")?,
        history_mode: s("history_mode")?,
        env_version: s("env_version")?,
        status: s("status")?,
        tasks_total: n("tasks_total")?,
        trial: n("trial")?,
        sessions_without_env: n("sessions_without_env")?,
    })
}

/// The sha256 of a state's canonical text without ids (a diagnostic, not the verdict).
pub fn digest(ledger: &crate::ledger::Ledger) -> String {
    use sha2::{Digest, Sha256};
    let text = without_ids(&write_ledger(ledger, &[]));
    let hash = Sha256::digest(text.as_bytes());
    hash.iter().map(|b| format!("{b:02x}")).collect()
}

/// The scored form of one task: the trace, annotated, plus the verdict.
pub fn task_value(trace_value: &Value, score: &TaskScore) -> Value {
    let mut steps = trace_value
        .get("steps")
        .cloned()
        .unwrap_or(Value::Array(Vec::new()));
    let mut k = 0;
    if let Value::Array(list) = &mut steps {
        for step in list.iter_mut() {
            if let Some(Value::Array(calls)) = step.as_object_mut().and_then(|s| s.get_mut("calls"))
            {
                for c in calls.iter_mut() {
                    if let (Some(o), Some(cs)) = (c.as_object_mut(), score.calls.get(k)) {
                        o.insert("write", Value::Bool(cs.write));
                        o.insert("accepted", Value::Bool(cs.accepted));
                        o.insert(
                            "new_violations",
                            Value::Array(cs.new_violations.iter().map(|v| v.to_value()).collect()),
                        );
                    }
                    k += 1;
                }
            }
        }
    }
    let mut m = Map::new();
    m.insert("task", Value::int(score.task as i64));
    m.insert("challenge", Value::str(score.challenge.as_str()));
    m.insert("end", Value::str(score.end.as_str()));
    m.insert(
        "answer",
        trace_value.get("answer").cloned().unwrap_or(Value::Null),
    );
    m.insert("steps", steps);
    let mut w = Map::new();
    w.insert("accepted", Value::int(score.accepted_writes as i64));
    w.insert("rejected", Value::int(score.rejected_writes as i64));
    w.insert("optimal", Value::int(score.optimal_writes as i64));
    m.insert("writes", Value::Object(w));
    m.insert(
        "correction",
        score
            .correction
            .map(|c| Value::str(c.as_str()))
            .unwrap_or(Value::Null),
    );
    let mut c = Map::new();
    for (name, v) in score.components.pairs() {
        c.insert(name, Value::Bool(v));
    }
    m.insert("components", Value::Object(c));
    m.insert("env_success", Value::Bool(score.env_success));
    m.insert("excess_writes", Value::int(score.excess_writes));
    m.insert(
        "path_label_env",
        Value::str(if score.path_label_correct {
            "correct"
        } else {
            "error"
        }),
    );
    m.insert(
        "dirty_steps",
        Value::Array(
            score
                .dirty_steps
                .iter()
                .map(|&s| Value::int(s as i64))
                .collect(),
        ),
    );
    m.insert(
        "violations",
        Value::Array(
            score
                .final_violations
                .iter()
                .map(|v| v.to_value())
                .collect(),
        ),
    );
    let mut mm = Map::new();
    mm.insert("found", Value::int(score.mentions.0 as i64));
    mm.insert("required", Value::int(score.mentions.1 as i64));
    m.insert("mentions", Value::Object(mm));
    if !score.drift.is_empty() {
        m.insert(
            "drift",
            Value::Array(
                score
                    .drift
                    .iter()
                    .map(|(s, c)| Value::Array(vec![Value::int(*s as i64), Value::int(*c as i64)]))
                    .collect(),
            ),
        );
    }
    m.insert("digest_actual", Value::Str(digest(&score.actual)));
    m.insert("digest_expected", Value::Str(digest(&score.expected)));
    Value::Object(m)
}

/// A session's scenario and gold replay, built once.
#[derive(Debug, Clone)]
pub struct SessionEnv {
    /// The scenario.
    pub scenario: Scenario,
    /// Its gold replay.
    pub replay: Replay,
}

impl SessionEnv {
    /// The environment of `session` (`Ok(None)` when it has no `ledger_env`).
    pub fn of(session: &Session) -> Result<Option<Self>, super::scenario::ScenarioError> {
        Ok(scenario_of(session)?.map(|scenario| {
            let replay = replay_gold(session, &scenario);
            Self { scenario, replay }
        }))
    }
}

/// A session line of `env-result.jsonl` from its task traces (in task order). Errors name
/// the task.
pub fn session_line(
    session: &Session,
    env: &SessionEnv,
    model: &str,
    history_mode: &str,
    traces: &[Value],
) -> Result<(String, Vec<TaskScore>), String> {
    let mut tasks = Vec::new();
    let mut scores = Vec::new();
    for (i, tv) in traces.iter().enumerate() {
        let trace = TaskTrace::from_value(tv, &format!("tasks[{i}]")).map_err(|e| e.to_string())?;
        let score = score_task(session, &env.scenario, &env.replay, &trace, false)
            .map_err(|e| e.to_string())?;
        tasks.push(task_value(tv, &score));
        scores.push(score);
    }
    let mut m = Map::new();
    m.insert("id", Value::str(session.id.clone()));
    m.insert("line", Value::int(session.index as i64));
    m.insert("model_name", Value::str(model));
    m.insert("history_mode", Value::str(history_mode));
    m.insert("env_version", Value::str(ENV_VERSION));
    m.insert("tasks", Value::Array(tasks));
    Ok((dumps(&Value::Object(m), Escape::Utf8), scores))
}

/// An `env-result.jsonl` scored: the report text, per-session scores and the problems
/// (damaged or unscorable lines, named by number).
#[derive(Debug, Clone)]
pub struct Scored {
    /// `env-report.json` text.
    pub report: String,
    /// The metrics.
    pub metrics: EnvMetrics,
    /// The header.
    pub head: ReportHead,
    /// Scored sessions by dataset index, with their task scores.
    pub sessions: BTreeMap<usize, Vec<TaskScore>>,
    /// `(line number, problem)` for every line that was not scored.
    pub problems: Vec<(usize, String)>,
}

/// Why a whole file cannot be scored.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FileError {
    /// No header line.
    #[error("{0}")]
    Header(String),
    /// The file belongs to another dataset.
    #[error("these results were produced on dataset {found}, not {expected}; nothing was scored")]
    Dataset {
        /// The header's fingerprint.
        found: String,
        /// The given dataset's.
        expected: String,
    },
    /// Another environment version.
    #[error("these results were produced by {found}, not {ENV_VERSION}; re-run them")]
    Version {
        /// The header's version.
        found: String,
    },
}

/// Scores an `env-result.jsonl` text against the dataset's sessions (the run calls this
/// on the text it wrote, `env-score` on the file it reads: the same function of the same
/// bytes). A damaged line costs that line only. `lenient` accepts recomputed results that
/// differ from the recorded ones.
pub fn score_file(
    sessions: &[Session],
    fingerprint: &str,
    text: &str,
    lenient: bool,
) -> Result<Scored, FileError> {
    let mut head: Option<ReportHead> = None;
    let mut problems = Vec::new();
    let mut scored: BTreeMap<usize, Vec<TaskScore>> = BTreeMap::new();
    let by_id: BTreeMap<&str, &Session> =
        crate::order::map_from(sessions.iter().map(|s| (s.id.as_str(), s)));
    let mut envs: BTreeMap<usize, SessionEnv> = BTreeMap::new();
    for (span, line) in lines::split(text.as_bytes()) {
        let no = span.number;
        let line = match line {
            Ok(Some(l)) => l,
            Ok(None) => continue,
            Err(e) => {
                if head.is_none() {
                    return Err(FileError::Header(format!("line {no}: {e}")));
                }
                problems.push((no, e.to_string()));
                continue;
            }
        };
        if head.is_none() {
            let h = parse_header(line).map_err(|e| FileError::Header(format!("line {no}: {e}")))?;
            if h.dataset_fingerprint != fingerprint {
                return Err(FileError::Dataset {
                    found: h.dataset_fingerprint,
                    expected: fingerprint.to_owned(),
                });
            }
            if h.env_version != ENV_VERSION {
                return Err(FileError::Version {
                    found: h.env_version,
                });
            }
            head = Some(h);
            continue;
        }
        let result = (|| -> Result<(usize, Vec<TaskScore>), String> {
            let v = loads(line).map_err(|e| format!("not JSON: {e}"))?;
            let id = v.get("id").and_then(Value::as_str).ok_or("no session id")?;
            let session = by_id
                .get(id)
                .ok_or_else(|| format!("session {id} is not in the dataset"))?;
            if scored.contains_key(&session.index) {
                return Err(format!("session {id} appears twice"));
            }
            let tasks = v
                .get("tasks")
                .and_then(Value::as_array)
                .ok_or("\"tasks\" must be a list")?;
            if tasks.len() != session.tasks.len() {
                return Err(format!(
                    "{} task(s) for a session of {}",
                    tasks.len(),
                    session.tasks.len()
                ));
            }
            let env = match envs.entry(session.index) {
                std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::btree_map::Entry::Vacant(v) => v.insert(
                    SessionEnv::of(session)
                        .map_err(|e| e.to_string())?
                        .ok_or_else(|| format!("session {id} has no ledger_env"))?,
                ),
            };
            let mut out = Vec::new();
            for (i, tv) in tasks.iter().enumerate() {
                let trace =
                    TaskTrace::from_value(tv, &format!("tasks[{i}]")).map_err(|e| e.to_string())?;
                if trace.task != i {
                    return Err(format!("tasks[{i}] is task {}", trace.task));
                }
                out.push(
                    score_task(session, &env.scenario, &env.replay, &trace, lenient)
                        .map_err(|e| e.to_string())?,
                );
            }
            Ok((session.index, out))
        })();
        match result {
            Ok((index, tasks)) => {
                scored.insert(index, tasks);
            }
            Err(e) => problems.push((no, format!("line {no}: {e}"))),
        }
    }
    let head = head
        .ok_or_else(|| FileError::Header("the file is empty: it has no header line".to_owned()))?;
    let mut metrics = EnvMetrics::default();
    for tasks in scored.values() {
        metrics.add_session(tasks);
    }
    let damaged: Vec<usize> = problems.iter().map(|p| p.0).collect();
    let report = report_text(&head, &metrics, scored.len() as u64, &damaged);
    Ok(Scored {
        report,
        metrics,
        head,
        sessions: scored,
        problems,
    })
}

/// A digest of everything the environment computes for a session's gold: the canonical
/// text of every state (initial, and after each task) and every gold observation in
/// dumps-utf8. The same on every platform (tests compare it natively and in WebAssembly).
pub fn scenario_digest(env: &SessionEnv) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for state in &env.replay.pre {
        h.update(write_ledger(state, &[]).as_bytes());
    }
    for c in &env.replay.calls {
        h.update(dumps(&c.outcome.result, Escape::Utf8).as_bytes());
        h.update(b"\n");
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// `id digest` lines for every session of `text` with a `ledger_env` (see
/// [`scenario_digest`]).
pub fn suite_digests(text: &str) -> String {
    let loaded = crate::dataset::load_dataset(text, crate::dataset::Lang::En);
    let mut out = String::new();
    for s in &loaded.sessions {
        if let Ok(Some(env)) = SessionEnv::of(s) {
            out.push_str(&s.id);
            out.push(' ');
            out.push_str(&scenario_digest(&env));
            out.push('\n');
        }
    }
    out
}
