//! Invariants. **Hard** rules reject a write (the state is unchanged and the tool answers
//! with an error observation); they mirror `bean-check`'s checks so that whatever the
//! environment accepts, `bean-check` accepts. **Soft** violations are accepted but looked
//! for over the whole ledger after every accepted write; each has an identity
//! `(kind, subject)`, so a violation can be told new or old.

use std::collections::{BTreeMap, BTreeSet};

use crate::json::{Map, Value};

use super::dec::Dec;
use super::model::{Ledger, Txn};

/// The error codes of tool observations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Code {
    /// The arguments are not JSON (or not an object).
    ArgsInvalidJson,
    /// The arguments do not fit the tool's schema.
    ArgsSchema,
    /// No such tool.
    UnknownTool,
    /// A posting to an account that is not open.
    UnknownAccount,
    /// A posting outside the account's open–close interval.
    AccountClosed,
    /// A currency the account does not allow.
    CurrencyNotAllowed,
    /// Postings do not sum to zero per currency.
    Unbalanced,
    /// Fewer than two postings.
    TooFewPostings,
    /// Not a date.
    BadDate,
    /// No such transaction.
    TxnNotFound,
    /// No such receipt.
    ReceiptNotFound,
    /// No price for a conversion.
    NoPrice,
}

impl Code {
    /// The code as written in observations (`UNBALANCED`).
    pub fn as_str(self) -> &'static str {
        match self {
            Code::ArgsInvalidJson => "ARGS_INVALID_JSON",
            Code::ArgsSchema => "ARGS_SCHEMA",
            Code::UnknownTool => "UNKNOWN_TOOL",
            Code::UnknownAccount => "UNKNOWN_ACCOUNT",
            Code::AccountClosed => "ACCOUNT_CLOSED",
            Code::CurrencyNotAllowed => "CURRENCY_NOT_ALLOWED",
            Code::Unbalanced => "UNBALANCED",
            Code::TooFewPostings => "TOO_FEW_POSTINGS",
            Code::BadDate => "BAD_DATE",
            Code::TxnNotFound => "TXN_NOT_FOUND",
            Code::ReceiptNotFound => "RECEIPT_NOT_FOUND",
            Code::NoPrice => "NO_PRICE",
        }
    }
}

/// A tool error: a code, a message and the argument it is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError {
    /// The code.
    pub code: Code,
    /// What is wrong, for the model.
    pub message: String,
    /// The argument (`postings`, `postings[1].account`), when one is at fault.
    pub field: Option<String>,
}

impl ToolError {
    /// An error.
    pub fn new(code: Code, message: impl Into<String>, field: Option<&str>) -> Self {
        Self {
            code,
            message: message.into(),
            field: field.map(str::to_owned),
        }
    }

    /// `{"status": "error", "error": {"code", "message", "field"?}}`.
    pub fn to_value(&self) -> Value {
        let mut e = Map::new();
        e.insert("code", Value::str(self.code.as_str()));
        e.insert("message", Value::str(self.message.clone()));
        if let Some(f) = &self.field {
            e.insert("field", Value::str(f.clone()));
        }
        let mut m = Map::new();
        m.insert("status", Value::str("error"));
        m.insert("error", Value::Object(e));
        Value::Object(m)
    }
}

/// Beancount's inferred tolerance per currency for these postings: half of the last digit
/// of the *least* precise amount with decimals (Beancount takes the maximum), zero when
/// every amount of that currency is whole.
pub fn tolerances(txn: &Txn) -> BTreeMap<String, Dec> {
    let mut out: BTreeMap<String, Dec> = BTreeMap::new();
    for p in &txn.postings {
        let t = p.units.number.half_unit();
        let e = out.entry(p.units.currency.clone()).or_insert(Dec::ZERO);
        if t > *e {
            *e = t;
        }
    }
    out
}

/// The per-currency residual of a transaction beyond its tolerance, if any.
pub fn imbalance(txn: &Txn) -> Vec<(String, Dec)> {
    let tol = tolerances(txn);
    let mut sums: BTreeMap<String, Dec> = BTreeMap::new();
    for p in &txn.postings {
        let e = sums.entry(p.units.currency.clone()).or_insert(Dec::ZERO);
        *e = e.plus(p.units.number);
    }
    sums.into_iter()
        .filter(|(c, s)| s.abs() > tol.get(c).copied().unwrap_or(Dec::ZERO))
        .collect()
}

