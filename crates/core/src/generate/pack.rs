//! Domain packs: the data the generator draws sessions from, parsed and checked.
//!
//! A suite is generated from one *common* pack (the connective language: openers, frames,
//! replies, date and unit words) and one pack per domain (entity kinds with their values,
//! tool schemas, look-alike tools, operations and chat exchanges). The format is described
//! in README.md ("Domain packs"); everything here rejects a malformed pack with a message
//! naming the pack and the item, so no pack can make generation panic.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use crate::json::{Map, Value};

use super::spec::MissingClass;
use super::template::{value, Json, Text};
use super::value::{PeriodKind, Unit};
use super::GenerateError;

/// The `format` every pack declares.
pub const PACK_FORMAT: &str = "wildtool-pack/1";

/// The file names of the domain packs in `data/packs/` (the CLI compiles them in, the
/// page fetches them from `data/packs/` next to it), sorted.
pub const PACK_FILES: [&str; 14] = [
    "calendar.json",
    "common.json",
    "devtools.json",
    "email.json",
    "finance-ledger.json",
    "fitness.json",
    "home.json",
    "maps.json",
    "music.json",
    "news.json",
    "recipes.json",
    "shopping.json",
    "travel.json",
    "weather.json",
];

/// One pack file's text and a name for messages (usually the file name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackText<'a> {
    /// Name for messages.
    pub name: &'a str,
    /// The JSON text.
    pub text: &'a str,
}

/// Date, time and unit words of the common pack.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Words {
    /// A literal date adverbial, `{d}` the ISO date (`on {d}`).
    pub on_date: String,
    /// A time adverbial, `{t}` the time (`at {t}`).
    pub at_time: String,
    /// A day and a time, `{d}` and `{t}` their adverbials.
    pub date_time: String,
    /// A literal period, `{start}` and `{end}` ISO dates.
    pub period: String,
    /// Offset 0.
    pub today: String,
    /// Offset 1.
    pub tomorrow: String,
    /// Offset -1.
    pub yesterday: String,
    /// Offset 2.
    pub after_tomorrow: String,
    /// Offset n ≥ 2, `{n}`.
    pub in_days: String,
    /// Offset -n, `{n}`.
    pub days_ago: String,
    /// Offset 7.
    pub week_ahead: String,
    /// Offset 7n, `{n}` weeks.
    pub weeks_ahead: String,
    /// The next weekday 2–6 days ahead, `{wd}`.
    pub coming: String,
    /// 12:00.
    pub noon: String,
    /// A morning time, `{h}` the clock words (`7`, `half past 7`).
    pub am: String,
    /// An afternoon time (12:00–17:59), `{h}`.
    pub pm: String,
    /// An evening time (from 18:00), `{h}`.
    pub evening: String,
    /// `{h}:30`, `{h}` the hour.
    pub half_past: String,
    /// `{h}:15`.
    pub quarter_past: String,
    /// `{h-1}:45`, `{h}` the next hour.
    pub quarter_to: String,
    /// Other minutes, `{m}` and `{h}`.
    pub past: String,
    /// Weekday names, Monday first.
    pub weekdays: Vec<String>,
    /// Words for each period kind.
    pub periods: BTreeMap<String, String>,
    /// Singular and plural of each unit (and of the units conversions use).
    pub units: BTreeMap<String, [String; 2]>,
}

/// The connective language shared by all domains.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Common {
    /// Must be [`PACK_FORMAT`].
    pub format: String,
    /// Must be `"common"`.
    pub kind: String,
    /// Openers of messages after the first (`""` allowed), e.g. `Thanks. `.
    pub openers: Vec<String>,
    /// Frames of a request, `{x}` the request (`Could you {x}?`).
    pub frames: Vec<String>,
    /// Endings appended to a message (`""` allowed), e.g. ` No rush.`.
    pub tails: Vec<String>,
    /// Connectors of a chain (`, then `).
    pub then: Vec<String>,
    /// Connectors of independent parts (`; also `).
    pub also: Vec<String>,
    /// Separator of list items before the last.
    pub comma: String,
    /// Separator before the last list item.
    pub and: String,
    /// The user's replies to a clarifying question, `{v}` the value.
    pub replies: Vec<String>,
    /// Frames of a final answer, `{x}` the joined results.
    pub answers: Vec<String>,
    /// Separator of the results in an answer.
    pub tell_join: String,
    /// A reference by position among several values of a kind, `{ord}` `{noun}`.
    pub ordinal_ref: Vec<String>,
    /// A long-range reference to something the user said, `{which}` `{noun}` `{nth}`.
    pub lr_said: Vec<String>,
    /// A long-range reference to something the assistant reported, `{which}` `{noun}` `{nth}`.
    pub lr_told: Vec<String>,
    /// Ordinal words, first onwards.
    pub ordinals: Vec<String>,
    /// Date, time and unit words.
    pub words: Words,
}

