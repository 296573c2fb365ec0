//! Dataset model, loader and validation (PROTOCOL §1).
//!
//! Sans-IO: the loader takes text (or lines) and returns every session it could build
//! plus every problem it found, each naming the line, session id and JSON path.
//!
//! - [`load_dataset`] / [`load_lines`] / [`parse_session`]: format checks of PROTOCOL
//!   §1.4 (errors) and oddities worth a look (warnings);
//! - [`semantic_problems`] / [`semantic_problems_with`]: topology and consistency checks
//!   for curated suites;
//! - [`mixed_step_problems`]: the C8 check, fed by the graph engine;
//! - [`Stats`]: counts and the text tables of `validate` and `stats`;
//! - [`fingerprint`]: a stable 64-bit FNV-1a hash of the dataset text.

mod deps;
mod fingerprint;
mod load;
mod model;
mod parse;
mod problem;
mod semantic;
mod stats;
mod tools;

pub use fingerprint::{fingerprint, fingerprint_bytes, fingerprint_hex};
pub use load::{
    load_dataset, load_lines, parse_session, parse_session_at, session_from_value, LoadedDataset,
    ParsedLine, MAX_TASKS,
};
pub use model::{Field, Lang, Node, NodeKind, Session, Task, ASK_NAME, PREPARE_NAME};
pub use parse::parse_json;
pub use problem::{Problem, Severity};
pub use semantic::{mixed_step_problems, semantic_problems, semantic_problems_with, ArgChecker};
pub use stats::Stats;
pub use tools::{float_to_number, tool_name, tool_names, tool_parameters};
