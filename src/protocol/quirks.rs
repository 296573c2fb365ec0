//! Conditions on which the official harness would crash (PROTOCOL §6, class C), recorded
//! by wildtool instead of crashing. They make an item "not official-comparable" and are
//! reported outside the parity files.

use serde::Serialize;

/// One official crash condition met while replaying or running a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "code")]
pub enum Quirk {
    /// C5: pruning met an alive path shorter than the current step (IndexError).
    C5ShortAlivePath {
        /// Step index.
        step: usize,
    },
    /// C6: a text reply at a step beyond the gold graph (KeyError).
    C6TextBeyondGraph {
        /// Step index.
        step: usize,
    },
    /// C7: the deciding pseudo candidate had more than one node (AssertionError).
    C7MultiNodePseudo {
        /// Step index.
        step: usize,
    },
    /// C8: a history step mixed ask/prepare with another node (AssertionError).
    C8MixedHistoryStep {
        /// Earlier task position.
        task: usize,
    },
    /// C9: a gold list has no complete path (cycle, self-dependency, empty list).
    C9NoPath {
        /// Task position.
        task: usize,
    },
    /// C10: a tool call whose name is not a string (TypeError while sorting).
    C10NullName {
        /// Step index.
        step: usize,
    },
}

impl Quirk {
    /// The PROTOCOL row id (`"C5"` …).
    pub fn code(&self) -> &'static str {
        match self {
            Quirk::C5ShortAlivePath { .. } => "C5",
            Quirk::C6TextBeyondGraph { .. } => "C6",
            Quirk::C7MultiNodePseudo { .. } => "C7",
            Quirk::C8MixedHistoryStep { .. } => "C8",
            Quirk::C9NoPath { .. } => "C9",
            Quirk::C10NullName { .. } => "C10",
        }
    }
}
