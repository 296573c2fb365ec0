//! A slow, literal reference of the official path enumeration and matching (PROTOCOL §3.2,
//! §3.3, §2.5 B/C), used to check the lazy engine. It materialises every path.

#![allow(dead_code)]

use std::collections::HashSet;

pub const ASK: &str = "ask_user_for_required_parameters";
pub const PREPARE: &str = "prepare_to_answer";

pub type Path = Vec<Vec<usize>>;

/// Every combination of `items` of size `r`, in `itertools.combinations` order.
pub fn combinations(items: &[usize], r: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut cur = Vec::new();
    fn go(
        items: &[usize],
        start: usize,
        r: usize,
        cur: &mut Vec<usize>,
        out: &mut Vec<Vec<usize>>,
    ) {
        if cur.len() == r {
            out.push(cur.clone());
            return;
        }
        for i in start..items.len() {
            cur.push(items[i]);
            go(items, i + 1, r, cur, out);
            cur.pop();
        }
    }
    go(items, 0, r, &mut cur, &mut out);
    out
}

/// The reference graph: names and dependency lists, exactly as in the gold list.
#[derive(Debug, Clone)]
pub struct RefGraph {
    pub names: Vec<String>,
    pub deps: Vec<Vec<usize>>,
}

impl RefGraph {
    pub fn new(nodes: &[(String, Vec<usize>)]) -> Self {
        RefGraph {
            names: nodes.iter().map(|n| n.0.clone()).collect(),
            deps: nodes.iter().map(|n| n.1.clone()).collect(),
        }
    }

    /// All complete paths in DFS order, following the official `dfs` literally.
    pub fn all_paths(&self) -> Vec<Path> {
        let n = self.names.len();
        let mut dependants = vec![Vec::new(); n];
        let mut in_degree = vec![0i32; n];
        for (idx, deps) in self.deps.iter().enumerate() {
            for &d in deps {
                dependants[d].push(idx);
                in_degree[idx] += 1;
            }
        }
        let mut out = Vec::new();
        self.dfs(&dependants, in_degree, vec![false; n], Vec::new(), &mut out);
        out
    }

    fn dfs(
        &self,
        graph: &[Vec<usize>],
        in_degree: Vec<i32>,
        visited: Vec<bool>,
        path: Path,
        out: &mut Vec<Path>,
    ) {
        let done: usize = path.iter().map(Vec::len).sum();
        if done == self.names.len() {
            out.push(path);
            return;
        }
        let ready: Vec<usize> = (0..self.names.len())
            .filter(|&i| in_degree[i] == 0 && !visited[i])
            .collect();
        // Runs of neighbouring same-name elements.
        let mut runs: Vec<Vec<usize>> = Vec::new();
        for &i in &ready {
            match runs.last_mut() {
                Some(run) if self.names[run[run.len() - 1]] == self.names[i] => run.push(i),
                _ => runs.push(vec![i]),
            }
        }
        let mut need_filter: Vec<Vec<usize>> = Vec::new();
        let mut not_need_filter: Vec<Vec<usize>> = Vec::new();
        for run in &runs {
            if run.len() > 1 {
                for r in 1..run.len() {
                    need_filter.extend(combinations(run, r));
                }
                not_need_filter.push(run.clone());
            }
        }
        let mut all = Vec::new();
        for r in 1..=ready.len() {
            all.extend(combinations(&ready, r));
        }
        let mut seen = HashSet::new();
        let mut dedup = Vec::new();
        for comb in all {
            let key = comb
                .iter()
                .map(|&c| self.names[c].as_str())
                .collect::<Vec<_>>()
                .join("|");
            if seen.insert(key) {
                dedup.push(comb);
            }
        }
        let mut finals = Vec::new();
        for comb in dedup {
            if comb.len() > 1 {
                let mut filter = need_filter.contains(&comb);
                let prefixes: Vec<Vec<usize>> =
                    (0..comb.len()).map(|i| comb[..=i].to_vec()).collect();
                for p in &prefixes {
                    if need_filter.contains(p) {
                        filter = true;
                    }
                }
                for p in &prefixes {
                    if not_need_filter.contains(p) {
                        filter = false;
                    }
                }
                if filter {
                    continue;
                }
            }
            finals.push(comb);
        }
        for mut comb in finals {
            let mut extend = false;
            if comb.len() == 1 {
                for g in &not_need_filter {
                    if comb[0] == g[0] {
                        comb = g.clone();
                        extend = true;
                        break;
                    }
                }
            }
            let mut visited2 = visited.clone();
            for &c in &comb {
                visited2[c] = true;
            }
            let mut in2 = in_degree.clone();
            for &c in &comb {
                for &nb in &graph[c] {
                    in2[nb] -= 1;
                }
            }
            let mut path2 = path.clone();
            if extend {
                for &c in &comb {
                    path2.push(vec![c]);
                }
            } else {
                path2.push(comb);
            }
            self.dfs(graph, in2, visited2, path2, out);
        }
    }

