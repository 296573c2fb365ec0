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

/// What wildtool does instead of crashing, per PROTOCOL §6 row (for reports).
pub fn fallback_of(code: &str) -> Option<&'static str> {
    Some(match code {
        "C1" => "step without inference_answer: treated as a name-error step (walk stops, name label error, step counts toward progress)",
        "C2" => "session result is an error string: the session counts and is wrong; each dataset task fails with 0 logged steps",
        "C3" => "list-valued schema type: the union of the listed types is allowed",
        "C4" => "gold tool not defined: verdict 'error: tool not defined'",
        "C5" => "alive path shorter than the current step at a tool match: dropped (it cannot match)",
        "C6" => "text reply beyond the gold graph: action error, no candidates",
        "C7" => "multi-node pseudo candidate: decided by its pseudo node (ask first)",
        "C8" => "history step mixing ask/prepare with tool nodes: pseudo messages in node order, then the step's calls and results",
        "C9" => "no complete gold path: every reply is an action error",
        "C10" => "tool call with a non-string name: 'parse tool_calls failed'",
        "C11" => "response without usage: null token counts",
        "C12" => "non-string function.arguments: 'error: args invalid json format'",
        "uncaught-parse-error" => "predicted arguments Python cannot parse without an uncaught error (huge int, deep nesting): 'error: args invalid json format'",
        _ => return None,
    })
}