/// The hard rules for one transaction in `ledger` (which need not contain it).
pub fn validate_txn(ledger: &Ledger, txn: &Txn) -> Result<(), ToolError> {
    if txn.postings.len() < 2 {
        return Err(ToolError::new(
            Code::TooFewPostings,
            format!(
                "a transaction needs at least 2 postings, got {}",
                txn.postings.len()
            ),
            Some("postings"),
        ));
    }
    for (i, p) in txn.postings.iter().enumerate() {
        let field = format!("postings[{i}].account");
        let Some(a) = ledger.accounts.get(&p.account) else {
            return Err(ToolError::new(
                Code::UnknownAccount,
                format!("account {} is not open in this ledger", p.account),
                Some(&field),
            ));
        };
        if txn.date < a.open || a.close.is_some_and(|c| txn.date >= c) {
            let window = match a.close {
                Some(c) => format!("open from {} until {c}", a.open),
                None => format!("open from {}", a.open),
            };
            return Err(ToolError::new(
                Code::AccountClosed,
                format!("account {} is {window}, not on {}", p.account, txn.date),
                Some(&field),
            ));
        }
        if let Some(cs) = &a.currencies {
            if !cs.contains(&p.units.currency) {
                let allowed: Vec<&str> = cs.iter().map(String::as_str).collect();
                return Err(ToolError::new(
                    Code::CurrencyNotAllowed,
                    format!(
                        "account {} holds {} only, not {}",
                        p.account,
                        allowed.join(", "),
                        p.units.currency
                    ),
                    Some(&format!("postings[{i}].currency")),
                ));
            }
        }
    }
    if let Some((c, s)) = imbalance(txn).into_iter().next() {
        return Err(ToolError::new(
            Code::Unbalanced,
            format!("postings sum to {} {c}; they must sum to 0", s.plain()),
            Some("postings"),
        ));
    }
    Ok(())
}

/// The kinds of soft violation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ViolationKind {
    /// A balance assertion no longer holds (e.g. a back-dated write into a reconciled
    /// period). Subject: account, date.
    BalanceAssertionFailed,
    /// More transactions with one (date, payee, accounts) key than the expected state has.
    /// Subject: date, normalised payee, accounts.
    DoubleBooking,
    /// A budget on an account that is not open. Subject: account, month.
    BudgetOrphan,
}

impl ViolationKind {
    /// `balance_assertion_failed`, `double_booking`, `budget_orphan`.
    pub fn as_str(self) -> &'static str {
        match self {
            ViolationKind::BalanceAssertionFailed => "balance_assertion_failed",
            ViolationKind::DoubleBooking => "double_booking",
            ViolationKind::BudgetOrphan => "budget_orphan",
        }
    }
}

/// A soft violation with its identity.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Violation {
    /// Its kind.
    pub kind: ViolationKind,
    /// What it is about.
    pub subject: Vec<String>,
}

impl Violation {
    /// `{"kind", "subject": […]}`.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("kind", Value::str(self.kind.as_str()));
        m.insert(
            "subject",
            Value::Array(self.subject.iter().cloned().map(Value::Str).collect()),
        );
        Value::Object(m)
    }
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.kind.as_str(), self.subject.join(", "))
    }
}

