//! Generated ledger-environment suites (`env=ledger`): sessions of the finance-ledger
//! pack's `ledger` section with a `ledger_env` scenario, whose observations are computed
//! by running the gold calls through the environment (never canned) and whose gold
//! answers are the pack's `tell` templates filled with the environment's results; a
//! task's `must_mention` is the numbers its answer template slots in.
//!
//! A session is a *world* and four tasks. The world — date, accounts, merchants, the
//! initial ledger (opening balances, months of history reconciled by monthly statement
//! balances) — draws from its own stream, so the sessions of a `challenge` sweep share
//! their worlds level by level; the tasks follow the challenge:
//!
//! | challenge | tasks |
//! |---|---|
//! | `compositional` | spending ∥ (import receipt → add) · balance · set budget · budget status |
//! | `correction` | add · amend it ("make it X instead of Y") · balance · month's spending |
//! | `question` | import receipt → add · question about it · add · question about it |
//! | `clarify` | spending · budget after asking the amount · add after asking the amount · budget status |
//!
//! `mixed` draws one of the four per session. The output is a pure function of the seed,
//! the factors, the packs, [`GENERATOR_VERSION`] and [`ENV_VERSION`].

use std::collections::BTreeSet;

use crate::generate::calendar::{civil_from_days, days_from_civil, hhmm, weekday, WEEKDAYS};
use crate::generate::ledger_pack::{LedgerPack, Merchant, Move};
use crate::generate::pack::Pack;
use crate::generate::rng::Rng;
use crate::generate::template::value as json_value;
use crate::generate::{
    ChallengeLevel, GenerateError, GenerateSpec, PackText, Packs, GENERATOR_VERSION, UNIQUE_BLOCK,
};
use crate::json::{dumps, Escape, Map, Value};
use crate::outcome::{TaskType, TurnSubtype};

use super::date::{Date, Month};
use super::dec::Dec;
use super::model::{AccountInfo, Amount, Balance, Ledger, Posting, Txn};
use super::read::read_ledger;
use super::text::write_ledger;
use super::tools::{call, ToolOptions};
use super::ENV_VERSION;

/// Draws of a session before it is given up.
const ATTEMPTS: u64 = 16;

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// The four challenges a session can have (`mixed` draws one).
const CHALLENGES: [ChallengeLevel; 4] = [
    ChallengeLevel::Compositional,
    ChallengeLevel::Correction,
    ChallengeLevel::Question,
    ChallengeLevel::Clarify,
];

