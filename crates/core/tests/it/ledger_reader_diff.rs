//! The ledger reader against an independent parser, the `beancount-parser` crate (a
//! dev-dependency, native only): on every initial ledger of the bundled suite as authored,
//! on the canonical text of every initial and expected state, and on texts that use the
//! rest of the documented subset (flags, tags, links, payee-less entries, an interpolated
//! posting, pad, close, metadata), both read the same directives. `custom` directives are
//! left out of the comparison (the crate skips them), and an expanded pad is compared with
//! the crate's pad directive by count.

use std::collections::BTreeSet;

use beancount_parser::{BeancountFile, DirectiveContent};
use wildtool_core::dataset::{load_dataset, Lang};
use wildtool_core::json::float_repr;
use wildtool_core::ledger::dec::Dec;
use wildtool_core::ledger::read::read_ledger;
use wildtool_core::ledger::run_file::SessionEnv;
use wildtool_core::ledger::scenario::has_scenario;
use wildtool_core::ledger::text::write_ledger;
use wildtool_core::ledger::Ledger;

fn num(x: f64) -> String {
    Dec::parse(&float_repr(x))
        .map(|d| d.normalized().plain())
        .unwrap_or_default()
}

fn norm(d: Dec) -> String {
    d.normalized().plain()
}

/// Our reading as sorted lines, and the number of expanded pads.
fn ours(l: &Ledger) -> (BTreeSet<String>, usize) {
    let mut out = BTreeSet::new();
    for c in &l.options.operating_currency {
        out.insert(format!("option operating_currency {c}"));
    }
    for (c, d) in &l.commodities {
        out.insert(format!("commodity {d} {c}"));
    }
    for (name, a) in &l.accounts {
        let cs: Vec<&str> = a.currencies.iter().flatten().map(String::as_str).collect();
        out.insert(format!("open {} {name} {}", a.open, cs.join(",")));
        if let Some(c) = a.close {
            out.insert(format!("close {c} {name}"));
        }
    }
    for b in &l.balances {
        out.insert(format!(
            "balance {} {} {} {}",
            b.date,
            b.account,
            norm(b.amount.number),
            b.amount.currency
        ));
    }
    for p in &l.prices {
        out.insert(format!(
            "price {} {} {} {}",
            p.date,
            p.base,
            norm(p.quote.number),
            p.quote.currency
        ));
    }
    let mut pads = 0;
    for t in l.txns.values() {
        if t.flag == 'P' {
            pads += 1;
            continue;
        }
        let posts: Vec<String> = t
            .postings
            .iter()
            .map(|p| {
                format!(
                    "{} {} {}",
                    p.account,
                    norm(p.units.number),
                    p.units.currency
                )
            })
            .collect();
        let tags: Vec<&str> = t.tags.iter().map(String::as_str).collect();
        let links: Vec<&str> = t.links.iter().map(String::as_str).collect();
        out.insert(format!(
            "txn {} {} {:?} {:?} #{} ^{} | {}",
            t.date,
            t.flag,
            t.payee,
            t.narration,
            tags.join(","),
            links.join(","),
            posts.join("; ")
        ));
    }
    (out, pads)
}

