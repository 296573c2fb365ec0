//! Adapter between the task state machine and the graph engine: one task's gold graph and
//! the matched tool steps that define its alive paths (PROTOCOL §3.3).

use crate::dataset::Task;
use crate::graph::{Graph, GraphError, PathTracker, TextMatch as GraphText, ToolMatch};

/// Why a task's gold graph cannot be used.
pub type PathsError = GraphError;

/// The outcome of a text match: the pseudo node that decides, and whether the deciding
/// candidate had more than one node (C7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextMatch {
    /// The ask or prepare node index.
    pub pseudo: usize,
    /// The deciding candidate had more than one node (C7).
    pub multi_node: bool,
}

/// A task's graph and the state of its alive paths (the accepted tool steps).
#[derive(Debug)]
pub struct Paths {
    graph: Graph,
    accepted: Vec<(usize, Vec<usize>)>,
}

impl Paths {
    /// Builds the graph of a task's gold nodes.
    pub fn new(task: &Task) -> Result<Self, PathsError> {
        let nodes: Vec<(&str, Vec<usize>)> = task
            .nodes
            .iter()
            .map(|n| (n.name.as_str(), n.dependencies.clone()))
            .collect();
        Ok(Self {
            graph: Graph::new(&nodes)?,
            accepted: Vec::new(),
        })
    }

    fn tracker(&self) -> PathTracker<'_> {
        PathTracker::with_accepted(&self.graph, &self.accepted)
    }

    /// The fewest steps on any path.
    pub fn min_length(&self) -> usize {
        self.graph.min_length()
    }

    /// The first optimal path (renders history).
    pub fn first_optimal_path(&self) -> Vec<Vec<usize>> {
        self.graph.first_optimal_path()
    }

    /// Matches a tool-call step; returns the matched nodes and the C5 flag.
    pub fn match_tool_call(&mut self, step: usize, names: &[&str]) -> Option<(Vec<usize>, bool)> {
        let mut tracker = self.tracker();
        match tracker.match_tool_call(step, names) {
            ToolMatch::Matched {
                nodes,
                dropped_short_paths,
            } => {
                self.accepted = tracker.accepted_steps();
                Some((nodes, dropped_short_paths))
            }
            ToolMatch::StepOutOfRange | ToolMatch::NoMatch => None,
        }
    }

    /// Matches a text step.
    pub fn match_text(&self, step: usize) -> Option<TextMatch> {
        match self.tracker().match_text(step) {
            GraphText::Ask {
                node, multi_node, ..
            }
            | GraphText::Prepare {
                node, multi_node, ..
            } => Some(TextMatch {
                pseudo: node,
                multi_node,
            }),
            GraphText::NoMatch { .. } => None,
        }
    }

    /// Candidates at `step` (§2.6), capped; the flag is true when truncated.
    pub fn candidates(&self, step: usize, cap: usize) -> (Vec<Vec<usize>>, bool) {
        let c = self.tracker().candidates(step, cap);
        (c.entries, c.truncated)
    }
}
