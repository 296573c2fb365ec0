//! The worked examples of PROTOCOL §3.4, checked against both the literal reference and the
//! lazy engine.

use crate::graph_support;

use graph_support::{fmt_path, RefGraph, RefText, RefTool, RefTracker, ASK, PREPARE};
use wildtool_core::graph::{Graph, GraphError, PathTracker, TextMatch, ToolMatch};

fn nodes(spec: &[(&str, &[usize])]) -> Vec<(String, Vec<usize>)> {
    spec.iter()
        .map(|(n, d)| (n.to_string(), d.to_vec()))
        .collect()
}

/// Tool nodes plus a final prepare depending on all of them.
fn with_prepare(spec: &[(&str, &[usize])]) -> Vec<(String, Vec<usize>)> {
    let mut v = nodes(spec);
    let all: Vec<usize> = (0..v.len()).collect();
    v.push((PREPARE.to_string(), all));
    v
}

fn table1_row(
    spec: &[(&str, &[usize])],
    expected_paths: &str,
    min_length: usize,
    first_optimal: &str,
) {
    let list = with_prepare(spec);
    let p = list.len() - 1;
    let reference = RefTracker::new(RefGraph::new(&list));
    let stripped: Vec<String> = reference
        .paths
        .iter()
        .map(|path| {
            assert_eq!(path.last(), Some(&vec![p]), "every path ends with [P]");
            fmt_path(&path[..path.len() - 1].to_vec())
        })
        .collect();
    assert_eq!(stripped.join(" · "), expected_paths);
    assert_eq!(reference.min_length(), min_length);
    assert_eq!(fmt_path(&reference.first_optimal()), first_optimal);

    let graph = Graph::new(&list).unwrap();
    assert_eq!(graph.min_length(), min_length);
    assert_eq!(fmt_path(&graph.first_optimal_path()), first_optimal);
    let tracker = PathTracker::new(&graph);
    for s in 0..=list.len() {
        let c = tracker.candidates(s, 100_000);
        assert!(!c.truncated);
        assert_eq!(c.entries, reference.candidates(s), "candidates at step {s}");
    }
}

#[test]
fn table1_a0_a1() {
    table1_row(&[("a", &[]), ("a", &[])], "[0],[1] · [0,1]", 2, "[0,1],[2]");
}

#[test]
fn table1_a0_a1_a2() {
    table1_row(
        &[("a", &[]), ("a", &[]), ("a", &[])],
        "[0],[1],[2] · [0,1,2]",
        2,
        "[0,1,2],[3]",
    );
}

#[test]
fn table1_a0_b1() {
    table1_row(
        &[("a", &[]), ("b", &[])],
        "[0],[1] · [1],[0] · [0,1]",
        2,
        "[0,1],[2]",
    );
}

#[test]
fn table1_a0_a1_b2() {
    table1_row(
        &[("a", &[]), ("a", &[]), ("b", &[])],
        "[0],[1],[2] · [2],[0],[1] · [2],[0,1] · [0,1],[2] · [0,1,2]",
        2,
        "[0,1,2],[3]",
    );
}

#[test]
fn table1_b0_a1_a2() {
    table1_row(
        &[("b", &[]), ("a", &[]), ("a", &[])],
        "[0],[1],[2] · [0],[1,2] · [1],[2],[0] · [0,1],[2] · [1,2],[0] · [0,1,2]",
        2,
        "[0,1,2],[3]",
    );
}

#[test]
fn table1_a0_b1_a2() {
    table1_row(
        &[("a", &[]), ("b", &[]), ("a", &[])],
        "[0],[1],[2] · [0],[2],[1] · [0],[1,2] · [1],[0],[2] · [1],[0,2] · [0,1],[2] · [0,2],[1] · [1,2],[0] · [0,1,2]",
        2,
        "[0,1,2],[3]",
    );
}

#[test]
fn table1_a0_b1_c2_after_a0() {
    table1_row(
        &[("a", &[]), ("b", &[]), ("c", &[0])],
        "[0],[1],[2] · [0],[2],[1] · [0],[1,2] · [1],[0],[2] · [0,1],[2]",
        3,
        "[0],[1,2],[3]",
    );
}

/// A model reply in a scripted replay.
enum Reply<'a> {
    Tools(&'a [&'a str]),
    Text,
}

