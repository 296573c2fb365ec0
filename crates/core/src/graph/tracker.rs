//! The live matching state of one task (PROTOCOL §2.5 B/C, §2.6, §3.3): the alive paths,
//! represented by the node lists of the accepted tool steps.

use std::collections::BTreeMap;

use super::alive::{AliveQuery, Want};
use super::model::{bits, mask_to_vec, Graph};

/// The outcome of matching a tool-call reply at step s (§2.5 C).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolMatch {
    /// `s ≥ N`: action error `"current step: <s>, idx_list is None"`; nothing is logged.
    StepOutOfRange,
    /// No candidate has the predicted names: action error
    /// `"action name not in candidate_answer_function_list"`; log [`PathTracker::candidates`].
    NoMatch,
    /// The first candidate with the predicted names; the alive paths are now pruned to it.
    Matched {
        /// The matched gold nodes in path order (ascending). Use [`Graph::name_sorted`] for
        /// the order of gold observations and logged actions.
        nodes: Vec<usize>,
        /// C5: some alive path had at most `s` steps (the official code raises IndexError
        /// here); those paths were dropped.
        dropped_short_paths: bool,
    },
}

/// The outcome of matching a non-empty text reply at step s (§2.5 B).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextMatch {
    /// No candidate contains a pseudo node: action error
    /// `"action name not in candidate_answer_function_list"`; log [`PathTracker::candidates`].
    NoMatch {
        /// C6: `s ≥ N` (the official code raises KeyError); no candidates are logged.
        step_out_of_range: bool,
    },
    /// The deciding candidate contains an ask: accepted, the alive paths are not pruned.
    Ask {
        /// The ask node whose observation and `user_input` are used.
        node: usize,
        /// The whole deciding candidate, ascending.
        step: Vec<usize>,
        /// C7: the candidate has more than one node (the official code asserts).
        multi_node: bool,
    },
    /// The deciding candidate contains prepare (and no ask): the task ends, names correct.
    Prepare {
        /// The prepare node whose observation is the gold answer.
        node: usize,
        /// The whole deciding candidate, ascending.
        step: Vec<usize>,
        /// C7: the candidate has more than one node.
        multi_node: bool,
    },
}

/// Candidate steps logged on an action error (§2.6).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidates {
    /// Step s of each alive path that has one, in enumeration order, duplicates included;
    /// when `truncated`, at most `cap` distinct steps in first-seen order instead. Each step
    /// is ascending (path order).
    pub entries: Vec<Vec<usize>>,
    /// More than `cap` alive paths have a step s.
    pub truncated: bool,
}

/// The alive paths of one task, as the accepted tool steps `C = {step → node list}`.
#[derive(Debug, Clone)]
pub struct PathTracker<'g> {
    graph: &'g Graph,
    constraints: BTreeMap<usize, u64>,
}

impl<'g> PathTracker<'g> {
    /// All paths alive (the start of a task).
    pub fn new(graph: &'g Graph) -> Self {
        PathTracker {
            graph,
            constraints: BTreeMap::new(),
        }
    }

    /// Resumes tracking with previously accepted tool steps (as returned by
    /// [`PathTracker::accepted_steps`]), so a caller that owns the graph can keep the
    /// state without borrowing.
    pub fn with_accepted(graph: &'g Graph, accepted: &[(usize, Vec<usize>)]) -> Self {
        let constraints = crate::order::map_from(accepted.iter().map(|(s, nodes)| {
            (
                *s,
                nodes.iter().fold(0u64, |m, &i| m | super::model::bit(i)),
            )
        }));
        PathTracker { graph, constraints }
    }

    /// The graph being tracked.
    pub fn graph(&self) -> &'g Graph {
        self.graph
    }

    /// The accepted tool steps so far, by step index.
    pub fn accepted_steps(&self) -> Vec<(usize, Vec<usize>)> {
        self.constraints
            .iter()
            .map(|(&s, &m)| (s, mask_to_vec(m)))
            .collect()
    }

    /// Match a tool-call reply at step `step` by its predicted names (any order, arguments
    /// ignored): the first candidate whose sorted names equal the sorted predicted names.
    /// On success the alive paths are pruned to that candidate.
    pub fn match_tool_call<S: AsRef<str>>(
        &mut self,
        step: usize,
        predicted_names: &[S],
    ) -> ToolMatch {
        if step >= self.graph.len() {
            return ToolMatch::StepOutOfRange;
        }
        let ids: Option<Vec<u16>> = predicted_names
            .iter()
            .map(|n| self.graph.name_id(n.as_ref()))
            .collect();
        let Some(mut ids) = ids else {
            return ToolMatch::NoMatch;
        };
        ids.sort_unstable();
        let mut query = AliveQuery::new(self.graph, &self.constraints, 1);
        let Some(found) = query.find(step, Want::Names(&ids)) else {
            return ToolMatch::NoMatch;
        };
        let dropped_short_paths = query.short_path_exists(step);
        self.constraints.insert(step, found);
        ToolMatch::Matched {
            nodes: mask_to_vec(found),
            dropped_short_paths,
        }
    }

    /// Match a non-empty text reply at step `step`: the first candidate containing a pseudo
    /// node decides, ask before prepare. The alive paths are never pruned by text.
    pub fn match_text(&self, step: usize) -> TextMatch {
        if step >= self.graph.len() {
            return TextMatch::NoMatch {
                step_out_of_range: true,
            };
        }
        let mut query = AliveQuery::new(self.graph, &self.constraints, 1);
        let Some(found) = query.find(step, Want::Pseudo) else {
            return TextMatch::NoMatch {
                step_out_of_range: false,
            };
        };
        let multi_node = found.count_ones() > 1;
        let nodes = mask_to_vec(found);
        let ask = found & self.graph.ask_mask();
        if ask != 0 {
            return TextMatch::Ask {
                node: ask.trailing_zeros() as usize,
                step: nodes,
                multi_node,
            };
        }
        let prepare = found & self.graph.pseudo_mask();
        TextMatch::Prepare {
            node: bits(prepare).next().unwrap_or(0),
            step: nodes,
            multi_node,
        }
    }

    /// The candidates at step `step` for logging (§2.6): one entry per alive path with a step
    /// `step`, duplicates included, up to `cap` entries; beyond that, up to `cap` distinct
    /// entries in first-seen order with `truncated` set.
    pub fn candidates(&self, step: usize, cap: usize) -> Candidates {
        let limit = (cap as u64).saturating_add(1);
        let mut query = AliveQuery::new(self.graph, &self.constraints, limit);
        let walk = query.candidates(step, cap);
        let mut entries = Vec::new();
        for (mask, n) in walk.entries {
            let nodes = mask_to_vec(mask);
            for _ in 1..n {
                entries.push(nodes.clone());
            }
            entries.push(nodes);
        }
        Candidates {
            entries,
            truncated: walk.truncated,
        }
    }
}
