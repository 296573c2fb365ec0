//! The canonical Beancount writer. One text per state: options, then commodities, accounts
//! (open, close), balance assertions, prices, transactions and the custom directives
//! (`budget`, `wt-recurring`), each group sorted by (date, kind, id); transactions carry
//! their id as `wt-id` metadata and their receipts as `receipt` metadata; amounts are
//! aligned within a transaction; `\n` line ends and a final newline. Byte-identical on
//! every platform (integer arithmetic and sorted maps only).

use std::fmt::Write as _;

use super::model::{Ledger, Posting, Txn};

/// Quotes a Beancount string (`"` and `\` escaped).
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

fn bool_text(b: bool) -> &'static str {
    if b {
        "TRUE"
    } else {
        "FALSE"
    }
}

fn postings(out: &mut String, postings: &[Posting]) {
    let aw = postings.iter().map(|p| p.account.len()).max().unwrap_or(0);
    let nums: Vec<String> = postings.iter().map(|p| p.units.number.plain()).collect();
    let nw = nums.iter().map(String::len).max().unwrap_or(0);
    for (p, n) in postings.iter().zip(&nums) {
        let _ = writeln!(out, "  {:<aw$}  {n:>nw$} {}", p.account, p.units.currency);
    }
}

/// The transaction header and body.
pub fn write_txn(out: &mut String, id: &str, t: &Txn) {
    let _ = write!(out, "{} {}", t.date, t.flag);
    if let Some(p) = &t.payee {
        let _ = write!(out, " {}", quote(p));
    }
    let _ = write!(out, " {}", quote(&t.narration));
    for tag in &t.tags {
        let _ = write!(out, " #{tag}");
    }
    for link in &t.links {
        let _ = write!(out, " ^{link}");
    }
    out.push('\n');
    let _ = writeln!(out, "  wt-id: {}", quote(id));
    for (i, r) in t.documents.iter().enumerate() {
        if i == 0 {
            let _ = writeln!(out, "  receipt: {}", quote(r));
        } else {
            let _ = writeln!(out, "  receipt-{}: {}", i + 1, quote(r));
        }
    }
    for (k, v) in &t.meta {
        let _ = writeln!(out, "  {k}: {}", quote(v));
    }
    postings(out, &t.postings);
}

/// The canonical text of `ledger`, after `header` comment lines (each prefixed `; `).
pub fn write_ledger(ledger: &Ledger, header: &[String]) -> String {
    let mut out = String::new();
    for line in header {
        let _ = writeln!(out, "; {line}");
    }
    if let Some(title) = &ledger.options.title {
        let _ = writeln!(out, "option \"title\" {}", quote(title));
    }
    for c in &ledger.options.operating_currency {
        let _ = writeln!(out, "option \"operating_currency\" {}", quote(c));
    }
    let group = |out: &mut String, body: String| {
        if !body.is_empty() {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&body);
        }
    };
    let mut commodities: Vec<(_, _)> = ledger.commodities.iter().map(|(c, d)| (*d, c)).collect();
    crate::order::sort(&mut commodities);
    let mut body = String::new();
    for (d, c) in commodities {
        let _ = writeln!(body, "{d} commodity {c}");
    }
    group(&mut out, body);

    let mut opens: Vec<(_, u8, &String)> = Vec::new();
    for (name, a) in &ledger.accounts {
        opens.push((a.open, 0, name));
        if let Some(c) = a.close {
            opens.push((c, 1, name));
        }
    }
    crate::order::sort(&mut opens);
    let mut body = String::new();
    for (d, kind, name) in opens {
        let Some(a) = ledger.accounts.get(name) else {
            continue;
        };
        if kind == 1 {
            let _ = writeln!(body, "{d} close {name}");
            continue;
        }
        let _ = write!(body, "{d} open {name}");
        if let Some(cs) = &a.currencies {
            let list: Vec<&str> = cs.iter().map(String::as_str).collect();
            let _ = write!(body, " {}", list.join(","));
        }
        body.push('\n');
        for (k, v) in &a.meta {
            let _ = writeln!(body, "  {k}: {}", quote(v));
        }
    }
    group(&mut out, body);

    let mut balances: Vec<_> = ledger.balances.iter().collect();
    crate::order::sort_by(&mut balances, |a, b| {
        (a.date, &a.account).cmp(&(b.date, &b.account))
    });
    let mut body = String::new();
    for b in balances {
        let _ = writeln!(
            body,
            "{} balance {}  {} {}",
            b.date,
            b.account,
            b.amount.number.plain(),
            b.amount.currency
        );
    }
    group(&mut out, body);

    let mut prices: Vec<_> = ledger.prices.iter().collect();
    crate::order::sort_by(&mut prices, |a, b| {
        (a.date, &a.base).cmp(&(b.date, &b.base))
    });
    let mut body = String::new();
    for p in prices {
        let _ = writeln!(
            body,
            "{} price {}  {} {}",
            p.date,
            p.base,
            p.quote.number.plain(),
            p.quote.currency
        );
        for (k, v) in &p.meta {
            let _ = writeln!(body, "  {k}: {}", quote(v));
        }
    }
    group(&mut out, body);

    let mut txns: Vec<(&String, &Txn)> = ledger.txns.iter().collect();
    crate::order::sort_by(&mut txns, |a, b| (a.1.date, a.0).cmp(&(b.1.date, b.0)));
    let mut body = String::new();
    for (i, (id, t)) in txns.into_iter().enumerate() {
        if i > 0 {
            body.push('\n');
        }
        write_txn(&mut body, id, t);
    }
    group(&mut out, body);

    let mut body = String::new();
    for ((account, month), b) in &ledger.budgets {
        let _ = writeln!(
            body,
            "{} custom \"budget\" {account} \"monthly\" {} {}",
            month.first(),
            b.amount.number.plain(),
            b.amount.currency
        );
        let _ = writeln!(body, "  rollover: {}", bool_text(b.rollover));
        if let Some(n) = &b.note {
            let _ = writeln!(body, "  note: {}", quote(n));
        }
    }
    let mut rules: Vec<_> = ledger.recurring.iter().collect();
    crate::order::sort_by(&mut rules, |a, b| (a.1.start, a.0).cmp(&(b.1.start, b.0)));
    for (id, r) in rules {
        let _ = writeln!(
            body,
            "{} custom \"wt-recurring\" {} {} {}",
            r.start,
            quote(id),
            quote(&r.payee),
            quote(&r.frequency)
        );
        let _ = writeln!(body, "  auto-post: {}", bool_text(r.auto_post));
        if let Some(e) = r.end {
            let _ = writeln!(body, "  end: {e}");
        }
        for (i, p) in r.postings.iter().enumerate() {
            let _ = writeln!(
                body,
                "  posting-{}: {}",
                i + 1,
                quote(&format!(
                    "{} {} {}",
                    p.account,
                    p.units.number.plain(),
                    p.units.currency
                ))
            );
        }
    }
    group(&mut out, body);
    if !out.ends_with('\n') && !out.is_empty() {
        out.push('\n');
    }
    out
}