/// Generates the suite `spec` describes: a ledger suite when the spec says so
/// (`env=ledger`, or a `challenge`), the ordinary generator's otherwise.
pub fn generate(packs: &[PackText<'_>], spec: &GenerateSpec) -> Result<String, GenerateError> {
    let parsed = Packs::parse(packs)?;
    generate_parsed(&parsed, spec)
}

/// [`generate`] on parsed packs.
pub fn generate_parsed(packs: &Packs, spec: &GenerateSpec) -> Result<String, GenerateError> {
    if spec.is_ledger() {
        build_suite(packs, spec)
    } else {
        packs.generate(spec)
    }
}

fn pack_err(message: impl Into<String>) -> GenerateError {
    GenerateError::Pack {
        pack: "finance-ledger".into(),
        message: message.into(),
    }
}

/// Builds an `env=ledger` suite.
pub fn build_suite(packs: &Packs, spec: &GenerateSpec) -> Result<String, GenerateError> {
    spec.check()?;
    let pack = packs
        .domains
        .iter()
        .find(|d| d.ledger.is_some())
        .ok_or_else(|| {
            GenerateError::Spec("env=ledger needs a domain pack with a ledger section".into())
        })?;
    let section = pack
        .ledger
        .as_ref()
        .ok_or_else(|| pack_err("no ledger section"))?;
    let level = spec.challenge.unwrap_or(ChallengeLevel::Mixed);
    let spec_text = spec.factors_text();
    let mut firsts: BTreeSet<String> = BTreeSet::new();
    let mut tool_lists: BTreeSet<String> = BTreeSet::new();
    let mut out = String::new();
    for index in 0..spec.sessions {
        if index % UNIQUE_BLOCK == 0 {
            firsts.clear();
            tool_lists.clear();
        }
        let challenge = match level {
            ChallengeLevel::Mixed => {
                let mut r = Rng::stream(spec.seed, index as u64, "ledger-challenge", 0);
                CHALLENGES[r.below(CHALLENGES.len())]
            }
            c => c,
        };
        let mut last = String::new();
        let mut done = false;
        for attempt in 0..ATTEMPTS {
            match build_session(pack, section, spec.seed, index, attempt, challenge) {
                Ok(s) => {
                    // A session's date and messages together never repeat in a block
                    // (a message alone may: "book today's Whole Foods receipt").
                    let mut first = s.env_info.clone();
                    for t in &s.tasks {
                        first.push('\n');
                        first.push_str(&t.message);
                    }
                    let tools_text = dumps(&s.tools, Escape::Utf8);
                    if firsts.contains(&first) {
                        last = "the session's date and messages repeat".into();
                        continue;
                    }
                    if tool_lists.contains(&tools_text) {
                        last = "the tool list repeats".into();
                        continue;
                    }
                    firsts.insert(first);
                    tool_lists.insert(tools_text);
                    out.push_str(&s.to_line(&spec_text, index, level, challenge, &pack.domain));
                    out.push('\n');
                    done = true;
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        if !done {
            return Err(GenerateError::Exhausted {
                session: index,
                domain: pack.id.clone(),
                reason: last,
            });
        }
    }
    Ok(out)
}

/// A template slot's value: numbers become `must_mention` items when the answer uses them.
#[derive(Clone)]
enum Slot {
    Num(String),
    Text(String),
}

fn num(d: Dec) -> Slot {
    Slot::Num(d.with_min_scale(2).plain())
}

fn int(n: i64) -> Slot {
    Slot::Num(n.to_string())
}

fn text(s: impl Into<String>) -> Slot {
    Slot::Text(s.into())
}

/// Fills `{name}` slots; returns the text and the numbers it slotted in.
fn fill(template: &str, slots: &[(&str, Slot)]) -> Result<(String, Vec<String>), GenerateError> {
    let mut out = String::new();
    let mut nums = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let close = after
            .find('}')
            .ok_or_else(|| pack_err(format!("unclosed slot in {template:?}")))?;
        let name = &after[..close];
        let value = slots
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v)
            .ok_or_else(|| pack_err(format!("slot {{{name}}} of {template:?} has no value")))?;
        match value {
            Slot::Num(n) => {
                out.push_str(n);
                if !nums.contains(n) {
                    nums.push(n.clone());
                }
            }
            Slot::Text(t) => out.push_str(t),
        }
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    Ok((out, nums))
}

/// One task as built.
struct BuiltTask {
    message: String,
    task_type: TaskType,
    subtype: Option<TurnSubtype>,
    nodes: Vec<Value>,
    /// The `ledger_env.tasks` entry.
    env: Value,
    /// The template kind (recorded in `generated`).
    kind: &'static str,
}

struct BuiltSession {
    env_info: String,
    tools: Value,
    initial: String,
    receipts: Map,
    ids_seed: u64,
    tasks: Vec<BuiltTask>,
}

impl BuiltSession {
    fn to_line(
        &self,
        spec_text: &str,
        index: usize,
        level: ChallengeLevel,
        challenge: ChallengeLevel,
        domain: &str,
    ) -> String {
        let tasks = Value::Array(self.tasks.iter().map(|t| Value::str(&t.message)).collect());
        let answers = Value::Array(
            self.tasks
                .iter()
                .map(|t| Value::Array(t.nodes.clone()))
                .collect(),
        );
        let types = Value::Array(
            self.tasks
                .iter()
                .map(|t| Value::str(t.task_type.as_str()))
                .collect(),
        );
        let subtypes = Value::Array(
            self.tasks
                .iter()
                .filter_map(|t| t.subtype.map(TurnSubtype::as_str))
                .map(Value::str)
                .collect(),
        );
        let mut m = Map::new();
        m.insert("id", Value::Str(format!("wild_tool_bench_{index}")));
        for prefix in ["", "english_"] {
            m.insert(format!("{prefix}env_info"), Value::str(&self.env_info));
            m.insert(format!("{prefix}tools"), self.tools.clone());
            m.insert(format!("{prefix}tasks"), tasks.clone());
            m.insert(format!("{prefix}answer_list"), answers.clone());
            m.insert(format!("{prefix}task_types"), types.clone());
            m.insert(format!("{prefix}turn_subtypes"), subtypes.clone());
        }
        m.insert("domain", Value::str(domain));
        let mut env = Map::new();
        env.insert("format", Value::str(super::scenario::SCENARIO_FORMAT));
        env.insert("initial", Value::str(&self.initial));
        env.insert("receipts", Value::Object(self.receipts.clone()));
        let mut ids = Map::new();
        ids.insert("seed", Value::int(self.ids_seed as i64));
        env.insert("ids", Value::Object(ids));
        env.insert(
            "tasks",
            Value::Array(self.tasks.iter().map(|t| t.env.clone()).collect()),
        );
        m.insert("ledger_env", Value::Object(env));
        let mut g = Map::new();
        g.insert("generator", Value::str(GENERATOR_VERSION));
        g.insert("env", Value::str(ENV_VERSION));
        g.insert("spec", Value::str(spec_text));
        g.insert("session", Value::int(index as i64));
        g.insert("challenge", Value::str(challenge.name()));
        if level == ChallengeLevel::Mixed {
            g.insert("challenge_drawn", Value::Bool(true));
        }
        g.insert(
            "tasks",
            Value::Array(
                self.tasks
                    .iter()
                    .map(|t| {
                        let mut x = Map::new();
                        x.insert("template", Value::str(t.kind));
                        Value::Object(x)
                    })
                    .collect(),
            ),
        );
        m.insert("generated", Value::Object(g));
        dumps(&Value::Object(m), Escape::Utf8)
    }
}

/// The drawn world of a session.
struct World<'p> {
    today: Date,
    funding: Vec<String>,
    merchants: Vec<&'p Merchant>,
    initial: Ledger,
    ids_seed: u64,
    time: String,
}

fn cents(c: i64) -> Dec {
    Dec::new(i128::from(c), 2).unwrap_or(Dec::ZERO)
}

fn month_name(m: Month) -> String {
    let name = MONTHS
        .get(m.month.saturating_sub(1) as usize)
        .copied()
        .unwrap_or("");
    format!("{name} {}", m.year)
}

fn prev_month(m: Month) -> Month {
    m.first().plus(-1).month()
}

fn kind_values(pack: &Pack, kind: &str) -> Vec<(String, String)> {
    pack.kind(kind)
        .map(|k| {
            k.values
                .iter()
                .filter_map(|v| {
                    let name = v.get("name").and_then(Value::as_str)?;
                    let meaning = v.get("meaning").and_then(Value::as_str).unwrap_or("");
                    Some((name.to_owned(), meaning.to_owned()))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn draw_world<'p>(
    pack: &Pack,
    section: &'p LedgerPack,
    rng: &mut Rng,
) -> Result<World<'p>, GenerateError> {
    let first = days_from_civil(2024, 1, 1);
    let last = days_from_civil(2026, 12, 31);
    let today = Date(rng.range(first, last));
    let time = format!("{}:00", hhmm(rng.range(7 * 60, 22 * 60)));
    let currency = section.currency.clone();
    // Funding accounts: one asset account, and one or two others.
    let funding_all = kind_values(pack, "funding");
    let assets: Vec<&(String, String)> = funding_all
        .iter()
        .filter(|(n, _)| n.starts_with("Assets:"))
        .collect();
    let main = rng
        .pick(&assets)
        .map(|(n, _)| n.clone())
        .ok_or_else(|| pack_err("the funding kind has no Assets account"))?;
    let mut others: Vec<String> = funding_all
        .iter()
        .map(|(n, _)| n.clone())
        .filter(|n| *n != main)
        .collect();
    rng.shuffle(&mut others);
    let extra = 1 + rng.below(2);
    let mut funding = vec![main];
    funding.extend(others.into_iter().take(extra));
    // Merchants: six distinct, shuffled.
    let mut merchants: Vec<&Merchant> = section.merchants.iter().collect();
    rng.shuffle(&mut merchants);
    merchants.truncate(6);
    let expense_meaning = kind_values(pack, "expense");

    let start = {
        let mut m = today.month();
        for _ in 0..section.months {
            m = prev_month(m);
        }
        m.first()
    };
    let open = start.plus(-1);
    let mut l = Ledger::default();
    l.options.title = Some("Household ledger".into());
    l.options.operating_currency = vec![currency.clone()];
    l.commodities.insert(currency.clone(), open);
    let usd: BTreeSet<String> = [currency.clone()].into_iter().collect();
    let add_account = |l: &mut Ledger, name: &str, description: Option<&str>| {
        let mut meta = std::collections::BTreeMap::new();
        if let Some(d) = description.filter(|d| !d.is_empty()) {
            meta.insert("description".to_owned(), d.to_owned());
        }
        l.accounts.insert(
            name.to_owned(),
            AccountInfo {
                open,
                close: None,
                currencies: Some(usd.clone()),
                meta,
            },
        );
    };
    for f in &funding {
        add_account(&mut l, f, None);
    }
    for m in &merchants {
        let meaning = expense_meaning
            .iter()
            .find(|(n, _)| *n == m.category)
            .map(|(_, d)| d.as_str());
        add_account(&mut l, &m.category, meaning);
    }
    add_account(&mut l, "Equity:Opening-Balances", None);
    let ids_seed = rng.next_u64() >> 12;
    l.ids.seed = ids_seed;
    let amt = |n: Dec| Amount {
        number: n,
        currency: currency.clone(),
    };
    // Opening balances.
    let mut postings = Vec::new();
    let mut equity = Dec::ZERO;
    for f in &funding {
        let root = f.split(':').next().unwrap_or("Assets");
        let r = section
            .opening
            .get(root)
            .copied()
            .unwrap_or([100_000, 500_000]);
        let n = cents(rng.range(r[0], r[1]));
        equity = equity.minus(n);
        postings.push(Posting {
            account: f.clone(),
            units: amt(n),
        });
    }
    postings.push(Posting {
        account: "Equity:Opening-Balances".into(),
        units: amt(equity),
    });
    let txn = |date: Date, payee: Option<String>, narration: String, postings: Vec<Posting>| Txn {
        date,
        flag: '*',
        payee,
        narration,
        tags: BTreeSet::new(),
        links: BTreeSet::new(),
        meta: std::collections::BTreeMap::new(),
        postings,
        documents: Vec::new(),
    };
    let id = l.new_txn_id();
    l.txns
        .insert(id, txn(open, None, "Opening balances".into(), postings));
    // History: every merchant a few times a month, up to yesterday.
    let mut month = start.month();
    while month.first() < today {
        let lo = month.first();
        let hi = if month == today.month() {
            today.plus(-1)
        } else {
            month.last()
        };
        if hi >= lo {
            for m in &merchants {
                let n = rng.range(
                    i64::from(section.per_month[0]),
                    i64::from(section.per_month[1]),
                );
                for _ in 0..n {
                    let date = Date(rng.range(lo.0, hi.0));
                    let c = cents(rng.range(m.cents[0], m.cents[1]));
                    let f = funding[rng.below(funding.len())].clone();
                    let leaf = m.category.rsplit(':').next().unwrap_or("").to_owned();
                    let id = l.new_txn_id();
                    l.txns.insert(
                        id,
                        txn(
                            date,
                            Some(m.name.clone()),
                            leaf,
                            vec![
                                Posting {
                                    account: m.category.clone(),
                                    units: amt(c),
                                },
                                Posting {
                                    account: f,
                                    units: amt(c.negated()),
                                },
                            ],
                        ),
                    );
                }
            }
        }
        month = month.last().plus(1).month();
    }
    // Monthly statements: every funding account reconciled on the first of each month.
    let mut month = start.month();
    loop {
        month = month.last().plus(1).month();
        let day = month.first();
        if day > today {
            break;
        }
        for f in &funding {
            let before = l.sum(f, true, None, Some(day.plus(-1)));
            let n = before.get(&currency).copied().unwrap_or(Dec::ZERO);
            l.balances.push(Balance {
                date: day,
                account: f.clone(),
                amount: amt(n.with_min_scale(2)),
            });
        }
    }
    Ok(World {
        today,
        funding,
        merchants,
        initial: l,
        ids_seed,
        time,
    })
}

/// The session under construction: the environment state the gold calls run on.
struct Builder<'p> {
    section: &'p LedgerPack,
    rng: Rng,
    state: Ledger,
    tools: Value,
    receipts: Map,
    today: Date,
    currency: String,
}

fn node(idx: usize, name: &str, args: Value, obs: Value, deps: &[usize]) -> Value {
    let mut action = Map::new();
    action.insert("name", Value::str(name));
    action.insert("arguments", args);
    let mut m = Map::new();
    m.insert("idx", Value::int(idx as i64));
    m.insert("action", Value::Object(action));
    m.insert("observation", obs);
    m.insert(
        "dependency_list",
        Value::Array(deps.iter().map(|&d| Value::int(d as i64)).collect()),
    );
    Value::Object(m)
}

fn obj(pairs: Vec<(&str, Value)>) -> Value {
    let mut m = Map::new();
    for (k, v) in pairs {
        m.insert(k, v);
    }
    Value::Object(m)
}

fn dec_of(v: &Value, key: &str) -> Result<Dec, GenerateError> {
    v.get(key).and_then(Dec::from_value).ok_or_else(|| {
        pack_err(format!(
            "the environment's result has no number {key}: {}",
            dumps(v, Escape::Utf8)
        ))
    })
}

fn env_task(challenge: &str, must: &[String], amends: Option<&str>) -> Value {
    let mut m = Map::new();
    m.insert("challenge", Value::str(challenge));
    if let Some(a) = amends {
        m.insert("amends", Value::str(a));
    }
    m.insert(
        "must_mention",
        Value::Array(must.iter().map(Value::str).collect()),
    );
    Value::Object(m)
}

impl Builder<'_> {
    fn template(&self, kind: &str) -> Result<&Move, GenerateError> {
        self.section
            .templates
            .get(kind)
            .ok_or_else(|| pack_err(format!("no templates for {kind}")))
    }

    fn pick(&mut self, list: &[String]) -> String {
        list.get(self.rng.below(list.len()))
            .cloned()
            .unwrap_or_default()
    }

    fn say(&mut self, kind: &str, slots: &[(&str, Slot)]) -> Result<String, GenerateError> {
        let list = self.template(kind)?.say.clone();
        let t = self.pick(&list);
        Ok(fill(&t, slots)?.0)
    }

    fn tell(
        &mut self,
        kind: &str,
        slots: &[(&str, Slot)],
    ) -> Result<(String, Vec<String>), GenerateError> {
        let list = self.template(kind)?.tell.clone();
        let t = self.pick(&list);
        fill(&t, slots)
    }

    fn ask(
        &mut self,
        kind: &str,
        slots: &[(&str, Slot)],
    ) -> Result<(String, String), GenerateError> {
        let m = self.template(kind)?.clone();
        let q = self.pick(&m.ask);
        let r = self.pick(&m.reply);
        Ok((fill(&q, slots)?.0, fill(&r, slots)?.0))
    }

    /// Runs a gold call on the environment; a refused write is a bug of the builder.
    fn run(&mut self, name: &str, args: &Value) -> Result<Value, GenerateError> {
        let o = call(
            &mut self.state,
            name,
            args,
            &self.tools,
            ToolOptions::default(),
        );
        if o.result.get("status").and_then(Value::as_str) == Some("error") {
            return Err(pack_err(format!(
                "gold call {name} {} failed in the environment: {}",
                dumps(args, Escape::Utf8),
                dumps(&o.result, Escape::Utf8)
            )));
        }
        Ok(o.result)
    }

    fn postings(&self, expense: &str, fund: &str, n: Dec) -> Value {
        let leg = |a: &str, x: Dec| {
            obj(vec![
                ("account", Value::str(a)),
                ("amount", x.to_value()),
                ("currency", Value::str(&self.currency)),
            ])
        };
        Value::Array(vec![leg(expense, n), leg(fund, n.negated())])
    }

    fn spending_args(&self, cat: &str, from: Date, to: Date) -> Value {
        obj(vec![
            ("account", Value::str(cat)),
            ("start_date", Value::Str(from.to_string())),
            ("end_date", Value::Str(to.to_string())),
        ])
    }

    fn add_args(&self, m: &Merchant, fund: &str, n: Dec, receipt: Option<&str>) -> Value {
        let mut pairs = vec![
            ("date", Value::Str(self.today.to_string())),
            ("payee", Value::str(&m.name)),
            ("postings", self.postings(&m.category, fund, n)),
        ];
        if let Some(r) = receipt {
            pairs.push(("receipt_id", Value::str(r)));
        }
        obj(pairs)
    }

    fn import_args(&self, m: &Merchant) -> Value {
        obj(vec![
            ("merchant", Value::str(&m.short)),
            ("date", Value::Str(self.today.to_string())),
        ])
    }

    fn budget_args(&self, cat: &str, month: Month, amount: Dec) -> Value {
        obj(vec![
            ("category", Value::str(cat)),
            ("month", Value::Str(month.to_string())),
            ("amount", amount.to_value()),
        ])
    }

    fn amount_for(&mut self, m: &Merchant) -> Dec {
        cents(self.rng.range(m.cents[0], m.cents[1]))
    }

    /// Puts a receipt of `m` dated today, paid from `fund`, into the inbox.
    fn receipt(&mut self, m: &Merchant, fund: &str, total: Dec) -> String {
        let (_, mo, d) = civil_from_days(self.today.0);
        let id = format!("rcpt_{mo:02}{d:02}_{:04x}", self.rng.next_u64() & 0xffff);
        let r = obj(vec![
            ("receipt_id", Value::str(&id)),
            ("merchant", Value::str(&m.name)),
            ("date", Value::Str(self.today.to_string())),
            ("total", total.to_value()),
            ("currency", Value::str(&self.currency)),
            ("payment", obj(vec![("matched_account", Value::str(fund))])),
            ("suggested_account", Value::str(&m.category)),
        ]);
        self.receipts.insert(id.clone(), r.clone());
        self.state.receipts.insert(id.clone(), r);
        id
    }

    fn month_spent(&self, cat: &str) -> Dec {
        let m = self.today.month();
        self.state
            .sum(cat, true, Some(m.first()), Some(m.last()))
            .get(&self.currency)
            .copied()
            .unwrap_or(Dec::ZERO)
    }

    /// A budget above what the category will have spent this month (`extra` to come).
    fn budget_amount(&mut self, cat: &str, extra: Dec) -> Dec {
        let spent = self.month_spent(cat).plus(extra);
        // Whole dollars above what is spent, at least the pack's low end, in tens.
        let need = spent.round(0).plain().parse::<i64>().unwrap_or(0) + 1;
        let lo = (need.max(self.section.budget[0] / 100) + 9) / 10 * 10;
        let hi = (self.section.budget[1] / 100).max(lo + 100);
        Dec::int(lo + 10 * self.rng.range(0, (hi - lo) / 10))
    }

    fn prepare(idx: usize, kind: &str, answer: String, deps: &[usize]) -> Value {
        node(
            idx,
            "prepare_to_answer",
            obj(vec![("answer_type", Value::str(kind))]),
            Value::Str(answer),
            deps,
        )
    }
}

fn tool_names(challenge: ChallengeLevel) -> &'static [&'static str] {
    match challenge {
        ChallengeLevel::Compositional => &[
            "ledger_spending",
            "import_receipt",
            "add_transaction",
            "ledger_balance",
            "set_budget",
            "get_budget",
        ],
        ChallengeLevel::Correction => &[
            "add_transaction",
            "amend_transaction",
            "ledger_balance",
            "ledger_spending",
        ],
        ChallengeLevel::Question => &["import_receipt", "add_transaction"],
        _ => &[
            "ledger_spending",
            "set_budget",
            "add_transaction",
            "get_budget",
        ],
    }
}

fn build_session(
    pack: &Pack,
    section: &LedgerPack,
    seed: u64,
    index: usize,
    attempt: u64,
    challenge: ChallengeLevel,
) -> Result<BuiltSession, GenerateError> {
    // The world is drawn from its own stream (shared by every challenge level), the tasks
    // from another.
    let mut wr = Rng::stream(seed, index as u64, "ledger-world", attempt);
    let world = draw_world(pack, section, &mut wr)?;
    let mut rng = Rng::stream(seed, index as u64, "ledger-tasks", attempt);
    // Tools: the ones the gold calls, and one to four more, in a drawn order.
    let needed = tool_names(challenge);
    let mut rest: Vec<&str> = section
        .tools
        .iter()
        .filter_map(|t| t.pointer("/function/name").and_then(|n| n.as_str()))
        .filter(|n| !needed.contains(n))
        .collect();
    rng.shuffle(&mut rest);
    let extra = 1 + rng.below(4);
    let mut names: Vec<&str> = needed.to_vec();
    names.extend(rest.into_iter().take(extra));
    rng.shuffle(&mut names);
    let mut tools = Vec::new();
    for n in names {
        let t = section
            .tool(n)
            .ok_or_else(|| pack_err(format!("ledger.tools has no {n}")))?;
        tools.push(json_value(t).map_err(pack_err)?);
    }
    let tools = Value::Array(tools);
    let initial = write_ledger(
        &world.initial,
        &[
            "Initial ledger of a generated finance-ledger session (wildtool generate, env=ledger)"
                .to_owned(),
        ],
    );
    // The state the scenario reader builds from the same text.
    let mut state = read_ledger(&initial, world.ids_seed, &BTreeSet::new())
        .map_err(|e| pack_err(format!("initial ledger: {e}")))?;
    state.today = world.today;
    state.time = world.time.clone();
    state.ids.seed = world.ids_seed;
    let mut b = Builder {
        section,
        rng,
        state,
        tools: tools.clone(),
        receipts: Map::new(),
        today: world.today,
        currency: section.currency.clone(),
    };
    let tasks = match challenge {
        ChallengeLevel::Compositional => compositional(&mut b, &world)?,
        ChallengeLevel::Correction => correction(&mut b, &world)?,
        ChallengeLevel::Question => question(&mut b, &world)?,
        _ => clarify(&mut b, &world)?,
    };
    let env_info = format!(
        "{} {} {}",
        world.today,
        world.time,
        WEEKDAYS[weekday(world.today.0)]
    );
    Ok(BuiltSession {
        env_info,
        tools,
        initial,
        receipts: b.receipts,
        ids_seed: world.ids_seed,
        tasks,
    })
}

const COREF: Option<TurnSubtype> = Some(TurnSubtype::CoreferentialReference);

fn last_month_of(today: Date) -> Month {
    prev_month(today.month())
}

/// A merchant of the world whose category is `cat` (`m` itself when none other).
fn same_category<'p>(b: &mut Builder<'_>, world: &World<'p>, m: &'p Merchant) -> &'p Merchant {
    let same: Vec<&Merchant> = world
        .merchants
        .iter()
        .copied()
        .filter(|x| x.category == m.category)
        .collect();
    same.get(b.rng.below(same.len())).copied().unwrap_or(m)
}

