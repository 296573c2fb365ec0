//! Scoring one task of an env trace (gold history): the actual state is the state before
//! the task plus the model's calls replayed (strictly: each recomputed result must equal
//! the recorded one, or the trace belongs to another environment version), compared with
//! the expected state modulo ids and order; the verdict components, the correction
//! classification, the dirty steps, the diff and the diagnostic digests.

use std::collections::{BTreeMap, BTreeSet};

use crate::dataset::{NodeKind, Session};
use crate::json::{py_eq, Value};
use crate::protocol::TaskMachine;

use super::check::{booking_counts, booking_key, payee_norm, soft_violations, Violation};
use super::dec::Dec;
use super::model::{Ledger, Txn};
use super::scenario::{gold_steps, Challenge, CompareOptions, Replay, Scenario};
use super::text::{without_ids, write_txn};
use super::tools::{call, is_write};
use super::trace::{End, TaskTrace};

/// The verdict components of a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Components {
    /// The actual state equals the expected state (modulo ids and order) and every
    /// scenario assertion holds.
    pub state_correct: bool,
    /// Nothing the gold left alone was changed.
    pub no_collateral: bool,
    /// No booking key has more transactions than the expected state.
    pub no_double_booking: bool,
    /// No write attempted where none was expected.
    pub no_unexpected_write: bool,
    /// No write before the clarification the gold asks for.
    pub no_premature_write: bool,
    /// No step introduced a soft violation, and none is left.
    pub clean_trajectory: bool,
    /// The task ended with an answer that mentions every required item.
    pub answer_ok: bool,
}

impl Components {
    /// The names and values, in report order.
    pub fn pairs(&self) -> [(&'static str, bool); 7] {
        [
            ("state_correct", self.state_correct),
            ("no_collateral", self.no_collateral),
            ("no_double_booking", self.no_double_booking),
            ("no_unexpected_write", self.no_unexpected_write),
            ("no_premature_write", self.no_premature_write),
            ("clean_trajectory", self.clean_trajectory),
            ("answer_ok", self.answer_ok),
        ]
    }

    /// The product of all components.
    pub fn all(&self) -> bool {
        self.pairs().iter().all(|(_, v)| *v)
    }
}

/// What a correction task did with the transaction it should amend.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Correction {
    /// Changed in place.
    Amended,
    /// Deleted and a new transaction added.
    Replaced,
    /// Kept unchanged and a new transaction added: a double booking.
    Readded,
    /// Left as it was, nothing else changed.
    Untouched,
    /// Left as it was while another transaction was changed.
    WrongTarget,
    /// Deleted, nothing added.
    Deleted,
}

impl Correction {
    /// All, in report order.
    pub const ALL: [Correction; 6] = [
        Correction::Amended,
        Correction::Replaced,
        Correction::Readded,
        Correction::Untouched,
        Correction::WrongTarget,
        Correction::Deleted,
    ];

    /// `amended`, `replaced`, …
    pub fn as_str(self) -> &'static str {
        match self {
            Correction::Amended => "amended",
            Correction::Replaced => "replaced",
            Correction::Readded => "readded",
            Correction::Untouched => "untouched",
            Correction::WrongTarget => "wrong_target",
            Correction::Deleted => "deleted",
        }
    }
}

/// One replayed call of the model.
#[derive(Debug, Clone, PartialEq)]
pub struct CallScore {
    /// Step index.
    pub step: usize,
    /// Tool name.
    pub tool: String,
    /// A write tool.
    pub write: bool,
    /// It changed the state.
    pub accepted: bool,
    /// Soft violations it introduced (not in the state before the task).
    pub new_violations: Vec<Violation>,
}

/// The display diff of two states' transactions.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Diff {
    /// Expected transactions with no equal actual one (canonical text).
    pub missing: Vec<String>,
    /// Actual transactions with no equal expected one.
    pub extra: Vec<String>,
    /// Pairs of one missing and one extra transaction on the same date and payee, with
    /// the fields that differ.
    pub changed: Vec<(String, String, Vec<&'static str>)>,
    /// Other record kinds that differ (`budgets`, `recurring`, `accounts`).
    pub other: Vec<&'static str>,
}

