//! The `ledger_env` scenario field of a session (ignored by the official code) and the
//! gold replay: the state before each task is the initial ledger plus the gold writes of
//! the earlier tasks (each along its first optimal path, calls in path order), and the
//! expected state of a task is that plus its own gold writes. Strict replay: the
//! observations the environment computes for the gold calls equal the dataset's.
//!
//! ```json
//! "ledger_env": {
//!   "format": "wildtool-ledger-env/1",
//!   "initial": "option \"operating_currency\" \"EUR\"\n2025-01-01 open Assets:Bank:Checking EUR\n…",
//!   "receipts": {"rcpt_…": {…}},
//!   "ids": {"seed": 1001, "reserved": {"txn": ["txn_5e20b8"], "rec": []}},
//!   "compare": {"narration": "ignore", "payee": "normalized", "tags": "exact", "merge_postings": true},
//!   "options": {"balances_after": false},
//!   "tasks": [{"challenge": "compositional", "must_mention": ["612.38"]}, {"challenge": "correction", "amends": "txn_5e20b8"}, …],
//!   "assertions": [{"kind": "txn_count", "where": {"payee": "Whole Foods Market", "date": "2025-05-06"}, "eq": 1}]
//! }
//! ```

use std::collections::{BTreeSet, VecDeque};

use crate::dataset::{NodeKind, Session};
use crate::json::{dumps, py_eq, Escape, Value};
use crate::protocol::Paths;

use super::check::{check_ledger, payee_norm};
use super::date::Date;
use super::model::Ledger;
use super::read::read_ledger;
use super::tools::{call, is_write, Outcome, ToolOptions};

/// The scenario format this build reads.
pub const SCENARIO_FORMAT: &str = "wildtool-ledger-env/1";

/// What a task tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Challenge {
    /// A bundled request (a read beside a write).
    Compositional,
    /// A correction of an earlier write (amend, not re-add).
    Correction,
    /// A question right after a write: no write is expected.
    QuestionAfterWrite,
    /// The write needs a clarification first.
    Clarify,
    /// A read-only task.
    Read,
    /// A plain write.
    Write,
}

impl Challenge {
    /// All, in report order.
    pub const ALL: [Challenge; 6] = [
        Challenge::Compositional,
        Challenge::Correction,
        Challenge::QuestionAfterWrite,
        Challenge::Clarify,
        Challenge::Read,
        Challenge::Write,
    ];

    /// The scenario spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Challenge::Compositional => "compositional",
            Challenge::Correction => "correction",
            Challenge::QuestionAfterWrite => "question_after_write",
            Challenge::Clarify => "clarify",
            Challenge::Read => "read",
            Challenge::Write => "write",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.as_str() == s)
    }
}

/// Per-task metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskMeta {
    /// What the task tests.
    pub challenge: Challenge,
    /// Numbers or strings the final answer must contain.
    pub must_mention: Vec<String>,
    /// The transaction a correction must amend.
    pub amends: Option<String>,
}

/// How states are compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompareOptions {
    /// Narrations must be equal (default: ignored).
    pub narration_exact: bool,
    /// Payees compared exactly (default: case-folded, whitespace collapsed).
    pub payee_exact: bool,
    /// Tags compared (default: yes).
    pub tags: bool,
    /// Postings to the same account and currency merged, zeros dropped (default: yes).
    pub merge_postings: bool,
}

impl Default for CompareOptions {
    fn default() -> Self {
        Self {
            narration_exact: false,
            payee_exact: false,
            tags: true,
            merge_postings: true,
        }
    }
}

/// A predicate on a state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assertion {
    /// Transactions with this payee (normalised), when given.
    pub payee: Option<String>,
    /// … on this date, when given.
    pub date: Option<Date>,
    /// … posting to this account, when given.
    pub account: Option<String>,
    /// … number exactly this many.
    pub eq: usize,
}

