//! The ledger tools, with the names and schemas of the bundled suite and the
//! finance-ledger pack. Read tools never change the state; write tools validate first
//! (the hard rules of [`super::check`]) and change nothing when they refuse. Every error
//! is an observation (`{"status": "error", "error": {"code", "message", "field"?}}`),
//! never a panic. Each result's keys come in a fixed order, so its dumps-utf8 text is
//! byte-stable.

use std::collections::{BTreeMap, BTreeSet};

use crate::checker::schema::{check_top_level, SchemaNotes};
use crate::generate::calendar::{iso_month, week_start};
use crate::json::{loads, Map, Value};

use super::check::{validate_txn, Code, ToolError};
use super::date::{Date, Month};
use super::dec::Dec;
use super::model::{Amount, Budget, Ledger, Posting, Rule, Txn};
use super::read::{valid_currency, valid_tag};

/// Tools that never change the state.
pub const READ_TOOLS: [&str; 12] = [
    "ledger_balance",
    "ledger_spending",
    "search_transactions",
    "list_accounts",
    "list_categories",
    "list_payees",
    "import_receipt",
    "get_budget",
    "budget_status",
    "list_recurring",
    "convert_currency",
    "export_report",
];

/// Tools that change the state.
pub const WRITE_TOOLS: [&str; 6] = [
    "add_transaction",
    "amend_transaction",
    "delete_transaction",
    "set_budget",
    "create_recurring",
    "attach_document",
];

/// True for a tool that writes.
pub fn is_write(name: &str) -> bool {
    WRITE_TOOLS.contains(&name)
}

/// True for a tool this environment implements.
pub fn is_implemented(name: &str) -> bool {
    READ_TOOLS.contains(&name) || is_write(name)
}

/// Result options a scenario may switch on (API flavours a tool description promises).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ToolOptions {
    /// `add_transaction` also returns `balances_after`: the new balance of each asset
    /// account it touched.
    pub balances_after: bool,
}

/// What one call did.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The observation.
    pub result: Value,
    /// The tool is a write tool (an attempt, accepted or not).
    pub write: bool,
    /// The call changed the state.
    pub accepted: bool,
}

type R<T> = Result<T, ToolError>;

fn schema_err(message: impl Into<String>, field: &str) -> ToolError {
    ToolError::new(Code::ArgsSchema, message, Some(field))
}

/// Runs tool `name` with `arguments` (the call's JSON text, or an object) on `ledger`,
/// after checking the arguments against the tool's schema in `tools` (the session's
/// tool list, as sent to the model).
pub fn call(
    ledger: &mut Ledger,
    name: &str,
    arguments: &Value,
    tools: &Value,
    options: ToolOptions,
) -> Outcome {
    let write = is_write(name);
    let fail = |e: ToolError| Outcome {
        result: e.to_value(),
        write,
        accepted: false,
    };
    let schema = crate::dataset::tool_parameters(tools, name);
    if schema.is_none() || !is_implemented(name) {
        return fail(ToolError::new(
            Code::UnknownTool,
            format!("there is no tool named {name:?}"),
            None,
        ));
    }
    let args = match arguments {
        Value::Str(text) => match loads(text) {
            Ok(v) => v,
            Err(e) => {
                return fail(ToolError::new(
                    Code::ArgsInvalidJson,
                    format!("the arguments are not JSON: {e}"),
                    None,
                ))
            }
        },
        other => other.clone(),
    };
    let Value::Object(obj) = &args else {
        return fail(ToolError::new(
            Code::ArgsInvalidJson,
            "the arguments must be a JSON object",
            None,
        ));
    };
    if let Some(schema) = schema {
        let required = schema
            .get("required")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let props = schema.get("properties").and_then(Value::as_object);
        let mut notes = SchemaNotes::default();
        if let Some(verdict) = check_top_level(&args, &required, props, &mut notes) {
            return fail(ToolError::new(Code::ArgsSchema, verdict, None));
        }
    }
    let a = Args(obj);
    let before = if write { Some(ledger.clone()) } else { None };
    let result = match name {
        "ledger_balance" => ledger_balance(ledger, &a),
        "ledger_spending" => ledger_spending(ledger, &a),
        "search_transactions" => search_transactions(ledger, &a),
        "list_accounts" => list_accounts(ledger, &a),
        "list_categories" => list_categories(ledger, &a),
        "list_payees" => list_payees(ledger, &a),
        "import_receipt" => import_receipt(ledger, &a),
        "get_budget" => get_budget(ledger, &a),
        "budget_status" => budget_status(ledger, &a),
        "list_recurring" => list_recurring(ledger, &a),
        "convert_currency" => convert_currency(ledger, &a),
        "export_report" => export_report(ledger, &a),
        "add_transaction" => add_transaction(ledger, &a, options),
        "amend_transaction" => amend_transaction(ledger, &a),
        "delete_transaction" => delete_transaction(ledger, &a),
        "set_budget" => set_budget(ledger, &a),
        "create_recurring" => create_recurring(ledger, &a),
        "attach_document" => attach_document(ledger, &a),
        _ => Err(ToolError::new(
            Code::UnknownTool,
            format!("there is no tool named {name:?}"),
            None,
        )),
    };
    match result {
        Ok(v) => Outcome {
            result: v,
            write,
            accepted: write,
        },
        Err(e) => {
            if let Some(b) = before {
                *ledger = b;
            }
            fail(e)
        }
    }
}

/// Typed access to an argument object.
struct Args<'a>(&'a Map);