/// A payee case-folded with whitespace collapsed (`""` for none).
pub fn payee_norm(p: Option<&str>) -> String {
    p.unwrap_or("")
        .split_whitespace()
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The double-booking key of a transaction: date, normalised payee, sorted accounts.
pub fn booking_key(t: &Txn) -> Vec<String> {
    let accounts: BTreeSet<&str> = t.postings.iter().map(|p| p.account.as_str()).collect();
    vec![
        t.date.to_string(),
        payee_norm(t.payee.as_deref()),
        accounts.into_iter().collect::<Vec<_>>().join(" "),
    ]
}

/// Transactions per booking key.
pub fn booking_counts(ledger: &Ledger) -> BTreeMap<Vec<String>, usize> {
    let mut out = BTreeMap::new();
    for t in ledger.txns.values() {
        *out.entry(booking_key(t)).or_insert(0) += 1;
    }
    out
}

/// The failing balance assertions: `(index, accumulated)`.
pub fn failed_balances(ledger: &Ledger) -> Vec<(usize, Dec)> {
    let mut out = Vec::new();
    for (i, b) in ledger.balances.iter().enumerate() {
        let have = ledger
            .sum(&b.account, true, None, Some(b.date.plus(-1)))
            .get(&b.amount.currency)
            .copied()
            .unwrap_or(Dec::ZERO);
        if have.minus(b.amount.number).abs() > b.amount.number.unit() {
            out.push((i, have));
        }
    }
    out
}

/// The soft violations of `ledger`; double bookings counted against `reference` (the
/// expected state), and not looked for without one.
pub fn soft_violations(ledger: &Ledger, reference: Option<&Ledger>) -> BTreeSet<Violation> {
    let mut out = BTreeSet::new();
    for (i, _) in failed_balances(ledger) {
        if let Some(b) = ledger.balances.get(i) {
            out.insert(Violation {
                kind: ViolationKind::BalanceAssertionFailed,
                subject: vec![b.account.clone(), b.date.to_string()],
            });
        }
    }
    if let Some(reference) = reference {
        let expected = booking_counts(reference);
        for (key, n) in booking_counts(ledger) {
            if n > expected.get(&key).copied().unwrap_or(0).max(1) {
                out.insert(Violation {
                    kind: ViolationKind::DoubleBooking,
                    subject: key,
                });
            }
        }
    }
    for (account, month) in ledger.budgets.keys() {
        let open = ledger
            .accounts
            .get(account)
            .is_some_and(|a| a.open <= month.last() && a.close.is_none_or(|c| c > month.first()));
        if !open {
            out.insert(Violation {
                kind: ViolationKind::BudgetOrphan,
                subject: vec![account.clone(), month.to_string()],
            });
        }
    }
    out
}

/// The error classes of a whole-ledger check, as `bean-check` reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ErrorClass {
    /// "Transaction does not balance".
    Unbalanced,
    /// "Invalid reference to unknown account".
    UnknownAccount,
    /// "Invalid currency".
    Currency,
    /// "Balance failed".
    BalanceFailed,
    /// Open/close problems ("Duplicate open", "Invalid reference to inactive account", …).
    OpenClose,
}

impl ErrorClass {
    /// `unbalanced`, `unknown_account`, `currency`, `balance_failed`, `open_close`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorClass::Unbalanced => "unbalanced",
            ErrorClass::UnknownAccount => "unknown_account",
            ErrorClass::Currency => "currency",
            ErrorClass::BalanceFailed => "balance_failed",
            ErrorClass::OpenClose => "open_close",
        }
    }
}

/// Every error of the whole ledger, `bean-check`'s way: each transaction against the hard
/// rules (a transaction with fewer than two postings is judged by its balance only, as
/// Beancount does), and every balance assertion.
pub fn check_ledger(ledger: &Ledger) -> Vec<(ErrorClass, String)> {
    let mut out = Vec::new();
    for (id, t) in &ledger.txns {
        for p in &t.postings {
            match ledger.accounts.get(&p.account) {
                None => out.push((
                    ErrorClass::UnknownAccount,
                    format!("{id}: unknown account {}", p.account),
                )),
                Some(a) => {
                    if t.date < a.open || a.close.is_some_and(|c| t.date >= c) {
                        out.push((
                            ErrorClass::OpenClose,
                            format!("{id}: inactive account {}", p.account),
                        ));
                    }
                    if a.currencies
                        .as_ref()
                        .is_some_and(|cs| !cs.contains(&p.units.currency))
                    {
                        out.push((
                            ErrorClass::Currency,
                            format!("{id}: currency {} on {}", p.units.currency, p.account),
                        ));
                    }
                }
            }
        }
        for (c, s) in imbalance(t) {
            out.push((
                ErrorClass::Unbalanced,
                format!("{id}: off by {} {c}", s.plain()),
            ));
        }
    }
    for (i, have) in failed_balances(ledger) {
        if let Some(b) = ledger.balances.get(i) {
            out.push((
                ErrorClass::BalanceFailed,
                format!(
                    "{} {}: expected {} {}, accumulated {}",
                    b.date,
                    b.account,
                    b.amount.number.plain(),
                    b.amount.currency,
                    have.plain()
                ),
            ));
        }
    }
    // A balance assertion on an account that is not open is an unknown reference too,
    // and one in a currency its account does not allow is a currency error.
    for b in &ledger.balances {
        match ledger.accounts.get(&b.account) {
            None => out.push((
                ErrorClass::UnknownAccount,
                format!("balance of unknown account {}", b.account),
            )),
            Some(a)
                if a.currencies
                    .as_ref()
                    .is_some_and(|cs| !cs.contains(&b.amount.currency)) =>
            {
                out.push((
                    ErrorClass::Currency,
                    format!("balance of {} in {}", b.account, b.amount.currency),
                ))
            }
            Some(_) => {}
        }
    }
    out
}