impl Assertion {
    /// Whether `ledger` satisfies it.
    pub fn holds(&self, ledger: &Ledger) -> bool {
        let n = ledger
            .txns
            .values()
            .filter(|t| {
                self.payee
                    .as_ref()
                    .is_none_or(|p| payee_norm(t.payee.as_deref()) == payee_norm(Some(p)))
                    && self.date.is_none_or(|d| t.date == d)
                    && self
                        .account
                        .as_ref()
                        .is_none_or(|a| t.postings.iter().any(|p| &p.account == a))
            })
            .count();
        n == self.eq
    }
}

/// A session's ledger scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// The state before the first task.
    pub initial: Ledger,
    /// Per-task metadata (one per task).
    pub tasks: Vec<TaskMeta>,
    /// Comparison settings.
    pub compare: CompareOptions,
    /// Result options of the tools.
    pub options: ToolOptions,
    /// Predicates on the expected and actual states.
    pub assertions: Vec<Assertion>,
}

/// A `ledger_env` field that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{session}: ledger_env{path}: {message}")]
pub struct ScenarioError {
    /// Session id.
    pub session: String,
    /// JSON path below `ledger_env` (`.initial`, `.tasks[2].challenge`).
    pub path: String,
    /// What is wrong.
    pub message: String,
}

/// The date and time of `english_env_info` (`2025-03-14 18:40:00 Friday`).
pub fn session_now(env_info: &str) -> Option<(Date, String)> {
    let mut parts = env_info.split_whitespace();
    let date = Date::parse(parts.next()?)?;
    let time = parts.next().unwrap_or("00:00:00").to_owned();
    Some((date, time))
}

/// True when the session carries a `ledger_env` field.
pub fn has_scenario(session: &Session) -> bool {
    session.raw.get("ledger_env").is_some()
}