impl Args<'_> {
    fn has(&self, k: &str) -> bool {
        self.0.get(k).is_some_and(|v| !v.is_null())
    }

    fn str_opt(&self, k: &str) -> R<Option<String>> {
        match self.0.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Str(s)) => {
                if s.chars().any(char::is_control) {
                    return Err(schema_err(
                        format!("{k} must not contain control characters"),
                        k,
                    ));
                }
                Ok(Some(s.clone()))
            }
            Some(_) => Err(schema_err(format!("{k} must be a string"), k)),
        }
    }

    fn str(&self, k: &str) -> R<String> {
        self.str_opt(k)?
            .ok_or_else(|| schema_err(format!("{k} is required"), k))
    }

    fn date_opt(&self, k: &str) -> R<Option<Date>> {
        match self.str_opt(k)? {
            None => Ok(None),
            Some(s) => Date::parse(&s).map(Some).ok_or_else(|| {
                ToolError::new(
                    Code::BadDate,
                    format!("{k} {s:?} is not a date (YYYY-MM-DD)"),
                    Some(k),
                )
            }),
        }
    }

    fn date(&self, k: &str) -> R<Date> {
        self.date_opt(k)?
            .ok_or_else(|| schema_err(format!("{k} is required"), k))
    }

    fn month(&self, k: &str) -> R<Month> {
        let s = self.str(k)?;
        Month::parse(&s).ok_or_else(|| {
            ToolError::new(
                Code::BadDate,
                format!("{k} {s:?} is not a month (YYYY-MM)"),
                Some(k),
            )
        })
    }

    fn dec_opt(&self, k: &str) -> R<Option<Dec>> {
        match self.0.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => Dec::from_value(v)
                .map(|d| Some(d.with_min_scale(2)))
                .ok_or_else(|| {
                    schema_err(
                        format!("{k} must be a number with at most 12 decimal places"),
                        k,
                    )
                }),
        }
    }

    fn dec(&self, k: &str) -> R<Dec> {
        self.dec_opt(k)?
            .ok_or_else(|| schema_err(format!("{k} is required"), k))
    }

    fn bool_opt(&self, k: &str) -> R<Option<bool>> {
        match self.0.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(schema_err(format!("{k} must be true or false"), k)),
        }
    }

    fn int_opt(&self, k: &str) -> R<Option<i64>> {
        match self.0.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_i64()
                .map(Some)
                .ok_or_else(|| schema_err(format!("{k} must be a whole number"), k)),
        }
    }

    fn strings(&self, k: &str) -> R<Option<Vec<String>>> {
        match self.0.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| {
                    v.as_str()
                        .map(str::to_owned)
                        .ok_or_else(|| schema_err(format!("{k} must be a list of strings"), k))
                })
                .collect::<R<Vec<_>>>()
                .map(Some),
            Some(_) => Err(schema_err(format!("{k} must be a list"), k)),
        }
    }

    fn tags(&self, k: &str) -> R<Option<BTreeSet<String>>> {
        let Some(list) = self.strings(k)? else {
            return Ok(None);
        };
        let mut out = BTreeSet::new();
        for t in list {
            let t = t.strip_prefix('#').unwrap_or(&t).to_owned();
            if !valid_tag(&t) {
                return Err(schema_err(
                    format!("tag {t:?} may hold only letters, digits and - _ / ."),
                    k,
                ));
            }
            out.insert(t);
        }
        Ok(Some(out))
    }
}

/// A currency argument must be a Beancount currency name.
fn currency_ok(currency: &str, field: &str) -> R<()> {
    if valid_currency(currency) {
        Ok(())
    } else {
        Err(schema_err(
            format!("currency {currency:?} must be an upper-case code such as EUR"),
            field,
        ))
    }
}

/// Reads a postings list `[{"account", "amount", "currency"}]`.
fn postings_of(v: Option<&Value>, field: &str) -> R<Vec<Posting>> {
    let Some(Value::Array(items)) = v else {
        return Err(schema_err(
            format!("{field} must be a list of postings"),
            field,
        ));
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let f = |k: &str| format!("{field}[{i}].{k}");
        let Value::Object(p) = item else {
            return Err(schema_err(
                format!("{field}[{i}] must be an object"),
                &format!("{field}[{i}]"),
            ));
        };
        let account = p
            .get("account")
            .and_then(Value::as_str)
            .ok_or_else(|| schema_err("a posting needs an account (a string)", &f("account")))?;
        let number = p
            .get("amount")
            .and_then(Dec::from_value)
            .ok_or_else(|| {
                schema_err(
                    "a posting needs an amount (a number, at most 12 decimal places)",
                    &f("amount"),
                )
            })?
            .with_min_scale(2);
        let currency = p
            .get("currency")
            .and_then(Value::as_str)
            .ok_or_else(|| schema_err("a posting needs a currency (a string)", &f("currency")))?;
        currency_ok(currency, &f("currency"))?;
        out.push(Posting {
            account: account.to_owned(),
            units: Amount {
                number,
                currency: currency.to_owned(),
            },
        });
    }
    Ok(out)
}

/// `[{"account", "amount", "currency"}]` of postings.
pub fn postings_value(postings: &[Posting]) -> Value {
    Value::Array(
        postings
            .iter()
            .map(|p| {
                let mut m = Map::new();
                m.insert("account", Value::str(p.account.clone()));
                m.insert("amount", p.units.number.to_value());
                m.insert("currency", Value::str(p.units.currency.clone()));
                Value::Object(m)
            })
            .collect(),
    )
}

fn strings_value<'a>(items: impl IntoIterator<Item = &'a String>) -> Value {
    Value::Array(items.into_iter().cloned().map(Value::Str).collect())
}

fn obj(pairs: Vec<(&str, Value)>) -> Value {
    let mut m = Map::new();
    for (k, v) in pairs {
        m.insert(k, v);
    }
    Value::Object(m)
}

/// The account named, which must be open or have open sub-accounts.
fn known_account(ledger: &Ledger, name: &str, field: &str) -> R<()> {
    if ledger.accounts.keys().any(|a| Ledger::under(a, name)) {
        Ok(())
    } else {
        Err(ToolError::new(
            Code::UnknownAccount,
            format!("there is no account {name} in this ledger"),
            Some(field),
        ))
    }
}