/// A scored task.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskScore {
    /// Task position.
    pub task: usize,
    /// The scenario's challenge.
    pub challenge: Challenge,
    /// How the loop ended.
    pub end: End,
    /// Gold write nodes (the optimal number of writes).
    pub optimal_writes: usize,
    /// Accepted writes.
    pub accepted_writes: usize,
    /// Rejected write attempts.
    pub rejected_writes: usize,
    /// The components.
    pub components: Components,
    /// Product of the components.
    pub env_success: bool,
    /// Accepted writes minus the optimum.
    pub excess_writes: i64,
    /// Correction classification (correction tasks only).
    pub correction: Option<Correction>,
    /// The official loop's name decision on these replies (diagnostic, not official).
    pub path_label_correct: bool,
    /// The task follows a task with expected writes and expects none itself.
    pub after_write: bool,
    /// The gold asks before writing (a Clarify task with a gold write).
    pub clarify_write: bool,
    /// Steps that introduced a new soft violation.
    pub dirty_steps: Vec<usize>,
    /// Soft violations left at the end that were not there before.
    pub final_violations: Vec<Violation>,
    /// `must_mention` items found and required.
    pub mentions: (usize, usize),
    /// Every call, replayed.
    pub calls: Vec<CallScore>,
    /// Recomputed results that differ from the recorded ones (`(step, call)`); only
    /// non-empty in lenient scoring.
    pub drift: Vec<(usize, usize)>,
    /// The actual state.
    pub actual: Ledger,
    /// The expected state.
    pub expected: Ledger,
    /// Their diff.
    pub diff: Diff,
}

/// Why a trace cannot be scored.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScoreError {
    /// The trace names a task the session does not have.
    #[error("the session has no task {0}")]
    NoTask(usize),
    /// Strict replay failed: a recomputed result differs from the recorded one.
    #[error("task {task} step {step} call {call} ({tool}): the environment now answers differently from the recorded result (another environment version?); score with --lenient to use the recomputed results")]
    Drift {
        /// Task.
        task: usize,
        /// Step.
        step: usize,
        /// Call within the step.
        call: usize,
        /// Tool.
        tool: String,
    },
}

/// A transaction's material key: date, payee, tags, documents, narration, postings.
type Key = (
    i64,
    String,
    Vec<String>,
    Vec<String>,
    String,
    Vec<(String, String, Dec)>,
);

/// A transaction's material key (what equality compares).
fn material(t: &Txn, c: &CompareOptions) -> Key {
    let payee = if c.payee_exact {
        t.payee.clone().unwrap_or_default()
    } else {
        payee_norm(t.payee.as_deref())
    };
    let tags: Vec<String> = if c.tags {
        t.tags.iter().cloned().collect()
    } else {
        Vec::new()
    };
    let mut docs = t.documents.clone();
    crate::order::sort(&mut docs);
    let narration = if c.narration_exact {
        t.narration.clone()
    } else {
        String::new()
    };
    let mut postings: Vec<(String, String, Dec)> = Vec::new();
    if c.merge_postings {
        let mut m: BTreeMap<(String, String), Dec> = BTreeMap::new();
        for p in &t.postings {
            let e = m
                .entry((p.account.clone(), p.units.currency.clone()))
                .or_insert(Dec::ZERO);
            *e = e.plus(p.units.number);
        }
        postings = m
            .into_iter()
            .filter(|(_, n)| !n.is_zero())
            .map(|((a, cur), n)| (a, cur, n.normalized()))
            .collect();
    } else {
        for p in &t.postings {
            postings.push((
                p.account.clone(),
                p.units.currency.clone(),
                p.units.number.normalized(),
            ));
        }
        crate::order::sort(&mut postings);
    }
    (t.date.0, payee, tags, docs, narration, postings)
}

fn txn_keys(l: &Ledger, c: &CompareOptions) -> BTreeMap<Key, usize> {
    let mut out = BTreeMap::new();
    for t in l.txns.values() {
        *out.entry(material(t, c)).or_insert(0) += 1;
    }
    out
}

fn rule_keys(l: &Ledger) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for r in l.recurring.values() {
        let mut ps: Vec<String> = r
            .postings
            .iter()
            .map(|p| {
                format!(
                    "{} {} {}",
                    p.account,
                    p.units.number.normalized(),
                    p.units.currency
                )
            })
            .collect();
        crate::order::sort(&mut ps);
        let k = format!(
            "{}|{}|{}|{:?}|{}|{}",
            payee_norm(Some(&r.payee)),
            r.frequency,
            r.start,
            r.end,
            r.auto_post,
            ps.join(";")
        );
        *out.entry(k).or_insert(0) += 1;
    }
    out
}

fn budgets_equal(a: &Ledger, b: &Ledger) -> bool {
    a.budgets.len() == b.budgets.len()
        && a.budgets.iter().all(|(k, x)| {
            b.budgets
                .get(k)
                .is_some_and(|y| x.amount == y.amount && x.rollover == y.rollover)
        })
}

