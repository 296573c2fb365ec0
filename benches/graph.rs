//! Decision cost of the graph engine for k independent calls plus a prepare depending on all
//! of them (the ordered-Bell worst case of the official enumeration, PROTOCOL §3.5).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use wildtool_core::graph::{Graph, PathTracker, TextMatch, ToolMatch, PREPARE_NAME};

fn independent(k: usize, same_name: bool) -> Vec<(String, Vec<usize>)> {
    let mut nodes: Vec<(String, Vec<usize>)> = (0..k)
        .map(|i| {
            (
                if same_name {
                    "search".to_string()
                } else {
                    format!("tool_{i:02}")
                },
                Vec::new(),
            )
        })
        .collect();
    nodes.push((PREPARE_NAME.to_string(), (0..k).collect()));
    nodes
}

fn names(nodes: &[(String, Vec<usize>)]) -> Vec<&str> {
    nodes
        .iter()
        .filter(|(n, _)| n != PREPARE_NAME)
        .map(|(n, _)| n.as_str())
        .collect()
}

/// min_length and the first optimal path (what history rendering needs).
fn plan(nodes: &[(String, Vec<usize>)]) -> usize {
    let graph = Graph::new(nodes).expect("valid graph");
    graph.min_length() + graph.first_optimal_path().len()
}

/// All calls in one step, then the text answer: must be correct and optimal.
fn replay_parallel(nodes: &[(String, Vec<usize>)]) -> bool {
    let graph = Graph::new(nodes).expect("valid graph");
    let mut tracker = PathTracker::new(&graph);
    let calls = names(nodes);
    let ok = matches!(
        tracker.match_tool_call(0, &calls),
        ToolMatch::Matched { .. }
    );
    ok && matches!(tracker.match_text(1), TextMatch::Prepare { .. })
        && graph.is_optimal_answer_step(1)
}

/// One call per step (reverse order), then the text answer.
fn replay_serial(nodes: &[(String, Vec<usize>)]) -> bool {
    let graph = Graph::new(nodes).expect("valid graph");
    let mut tracker = PathTracker::new(&graph);
    let calls = names(nodes);
    for (s, name) in calls.iter().rev().enumerate() {
        if !matches!(
            tracker.match_tool_call(s, &[*name]),
            ToolMatch::Matched { .. }
        ) {
            return false;
        }
    }
    matches!(tracker.match_text(calls.len()), TextMatch::Prepare { .. })
}

/// A text answer at step 0 (rejected), then logging the candidates (cap 1,000).
fn reject_and_log(nodes: &[(String, Vec<usize>)]) -> usize {
    let graph = Graph::new(nodes).expect("valid graph");
    let tracker = PathTracker::new(&graph);
    let rejected = matches!(tracker.match_text(0), TextMatch::NoMatch { .. });
    usize::from(rejected) + tracker.candidates(0, 1000).entries.len()
}

/// An independent ask, k independent tools and a prepare after all of them.
fn clarify(k: usize) -> Vec<(String, Vec<usize>)> {
    let mut nodes = vec![(wildtool_core::graph::ASK_NAME.to_string(), Vec::new())];
    nodes.extend((0..k).map(|i| (format!("tool_{i:02}"), Vec::new())));
    nodes.push((PREPARE_NAME.to_string(), (0..=k).collect()));
    nodes
}

/// Clarify, then all calls in one step, then the answer.
fn replay_clarify(nodes: &[(String, Vec<usize>)]) -> bool {
    let graph = Graph::new(nodes).expect("valid graph");
    let mut tracker = PathTracker::new(&graph);
    let calls: Vec<&str> = names(nodes).into_iter().skip(1).collect();
    matches!(tracker.match_text(0), TextMatch::Ask { .. })
        && matches!(
            tracker.match_tool_call(1, &calls),
            ToolMatch::Matched { .. }
        )
        && matches!(tracker.match_text(2), TextMatch::Prepare { .. })
}

/// Clarify, then call sets matching no candidate (a tool twice; the two pseudo-actions as
/// tools), then the candidate log of that step (cap 1,000).
fn clarify_reject_and_log(nodes: &[(String, Vec<usize>)]) -> usize {
    let graph = Graph::new(nodes).expect("valid graph");
    let mut tracker = PathTracker::new(&graph);
    let ok = matches!(tracker.match_text(0), TextMatch::Ask { .. })
        && tracker.match_tool_call(1, &["tool_00", "tool_00", "tool_01"]) == ToolMatch::NoMatch
        && tracker.match_tool_call(1, &["ask_user_for_required_parameters", PREPARE_NAME])
            == ToolMatch::NoMatch;
    assert!(ok);
    usize::from(ok) + tracker.candidates(1, 1000).entries.len()
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("graph/clarify");
    group.sample_size(10);
    for k in [8usize, 12, 16] {
        let nodes = clarify(k);
        assert!(replay_clarify(&nodes));
        group.bench_with_input(BenchmarkId::new("replay", k), &nodes, |b, n| {
            b.iter(|| replay_clarify(black_box(n)))
        });
        group.bench_with_input(BenchmarkId::new("reject-and-log", k), &nodes, |b, n| {
            b.iter(|| clarify_reject_and_log(black_box(n)))
        });
    }
    group.finish();

    for same_name in [false, true] {
        let label = if same_name { "same-name" } else { "distinct" };
        let mut group = c.benchmark_group(format!("graph/{label}"));
        group.sample_size(20);
        for k in [8usize, 12, 16, 20] {
            let nodes = independent(k, same_name);
            assert!(replay_parallel(&nodes));
            assert!(replay_serial(&nodes));
            group.bench_with_input(BenchmarkId::new("plan", k), &nodes, |b, n| {
                b.iter(|| plan(black_box(n)))
            });
            group.bench_with_input(BenchmarkId::new("replay-parallel", k), &nodes, |b, n| {
                b.iter(|| replay_parallel(black_box(n)))
            });
            group.bench_with_input(BenchmarkId::new("replay-serial", k), &nodes, |b, n| {
                b.iter(|| replay_serial(black_box(n)))
            });
            group.bench_with_input(BenchmarkId::new("reject-and-log", k), &nodes, |b, n| {
                b.iter(|| reject_and_log(black_box(n)))
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
