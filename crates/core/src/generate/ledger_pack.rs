//! The `ledger` section of a domain pack: what `env=ledger` sessions are drawn from (the
//! ledger environment's suite builder, `ledger::generated`, realises them). The account
//! chart comes from the pack's `expense` and `funding` kinds (their `meaning` is the
//! category description and the user's name for an account); the section adds the
//! opening-balance ranges, the months of history, the merchant → category map with
//! each merchant's usual amounts, the budget range, the tool schemas the environment
//! implements, and the templates of every task a challenge is made of.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::pack::Kind;

/// One merchant of the history and of the tasks.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Merchant {
    /// The payee as the ledger and the receipts spell it (`Whole Foods Market`).
    pub name: String,
    /// How the user says it (`Whole Foods`).
    pub short: String,
    /// The expense account its purchases go to.
    pub category: String,
    /// Usual amount in cents, `[low, high]`.
    pub cents: [i64; 2],
}

/// The templates of one kind of task: the user's message, the gold answer and, for
/// clarifications, the question and the user's reply. Slots are `{name}`; the numeric
/// slots of a `tell` become the task's `must_mention`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Move {
    /// The user's message.
    pub say: Vec<String>,
    /// The gold answer.
    pub tell: Vec<String>,
    /// The clarifying question (Clarify tasks).
    #[serde(default)]
    pub ask: Vec<String>,
    /// The user's reply to it.
    #[serde(default)]
    pub reply: Vec<String>,
}

/// The `ledger` section.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LedgerPack {
    /// The operating currency.
    pub currency: String,
    /// Months of history before the session's month (reconciled by monthly statement
    /// balances).
    pub months: u8,
    /// Opening balance ranges in cents by account root (`Assets`, `Liabilities`).
    pub opening: BTreeMap<String, [i64; 2]>,
    /// Purchases per merchant and month, `[low, high]`.
    pub per_month: [u8; 2],
    /// Budget range in cents.
    pub budget: [i64; 2],
    /// The merchant → category map.
    pub merchants: Vec<Merchant>,
    /// Tool schemas (the environment's names and arguments).
    pub tools: Vec<serde_json::Value>,
    /// Templates by task kind.
    pub templates: BTreeMap<String, Move>,
}

/// Task kinds the suite builder needs templates for.
pub const MOVES: [&str; 14] = [
    "spending",
    "compositional",
    "receipt",
    "add",
    "add_same",
    "correction",
    "balance",
    "month_spending",
    "budget_set",
    "budget_get",
    "chat_category",
    "chat_balanced",
    "clarify_budget",
    "clarify_add",
];

impl LedgerPack {
    /// Checks the section against the pack's kinds.
    pub fn check(&self, kinds: &BTreeMap<String, Kind>) -> Result<(), String> {
        let names = |k: &str| -> Vec<String> {
            kinds
                .get(k)
                .map(|k| {
                    k.values
                        .iter()
                        .filter_map(|v| v.get("name").and_then(crate::json::Value::as_str))
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default()
        };
        let expense = names("expense");
        let funding = names("funding");
        if funding.len() < 2 {
            return Err("ledger: the funding kind needs at least two accounts".into());
        }
        if self.merchants.len() < 4 {
            return Err("ledger: needs at least four merchants".into());
        }
        for m in &self.merchants {
            if !expense.contains(&m.category) {
                return Err(format!(
                    "ledger: merchant {} books to {}, which is not an expense value",
                    m.name, m.category
                ));
            }
            if m.cents[0] < 1 || m.cents[0] > m.cents[1] {
                return Err(format!("ledger: merchant {} has a bad cents range", m.name));
            }
        }
        for root in ["Assets", "Liabilities"] {
            let Some(r) = self.opening.get(root) else {
                return Err(format!("ledger: opening needs a range for {root}"));
            };
            if r[0] > r[1] {
                return Err(format!("ledger: opening range of {root} is empty"));
            }
        }
        if self.months == 0 || self.months > 12 {
            return Err("ledger: months must be from 1 to 12".into());
        }
        if self.per_month[0] == 0 || self.per_month[0] > self.per_month[1] {
            return Err("ledger: per_month must be a range from 1".into());
        }
        if self.budget[0] < 100 || self.budget[0] > self.budget[1] {
            return Err("ledger: bad budget range".into());
        }
        for m in MOVES {
            let Some(t) = self.templates.get(m) else {
                return Err(format!("ledger: no templates for {m}"));
            };
            if t.say.is_empty() || t.tell.is_empty() {
                return Err(format!("ledger: {m} needs say and tell templates"));
            }
            if m.starts_with("clarify") && (t.ask.is_empty() || t.reply.is_empty()) {
                return Err(format!("ledger: {m} needs ask and reply templates"));
            }
        }
        for t in &self.tools {
            if t.pointer("/function/name")
                .and_then(|n| n.as_str())
                .is_none()
            {
                return Err("ledger: every tool needs function.name".into());
            }
        }
        Ok(())
    }

    /// The schema of tool `name`.
    pub fn tool(&self, name: &str) -> Option<&serde_json::Value> {
        self.tools
            .iter()
            .find(|t| t.pointer("/function/name").and_then(|n| n.as_str()) == Some(name))
    }
}
