//! Answering the environment loop's tool calls. The contract is a pure function of
//! serialisable input: the session (its dataset line), the task, the history mode, the
//! calls already executed in this task and the calls of this step; the state is rebuilt
//! from those (the gold state before the task, then the earlier calls) and the answers are
//! one object per call, `{"content", "result", "write", "accepted"}` (`content` is the text
//! of the tool message). [`step_json`] is that function over JSON text (what the page's
//! lab module exports); [`Answerer`] is the in-process form the CLI uses, which caches the
//! state of each running task and gives the same answers.

use std::collections::BTreeMap;

use crate::dataset::{parse_session, Lang, Session};
use crate::json::{dumps, loads, Escape, Map, Value};
use crate::protocol::{calls_value, ToolCall};

use super::model::Ledger;
use super::run_file::SessionEnv;
use super::tools::{call, Outcome};

/// The format marker of a step query.
pub const STEP_FORMAT: &str = "wildtool-env-step/1";

fn answer_value(o: &Outcome) -> Value {
    let content = match &o.result {
        Value::Str(s) => s.clone(),
        other => dumps(other, Escape::Utf8),
    };
    let mut m = Map::new();
    m.insert("content", Value::Str(content));
    m.insert("result", o.result.clone());
    m.insert("write", Value::Bool(o.write));
    m.insert("accepted", Value::Bool(o.accepted));
    Value::Object(m)
}

/// The state of task `task` after `prior` calls: in gold history the gold state before
/// the task, then the task's earlier calls; in own history (`own`) the initial ledger,
/// then every call of the session so far.
fn state_after(
    session: &Session,
    env: &SessionEnv,
    task: usize,
    prior: &[ToolCall],
    own: bool,
) -> Option<Ledger> {
    session.tasks.get(task)?;
    let mut state = env.replay.before(if own { 0 } else { task })?.clone();
    for c in prior {
        call(
            &mut state,
            &c.name,
            &c.arguments,
            &session.tools,
            env.scenario.options,
        );
    }
    Some(state)
}

/// The answers to `calls` after `prior` in task `task` (`own`: own history, `prior`
/// spanning the session): one answer object per call, or `None` when the session has no
/// such task.
pub fn answer_calls(
    session: &Session,
    env: &SessionEnv,
    task: usize,
    prior: &[ToolCall],
    calls: &[ToolCall],
    own: bool,
) -> Option<Vec<Value>> {
    let mut state = state_after(session, env, task, prior, own)?;
    Some(
        calls
            .iter()
            .map(|c| {
                answer_value(&call(
                    &mut state,
                    &c.name,
                    &c.arguments,
                    &session.tools,
                    env.scenario.options,
                ))
            })
            .collect(),
    )
}

/// The step query as JSON text: `{"format", "session": <dataset line>, "task", "history"
/// (`gold` or `own`), "prior": [{"id", "name", "arguments"}], "calls": […]}`.
pub fn step_query(
    session: &Session,
    task: usize,
    prior: &[ToolCall],
    calls: &[ToolCall],
    own: bool,
) -> String {
    let mut m = Map::new();
    m.insert("format", Value::str(STEP_FORMAT));
    m.insert("session", session.raw.clone());
    m.insert("line", Value::int(session.index as i64));
    m.insert("task", Value::int(task as i64));
    m.insert("history", Value::str(if own { "own" } else { "gold" }));
    m.insert("prior", calls_value(prior));
    m.insert("calls", calls_value(calls));
    dumps(&Value::Object(m), Escape::Utf8)
}

fn read_calls(v: Option<&Value>) -> Result<Vec<ToolCall>, String> {
    let list = v.and_then(Value::as_array).ok_or("calls must be a list")?;
    list.iter()
        .map(|c| {
            Ok(ToolCall {
                id: c.get("id").cloned().unwrap_or(Value::Null),
                name: c
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or("a call needs a name")?
                    .to_owned(),
                arguments: c.get("arguments").cloned().unwrap_or(Value::Null),
            })
        })
        .collect()
}