/// Drive the engine like the step loop; return the per-step events and
/// `(names correct, is_optimal)`.
fn replay_engine(list: &[(String, Vec<usize>)], replies: &[Reply]) -> (Vec<String>, bool, bool) {
    let graph = Graph::new(list).unwrap();
    let mut tracker = PathTracker::new(&graph);
    let mut events = Vec::new();
    for (s, reply) in replies.iter().enumerate() {
        match reply {
            Reply::Tools(names) => match tracker.match_tool_call(s, names) {
                ToolMatch::Matched { nodes, .. } => events.push(format!("accept {nodes:?}")),
                ToolMatch::NoMatch | ToolMatch::StepOutOfRange => {
                    events.push("reject".into());
                    return (events, false, false);
                }
            },
            Reply::Text => match tracker.match_text(s) {
                TextMatch::Ask { node, .. } => events.push(format!("ask {node}")),
                TextMatch::Prepare { .. } => {
                    events.push("correct".into());
                    return (events, true, graph.is_optimal_answer_step(s));
                }
                TextMatch::NoMatch { .. } => {
                    events.push("reject".into());
                    return (events, false, false);
                }
            },
        }
    }
    (events, false, false)
}

/// The same replay on the literal reference.
fn replay_reference(list: &[(String, Vec<usize>)], replies: &[Reply]) -> (Vec<String>, bool, bool) {
    let mut tracker = RefTracker::new(RefGraph::new(list));
    let mut events = Vec::new();
    for (s, reply) in replies.iter().enumerate() {
        match reply {
            Reply::Tools(names) => {
                let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
                match tracker.match_tool(s, &names) {
                    RefTool::Matched { nodes, .. } => events.push(format!("accept {nodes:?}")),
                    _ => {
                        events.push("reject".into());
                        return (events, false, false);
                    }
                }
            }
            Reply::Text => match tracker.match_text(s) {
                RefText::Ask { node, .. } => events.push(format!("ask {node}")),
                RefText::Prepare { .. } => {
                    events.push("correct".into());
                    return (events, true, s + 1 == tracker.min_length());
                }
                RefText::NoMatch { .. } => {
                    events.push("reject".into());
                    return (events, false, false);
                }
            },
        }
    }
    (events, false, false)
}

fn table2_row(
    list: Vec<(String, Vec<usize>)>,
    replies: &[Reply],
    events: &[&str],
    correct: bool,
    optimal: bool,
) {
    let engine = replay_engine(&list, replies);
    let reference = replay_reference(&list, replies);
    assert_eq!(engine, reference, "engine and reference disagree");
    assert_eq!(engine.0, events);
    assert_eq!(engine.1, correct, "names correct");
    assert_eq!(engine.2, optimal, "is_optimal");
}

#[test]
fn table2_a0_a1_b2_parallel_ab_rejected_with_candidates() {
    let list = with_prepare(&[("a", &[]), ("a", &[]), ("b", &[])]);
    table2_row(
        list.clone(),
        &[Reply::Tools(&["a", "b"])],
        &["reject"],
        false,
        false,
    );
    let graph = Graph::new(&list).unwrap();
    let tracker = PathTracker::new(&graph);
    let names: Vec<Vec<&str>> = tracker
        .candidates(0, 1000)
        .entries
        .iter()
        .map(|step| {
            graph
                .name_sorted(step)
                .iter()
                .map(|&i| graph.name(i).unwrap())
                .collect()
        })
        .collect();
    assert_eq!(
        names,
        vec![
            vec!["a"],
            vec!["b"],
            vec!["b"],
            vec!["a", "a"],
            vec!["a", "a", "b"]
        ]
    );
}

#[test]
fn table2_a0_a1_b2_a_then_b_rejected() {
    let list = with_prepare(&[("a", &[]), ("a", &[]), ("b", &[])]);
    table2_row(
        list,
        &[Reply::Tools(&["a"]), Reply::Tools(&["b"])],
        &["accept [0]", "reject"],
        false,
        false,
    );
}

#[test]
fn table2_a0_a1_b2_b_aa_text_not_optimal() {
    let list = with_prepare(&[("a", &[]), ("a", &[]), ("b", &[])]);
    table2_row(
        list,
        &[Reply::Tools(&["b"]), Reply::Tools(&["a", "a"]), Reply::Text],
        &["accept [2]", "accept [0, 1]", "correct"],
        true,
        false,
    );
}

#[test]
fn table2_b0_a1_a2_ab_a_text() {
    let list = with_prepare(&[("b", &[]), ("a", &[]), ("a", &[])]);
    table2_row(
        list,
        &[Reply::Tools(&["a", "b"]), Reply::Tools(&["a"]), Reply::Text],
        &["accept [0, 1]", "accept [2]", "correct"],
        true,
        false,
    );
}

