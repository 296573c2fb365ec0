//! Structural checks of one task's dependency graph (PROTOCOL §1.4, C9): indexes in
//! range, no self-dependency, no cycle. Path enumeration itself lives in `graph`.

use super::model::Node;
use super::problem::Sink;

/// Reports self-dependencies, out-of-range indexes and cycles of `nodes`, whose list is
/// at JSON path `list_path`.
pub(crate) fn check_dependencies(nodes: &[Node], list_path: &str, sink: &mut Sink) {
    let n = nodes.len();
    for (i, node) in nodes.iter().enumerate() {
        for (j, &dep) in node.dependencies.iter().enumerate() {
            let path = format!("{list_path}[{i}].dependency_list[{j}]");
            if dep == i {
                sink.error(path, format!("node {i} depends on itself"));
            } else if dep >= n {
                sink.error(
                    path,
                    format!("dependency index {dep} is out of range (the list has {n} nodes)"),
                );
            }
        }
    }
    let cyclic = nodes_on_cycles(nodes);
    if !cyclic.is_empty() {
        sink.error(
            list_path,
            format!("dependency cycle among nodes {cyclic:?}: no complete path exists (C9)"),
        );
    }
}

/// Nodes that cannot be completed because they lie on (or behind) a cycle of in-range,
/// non-self dependencies, ascending. Empty for an acyclic graph.
pub(crate) fn nodes_on_cycles(nodes: &[Node]) -> Vec<usize> {
    let n = nodes.len();
    let edges = |i: usize| {
        nodes
            .get(i)
            .into_iter()
            .flat_map(|node| node.dependencies.iter().copied())
            .filter(move |&d| d < n && d != i)
    };
    // Kahn's algorithm: repeatedly complete nodes whose dependencies are all complete.
    let mut remaining: Vec<usize> = (0..n).map(|i| edges(i).count()).collect();
    let mut dependants: Vec<Vec<usize>> = vec![Vec::new(); n];
    for i in 0..n {
        for d in edges(i) {
            if let Some(list) = dependants.get_mut(d) {
                list.push(i);
            }
        }
    }
    let mut stack: Vec<usize> = (0..n).filter(|&i| remaining.get(i) == Some(&0)).collect();
    let mut done = vec![false; n];
    while let Some(i) = stack.pop() {
        if let Some(flag) = done.get_mut(i) {
            *flag = true;
        }
        for &k in dependants.get(i).map(Vec::as_slice).unwrap_or(&[]) {
            if let Some(r) = remaining.get_mut(k) {
                *r = r.saturating_sub(1);
                if *r == 0 {
                    stack.push(k);
                }
            }
        }
    }
    (0..n)
        .filter(|&i| !done.get(i).copied().unwrap_or(true))
        .collect()
}

/// `reach[a][b]`: node `b` (transitively) depends on node `a`. In-range, non-self
/// dependencies only. Intended for small graphs (quadratic memory).
pub(crate) fn reachability(nodes: &[Node]) -> Vec<Vec<bool>> {
    let n = nodes.len();
    let mut reach = vec![vec![false; n]; n];
    for (b, node) in nodes.iter().enumerate() {
        for &a in &node.dependencies {
            if a < n && a != b {
                if let Some(cell) = reach.get_mut(a).and_then(|row| row.get_mut(b)) {
                    *cell = true;
                }
            }
        }
    }
    // Floyd–Warshall style closure.
    for k in 0..n {
        for a in 0..n {
            let a_k = reach
                .get(a)
                .and_then(|r| r.get(k))
                .copied()
                .unwrap_or(false);
            if !a_k {
                continue;
            }
            for b in 0..n {
                let k_b = reach
                    .get(k)
                    .and_then(|r| r.get(b))
                    .copied()
                    .unwrap_or(false);
                if k_b {
                    if let Some(cell) = reach.get_mut(a).and_then(|row| row.get_mut(b)) {
                        *cell = true;
                    }
                }
            }
        }
    }
    reach
}