/// Reads the session's `ledger_env` (`Ok(None)` when it has none).
pub fn scenario_of(session: &Session) -> Result<Option<Scenario>, ScenarioError> {
    let Some(env) = session.raw.get("ledger_env") else {
        return Ok(None);
    };
    let fail = |path: &str, message: String| ScenarioError {
        session: session.id.clone(),
        path: path.to_owned(),
        message,
    };
    let Value::Object(_) = env else {
        return Err(fail("", "must be an object".to_owned()));
    };
    match env.get("format").and_then(Value::as_str) {
        Some(SCENARIO_FORMAT) => {}
        Some(other) => {
            return Err(fail(
                ".format",
                format!("{other:?} is not a format this build reads ({SCENARIO_FORMAT})"),
            ))
        }
        None => {
            return Err(fail(
                ".format",
                format!("is missing (expected {SCENARIO_FORMAT:?})"),
            ))
        }
    }
    let text = env
        .get("initial")
        .and_then(Value::as_str)
        .ok_or_else(|| fail(".initial", "must be Beancount text (a string)".to_owned()))?;
    let ids = env.get("ids");
    let seed = match ids.and_then(|i| i.get("seed")) {
        None => 0,
        Some(v) => v
            .as_i64()
            .and_then(|n| u64::try_from(n).ok())
            .ok_or_else(|| fail(".ids.seed", "must be a whole number ≥ 0".to_owned()))?,
    };
    let mut reserved = std::collections::BTreeMap::new();
    let mut all_reserved = BTreeSet::new();
    if let Some(r) = ids.and_then(|i| i.get("reserved")) {
        let Value::Object(kinds) = r else {
            return Err(fail(
                ".ids.reserved",
                "must be an object of id lists".to_owned(),
            ));
        };
        for (kind, list) in kinds.iter() {
            let Some(list) = list.as_array() else {
                return Err(fail(
                    &format!(".ids.reserved.{kind}"),
                    "must be a list of ids".to_owned(),
                ));
            };
            let mut q = VecDeque::new();
            for v in list {
                let id = v.as_str().ok_or_else(|| {
                    fail(
                        &format!(".ids.reserved.{kind}"),
                        "ids are strings".to_owned(),
                    )
                })?;
                all_reserved.insert(id.to_owned());
                q.push_back(id.to_owned());
            }
            reserved.insert(kind.clone(), q);
        }
    }
    let mut ledger =
        read_ledger(text, seed, &all_reserved).map_err(|e| fail(".initial", e.to_string()))?;
    let (today, time) = session_now(&session.env_info).ok_or_else(|| {
        fail(
            "",
            format!(
                "english_env_info {:?} does not start with a date",
                session.env_info
            ),
        )
    })?;
    ledger.today = today;
    ledger.time = time;
    ledger.ids.seed = seed;
    ledger.ids.reserved = reserved;
    if let Some(r) = env.get("receipts") {
        let Value::Object(m) = r else {
            return Err(fail(
                ".receipts",
                "must be an object of receipts by id".to_owned(),
            ));
        };
        for (id, receipt) in m.iter() {
            ledger.receipts.insert(id.clone(), receipt.clone());
        }
    }
    let errors = check_ledger(&ledger);
    if let Some((class, message)) = errors.first() {
        return Err(fail(
            ".initial",
            format!("{} ({})", message, class.as_str()),
        ));
    }
    let mut tasks = Vec::new();
    let list = env
        .get("tasks")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if list.len() != session.tasks.len() {
        return Err(fail(
            ".tasks",
            format!(
                "has {} entries for {} tasks",
                list.len(),
                session.tasks.len()
            ),
        ));
    }
    for (i, t) in list.iter().enumerate() {
        let path = format!(".tasks[{i}]");
        let challenge = t
            .get("challenge")
            .and_then(Value::as_str)
            .and_then(Challenge::parse)
            .ok_or_else(|| {
                fail(
                    &format!("{path}.challenge"),
                    "must be compositional, correction, question_after_write, clarify, read or write".to_owned(),
                )
            })?;
        let must_mention = match t.get("must_mention") {
            None => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| {
                    v.as_str().map(str::to_owned).ok_or_else(|| {
                        fail(
                            &format!("{path}.must_mention"),
                            "items are strings".to_owned(),
                        )
                    })
                })
                .collect::<Result<_, _>>()?,
            Some(_) => {
                return Err(fail(
                    &format!("{path}.must_mention"),
                    "must be a list".to_owned(),
                ))
            }
        };
        let amends = t.get("amends").and_then(Value::as_str).map(str::to_owned);
        if challenge == Challenge::Correction && amends.is_none() {
            return Err(fail(
                &format!("{path}.amends"),
                "a correction names the transaction it amends".to_owned(),
            ));
        }
        tasks.push(TaskMeta {
            challenge,
            must_mention,
            amends,
        });
    }
    let c = env.get("compare");
    let setting = |k: &str| c.and_then(|c| c.get(k)).and_then(Value::as_str);
    let compare = CompareOptions {
        narration_exact: setting("narration") == Some("exact"),
        payee_exact: setting("payee") == Some("exact"),
        tags: setting("tags") != Some("ignore"),
        merge_postings: c
            .and_then(|c| c.get("merge_postings"))
            .map(|v| !matches!(v, Value::Bool(false)))
            .unwrap_or(true),
    };
    let options = ToolOptions {
        balances_after: matches!(
            env.get("options").and_then(|o| o.get("balances_after")),
            Some(Value::Bool(true))
        ),
    };
    let mut assertions = Vec::new();
    for (i, a) in env
        .get("assertions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        let path = format!(".assertions[{i}]");
        if a.get("kind").and_then(Value::as_str) != Some("txn_count") {
            return Err(fail(
                &format!("{path}.kind"),
                "only \"txn_count\" is supported".to_owned(),
            ));
        }
        let w = a.get("where");
        let get = |k: &str| {
            w.and_then(|w| w.get(k))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        let date =
            match get("date") {
                Some(d) => Some(Date::parse(&d).ok_or_else(|| {
                    fail(&format!("{path}.where.date"), "must be a date".to_owned())
                })?),
                None => None,
            };
        let eq = a
            .get("eq")
            .and_then(Value::as_i64)
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| fail(&format!("{path}.eq"), "must be a whole number".to_owned()))?;
        assertions.push(Assertion {
            payee: get("payee"),
            date,
            account: get("account"),
            eq,
        });
    }
    Ok(Some(Scenario {
        initial: ledger,
        tasks,
        compare,
        options,
        assertions,
    }))
}

