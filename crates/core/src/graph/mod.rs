//! Tool-call graph engine: lazy path semantics of the official enumeration (PROTOCOL §3).
//!
//! The official harness materialises every path of a task's gold graph (an ordered Bell
//! number of them for independent calls). This module reproduces its decisions without doing
//! so: [`Graph`] gives `min_length` and the first optimal path, and [`PathTracker`] replays
//! the step loop's matching (tool calls, text replies, candidate logging) over the alive
//! paths, represented only by the node lists of the accepted tool steps.
//!
//! Everything is sans-IO and independent of JSON: nodes are `(name, dependency_list)` pairs.
//!
//! Why it is cheap:
//! - Taking every ready node at once is always an allowed move (it is the first subset with
//!   its name key, and it starts with any group it meets), so the remaining distance from a
//!   done set is exactly the longest remaining dependency chain. `min_length` is the longest
//!   chain, and the first optimal path takes, at each state, the first move (in enumeration
//!   order) that keeps every ready node of maximal chain height.
//! - Moves are generated lazily in `combinations` order by a backtracking generator that
//!   applies the name dedupe and the group filter as local tests (see `moves`), filtered by
//!   what the caller needs (an exact step, a name multiset, a pseudo node).
//! - Searches over alive paths are DFS with a failed-state memo; candidate logging counts
//!   complete paths per state (memoised, saturating at the cap) instead of enumerating them.
//!
//! When some name contains `|`, joined keys can collide across subset sizes; the generator
//! then falls back to the literal string-key enumeration (exponential in the ready-set size,
//! exact).

mod alive;
mod model;
mod moves;
mod tracker;

pub use model::{Graph, GraphError, NodeKind, ASK_NAME, PREPARE_NAME};
pub use tracker::{Candidates, PathTracker, TextMatch, ToolMatch};
