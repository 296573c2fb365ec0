//! Searches over the alive paths (PROTOCOL §3.3) without materialising them: the alive paths
//! are the complete paths that agree with the matched tool steps `C`, in DFS order.

use std::collections::BTreeMap;
use std::ops::ControlFlow;

use rustc_hash::{FxHashMap, FxHashSet};

use super::model::Graph;
use super::moves::{Filter, Move, MoveSource};

/// What the step at the searched index must satisfy.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Want<'a> {
    /// Sorted name ids equal to this multiset (tool match).
    Names(&'a [u16]),
    /// Contains a pseudo node (text reply).
    Pseudo,
}

impl Want<'_> {
    /// A necessary condition for some later step to satisfy the want: the nodes not yet done
    /// still carry the wanted names (or a pseudo node).
    fn available(self, g: &Graph, done: u64) -> bool {
        match self {
            Want::Names(names) => names.chunk_by(|a, b| a == b).all(|run| {
                let id = run.first().copied().unwrap_or(u16::MAX);
                (g.name_mask(id) & !done).count_ones() as usize >= run.len()
            }),
            Want::Pseudo => g.pseudo_mask() & !done != 0,
        }
    }

    fn accepts(self, g: &Graph, step: u64) -> bool {
        match self {
            Want::Names(names) => g.sorted_name_ids(step) == names,
            Want::Pseudo => step & g.pseudo_mask() != 0,
        }
    }
}

/// One query over the alive paths; memos live as long as the query.
pub(crate) struct AliveQuery<'a> {
    g: &'a Graph,
    constraints: &'a BTreeMap<usize, u64>,
    max_key: Option<usize>,
    /// Counts saturate at this value.
    limit: u64,
    counts: FxHashMap<(u64, usize), u64>,
    failed: FxHashSet<(u64, usize)>,
}

/// The outcome of a bounded candidate walk.
pub(crate) struct CandidateWalk {
    /// Step masks with their multiplicities, in DFS order (when not truncated), or distinct
    /// step masks in first-seen order (when truncated).
    pub entries: Vec<(u64, u64)>,
    /// More than `cap` alive paths have a step s.
    pub truncated: bool,
}

impl<'a> AliveQuery<'a> {
    pub fn new(g: &'a Graph, constraints: &'a BTreeMap<usize, u64>, limit: u64) -> Self {
        AliveQuery {
            g,
            constraints,
            max_key: constraints.keys().next_back().copied(),
            limit,
            counts: FxHashMap::default(),
            failed: FxHashSet::default(),
        }
    }

    fn remaining(&self, done: u64) -> usize {
        (self.g.full() & !done).count_ones() as usize
    }

