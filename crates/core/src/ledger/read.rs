//! The reader of the documented Beancount subset, for scenario authors' initial ledgers:
//! `option` (`operating_currency`, `title`), `commodity`, `open` (with currencies), `close`,
//! transactions (`*`/`!`/`txn`, payee and narration, tags, links, entry metadata, one
//! posting without an amount, interpolated), `balance`, `pad` (expanded on load into a `P`
//! transaction, as Beancount does), `price`, `custom "budget"` and `custom "wt-recurring"`,
//! comments. Cost (`{…}`) and price (`@`) annotations, `include`, `plugin`, tag stacks,
//! posting metadata and other directives are refused with the line named. Syntax only:
//! [`super::check`] validates the result.

use std::collections::{BTreeMap, BTreeSet};

use super::date::{Date, Month};
use super::dec::Dec;
use super::model::{AccountInfo, Amount, Balance, Budget, Ledger, Posting, Price, Rule, Txn};

/// Why a ledger text cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("ledger line {line}: {message}")]
pub struct ReadError {
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Str(String),
    Word(String),
}

fn lex(line: &str, no: usize) -> Result<Vec<Tok>, ReadError> {
    let mut out = Vec::new();
    let mut chars = line.char_indices().peekable();
    while let Some(&(i, c)) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c == ';' {
            break;
        } else if c == '"' {
            chars.next();
            let mut s = String::new();
            let mut closed = false;
            while let Some((_, c)) = chars.next() {
                match c {
                    '\\' => {
                        if let Some((_, n)) = chars.next() {
                            s.push(n);
                        }
                    }
                    '"' => {
                        closed = true;
                        break;
                    }
                    other => s.push(other),
                }
            }
            if !closed {
                return Err(ReadError {
                    line: no,
                    message: "unterminated string".to_owned(),
                });
            }
            out.push(Tok::Str(s));
        } else {
            let start = i;
            let mut end = line.len();
            while let Some(&(j, c)) = chars.peek() {
                if c.is_whitespace() || c == '"' || c == ';' {
                    end = j;
                    break;
                }
                chars.next();
            }
            out.push(Tok::Word(line[start..end].to_owned()));
        }
    }
    Ok(out)
}

/// True for a Beancount account name under one of the five roots.
pub fn valid_account(name: &str) -> bool {
    let mut parts = name.split(':');
    let Some(root) = parts.next() else {
        return false;
    };
    if !matches!(
        root,
        "Assets" | "Liabilities" | "Equity" | "Income" | "Expenses"
    ) {
        return false;
    }
    let mut n = 0;
    for p in parts {
        n += 1;
        let mut cs = p.chars();
        let Some(first) = cs.next() else {
            return false;
        };
        if !(first.is_ascii_uppercase() || first.is_ascii_digit()) {
            return false;
        }
        if !cs.all(|c| c.is_ascii_alphanumeric() || c == '-') {
            return false;
        }
    }
    n >= 1
}

/// True for a Beancount currency name (`EUR`, `USD`, `VACHR`).
pub fn valid_currency(c: &str) -> bool {
    let b = c.as_bytes();
    !b.is_empty()
        && b.len() <= 24
        && b[0].is_ascii_uppercase()
        && b.last()
            .is_some_and(|x| x.is_ascii_uppercase() || x.is_ascii_digit())
        && b.iter()
            .all(|x| x.is_ascii_uppercase() || x.is_ascii_digit() || b"'._-".contains(x))
}

/// True for a tag or link name.
pub fn valid_tag(t: &str) -> bool {
    !t.is_empty()
        && t.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_/.".contains(c))
}

struct Pad {
    date: Date,
    account: String,
    source: String,
    line: usize,
}

struct Reader {
    ledger: Ledger,
    pending_ids: Vec<(usize, Txn)>,
    explicit: Vec<(String, Txn)>,
    pads: Vec<Pad>,
}

fn err(line: usize, message: impl Into<String>) -> ReadError {
    ReadError {
        line,
        message: message.into(),
    }
}

fn number(text: &str, line: usize) -> Result<Dec, ReadError> {
    Dec::parse(&text.replace(',', "")).ok_or_else(|| err(line, format!("{text:?} is not a number")))
}

fn word<'a>(toks: &'a [Tok], i: usize, line: usize, what: &str) -> Result<&'a str, ReadError> {
    match toks.get(i) {
        Some(Tok::Word(w)) => Ok(w),
        _ => Err(err(line, format!("expected {what}"))),
    }
}

