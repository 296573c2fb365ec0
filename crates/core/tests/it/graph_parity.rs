//! Property tests: the lazy engine against the literal reference enumeration on random small
//! graphs and random reply sequences.

use crate::graph_support;

use graph_support::{RefGraph, RefText, RefTool, RefTracker, ASK, PREPARE};
use proptest::prelude::*;
use wildtool_core::graph::{Candidates, Graph, PathTracker, TextMatch, ToolMatch};

/// splitmix64: a tiny deterministic generator driven by the proptest seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i + 1);
            v.swap(i, j);
        }
    }
}

/// A random DAG of at most 7 nodes: tools named from `alphabet`, optional asks, usually one
/// prepare depending on all or some nodes, in a random (non-topological) index order.
fn random_graph(rng: &mut Rng, alphabet: &[&str], max_other: usize) -> Vec<(String, Vec<usize>)> {
    let tools = rng.below(max_other);
    let asks = match rng.below(20) {
        0..=10 => 0,
        11..=17 => 1,
        _ => 2,
    };
    let mut kinds: Vec<String> = (0..tools)
        .map(|_| alphabet[rng.below(alphabet.len())].to_string())
        .collect();
    kinds.extend((0..asks).map(|_| ASK.to_string()));
    kinds.truncate(max_other);
    rng.shuffle(&mut kinds);
    // Topological order first: node t may depend on nodes before it.
    let mut topo: Vec<(String, Vec<usize>)> = Vec::new();
    let dep_percent = 15 + rng.below(40);
    for (t, name) in kinds.into_iter().enumerate() {
        let deps = (0..t).filter(|_| rng.chance(dep_percent)).collect();
        topo.push((name, deps));
    }
    if topo.is_empty() || rng.chance(92) {
        let m = topo.len();
        let deps = if rng.chance(65) {
            (0..m).collect()
        } else {
            (0..m).filter(|_| rng.chance(50)).collect()
        };
        topo.push((PREPARE.to_string(), deps));
    }
    // Random index order.
    let n = topo.len();
    let mut perm: Vec<usize> = (0..n).collect();
    rng.shuffle(&mut perm);
    let mut nodes = vec![(String::new(), Vec::new()); n];
    for (t, (name, deps)) in topo.into_iter().enumerate() {
        let mut deps: Vec<usize> = deps.into_iter().map(|d| perm[d]).collect();
        rng.shuffle(&mut deps);
        if !deps.is_empty() && rng.chance(5) {
            deps.push(deps[0]);
        }
        nodes[perm[t]] = (name, deps);
    }
    nodes
}

/// What the capped candidate list must be, from the full reference list.
fn expected_capped(full: &[Vec<usize>], cap: usize) -> Candidates {
    if full.len() <= cap {
        return Candidates {
            entries: full.to_vec(),
            truncated: false,
        };
    }
    let mut entries: Vec<Vec<usize>> = Vec::new();
    for c in full {
        if entries.len() >= cap {
            break;
        }
        if !entries.contains(c) {
            entries.push(c.clone());
        }
    }
    Candidates {
        entries,
        truncated: true,
    }
}

fn text_as_ref(t: TextMatch) -> RefText {
    match t {
        TextMatch::NoMatch { step_out_of_range } => RefText::NoMatch {
            out_of_range: step_out_of_range,
        },
        TextMatch::Ask {
            node,
            step,
            multi_node,
        } => RefText::Ask {
            node,
            step,
            multi: multi_node,
        },
        TextMatch::Prepare {
            node,
            step,
            multi_node,
        } => RefText::Prepare {
            node,
            step,
            multi: multi_node,
        },
    }
}

fn tool_as_ref(t: ToolMatch) -> RefTool {
    match t {
        ToolMatch::StepOutOfRange => RefTool::OutOfRange,
        ToolMatch::NoMatch => RefTool::NoMatch,
        ToolMatch::Matched {
            nodes,
            dropped_short_paths,
        } => RefTool::Matched {
            nodes,
            short: dropped_short_paths,
        },
    }
}

/// Coverage counters, to show the random cases reach the interesting situations.
#[derive(Default, Debug)]
struct Stats {
    tool_matches: usize,
    tool_rejects: usize,
    asks: usize,
    repeated_asks: usize,
    answers: usize,
    short_paths: usize,
    multi_pseudo: usize,
    truncations: usize,
}

/// Build a random case from `seed` and compare engine and reference at every step.
fn check_case(seed: u64, alphabet: &[&str], stats: &mut Stats) -> Result<(), TestCaseError> {
    check_sized(seed, alphabet, 6, stats)
}