fn pick_fund(b: &mut Builder<'_>, world: &World<'_>) -> String {
    world.funding[b.rng.below(world.funding.len())].clone()
}

/// The id a write's result names.
fn txn_id(o: &Value) -> String {
    o.get("transaction_id")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned()
}

/// The `total` and `count` slots of a `ledger_spending` result.
fn spending_slots(o: &Value) -> Result<Vec<(&'static str, Slot)>, GenerateError> {
    let count = o
        .get("transaction_count")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    Ok(vec![
        ("total", num(dec_of(o, "total")?)),
        ("count", int(count)),
    ])
}

type Slots = Vec<(&'static str, Slot)>;

/// What a task of the session is, besides its calls.
struct TaskSpec<'a> {
    /// Its templates.
    kind: &'static str,
    task_type: TaskType,
    subtype: Option<TurnSubtype>,
    /// The `ledger_env.tasks` challenge.
    challenge: &'a str,
    amends: Option<&'a str>,
}

impl TaskSpec<'_> {
    /// The task: message and answer drawn from the templates with `slots`, the answer
    /// node depending on `deps`.
    fn build(
        self,
        b: &mut Builder<'_>,
        slots: &[(&str, Slot)],
        mut nodes: Vec<Value>,
        deps: &[usize],
    ) -> Result<BuiltTask, GenerateError> {
        let message = b.say(self.kind, slots)?;
        let (ans, must) = b.tell(self.kind, slots)?;
        let answer = if self.task_type == TaskType::Chat {
            "chat"
        } else {
            "tool"
        };
        nodes.push(Builder::prepare(nodes.len(), answer, ans, deps));
        Ok(BuiltTask {
            message,
            task_type: self.task_type,
            subtype: self.subtype,
            nodes,
            env: env_task(self.challenge, &must, self.amends),
            kind: self.kind,
        })
    }
}