    fn filter_at(&self, j: usize, otherwise: Filter<'a>) -> Filter<'a> {
        match self.constraints.get(&j) {
            Some(&c) => Filter::Exact(c),
            None => otherwise,
        }
    }

    /// Whether every step of `mv`, placed at index `j`, agrees with the constraints.
    fn agrees(&self, j: usize, mv: &Move) -> bool {
        mv.steps()
            .enumerate()
            .all(|(t, step)| self.constraints.get(&(j + t)).is_none_or(|&c| c == step))
    }

    /// The step of `mv` at index `s`, when the move placed at `j` covers it.
    fn step_at(j: usize, mv: &Move, s: usize) -> Option<u64> {
        s.checked_sub(j).and_then(|t| mv.steps().nth(t))
    }

    /// Alive complete paths from state `(done, j)`, saturating at the limit.
    pub fn count(&mut self, done: u64, j: usize) -> u64 {
        let free = self.max_key.is_none_or(|k| k < j);
        if done == self.g.full() {
            return u64::from(free);
        }
        let key = (done, if free { usize::MAX } else { j });
        if let Some(&n) = self.counts.get(&key) {
            return n;
        }
        let g = self.g;
        let source = MoveSource::new(g, done);
        let mut total = 0u64;
        let _ = source.for_each::<()>(g, self.filter_at(j, Filter::All), |mv| {
            if self.agrees(j, &mv) {
                total = total.saturating_add(self.count(done | mv.nodes, j + mv.step_count()));
                if total >= self.limit {
                    return ControlFlow::Break(());
                }
            }
            ControlFlow::Continue(())
        });
        let total = total.min(self.limit);
        self.counts.insert(key, total);
        total
    }

    fn completes(&mut self, done: u64, j: usize) -> bool {
        self.max_key.is_none_or(|k| k < j) || self.count(done, j) > 0
    }

    /// The step s of the first alive path (DFS order) whose step s satisfies `want`.
    pub fn find(&mut self, s: usize, want: Want<'_>) -> Option<u64> {
        self.find_from(0, 0, s, want)
    }

    fn find_from(&mut self, done: u64, j: usize, s: usize, want: Want<'_>) -> Option<u64> {
        if done == self.g.full()
            || j > s
            || j + self.remaining(done) <= s
            || !want.available(self.g, done)
            || self.failed.contains(&(done, j))
        {
            return None;
        }
        let g = self.g;
        if j == s && !self.constraints.contains_key(&j) && !want.available(g, !g.ready(done)) {
            // The step at s is a subset of the ready set, which lacks the wanted names.
            self.failed.insert((done, j));
            return None;
        }
        let filter = match self.constraints.get(&j) {
            Some(&c) => Filter::Exact(c),
            None if j == s => match want {
                Want::Names(names) => Filter::Names(names),
                Want::Pseudo => Filter::Pseudo,
            },
            None => Filter::All,
        };
        let source = MoveSource::new(g, done);
        let flow = source.for_each(g, filter, |mv| {
            if !self.agrees(j, &mv) {
                return ControlFlow::Continue(());
            }
            let next = j + mv.step_count();
            if let Some(step) = Self::step_at(j, &mv, s) {
                if want.accepts(g, step) && self.completes(done | mv.nodes, next) {
                    return ControlFlow::Break(step);
                }
                return ControlFlow::Continue(());
            }
            match self.find_from(done | mv.nodes, next, s, want) {
                Some(step) => ControlFlow::Break(step),
                None => ControlFlow::Continue(()),
            }
        });
        match flow {
            ControlFlow::Break(step) => Some(step),
            ControlFlow::Continue(()) => {
                self.failed.insert((done, j));
                None
            }
        }
    }

    /// Whether some alive path has at most `s` steps (the official IndexError of C5).
    pub fn short_path_exists(&mut self, s: usize) -> bool {
        self.failed.clear();
        self.short_from(0, 0, s)
    }

    fn short_from(&mut self, done: u64, j: usize, s: usize) -> bool {
        if done == self.g.full() {
            return j <= s && self.max_key.is_none_or(|k| k < j);
        }
        if j + self.g.remaining_height(done) as usize > s || self.failed.contains(&(done, j)) {
            return false;
        }
        let g = self.g;
        let source = MoveSource::new(g, done);
        let flow = source.for_each(g, self.filter_at(j, Filter::All), |mv| {
            if self.agrees(j, &mv) && self.short_from(done | mv.nodes, j + mv.step_count(), s) {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        if flow.is_break() {
            return true;
        }
        self.failed.insert((done, j));
        false
    }

    /// Step s of every alive path that has one, in DFS order with duplicates, as long as there
    /// are at most `cap`; otherwise up to `cap` distinct steps in first-seen order. The query
    /// must have been built with `limit > cap`.
    pub fn candidates(&mut self, s: usize, cap: usize) -> CandidateWalk {
        let mut entries = Vec::new();
        let mut total = 0u64;
        self.failed.clear();
        let counted = self.walk_counts(0, 0, s, cap as u64, &mut entries, &mut total);
        if counted.is_continue() {
            return CandidateWalk {
                entries,
                truncated: false,
            };
        }
        self.failed.clear();
        let mut seen = FxHashSet::default();
        let mut distinct = Vec::new();
        let _ = self.walk_distinct(0, 0, s, cap, &mut seen, &mut distinct);
        CandidateWalk {
            entries: distinct.into_iter().map(|e| (e, 1)).collect(),
            truncated: true,
        }
    }

    fn walk_counts(
        &mut self,
        done: u64,
        j: usize,
        s: usize,
        cap: u64,
        out: &mut Vec<(u64, u64)>,
        total: &mut u64,
    ) -> ControlFlow<()> {
        if done == self.g.full()
            || j + self.remaining(done) <= s
            || self.failed.contains(&(done, j))
        {
            return ControlFlow::Continue(());
        }
        let before = *total;
        let g = self.g;
        let source = MoveSource::new(g, done);
        source.for_each(g, self.filter_at(j, Filter::All), |mv| {
            if !self.agrees(j, &mv) {
                return ControlFlow::Continue(());
            }
            let next = j + mv.step_count();
            if let Some(step) = Self::step_at(j, &mv, s) {
                let n = self.count(done | mv.nodes, next);
                if n > 0 {
                    out.push((step, n));
                    *total = total.saturating_add(n);
                    if *total > cap {
                        return ControlFlow::Break(());
                    }
                }
                return ControlFlow::Continue(());
            }
            self.walk_counts(done | mv.nodes, next, s, cap, out, total)
        })?;
        if *total == before {
            self.failed.insert((done, j));
        }
        ControlFlow::Continue(())
    }

    fn walk_distinct(
        &mut self,
        done: u64,
        j: usize,
        s: usize,
        cap: usize,
        seen: &mut FxHashSet<u64>,
        out: &mut Vec<u64>,
    ) -> ControlFlow<()> {
        if out.len() >= cap {
            return ControlFlow::Break(());
        }
        if done == self.g.full() || j + self.remaining(done) <= s || !self.failed.insert((done, j))
        {
            return ControlFlow::Continue(());
        }
        let g = self.g;
        let source = MoveSource::new(g, done);
        source.for_each(g, self.filter_at(j, Filter::All), |mv| {
            if !self.agrees(j, &mv) {
                return ControlFlow::Continue(());
            }
            let next = j + mv.step_count();
            if let Some(step) = Self::step_at(j, &mv, s) {
                if !seen.contains(&step) && self.completes(done | mv.nodes, next) {
                    seen.insert(step);
                    out.push(step);
                    if out.len() >= cap {
                        return ControlFlow::Break(());
                    }
                }
                return ControlFlow::Continue(());
            }
            self.walk_distinct(done | mv.nodes, next, s, cap, seen, out)
        })
    }
}