/// One gold call as replayed.
#[derive(Debug, Clone, PartialEq)]
pub struct GoldCall {
    /// Task position.
    pub task: usize,
    /// Step on the first optimal path.
    pub step: usize,
    /// Node index.
    pub node: usize,
    /// Tool name.
    pub name: String,
    /// What the environment answered.
    pub outcome: Outcome,
    /// The dataset's observation.
    pub recorded: Value,
}

impl GoldCall {
    /// The computed observation equals the recorded one as parsed JSON.
    pub fn matches(&self) -> bool {
        py_eq(&self.outcome.result, &self.recorded)
    }

    /// … and byte for byte in dumps-utf8.
    pub fn matches_bytes(&self) -> bool {
        dumps(&self.outcome.result, Escape::Utf8) == dumps(&self.recorded, Escape::Utf8)
    }
}

/// The gold replay of a whole session.
#[derive(Debug, Clone, PartialEq)]
pub struct Replay {
    /// `pre[t]`: the state before task `t`; `pre[n]` is the state after the last task
    /// (so `pre[t + 1]` is task `t`'s expected state).
    pub pre: Vec<Ledger>,
    /// Every gold tool call, in replay order.
    pub calls: Vec<GoldCall>,
    /// Gold write nodes per task (the optimal number of writes).
    pub gold_writes: Vec<usize>,
}

impl Replay {
    /// The state before task `t`.
    pub fn before(&self, t: usize) -> Option<&Ledger> {
        self.pre.get(t)
    }

    /// Task `t`'s expected state.
    pub fn expected(&self, t: usize) -> Option<&Ledger> {
        self.pre.get(t + 1)
    }
}

/// The gold tool calls of a task, step by step, along its first optimal path (path order
/// within a step: the order the gold agent emits them). `None` for an unusable graph.
pub fn gold_steps(session: &Session, t: usize) -> Option<Vec<Vec<usize>>> {
    let task = session.tasks.get(t)?;
    let paths = Paths::new(task).ok()?;
    Some(
        paths
            .first_optimal_path()
            .into_iter()
            .map(|step| {
                step.into_iter()
                    .filter(|&i| task.nodes.get(i).is_some_and(|n| n.kind == NodeKind::Tool))
                    .collect()
            })
            .collect(),
    )
}

/// Replays every task's gold calls (see the module documentation).
pub fn replay_gold(session: &Session, scenario: &Scenario) -> Replay {
    let mut state = scenario.initial.clone();
    let mut pre = vec![state.clone()];
    let mut calls = Vec::new();
    let mut gold_writes = Vec::new();
    for (t, task) in session.tasks.iter().enumerate() {
        gold_writes.push(
            task.nodes
                .iter()
                .filter(|n| n.kind == NodeKind::Tool && is_write(&n.name))
                .count(),
        );
        for (s, step) in gold_steps(session, t)
            .unwrap_or_default()
            .into_iter()
            .enumerate()
        {
            for i in step {
                let Some(node) = task.nodes.get(i) else {
                    continue;
                };
                let outcome = call(
                    &mut state,
                    &node.name,
                    &node.arguments,
                    &session.tools,
                    scenario.options,
                );
                calls.push(GoldCall {
                    task: t,
                    step: s,
                    node: i,
                    name: node.name.clone(),
                    outcome,
                    recorded: node.observation.clone(),
                });
            }
        }
        pre.push(state.clone());
    }
    Replay {
        pre,
        calls,
        gold_writes,
    }
}