/// A Single-Tool task: the gold call runs, its result and `slots` fill the templates.
fn one_call(
    b: &mut Builder<'_>,
    spec: TaskSpec<'_>,
    tool: &str,
    args: Value,
    slots: impl FnOnce(&Value) -> Result<Slots, GenerateError>,
) -> Result<(BuiltTask, Value), GenerateError> {
    let o = b.run(tool, &args)?;
    let slots = slots(&o)?;
    let node = node(0, tool, args, o.clone(), &[]);
    Ok((spec.build(b, &slots, vec![node], &[0])?, o))
}

fn single<'a>(
    kind: &'static str,
    challenge: &'a str,
    subtype: Option<TurnSubtype>,
) -> TaskSpec<'a> {
    TaskSpec {
        kind,
        task_type: TaskType::SingleTool,
        subtype,
        challenge,
        amends: None,
    }
}

fn compositional(b: &mut Builder<'_>, w: &World<'_>) -> Result<Vec<BuiltTask>, GenerateError> {
    let read = w.merchants[0];
    let cat = read.category.clone();
    let shop = same_category(b, w, read);
    let fund = pick_fund(b, w);
    let total = b.amount_for(shop);
    let rid = b.receipt(shop, &fund, total);
    let lm = last_month_of(w.today);
    // Task 1: spending ∥ (import → add).
    let a0 = b.spending_args(&cat, lm.first(), lm.last());
    let o0 = b.run("ledger_spending", &a0)?;
    let a1 = b.import_args(shop);
    let o1 = b.run("import_receipt", &a1)?;
    let a2 = b.add_args(shop, &fund, total, Some(&rid));
    let o2 = b.run("add_transaction", &a2)?;
    let mut slots = spending_slots(&o0)?;
    slots.extend([
        ("cat", text(&cat)),
        ("rcat", text(&shop.category)),
        ("month_name", text(month_name(lm))),
        ("shop", text(&shop.short)),
        ("merchant", text(&shop.name)),
        ("amount", num(total)),
        ("fund", text(&fund)),
        ("txn", text(txn_id(&o2))),
    ]);
    let nodes = vec![
        node(0, "ledger_spending", a0, o0, &[]),
        node(1, "import_receipt", a1, o1, &[]),
        node(2, "add_transaction", a2, o2, &[1]),
    ];
    let spec = TaskSpec {
        kind: "compositional",
        task_type: TaskType::MixedMultiTool,
        subtype: None,
        challenge: "compositional",
        amends: None,
    };
    let t1 = spec.build(b, &slots, nodes, &[0, 2])?;
    // Task 2: the balance of the account it was paid from.
    let t2 = balance_task(b, &fund)?;
    // Task 3: a budget for that category this month.
    let month = w.today.month();
    let amount = b.budget_amount(&cat, Dec::ZERO);
    let slots = vec![
        ("cat", text(&cat)),
        ("month", text(month.to_string())),
        ("amount", num(amount)),
    ];
    let args = b.budget_args(&cat, month, amount);
    let (t3, _) = one_call(
        b,
        single("budget_set", "write", COREF),
        "set_budget",
        args,
        |_| Ok(slots),
    )?;
    let t4 = budget_get_task(b, &cat, month)?;
    Ok(vec![t1, t2, t3, t4])
}