fn string<'a>(toks: &'a [Tok], i: usize, line: usize, what: &str) -> Result<&'a str, ReadError> {
    match toks.get(i) {
        Some(Tok::Str(s)) => Ok(s),
        _ => Err(err(line, format!("expected {what} (a quoted string)"))),
    }
}

fn account(toks: &[Tok], i: usize, line: usize) -> Result<String, ReadError> {
    let a = word(toks, i, line, "an account")?;
    if valid_account(a) {
        Ok(a.to_owned())
    } else {
        Err(err(line, format!("{a:?} is not an account name")))
    }
}

fn currency(toks: &[Tok], i: usize, line: usize) -> Result<String, ReadError> {
    let c = word(toks, i, line, "a currency")?;
    if valid_currency(c) {
        Ok(c.to_owned())
    } else {
        Err(err(line, format!("{c:?} is not a currency")))
    }
}

fn meta_value(toks: &[Tok], line: usize) -> Result<String, ReadError> {
    match toks {
        [Tok::Str(s)] => Ok(s.clone()),
        [Tok::Word(w)] => Ok(w.clone()),
        [Tok::Word(n), Tok::Word(c)] => Ok(format!("{n} {c}")),
        _ => Err(err(line, "a metadata value is one string, word or amount")),
    }
}

/// A parsed `key: value` line, if the line is one.
fn meta_line(toks: &[Tok], line: usize) -> Result<Option<(String, String)>, ReadError> {
    let Some(Tok::Word(first)) = toks.first() else {
        return Ok(None);
    };
    let Some(key) = first.strip_suffix(':') else {
        return Ok(None);
    };
    let ok = key.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !ok {
        return Err(err(line, format!("{key:?} is not a metadata key")));
    }
    Ok(Some((key.to_owned(), meta_value(&toks[1..], line)?)))
}

/// Reads `text`; `seed` draws the ids of transactions without `wt-id` metadata (and of
/// expanded pads), avoiding `reserved` ids.
pub fn read_ledger(
    text: &str,
    seed: u64,
    reserved: &BTreeSet<String>,
) -> Result<Ledger, ReadError> {
    let mut r = Reader {
        ledger: Ledger::default(),
        pending_ids: Vec::new(),
        explicit: Vec::new(),
        pads: Vec::new(),
    };
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let no = i + 1;
        let raw = lines[i];
        i += 1;
        if raw.trim().is_empty() || raw.trim_start().starts_with(';') {
            continue;
        }
        if raw.starts_with(char::is_whitespace) {
            return Err(err(no, "an indented line outside an entry"));
        }
        let toks = lex(raw, no)?;
        // The entry's indented lines.
        let mut body: Vec<(usize, Vec<Tok>)> = Vec::new();
        while i < lines.len() {
            let l = lines[i];
            if l.trim().is_empty() {
                break;
            }
            if !l.starts_with(char::is_whitespace) {
                break;
            }
            i += 1;
            if l.trim_start().starts_with(';') {
                continue;
            }
            body.push((i, lex(l, i)?));
        }
        r.entry(&toks, &body, no)?;
    }
    r.finish(seed, reserved)
}