/// Material equality modulo ids and order (see the module documentation).
pub fn state_equal(exp: &Ledger, act: &Ledger, c: &CompareOptions) -> bool {
    txn_keys(exp, c) == txn_keys(act, c)
        && budgets_equal(exp, act)
        && rule_keys(exp) == rule_keys(act)
        && exp.accounts == act.accounts
        && exp.balances == act.balances
        && exp.prices == act.prices
        && exp.receipts == act.receipts
}

/// Records of `pre` that `s` changed: transactions by id (changed or removed), budgets
/// and accounts by key, recurring rules by id. Additions of new transactions and rules
/// are not listed (they are judged by state equality and double booking).
fn changed(pre: &Ledger, s: &Ledger, c: &CompareOptions) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for (id, t) in &pre.txns {
        match s.txns.get(id) {
            Some(u) if material(u, c) == material(t, c) => {}
            _ => {
                out.insert(("txn".to_owned(), id.clone()));
            }
        }
    }
    let keys: BTreeSet<_> = pre.budgets.keys().chain(s.budgets.keys()).collect();
    for k in keys {
        let same = match (pre.budgets.get(k), s.budgets.get(k)) {
            (Some(x), Some(y)) => x.amount == y.amount && x.rollover == y.rollover,
            (None, None) => true,
            _ => false,
        };
        if !same {
            out.insert(("budget".to_owned(), format!("{} {}", k.0, k.1)));
        }
    }
    for (id, r) in &pre.recurring {
        if s.recurring.get(id) != Some(r) {
            out.insert(("recurring".to_owned(), id.clone()));
        }
    }
    let names: BTreeSet<_> = pre.accounts.keys().chain(s.accounts.keys()).collect();
    for n in names {
        if pre.accounts.get(n) != s.accounts.get(n) {
            out.insert(("account".to_owned(), n.clone()));
        }
    }
    out
}

fn txn_text(id: &str, t: &Txn) -> String {
    let mut s = String::new();
    write_txn(&mut s, id, t);
    without_ids(&s)
}

/// The display diff of `exp` and `act`.
pub fn diff(exp: &Ledger, act: &Ledger, c: &CompareOptions) -> Diff {
    let mut need = txn_keys(act, c);
    let mut missing: Vec<(&String, &Txn)> = Vec::new();
    for (id, t) in &exp.txns {
        let k = material(t, c);
        match need.get_mut(&k) {
            Some(n) if *n > 0 => *n -= 1,
            _ => missing.push((id, t)),
        }
    }
    let mut have = txn_keys(exp, c);
    let mut extra: Vec<(&String, &Txn)> = Vec::new();
    for (id, t) in &act.txns {
        let k = material(t, c);
        match have.get_mut(&k) {
            Some(n) if *n > 0 => *n -= 1,
            _ => extra.push((id, t)),
        }
    }
    let mut out = Diff::default();
    let mut used = vec![false; extra.len()];
    for (mid, m) in &missing {
        let accounts: BTreeSet<&str> = m.postings.iter().map(|p| p.account.as_str()).collect();
        let best = extra
            .iter()
            .enumerate()
            .filter(|(j, (_, e))| {
                !used[*j]
                    && e.date == m.date
                    && payee_norm(e.payee.as_deref()) == payee_norm(m.payee.as_deref())
            })
            .max_by_key(|(j, (_, e))| {
                let overlap = e
                    .postings
                    .iter()
                    .filter(|p| accounts.contains(p.account.as_str()))
                    .count();
                (overlap, std::cmp::Reverse(*j))
            })
            .map(|(j, _)| j);
        match best {
            Some(j) => {
                used[j] = true;
                let (eid, e) = extra[j];
                let mut fields = Vec::new();
                let (km, ke) = (material(m, c), material(e, c));
                if km.5 != ke.5 {
                    fields.push("postings");
                }
                if km.2 != ke.2 {
                    fields.push("tags");
                }
                if km.3 != ke.3 {
                    fields.push("documents");
                }
                if km.4 != ke.4 {
                    fields.push("narration");
                }
                if km.1 != ke.1 {
                    fields.push("payee");
                }
                out.changed
                    .push((txn_text(mid, m), txn_text(eid, e), fields));
            }
            None => out.missing.push(txn_text(mid, m)),
        }
    }
    for (j, (id, t)) in extra.iter().enumerate() {
        if !used[j] {
            out.extra.push(txn_text(id, t));
        }
    }
    if !budgets_equal(exp, act) {
        out.other.push("budgets");
    }
    if rule_keys(exp) != rule_keys(act) {
        out.other.push("recurring");
    }
    if exp.accounts != act.accounts {
        out.other.push("accounts");
    }
    out
}