fn balance_task(b: &mut Builder<'_>, fund: &str) -> Result<BuiltTask, GenerateError> {
    let today = b.today.to_string();
    let args = obj(vec![
        ("account", Value::str(fund)),
        ("as_of", Value::str(&today)),
    ]);
    let spec = single("balance", "read", COREF);
    let (t, _) = one_call(b, spec, "ledger_balance", args, |o| {
        Ok(vec![
            ("fund", text(fund)),
            ("balance", num(dec_of(o, "balance")?)),
            ("today", text(today)),
        ])
    })?;
    Ok(t)
}

fn budget_get_task(
    b: &mut Builder<'_>,
    cat: &str,
    month: Month,
) -> Result<BuiltTask, GenerateError> {
    let args = obj(vec![
        ("category", Value::str(cat)),
        ("month", Value::Str(month.to_string())),
    ]);
    let spec = single("budget_get", "read", COREF);
    let (t, _) = one_call(b, spec, "get_budget", args, |o| {
        Ok(vec![
            ("cat", text(cat)),
            ("month", text(month.to_string())),
            ("spent", num(dec_of(o, "spent")?)),
            ("budgeted", num(dec_of(o, "budgeted")?)),
            ("remaining", num(dec_of(o, "remaining")?)),
        ])
    })?;
    Ok(t)
}