/// An entity kind.
#[derive(Debug, Clone, PartialEq)]
pub struct Kind {
    /// Kind name.
    pub name: String,
    /// Noun for references (`city`).
    pub noun: String,
    /// Coreference phrases (`that city`).
    pub coref: Vec<String>,
    /// Phrases for the output of an earlier call of the same request (`it`).
    pub chain: Vec<String>,
    /// Values a user can name; empty for kinds only tools produce.
    pub values: Vec<Map>,
}

/// What a slot draws.
#[derive(Debug, Clone, PartialEq)]
pub enum SlotType {
    /// An entity of a kind.
    Kind(String),
    /// An integer in `lo..=hi` in steps.
    Int {
        /// Lowest.
        lo: i64,
        /// Highest.
        hi: i64,
        /// Step from `lo`.
        step: i64,
    },
    /// A quantity in a unit, one of the listed values.
    Qty(Unit, Vec<i64>),
    /// Money in cents, `lo..=hi`.
    Money(i64, i64),
    /// A day `lo..=hi` days from the session date.
    Date(i64, i64),
    /// A day and a time: days `lo..=hi`, hours `h0..=h1`, minutes in steps.
    DateTime {
        /// Days from the session date.
        days: (i64, i64),
        /// Hours.
        hours: (i64, i64),
        /// Minute step.
        step: i64,
    },
    /// A time of day: hours, minute step.
    Time((i64, i64), i64),
    /// A named period.
    Period(Vec<PeriodKind>),
    /// An enum value and its paraphrases; `lit` is the literal form with `{v}`.
    Choice(Vec<(String, Vec<String>)>, String),
    /// One of the texts.
    Text(Vec<String>),
    /// A generated identifier (`txn_{hex6}`, `EVT-{digits4}`).
    Id(String),
    /// One of the JSON values (observation details).
    Pick(Vec<Value>),
}

impl SlotType {
    /// The missing-parameter class of a slot of this type.
    pub fn class(&self) -> MissingClass {
        match self {
            SlotType::Kind(_) | SlotType::Text(_) | SlotType::Id(_) | SlotType::Pick(_) => {
                MissingClass::Name
            }
            SlotType::Int { .. } | SlotType::Qty(..) | SlotType::Money(..) => MissingClass::Number,
            SlotType::Date(..)
            | SlotType::DateTime { .. }
            | SlotType::Time(..)
            | SlotType::Period(_) => MissingClass::Date,
            SlotType::Choice(..) => MissingClass::Choice,
        }
    }
}

/// A named slot.
#[derive(Debug, Clone, PartialEq)]
pub struct Slot {
    /// Name.
    pub name: String,
    /// Type.
    pub ty: SlotType,
}

/// A slot a clarifying question can ask for.
#[derive(Debug, Clone, PartialEq)]
pub struct Askable {
    /// The slot.
    pub slot: String,
    /// The required parameters it fills (`missing_required_parameters`).
    pub params: Vec<String>,
    /// Its class.
    pub class: MissingClass,
    /// The questions.
    pub questions: Vec<Text>,
}

/// An operation: one tool call with its slots, arguments, observation and words.
#[derive(Debug, Clone, PartialEq)]
pub struct Op {
    /// Id (for messages).
    pub id: String,
    /// The tool called.
    pub tool: String,
    /// Slots in declaration order.
    pub slots: Vec<Slot>,
    /// Arguments.
    pub args: Json,
    /// Observation.
    pub obs: Json,
    /// Request fragments (imperative, lower-case start).
    pub say: Vec<Text>,
    /// Slots that can be asked for.
    pub askable: Vec<Askable>,
    /// The entity the call produces: kind and field templates.
    pub out: Option<(String, Vec<(String, Json)>)>,
    /// Result phrases for the final answer.
    pub tell: Vec<Text>,
    /// The call deletes or ends the entities it takes from the session or an earlier
    /// call: nothing refers to them afterwards, and no sibling call shares them.
    pub removes: bool,
    /// The call uses up the entity it takes (an order placed from a cart line): nothing
    /// refers to it afterwards and no sibling call shares it, but it may continue a chain.
    pub consumes: bool,
}