/// The pure step function over JSON: a [`step_query`] in, `{"results": [answer…]}` or
/// `{"error": "…"}` out.
pub fn step_json(input: &str) -> String {
    let out = (|| -> Result<Vec<Value>, String> {
        let v = loads(input).map_err(|e| format!("the query is not JSON: {e}"))?;
        if v.get("format").and_then(Value::as_str) != Some(STEP_FORMAT) {
            return Err(format!("the query is not a {STEP_FORMAT} query"));
        }
        let own = match v.get("history").and_then(Value::as_str) {
            Some("gold") => false,
            Some("own") => true,
            _ => return Err("history must be \"gold\" or \"own\"".to_owned()),
        };
        let line = v
            .get("line")
            .and_then(Value::as_i64)
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(0);
        let raw = v.get("session").ok_or("the query has no session")?;
        let text = dumps(raw, Escape::Utf8);
        let parsed = parse_session(line, &text, Lang::En);
        let session = parsed.session.ok_or("the session cannot be read")?;
        let task = v
            .get("task")
            .and_then(Value::as_i64)
            .and_then(|n| usize::try_from(n).ok())
            .ok_or("task must be a position")?;
        let env = SessionEnv::of(&session)
            .map_err(|e| e.to_string())?
            .ok_or("the session has no ledger_env")?;
        answer_calls(
            &session,
            &env,
            task,
            &read_calls(v.get("prior"))?,
            &read_calls(v.get("calls"))?,
            own,
        )
        .ok_or_else(|| format!("the session has no task {task}"))
    })();
    let mut m = Map::new();
    match out {
        Ok(results) => m.insert("results", Value::Array(results)),
        Err(e) => m.insert("error", Value::Str(e)),
    }
    dumps(&Value::Object(m), Escape::Utf8)
}

/// The in-process answerer: environments built once per session, the state of each
/// running task kept between its steps.
#[derive(Debug, Default)]
pub struct Answerer {
    envs: BTreeMap<usize, SessionEnv>,
    running: BTreeMap<(u32, usize, usize), (Ledger, usize)>,
    own: bool,
}

impl Answerer {
    /// An answerer for the sessions whose environments are given (by dataset index).
    pub fn new(envs: BTreeMap<usize, SessionEnv>) -> Self {
        Self {
            envs,
            running: BTreeMap::new(),
            own: false,
        }
    }

    /// The same answerer in own history (the prior calls of a step span the session).
    pub fn own_history(mut self) -> Self {
        self.own = true;
        self
    }

    /// The environment of a session.
    pub fn env(&self, index: usize) -> Option<&SessionEnv> {
        self.envs.get(&index)
    }

    /// Answers one step of task `(trial, session.index, task)`; the same answers as
    /// [`answer_calls`].
    pub fn answer(
        &mut self,
        trial: u32,
        session: &Session,
        task: usize,
        prior: &[ToolCall],
        calls: &[ToolCall],
    ) -> Result<Vec<Value>, String> {
        let env = self
            .envs
            .get(&session.index)
            .ok_or_else(|| format!("{} has no ledger environment", session.id))?;
        let key = (trial, session.index, task);
        let reuse = self
            .running
            .get(&key)
            .is_some_and(|(_, n)| *n == prior.len());
        if !reuse {
            let state = state_after(session, env, task, prior, self.own)
                .ok_or_else(|| format!("{} has no task {task}", session.id))?;
            self.running.insert(key, (state, prior.len()));
        }
        let (state, n) = self.running.get_mut(&key).ok_or("no state")?;
        let out: Vec<Value> = calls
            .iter()
            .map(|c| {
                answer_value(&call(
                    state,
                    &c.name,
                    &c.arguments,
                    &session.tools,
                    env.scenario.options,
                ))
            })
            .collect();
        *n += calls.len();
        Ok(out)
    }

    /// Forgets a task's state (it ended).
    pub fn forget(&mut self, trial: u32, line: usize, task: usize) {
        self.running.remove(&(trial, line, task));
    }
}