/// The slots of a purchase of `m` paid from `fund`.
fn purchase_slots(m: &Merchant, fund: &str, amount: Dec) -> Slots {
    vec![
        ("amount", num(amount)),
        ("merchant", text(&m.name)),
        ("cat", text(&m.category)),
        ("fund", text(fund)),
        ("fund_phrase", text(fund)),
    ]
}

/// A plain add (`add` or `add_same` templates): the task and the new transaction's id.
fn add_task(
    b: &mut Builder<'_>,
    kind: &'static str,
    m: &Merchant,
    fund: &str,
    amount: Dec,
    subtype: Option<TurnSubtype>,
) -> Result<(BuiltTask, String), GenerateError> {
    let args = b.add_args(m, fund, amount, None);
    let (t, o) = one_call(
        b,
        single(kind, "write", subtype),
        "add_transaction",
        args,
        |o| {
            let mut slots = purchase_slots(m, fund, amount);
            slots.push(("txn", text(txn_id(o))));
            Ok(slots)
        },
    )?;
    Ok((t, txn_id(&o)))
}

fn correction(b: &mut Builder<'_>, w: &World<'_>) -> Result<Vec<BuiltTask>, GenerateError> {
    let m = w.merchants[0];
    let fund = pick_fund(b, w);
    let old = b.amount_for(m);
    let mut new = b.amount_for(m);
    if new == old {
        new = old.plus(cents(100));
    }
    let (t1, txn) = add_task(b, "add", m, &fund, old, None)?;
    // Task 2: "make it {new} instead of {old}".
    let args = obj(vec![
        ("transaction_id", Value::str(&txn)),
        (
            "changes",
            obj(vec![("postings", b.postings(&m.category, &fund, new))]),
        ),
    ]);
    let spec = TaskSpec {
        amends: Some(&txn),
        ..single("correction", "correction", COREF)
    };
    let slots = vec![("new", num(new)), ("old", num(old)), ("txn", text(&txn))];
    let (t2, _) = one_call(b, spec, "amend_transaction", args, |_| Ok(slots))?;
    let t3 = balance_task(b, &fund)?;
    // Task 4: that category so far this month.
    let args = b.spending_args(&m.category, w.today.month().first(), w.today);
    let spec = single("month_spending", "read", COREF);
    let (t4, _) = one_call(b, spec, "ledger_spending", args, |o| {
        let mut slots = spending_slots(o)?;
        slots.push(("cat", text(&m.category)));
        Ok(slots)
    })?;
    Ok(vec![t1, t2, t3, t4])
}

