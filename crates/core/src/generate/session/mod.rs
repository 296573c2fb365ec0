//! Realises one session plan as text: picks operations that fit each task's topology,
//! links each later task to an entity of the session as its hidden-intent subtype asks,
//! draws values, renders messages, clarifications, calls, observations and answers, and
//! keeps track of which dialogue turn last stated each entity.

use std::collections::{BTreeMap, BTreeSet};

use crate::json::{dumps, Escape, Map, Value};
use crate::outcome::{TaskType, TurnSubtype, ASK_NAME, PREPARE_NAME};

use super::calendar::{hhmm, iso, WEEKDAYS};
use super::pack::{Askable, Chat, Common, Op, Pack, Slot, SlotType};
use super::plan::{SessionPlan, TaskPlan};
use super::rng::Rng;
use super::spec::{subtype_name, ArgStyle, MixedShape};
use super::template::{Json, Ref, Text};
use super::value::{say, text_of, Val};
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

    // ----- values -------------------------------------------------------------------

    fn new_entity(&mut self, kind: &str, fields: Vec<(String, Val)>) -> Res<usize> {
        let key_val = fields
            .iter()
            .find(|(k, _)| k == "id")
            .or_else(|| fields.iter().find(|(k, _)| k == "name"))
            .map(|(_, v)| v.clone())
            .ok_or_else(|| self.bad(format!("an entity of {kind} has no name or id")))?;
        let key = key_val
            .canonical_text(false)
            .map_err(|e| self.bad(format!("entity key of {kind}: {e}")))?;
        self.entities.push(Entity {
            kind: kind.to_owned(),
            fields,
            key,
            last: None,
            by_user: false,
        });
        Ok(self.entities.len() - 1)
    }

    fn draw(&mut self, slot: &Slot, task_used: &mut BTreeSet<(String, String)>) -> Res<Val> {
        let today = self.plan.today;
        let r = &mut self.rng;
        Ok(match &slot.ty {
            SlotType::Kind(k) if self.blocked_kind.as_ref() == Some(k) => {
                return retry("the linked kind is taken in this task");
            }
            SlotType::Kind(k) => {
                let kind = self
                    .pack
                    .kind(k)
                    .ok_or_else(|| self.bad(format!("unknown kind {k}")))?;
                let name_of = |m: &Map| {
                    m.get("name")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned()
                };
                let kept: BTreeSet<String> = self
                    .reserved
                    .keys()
                    .filter_map(|&e| self.entities.get(e))
                    .map(|e| e.key.clone())
                    .collect();
                let allowed: Vec<&Map> = kind
                    .values
                    .iter()
                    .filter(|m| {
                        let name = name_of(m);
                        !task_used.contains(&(k.clone(), name.clone())) && !kept.contains(&name)
                    })
                    .collect();
                // Values new to the session first; once they run out, values the session
                // already named (the same entity again).
                let fresh: Vec<&Map> = allowed
                    .iter()
                    .copied()
                    .filter(|m| !self.used.contains(&(k.clone(), name_of(m))))
                    .collect();
                let pool = if fresh.is_empty() { &allowed } else { &fresh };
                let Some(record) = self.rng.pick(pool).map(|m| (*m).clone()) else {
                    return retry("no unused value of a kind");
                };
                let name = name_of(&record);
                task_used.insert((k.clone(), name.clone()));
                if let Some(e) = self
                    .entities
                    .iter()
                    .position(|e| &e.kind == k && e.key == name && e.last.is_some())
                {
                    return Ok(Val::Entity(e));
                }
                let fields = record
                    .iter()
                    .map(|(f, v)| (f.clone(), Val::Json(v.clone())))
                    .collect();
                Val::Entity(self.new_entity(k, fields)?)
            }
            SlotType::Int { lo, hi, step } => {
                let n = (hi - lo) / step;
                Val::Int(lo + step * r.range(0, n))
            }
            SlotType::Qty(u, pick) => Val::Qty(r.pick(pick).copied().unwrap_or(0), *u),
            SlotType::Money(lo, hi) => Val::Money(r.range(*lo, *hi)),
            SlotType::Date(lo, hi) => Val::Date(today + r.range(*lo, *hi)),
            SlotType::DateTime { days, hours, step } => {
                let d = today + r.range(days.0, days.1);
                let m = r.range(hours.0, hours.1) * 60 + step * r.range(0, (59 / step).max(0));
                Val::DateTime(d, m)
            }
            SlotType::Time(hours, step) => {
                Val::Time(r.range(hours.0, hours.1) * 60 + step * r.range(0, (59 / step).max(0)))
            }
            SlotType::Period(kinds) => {
                let k = r
                    .pick(kinds)
                    .copied()
                    .ok_or_else(|| self.bad("empty period".into()))?;
                let (s, e) = k.range(today);
                Val::Period(k, s, e)
            }
            SlotType::Choice(options, _) => {
                Val::Choice(r.pick(options).map(|(v, _)| v.clone()).unwrap_or_default())
            }
            SlotType::Text(list) => Val::Text(r.pick(list).cloned().unwrap_or_default()),
            SlotType::Id(pattern) => Val::Text(expand_id(pattern, r)),
            SlotType::Pick(list) => Val::Json(r.pick(list).cloned().unwrap_or(Value::Null)),
        })
    }

    fn resolve(&self, vals: &BTreeMap<String, Val>, r: &Ref) -> Res<Val> {
        let v = vals
            .get(&r.slot)
            .ok_or_else(|| self.bad(format!("slot {} has no value", r.slot)))?;
        match (v, &r.field) {
            (Val::Entity(i), Some(f)) => {
                let e = self
                    .entities
                    .get(*i)
                    .ok_or_else(|| self.bad("dangling entity".into()))?;
                e.fields
                    .iter()
                    .find(|(k, _)| k == f)
                    .map(|(_, v)| v.clone())
                    .ok_or_else(|| self.bad(format!("a {} has no field {f}", e.kind)))
            }
            (Val::Entity(i), None) => {
                let e = self
                    .entities
                    .get(*i)
                    .ok_or_else(|| self.bad("dangling entity".into()))?;
                Ok(Val::Json(Value::Str(e.key.clone())))
            }
            (other, Some(f)) => other
                .field(f)
                .ok_or_else(|| self.bad(format!("slot {} has no field {f}", r.slot))),
            (other, None) => Ok(other.clone()),
        }
    }

    fn canon(&self, vals: &BTreeMap<String, Val>, r: &Ref) -> Res<Value> {
        self.resolve(vals, r)?
            .canonical(r.neg)
            .map_err(|e| self.bad(format!("{{{}}}: {e}", r.slot)))
    }

    fn canon_text(&self, vals: &BTreeMap<String, Val>, r: &Ref) -> Res<String> {
        self.resolve(vals, r)?
            .canonical_text(r.neg)
            .map_err(|e| self.bad(format!("{{{}}}: {e}", r.slot)))
    }

    fn json(&self, j: &Json, vals: &BTreeMap<String, Val>) -> Res<Value> {
        Ok(match j {
            Json::Lit(v) => v.clone(),
            Json::Exact(r) => self.canon(vals, r)?,
            Json::Str(t) => Value::Str(self.text(t, vals)?),
            Json::Array(a) => Value::Array(
                a.iter()
                    .map(|x| self.json(x, vals))
                    .collect::<Res<Vec<_>>>()?,
            ),
            Json::Object(o) => {
                let mut m = Map::new();
                for (k, v) in o {
                    m.insert(k.clone(), self.json(v, vals)?);
                }
                Value::Object(m)
            }
        })
    }

    /// Renders a text with canonical values (assistant side).
    fn text(&self, t: &Text, vals: &BTreeMap<String, Val>) -> Res<String> {
        let mut fail = None;
        let out = t.render(&mut |r| match self.canon_text(vals, r) {
            Ok(s) => Ok(Some(s)),
            Err(e) => {
                fail = Some(e);
                Err(String::new())
            }
        });
        match (out, fail) {
            (_, Some(e)) => Err(e),
            (Ok(s), None) => Ok(s),
            (Err(e), None) => Err(self.bad(e)),
        }
    }

    /// The user's words for a fresh slot (cached per instance; recorded for the card).
    fn verbal(&mut self, inst: &mut Inst<'_>, slot: &str) -> Res<String> {
        if let Some(s) = inst.verbal.get(slot) {
            return Ok(s.clone());
        }
        let def = inst
            .slot(slot)
            .ok_or_else(|| self.bad(format!("unknown slot {slot}")))?;
        let val = inst
            .vals
            .get(slot)
            .cloned()
            .ok_or_else(|| self.bad(format!("slot {slot} has no value")))?;
        let transformed = match self.plan.args {
            ArgStyle::Literal => false,
            ArgStyle::Transformed => true,
            ArgStyle::Mixed => self.rng.chance(1, 2),
        };
        let (lit, phrases): (&str, Vec<String>) = match (&def.ty, &val) {
            (SlotType::Choice(options, lit), Val::Choice(v)) => (
                lit.as_str(),
                options
                    .iter()
                    .find(|(x, _)| x == v)
                    .map(|(_, p)| p.clone())
                    .unwrap_or_default(),
            ),
            _ => ("{v}", Vec::new()),
        };
        let text = match &val {
            Val::Entity(i) => (
                self.entities
                    .get(*i)
                    .map(|e| e.key.clone())
                    .unwrap_or_default(),
                None,
            ),
            _ => {
                let r = &mut self.rng;
                say(
                    &self.common.words,
                    &val,
                    self.plan.today,
                    transformed,
                    lit,
                    &phrases,
                    &mut |n| r.below(n),
                )
                .map_err(|e| fatal(&self.pack.id, format!("slot {slot}: {e}")))?
            }
        };
        if let Some(style) = text.1 {
            let value = match &val {
                Val::Date(d) | Val::DateTime(d, _) | Val::Period(_, d, _) => iso(*d),
                Val::Time(m) => hhmm(*m),
                Val::Qty(v, _) => v.to_string(),
                Val::Choice(v) => v.clone(),
                other => other.canonical_text(false).unwrap_or_default(),
            };
            self.said.push(Said {
                slot: slot.to_owned(),
                class: class_name(&def.ty),
                transformed: Some(style),
                text: text.0.clone(),
                value,
            });
        }
        inst.verbal.insert(slot.to_owned(), text.0.clone());
        Ok(text.0)
    }

    // ----- instances -----------------------------------------------------------------

    /// An instance of `op` (or `chat`) with the given bound slots; every other slot is
    /// drawn fresh.
    fn instance<'p>(
        &mut self,
        op: Option<&'p Op>,
        chat: Option<&'p Chat>,
        bound: Vec<(String, Val, Bind)>,
        task_used: &mut BTreeSet<(String, String)>,
    ) -> Res<Inst<'p>> {
        let mut inst = Inst {
            op,
            chat,
            vals: BTreeMap::new(),
            binds: BTreeMap::new(),
            verbal: BTreeMap::new(),
        };
        for (s, v, b) in bound {
            if let Val::Entity(e) = &v {
                if let Some(ent) = self.entities.get(*e) {
                    task_used.insert((ent.kind.clone(), ent.key.clone()));
                }
            }
            inst.vals.insert(s.clone(), v);
            inst.binds.insert(s, b);
        }
        for slot in inst.slots() {
            if inst.vals.contains_key(&slot.name) {
                continue;
            }
            let v = self.draw(slot, task_used)?;
            inst.vals.insert(slot.name.clone(), v);
            inst.binds.insert(slot.name.clone(), Bind::Fresh);
        }
        Ok(inst)
    }

    /// Renders the instance's request fragment (or chat question) with a template that
    /// can leave out every slot that must stay unsaid.
    fn fragment(&mut self, inst: &mut Inst<'_>) -> Res<String> {
        let unsaid: Vec<String> = inst
            .binds
            .iter()
            .filter(|(_, b)| matches!(b, Bind::Linked(None) | Bind::Asked))
            .map(|(s, _)| s.clone())
            .collect();
        let eligible: Vec<&Text> = inst
            .say()
            .iter()
            .filter(|t| {
                unsaid
                    .iter()
                    .all(|s| t.can_drop(s) || !t.refs().iter().any(|r| &r.slot == s))
            })
            .filter(|t| {
                // Linked and chained entities must be mentioned (as a phrase or left out
                // on purpose), so pick texts that mention every bound slot.
                inst.binds.iter().all(|(s, b)| {
                    matches!(b, Bind::Fresh)
                        || t.refs().iter().any(|r| &r.slot == s && r.field.is_none())
                })
            })
            .collect();
        let Some(t) = self.rng.pick(&eligible).copied() else {
            return retry("no text can leave the right slots unsaid");
        };
        let mut resolved: BTreeMap<String, Option<String>> = BTreeMap::new();
        for r in t.refs() {
            if r.field.is_some() || resolved.contains_key(&r.slot) {
                continue;
            }
            let said = match inst.binds.get(&r.slot).cloned().unwrap_or(Bind::Fresh) {
                Bind::Fresh => Some(self.verbal(inst, &r.slot)?),
                Bind::Linked(p) => p,
                Bind::Chained(p) => Some(p),
                Bind::Asked => None,
            };
            resolved.insert(r.slot.clone(), said);
        }
        let vals = inst.vals.clone();
        let mut fail = None;
        let out = t.render(&mut |r| {
            if r.field.is_none() {
                return Ok(resolved.get(&r.slot).cloned().flatten());
            }
            match self.canon_text(&vals, r) {
                Ok(s) => Ok(Some(s)),
                Err(e) => {
                    fail = Some(e);
                    Err(String::new())
                }
            }
        });
        match (out, fail) {
            (_, Some(e)) => Err(e),
            (Ok(s), None) => Ok(s),
            (Err(e), None) => Err(self.bad(e)),
        }
    }

    fn produce(&mut self, inst: &Inst<'_>) -> Res<Option<usize>> {
        let Some((kind, fields)) = inst.op.and_then(|o| o.out.as_ref()) else {
            return Ok(None);
        };
        let mut out = Vec::new();
        for (k, j) in fields {
            let v = match j {
                Json::Exact(r) => {
                    let v = self.resolve(&inst.vals, r)?;
                    match v {
                        Val::Entity(_) => Val::Json(self.canon(&inst.vals, r)?),
                        other if r.neg => Val::Json(
                            other
                                .canonical(true)
                                .map_err(|e| self.bad(format!("out {k}: {e}")))?,
                        ),
                        other => other,
                    }
                }
                other => Val::Json(self.json(other, &inst.vals)?),
            };
            out.push((k.clone(), v));
        }
        Ok(Some(self.new_entity(kind, out)?))
    }

    // ----- links ---------------------------------------------------------------------

    fn ordinal(&self, n: usize) -> String {
        self.common.ordinals.get(n).cloned().unwrap_or_default()
    }

    fn noun(&self, kind: &str) -> String {
        self.pack
            .kind(kind)
            .map(|k| k.noun.clone())
            .unwrap_or_default()
    }

    /// Rank of entity `e` among the entities of its kind last stated in the same turn,
    /// by position in that turn, and how many there are.
    fn rank(&self, e: usize) -> (usize, usize) {
        let Some(ent) = self.entities.get(e) else {
            return (0, 0);
        };
        let Some(turn) = ent.last.and_then(|t| self.turns.get(t)) else {
            return (0, 0);
        };
        let same: Vec<(usize, &Entity)> = self
            .entities
            .iter()
            .enumerate()
            .filter(|(_, x)| x.kind == ent.kind && x.last == ent.last)
            .collect();
        // Values the user listed are counted in the user's order; otherwise in the order
        // the exchange reported them last (the answer lists results call by call).
        let in_user = same.iter().all(|(_, x)| turn.user.contains(&x.key));
        let mut peers: Vec<(usize, usize)> = same
            .iter()
            .map(|(i, x)| {
                let at = if in_user {
                    turn.user.find(&x.key)
                } else {
                    turn.content.rfind(&x.key)
                };
                (at.unwrap_or(usize::MAX), *i)
            })
            .collect();
        peers.sort();
        let pos = peers.iter().position(|&(_, i)| i == e).unwrap_or(0);
        (pos, peers.len())
    }

    /// Entities of `kind` a task whose message is user turn `turn` can refer to with
    /// `subtype`, and how.
    fn links(
        &mut self,
        kind: &str,
        subtype: TurnSubtype,
        distance: Option<u8>,
        turn: usize,
    ) -> Vec<Link> {
        let of_kind: Vec<usize> = (0..self.entities.len())
            .filter(|&i| {
                self.entities
                    .get(i)
                    .is_some_and(|e| e.kind == kind && e.last.is_some_and(|l| l < turn))
                    && self.reserved.get(&i).is_none_or(|&q| q == self.current)
                    && !self.gone.contains(&i)
            })
            .collect();
        let latest = of_kind
            .iter()
            .filter_map(|&i| self.entities.get(i).and_then(|e| e.last))
            .max();
        let mut out = Vec::new();
        for &i in &of_kind {
            let Some(last) = self.entities.get(i).and_then(|e| e.last) else {
                continue;
            };
            let by_user = self.entities.get(i).is_some_and(|e| e.by_user);
            let d = turn - last;
            let (pos, peers) = self.rank(i);
            let noun = self.noun(kind);
            let phrase = match subtype {
                TurnSubtype::CoreferentialReference => {
                    if Some(last) != latest || !(1..=2).contains(&d) {
                        continue;
                    }
                    if peers > 1 {
                        let p = self.pick_str(&self.common.ordinal_ref.clone());
                        Some(fill(&p, &[("ord", &self.ordinal(pos)), ("noun", &noun)]))
                    } else {
                        let list = self
                            .pack
                            .kind(kind)
                            .map(|k| k.coref.clone())
                            .unwrap_or_default();
                        Some(self.pick_str(&list))
                    }
                }
                TurnSubtype::PartialInformation => {
                    if Some(last) != latest || !(1..=2).contains(&d) || peers != 1 {
                        continue;
                    }
                    None
                }
                TurnSubtype::LongRangeDependency => {
                    let ok = match distance {
                        Some(n) => d == usize::from(n),
                        None => d >= 3,
                    };
                    if !ok {
                        continue;
                    }
                    let which = if peers > 1 {
                        format!("{} ", self.ordinal(pos))
                    } else {
                        String::new()
                    };
                    let list = if by_user {
                        self.common.lr_said.clone()
                    } else {
                        self.common.lr_told.clone()
                    };
                    let p = self.pick_str(&list);
                    Some(fill(
                        &p,
                        &[
                            ("which", &which),
                            ("noun", &noun),
                            ("nth", &self.ordinal(last)),
                        ],
                    ))
                }
            };
            out.push(Link {
                entity: i,
                phrase,
                distance: d,
                source: last,
            });
        }
        out
    }

    /// Kinds a task planned as `tp` can refer back to: the reference kinds of the chats,
    /// or the kinds of linkable slots of operations that fit the task (for a
    /// clarification: enough askable slots besides the linked one, the first of the
    /// planned class).
    fn kinds_for(&self, tp: &TaskPlan) -> BTreeSet<&'a str> {
        let pack: &'a Pack = self.pack;
        if tp.task_type == TaskType::Chat {
            return pack.chats.iter().map(Chat::ref_kind).collect();
        }
        let mut out = BTreeSet::new();
        for op in &pack.ops {
            for (slot, kind) in op.entity_slots() {
                if !self.fresh_ok(op, &[slot]) || !said_anywhere(op, slot) {
                    continue;
                }
                if tp.task_type == TaskType::Clarify && !self.clarify_ok(op, Some(slot), tp) {
                    continue;
                }
                out.insert(kind);
            }
        }
        out
    }

    /// Whether `op`, linked through `linked`, can be the call of a clarification planned
    /// as `tp`: enough askable slots besides the linked one, the first of the planned class.
    fn clarify_ok(&self, op: &Op, linked: Option<&str>, tp: &TaskPlan) -> bool {
        let asks: Vec<&Askable> = op
            .askable
            .iter()
            .filter(|a| Some(a.slot.as_str()) != linked)
            .filter(|a| {
                !op.slot(&a.slot)
                    .is_some_and(|s| matches!(&s.ty, SlotType::Kind(k) if !self.user_kind(k)))
            })
            .collect();
        asks.len() >= usize::from(tp.rounds)
            && asks.iter().any(|a| tp.missing.is_none_or(|m| a.class == m))
    }

    /// Before task `p`: for every later long-range task whose source turns are all built,
    /// keeps one suitable entity back so that the tasks in between do not restate it.
    fn reserve(&mut self, p: usize) -> Res<()> {
        let built = self.turns.len();
        for q in p + 1..self.plan.tasks.len() {
            let Some(tq) = self.plan.tasks.get(q).cloned() else {
                continue;
            };
            if tq.subtype != Some(TurnSubtype::LongRangeDependency)
                || self.reserved.values().any(|&x| x == q)
            {
                continue;
            }
            let at = self.plan.message_turn(q);
            let (lo, hi) = match tq.distance {
                Some(d) => {
                    let t = at.saturating_sub(usize::from(d));
                    (t, t)
                }
                None => (0, at.saturating_sub(3)),
            };
            if lo >= built {
                continue;
            }
            let complete = hi < built;
            let hi = hi.min(built.saturating_sub(1));
            let kinds = self.kinds_for(&tq);
            let options: Vec<(usize, usize)> = self
                .entities
                .iter()
                .enumerate()
                .filter(|(i, e)| {
                    !self.reserved.contains_key(i)
                        && kinds.contains(e.kind.as_str())
                        && e.last.is_some_and(|l| (lo..=hi).contains(&l))
                })
                .map(|(i, e)| (e.last.unwrap_or(0), i))
                .collect();
            let best = options.iter().map(|(l, _)| *l).max();
            let nearest: Vec<usize> = options
                .iter()
                .filter(|(l, _)| Some(*l) == best)
                .map(|(_, i)| *i)
                .collect();
            let Some(&e) = self.rng.pick(&nearest) else {
                if complete {
                    return retry("nothing to keep for a long-range reference");
                }
                continue;
            };
            self.reserved.insert(e, q);
        }
        Ok(())
    }

    // ----- operations by role ---------------------------------------------------------

    fn user_kind(&self, kind: &str) -> bool {
        self.pack.kind(kind).is_some_and(|k| !k.values.is_empty())
    }

    /// Whether every entity slot of `op` except `except` can be drawn fresh.
    fn fresh_ok(&self, op: &Op, except: &[&str]) -> bool {
        op.entity_slots()
            .iter()
            .all(|(s, k)| except.contains(s) || self.user_kind(k))
    }

    /// Consumers of `kind` within one request: `(op, slot)` pairs where every other entity
    /// slot is fresh-drawable (removing calls only ever take entities from the session).
    fn consumers(&self, kind: &str) -> Vec<(&'a Op, &'a str)> {
        let pack: &'a Pack = self.pack;
        pack.ops
            .iter()
            .filter(|op| !op.removes)
            .filter_map(|op| {
                let slot = op.entity_slots().into_iter().find(|(_, k)| *k == kind)?.0;
                self.fresh_ok(op, &[slot]).then_some((op, slot))
            })
            .collect()
    }

    /// Length of the longest chain of consumers (each producing, except possibly the
    /// last) that can follow an output of `kind`, capped at `cap`.
    fn reach(&self, kind: &str, cap: usize) -> usize {
        if cap == 0 {
            return 0;
        }
        if let Some(r) = self.reach_cache.borrow().get(&(kind.to_owned(), cap)) {
            return *r;
        }
        let r = self.reach_uncached(kind, cap);
        self.reach_cache
            .borrow_mut()
            .insert((kind.to_owned(), cap), r);
        r
    }

    fn reach_uncached(&self, kind: &str, cap: usize) -> usize {
        let mut best = 0;
        for (op, _) in self.consumers(kind) {
            let further = match op.out_kind() {
                Some(k) if cap > 1 => self.reach(k, cap - 1),
                _ => 0,
            };
            best = best.max(1 + further);
            if best >= cap {
                break;
            }
        }
        best
    }

    fn chain_phrase(&mut self, kind: &str) -> String {
        let list = self
            .pack
            .kind(kind)
            .map(|k| k.chain.clone())
            .unwrap_or_default();
        self.pick_str(&list)
    }

    /// A consumer node bound to the output of `producers` (entity indexes, one per
    /// bound slot, matched by kind in slot order).
    fn consumer<'p>(
        &mut self,
        op: &'p Op,
        slots: &[(&str, usize)],
        ordinal: bool,
        task_used: &mut BTreeSet<(String, String)>,
    ) -> Res<Inst<'p>> {
        let mut bound = Vec::new();
        for (n, (slot, e)) in slots.iter().enumerate() {
            let kind = self
                .entities
                .get(*e)
                .map(|x| x.kind.clone())
                .unwrap_or_default();
            let phrase = if ordinal {
                let p = self.pick_str(&self.common.ordinal_ref.clone());
                fill(
                    &p,
                    &[("ord", &self.ordinal(n)), ("noun", &self.noun(&kind))],
                )
            } else {
                self.chain_phrase(&kind)
            };
            bound.push(((*slot).to_owned(), Val::Entity(*e), Bind::Chained(phrase)));
        }
        self.instance(Some(op), None, bound, task_used)
    }

    /// Anchor candidates: `(op, linked slot, link)`; for the first task, every op whose
    /// entity slots can all be drawn fresh.
    fn anchors(&mut self, tp: &TaskPlan, turn: usize, need: usize) -> Vec<Anchor<'a>> {
        let pack: &'a Pack = self.pack;
        let mut out = Vec::new();
        let mut by_kind: BTreeMap<&str, Vec<Link>> = BTreeMap::new();
        for op in &pack.ops {
            if need > 0 && op.out_kind().is_none_or(|k| self.reach(k, need) < need) {
                continue;
            }
            match tp.subtype {
                None => {
                    if self.fresh_ok(op, &[]) {
                        out.push((op, None));
                    }
                }
                Some(st) => {
                    for (slot, kind) in op.entity_slots() {
                        if !self.fresh_ok(op, &[slot]) || !said_anywhere(op, slot) {
                            continue;
                        }
                        if !by_kind.contains_key(kind) {
                            let links = self.links(kind, st, tp.distance, turn);
                            by_kind.insert(kind, links);
                        }
                        for l in by_kind.get(kind).into_iter().flatten() {
                            out.push((op, Some((slot.to_owned(), l.clone()))));
                        }
                    }
                }
            }
        }
        if tp.task_type == TaskType::Clarify {
            out.retain(|(op, l)| self.clarify_ok(op, l.as_ref().map(|(s, _)| s.as_str()), tp));
        }
        self.rng.shuffle(&mut out);
        // Without a fixed distance a long-range task refers to the nearest source that fits.
        if tp.subtype == Some(TurnSubtype::LongRangeDependency) && tp.distance.is_none() {
            out.sort_by_key(|(_, l)| l.as_ref().map(|(_, l)| l.distance).unwrap_or(0));
        }
        out
    }

    fn anchor_inst<'p>(
        &mut self,
        op: &'p Op,
        link: &Option<(String, Link)>,
        extra: Vec<(String, Val, Bind)>,
        task_used: &mut BTreeSet<(String, String)>,
    ) -> Res<Inst<'p>> {
        let mut bound = extra;
        if let Some((slot, l)) = link {
            bound.push((
                slot.clone(),
                Val::Entity(l.entity),
                Bind::Linked(l.phrase.clone()),
            ));
        }
        self.instance(Some(op), None, bound, task_used)
    }

    /// Fresh-drawable ops (for parallel members and side calls).
    fn free_ops(&self, need_out: bool) -> Vec<&'a Op> {
        let pack: &'a Pack = self.pack;
        pack.ops
            .iter()
            .filter(|op| self.fresh_ok(op, &[]) && (!need_out || op.out.is_some()))
            .filter(|op| self.unblocked(op, None))
            .collect()
    }

    /// Whether `op` draws no fresh value of the kind the task's link blocks (`bound`: a
    /// slot that is bound, not drawn).
    fn unblocked(&self, op: &Op, bound: Option<&str>) -> bool {
        match &self.blocked_kind {
            None => true,
            Some(b) => op
                .entity_slots()
                .iter()
                .all(|(s, k)| Some(*s) == bound || *k != b.as_str()),
        }
    }

    /// Tries to build the tool graph of a non-Clarify tool task.
    fn graph(&mut self, tp: &TaskPlan, turn: usize) -> Res<(Vec<GNode<'a>>, Option<Link>, String)> {
        let kind = match tp.task_type {
            TaskType::SingleTool => 0,
            TaskType::ParallelMultiTool => 1,
            TaskType::SequentialMultiTool => 2,
            _ => 3,
        };
        let need = match kind {
            2 => usize::from(tp.depth).saturating_sub(1),
            3 => 1,
            _ => 0,
        };
        let mut anchors: Vec<(Anchor<'a>, bool)> = self
            .anchors(tp, turn, need)
            .into_iter()
            .map(|a| (a, false))
            .collect();
        // In a chain-side or two-chain task the link may sit on the other root.
        let second_need = match (kind, tp.shape) {
            (3, MixedShape::ChainSide) => Some(0),
            (3, MixedShape::TwoChains) => Some(1),
            _ => None,
        };
        if let (Some(n), Some(_)) = (second_need, tp.subtype) {
            let more = self.anchors(tp, turn, n);
            anchors.extend(more.into_iter().map(|a| (a, true)));
            self.rng.shuffle(&mut anchors);
        }
        for ((op, link), second) in anchors.into_iter().take(32) {
            self.blocked_kind = None;
            let snapshot = self.entities.len();
            let attempt = match kind {
                0 => self.single(op, &link).map(|n| (n, String::new())),
                1 => self.parallel(op, &link, usize::from(tp.width)),
                2 => self.sequential(op, &link, usize::from(tp.depth)),
                _ => self.mixed(op, &link, tp.shape, second),
            };
            match attempt {
                Ok((nodes, text)) => return Ok((nodes, link.map(|(_, l)| l), text)),
                Err(Fail::Fatal(e)) => return Err(Fail::Fatal(e)),
                Err(Fail::Retry(_)) => {
                    self.entities.truncate(snapshot);
                    self.said.clear();
                }
            }
        }
        retry("no operation fits this task")
    }

    fn node<'p>(inst: Inst<'p>, deps: Vec<usize>) -> GNode<'p> {
        GNode {
            inst,
            deps,
            produced: None,
        }
    }

    fn single(&mut self, op: &'a Op, link: &Option<(String, Link)>) -> Res<Vec<GNode<'a>>> {
        let mut used = BTreeSet::new();
        let inst = self.anchor_inst(op, link, Vec::new(), &mut used)?;
        Ok(vec![Self::node(inst, vec![])])
    }

    fn args_of(&self, inst: &Inst<'_>) -> Res<String> {
        match inst.op {
            Some(op) => Ok(format!(
                "{}{}",
                op.tool,
                dumps(&self.json(&op.args, &inst.vals)?, Escape::Utf8)
            )),
            None => Ok(String::new()),
        }
    }

    fn parallel(
        &mut self,
        op: &'a Op,
        link: &Option<(String, Link)>,
        width: usize,
    ) -> Res<(Vec<GNode<'a>>, String)> {
        let mut used = BTreeSet::new();
        let first = self.anchor_inst(op, link, Vec::new(), &mut used)?;
        let mut seen = BTreeSet::new();
        seen.insert(self.args_of(&first)?);
        let mut nodes = vec![Self::node(first, vec![])];
        let mut free = self.free_ops(false);
        if free.is_empty() {
            return retry("no free operation");
        }
        self.rng.shuffle(&mut free);
        let mut tries = 0;
        while nodes.len() < width {
            tries += 1;
            if tries > width * 6 {
                return retry("not enough distinct parallel calls");
            }
            // Different operations first, then repeats with other values.
            let Some(&o) = free.get((tries - 1) % free.len()) else {
                return retry("no free operation");
            };
            let snapshot = self.entities.len();
            let inst = match self.instance(Some(o), None, Vec::new(), &mut used) {
                Ok(i) => i,
                Err(Fail::Retry(_)) => {
                    self.entities.truncate(snapshot);
                    continue;
                }
                Err(e) => return Err(e),
            };
            if seen.insert(self.args_of(&inst)?) {
                nodes.push(Self::node(inst, vec![]));
            } else {
                self.entities.truncate(snapshot);
            }
        }
        Ok((nodes, String::new()))
    }

    fn ensure_produced(&mut self, nodes: &mut [GNode<'a>], i: usize) -> Res<usize> {
        let Some(n) = nodes.get(i) else {
            return retry("no node");
        };
        if let Some(p) = n.produced {
            return Ok(p);
        }
        let inst = n.inst.clone();
        let Some(p) = self.produce(&inst)? else {
            return retry("the operation produces nothing");
        };
        if let Some(n) = nodes.get_mut(i) {
            n.produced = Some(p);
        }
        Ok(p)
    }

    fn sequential(
        &mut self,
        op: &'a Op,
        link: &Option<(String, Link)>,
        depth: usize,
    ) -> Res<(Vec<GNode<'a>>, String)> {
        let mut used = BTreeSet::new();
        let first = self.anchor_inst(op, link, Vec::new(), &mut used)?;
        let mut nodes = vec![Self::node(first, vec![])];
        self.extend_chain_exact(&mut nodes, 0, depth - 1, &mut used)?;
        Ok((nodes, String::new()))
    }

    /// Like [`Self::extend_chain`], but every consumer except the last must produce.
    fn extend_chain_exact(
        &mut self,
        nodes: &mut Vec<GNode<'a>>,
        prev: usize,
        more: usize,
        used: &mut BTreeSet<(String, String)>,
    ) -> Res<()> {
        let mut prev = prev;
        for step in 0..more {
            let last = step + 1 == more;
            let produced = self.ensure_produced(nodes, prev)?;
            let kind = self
                .entities
                .get(produced)
                .map(|e| e.kind.clone())
                .unwrap_or_default();
            let mut options = self.consumers(&kind);
            options.retain(|(op, slot)| self.unblocked(op, Some(slot)));
            let left = more - step - 1;
            if !last {
                options
                    .retain(|(op, _)| op.out_kind().is_some_and(|k| self.reach(k, left) >= left));
            }
            self.rng.shuffle(&mut options);
            let Some(&(op, slot)) = options.first() else {
                return retry("chain cannot continue");
            };
            let inst = self.consumer(op, &[(slot, produced)], false, used)?;
            nodes.push(Self::node(inst, vec![prev]));
            prev = nodes.len() - 1;
        }
        Ok(())
    }

    fn side(
        &mut self,
        nodes: &[GNode<'a>],
        need_out: bool,
        used: &mut BTreeSet<(String, String)>,
    ) -> Res<GNode<'a>> {
        let mut free = self.free_ops(need_out);
        if need_out {
            free.retain(|o| o.out_kind().is_some_and(|k| self.reach(k, 1) >= 1));
        }
        let mut seen = BTreeSet::new();
        for n in nodes {
            seen.insert(self.args_of(&n.inst)?);
        }
        for _ in 0..12 {
            let Some(&o) = self.rng.pick(&free) else {
                return retry("no free operation");
            };
            match self.instance(Some(o), None, Vec::new(), used) {
                Ok(inst) => {
                    if !seen.contains(&self.args_of(&inst)?) {
                        return Ok(Self::node(inst, vec![]));
                    }
                }
                Err(Fail::Retry(_)) => continue,
                Err(e) => return Err(e),
            }
        }
        retry("no distinct side call")
    }

    /// A Mixed task. With `second`, the given (linked) operation is the independent call
    /// of a chain-side shape or the head of the second chain, and the first chain starts
    /// with a fresh operation.
    fn mixed(
        &mut self,
        op: &'a Op,
        link: &Option<(String, Link)>,
        shape: MixedShape,
        second: bool,
    ) -> Res<(Vec<GNode<'a>>, String)> {
        let mut used = BTreeSet::new();
        let a = self.anchor_inst(op, link, Vec::new(), &mut used)?;
        let mut nodes = vec![Self::node(a, vec![])];
        if second {
            // The fresh chain is said before the reference, so it may not name a fresh
            // value of the linked kind: "that category" must not be read as a category
            // named earlier in the same message.
            self.blocked_kind = link
                .as_ref()
                .and_then(|(_, l)| self.entities.get(l.entity))
                .map(|e| e.kind.clone());
            let head = self.side(&nodes, true, &mut used)?;
            nodes.insert(0, head);
        }
        match shape {
            MixedShape::ChainSide => {
                // [A, S, B(A)]
                if !second {
                    let s = self.side(&nodes, false, &mut used)?;
                    nodes.push(s);
                }
                self.extend_chain_exact(&mut nodes, 0, 1, &mut used)?;
                self.fix_deps(&mut nodes, 2, vec![0]);
            }
            MixedShape::FanOut => {
                // [A, B(A), C(A)]
                let produced = self.ensure_produced(&mut nodes, 0)?;
                let kind = self
                    .entities
                    .get(produced)
                    .map(|e| e.kind.clone())
                    .unwrap_or_default();
                let mut options = self.consumers(&kind);
                options.retain(|(op, slot)| {
                    !op.removes && !op.consumes && self.unblocked(op, Some(slot))
                });
                self.rng.shuffle(&mut options);
                let mut seen = BTreeSet::new();
                for (o, slot) in options.iter().cycle().take(options.len() * 3) {
                    if nodes.len() == 3 {
                        break;
                    }
                    match self.consumer(o, &[(slot, produced)], false, &mut used) {
                        Ok(inst) => {
                            if seen.insert(self.args_of(&inst)?) {
                                nodes.push(Self::node(inst, vec![0]));
                            }
                        }
                        Err(Fail::Retry(_)) => continue,
                        Err(e) => return Err(e),
                    }
                }
                if nodes.len() != 3 {
                    return retry("no two consumers");
                }
            }
            MixedShape::FanIn => {
                // [A, B, C(A, B)]
                let pa = self.ensure_produced(&mut nodes, 0)?;
                let ka = self
                    .entities
                    .get(pa)
                    .map(|e| e.kind.clone())
                    .unwrap_or_default();
                let pack: &'a Pack = self.pack;
                let mut options: Vec<(&'a Op, String, String, String)> = Vec::new();
                for c in &pack.ops {
                    let es = c.entity_slots();
                    for (i, (s1, k1)) in es.iter().enumerate() {
                        for (j, (s2, k2)) in es.iter().enumerate() {
                            if i == j || *k1 != ka {
                                continue;
                            }
                            if self.fresh_ok(c, &[s1, s2]) {
                                options.push((
                                    c,
                                    (*s1).to_owned(),
                                    (*s2).to_owned(),
                                    (*k2).to_owned(),
                                ));
                            }
                        }
                    }
                }
                self.rng.shuffle(&mut options);
                let mut built = false;
                for (c, s1, s2, k2) in options {
                    let producers: Vec<&'a Op> = self
                        .free_ops(true)
                        .into_iter()
                        .filter(|o| o.out_kind() == Some(k2.as_str()))
                        .collect();
                    let Some(&b_op) = self.rng.pick(&producers) else {
                        continue;
                    };
                    let b = match self.instance(Some(b_op), None, Vec::new(), &mut used) {
                        Ok(b) => b,
                        Err(Fail::Retry(_)) => continue,
                        Err(e) => return Err(e),
                    };
                    let first = match nodes.first() {
                        Some(n) => self.args_of(&n.inst)?,
                        None => String::new(),
                    };
                    if self.args_of(&b)? == first {
                        continue;
                    }
                    nodes.push(Self::node(b, vec![]));
                    let pb = self.ensure_produced(&mut nodes, 1)?;
                    let same = ka == k2;
                    match self.consumer(c, &[(&s1, pa), (&s2, pb)], same, &mut used) {
                        Ok(inst) => {
                            nodes.push(Self::node(inst, vec![0, 1]));
                            built = true;
                            break;
                        }
                        Err(Fail::Retry(_)) => {
                            nodes.truncate(1);
                            continue;
                        }
                        Err(e) => return Err(e),
                    }
                }
                if !built {
                    return retry("no fan-in");
                }
            }
            MixedShape::TwoChains => {
                // [A, C, B(A), D(C)]
                if !second {
                    let c = self.side(&nodes, true, &mut used)?;
                    nodes.push(c);
                }
                self.extend_chain_exact(&mut nodes, 0, 1, &mut used)?;
                self.extend_chain_exact(&mut nodes, 1, 1, &mut used)?;
                self.fix_deps(&mut nodes, 2, vec![0]);
                self.fix_deps(&mut nodes, 3, vec![1]);
            }
        }
        Ok((nodes, String::new()))
    }

    /// Records the entities a removing call takes as gone.
    fn mark_gone(&mut self, inst: &Inst<'_>) {
        if !inst.op.is_some_and(|o| o.removes || o.consumes) {
            return;
        }
        for (slot, b) in &inst.binds {
            if matches!(b, Bind::Linked(_) | Bind::Chained(_)) {
                if let Some(Val::Entity(e)) = inst.vals.get(slot) {
                    self.gone.insert(*e);
                }
            }
        }
    }

    fn fix_deps(&self, nodes: &mut [GNode<'a>], i: usize, deps: Vec<usize>) {
        if let Some(n) = nodes.get_mut(i) {
            n.deps = deps;
        }
    }

    // ----- texts of a task -------------------------------------------------------------

    fn frame(&mut self, x: &str) -> String {
        let f = self.pick_str(&self.common.frames.clone());
        capitalize(&fill(&f, &[("x", x)]))
    }

    fn list(&self, items: &[String]) -> String {
        match items {
            [] => String::new(),
            [one] => one.clone(),
            [init @ .., last] => {
                format!("{}{}{last}", init.join(&self.common.comma), self.common.and)
            }
        }
    }

    fn then(&mut self) -> String {
        self.pick_str(&self.common.then.clone())
    }

    fn also(&mut self) -> String {
        self.pick_str(&self.common.also.clone())
    }

    fn opener(&mut self, p: usize) -> String {
        if p == 0 {
            String::new()
        } else {
            self.pick_str(&self.common.openers.clone())
        }
    }

    fn tail(&mut self) -> String {
        self.pick_str(&self.common.tails.clone())
    }

    fn request_text(&mut self, ty: TaskType, shape: MixedShape, frags: &[String]) -> String {
        let f = |i: usize| frags.get(i).cloned().unwrap_or_default();
        match ty {
            TaskType::ParallelMultiTool => self.list(frags),
            TaskType::SequentialMultiTool => {
                let mut out = f(0);
                for x in frags.iter().skip(1) {
                    out.push_str(&self.then());
                    out.push_str(x);
                }
                out
            }
            TaskType::MixedMultiTool => match shape {
                MixedShape::ChainSide => {
                    format!("{}{}{}{}{}", f(0), self.then(), f(2), self.also(), f(1))
                }
                MixedShape::FanOut => {
                    let l = self.list(&[f(1), f(2)]);
                    format!("{}{}{l}", f(0), self.then())
                }
                MixedShape::FanIn => {
                    let l = self.list(&[f(0), f(1)]);
                    format!("{l}{}{}", self.then(), f(2))
                }
                MixedShape::TwoChains => format!(
                    "{}{}{}{}{}{}{}",
                    f(0),
                    self.then(),
                    f(2),
                    self.also(),
                    f(1),
                    self.then(),
                    f(3)
                ),
            },
            _ => f(0),
        }
    }

    fn answer(&mut self, tells: &[String]) -> String {
        let x = tells.join(&self.common.tell_join);
        let f = self.pick_str(&self.common.answers.clone());
        fill(&f, &[("x", &x)])
    }

    fn tell(&mut self, inst: &Inst<'_>) -> Res<String> {
        let Some(op) = inst.op else {
            return Ok(String::new());
        };
        let t = self
            .rng
            .pick(&op.tell)
            .cloned()
            .ok_or_else(|| self.bad(format!("op {} has no tell", op.id)))?;
        self.text(&t, &inst.vals)
    }

    fn call_node(&self, idx: usize, inst: &Inst<'_>, deps: &[usize]) -> Res<(Value, String)> {
        let op = inst
            .op
            .ok_or_else(|| self.bad("a call without an op".into()))?;
        let args = self.json(&op.args, &inst.vals)?;
        let obs = self.json(&op.obs, &inst.vals)?;
        let content = format!(
            "{} {}",
            dumps(&args, Escape::Utf8),
            dumps(&obs, Escape::Utf8)
        );
        Ok((node(idx, &op.tool, args, obs, deps, None), content))
    }

    fn prepare_node(idx: usize, answer: &str, chat: bool, deps: Vec<usize>) -> Value {
        let mut a = Map::new();
        a.insert(
            "answer_type",
            Value::str(if chat { "chat" } else { "tool" }),
        );
        node(
            idx,
            PREPARE_NAME,
            Value::Object(a),
            Value::str(answer),
            &deps,
            None,
        )
    }

    /// Builds task `p`.
    pub fn task(&mut self, p: usize) -> Res<BuiltTask> {
        let mut why = String::new();
        for _ in 0..TASK_ATTEMPTS {
            let snap = self.snapshot();
            match self.task_once(p) {
                Ok(t) if self.next_can_refer_back(p) => return Ok(t),
                Ok(_) => why = "the next task could not refer back".into(),
                Err(Fail::Retry(w)) => why = w,
                Err(e) => return Err(e),
            }
            self.restore(snap);
        }
        Err(Fail::Retry(why))
    }

    fn snapshot(&self) -> State {
        State {
            entities: self.entities.len(),
            marks: self.entities.iter().map(|e| (e.last, e.by_user)).collect(),
            turns: self.turns.len(),
            used: self.used.clone(),
            called: self.called.len(),
            reserved: self.reserved.clone(),
            gone: self.gone.clone(),
        }
    }

    /// Undoes a task: entities and turns are only ever appended, and existing entities
    /// only change what turn last stated them.
    fn restore(&mut self, s: State) {
        self.entities.truncate(s.entities);
        for (e, (last, by_user)) in self.entities.iter_mut().zip(s.marks) {
            e.last = last;
            e.by_user = by_user;
        }
        self.turns.truncate(s.turns);
        self.used = s.used;
        self.called.truncate(s.called);
        self.reserved = s.reserved;
        self.gone = s.gone;
        self.said.clear();
    }

    /// Whether the task after `p`, if it refers back to a recent turn, has something to
    /// refer to (a cheap look-ahead that saves redrawing the whole session).
    fn next_can_refer_back(&mut self, p: usize) -> bool {
        let Some(next) = self.plan.tasks.get(p + 1).cloned() else {
            return true;
        };
        let Some(st) = next.subtype else {
            return true;
        };
        if st == TurnSubtype::LongRangeDependency {
            return true;
        }
        let turn = self.plan.message_turn(p + 1);
        let kinds: Vec<&str> = self.kinds_for(&next).into_iter().collect();
        let saved = self.rng.clone();
        let ok = kinds
            .iter()
            .any(|k| !self.links(k, st, None, turn).is_empty());
        self.rng = saved;
        ok
    }

    fn task_once(&mut self, p: usize) -> Res<BuiltTask> {
        self.blocked_kind = None;
        let tp = self
            .plan
            .tasks
            .get(p)
            .cloned()
            .ok_or_else(|| self.bad("no such task".into()))?;
        let turn = self.plan.message_turn(p);
        self.current = p;
        self.reserve(p)?;
        self.said.clear();
        let opener = self.opener(p);
        let TaskParts {
            message,
            nodes,
            replies,
            turns,
            link,
            ops,
            asked,
        } = match tp.task_type {
            TaskType::Chat => self.chat_task(&tp, turn, &opener)?,
            TaskType::Clarify => self.clarify_task(&tp, turn, &opener)?,
            _ => self.tool_task(&tp, turn, &opener)?,
        };
        // The turns of this task: update what each entity's last stated turn is.
        for (k, t) in turns.iter().enumerate() {
            let at = turn + k;
            for e in &mut self.entities {
                if !e.key.is_empty() && t.content.contains(&e.key) {
                    e.last = Some(at);
                    e.by_user = t.user.contains(&e.key);
                }
            }
        }
        self.turns.extend(turns);
        for e in &self.entities {
            if e.last.is_some() {
                self.used.insert((e.kind.clone(), e.key.clone()));
            }
        }
        let mut meta = Map::new();
        meta.insert(
            "ops",
            Value::Array(ops.into_iter().map(Value::Str).collect()),
        );
        if let Some(l) = &link {
            let e = self.entities.get(l.entity).cloned();
            let mut m = Map::new();
            m.insert(
                "subtype",
                Value::str(tp.subtype.map(subtype_name).unwrap_or("")),
            );
            m.insert(
                "kind",
                Value::str(e.as_ref().map(|e| e.kind.as_str()).unwrap_or("")),
            );
            m.insert(
                "key",
                Value::str(e.as_ref().map(|e| e.key.as_str()).unwrap_or("")),
            );
            m.insert("turn", Value::int(turn as i64));
            m.insert("source_turn", Value::int(l.source as i64));
            m.insert("distance", Value::int(l.distance as i64));
            meta.insert("link", Value::Object(m));
        }
        if !asked.is_empty() {
            meta.insert("asked", Value::Array(asked));
        }
        let said: Vec<Value> = self
            .said
            .iter()
            .map(|s| {
                let mut m = Map::new();
                m.insert("slot", Value::str(&s.slot));
                m.insert("class", Value::str(s.class));
                m.insert(
                    "style",
                    Value::str(match s.transformed {
                        Some(true) => "transformed",
                        _ => "literal",
                    }),
                );
                m.insert("text", Value::str(&s.text));
                m.insert("value", Value::str(&s.value));
                Value::Object(m)
            })
            .collect();
        if !said.is_empty() {
            meta.insert("said", Value::Array(said));
        }
        Ok(BuiltTask {
            message,
            nodes,
            task_type: tp.task_type,
            subtype: tp.subtype,
            replies,
            meta: Value::Object(meta),
        })
    }

    fn tool_task(&mut self, tp: &TaskPlan, turn: usize, opener: &str) -> Res<TaskParts> {
        let (mut gnodes, link, _) = self.graph(tp, turn)?;
        let mut frags = Vec::new();
        for g in &mut gnodes {
            let mut inst = g.inst.clone();
            frags.push(self.fragment(&mut inst)?);
            g.inst = inst;
        }
        let x = self.request_text(tp.task_type, tp.shape, &frags);
        let message = format!("{opener}{}{}", self.frame(&x), self.tail());
        let mut nodes = Vec::new();
        let mut content = message.clone();
        let mut tells = Vec::new();
        let mut ops = Vec::new();
        let dependants: BTreeSet<usize> =
            gnodes.iter().flat_map(|g| g.deps.iter().copied()).collect();
        for g in &gnodes {
            self.mark_gone(&g.inst);
        }
        for (i, g) in gnodes.iter().enumerate() {
            let (n, c) = self.call_node(i, &g.inst, &g.deps)?;
            nodes.push(n);
            content.push(' ');
            content.push_str(&c);
            tells.push(self.tell(&g.inst)?);
            if let Some(op) = g.inst.op {
                ops.push(op.id.clone());
                if !self.called.contains(&op.tool) {
                    self.called.push(op.tool.clone());
                }
            }
        }
        for i in 0..gnodes.len() {
            let Some(inst) = gnodes
                .get(i)
                .filter(|g| g.produced.is_none())
                .map(|g| g.inst.clone())
            else {
                continue;
            };
            if let Some(p) = self.produce(&inst)? {
                if let Some(g) = gnodes.get_mut(i) {
                    g.produced = Some(p);
                }
            }
        }
        let answer = self.answer(&tells);
        content.push(' ');
        content.push_str(&answer);
        let sinks: Vec<usize> = (0..gnodes.len())
            .filter(|i| !dependants.contains(i))
            .collect();
        nodes.push(Self::prepare_node(gnodes.len(), &answer, false, sinks));
        let turns = vec![Turn {
            user: message.clone(),
            content,
        }];
        Ok(TaskParts {
            message,
            nodes,
            replies: Vec::new(),
            turns,
            link,
            ops,
            asked: Vec::new(),
        })
    }

    fn askable_choice(
        &mut self,
        op: &'a Op,
        tp: &TaskPlan,
        linked: Option<&str>,
    ) -> Option<Vec<&'a Askable>> {
        let r = usize::from(tp.rounds);
        let candidates: Vec<&'a Askable> = op
            .askable
            .iter()
            .filter(|a| Some(a.slot.as_str()) != linked)
            .filter(|a| {
                !op.slot(&a.slot)
                    .is_some_and(|s| matches!(&s.ty, SlotType::Kind(k) if !self.user_kind(k)))
            })
            .collect();
        let firsts: Vec<&'a Askable> = candidates
            .iter()
            .copied()
            .filter(|a| tp.missing.is_none_or(|m| a.class == m))
            .collect();
        let first = *self.rng.pick(&firsts)?;
        let mut out = vec![first];
        if r == 2 {
            let rest: Vec<&'a Askable> = candidates
                .iter()
                .copied()
                .filter(|a| a.slot != first.slot)
                .collect();
            out.push(*self.rng.pick(&rest)?);
        }
        // Some text must leave every asked slot (and a left-out linked slot) unsaid.
        Some(out)
    }

    fn clarify_task(&mut self, tp: &TaskPlan, turn: usize, opener: &str) -> Res<TaskParts> {
        let anchors = self.anchors(tp, turn, 0);
        for (op, link) in anchors.into_iter().take(24) {
            let linked = link.as_ref().map(|(s, _)| s.as_str());
            let Some(asks) = self.askable_choice(op, tp, linked) else {
                continue;
            };
            let snapshot = self.entities.len();
            let mut used = BTreeSet::new();
            let mut inst = match self.anchor_inst(op, &link, Vec::new(), &mut used) {
                Ok(i) => i,
                Err(Fail::Retry(_)) => {
                    self.entities.truncate(snapshot);
                    continue;
                }
                Err(e) => return Err(e),
            };
            for a in &asks {
                inst.binds.insert(a.slot.clone(), Bind::Asked);
            }
            let frag = match self.fragment(&mut inst) {
                Ok(f) => f,
                Err(Fail::Retry(_)) => {
                    self.entities.truncate(snapshot);
                    self.said.clear();
                    continue;
                }
                Err(e) => return Err(e),
            };
            let message = format!("{opener}{}{}", self.frame(&frag), self.tail());
            let mut nodes = Vec::new();
            let mut replies = Vec::new();
            let mut turns = Vec::new();
            let mut user = message.clone();
            let mut asked_meta = Vec::new();
            for (k, a) in asks.iter().enumerate() {
                let q = self
                    .rng
                    .pick(&a.questions)
                    .cloned()
                    .ok_or_else(|| self.bad("no question".into()))?;
                let question = self.text(&q, &inst.vals)?;
                turns.push(Turn {
                    user: user.clone(),
                    content: format!("{user} {question}"),
                });
                let v = self.verbal(&mut inst, &a.slot)?;
                let reply = fill(&self.pick_str(&self.common.replies.clone()), &[("v", &v)]);
                let mut args = Map::new();
                args.insert("tool_name", Value::str(&op.tool));
                args.insert(
                    "missing_required_parameters",
                    Value::Array(a.params.iter().map(Value::str).collect()),
                );
                let deps: Vec<usize> = if k == 0 { vec![] } else { vec![k - 1] };
                nodes.push(node(
                    k,
                    ASK_NAME,
                    Value::Object(args),
                    Value::str(&question),
                    &deps,
                    Some(&reply),
                ));
                let mut m = Map::new();
                m.insert("slot", Value::str(&a.slot));
                m.insert("class", Value::str(a.class.name()));
                m.insert(
                    "params",
                    Value::Array(a.params.iter().map(Value::str).collect()),
                );
                asked_meta.push(Value::Object(m));
                replies.push(reply.clone());
                user = reply;
            }
            let r = asks.len();
            self.mark_gone(&inst);
            let (call, c) = self.call_node(r, &inst, &[r - 1])?;
            nodes.push(call);
            if !self.called.contains(&op.tool) {
                self.called.push(op.tool.clone());
            }
            let tell = self.tell(&inst)?;
            let answer = self.answer(&[tell]);
            nodes.push(Self::prepare_node(r + 1, &answer, false, vec![r]));
            self.produce(&inst)?;
            turns.push(Turn {
                user: user.clone(),
                content: format!("{user} {c} {answer}"),
            });
            return Ok(TaskParts {
                message,
                nodes,
                replies,
                turns,
                link: link.map(|(_, l)| l),
                ops: vec![op.id.clone()],
                asked: asked_meta,
            });
        }
        retry("no operation can be clarified here")
    }

    fn chat_task(&mut self, tp: &TaskPlan, turn: usize, opener: &str) -> Res<TaskParts> {
        let pack: &'a Pack = self.pack;
        let mut options: Vec<(&'a Chat, Option<Link>)> = Vec::new();
        for c in &pack.chats {
            let kind = c.ref_kind();
            match tp.subtype {
                None => {
                    if self.user_kind(kind) {
                        options.push((c, None));
                    }
                }
                Some(st) => {
                    for l in self.links(kind, st, tp.distance, turn) {
                        options.push((c, Some(l)));
                    }
                }
            }
        }
        self.rng.shuffle(&mut options);
        if tp.subtype == Some(TurnSubtype::LongRangeDependency) && tp.distance.is_none() {
            options.sort_by_key(|(_, l)| l.as_ref().map(|l| l.distance).unwrap_or(0));
        }
        for (c, link) in options.into_iter().take(24) {
            let snapshot = self.entities.len();
            let mut used = BTreeSet::new();
            let bound = match &link {
                Some(l) => vec![(
                    "ref".to_owned(),
                    Val::Entity(l.entity),
                    Bind::Linked(l.phrase.clone()),
                )],
                None => Vec::new(),
            };
            let attempt = self
                .instance(None, Some(c), bound, &mut used)
                .and_then(|mut inst| {
                    let q = self.fragment(&mut inst)?;
                    Ok((inst, q))
                });
            let (inst, q) = match attempt {
                Ok(x) => x,
                Err(Fail::Retry(_)) => {
                    self.entities.truncate(snapshot);
                    self.said.clear();
                    continue;
                }
                Err(e) => return Err(e),
            };
            let message = format!("{opener}{}{}", capitalize(&q), self.tail());
            let a = self
                .rng
                .pick(&c.answer)
                .cloned()
                .ok_or_else(|| self.bad("no answer".into()))?;
            let answer = self.text(&a, &inst.vals)?;
            let nodes = vec![Self::prepare_node(0, &answer, true, vec![])];
            let turns = vec![Turn {
                user: message.clone(),
                content: format!("{message} {answer}"),
            }];
            return Ok(TaskParts {
                message,
                nodes,
                replies: Vec::new(),
                turns,
                link,
                ops: vec![c.id.clone()],
                asked: Vec::new(),
            });
        }
        retry("no chat fits here")
    }

    /// The session's tools: every called tool and the planned number of distractors
    /// (look-alikes of called tools first, then other look-alikes, then unused tools of
    /// the pack), in a drawn order.
    pub fn tools(&mut self) -> Res<(Vec<Value>, usize)> {
        let mut list: Vec<Value> = Vec::new();
        for t in &self.called {
            let v = self
                .pack
                .tools
                .get(t)
                .cloned()
                .ok_or_else(|| self.bad(format!("unknown tool {t}")))?;
            list.push(v);
        }
        let mut near: Vec<Value> = Vec::new();
        let mut far: Vec<Value> = Vec::new();
        for l in &self.pack.lookalikes {
            if self.called.contains(&l.like) {
                near.push(l.tool.clone());
            } else {
                far.push(l.tool.clone());
            }
        }
        let mut unused: Vec<Value> = self
            .pack
            .tools
            .iter()
            .filter(|(n, _)| !self.called.contains(n))
            .map(|(_, v)| v.clone())
            .collect();
        self.rng.shuffle(&mut near);
        self.rng.shuffle(&mut far);
        self.rng.shuffle(&mut unused);
        let want = usize::from(self.plan.distractors);
        let pool: Vec<Value> = near
            .into_iter()
            .chain(far)
            .chain(unused)
            .take(want)
            .collect();
        if pool.len() < want {
            return retry("not enough distractor tools");
        }
        list.extend(pool);
        self.rng.shuffle(&mut list);
        Ok((list, want))
    }

    /// Weekday name of the session date (for `env_info`).
    pub fn env_info(&self) -> String {
        let (h, m) = (self.plan.minute / 60, self.plan.minute % 60);
        format!(
            "{} {h:02}:{m:02}:00 {}",
            iso(self.plan.today),
            WEEKDAYS
                .get(super::calendar::weekday(self.plan.today))
                .copied()
                .unwrap_or("")
        )
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
