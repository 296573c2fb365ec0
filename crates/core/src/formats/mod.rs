//! wildtool's file formats, in one place, for both front doors: what a file is
//! ([`sniff`]), and the typed, versioned documents — `report.json` ([`report_doc`]), the
//! page's run export ([`run_export`]), run metadata ([`meta`]) — plus the score-file
//! builder ([`score_file`]), the check that a result file belongs to the dataset
//! ([`belongs`]) and the conversion of uploads into result text ([`upload`]). The line
//! rule, the limits and [`FormatError`] are on the ground floor ([`crate::input`]); the
//! checkpoint format is the runner's ([`crate::runner::checkpoint`]).
//!
//! Adapters never parse these formats themselves: the command line and the page call
//! these functions and show their messages.

pub mod belongs;
pub mod meta;
pub mod report_doc;
pub mod run_export;
pub mod score_file;
pub mod sniff;
pub mod upload;

pub use belongs::{check_belongs, DatasetMismatch};
pub use meta::RunMeta;
pub use report_doc::ReportDoc;
pub use run_export::RunExport;
pub use score_file::{ScoreFile, ScoreOrder};
pub use sniff::{sniff, FileKind};

pub use crate::input::FormatError;
