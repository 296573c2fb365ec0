//! Realises one session plan as text: picks operations that fit each task's topology,
//! links each later task to an entity of the session as its hidden-intent subtype asks,
//! draws values, renders messages, clarifications, calls, observations and answers, and
//! keeps track of which dialogue turn last stated each entity.
//!
//! This file holds the [`Builder`]'s state and the types its parts share; its methods are
//! grouped by job, one file each: `values` (drawing and saying values), `instances` (an
//! operation with its slots bound), `links` (referring back to the session's entities),
//! `ops` (operations by role and the tool graphs built from them), `texts` (the words and
//! nodes of a task) and `tasks` (building a task, with retries, and the session's tools).

mod instances;
mod links;
mod ops;
mod tasks;
mod texts;
mod values;

use std::collections::{BTreeMap, BTreeSet};

use crate::json::{Map, Value};
use crate::outcome::{TaskType, TurnSubtype};

use super::pack::{Chat, Common, Op, Pack, Slot, SlotType};
use super::plan::SessionPlan;
use super::rng::Rng;
use super::template::Text;
use super::value::{text_of, Val};
use super::GenerateError;

/// Why a draw failed: try another draw, or stop (a pack error).
#[derive(Debug)]
pub enum Fail {
    /// This draw cannot satisfy the plan; the caller tries another.
    Retry(String),
    /// The packs are broken.
    Fatal(GenerateError),
}

type Res<T> = Result<T, Fail>;

fn retry<T>(why: &str) -> Res<T> {
    Err(Fail::Retry(why.to_owned()))
}

/// An entity of the session.
#[derive(Debug, Clone)]
struct Entity {
    kind: String,
    fields: Vec<(String, Val)>,
    key: String,
    /// Last user turn whose exchange states the key.
    last: Option<usize>,
    /// Whether the user's own text of that turn states it.
    by_user: bool,
}

/// One user turn: the user's text and everything in its exchange.
#[derive(Debug, Clone, Default)]
struct Turn {
    user: String,
    content: String,
}

/// An operation that can start a task, with the link that its slot takes, if any.
type Anchor<'a> = (&'a Op, Option<(String, Link)>);

/// What building one task yields before it becomes a [`BuiltTask`].
struct TaskParts {
    message: String,
    nodes: Vec<Value>,
    replies: Vec<String>,
    turns: Vec<Turn>,
    link: Option<Link>,
    ops: Vec<String>,
    asked: Vec<Value>,
}

/// Attempts at one task (with a look-ahead at the next) before the session is redrawn.
const TASK_ATTEMPTS: usize = 6;

/// What retrying a task must undo.
#[derive(Debug, Clone)]
struct State {
    entities: usize,
    marks: Vec<(Option<usize>, bool)>,
    turns: usize,
    used: BTreeSet<(String, String)>,
    called: usize,
    reserved: BTreeMap<usize, usize>,
    gone: BTreeSet<usize>,
}

/// How a slot is filled.
#[derive(Debug, Clone, PartialEq)]
enum Bind {
    /// Drawn now and said.
    Fresh,
    /// Taken from the session, said as this phrase (`None`: left out).
    Linked(Option<String>),
    /// Taken from an earlier call of the same request, said as this phrase.
    Chained(String),
    /// Left out; a clarification asks for it.
    Asked,
}

/// A slot's value as it is said, for the data card and the tests.
#[derive(Debug, Clone)]
struct Said {
    slot: String,
    class: &'static str,
    transformed: Option<bool>,
    text: String,
    value: String,
}

/// An operation (or chat) with its slot values.
#[derive(Debug, Clone)]
struct Inst<'p> {
    op: Option<&'p Op>,
    chat: Option<&'p Chat>,
    vals: BTreeMap<String, Val>,
    binds: BTreeMap<String, Bind>,
    verbal: BTreeMap<String, String>,
}

impl<'p> Inst<'p> {
    fn slots(&self) -> &'p [Slot] {
        match (self.op, self.chat) {
            (Some(op), _) => &op.slots,
            (None, Some(c)) => &c.slots,
            _ => &[],
        }
    }

    fn slot(&self, name: &str) -> Option<&'p Slot> {
        self.slots().iter().find(|s| s.name == name)
    }

    fn say(&self) -> &'p [Text] {
        match (self.op, self.chat) {
            (Some(op), _) => &op.say,
            (None, Some(c)) => &c.say,
            _ => &[],
        }
    }
}

/// A built task in official form.
#[derive(Debug, Clone)]
pub struct BuiltTask {
    /// The user message.
    pub message: String,
    /// Gold nodes (official node objects).
    pub nodes: Vec<Value>,
    /// Declared type.
    pub task_type: TaskType,
    /// Declared subtype.
    pub subtype: Option<TurnSubtype>,
    /// Clarification replies.
    pub replies: Vec<String>,
    /// Metadata.
    pub meta: Value,
}

/// A built session, before serialisation.
#[derive(Debug, Clone)]
pub struct BuiltSession {
    /// The tool list.
    pub tools: Vec<Value>,
    /// The tasks.
    pub tasks: Vec<BuiltTask>,
    /// Tools offered but never called.
    pub distractors: usize,
}

impl BuiltSession {
    /// The user's task messages (the `tasks` field). Clarification replies are short
    /// answers ("Oslo, please.") and are not included.
    pub fn utterances(&self) -> impl Iterator<Item = &str> {
        self.tasks.iter().map(|t| t.message.as_str())
    }
}

