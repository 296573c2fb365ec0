//! The gold node graph of one task: names, kinds, dependencies and the longest-chain heights
//! that make `min_length` and the first optimal path cheap (PROTOCOL §3.1, §3.5).

use thiserror::Error;

use super::moves::{self, MoveSource};

pub use crate::outcome::{NodeKind, ASK_NAME, PREPARE_NAME};

/// Why a node list cannot be turned into a [`Graph`].
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum GraphError {
    /// The task has no gold nodes (C9: no complete path).
    #[error("the task has no gold nodes")]
    Empty,
    /// More nodes than the bitmask representation supports.
    #[error("the task has {count} gold nodes; at most {max} are supported")]
    TooManyNodes {
        /// Number of nodes given.
        count: usize,
        /// [`Graph::MAX_NODES`].
        max: usize,
    },
    /// A dependency index outside `0..len`.
    #[error("node {node} depends on index {dependency}, but the task has only {len} nodes")]
    DependencyOutOfRange {
        /// The dependant node.
        node: usize,
        /// The invalid index.
        dependency: usize,
        /// Number of nodes.
        len: usize,
    },
    /// A node lists itself as a dependency (C9).
    #[error("node {node} depends on itself")]
    SelfDependency {
        /// The node.
        node: usize,
    },
    /// The dependencies contain a cycle (C9).
    #[error("the dependencies form a cycle; nodes that can never run: {nodes:?}")]
    Cycle {
        /// Every node that never becomes ready, ascending.
        nodes: Vec<usize>,
    },
}

/// An acyclic gold node graph (PROTOCOL §3.1), nodes `0..len()`.
///
/// Names are interned to ids whose order is the code-point order of the names, so sorting ids
/// sorts names exactly as Python does.
#[derive(Debug, Clone)]
pub struct Graph {
    names: Vec<String>,
    distinct: Vec<String>,
    name_ids: Vec<u16>,
    name_masks: Vec<u64>,
    kinds: Vec<NodeKind>,
    deps: Vec<u64>,
    heights: Vec<u32>,
    full: u64,
    ask: u64,
    pseudo: u64,
    pipe_keys: bool,
    min_length: usize,
}

/// Iterate the set bits of a mask, ascending.
pub(crate) fn bits(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if mask == 0 {
            None
        } else {
            let i = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            Some(i)
        }
    })
}

/// The single-bit mask of `i` (`i < 64`).
pub(crate) fn bit(i: usize) -> u64 {
    1u64 << i
}

/// A step (node mask) as an ascending index list.
pub(crate) fn mask_to_vec(mask: u64) -> Vec<usize> {
    bits(mask).collect()
}

/// A topological order (Kahn on bitmasks); nodes left over are on or behind a cycle.
fn topological_order(deps: &[u64], full: u64) -> Result<Vec<usize>, GraphError> {
    let mut order = Vec::with_capacity(deps.len());
    let mut done = 0u64;
    loop {
        let ready = bits(full & !done)
            .filter(|&u| deps.get(u).is_some_and(|d| d & !done == 0))
            .fold(0u64, |m, u| m | bit(u));
        if ready == 0 {
            break;
        }
        order.extend(bits(ready));
        done |= ready;
    }
    if done == full {
        Ok(order)
    } else {
        Err(GraphError::Cycle {
            nodes: mask_to_vec(full & !done),
        })
    }
}

/// Per node, the number of nodes on the longest dependency chain starting at it.
fn chain_heights(deps: &[u64], order: &[usize]) -> Vec<u32> {
    let mut heights = vec![1u32; deps.len()];
    for &u in order.iter().rev() {
        let below = deps
            .iter()
            .enumerate()
            .filter(|(_, d)| *d & bit(u) != 0)
            .filter_map(|(v, _)| heights.get(v).copied())
            .max()
            .unwrap_or(0);
        if let Some(h) = heights.get_mut(u) {
            *h = below + 1;
        }
    }
    heights
}

impl Graph {
    /// Largest supported node count.
    pub const MAX_NODES: usize = 64;

    /// Build a graph from `(action name, dependency_list)` pairs in gold order.
    ///
    /// Duplicate entries in a dependency list are harmless (the official in-degree counting
    /// treats them as one edge in effect).
    pub fn new<S: AsRef<str>>(nodes: &[(S, Vec<usize>)]) -> Result<Graph, GraphError> {
        let len = nodes.len();
        if len == 0 {
            return Err(GraphError::Empty);
        }
        if len > Self::MAX_NODES {
            return Err(GraphError::TooManyNodes {
                count: len,
                max: Self::MAX_NODES,
            });
        }
        let mut deps = vec![0u64; len];
        for (node, (_, list)) in nodes.iter().enumerate() {
            for &dependency in list {
                if dependency >= len {
                    return Err(GraphError::DependencyOutOfRange {
                        node,
                        dependency,
                        len,
                    });
                }
                if dependency == node {
                    return Err(GraphError::SelfDependency { node });
                }
                if let Some(d) = deps.get_mut(node) {
                    *d |= bit(dependency);
                }
            }
        }
        let full = if len == 64 { u64::MAX } else { bit(len) - 1 };
        let order = topological_order(&deps, full)?;
        let heights = chain_heights(&deps, &order);
        let names: Vec<String> = nodes.iter().map(|(n, _)| n.as_ref().to_owned()).collect();
        let mut distinct = names.clone();
        crate::order::sort(&mut distinct);
        distinct.dedup();
        let name_ids: Vec<u16> = names
            .iter()
            .map(|n| distinct.binary_search(n).map(|i| i as u16).unwrap_or(0))
            .collect();
        let mut name_masks = vec![0u64; distinct.len()];
        for (node, &id) in name_ids.iter().enumerate() {
            if let Some(m) = name_masks.get_mut(usize::from(id)) {
                *m |= bit(node);
            }
        }
        let kinds: Vec<NodeKind> = names.iter().map(|n| NodeKind::from_name(n)).collect();
        let mask_of = |k: NodeKind| {
            kinds
                .iter()
                .enumerate()
                .filter(|(_, &x)| x == k)
                .fold(0u64, |m, (i, _)| m | bit(i))
        };
        let ask = mask_of(NodeKind::Ask);
        let pseudo = ask | mask_of(NodeKind::Prepare);
        let pipe_keys = names.iter().any(|n| n.contains('|'));
        let mut graph = Graph {
            names,
            distinct,
            name_ids,
            name_masks,
            kinds,
            deps,
            heights,
            full,
            ask,
            pseudo,
            pipe_keys,
            min_length: 0,
        };
        graph.min_length = if pipe_keys {
            moves::exhaustive_dist(&graph, 0, &mut Default::default()) as usize
        } else {
            graph.remaining_height(0) as usize
        };
        Ok(graph)
    }

