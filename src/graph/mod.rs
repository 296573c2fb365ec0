//! Tool-call graph engine: lazy path semantics of the official enumeration (PROTOCOL §3).
//!
//! The official harness materialises every path of a task's gold graph (an ordered Bell
//! number of them for independent calls). This module reproduces its decisions without doing
//! so: [`Graph`] gives `min_length` and the first optimal path, and [`PathTracker`] replays
//! the step loop's matching (tool calls, text replies, candidate logging) over the alive
//! paths, represented only by the node lists of the accepted tool steps.
//!
//! Everything is sans-IO and independent of JSON: nodes are `(name, dependency_list)` pairs.

mod alive;
mod model;
mod moves;
mod tracker;

pub use model::{Graph, GraphError, NodeKind, ASK_NAME, PREPARE_NAME};
pub use tracker::{Candidates, PathTracker, TextMatch, ToolMatch};