fn chat_task(
    b: &mut Builder<'_>,
    kind: &'static str,
    m: &Merchant,
    fund: &str,
    amount: Dec,
) -> Result<BuiltTask, GenerateError> {
    let spec = TaskSpec {
        kind,
        task_type: TaskType::Chat,
        subtype: COREF,
        challenge: "question_after_write",
        amends: None,
    };
    spec.build(b, &purchase_slots(m, fund, amount), Vec::new(), &[])
}

fn question(b: &mut Builder<'_>, w: &World<'_>) -> Result<Vec<BuiltTask>, GenerateError> {
    let shop = w.merchants[0];
    let fund = pick_fund(b, w);
    let total = b.amount_for(shop);
    let rid = b.receipt(shop, &fund, total);
    // Task 1: import → add.
    let a0 = b.import_args(shop);
    let o0 = b.run("import_receipt", &a0)?;
    let a1 = b.add_args(shop, &fund, total, Some(&rid));
    let o1 = b.run("add_transaction", &a1)?;
    let slots = vec![
        ("shop", text(&shop.short)),
        ("merchant", text(&shop.name)),
        ("amount", num(total)),
        ("rcat", text(&shop.category)),
        ("fund", text(&fund)),
        ("txn", text(txn_id(&o1))),
    ];
    let nodes = vec![
        node(0, "import_receipt", a0, o0, &[]),
        node(1, "add_transaction", a1, o1, &[0]),
    ];
    let spec = TaskSpec {
        task_type: TaskType::SequentialMultiTool,
        ..single("receipt", "write", None)
    };
    let t1 = spec.build(b, &slots, nodes, &[1])?;
    let t2 = chat_task(b, "chat_category", shop, &fund, total)?;
    let other = w.merchants[1];
    let amount = b.amount_for(other);
    let (t3, _) = add_task(b, "add_same", other, &fund, amount, COREF)?;
    let t4 = chat_task(b, "chat_balanced", other, &fund, amount)?;
    Ok(vec![t1, t2, t3, t4])
}