impl Reader {
    fn entry(
        &mut self,
        toks: &[Tok],
        body: &[(usize, Vec<Tok>)],
        no: usize,
    ) -> Result<(), ReadError> {
        let first = word(toks, 0, no, "a date or `option`")?;
        if first == "option" {
            if !body.is_empty() {
                return Err(err(no, "option takes no metadata"));
            }
            let key = string(toks, 1, no, "the option name")?;
            let value = string(toks, 2, no, "the option value")?;
            match key {
                "operating_currency" => self
                    .ledger
                    .options
                    .operating_currency
                    .push(value.to_owned()),
                "title" => self.ledger.options.title = Some(value.to_owned()),
                other => return Err(err(no, format!("option {other:?} is not supported"))),
            }
            return Ok(());
        }
        if matches!(
            first,
            "include" | "plugin" | "pushtag" | "poptag" | "pushmeta" | "popmeta"
        ) {
            return Err(err(no, format!("{first} is not supported")));
        }
        let date = Date::parse(first).ok_or_else(|| err(no, format!("{first:?} is not a date")))?;
        let kind = match toks.get(1) {
            Some(Tok::Word(w)) => w.as_str(),
            Some(Tok::Str(_)) => return Err(err(no, "expected a directive after the date")),
            None => return Err(err(no, "a date without a directive")),
        };
        let metas = |body: &[(usize, Vec<Tok>)]| -> Result<BTreeMap<String, String>, ReadError> {
            let mut m = BTreeMap::new();
            for (l, t) in body {
                match meta_line(t, *l)? {
                    Some((k, v)) => {
                        m.insert(k, v);
                    }
                    None => return Err(err(*l, "expected a `key: value` metadata line")),
                }
            }
            Ok(m)
        };
        match kind {
            "commodity" => {
                let c = currency(toks, 2, no)?;
                metas(body)?;
                self.ledger.commodities.insert(c, date);
            }
            "open" => {
                let name = account(toks, 2, no)?;
                let currencies = match toks.get(3) {
                    Some(Tok::Word(list)) => {
                        let mut set = BTreeSet::new();
                        for c in list.split(',') {
                            if !valid_currency(c) {
                                return Err(err(no, format!("{c:?} is not a currency")));
                            }
                            set.insert(c.to_owned());
                        }
                        Some(set)
                    }
                    Some(Tok::Str(_)) => return Err(err(no, "booking methods are not supported")),
                    None => None,
                };
                if toks.len() > 4 {
                    return Err(err(no, "unexpected text after the currencies"));
                }
                if self.ledger.accounts.contains_key(&name) {
                    return Err(err(no, format!("Duplicate open directive for {name}")));
                }
                let meta = metas(body)?;
                self.ledger.accounts.insert(
                    name,
                    AccountInfo {
                        open: date,
                        close: None,
                        currencies,
                        meta,
                    },
                );
            }
            "close" => {
                let name = account(toks, 2, no)?;
                let a = self
                    .ledger
                    .accounts
                    .get_mut(&name)
                    .ok_or_else(|| err(no, format!("close of {name} before its open")))?;
                if a.close.is_some() || date <= a.open {
                    return Err(err(
                        no,
                        format!("close of {name} must be once and after its open"),
                    ));
                }
                a.close = Some(date);
            }
            "balance" => {
                let acct = account(toks, 2, no)?;
                let n = number(word(toks, 3, no, "the balance amount")?, no)?;
                let c = currency(toks, 4, no)?;
                if toks.len() > 5 {
                    return Err(err(no, "balance tolerances (`~`) are not supported"));
                }
                metas(body)?;
                self.ledger.balances.push(Balance {
                    date,
                    account: acct,
                    amount: Amount {
                        number: n,
                        currency: c,
                    },
                });
            }
            "price" => {
                let base = currency(toks, 2, no)?;
                let n = number(word(toks, 3, no, "the price")?, no)?;
                let c = currency(toks, 4, no)?;
                let meta = metas(body)?;
                self.ledger.prices.push(Price {
                    date,
                    base,
                    quote: Amount {
                        number: n,
                        currency: c,
                    },
                    meta,
                });
            }
            "pad" => {
                let a = account(toks, 2, no)?;
                let s = account(toks, 3, no)?;
                metas(body)?;
                self.pads.push(Pad {
                    date,
                    account: a,
                    source: s,
                    line: no,
                });
            }
            "custom" => self.custom(date, toks, body, no)?,
            "*" | "!" | "txn" => self.txn(date, kind, toks, body, no)?,
            other => return Err(err(no, format!("the {other:?} directive is not supported"))),
        }
        Ok(())
    }

