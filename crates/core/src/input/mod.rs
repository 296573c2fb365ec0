//! Reading untrusted input, the ground floor every reader of a file, an upload or a reply
//! stands on: how a JSON Lines file is split into lines and what a damaged line costs
//! ([`lines`]), the size limits ([`limits`]), field-by-field reading of JSON documents
//! (`checked`), why a document could not be read ([`FormatError`]), and a damaged result
//! line's JSON error told in the file's terms ([`damage`]).

pub(crate) mod checked;
pub mod damage;
pub mod limits;
pub mod lines;

pub use lines::{LineError, LineSpan, LineSplitter};

use limits::LimitError;

/// Why a document could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    /// Not JSON at all.
    #[error("{what}: not valid JSON ({message})")]
    Json {
        /// The document ("run export", "report.json", …).
        what: &'static str,
        /// The parser's message.
        message: String,
    },
    /// The document is JSON but not an object.
    #[error("{what}: expected a JSON object, found {found}")]
    NotAnObject {
        /// The document.
        what: &'static str,
        /// What was found.
        found: &'static str,
    },
    /// A field is missing or has the wrong type.
    #[error("{what}: field \"{path}\" {problem}")]
    Field {
        /// The document.
        what: &'static str,
        /// The field's path (`meta.model`, `outcomes[3]`).
        path: String,
        /// What is wrong with it.
        problem: String,
    },
    /// A format version this build does not read.
    #[error("{what}: format version {found} is not supported (this build reads {supported})")]
    Version {
        /// The document.
        what: &'static str,
        /// The version found.
        found: String,
        /// The versions read.
        supported: &'static str,
    },
    /// Larger than a limit.
    #[error("{0}")]
    Limit(LimitError),
    /// A line that cannot be read where a whole file depends on it (a checkpoint header).
    #[error("{0}")]
    Line(LineError),
    /// Not the kind of file expected (the message of
    /// [`FileKind::message`](crate::formats::FileKind::message)).
    #[error("{0}")]
    Kind(String),
    /// Made on another dataset.
    #[error("this {what} was made on another dataset (fingerprint {found}); the loaded dataset's fingerprint is {expected}. Load the dataset it was made on.")]
    OtherDataset {
        /// The document.
        what: &'static str,
        /// The document's dataset fingerprint.
        found: String,
        /// The loaded dataset's fingerprint.
        expected: String,
    },
}