    /// Names of a step, stable-sorted.
    pub fn sorted_names(&self, step: &[usize]) -> Vec<String> {
        let mut v: Vec<String> = step.iter().map(|&i| self.names[i].clone()).collect();
        v.sort();
        v
    }
}

/// Reference outcome of a tool-call reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefTool {
    OutOfRange,
    NoMatch,
    Matched { nodes: Vec<usize>, short: bool },
}

/// Reference outcome of a text reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefText {
    NoMatch {
        out_of_range: bool,
    },
    Ask {
        node: usize,
        step: Vec<usize>,
        multi: bool,
    },
    Prepare {
        node: usize,
        step: Vec<usize>,
        multi: bool,
    },
}

/// The official alive-path list and its matching, materialised.
pub struct RefTracker {
    pub graph: RefGraph,
    pub paths: Vec<Path>,
    pub alive: Vec<Path>,
}

impl RefTracker {
    pub fn new(graph: RefGraph) -> Self {
        let paths = graph.all_paths();
        RefTracker {
            graph,
            alive: paths.clone(),
            paths,
        }
    }

    pub fn min_length(&self) -> usize {
        self.paths.iter().map(Vec::len).min().unwrap_or(0)
    }

    pub fn first_optimal(&self) -> Path {
        let m = self.min_length();
        self.paths
            .iter()
            .find(|p| p.len() == m)
            .cloned()
            .unwrap_or_default()
    }

    pub fn candidates(&self, s: usize) -> Vec<Vec<usize>> {
        self.alive
            .iter()
            .filter(|p| p.len() > s)
            .map(|p| p[s].clone())
            .collect()
    }

    pub fn match_tool(&mut self, s: usize, predicted: &[String]) -> RefTool {
        if s >= self.graph.names.len() {
            return RefTool::OutOfRange;
        }
        let mut want = predicted.to_vec();
        want.sort();
        let Some(step) = self
            .candidates(s)
            .into_iter()
            .find(|c| self.graph.sorted_names(c) == want)
        else {
            return RefTool::NoMatch;
        };
        let short = self.alive.iter().any(|p| p.len() <= s);
        self.alive.retain(|p| p.len() > s && p[s] == step);
        RefTool::Matched { nodes: step, short }
    }

    pub fn match_text(&self, s: usize) -> RefText {
        if s >= self.graph.names.len() {
            return RefText::NoMatch { out_of_range: true };
        }
        for c in self.candidates(s) {
            let names = self.graph.sorted_names(&c);
            let multi = c.len() > 1;
            if names.iter().any(|n| n == ASK) {
                let node = *c.iter().find(|&&i| self.graph.names[i] == ASK).unwrap();
                return RefText::Ask {
                    node,
                    step: c,
                    multi,
                };
            } else if names.iter().any(|n| n == PREPARE) {
                let node = *c.iter().find(|&&i| self.graph.names[i] == PREPARE).unwrap();
                return RefText::Prepare {
                    node,
                    step: c,
                    multi,
                };
            }
        }
        RefText::NoMatch {
            out_of_range: false,
        }
    }
}

/// Paths as compact strings, e.g. `[0],[1,2]`.
pub fn fmt_path(p: &Path) -> String {
    p.iter()
        .map(|s| {
            format!(
                "[{}]",
                s.iter()
                    .map(|i| i.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            )
        })
        .collect::<Vec<_>>()
        .join(",")
}