    fn custom(
        &mut self,
        date: Date,
        toks: &[Tok],
        body: &[(usize, Vec<Tok>)],
        no: usize,
    ) -> Result<(), ReadError> {
        let kind = string(toks, 2, no, "the custom type")?;
        let mut meta = BTreeMap::new();
        for (l, t) in body {
            match meta_line(t, *l)? {
                Some((k, v)) => {
                    meta.insert(k, v);
                }
                None => return Err(err(*l, "expected a `key: value` metadata line")),
            }
        }
        let flag = |key: &str, default: bool| -> Result<bool, ReadError> {
            match meta.get(key).map(String::as_str) {
                None => Ok(default),
                Some("TRUE") => Ok(true),
                Some("FALSE") => Ok(false),
                Some(other) => Err(err(
                    no,
                    format!("{key} must be TRUE or FALSE, not {other:?}"),
                )),
            }
        };
        match kind {
            "budget" => {
                let acct = account(toks, 3, no)?;
                if string(toks, 4, no, "\"monthly\"")? != "monthly" {
                    return Err(err(no, "only \"monthly\" budgets are supported"));
                }
                let n = number(word(toks, 5, no, "the budget amount")?, no)?;
                let c = currency(toks, 6, no)?;
                let (y, m, _) = date.ymd();
                self.ledger.budgets.insert(
                    (acct, Month { year: y, month: m }),
                    Budget {
                        amount: Amount {
                            number: n,
                            currency: c,
                        },
                        rollover: flag("rollover", false)?,
                        note: meta.get("note").cloned(),
                    },
                );
            }
            "wt-recurring" => {
                let id = string(toks, 3, no, "the rule id")?.to_owned();
                let payee = string(toks, 4, no, "the payee")?.to_owned();
                let frequency = string(toks, 5, no, "the frequency")?.to_owned();
                let end = match meta.get("end") {
                    Some(e) => Some(Date::parse(e).ok_or_else(|| err(no, "end must be a date"))?),
                    None => None,
                };
                let mut postings = Vec::new();
                for k in 1.. {
                    let Some(p) = meta.get(&format!("posting-{k}")) else {
                        break;
                    };
                    let parts: Vec<&str> = p.split_whitespace().collect();
                    let [acct, n, c] = parts.as_slice() else {
                        return Err(err(no, "posting-N is \"Account number CURRENCY\""));
                    };
                    postings.push(Posting {
                        account: (*acct).to_owned(),
                        units: Amount {
                            number: number(n, no)?,
                            currency: (*c).to_owned(),
                        },
                    });
                }
                self.ledger.recurring.insert(
                    id,
                    Rule {
                        payee,
                        frequency,
                        start: date,
                        end,
                        postings,
                        auto_post: flag("auto-post", true)?,
                    },
                );
            }
            other => return Err(err(no, format!("custom {other:?} is not supported"))),
        }
        Ok(())
    }

    fn txn(
        &mut self,
        date: Date,
        kind: &str,
        toks: &[Tok],
        body: &[(usize, Vec<Tok>)],
        no: usize,
    ) -> Result<(), ReadError> {
        let flag = if kind == "!" { '!' } else { '*' };
        let strings: Vec<&str> = toks[2..]
            .iter()
            .take_while(|t| matches!(t, Tok::Str(_)))
            .filter_map(|t| match t {
                Tok::Str(s) => Some(s.as_str()),
                Tok::Word(_) => None,
            })
            .collect();
        let (payee, narration) = match strings.as_slice() {
            [] => (None, String::new()),
            [n] => (None, (*n).to_owned()),
            [p, n] => (Some((*p).to_owned()), (*n).to_owned()),
            _ => return Err(err(no, "a transaction has at most a payee and a narration")),
        };
        let mut tags = BTreeSet::new();
        let mut links = BTreeSet::new();
        for t in &toks[2 + strings.len()..] {
            match t {
                Tok::Word(w) if w.starts_with('#') && valid_tag(&w[1..]) => {
                    tags.insert(w[1..].to_owned());
                }
                Tok::Word(w) if w.starts_with('^') && valid_tag(&w[1..]) => {
                    links.insert(w[1..].to_owned());
                }
                _ => {
                    return Err(err(
                        no,
                        "expected tags (#…) or links (^…) after the narration",
                    ))
                }
            }
        }
        let mut meta = BTreeMap::new();
        let mut documents: Vec<(String, String)> = Vec::new();
        let mut id: Option<String> = None;
        let mut postings: Vec<(usize, String, Option<Amount>)> = Vec::new();
        for (l, t) in body {
            if let Some((k, v)) = meta_line(t, *l)? {
                if !postings.is_empty() {
                    return Err(err(*l, "posting metadata is not supported"));
                }
                if k == "wt-id" {
                    id = Some(v);
                } else if k == "receipt" || k.starts_with("receipt-") {
                    documents.push((k, v));
                } else {
                    meta.insert(k, v);
                }
                continue;
            }
            let mut t = t.as_slice();
            if let Some(Tok::Word(f)) = t.first() {
                if f.len() == 1 && "*!".contains(f.as_str()) {
                    t = &t[1..];
                }
            }
            let acct = account(t, 0, *l)?;
            if t.iter()
                .any(|x| matches!(x, Tok::Word(w) if w.starts_with('{') || w.starts_with('@')))
            {
                return Err(err(
                    *l,
                    "cost ({…}) and price (@) annotations are not supported",
                ));
            }
            let units = match t.len() {
                1 => None,
                3 => Some(Amount {
                    number: number(word(t, 1, *l, "an amount")?, *l)?,
                    currency: currency(t, 2, *l)?,
                }),
                _ => return Err(err(*l, "a posting is `Account [number CURRENCY]`")),
            };
            postings.push((*l, acct, units));
        }
        let missing = postings.iter().filter(|p| p.2.is_none()).count();
        if missing > 1 {
            return Err(err(no, "at most one posting may leave out its amount"));
        }
        let mut sums: BTreeMap<String, Dec> = BTreeMap::new();
        for (_, _, u) in &postings {
            if let Some(u) = u {
                let e = sums.entry(u.currency.clone()).or_insert(Dec::ZERO);
                *e = e.plus(u.number);
            }
        }
        let mut out = Vec::with_capacity(postings.len());
        for (l, acct, u) in postings {
            let units = match u {
                Some(u) => u,
                None => {
                    if sums.len() != 1 {
                        return Err(err(l, "cannot interpolate an amount across currencies"));
                    }
                    let (c, s) = sums
                        .iter()
                        .next()
                        .map(|(c, s)| (c.clone(), *s))
                        .unwrap_or((String::new(), Dec::ZERO));
                    Amount {
                        number: s.negated(),
                        currency: c,
                    }
                }
            };
            out.push(Posting {
                account: acct,
                units,
            });
        }
        crate::order::sort(&mut documents);
        let txn = Txn {
            date,
            flag,
            payee,
            narration,
            tags,
            links,
            meta,
            postings: out,
            documents: documents.into_iter().map(|(_, v)| v).collect(),
        };
        match id {
            Some(id) => self.explicit.push((id, txn)),
            None => self.pending_ids.push((no, txn)),
        }
        Ok(())
    }