impl Op {
    /// The slot named `name`.
    pub fn slot(&self, name: &str) -> Option<&Slot> {
        self.slots.iter().find(|s| s.name == name)
    }

    /// Entity slots `(slot, kind)` in declaration order.
    pub fn entity_slots(&self) -> Vec<(&str, &str)> {
        self.slots
            .iter()
            .filter_map(|s| match &s.ty {
                SlotType::Kind(k) => Some((s.name.as_str(), k.as_str())),
                _ => None,
            })
            .collect()
    }

    /// The kind of the produced entity.
    pub fn out_kind(&self) -> Option<&str> {
        self.out.as_ref().map(|(k, _)| k.as_str())
    }
}

/// A chat exchange: a question about an entity of the session and its answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Chat {
    /// Id (for messages).
    pub id: String,
    /// Slots; `ref` is the entity the question is about.
    pub slots: Vec<Slot>,
    /// The questions (complete sentences).
    pub say: Vec<Text>,
    /// The answers.
    pub answer: Vec<Text>,
}

impl Chat {
    /// The kind of the `ref` slot.
    pub fn ref_kind(&self) -> &str {
        self.slots
            .iter()
            .find_map(|s| match (&s.ty, s.name.as_str()) {
                (SlotType::Kind(k), "ref") => Some(k.as_str()),
                _ => None,
            })
            .unwrap_or("")
    }
}

/// A tool offered as a distractor.
#[derive(Debug, Clone, PartialEq)]
pub struct Lookalike {
    /// The real tool it resembles.
    pub like: String,
    /// Its schema.
    pub tool: Value,
}

/// A parsed domain pack.
#[derive(Debug, Clone, PartialEq)]
pub struct Pack {
    /// Short id (file stem).
    pub id: String,
    /// The `domain` written into sessions.
    pub domain: String,
    /// Default draw weight.
    pub weight: u32,
    /// Entity kinds.
    pub kinds: BTreeMap<String, Kind>,
    /// Tool schemas by name.
    pub tools: BTreeMap<String, Value>,
    /// Look-alike tools.
    pub lookalikes: Vec<Lookalike>,
    /// Operations.
    pub ops: Vec<Op>,
    /// Chat exchanges.
    pub chats: Vec<Chat>,
    /// The ledger environment's section (`env=ledger` sessions), when the pack has one.
    pub ledger: Option<super::ledger_pack::LedgerPack>,
}

impl Pack {
    /// The kind named `name`.
    pub fn kind(&self, name: &str) -> Option<&Kind> {
        self.kinds.get(name)
    }
}

