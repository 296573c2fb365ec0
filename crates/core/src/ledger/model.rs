//! The ledger state: options, commodities, accounts, transactions, read-only balance
//! assertions and prices, budgets, recurring rules, the receipt inbox and the id
//! allocator. Every collection is a sorted map or a list in a fixed order, so the state
//! (and everything written from it) is deterministic.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use crate::json::Value;

use super::date::{Date, Month};
use super::dec::Dec;

/// A number in a currency.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Amount {
    /// The number.
    pub number: Dec,
    /// The currency (`EUR`).
    pub currency: String,
}

/// One leg of a transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Posting {
    /// Full account name.
    pub account: String,
    /// Amount posted.
    pub units: Amount,
}

/// A transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Txn {
    /// Its date.
    pub date: Date,
    /// `*` (cleared), `!` (pending) or `P` (a pad expanded on load).
    pub flag: char,
    /// Payee, when given.
    pub payee: Option<String>,
    /// Narration (may be empty).
    pub narration: String,
    /// Tags without `#`.
    pub tags: BTreeSet<String>,
    /// Links without `^`.
    pub links: BTreeSet<String>,
    /// Other metadata (`key: "value"`), written as strings.
    pub meta: BTreeMap<String, String>,
    /// Postings in order.
    pub postings: Vec<Posting>,
    /// Linked receipt ids.
    pub documents: Vec<String>,
}

/// An account's `open` (and `close`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountInfo {
    /// Open date.
    pub open: Date,
    /// Close date, when closed.
    pub close: Option<Date>,
    /// Allowed currencies (`None`: any).
    pub currencies: Option<BTreeSet<String>>,
    /// Metadata (a `description` is shown by `list_categories`).
    pub meta: BTreeMap<String, String>,
}

/// A balance assertion (read-only: a reconciled statement).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Balance {
    /// Checked at the start of this day.
    pub date: Date,
    /// Account (sub-accounts included).
    pub account: String,
    /// Expected amount.
    pub amount: Amount,
}

/// A price (read-only; used by `convert_currency`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Price {
    /// Its date.
    pub date: Date,
    /// The priced currency.
    pub base: String,
    /// One unit of `base` in another currency.
    pub quote: Amount,
    /// Metadata (`source`).
    pub meta: BTreeMap<String, String>,
}

/// A monthly budget of one expense account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Budget {
    /// Budgeted amount.
    pub amount: Amount,
    /// Unspent money carries over.
    pub rollover: bool,
    /// A note, when given.
    pub note: Option<String>,
}

/// A recurring transaction rule (nothing is booked automatically).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// Payee of the generated transactions.
    pub payee: String,
    /// `weekly`, `biweekly`, `monthly`, `quarterly` or `yearly`.
    pub frequency: String,
    /// First occurrence.
    pub start: Date,
    /// Last occurrence, when given.
    pub end: Option<Date>,
    /// Postings of each occurrence.
    pub postings: Vec<Posting>,
    /// Posted automatically (not as pending).
    pub auto_post: bool,
}

/// Options (`option "operating_currency" …`, `option "title" …`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Options {
    /// Operating currencies in order.
    pub operating_currency: Vec<String>,
    /// Ledger title.
    pub title: Option<String>,
}

/// Allocates record ids: the scenario's reserved ids first (so the bundled suite keeps
/// its ids), then `<kind>_` + 6 hex digits drawn from a SplitMix64 stream of the seed,
/// skipping ids already in use.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct IdAllocator {
    /// The seed.
    pub seed: u64,
    /// Reserved ids per kind (`txn`, `rec`), taken in order.
    pub reserved: BTreeMap<String, VecDeque<String>>,
    /// Ids drawn per kind so far.
    pub counter: BTreeMap<String, u64>,
}

impl IdAllocator {
    /// The next id of `kind` not in use.
    pub fn next(&mut self, kind: &str, in_use: &dyn Fn(&str) -> bool) -> String {
        if let Some(queue) = self.reserved.get_mut(kind) {
            while let Some(id) = queue.pop_front() {
                if !in_use(&id) {
                    return id;
                }
            }
        }
        loop {
            let n = self.counter.entry(kind.to_owned()).or_insert(0);
            let mut rng = crate::generate::rng::Rng::stream(self.seed, *n, kind, 0);
            *n += 1;
            let id = format!("{kind}_{:06x}", rng.next_u64() & 0xff_ffff);
            if !in_use(&id) {
                return id;
            }
        }
    }
}

/// The whole ledger.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Ledger {
    /// Options.
    pub options: Options,
    /// Declared commodities and their dates.
    pub commodities: BTreeMap<String, Date>,
    /// Accounts by name.
    pub accounts: BTreeMap<String, AccountInfo>,
    /// Transactions by id.
    pub txns: BTreeMap<String, Txn>,
    /// Balance assertions in file order.
    pub balances: Vec<Balance>,
    /// Prices in file order.
    pub prices: Vec<Price>,
    /// Budgets by (account, month).
    pub budgets: BTreeMap<(String, Month), Budget>,
    /// Recurring rules by id.
    pub recurring: BTreeMap<String, Rule>,
    /// The receipt inbox by id (returned verbatim by `import_receipt`).
    pub receipts: BTreeMap<String, Value>,
    /// The id allocator.
    pub ids: IdAllocator,
    /// The session's date (`english_env_info`).
    pub today: Date,
    /// The session's time of day, `HH:MM:SS` (export links expire relative to it).
    pub time: String,
}

impl Ledger {
    /// The operating currency (the first one; `USD` when none is set).
    pub fn currency(&self) -> &str {
        self.options
            .operating_currency
            .first()
            .map(String::as_str)
            .unwrap_or("USD")
    }

    /// A new transaction id.
    pub fn new_txn_id(&mut self) -> String {
        let txns = &self.txns;
        self.ids.next("txn", &|id| txns.contains_key(id))
    }

    /// A new recurring-rule id.
    pub fn new_rule_id(&mut self) -> String {
        let rules = &self.recurring;
        self.ids.next("rec", &|id| rules.contains_key(id))
    }

    /// True when `account` is `prefix` or one of its sub-accounts.
    pub fn under(account: &str, prefix: &str) -> bool {
        account == prefix
            || (account.len() > prefix.len()
                && account.starts_with(prefix)
                && account.as_bytes().get(prefix.len()) == Some(&b':'))
    }

    /// Sum per currency of postings to `account` (and its sub-accounts when `subs`) on
    /// dates `from..=to` (either bound open).
    pub fn sum(
        &self,
        account: &str,
        subs: bool,
        from: Option<Date>,
        to: Option<Date>,
    ) -> BTreeMap<String, Dec> {
        let mut out: BTreeMap<String, Dec> = BTreeMap::new();
        for t in self.txns.values() {
            if from.is_some_and(|f| t.date < f) || to.is_some_and(|e| t.date > e) {
                continue;
            }
            for p in &t.postings {
                let hit = if subs {
                    Self::under(&p.account, account)
                } else {
                    p.account == account
                };
                if hit {
                    let e = out.entry(p.units.currency.clone()).or_insert(Dec::ZERO);
                    *e = e.plus(p.units.number);
                }
            }
        }
        out
    }
}