/// Numbers in a text, thousands separators removed (`€1,098.52` → 1098.52).
fn numbers(text: &str) -> Vec<Dec> {
    let cs: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < cs.len() {
        if !cs[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let mut s = String::new();
        while i < cs.len() {
            let c = cs[i];
            let next_digit = cs.get(i + 1).is_some_and(char::is_ascii_digit);
            if c.is_ascii_digit() {
                s.push(c);
            } else if c == ',' && next_digit {
            } else if c == '.' && next_digit && !s.contains('.') {
                s.push('.');
            } else {
                break;
            }
            i += 1;
        }
        if let Some(d) = Dec::parse(&s) {
            out.push(d);
        }
    }
    out
}

/// Whether the answer mentions `item`: a number by decimal value (sign ignored, thousands
/// separators removed), anything else as a case-insensitive substring.
pub fn mentions(answer: &str, item: &str) -> bool {
    match Dec::parse(&item.replace(',', "")) {
        Some(n) => numbers(answer).iter().any(|m| *m == n.abs()),
        None => answer.to_lowercase().contains(&item.to_lowercase()),
    }
}

/// Whether the gold of a task asks before its first write (along its first optimal path).
fn asks_before_write(session: &Session, t: usize) -> bool {
    let Some(task) = session.tasks.get(t) else {
        return false;
    };
    let Ok(paths) = crate::protocol::Paths::new(task) else {
        return false;
    };
    let mut asked = false;
    for step in paths.first_optimal_path() {
        for i in step {
            let Some(n) = task.nodes.get(i) else { continue };
            if n.kind == NodeKind::Ask {
                asked = true;
            }
            if n.kind == NodeKind::Tool && is_write(&n.name) {
                return asked;
            }
        }
    }
    false
}

fn path_label(session: &Session, trace: &TaskTrace) -> bool {
    let Ok(mut m) = TaskMachine::for_replay(session, trace.task) else {
        return false;
    };
    for s in &trace.steps {
        if m.is_finished() {
            break;
        }
        m.feed(&s.reply);
    }
    m.verdict().is_some_and(|v| v.names_correct)
}

/// Scores one task trace (gold history). `lenient` uses recomputed results where they
/// differ from the recorded ones (and lists them in `drift`) instead of failing.
pub fn score_task(
    session: &Session,
    scenario: &Scenario,
    replay: &Replay,
    trace: &TaskTrace,
    lenient: bool,
) -> Result<TaskScore, ScoreError> {
    let t = trace.task;
    let (Some(pre), Some(exp)) = (replay.before(t), replay.expected(t)) else {
        return Err(ScoreError::NoTask(t));
    };
    let amends = scenario.tasks.get(t).and_then(|m| m.amends.clone());
    score_task_on(
        session,
        scenario,
        replay,
        trace,
        lenient,
        Basis {
            pre,
            exp,
            amends: amends.as_deref(),
        },
    )
}

/// What a task is scored against: the state before it, its expected state, and the id
/// of the transaction a correction task amends (gold history: the gold replay's; own
/// history: the model's own state and the gold delta applied to it, ids mapped).
#[derive(Debug, Clone, Copy)]
pub struct Basis<'a> {
    /// The state before the task.
    pub pre: &'a Ledger,
    /// The expected state after it.
    pub exp: &'a Ledger,
    /// The transaction a correction task amends, in `pre`'s ids.
    pub amends: Option<&'a str>,
}

