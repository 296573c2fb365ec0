//! The official inference protocol as a sans-IO task state machine (PROTOCOL §2).

mod env_machine;
mod history;
mod ids;
mod machine;
mod paths;
mod quirks;
mod reply;
mod validate;

pub use env_machine::{
    calls_value, conversation, request_bytes, start_own, trace_reply, AnswerMismatch, EnvMachine,
    Need, OwnHistoryError, ToolCall,
};
pub use history::{render_task_history, system_message, text_message, tool_message};
pub use ids::{IdSource, SeededIds};
pub use machine::{
    MachineError, StepDecision, StepKind, TaskMachine, TaskVerdict, DEFAULT_CANDIDATE_CAP,
    REASON_EMPTY, REASON_NO_MATCH,
};
pub use paths::{Paths, PathsError, TextMatch};
pub use quirks::{fallback_of, Quirk};
pub use reply::Reply;
pub use validate::{history_problems, load_checked, semantic_problems_checked};