/// The currency an empty sum is shown in: the account's only currency, else the
/// ledger's operating currency.
fn display_currency(ledger: &Ledger, account: &str) -> String {
    ledger
        .accounts
        .get(account)
        .and_then(|a| a.currencies.as_ref())
        .filter(|cs| cs.len() == 1)
        .and_then(|cs| cs.iter().next().cloned())
        .unwrap_or_else(|| ledger.currency().to_owned())
}

/// Puts one currency's amount (`key`, `currency`) or a list of amounts (`key + "s"`).
fn put_amounts(
    pairs: &mut Vec<(&'static str, Value)>,
    key: &'static str,
    list_key: &'static str,
    sums: &BTreeMap<String, Dec>,
    fallback: &str,
) {
    match sums.len() {
        0 => {
            pairs.push((key, Dec::ZERO.to_value()));
            pairs.push(("currency", Value::str(fallback)));
        }
        1 => {
            if let Some((c, n)) = sums.iter().next() {
                pairs.push((key, n.to_value()));
                pairs.push(("currency", Value::str(c.clone())));
            }
        }
        _ => pairs.push((
            list_key,
            Value::Array(
                sums.iter()
                    .map(|(c, n)| {
                        obj(vec![
                            ("amount", n.to_value()),
                            ("currency", Value::str(c.clone())),
                        ])
                    })
                    .collect(),
            ),
        )),
    }
}

fn ledger_balance(ledger: &Ledger, a: &Args) -> R<Value> {
    let account = a.str("account")?;
    known_account(ledger, &account, "account")?;
    let subs = a.bool_opt("include_subaccounts")?.unwrap_or(true);
    let fallback = display_currency(ledger, &account);
    let mut pairs: Vec<(&'static str, Value)> = vec![("account", Value::str(account.clone()))];
    if let Some(start) = a.date_opt("start_date")? {
        let end = a.date_opt("end_date")?.unwrap_or(ledger.today);
        if end < start {
            return Err(ToolError::new(
                Code::BadDate,
                "end_date is before start_date",
                Some("end_date"),
            ));
        }
        pairs.push(("start_date", Value::str(start.to_string())));
        pairs.push(("end_date", Value::str(end.to_string())));
        let opening = ledger.sum(&account, subs, None, Some(start.plus(-1)));
        let change = ledger.sum(&account, subs, Some(start), Some(end));
        let closing = ledger.sum(&account, subs, None, Some(end));
        let mut currencies: BTreeSet<String> = BTreeSet::new();
        currencies.extend(opening.keys().cloned());
        currencies.extend(closing.keys().cloned());
        currencies.extend(change.keys().cloned());
        let get =
            |m: &BTreeMap<String, Dec>, c: &str| m.get(c).copied().unwrap_or(Dec::ZERO).to_value();
        if currencies.len() <= 1 {
            let c = currencies.into_iter().next().unwrap_or(fallback);
            pairs.push(("currency", Value::str(c.clone())));
            pairs.push(("opening_balance", get(&opening, &c)));
            pairs.push(("change", get(&change, &c)));
            pairs.push(("closing_balance", get(&closing, &c)));
        } else {
            pairs.push((
                "balances",
                Value::Array(
                    currencies
                        .iter()
                        .map(|c| {
                            obj(vec![
                                ("currency", Value::str(c.clone())),
                                ("opening_balance", get(&opening, c)),
                                ("change", get(&change, c)),
                                ("closing_balance", get(&closing, c)),
                            ])
                        })
                        .collect(),
                ),
            ));
        }
        return Ok(obj(pairs));
    }
    let as_of = match a.date_opt("as_of")? {
        Some(d) => d,
        None => a.date_opt("end_date")?.unwrap_or(ledger.today),
    };
    pairs.push(("as_of", Value::str(as_of.to_string())));
    let sums = ledger.sum(&account, subs, None, Some(as_of));
    put_amounts(&mut pairs, "balance", "balances", &sums, &fallback);
    if let Some(to) = a.str_opt("convert_to")? {
        if sums.len() > 1 {
            return Err(ToolError::new(
                Code::NoPrice,
                "cannot convert a balance held in several currencies",
                Some("convert_to"),
            ));
        }
        let (from, n) = sums
            .iter()
            .next()
            .map(|(c, n)| (c.clone(), *n))
            .unwrap_or((fallback, Dec::ZERO));
        let (rate, date, _) = rate(ledger, &from, &to, ledger.today)?;
        pairs.push((
            "converted",
            obj(vec![
                ("amount", n.mul_round(rate, 2).to_value()),
                ("currency", Value::str(to)),
                ("rate", rate.to_value()),
                ("rate_date", Value::str(date.to_string())),
            ]),
        ));
    }
    Ok(obj(pairs))
}

/// Matching postings of a spending query: (txn id, txn, posting).
fn spending_postings<'l>(
    ledger: &'l Ledger,
    account: &str,
    start: Date,
    end: Date,
    paid_with: Option<&str>,
) -> Vec<(&'l String, &'l Txn, &'l Posting)> {
    let mut out = Vec::new();
    for (id, t) in &ledger.txns {
        if t.date < start || t.date > end {
            continue;
        }
        if let Some(pw) = paid_with {
            if !t.postings.iter().any(|p| Ledger::under(&p.account, pw)) {
                continue;
            }
        }
        for p in &t.postings {
            if Ledger::under(&p.account, account) {
                out.push((id, t, p));
            }
        }
    }
    out
}

fn ledger_spending(ledger: &Ledger, a: &Args) -> R<Value> {
    let key = if a.has("account") {
        "account"
    } else {
        "category"
    };
    let account = a.str(key)?;
    known_account(ledger, &account, key)?;
    let start = a.date("start_date")?;
    let end = a.date("end_date")?;
    if end < start {
        return Err(ToolError::new(
            Code::BadDate,
            "end_date is before start_date",
            Some("end_date"),
        ));
    }
    let paid_with = a.str_opt("paid_with")?;
    let group_by = a.str_opt("group_by")?.unwrap_or_else(|| "none".to_owned());
    let hits = spending_postings(ledger, &account, start, end, paid_with.as_deref());
    let mut sums: BTreeMap<String, Dec> = BTreeMap::new();
    let mut txns: BTreeSet<&String> = BTreeSet::new();
    let mut by_account: BTreeMap<&str, Dec> = BTreeMap::new();
    for (id, _, p) in &hits {
        let e = sums.entry(p.units.currency.clone()).or_insert(Dec::ZERO);
        *e = e.plus(p.units.number);
        txns.insert(id);
        let e = by_account.entry(p.account.as_str()).or_insert(Dec::ZERO);
        *e = e.plus(p.units.number);
    }
    let fallback = display_currency(ledger, &account);
    let mut pairs: Vec<(&'static str, Value)> = vec![
        (
            if key == "account" {
                "account"
            } else {
                "category"
            },
            Value::str(account.clone()),
        ),
        ("start_date", Value::str(start.to_string())),
        ("end_date", Value::str(end.to_string())),
    ];
    put_amounts(&mut pairs, "total", "totals", &sums, &fallback);
    pairs.push(("transaction_count", Value::int(txns.len() as i64)));
    if by_account.len() > 1 && group_by != "subaccount" {
        let mut m = Map::new();
        for (acct, n) in &by_account {
            m.insert(*acct, n.to_value());
        }
        pairs.push(("subaccounts", Value::Object(m)));
    }
    let group_key = match group_by.as_str() {
        "payee" => Some("payee"),
        "week" => Some("week"),
        "month" => Some("month"),
        "subaccount" => Some("account"),
        _ => None,
    };
    if let Some(gk) = group_key {
        let mut groups: BTreeMap<String, (Dec, BTreeSet<&String>)> = BTreeMap::new();
        for (id, t, p) in &hits {
            let k = match gk {
                "payee" => t.payee.clone().unwrap_or_default(),
                "week" => Date(week_start(t.date.0)).to_string(),
                "month" => iso_month(t.date.0),
                _ => p.account.clone(),
            };
            let e = groups.entry(k).or_insert((Dec::ZERO, BTreeSet::new()));
            e.0 = e.0.plus(p.units.number);
            e.1.insert(id);
        }
        let mut list: Vec<(String, Dec, usize)> = groups
            .into_iter()
            .map(|(k, (n, ids))| (k, n, ids.len()))
            .collect();
        if matches!(gk, "payee" | "account") {
            crate::order::sort_by(&mut list, |x, y| y.1.cmp(&x.1).then_with(|| x.0.cmp(&y.0)));
        }
        pairs.push((
            "groups",
            Value::Array(
                list.into_iter()
                    .map(|(k, n, c)| {
                        obj(vec![
                            (gk, Value::Str(k)),
                            ("total", n.to_value()),
                            ("count", Value::int(c as i64)),
                        ])
                    })
                    .collect(),
            ),
        ));
    }
    Ok(obj(pairs))
}

/// A transaction's size: the sum of its positive postings (in its first currency).
fn txn_amount(t: &Txn) -> (Dec, String) {
    let currency = t
        .postings
        .first()
        .map(|p| p.units.currency.clone())
        .unwrap_or_default();
    let n = t
        .postings
        .iter()
        .filter(|p| p.units.currency == currency && !p.units.number.is_negative())
        .fold(Dec::ZERO, |s, p| s.plus(p.units.number));
    (n, currency)
}

/// A transaction as listed by `search_transactions`.
fn txn_view(id: &str, t: &Txn) -> Value {
    let (n, c) = txn_amount(t);
    let accounts: Vec<String> = t.postings.iter().map(|p| p.account.clone()).collect();
    obj(vec![
        ("transaction_id", Value::str(id)),
        ("date", Value::str(t.date.to_string())),
        (
            "payee",
            t.payee.clone().map(Value::Str).unwrap_or(Value::Null),
        ),
        ("narration", Value::str(t.narration.clone())),
        ("amount", n.to_value()),
        ("currency", Value::Str(c)),
        ("accounts", strings_value(&accounts)),
        ("tags", strings_value(&t.tags)),
    ])
}

fn search_transactions(ledger: &Ledger, a: &Args) -> R<Value> {
    let payee = a.str_opt("payee")?.map(|p| p.to_lowercase());
    let account = a.str_opt("account")?;
    let start = a.date_opt("start_date")?;
    let end = a.date_opt("end_date")?;
    let tags = a.tags("tags")?;
    let sort = a.str_opt("sort")?.unwrap_or_else(|| "date_desc".to_owned());
    let limit = a.int_opt("limit")?.unwrap_or(25).max(0) as usize;
    let mut hits: Vec<(&String, &Txn)> = ledger
        .txns
        .iter()
        .filter(|(_, t)| {
            payee.as_ref().is_none_or(|p| {
                t.payee
                    .as_deref()
                    .unwrap_or("")
                    .to_lowercase()
                    .contains(p.as_str())
            }) && account
                .as_ref()
                .is_none_or(|acc| t.postings.iter().any(|p| Ledger::under(&p.account, acc)))
                && start.is_none_or(|s| t.date >= s)
                && end.is_none_or(|e| t.date <= e)
                && tags.as_ref().is_none_or(|ts| ts.is_subset(&t.tags))
        })
        .collect();
    match sort.as_str() {
        "date_asc" => {
            crate::order::sort_by(&mut hits, |x, y| (x.1.date, x.0).cmp(&(y.1.date, y.0)))
        }
        "amount_desc" => crate::order::sort_by(&mut hits, |x, y| {
            txn_amount(y.1)
                .0
                .cmp(&txn_amount(x.1).0)
                .then_with(|| y.1.date.cmp(&x.1.date))
                .then_with(|| x.0.cmp(y.0))
        }),
        "amount_asc" => crate::order::sort_by(&mut hits, |x, y| {
            txn_amount(x.1)
                .0
                .cmp(&txn_amount(y.1).0)
                .then_with(|| y.1.date.cmp(&x.1.date))
                .then_with(|| x.0.cmp(y.0))
        }),
        _ => crate::order::sort_by(&mut hits, |x, y| {
            y.1.date.cmp(&x.1.date).then_with(|| x.0.cmp(y.0))
        }),
    }
    let total = hits.len();
    let results: Vec<Value> = hits
        .into_iter()
        .take(limit)
        .map(|(id, t)| txn_view(id, t))
        .collect();
    Ok(obj(vec![
        ("results", Value::Array(results)),
        ("total_matches", Value::int(total as i64)),
    ]))
}

fn account_entry(name: &str, info: &super::model::AccountInfo) -> Value {
    let mut pairs = vec![
        ("name", Value::str(name)),
        ("open_date", Value::str(info.open.to_string())),
    ];
    match &info.currencies {
        Some(cs) if cs.len() == 1 => {
            pairs.push((
                "currency",
                Value::str(cs.iter().next().cloned().unwrap_or_default()),
            ));
        }
        Some(cs) => pairs.push(("currencies", strings_value(cs))),
        None => {}
    }
    if let Some(c) = info.close {
        pairs.push(("close_date", Value::str(c.to_string())));
    }
    obj(pairs)
}

fn list_accounts(ledger: &Ledger, a: &Args) -> R<Value> {
    let root = a.str_opt("type")?;
    let prefix = a.str_opt("prefix")?;
    let closed = a.bool_opt("include_closed")?.unwrap_or(false);
    let list: Vec<Value> = ledger
        .accounts
        .iter()
        .filter(|(n, info)| {
            root.as_ref().is_none_or(|r| Ledger::under(n, r))
                && prefix.as_ref().is_none_or(|p| n.starts_with(p.as_str()))
                && (closed || info.close.is_none_or(|c| c > ledger.today))
        })
        .map(|(n, info)| account_entry(n, info))
        .collect();
    let n = list.len();
    Ok(obj(vec![
        ("accounts", Value::Array(list)),
        ("count", Value::int(n as i64)),
    ]))
}

fn list_categories(ledger: &Ledger, a: &Args) -> R<Value> {
    let parent = a
        .str_opt("parent")?
        .unwrap_or_else(|| "Expenses".to_owned());
    let list: Vec<Value> = ledger
        .accounts
        .iter()
        .filter(|(n, info)| {
            Ledger::under(n, "Expenses")
                && Ledger::under(n, &parent)
                && info.close.is_none_or(|c| c > ledger.today)
        })
        .map(|(n, info)| {
            obj(vec![
                ("account", Value::str(n.clone())),
                (
                    "description",
                    Value::str(info.meta.get("description").cloned().unwrap_or_default()),
                ),
            ])
        })
        .collect();
    let n = list.len();
    Ok(obj(vec![
        ("categories", Value::Array(list)),
        ("count", Value::int(n as i64)),
    ]))
}

fn list_payees(ledger: &Ledger, a: &Args) -> R<Value> {
    let search = a.str_opt("search")?.map(|s| s.to_lowercase());
    let limit = a.int_opt("limit")?.unwrap_or(20).max(0) as usize;
    let mut by: BTreeMap<&str, (usize, BTreeMap<&str, usize>)> = BTreeMap::new();
    for t in ledger.txns.values() {
        let Some(p) = t.payee.as_deref() else {
            continue;
        };
        if search
            .as_ref()
            .is_some_and(|s| !p.to_lowercase().contains(s.as_str()))
        {
            continue;
        }
        let e = by.entry(p).or_default();
        e.0 += 1;
        for post in &t.postings {
            if Ledger::under(&post.account, "Expenses") || Ledger::under(&post.account, "Income") {
                *e.1.entry(post.account.as_str()).or_insert(0) += 1;
            }
        }
    }
    let mut list: Vec<(&str, usize, Option<&str>)> = by
        .into_iter()
        .map(|(p, (n, accts))| {
            let usual = accts
                .iter()
                .max_by(|x, y| x.1.cmp(y.1).then_with(|| y.0.cmp(x.0)))
                .map(|(a, _)| *a);
            (p, n, usual)
        })
        .collect();
    crate::order::sort_by(&mut list, |x, y| y.1.cmp(&x.1).then_with(|| x.0.cmp(y.0)));
    let total = list.len();
    let out: Vec<Value> = list
        .into_iter()
        .take(limit)
        .map(|(p, n, usual)| {
            obj(vec![
                ("payee", Value::str(p)),
                (
                    "usual_account",
                    usual.map(Value::str).unwrap_or(Value::Null),
                ),
                ("count", Value::int(n as i64)),
            ])
        })
        .collect();
    Ok(obj(vec![
        ("payees", Value::Array(out)),
        ("total", Value::int(total as i64)),
    ]))
}

fn norm(s: &str) -> String {
    s.split_whitespace()
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

fn import_receipt(ledger: &Ledger, a: &Args) -> R<Value> {
    if let Some(id) = a.str_opt("receipt_id")? {
        return ledger.receipts.get(&id).cloned().ok_or_else(|| {
            ToolError::new(
                Code::ReceiptNotFound,
                format!("no receipt {id} in the inbox"),
                Some("receipt_id"),
            )
        });
    }
    let merchant = norm(&a.str("merchant")?);
    let date = a.date("date")?.to_string();
    ledger
        .receipts
        .values()
        .find(|r| {
            r.get("merchant").and_then(Value::as_str).is_some_and(|m| {
                let m = norm(m);
                m.contains(&merchant) || merchant.contains(&m)
            }) && r.get("date").and_then(Value::as_str) == Some(date.as_str())
        })
        .cloned()
        .ok_or_else(|| {
            ToolError::new(
                Code::ReceiptNotFound,
                format!("no receipt from a merchant like {merchant:?} dated {date} in the inbox"),
                Some("merchant"),
            )
        })
}

fn spent(ledger: &Ledger, account: &str, month: Month) -> BTreeMap<String, Dec> {
    ledger.sum(account, true, Some(month.first()), Some(month.last()))
}

fn get_budget(ledger: &Ledger, a: &Args) -> R<Value> {
    let category = a.str("category")?;
    let month = a.month("month")?;
    let spent = spent(ledger, &category, month);
    let budget = ledger.budgets.get(&(category.clone(), month));
    let currency = budget
        .map(|b| b.amount.currency.clone())
        .unwrap_or_else(|| ledger.currency().to_owned());
    let s = spent.get(&currency).copied().unwrap_or(Dec::ZERO);
    Ok(obj(vec![
        ("category", Value::Str(category)),
        ("month", Value::str(month.to_string())),
        (
            "budgeted",
            budget
                .map(|b| b.amount.number.to_value())
                .unwrap_or(Value::Null),
        ),
        ("spent", s.to_value()),
        (
            "remaining",
            budget
                .map(|b| b.amount.number.minus(s).to_value())
                .unwrap_or(Value::Null),
        ),
        ("currency", Value::Str(currency)),
    ]))
}

fn budget_status(ledger: &Ledger, a: &Args) -> R<Value> {
    let month = match a.str_opt("month")? {
        Some(m) => Month::parse(&m).ok_or_else(|| {
            ToolError::new(
                Code::BadDate,
                format!("month {m:?} is not YYYY-MM"),
                Some("month"),
            )
        })?,
        None => ledger.today.month(),
    };
    let list: Vec<Value> = ledger
        .budgets
        .iter()
        .filter(|((_, m), _)| *m == month)
        .map(|((acct, _), b)| {
            let s = spent(ledger, acct, month)
                .get(&b.amount.currency)
                .copied()
                .unwrap_or(Dec::ZERO);
            obj(vec![
                ("category", Value::str(acct.clone())),
                ("budgeted", b.amount.number.to_value()),
                ("spent", s.to_value()),
                ("remaining", b.amount.number.minus(s).to_value()),
                ("currency", Value::str(b.amount.currency.clone())),
            ])
        })
        .collect();
    Ok(obj(vec![
        ("month", Value::str(month.to_string())),
        ("budgets", Value::Array(list)),
    ]))
}

/// The next occurrence of a rule on or after `from` (`None` past its end).
fn next_run(rule: &Rule, from: Date) -> Option<Date> {
    let mut d = rule.start;
    let mut k = 0i64;
    while d < from {
        k += 1;
        d = match rule.frequency.as_str() {
            "weekly" => rule.start.plus(7 * k),
            "biweekly" => rule.start.plus(14 * k),
            _ => {
                let months = match rule.frequency.as_str() {
                    "quarterly" => 3 * k,
                    "yearly" => 12 * k,
                    _ => k,
                };
                let (y, m, day) = rule.start.ymd();
                let total = y * 12 + i64::from(m) - 1 + months;
                let month = Month {
                    year: total.div_euclid(12),
                    month: (total.rem_euclid(12) + 1) as u32,
                };
                let last = month.last().ymd().2;
                Date(month.first().0 + i64::from(day.min(last)) - 1)
            }
        };
        if k > 10_000 {
            return None;
        }
    }
    rule.end.is_none_or(|e| d <= e).then_some(d)
}

fn rule_value(id: &str, r: &Rule, today: Date) -> Value {
    obj(vec![
        ("recurring_id", Value::str(id)),
        ("payee", Value::str(r.payee.clone())),
        ("frequency", Value::str(r.frequency.clone())),
        ("start_date", Value::str(r.start.to_string())),
        (
            "next_run",
            next_run(r, today)
                .map(|d| Value::str(d.to_string()))
                .unwrap_or(Value::Null),
        ),
        ("postings", postings_value(&r.postings)),
    ])
}

fn list_recurring(ledger: &Ledger, a: &Args) -> R<Value> {
    let account = a.str_opt("account")?;
    let list: Vec<Value> = ledger
        .recurring
        .iter()
        .filter(|(_, r)| {
            account
                .as_ref()
                .is_none_or(|acc| r.postings.iter().any(|p| Ledger::under(&p.account, acc)))
        })
        .map(|(id, r)| rule_value(id, r, ledger.today))
        .collect();
    let n = list.len();
    Ok(obj(vec![
        ("recurring", Value::Array(list)),
        ("count", Value::int(n as i64)),
    ]))
}

/// The rate from one currency to another on `date`: the latest price on or before it (or
/// the inverse of the reverse price, rounded to 6 places).
fn rate(ledger: &Ledger, from: &str, to: &str, date: Date) -> R<(Dec, Date, Option<String>)> {
    if from == to {
        return Ok((Dec::int(1), date, None));
    }
    let direct = ledger
        .prices
        .iter()
        .filter(|p| p.base == from && p.quote.currency == to && p.date <= date)
        .max_by_key(|p| p.date);
    if let Some(p) = direct {
        return Ok((p.quote.number, p.date, p.meta.get("source").cloned()));
    }
    let inverse = ledger
        .prices
        .iter()
        .filter(|p| {
            p.base == to && p.quote.currency == from && p.date <= date && !p.quote.number.is_zero()
        })
        .max_by_key(|p| p.date);
    if let Some(p) = inverse {
        let inv = Dec::int(1)
            .div_round(p.quote.number, 6)
            .unwrap_or(Dec::ZERO);
        return Ok((inv, p.date, p.meta.get("source").cloned()));
    }
    Err(ToolError::new(
        Code::NoPrice,
        format!("no {from}/{to} rate on or before {date}"),
        Some("to_currency"),
    ))
}

fn convert_currency(ledger: &Ledger, a: &Args) -> R<Value> {
    let amount = a.dec("amount")?;
    let from = a.str("from_currency")?;
    let to = a.str("to_currency")?;
    let date = a.date_opt("date")?.unwrap_or(ledger.today);
    let (r, rate_date, source) = rate(ledger, &from, &to, date)?;
    let mut pairs = vec![
        ("amount", amount.to_value()),
        ("from_currency", Value::Str(from)),
        ("to_currency", Value::Str(to)),
        ("rate", r.to_value()),
        ("converted", amount.mul_round(r, 2).to_value()),
        ("rate_date", Value::str(rate_date.to_string())),
    ];
    if let Some(s) = source {
        pairs.push(("source", Value::Str(s)));
    }
    Ok(obj(pairs))
}

fn export_report(ledger: &Ledger, a: &Args) -> R<Value> {
    let report = a.str("report")?;
    let start = a.date("start_date")?;
    let end = a.date("end_date")?;
    let format = a.str("format")?;
    let accounts = a.strings("accounts")?.unwrap_or_default();
    let tags = a.tags("tags")?.unwrap_or_default();
    if end < start {
        return Err(ToolError::new(
            Code::BadDate,
            "end_date is before start_date",
            Some("end_date"),
        ));
    }
    let in_scope =
        |acct: &str| accounts.is_empty() || accounts.iter().any(|x| Ledger::under(acct, x));
    let rows = match report.as_str() {
        "balance_sheet" | "income_statement" => {
            let roots: &[&str] = if report == "balance_sheet" {
                &["Assets", "Liabilities", "Equity"]
            } else {
                &["Income", "Expenses"]
            };
            let from = (report == "income_statement").then_some(start);
            ledger
                .accounts
                .keys()
                .filter(|n| roots.iter().any(|r| Ledger::under(n, r)) && in_scope(n))
                .filter(|n| {
                    ledger
                        .sum(n, false, from, Some(end))
                        .values()
                        .any(|d| !d.is_zero())
                })
                .count()
        }
        _ => ledger
            .txns
            .values()
            .filter(|t| t.date >= start && t.date <= end && tags.is_subset(&t.tags))
            .filter(|t| {
                t.postings.iter().any(|p| in_scope(&p.account))
                    && (report != "cash_flow"
                        || t.postings
                            .iter()
                            .any(|p| Ledger::under(&p.account, "Assets")))
            })
            .count(),
    };
    let mut name = format!("{report}_{start}");
    if end != start {
        name.push_str(&format!("_{end}"));
    }
    for t in &tags {
        name.push('_');
        name.push_str(t);
    }
    let expires = ledger.today.plus(7);
    Ok(obj(vec![
        ("report", Value::Str(report)),
        ("format", Value::str(format.clone())),
        ("rows", Value::int(rows as i64)),
        (
            "url",
            Value::Str(format!("https://ledger.local/exports/{name}.{format}")),
        ),
        (
            "expires_at",
            Value::Str(format!("{expires}T{}Z", ledger.time)),
        ),
    ]))
}

fn receipt_ok(ledger: &Ledger, id: &str, field: &str) -> R<()> {
    if ledger.receipts.contains_key(id) {
        Ok(())
    } else {
        Err(ToolError::new(
            Code::ReceiptNotFound,
            format!("no receipt {id} in the inbox"),
            Some(field),
        ))
    }
}

fn add_transaction(ledger: &mut Ledger, a: &Args, options: ToolOptions) -> R<Value> {
    let date = a.date("date")?;
    let payee = a.str_opt("payee")?;
    let narration = a.str_opt("narration")?.unwrap_or_default();
    let postings = postings_of(a.0.get("postings"), "postings")?;
    let tags = a.tags("tags")?.unwrap_or_default();
    let flag = match a.str_opt("flag")?.as_deref() {
        None | Some("*") => '*',
        Some("!") => '!',
        Some(other) => {
            return Err(schema_err(
                format!("flag must be * or !, not {other:?}"),
                "flag",
            ))
        }
    };
    let mut documents = Vec::new();
    if let Some(r) = a.str_opt("receipt_id")? {
        receipt_ok(ledger, &r, "receipt_id")?;
        documents.push(r);
    }
    let txn = Txn {
        date,
        flag,
        payee,
        narration,
        tags,
        links: BTreeSet::new(),
        meta: BTreeMap::new(),
        postings,
        documents,
    };
    validate_txn(ledger, &txn)?;
    let id = ledger.new_txn_id();
    let mut pairs = vec![
        ("transaction_id", Value::str(id.clone())),
        ("status", Value::str("posted")),
        ("date", Value::str(txn.date.to_string())),
    ];
    if let Some(p) = &txn.payee {
        pairs.push(("payee", Value::str(p.clone())));
    }
    pairs.push(("postings", postings_value(&txn.postings)));
    if !txn.tags.is_empty() {
        pairs.push(("tags", strings_value(&txn.tags)));
    }
    if !txn.documents.is_empty() {
        pairs.push(("documents", strings_value(&txn.documents)));
    }
    let touched: BTreeSet<String> = txn
        .postings
        .iter()
        .filter(|p| Ledger::under(&p.account, "Assets"))
        .map(|p| p.account.clone())
        .collect();
    ledger.txns.insert(id, txn);
    if options.balances_after && !touched.is_empty() {
        let mut m = Map::new();
        for acct in touched {
            let sums = ledger.sum(&acct, true, None, None);
            if let Some((_, v)) = sums.iter().next() {
                m.insert(acct, v.to_value());
            }
        }
        pairs.push(("balances_after", Value::Object(m)));
    }
    Ok(obj(pairs))
}

fn txn_id(ledger: &Ledger, a: &Args) -> R<String> {
    let id = a.str("transaction_id")?;
    if ledger.txns.contains_key(&id) {
        Ok(id)
    } else {
        Err(ToolError::new(
            Code::TxnNotFound,
            format!("no transaction {id} in this ledger"),
            Some("transaction_id"),
        ))
    }
}

fn amend_transaction(ledger: &mut Ledger, a: &Args) -> R<Value> {
    let id = txn_id(ledger, a)?;
    let Some(Value::Object(changes)) = a.0.get("changes") else {
        return Err(schema_err("changes must be an object", "changes"));
    };
    let c = Args(changes);
    let mut txn = ledger
        .txns
        .get(&id)
        .cloned()
        .ok_or_else(|| ToolError::new(Code::TxnNotFound, "gone", None))?;
    let mut changed: Vec<(&'static str, Value)> = Vec::new();
    if let Some(d) = c.date_opt("date")? {
        txn.date = d;
        changed.push(("date", Value::str(d.to_string())));
    }
    if c.has("payee") {
        let p = c.str("payee")?;
        changed.push(("payee", Value::str(p.clone())));
        txn.payee = Some(p);
    }
    if c.has("narration") {
        let n = c.str("narration")?;
        changed.push(("narration", Value::str(n.clone())));
        txn.narration = n;
    }
    if c.has("postings") {
        txn.postings = postings_of(changes.get("postings"), "changes.postings")?;
        changed.push(("postings", postings_value(&txn.postings)));
    }
    if let Some(tags) = c.tags("tags")? {
        changed.push(("tags", strings_value(&tags)));
        txn.tags = tags;
    }
    if changed.is_empty() {
        return Err(schema_err(
            "changes names no field to change (date, payee, narration, postings, tags)",
            "changes",
        ));
    }
    validate_txn(ledger, &txn)?;
    ledger.txns.insert(id.clone(), txn);
    let names: Vec<Value> = changed.iter().map(|(k, _)| Value::str(*k)).collect();
    let mut pairs = vec![
        ("transaction_id", Value::Str(id)),
        ("status", Value::str("amended")),
        ("changed_fields", Value::Array(names)),
    ];
    pairs.extend(changed);
    Ok(obj(pairs))
}

fn delete_transaction(ledger: &mut Ledger, a: &Args) -> R<Value> {
    let id = txn_id(ledger, a)?;
    a.str_opt("reason")?;
    ledger.txns.remove(&id);
    Ok(obj(vec![
        ("transaction_id", Value::Str(id)),
        ("status", Value::str("deleted")),
    ]))
}

fn set_budget(ledger: &mut Ledger, a: &Args) -> R<Value> {
    let category = a.str("category")?;
    let month = a.month("month")?;
    let amount = a.dec("amount")?;
    let currency = a
        .str_opt("currency")?
        .unwrap_or_else(|| ledger.currency().to_owned());
    currency_ok(&currency, "currency")?;
    let rollover = a.bool_opt("rollover")?.unwrap_or(false);
    let note = a.str_opt("note")?;
    let key = (category.clone(), month);
    let status = if ledger.budgets.contains_key(&key) {
        "updated"
    } else {
        "created"
    };
    ledger.budgets.insert(
        key,
        Budget {
            amount: Amount {
                number: amount,
                currency: currency.clone(),
            },
            rollover,
            note: note.clone(),
        },
    );
    let mut pairs = vec![
        ("category", Value::Str(category)),
        ("month", Value::str(month.to_string())),
        ("amount", amount.to_value()),
        ("currency", Value::Str(currency)),
        ("rollover", Value::Bool(rollover)),
    ];
    if let Some(n) = note {
        pairs.push(("note", Value::Str(n)));
    }
    pairs.push(("status", Value::str(status)));
    Ok(obj(pairs))
}

fn create_recurring(ledger: &mut Ledger, a: &Args) -> R<Value> {
    let payee = a.str("payee")?;
    let frequency = a.str("frequency")?;
    if !["weekly", "biweekly", "monthly", "quarterly", "yearly"].contains(&frequency.as_str()) {
        return Err(schema_err(
            format!(
                "frequency {frequency:?} is not weekly, biweekly, monthly, quarterly or yearly"
            ),
            "frequency",
        ));
    }
    let start = a.date("start_date")?;
    let end = a.date_opt("end_date")?;
    let postings = if a.has("postings") {
        postings_of(a.0.get("postings"), "postings")?
    } else {
        let amount = a.dec("amount")?;
        let currency = a
            .str_opt("currency")?
            .unwrap_or_else(|| ledger.currency().to_owned());
        currency_ok(&currency, "currency")?;
        let leg = |account: String, number: Dec| Posting {
            account,
            units: Amount {
                number,
                currency: currency.clone(),
            },
        };
        vec![
            leg(a.str("to_account")?, amount),
            leg(a.str("from_account")?, amount.negated()),
        ]
    };
    let probe = Txn {
        date: start,
        flag: '*',
        payee: Some(payee.clone()),
        narration: String::new(),
        tags: BTreeSet::new(),
        links: BTreeSet::new(),
        meta: BTreeMap::new(),
        postings: postings.clone(),
        documents: Vec::new(),
    };
    validate_txn(ledger, &probe)?;
    let rule = Rule {
        payee,
        frequency,
        start,
        end,
        postings,
        auto_post: a.bool_opt("auto_post")?.unwrap_or(true),
    };
    let id = ledger.new_rule_id();
    let value = {
        let next = next_run(&rule, ledger.today);
        obj(vec![
            ("recurring_id", Value::str(id.clone())),
            ("status", Value::str("active")),
            ("payee", Value::str(rule.payee.clone())),
            ("frequency", Value::str(rule.frequency.clone())),
            ("start_date", Value::str(rule.start.to_string())),
            (
                "next_run",
                next.map(|d| Value::str(d.to_string()))
                    .unwrap_or(Value::Null),
            ),
        ])
    };
    ledger.recurring.insert(id, rule);
    Ok(value)
}

fn attach_document(ledger: &mut Ledger, a: &Args) -> R<Value> {
    let id = txn_id(ledger, a)?;
    let receipt = a.str("receipt_id")?;
    receipt_ok(ledger, &receipt, "receipt_id")?;
    let documents = match ledger.txns.get_mut(&id) {
        Some(t) => {
            if !t.documents.contains(&receipt) {
                t.documents.push(receipt);
            }
            t.documents.clone()
        }
        None => Vec::new(),
    };
    Ok(obj(vec![
        ("transaction_id", Value::Str(id)),
        ("status", Value::str("attached")),
        ("documents", strings_value(&documents)),
    ]))
}