#[test]
fn table2_b0_a1_a2_a_then_b_rejected() {
    let list = with_prepare(&[("b", &[]), ("a", &[]), ("a", &[])]);
    table2_row(
        list,
        &[Reply::Tools(&["a"]), Reply::Tools(&["b"])],
        &["accept [1]", "reject"],
        false,
        false,
    );
}

#[test]
fn table2_a0_b1_a2_aa_b_text() {
    let list = with_prepare(&[("a", &[]), ("b", &[]), ("a", &[])]);
    table2_row(
        list,
        &[Reply::Tools(&["a", "a"]), Reply::Tools(&["b"]), Reply::Text],
        &["accept [0, 2]", "accept [1]", "correct"],
        true,
        false,
    );
}

#[test]
fn table2_chain_ab_c_text_optimal() {
    let list = with_prepare(&[("a", &[]), ("b", &[]), ("c", &[0])]);
    table2_row(
        list,
        &[Reply::Tools(&["b", "a"]), Reply::Tools(&["c"]), Reply::Text],
        &["accept [0, 1]", "accept [2]", "correct"],
        true,
        true,
    );
}

#[test]
fn table2_chain_ac_rejected() {
    let list = with_prepare(&[("a", &[]), ("b", &[]), ("c", &[0])]);
    table2_row(
        list,
        &[Reply::Tools(&["a", "c"])],
        &["reject"],
        false,
        false,
    );
}

#[test]
fn table2_ask_accepted_twice() {
    let list = nodes(&[(ASK, &[]), ("t", &[]), (PREPARE, &[0, 1])]);
    table2_row(
        list,
        &[Reply::Text, Reply::Text, Reply::Text],
        &["ask 0", "ask 0", "correct"],
        true,
        false,
    );
}

#[test]
fn table2_prepare_without_dependencies_is_optimal_at_step_0() {
    let list = nodes(&[("t", &[]), (PREPARE, &[])]);
    table2_row(list, &[Reply::Text], &["correct"], true, true);
}

#[test]
fn table2_ask_chain_rejects_tool_first() {
    let list = nodes(&[(ASK, &[]), ("t", &[0]), (PREPARE, &[1])]);
    table2_row(list, &[Reply::Tools(&["t"])], &["reject"], false, false);
}

#[test]
fn graph_errors() {
    let empty: Vec<(String, Vec<usize>)> = Vec::new();
    assert_eq!(Graph::new(&empty).unwrap_err(), GraphError::Empty);
    assert!(matches!(
        Graph::new(&nodes(&[("a", &[3])])).unwrap_err(),
        GraphError::DependencyOutOfRange {
            node: 0,
            dependency: 3,
            len: 1
        }
    ));
    assert_eq!(
        Graph::new(&nodes(&[("a", &[0])])).unwrap_err(),
        GraphError::SelfDependency { node: 0 }
    );
    assert_eq!(
        Graph::new(&nodes(&[("a", &[]), ("b", &[2]), ("c", &[1]), ("d", &[2])])).unwrap_err(),
        GraphError::Cycle {
            nodes: vec![1, 2, 3]
        }
    );
    let many: Vec<(String, Vec<usize>)> = (0..65).map(|i| (format!("t{i}"), vec![])).collect();
    assert!(matches!(
        Graph::new(&many).unwrap_err(),
        GraphError::TooManyNodes { count: 65, max: 64 }
    ));
}

#[test]
fn out_of_range_steps() {
    let list = nodes(&[("t", &[]), (PREPARE, &[0])]);
    let graph = Graph::new(&list).unwrap();
    let mut tracker = PathTracker::new(&graph);
    assert_eq!(
        tracker.match_tool_call(2, &["t"]),
        ToolMatch::StepOutOfRange
    );
    assert_eq!(
        tracker.match_text(2),
        TextMatch::NoMatch {
            step_out_of_range: true
        }
    );
    assert_eq!(tracker.match_tool_call(0, &["unknown"]), ToolMatch::NoMatch);
}

#[test]
fn name_sorting_and_pseudo_mixing() {
    let list = nodes(&[("b", &[]), ("a", &[]), ("b", &[]), (PREPARE, &[])]);
    let graph = Graph::new(&list).unwrap();
    assert_eq!(graph.name_sorted(&[0, 1, 2]), vec![1, 0, 2]);
    assert!(graph.mixes_pseudo(&[0, 3]));
    assert!(!graph.mixes_pseudo(&[3]));
    assert!(!graph.mixes_pseudo(&[0, 2]));
    // The prepare has no dependencies: [0,1,2,3] is the first (and only) one-step path.
    assert_eq!(graph.min_length(), 1);
    assert_eq!(graph.first_optimal_path(), vec![vec![0, 1, 2, 3]]);
}