    /// Number of nodes (never zero).
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Always false: a graph has at least one node.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The action name of node `i`.
    pub fn name(&self, i: usize) -> Option<&str> {
        self.names.get(i).map(String::as_str)
    }

    /// The kind of node `i`.
    pub fn kind(&self, i: usize) -> Option<NodeKind> {
        self.kinds.get(i).copied()
    }

    /// The fewest steps on any path (pseudo nodes count; PROTOCOL §3.2).
    pub fn min_length(&self) -> usize {
        self.min_length
    }

    /// Whether a text answer accepted at step `s` is optimal (`s == min_length - 1`).
    pub fn is_optimal_answer_step(&self, s: usize) -> bool {
        s + 1 == self.min_length
    }

    /// The first minimum-length path in enumeration order (renders history, §2.3): steps of
    /// node indexes, ascending within a step.
    pub fn first_optimal_path(&self) -> Vec<Vec<usize>> {
        let mut path = Vec::new();
        let mut done = 0u64;
        let mut memo = Default::default();
        while done != self.full {
            let chosen = if self.pipe_keys {
                let target = moves::exhaustive_dist(self, done, &mut memo);
                MoveSource::new(self, done).first_where(self, |mv| {
                    mv.step_count() as u32
                        + moves::exhaustive_dist(self, done | mv.nodes, &mut memo)
                        == target
                })
            } else {
                moves::first_height_optimal(self, done)
            };
            let Some(mv) = chosen else { break };
            path.extend(mv.steps().map(mask_to_vec));
            done |= mv.nodes;
        }
        path
    }

    /// Whether a step mixes a pseudo node with another node (C8 while rendering history).
    pub fn mixes_pseudo(&self, step: &[usize]) -> bool {
        step.len() > 1
            && step
                .iter()
                .any(|&i| self.kind(i).is_some_and(NodeKind::is_pseudo))
    }

    /// The nodes of a step in name-sorted order (stable: same-name nodes keep index order),
    /// the order of gold observations and logged actions in the live loop (§2.5).
    pub fn name_sorted(&self, nodes: &[usize]) -> Vec<usize> {
        let mut out = nodes.to_vec();
        crate::order::sort_by_key(&mut out, |&i| {
            self.name_ids.get(i).copied().unwrap_or(u16::MAX)
        });
        out
    }

    /// The id of a name, if some node carries it.
    pub(crate) fn name_id(&self, name: &str) -> Option<u16> {
        self.distinct
            .binary_search_by(|d| d.as_str().cmp(name))
            .ok()
            .map(|i| i as u16)
    }

    pub(crate) fn name_id_of(&self, node: usize) -> u16 {
        self.name_ids.get(node).copied().unwrap_or(u16::MAX)
    }

    /// The nodes carrying name id `id`.
    pub(crate) fn name_mask(&self, id: u16) -> u64 {
        self.name_masks.get(usize::from(id)).copied().unwrap_or(0)
    }

    pub(crate) fn deps_of(&self, node: usize) -> u64 {
        self.deps.get(node).copied().unwrap_or(0)
    }

    pub(crate) fn height_of(&self, node: usize) -> u32 {
        self.heights.get(node).copied().unwrap_or(0)
    }

    pub(crate) fn full(&self) -> u64 {
        self.full
    }

    pub(crate) fn ask_mask(&self) -> u64 {
        self.ask
    }

    pub(crate) fn pseudo_mask(&self) -> u64 {
        self.pseudo
    }

    pub(crate) fn pipe_keys(&self) -> bool {
        self.pipe_keys
    }

    /// The ready nodes of a done set, as a node mask.
    pub(crate) fn ready(&self, done: u64) -> u64 {
        bits(self.full & !done)
            .filter(|&u| self.deps_of(u) & !done == 0)
            .fold(0, |m, u| m | bit(u))
    }

    /// The longest dependency chain among the nodes not done: a lower bound on the steps
    /// still needed, and the exact value when no name contains `|` (taking every ready node
    /// at once is always a move).
    pub(crate) fn remaining_height(&self, done: u64) -> u32 {
        bits(self.full & !done)
            .map(|u| self.height_of(u))
            .max()
            .unwrap_or(0)
    }

    /// The names of a step, sorted (ids).
    pub(crate) fn sorted_name_ids(&self, step: u64) -> Vec<u16> {
        let mut ids: Vec<u16> = bits(step).map(|u| self.name_id_of(u)).collect();
        ids.sort_unstable();
        ids
    }

    pub(crate) fn node_name(&self, node: usize) -> &str {
        self.names.get(node).map(String::as_str).unwrap_or("")
    }
}
