//! The bundled suite: valid with every semantic check, distribution as the data
//! card states, varied tool lists, and the data card's table is `wildtool stats` output.

use std::collections::HashSet;

use wildtool_core::checker;
use wildtool_core::dataset::{Lang, Stats};
use wildtool_core::json::{dumps, Escape};
use wildtool_core::outcome::TaskType;
use wildtool_core::protocol::{load_checked, semantic_problems_checked};

use crate::support::read;

#[test]
fn suite_is_valid_with_semantic_checks_and_no_warnings() {
    let loaded = load_checked(&read("data/suite.jsonl"), Lang::En);
    assert!(loaded.problems.is_empty(), "{:#?}", loaded.problems);
    let seg = checker::default_segmenter();
    let problems = semantic_problems_checked(&loaded, seg.as_ref());
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn distribution_meets_the_issue() {
    let loaded = load_checked(&read("data/suite.jsonl"), Lang::En);
    let stats = Stats::from_sessions(&loaded.sessions);
    assert_eq!((stats.sessions, stats.tasks), (64, 256));
    for t in [TaskType::SingleTool, TaskType::Clarify, TaskType::Chat] {
        assert_eq!(stats.task_types[t.code() as usize], 64, "{t:?}");
    }
    let multi: usize = [
        TaskType::ParallelMultiTool,
        TaskType::SequentialMultiTool,
        TaskType::MixedMultiTool,
    ]
    .iter()
    .map(|t| stats.task_types[t.code() as usize])
    .sum();
    assert_eq!(multi, 64);
    assert!(
        stats.transitions.iter().all(|&n| n >= 8),
        "{:?}",
        stats.transitions
    );
    assert!(stats.domains.len() >= 13, "{:?}", stats.domains);
    assert!(stats.domains.get("finance-ledger").copied().unwrap_or(0) >= 12);
    assert!(
        stats.calls_per_task.keys().max().copied().unwrap_or(0) >= 8,
        "{:?}",
        stats.calls_per_task
    );
    let subtypes: usize = stats.subtypes.iter().sum();
    let share = |i: usize| stats.subtypes[i] as f64 / subtypes as f64;
    assert!(
        (share(0) - 0.45).abs() < 0.03
            && (share(1) - 0.30).abs() < 0.03
            && (share(2) - 0.25).abs() < 0.03
    );
    // Clarifications needing two rounds exist.
    let two_rounds = loaded
        .sessions
        .iter()
        .flat_map(|s| &s.tasks)
        .filter(|t| {
            t.nodes
                .iter()
                .filter(|n| n.name == "ask_user_for_required_parameters")
                .count()
                >= 2
        })
        .count();
    assert!(two_rounds >= 2, "{two_rounds}");
}

#[test]
fn no_two_sessions_share_a_tool_list() {
    let loaded = load_checked(&read("data/suite.jsonl"), Lang::En);
    let mut seen = HashSet::new();
    for s in &loaded.sessions {
        assert!(
            seen.insert(dumps(&s.tools, Escape::Utf8)),
            "{} repeats a tool list",
            s.id
        );
    }
}

#[test]
fn data_card_table_is_the_stats_output() {
    let loaded = load_checked(&read("data/suite.jsonl"), Lang::En);
    let table = Stats::from_sessions(&loaded.sessions).render_table();
    let card = read("data/README.md");
    assert!(
        card.contains(table.trim_end()),
        "data/README.md is stale: paste `wildtool stats data/suite.jsonl`"
    );
}
