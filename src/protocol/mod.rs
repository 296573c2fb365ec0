//! The official inference protocol as a sans-IO task state machine (PROTOCOL §2).

#[cfg(feature = "wip")]
mod history;
mod ids;
#[cfg(feature = "wip")]
mod machine;
#[cfg(feature = "wip")]
mod paths;
mod quirks;
mod reply;

#[cfg(feature = "wip")]
pub use history::{render_task_history, system_message, text_message, tool_message};
pub use ids::{IdSource, SeededIds};
#[cfg(feature = "wip")]
pub use machine::{
    MachineError, StepDecision, StepKind, TaskMachine, TaskVerdict, DEFAULT_CANDIDATE_CAP, REASON_EMPTY,
    REASON_NO_MATCH,
};
#[cfg(feature = "wip")]
pub use paths::{Paths, PathsError, TextMatch};
pub use quirks::Quirk;
pub use reply::Reply;