    fn finish(mut self, seed: u64, reserved: &BTreeSet<String>) -> Result<Ledger, ReadError> {
        for (id, t) in std::mem::take(&mut self.explicit) {
            if self.ledger.txns.contains_key(&id) {
                return Err(err(0, format!("wt-id {id:?} is used twice")));
            }
            self.ledger.txns.insert(id, t);
        }
        // Pads: the amount that makes the next balance assertion of the account hold.
        let pads = std::mem::take(&mut self.pads);
        for pad in &pads {
            let next = self
                .ledger
                .balances
                .iter()
                .filter(|b| b.account == pad.account && b.date > pad.date)
                .min_by_key(|b| b.date);
            let Some(b) = next else {
                return Err(err(pad.line, "Unused Pad entry"));
            };
            let have = self
                .ledger
                .sum(&pad.account, true, None, Some(b.date.plus(-1)))
                .get(&b.amount.currency)
                .copied()
                .unwrap_or(Dec::ZERO);
            let diff = b.amount.number.minus(have);
            if diff.is_zero() {
                continue;
            }
            let c = b.amount.currency.clone();
            self.pending_ids.push((
                pad.line,
                Txn {
                    date: pad.date,
                    flag: 'P',
                    payee: None,
                    narration: format!(
                        "(Padding inserted for Balance of {} {c} for difference {} {c})",
                        b.amount.number.plain(),
                        diff.plain()
                    ),
                    tags: BTreeSet::new(),
                    links: BTreeSet::new(),
                    meta: BTreeMap::new(),
                    postings: vec![
                        Posting {
                            account: pad.account.clone(),
                            units: Amount {
                                number: diff,
                                currency: c.clone(),
                            },
                        },
                        Posting {
                            account: pad.source.clone(),
                            units: Amount {
                                number: diff.negated(),
                                currency: c,
                            },
                        },
                    ],
                    documents: Vec::new(),
                },
            ));
        }
        crate::order::sort_by_key(&mut self.pending_ids, |p| p.0);
        let mut n = 0u64;
        for (_, t) in std::mem::take(&mut self.pending_ids) {
            let id = loop {
                let mut rng = crate::generate::rng::Rng::stream(seed, n, "initial-txn", 0);
                n += 1;
                let id = format!("txn_{:06x}", rng.next_u64() & 0xff_ffff);
                if !self.ledger.txns.contains_key(&id) && !reserved.contains(&id) {
                    break id;
                }
            };
            self.ledger.txns.insert(id, t);
        }
        Ok(self.ledger)
    }
}