/// The crate's reading as sorted lines, and its number of pads.
fn theirs(text: &str) -> (BTreeSet<String>, usize) {
    let file: BeancountFile<f64> =
        beancount_parser::parse(text).expect("beancount-parser reads it");
    let mut out = BTreeSet::new();
    for o in &file.options {
        if o.name == "operating_currency" {
            out.insert(format!("option operating_currency {}", o.value));
        }
    }
    let mut pads = 0;
    for d in &file.directives {
        let date = format!("{:04}-{:02}-{:02}", d.date.year, d.date.month, d.date.day);
        match &d.content {
            DirectiveContent::Commodity(c) => {
                out.insert(format!("commodity {date} {}", c.as_str()));
            }
            DirectiveContent::Open(o) => {
                let mut cs: Vec<&str> = o.currencies.iter().map(|c| c.as_str()).collect();
                cs.sort_unstable();
                out.insert(format!(
                    "open {date} {} {}",
                    o.account.as_str(),
                    cs.join(",")
                ));
            }
            DirectiveContent::Close(c) => {
                out.insert(format!("close {date} {}", c.account.as_str()));
            }
            DirectiveContent::Balance(b) => {
                out.insert(format!(
                    "balance {date} {} {} {}",
                    b.account.as_str(),
                    num(b.amount.value),
                    b.amount.currency.as_str()
                ));
            }
            DirectiveContent::Price(p) => {
                out.insert(format!(
                    "price {date} {} {} {}",
                    p.currency.as_str(),
                    num(p.amount.value),
                    p.amount.currency.as_str()
                ));
            }
            DirectiveContent::Pad(_) => pads += 1,
            DirectiveContent::Transaction(t) => {
                let mut sum = Dec::ZERO;
                let mut cur = String::new();
                for p in &t.postings {
                    if let Some(a) = &p.amount {
                        sum = sum.plus(Dec::parse(&float_repr(a.value)).unwrap_or(Dec::ZERO));
                        cur = a.currency.as_str().to_owned();
                    }
                }
                let posts: Vec<String> = t
                    .postings
                    .iter()
                    .map(|p| match &p.amount {
                        Some(a) => format!(
                            "{} {} {}",
                            p.account.as_str(),
                            num(a.value),
                            a.currency.as_str()
                        ),
                        None => format!("{} {} {cur}", p.account.as_str(), norm(sum.negated())),
                    })
                    .collect();
                let mut tags: Vec<&str> = t.tags.iter().map(|x| x.as_str()).collect();
                tags.sort_unstable();
                let mut links: Vec<&str> = t.links.iter().map(|x| x.as_str()).collect();
                links.sort_unstable();
                out.insert(format!(
                    "txn {date} {} {:?} {:?} #{} ^{} | {}",
                    t.flag.unwrap_or('*'),
                    t.payee,
                    t.narration.clone().unwrap_or_default(),
                    tags.join(","),
                    links.join(","),
                    posts.join("; ")
                ));
            }
            _ => {}
        }
    }
    (out, pads)
}

fn compare(name: &str, text: &str) {
    let ours_l = read_ledger(text, 7, &BTreeSet::new()).unwrap_or_else(|e| panic!("{name}: {e}"));
    let (a, pa) = ours(&ours_l);
    let (b, pb) = theirs(text);
    let only_ours: Vec<_> = a.difference(&b).collect();
    let only_theirs: Vec<_> = b.difference(&a).collect();
    assert!(
        only_ours.is_empty() && only_theirs.is_empty(),
        "{name}: the readers disagree\n ours only: {only_ours:#?}\n beancount-parser only: {only_theirs:#?}"
    );
    assert_eq!(pa, pb, "{name}: pads");
}

#[test]
fn the_reader_agrees_with_beancount_parser() {
    let text =
        std::fs::read_to_string(crate::support::root().join("data/suite.jsonl")).expect("suite");
    let loaded = load_dataset(&text, Lang::En);
    let mut n = 0;
    for s in loaded.sessions.iter().filter(|s| has_scenario(s)) {
        let initial = s
            .raw
            .get("ledger_env")
            .and_then(|e| e.get("initial"))
            .and_then(|v| v.as_str())
            .expect("initial");
        compare(&format!("{} initial (authored)", s.id), initial);
        let env = SessionEnv::of(s).expect("scenario").expect("env");
        for (t, state) in env.replay.pre.iter().enumerate() {
            compare(
                &format!("{} state {t} (canonical)", s.id),
                &write_ledger(state, &["test".to_owned()]),
            );
            n += 1;
        }
    }
    assert_eq!(n, 16 * 5);
    let subset = r#"; the rest of the subset
option "operating_currency" "EUR"
option "title" "Subset"
2024-01-01 commodity EUR
2024-01-01 open Assets:Bank:Checking EUR
2024-01-01 open Assets:Cash
2024-01-01 open Expenses:Food:Groceries EUR,USD
  description: "Food"
2024-01-01 open Expenses:Old
2024-01-01 open Equity:Opening-Balances
2024-06-01 close Expenses:Old
2024-01-02 pad Assets:Bank:Checking Equity:Opening-Balances
2024-01-03 balance Assets:Bank:Checking  1000.00 EUR
2024-02-01 ! "Albert Heijn" "Groceries" #food #weekly ^trip-2024
  wt-id: "txn_abc123"
  receipt: "rcpt_1"
  note: "checked"
  Expenses:Food:Groceries  12.30 EUR
  Assets:Bank:Checking
2024-02-02 * "Cash withdrawal"
  Assets:Cash  50 EUR
  Assets:Bank:Checking  -50 EUR
2024-02-03 txn "Market" ""
  * Expenses:Food:Groceries  7.125 EUR
  Assets:Cash  -7.125 EUR
2024-03-01 price USD  0.91 EUR
"#;
    compare("subset", subset);
}
