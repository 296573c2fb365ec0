//! wildtool's file formats, in one place, for both front doors: what a file is
//! ([`sniff`]), how a JSON Lines file is split into lines and what a damaged line costs
//! ([`lines`]), the size limits ([`limits`]), and the typed, versioned documents —
//! `report.json` ([`report_doc`]), the page's run export ([`run_export`]), the checkpoint
//! header ([`checkpoint`]), run metadata ([`meta`]) — plus the score-file builder
//! ([`score_file`]), the check that a result file belongs to the dataset
//! ([`belongs`]) and the conversion of uploads into result text ([`upload`]).
//!
//! Adapters never parse these formats themselves: the command line and the page call
//! these functions and show their messages.

pub mod belongs;
mod checked;
pub mod checkpoint;
pub mod limits;
pub mod lines;
pub mod meta;
pub mod report_doc;
pub mod run_export;
pub mod score_file;
pub mod sniff;
pub mod upload;

pub use belongs::{check_belongs, DatasetMismatch};
pub use checkpoint::{CheckpointFile, CheckpointHeader};
pub use lines::{LineError, LineSpan, LineSplitter};
pub use meta::RunMeta;
pub use report_doc::ReportDoc;
pub use run_export::RunExport;
pub use score_file::{ScoreFile, ScoreOrder};
pub use sniff::{sniff, FileKind};

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
    /// Not the kind of file expected (the message of [`FileKind::message`]).
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