/// The common pack and the domain packs, parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct Packs {
    /// Connective language.
    pub common: Common,
    /// Domain packs, sorted by id.
    pub domains: Vec<Pack>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawKind {
    noun: String,
    #[serde(default)]
    coref: Vec<String>,
    #[serde(default)]
    chain: Vec<String>,
    #[serde(default)]
    values: Vec<serde_json::Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOut {
    kind: String,
    fields: serde_json::Map<String, serde_json::Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOp {
    id: String,
    tool: String,
    #[serde(default)]
    slots: serde_json::Map<String, serde_json::Value>,
    args: serde_json::Value,
    obs: serde_json::Value,
    say: Vec<String>,
    #[serde(default)]
    ask: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    out: Option<RawOut>,
    tell: Vec<String>,
    #[serde(default)]
    removes: bool,
    #[serde(default)]
    consumes: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawChat {
    id: String,
    #[serde(rename = "ref")]
    ref_kind: String,
    #[serde(default)]
    slots: serde_json::Map<String, serde_json::Value>,
    say: Vec<String>,
    answer: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLookalike {
    like: String,
    tool: serde_json::Value,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPack {
    format: String,
    kind: String,
    id: String,
    domain: String,
    #[serde(default = "one")]
    weight: u32,
    kinds: BTreeMap<String, RawKind>,
    tools: Vec<serde_json::Value>,
    lookalikes: Vec<RawLookalike>,
    ops: Vec<RawOp>,
    #[serde(default)]
    chats: Vec<RawChat>,
    #[serde(default)]
    ledger: Option<super::ledger_pack::LedgerPack>,
}

fn one() -> u32 {
    1
}

fn pair(v: &serde_json::Value) -> Option<(i64, i64)> {
    let a = v.as_array()?;
    match a.as_slice() {
        [x, y] => Some((x.as_i64()?, y.as_i64()?)),
        _ => None,
    }
}

fn strings(v: &serde_json::Value) -> Option<Vec<String>> {
    v.as_array()?
        .iter()
        .map(|x| x.as_str().map(str::to_owned))
        .collect()
}

fn parse_slot(
    name: &str,
    raw: &serde_json::Value,
    kinds: &BTreeMap<String, Kind>,
) -> Result<Slot, String> {
    let obj = raw
        .as_object()
        .ok_or_else(|| format!("slot {name}: expected an object"))?;
    let err = |m: &str| format!("slot {name}: {m}");
    let int_of = |k: &str, d: i64| obj.get(k).and_then(serde_json::Value::as_i64).unwrap_or(d);
    let known = [
        "kind", "int", "step", "qty", "pick", "money", "date", "datetime", "hours", "time",
        "period", "choice", "lit", "text", "id",
    ];
    if let Some(k) = obj.keys().find(|k| !known.contains(&k.as_str())) {
        return Err(err(&format!("unknown key {k:?}")));
    }
    let ty = if let Some(k) = obj.get("kind") {
        let k = k.as_str().ok_or_else(|| err("kind must be a string"))?;
        if !kinds.contains_key(k) {
            return Err(err(&format!("unknown kind {k:?}")));
        }
        SlotType::Kind(k.to_owned())
    } else if let Some(v) = obj.get("int") {
        let (lo, hi) = pair(v).ok_or_else(|| err("int needs [lo, hi]"))?;
        let step = int_of("step", 1).max(1);
        if hi < lo {
            return Err(err("int range is empty"));
        }
        SlotType::Int { lo, hi, step }
    } else if let Some(u) = obj.get("qty") {
        let unit = u
            .as_str()
            .and_then(Unit::parse)
            .ok_or_else(|| err("qty needs a known unit"))?;
        let pick: Vec<i64> = obj
            .get("pick")
            .and_then(serde_json::Value::as_array)
            .map(|a| a.iter().filter_map(serde_json::Value::as_i64).collect())
            .unwrap_or_default();
        if pick.is_empty() {
            return Err(err("qty needs a non-empty integer pick list"));
        }
        if let Some(v) = pick.iter().find(|&&v| unit.convert(v).is_none()) {
            return Err(err(&format!("{v} {} has no exact conversion", unit.name())));
        }
        SlotType::Qty(unit, pick)
    } else if let Some(v) = obj.get("money") {
        let (lo, hi) = pair(v).ok_or_else(|| err("money needs [lo, hi] in cents"))?;
        SlotType::Money(lo, hi.max(lo))
    } else if let Some(v) = obj.get("datetime") {
        let days = pair(v).ok_or_else(|| err("datetime needs [lo, hi] days"))?;
        let hours = obj.get("hours").and_then(pair).unwrap_or((9, 18));
        SlotType::DateTime {
            days,
            hours,
            step: int_of("step", 30).clamp(1, 60),
        }
    } else if let Some(v) = obj.get("date") {
        let (lo, hi) = pair(v).ok_or_else(|| err("date needs [lo, hi] days"))?;
        SlotType::Date(lo, hi.max(lo))
    } else if let Some(v) = obj.get("time") {
        let hours = pair(v).ok_or_else(|| err("time needs [lo, hi] hours"))?;
        SlotType::Time(hours, int_of("step", 30).clamp(1, 60))
    } else if let Some(v) = obj.get("period") {
        let names = strings(v).ok_or_else(|| err("period needs a list of names"))?;
        let kinds: Option<Vec<PeriodKind>> = names.iter().map(|n| PeriodKind::parse(n)).collect();
        SlotType::Period(kinds.ok_or_else(|| err("unknown period name"))?)
    } else if let Some(v) = obj.get("choice") {
        let map = v
            .as_object()
            .ok_or_else(|| err("choice needs an object value → phrases"))?;
        let mut options = Vec::new();
        for (value, phrases) in map {
            let phrases = strings(phrases).ok_or_else(|| err("choice phrases must be strings"))?;
            if phrases.iter().any(|p| p.contains(value.as_str())) {
                return Err(err(&format!(
                    "a paraphrase of {value:?} contains the value itself"
                )));
            }
            options.push((value.clone(), phrases));
        }
        let lit = obj
            .get("lit")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("{v}")
            .to_owned();
        if !lit.contains("{v}") {
            return Err(err("lit must contain {v}"));
        }
        if options.is_empty() {
            return Err(err("choice needs values"));
        }
        SlotType::Choice(options, lit)
    } else if let Some(v) = obj.get("text") {
        let t = strings(v).ok_or_else(|| err("text needs a list of strings"))?;
        if t.is_empty() {
            return Err(err("text needs values"));
        }
        SlotType::Text(t)
    } else if let Some(v) = obj.get("id") {
        SlotType::Id(
            v.as_str()
                .ok_or_else(|| err("id needs a pattern string"))?
                .to_owned(),
        )
    } else if let Some(v) = obj.get("pick") {
        let a = v.as_array().ok_or_else(|| err("pick needs a list"))?;
        if a.is_empty() {
            return Err(err("pick needs values"));
        }
        SlotType::Pick(a.iter().map(value).collect::<Result<_, _>>()?)
    } else {
        return Err(err("no slot type"));
    };
    Ok(Slot {
        name: name.to_owned(),
        ty,
    })
}

fn texts(list: &[String], optional: bool, what: &str) -> Result<Vec<Text>, String> {
    if list.is_empty() {
        return Err(format!("{what}: needs at least one text"));
    }
    list.iter()
        .map(|s| Text::parse(s, optional).map_err(|e| format!("{what}: {e}")))
        .collect()
}

fn check_tool(tool: &Value) -> Result<String, String> {
    let f = tool
        .get("function")
        .filter(|_| tool.get("type").and_then(Value::as_str) == Some("function"))
        .ok_or("a tool must be {\"type\": \"function\", \"function\": {…}}")?;
    let name = f
        .get("name")
        .and_then(Value::as_str)
        .ok_or("a tool needs a name")?;
    let p = f
        .get("parameters")
        .ok_or(format!("tool {name}: no parameters"))?;
    if p.get("type").and_then(Value::as_str) != Some("object") {
        return Err(format!("tool {name}: parameters must be an object schema"));
    }
    if f.get("description").and_then(Value::as_str).is_none() {
        return Err(format!("tool {name}: no description"));
    }
    Ok(name.to_owned())
}

fn required(tool: &Value) -> Vec<String> {
    tool.get("function")
        .and_then(|f| f.get("parameters"))
        .and_then(|p| p.get("required"))
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

fn properties(tool: &Value) -> Vec<String> {
    tool.get("function")
        .and_then(|f| f.get("parameters"))
        .and_then(|p| p.get("properties"))
        .and_then(Value::as_object)
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

fn check_refs(what: &str, refs: &[&super::template::Ref], slots: &[Slot]) -> Result<(), String> {
    for r in refs {
        let Some(slot) = slots.iter().find(|s| s.name == r.slot) else {
            return Err(format!("{what}: unknown slot {{{}}}", r.slot));
        };
        if let (Some(f), false) = (&r.field, matches!(slot.ty, SlotType::Kind(_))) {
            let ok = matches!(
                (&slot.ty, f.as_str()),
                (SlotType::Period(_), "start" | "end" | "month")
                    | (SlotType::DateTime { .. }, "date" | "time" | "month")
                    | (SlotType::Date(..), "month" | "weekday")
                    | (SlotType::Pick(_), _)
            );
            if !ok {
                return Err(format!("{what}: slot {} has no field {f}", r.slot));
            }
        }
        if r.neg
            && !matches!(
                slot.ty,
                SlotType::Money(..) | SlotType::Int { .. } | SlotType::Kind(_)
            )
        {
            return Err(format!("{what}: {{-{}}} negates a non-number", r.slot));
        }
    }
    Ok(())
}

fn compile_op(
    raw: &RawOp,
    kinds: &BTreeMap<String, Kind>,
    tools: &BTreeMap<String, Value>,
) -> Result<Op, String> {
    let what = format!("op {}", raw.id);
    let tool = tools
        .get(&raw.tool)
        .ok_or_else(|| format!("{what}: unknown tool {}", raw.tool))?;
    let slots: Vec<Slot> = raw
        .slots
        .iter()
        .map(|(n, v)| parse_slot(n, v, kinds))
        .collect::<Result<_, _>>()
        .map_err(|e| format!("{what}: {e}"))?;
    let args = Json::compile(&raw.args).map_err(|e| format!("{what}: args: {e}"))?;
    let obs = Json::compile(&raw.obs).map_err(|e| format!("{what}: obs: {e}"))?;
    check_refs(&format!("{what}: args"), &args.refs(), &slots)?;
    check_refs(&format!("{what}: obs"), &obs.refs(), &slots)?;
    let Json::Object(arg_keys) = &args else {
        return Err(format!("{what}: args must be an object"));
    };
    let props = properties(tool);
    for (k, _) in arg_keys {
        if !props.contains(k) {
            return Err(format!(
                "{what}: argument {k} is not a parameter of {}",
                raw.tool
            ));
        }
    }
    for r in required(tool) {
        if !arg_keys.iter().any(|(k, _)| *k == r) {
            return Err(format!(
                "{what}: required parameter {r} of {} is missing",
                raw.tool
            ));
        }
    }
    let say = texts(&raw.say, true, &format!("{what}: say"))?;
    let arg_slots: BTreeSet<&str> = args.refs().iter().map(|r| r.slot.as_str()).collect();
    for (i, t) in say.iter().enumerate() {
        check_refs(&format!("{what}: say[{i}]"), &t.refs(), &slots)?;
        if !t.starts_literal() {
            return Err(format!("{what}: say[{i}] must start with a word"));
        }
        let bare: BTreeSet<&str> = t
            .refs()
            .iter()
            .filter(|r| r.field.is_none())
            .map(|r| r.slot.as_str())
            .collect();
        if let Some(s) = arg_slots.iter().find(|s| !bare.contains(*s)) {
            return Err(format!(
                "{what}: say[{i}] does not mention {{{s}}}, which the arguments use"
            ));
        }
    }
    let mut askable = Vec::new();
    for (slot, qs) in &raw.ask {
        let s = slots
            .iter()
            .find(|x| &x.name == slot)
            .ok_or_else(|| format!("{what}: ask names unknown slot {slot}"))?;
        let params: Vec<String> = args
            .keys_referencing(slot)
            .into_iter()
            .map(str::to_owned)
            .collect();
        let req = required(tool);
        let direct = |p: &String| match &args {
            Json::Object(o) => o
                .iter()
                .any(|(k, j)| k == p && matches!(j, Json::Exact(r) if &r.slot == slot)),
            _ => false,
        };
        if params.iter().any(|p| !direct(p)) {
            return Err(format!(
                "{what}: ask slot {slot} must be the whole value of the parameters it fills"
            ));
        }
        if params.is_empty() || params.iter().any(|p| !req.contains(p)) {
            return Err(format!(
                "{what}: ask slot {slot} must fill required parameters only (fills {params:?})"
            ));
        }
        if !say.iter().any(|t| t.can_drop(slot)) {
            return Err(format!("{what}: no say text can leave {{{slot}}} unsaid"));
        }
        let questions = texts(qs, false, &format!("{what}: ask {slot}"))?;
        for q in &questions {
            check_refs(&format!("{what}: ask {slot}"), &q.refs(), &slots)?;
            if q.refs().iter().any(|r| raw.ask.contains_key(&r.slot)) {
                return Err(format!(
                    "{what}: a question for {slot} mentions a slot that can be asked for"
                ));
            }
        }
        askable.push(Askable {
            slot: slot.clone(),
            params,
            class: s.ty.class(),
            questions,
        });
    }
    let out = match &raw.out {
        Some(o) => {
            if !kinds.contains_key(&o.kind) {
                return Err(format!("{what}: out: unknown kind {}", o.kind));
            }
            let mut fields = Vec::new();
            for (k, v) in &o.fields {
                let j = Json::compile(v).map_err(|e| format!("{what}: out: {e}"))?;
                check_refs(&format!("{what}: out"), &j.refs(), &slots)?;
                fields.push((k.clone(), j));
            }
            if !fields.iter().any(|(k, _)| k == "name" || k == "id") {
                return Err(format!("{what}: out needs a name or id field"));
            }
            Some((o.kind.clone(), fields))
        }
        None => None,
    };
    let tell = texts(&raw.tell, false, &format!("{what}: tell"))?;
    for t in &tell {
        check_refs(&format!("{what}: tell"), &t.refs(), &slots)?;
    }
    Ok(Op {
        id: raw.id.clone(),
        tool: raw.tool.clone(),
        slots,
        args,
        obs,
        say,
        askable,
        out,
        tell,
        removes: raw.removes,
        consumes: raw.consumes,
    })
}

fn compile_chat(raw: &RawChat, kinds: &BTreeMap<String, Kind>) -> Result<Chat, String> {
    let what = format!("chat {}", raw.id);
    if !kinds.contains_key(&raw.ref_kind) {
        return Err(format!("{what}: unknown kind {}", raw.ref_kind));
    }
    let mut slots = vec![Slot {
        name: "ref".into(),
        ty: SlotType::Kind(raw.ref_kind.clone()),
    }];
    for (n, v) in &raw.slots {
        slots.push(parse_slot(n, v, kinds).map_err(|e| format!("{what}: {e}"))?);
    }
    let say = texts(&raw.say, true, &format!("{what}: say"))?;
    for (i, t) in say.iter().enumerate() {
        check_refs(&format!("{what}: say[{i}]"), &t.refs(), &slots)?;
        if !t.starts_literal() {
            return Err(format!("{what}: say[{i}] must start with a word"));
        }
        if !t
            .refs()
            .iter()
            .any(|r| r.slot == "ref" && r.field.is_none())
        {
            return Err(format!("{what}: say[{i}] must mention {{ref}}"));
        }
    }
    let answer = texts(&raw.answer, false, &format!("{what}: answer"))?;
    for t in &answer {
        check_refs(&format!("{what}: answer"), &t.refs(), &slots)?;
    }
    Ok(Chat {
        id: raw.id.clone(),
        slots,
        say,
        answer,
    })
}

fn parse_domain(text: &str) -> Result<Pack, String> {
    let raw: RawPack = serde_json::from_str(text).map_err(|e| e.to_string())?;
    if raw.format != PACK_FORMAT || raw.kind != "domain" {
        return Err(format!(
            "expected \"format\": \"{PACK_FORMAT}\" and \"kind\": \"domain\""
        ));
    }
    let mut kinds = BTreeMap::new();
    for (name, k) in &raw.kinds {
        let mut values = Vec::new();
        for v in &k.values {
            let record = match value(v)? {
                Value::Object(m) => m,
                Value::Str(s) => {
                    let mut m = Map::new();
                    m.insert("name", Value::Str(s));
                    m
                }
                _ => return Err(format!("kind {name}: values are strings or objects")),
            };
            if record.get("name").and_then(Value::as_str).is_none() {
                return Err(format!("kind {name}: every value needs a string name"));
            }
            values.push(record);
        }
        if k.coref.is_empty() || k.chain.is_empty() {
            return Err(format!("kind {name}: needs coref and chain phrases"));
        }
        kinds.insert(
            name.clone(),
            Kind {
                name: name.clone(),
                noun: k.noun.clone(),
                coref: k.coref.clone(),
                chain: k.chain.clone(),
                values,
            },
        );
    }
    let mut tools = BTreeMap::new();
    for t in &raw.tools {
        let v = value(t)?;
        let name = check_tool(&v)?;
        if tools.insert(name.clone(), v).is_some() {
            return Err(format!("tool {name} is defined twice"));
        }
    }
    let mut lookalikes = Vec::new();
    for l in &raw.lookalikes {
        let v = value(&l.tool)?;
        let name = check_tool(&v)?;
        if tools.contains_key(&name)
            || lookalikes.iter().any(|x: &Lookalike| {
                x.tool
                    .get("function")
                    .and_then(|f| f.get("name"))
                    .and_then(Value::as_str)
                    == Some(name.as_str())
            })
        {
            return Err(format!("look-alike {name} repeats a tool name"));
        }
        if !tools.contains_key(&l.like) {
            return Err(format!(
                "look-alike {name} resembles unknown tool {}",
                l.like
            ));
        }
        lookalikes.push(Lookalike {
            like: l.like.clone(),
            tool: v,
        });
    }
    let ops = raw
        .ops
        .iter()
        .map(|o| compile_op(o, &kinds, &tools))
        .collect::<Result<Vec<_>, _>>()?;
    let chats = raw
        .chats
        .iter()
        .map(|c| compile_chat(c, &kinds))
        .collect::<Result<Vec<_>, _>>()?;
    let mut ids = BTreeSet::new();
    for id in ops.iter().map(|o| &o.id).chain(chats.iter().map(|c| &c.id)) {
        if !ids.insert(id) {
            return Err(format!("id {id} is used twice"));
        }
    }
    if ops.is_empty() {
        return Err("a domain pack needs operations".into());
    }
    if let Some(l) = &raw.ledger {
        l.check(&kinds)?;
    }
    Ok(Pack {
        id: raw.id,
        domain: raw.domain,
        weight: raw.weight,
        kinds,
        tools,
        lookalikes,
        ops,
        chats,
        ledger: raw.ledger,
    })
}

fn parse_common(text: &str) -> Result<Common, String> {
    let c: Common = serde_json::from_str(text).map_err(|e| e.to_string())?;
    if c.format != PACK_FORMAT || c.kind != "common" {
        return Err(format!(
            "expected \"format\": \"{PACK_FORMAT}\" and \"kind\": \"common\""
        ));
    }
    let nonempty = [
        ("openers", c.openers.len()),
        ("frames", c.frames.len()),
        ("tails", c.tails.len()),
        ("then", c.then.len()),
        ("also", c.also.len()),
        ("replies", c.replies.len()),
        ("answers", c.answers.len()),
        ("ordinal_ref", c.ordinal_ref.len()),
        ("lr_said", c.lr_said.len()),
        ("lr_told", c.lr_told.len()),
    ];
    if let Some((k, _)) = nonempty.iter().find(|(_, n)| *n == 0) {
        return Err(format!("{k} must not be empty"));
    }
    if c.ordinals.len() < 16 || c.words.weekdays.len() != 7 {
        return Err("needs 16 ordinals and 7 weekdays".into());
    }
    Ok(c)
}

/// Whether a pack text is the common pack (`"kind": "common"`).
fn is_common(text: &str) -> bool {
    #[derive(Deserialize)]
    struct Probe {
        kind: Option<String>,
    }
    serde_json::from_str::<Probe>(text)
        .ok()
        .and_then(|p| p.kind)
        .as_deref()
        == Some("common")
}

impl Packs {
    /// Parses and checks the pack texts: exactly one common pack and at least one domain.
    pub fn parse(texts: &[PackText<'_>]) -> Result<Self, GenerateError> {
        let mut common = None;
        let mut domains: Vec<Pack> = Vec::new();
        for t in texts {
            let err = |message: String| GenerateError::Pack {
                pack: t.name.to_owned(),
                message,
            };
            if is_common(t.text) {
                if common.is_some() {
                    return Err(err("a second common pack".into()));
                }
                common = Some(parse_common(t.text).map_err(err)?);
            } else {
                let p = parse_domain(t.text).map_err(err)?;
                if domains.iter().any(|d| d.id == p.id || d.domain == p.domain) {
                    return Err(err(format!("domain {} is given twice", p.id)));
                }
                domains.push(p);
            }
        }
        let common = common.ok_or_else(|| GenerateError::Pack {
            pack: "(packs)".into(),
            message: "no common pack (\"kind\": \"common\")".into(),
        })?;
        if domains.is_empty() {
            return Err(GenerateError::Pack {
                pack: "(packs)".into(),
                message: "no domain pack".into(),
            });
        }
        domains.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(Self { common, domains })
    }

    /// Index of the domain with this id or domain name.
    pub fn find(&self, name: &str) -> Option<usize> {
        self.domains
            .iter()
            .position(|d| d.id == name || d.domain == name)
    }
}