/// Scores one task trace against an explicit [`Basis`].
pub fn score_task_on(
    session: &Session,
    scenario: &Scenario,
    replay: &Replay,
    trace: &TaskTrace,
    lenient: bool,
    basis: Basis<'_>,
) -> Result<TaskScore, ScoreError> {
    let t = trace.task;
    let (pre, exp) = (basis.pre, basis.exp);
    let Some(meta) = scenario.tasks.get(t) else {
        return Err(ScoreError::NoTask(t));
    };
    let c = &scenario.compare;
    let pre_violations = soft_violations(pre, Some(exp));
    let mut state = pre.clone();
    let mut current = pre_violations.clone();
    let mut calls = Vec::new();
    let mut dirty = Vec::new();
    let mut drift = Vec::new();
    let mut asked = false;
    let mut premature = false;
    let mut touched_keys: BTreeSet<Vec<String>> = BTreeSet::new();
    for (s, step) in trace.steps.iter().enumerate() {
        let mut step_dirty = false;
        for (j, call_rec) in step.calls.iter().enumerate() {
            let outcome = call(
                &mut state,
                &call_rec.tool,
                &call_rec.args,
                &session.tools,
                scenario.options,
            );
            if !py_eq(&outcome.result, &call_rec.result) {
                if !lenient {
                    return Err(ScoreError::Drift {
                        task: t,
                        step: s,
                        call: j,
                        tool: call_rec.tool.clone(),
                    });
                }
                drift.push((s, j));
            }
            let mut new_violations = Vec::new();
            if outcome.accepted {
                if !asked {
                    premature = true;
                }
                for id in ["transaction_id"] {
                    if let Some(tid) = outcome.result.get(id).and_then(Value::as_str) {
                        if let Some(tx) = state.txns.get(tid) {
                            touched_keys.insert(booking_key(tx));
                        }
                    }
                }
                let after = soft_violations(&state, Some(exp));
                for v in after.difference(&current) {
                    if !pre_violations.contains(v) {
                        new_violations.push(v.clone());
                        step_dirty = true;
                    }
                }
                current = after;
            }
            calls.push(CallScore {
                step: s,
                tool: call_rec.tool.clone(),
                write: outcome.write,
                accepted: outcome.accepted,
                new_violations,
            });
        }
        if step_dirty {
            dirty.push(s);
        }
        if step.user_input.is_some() {
            asked = true;
        }
    }
    let accepted_writes = calls.iter().filter(|c| c.write && c.accepted).count();
    let rejected_writes = calls.iter().filter(|c| c.write && !c.accepted).count();
    let optimal = replay.gold_writes.get(t).copied().unwrap_or(0);
    let final_violations: Vec<Violation> = current.difference(&pre_violations).cloned().collect();
    let exp_counts = booking_counts(exp);
    let act_counts = booking_counts(&state);
    let no_double_booking = touched_keys.iter().all(|k| {
        act_counts.get(k).copied().unwrap_or(0) <= exp_counts.get(k).copied().unwrap_or(0).max(1)
    });
    let clarify_write = asks_before_write(session, t);
    let (found, required) = match &trace.answer {
        Some(a) if trace.end == End::Answered => (
            meta.must_mention.iter().filter(|m| mentions(a, m)).count(),
            meta.must_mention.len(),
        ),
        _ => (0, meta.must_mention.len()),
    };
    let components = Components {
        state_correct: state_equal(exp, &state, c)
            && scenario.assertions.iter().all(|a| a.holds(&state)),
        no_collateral: changed(pre, &state, c).is_subset(&changed(pre, exp, c)),
        no_double_booking,
        no_unexpected_write: optimal > 0 || accepted_writes + rejected_writes == 0,
        no_premature_write: !clarify_write || !premature,
        clean_trajectory: dirty.is_empty() && final_violations.is_empty(),
        answer_ok: trace.end == End::Answered && found == required,
    };
    let correction = basis
        .amends
        .filter(|_| meta.challenge == Challenge::Correction)
        .map(|x| {
            let new_txns = state.txns.keys().any(|id| !pre.txns.contains_key(id));
            let others_changed = pre.txns.iter().any(|(id, tx)| {
                id != x
                    && state
                        .txns
                        .get(id)
                        .is_none_or(|u| material(u, c) != material(tx, c))
            });
            match (pre.txns.get(x), state.txns.get(x)) {
                (Some(_), None) if new_txns => Correction::Replaced,
                (Some(_), None) => Correction::Deleted,
                (Some(before), Some(after)) if material(before, c) != material(after, c) => {
                    Correction::Amended
                }
                _ if new_txns => Correction::Readded,
                _ if others_changed => Correction::WrongTarget,
                _ => Correction::Untouched,
            }
        });
    let after_write =
        optimal == 0 && t > 0 && replay.gold_writes.get(t - 1).is_some_and(|&w| w > 0);
    Ok(TaskScore {
        task: t,
        challenge: meta.challenge,
        end: trace.end,
        optimal_writes: optimal,
        accepted_writes,
        rejected_writes,
        env_success: components.all(),
        components,
        excess_writes: accepted_writes as i64 - optimal as i64,
        correction,
        path_label_correct: path_label(session, trace),
        after_write,
        clarify_write,
        dirty_steps: dirty,
        final_violations,
        mentions: (found, required),
        calls,
        drift,
        diff: diff(exp, &state, c),
        expected: exp.clone(),
        actual: state,
    })
}

/// Whether the gold of a task makes any tool call at all (used by reports).
pub fn gold_calls(session: &Session, t: usize) -> usize {
    gold_steps(session, t)
        .map(|s| s.iter().map(Vec::len).sum())
        .unwrap_or(0)
}