fn check_sized(
    seed: u64,
    alphabet: &[&str],
    max_other: usize,
    stats: &mut Stats,
) -> Result<(), TestCaseError> {
    let mut rng = Rng(seed);
    let list = random_graph(&mut rng, alphabet, max_other);
    let graph = Graph::new(&list).map_err(|e| TestCaseError::fail(format!("{e}: {list:?}")))?;
    let mut reference = RefTracker::new(RefGraph::new(&list));
    prop_assert_eq!(
        graph.min_length(),
        reference.min_length(),
        "min_length of {:?}",
        list
    );
    prop_assert_eq!(
        graph.first_optimal_path(),
        reference.first_optimal(),
        "first optimal path of {:?}",
        list
    );
    let mut engine = PathTracker::new(&graph);
    let n = list.len();
    let mut asked = Vec::new();
    for s in 0..=n + 1 {
        let full = reference.candidates(s);
        let got = engine.candidates(s, 1_000_000);
        prop_assert!(!got.truncated);
        prop_assert_eq!(
            &got.entries,
            &full,
            "candidates at step {} of {:?}",
            s,
            list
        );
        let cap = 1 + rng.below(4);
        let capped = engine.candidates(s, cap);
        if capped.truncated {
            stats.truncations += 1;
        }
        prop_assert_eq!(
            capped,
            expected_capped(&full, cap),
            "capped candidates at step {} of {:?}",
            s,
            list
        );

        let roll = rng.below(100);
        if roll < 28 {
            let e = text_as_ref(engine.match_text(s));
            let r = reference.match_text(s);
            prop_assert_eq!(&e, &r, "text at step {} of {:?}", s, list);
            match r {
                RefText::Ask { node, multi, .. } => {
                    stats.asks += 1;
                    stats.multi_pseudo += usize::from(multi);
                    if asked.contains(&node) {
                        stats.repeated_asks += 1;
                    }
                    asked.push(node);
                }
                RefText::Prepare { multi, .. } => {
                    stats.answers += 1;
                    stats.multi_pseudo += usize::from(multi);
                    break;
                }
                RefText::NoMatch { .. } => break,
            }
        } else {
            let mut names: Vec<String> = if roll < 85 && !full.is_empty() {
                let pick = &full[rng.below(full.len())];
                pick.iter().map(|&i| list[i].0.clone()).collect()
            } else {
                let pool: Vec<&str> = alphabet
                    .iter()
                    .copied()
                    .chain([ASK, PREPARE, "zz"])
                    .collect();
                (0..1 + rng.below(3))
                    .map(|_| pool[rng.below(pool.len())].to_string())
                    .collect()
            };
            rng.shuffle(&mut names);
            let e = tool_as_ref(engine.match_tool_call(s, &names));
            let r = reference.match_tool(s, &names);
            prop_assert_eq!(&e, &r, "tool call {:?} at step {} of {:?}", names, s, list);
            match r {
                RefTool::Matched { short, .. } => {
                    stats.tool_matches += 1;
                    stats.short_paths += usize::from(short);
                }
                _ => {
                    stats.tool_rejects += 1;
                    break;
                }
            }
        }
    }
    Ok(())
}

const ABC: [&str; 3] = ["a", "b", "c"];
/// Names containing the key separator, where the `|`-joined dedupe keys collide across sizes.
const PIPES: [&str; 4] = ["a", "b", "a|b", "|"];

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn engine_matches_reference(seed in any::<u64>()) {
        check_case(seed, &ABC, &mut Stats::default())?;
    }

    #[test]
    fn engine_matches_reference_with_pipe_names(seed in any::<u64>()) {
        check_case(seed, &PIPES, &mut Stats::default())?;
    }
}

/// A fixed batch of seeds that must reach every interesting situation at least once.
#[test]
fn coverage_of_fixed_seeds() {
    let mut stats = Stats::default();
    for seed in 0..1500u64 {
        if let Err(e) = check_case(seed, &ABC, &mut stats) {
            panic!("seed {seed}: {e}");
        }
    }
    println!("{stats:?}");
    assert!(stats.tool_matches > 500, "{stats:?}");
    assert!(stats.tool_rejects > 100, "{stats:?}");
    assert!(stats.asks > 50, "{stats:?}");
    assert!(stats.repeated_asks > 0, "{stats:?}");
    assert!(stats.answers > 100, "{stats:?}");
    assert!(stats.short_paths > 0, "{stats:?}");
    assert!(stats.truncations > 100, "{stats:?}");
}

/// Larger graphs (up to 9 nodes); slow with the materialising reference, run on demand:
/// `cargo test --release --test graph_parity -- --ignored`.
#[test]
#[ignore]
fn larger_graphs_match_reference() {
    let mut stats = Stats::default();
    for seed in 0..3000u64 {
        if let Err(e) = check_sized(seed ^ 0xABCD, &ABC, 8, &mut stats) {
            panic!("seed {seed}: {e}");
        }
    }
    println!("{stats:?}");
}

/// Extreme sizes stay fast (run on demand in release; prints the times).
#[test]
#[ignore]
fn extreme_sizes_are_fast() {
    for k in [20usize, 32, 48, 63] {
        let mut list: Vec<(String, Vec<usize>)> =
            (0..k).map(|i| (format!("t{i:02}"), Vec::new())).collect();
        list.push((PREPARE.to_string(), (0..k).collect()));
        let start = std::time::Instant::now();
        let graph = Graph::new(&list).unwrap();
        assert_eq!(graph.min_length(), 2);
        assert_eq!(graph.first_optimal_path().len(), 2);
        let mut tracker = PathTracker::new(&graph);
        let names: Vec<&str> = list[..k].iter().map(|(n, _)| n.as_str()).collect();
        assert!(matches!(
            tracker.match_tool_call(0, &names),
            ToolMatch::Matched { .. }
        ));
        assert!(matches!(tracker.match_text(1), TextMatch::Prepare { .. }));
        let parallel = start.elapsed();
        let start = std::time::Instant::now();
        let mut tracker = PathTracker::new(&graph);
        for (s, name) in names.iter().enumerate() {
            assert!(matches!(
                tracker.match_tool_call(s, &[*name]),
                ToolMatch::Matched { .. }
            ));
        }
        assert!(matches!(tracker.match_text(k), TextMatch::Prepare { .. }));
        let serial = start.elapsed();
        let start = std::time::Instant::now();
        let tracker = PathTracker::new(&graph);
        assert_eq!(
            tracker.match_text(0),
            TextMatch::NoMatch {
                step_out_of_range: false
            }
        );
        let c = tracker.candidates(0, 1000);
        assert!(c.truncated && c.entries.len() == 1000);
        let log = start.elapsed();
        println!("k={k}: parallel {parallel:?}, serial {serial:?}, reject+log {log:?}");
        assert!(parallel.as_secs() < 2 && serial.as_secs() < 2 && log.as_secs() < 2);
    }
}