/// What a link to the session's memory looks like.
#[derive(Debug, Clone)]
struct Link {
    entity: usize,
    phrase: Option<String>,
    distance: usize,
    source: usize,
}

/// A node of the tool graph under construction.
struct GNode<'p> {
    inst: Inst<'p>,
    deps: Vec<usize>,
    produced: Option<usize>,
}

/// Builds one session.
pub struct Builder<'a> {
    common: &'a Common,
    pack: &'a Pack,
    plan: &'a SessionPlan,
    rng: Rng,
    entities: Vec<Entity>,
    turns: Vec<Turn>,
    used: BTreeSet<(String, String)>,
    said: Vec<Said>,
    called: Vec<String>,
    /// Entities kept back for a later long-range task (entity → task).
    reserved: BTreeMap<usize, usize>,
    /// The task being built.
    current: usize,
    /// Entities a call deleted or ended.
    gone: BTreeSet<usize>,
    /// A kind no call may draw fresh in the current task (the linked one).
    blocked_kind: Option<String>,
    /// Memo of [`Builder::reach`] (it depends only on the pack).
    reach_cache: std::cell::RefCell<BTreeMap<(String, usize), usize>>,
}

fn fill(pattern: &str, pairs: &[(&str, &str)]) -> String {
    let mut out = pattern.to_owned();
    for (k, v) in pairs {
        out = out.replace(&format!("{{{k}}}"), v);
    }
    out
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

fn fatal(pack: &str, message: String) -> Fail {
    Fail::Fatal(GenerateError::Pack {
        pack: pack.to_owned(),
        message,
    })
}

fn expand_id(pattern: &str, rng: &mut Rng) -> String {
    let mut out = String::new();
    let mut rest = pattern;
    while let Some(start) = rest.find('{') {
        out.push_str(rest.get(..start).unwrap_or(""));
        let after = rest.get(start + 1..).unwrap_or("");
        let Some(end) = after.find('}') else {
            out.push_str(rest.get(start..).unwrap_or(""));
            return out;
        };
        let spec = after.get(..end).unwrap_or("");
        let (alphabet, n): (&[u8], &str) = if let Some(n) = spec.strip_prefix("hex") {
            (b"0123456789abcdef", n)
        } else if let Some(n) = spec.strip_prefix("digits") {
            (b"0123456789", n)
        } else if let Some(n) = spec.strip_prefix("upper") {
            (b"ABCDEFGHJKLMNPQRSTUVWXYZ", n)
        } else if let Some(n) = spec.strip_prefix("lower") {
            (b"abcdefghijkmnpqrstuvwxyz", n)
        } else {
            (b"", "0")
        };
        let n: usize = n.parse().unwrap_or(0);
        for _ in 0..n {
            if let Some(&c) = alphabet.get(rng.below(alphabet.len())) {
                out.push(char::from(c));
            }
        }
        rest = after.get(end + 1..).unwrap_or("");
    }
    out.push_str(rest);
    out
}

/// Whether some request text of `op` mentions `slot` itself (a slot only the observation
/// uses cannot carry a reference).
fn said_anywhere(op: &Op, slot: &str) -> bool {
    op.say
        .iter()
        .any(|t| t.refs().iter().any(|r| r.slot == slot && r.field.is_none()))
}

fn class_name(ty: &SlotType) -> &'static str {
    ty.class().name()
}

impl<'a> Builder<'a> {
    /// A builder for `plan` drawing from `rng`.
    pub fn new(common: &'a Common, pack: &'a Pack, plan: &'a SessionPlan, rng: Rng) -> Self {
        Self {
            common,
            pack,
            plan,
            rng,
            entities: Vec::new(),
            turns: Vec::new(),
            used: BTreeSet::new(),
            said: Vec::new(),
            called: Vec::new(),
            reserved: BTreeMap::new(),
            current: 0,
            gone: BTreeSet::new(),
            blocked_kind: None,
            reach_cache: std::cell::RefCell::new(BTreeMap::new()),
        }
    }

    fn pick_str(&mut self, list: &[String]) -> String {
        self.rng.pick(list).cloned().unwrap_or_default()
    }

    fn bad(&self, m: String) -> Fail {
        fatal(&self.pack.id, m)
    }
}

fn node(
    idx: usize,
    name: &str,
    arguments: Value,
    observation: Value,
    deps: &[usize],
    user_input: Option<&str>,
) -> Value {
    let mut action = Map::new();
    action.insert("name", Value::str(name));
    action.insert("arguments", arguments);
    let mut m = Map::new();
    m.insert("idx", Value::int(idx as i64));
    m.insert("action", Value::Object(action));
    m.insert("observation", observation);
    m.insert(
        "dependency_list",
        Value::Array(deps.iter().map(|&d| Value::int(d as i64)).collect()),
    );
    if let Some(u) = user_input {
        m.insert("user_input", Value::str(u));
    }
    Value::Object(m)
}

/// Builds a whole session from its plan with the surface stream `rng`.
pub fn build_session(
    common: &Common,
    pack: &Pack,
    plan: &SessionPlan,
    rng: Rng,
) -> Res<(BuiltSession, String)> {
    let mut b = Builder::new(common, pack, plan, rng);
    let mut tasks = Vec::new();
    for p in 0..plan.tasks.len() {
        tasks.push(b.task(p)?);
    }
    let (tools, distractors) = b.tools()?;
    let env = b.env_info();
    Ok((
        BuiltSession {
            tools,
            tasks,
            distractors,
        },
        env,
    ))
}

/// Text of a value for checks.
pub fn value_text(v: &Value) -> String {
    text_of(v)
}