/// The canonical text without `wt-id` lines (what the diagnostic digest hashes: a state
/// that differs only in allocated ids has the same digest).
pub fn without_ids(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim_start().starts_with("wt-id:"))
        .fold(String::with_capacity(text.len()), |mut out, l| {
            out.push_str(l);
            out.push('\n');
            out
        })
}

/// A unified diff of two texts by lines (`--- a`, `+++ b`, hunks with 3 lines of
/// context), empty when they are equal.
pub fn unified_diff(a: &str, b: &str, name_a: &str, name_b: &str) -> String {
    let x: Vec<&str> = a.lines().collect();
    let y: Vec<&str> = b.lines().collect();
    let (n, m) = (x.len(), y.len());
    // Longest common subsequence table, from the ends.
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if x[i] == y[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    // The edit script: (' ' | '-' | '+', line, index in a, index in b).
    let mut ops: Vec<(char, &str, usize, usize)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && x[i] == y[j] {
            ops.push((' ', x[i], i, j));
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
            ops.push(('+', y[j], i, j));
            j += 1;
        } else {
            ops.push(('-', x[i], i, j));
            i += 1;
        }
    }
    if ops.iter().all(|o| o.0 == ' ') {
        return String::new();
    }
    let mut out = format!("--- {name_a}\n+++ {name_b}\n");
    let changed: Vec<usize> = ops
        .iter()
        .enumerate()
        .filter(|(_, o)| o.0 != ' ')
        .map(|(k, _)| k)
        .collect();
    let mut k = 0;
    while k < changed.len() {
        let start = changed[k].saturating_sub(3);
        let mut end = changed[k];
        while k + 1 < changed.len() && changed[k + 1] <= end + 7 {
            k += 1;
            end = changed[k];
        }
        let end = (end + 4).min(ops.len());
        let hunk = &ops[start..end];
        let a_start = hunk.first().map_or(0, |o| o.2);
        let b_start = hunk.first().map_or(0, |o| o.3);
        let a_len = hunk.iter().filter(|o| o.0 != '+').count();
        let b_len = hunk.iter().filter(|o| o.0 != '-').count();
        let _ = writeln!(
            out,
            "@@ -{},{a_len} +{},{b_len} @@",
            a_start + 1,
            b_start + 1
        );
        for (c, line, _, _) in hunk {
            let _ = writeln!(out, "{c}{line}");
        }
        k += 1;
    }
    out
}