fn ask_node(tool: &str, missing: &str, question: String, reply: String) -> Value {
    let mut n = node(
        0,
        "ask_user_for_required_parameters",
        obj(vec![
            ("tool_name", Value::str(tool)),
            (
                "missing_required_parameters",
                Value::Array(vec![Value::str(missing)]),
            ),
        ]),
        Value::Str(question),
        &[],
    );
    if let Value::Object(m) = &mut n {
        m.insert("user_input", Value::Str(reply));
    }
    n
}

/// A Clarify task: the question about `missing` (its reply filled with `reply_slots`),
/// then the write, then the answer.
fn clarify_task(
    b: &mut Builder<'_>,
    kind: &'static str,
    (tool, missing, args): (&str, &str, Value),
    slots: Slots,
    reply_slots: &[(&str, Slot)],
) -> Result<BuiltTask, GenerateError> {
    let message = b.say(kind, &slots)?;
    let (q, r) = b.ask(kind, reply_slots)?;
    let o = b.run(tool, &args)?;
    let mut slots = slots;
    slots.push(("txn", text(txn_id(&o))));
    let (ans, must) = b.tell(kind, &slots)?;
    Ok(BuiltTask {
        message,
        task_type: TaskType::Clarify,
        subtype: COREF,
        nodes: vec![
            ask_node(tool, missing, q, r),
            node(1, tool, args, o, &[0]),
            Builder::prepare(2, "tool", ans, &[1]),
        ],
        env: env_task("clarify", &must, None),
        kind,
    })
}

fn clarify(b: &mut Builder<'_>, w: &World<'_>) -> Result<Vec<BuiltTask>, GenerateError> {
    let read = w.merchants[0];
    let cat = read.category.clone();
    let lm = last_month_of(w.today);
    // Task 1: last month's spending.
    let args = b.spending_args(&cat, lm.first(), lm.last());
    let spec = single("spending", "read", None);
    let (t1, _) = one_call(b, spec, "ledger_spending", args, |o| {
        let mut slots = spending_slots(o)?;
        slots.extend([("cat", text(&cat)), ("month_name", text(month_name(lm)))]);
        Ok(slots)
    })?;
    // The purchase of task 3, drawn first so the budget of task 2 stays above it.
    let shop = same_category(b, w, read);
    let fund = pick_fund(b, w);
    let price = b.amount_for(shop);
    // Task 2: a budget for that category, after asking the amount.
    let month = w.today.month();
    let amount = b.budget_amount(&cat, price);
    let slots = vec![
        ("cat", text(&cat)),
        ("month", text(month.to_string())),
        ("amount", num(amount)),
    ];
    let reply = vec![
        ("cat", text(&cat)),
        ("month", text(month.to_string())),
        ("amount", text(amount.plain())),
    ];
    let args = b.budget_args(&cat, month, amount);
    let t2 = clarify_task(
        b,
        "clarify_budget",
        ("set_budget", "amount", args),
        slots,
        &reply,
    )?;
    // Task 3: a purchase in that category, after asking the amount.
    let slots = purchase_slots(shop, &fund, price);
    let args = b.add_args(shop, &fund, price, None);
    let t3 = clarify_task(
        b,
        "clarify_add",
        ("add_transaction", "postings", args),
        slots.clone(),
        &slots,
    )?;
    let t4 = budget_get_task(b, &cat, month)?;
    Ok(vec![t1, t2, t3, t4])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_fill_and_numbers_become_must_mention() {
        let (s, nums) = match fill(
            "{cat} came to {total} USD ({count} transactions), {total} again",
            &[
                ("cat", text("Expenses:Food")),
                ("total", num(cents(61238))),
                ("count", int(9)),
            ],
        ) {
            Ok(x) => x,
            Err(_) => panic!("fill"),
        };
        assert_eq!(
            s,
            "Expenses:Food came to 612.38 USD (9 transactions), 612.38 again"
        );
        assert_eq!(nums, vec!["612.38".to_owned(), "9".to_owned()]);
        assert!(fill("{nope}", &[]).is_err());
    }
}
