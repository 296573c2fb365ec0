//! Offline scoring: a file (chosen, dropped, or fetched with `results=`) is identified
//! first, then an official result file is read in 1 MB slices and scored line by line
//! (the page stays responsive with 200 MB files), and a checkpoint or a run export is
//! assembled into result lines and scored the same way. Anything else is refused with a
//! message that says what the file is.

mod offload;
mod update;
pub mod view;

use crate::data::Dataset;
use crate::msg::FileRef;
use crate::scoring::ScoreJob;
use crate::vocab::Tone;
use wildtool_core::formats::upload::session_slots;
use wildtool_core::formats::FileKind;
use wildtool_core::input::LineSplitter;
use wildtool_core::runner::checkpoint::{assemble, recover};

/// Bytes read per slice of a streamed file.
pub const SLICE: u64 = 1 << 20;
/// Result text kept for traces after a reload (larger uploads keep their score lines in
/// memory only).
pub const KEEP_TEXT: u64 = 16 << 20;
/// Largest checkpoint or run export read whole.
pub const MAX_WHOLE: u64 = 256 << 20;
/// Result text scored per slice before yielding to the browser.
const SLICE_TEXT: usize = 256 << 10;

/// Where offline scoring stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UploadState {
    /// Nothing yet.
    #[default]
    Idle,
    /// Reading and scoring.
    Scoring,
    /// Scored and shown.
    Done,
    /// Refused or failed.
    Error,
}

impl UploadState {
    /// Automation name (`offline` hook).
    pub fn name(self) -> Option<&'static str> {
        match self {
            UploadState::Idle => None,
            UploadState::Scoring => Some("scoring"),
            UploadState::Done => Some("done"),
            UploadState::Error => Some("error"),
        }
    }
}

/// Offline scoring.
#[derive(Default)]
pub struct Upload {
    /// State.
    pub state: UploadState,
    /// The file's name.
    pub name: String,
    /// What it is.
    pub kind: Option<FileKind>,
    /// Bytes read.
    pub read: u64,
    /// Bytes in all.
    pub total: u64,
    /// The message shown under the drop zone.
    pub message: Option<(String, Tone)>,
    /// Lands in the history rather than on the dashboard.
    pub import: bool,
    /// Came from `results=`.
    pub automation: bool,
    /// Uploads finished (scored or refused) since the page opened.
    pub finished: u32,
    pub(crate) file: Option<FileRef>,
    job: Option<ScoreJob>,
    splitter: LineSplitter,
    keep: Option<String>,
    whole: Vec<u8>,
    /// A checkpoint or run export read whole, waiting for the lab module to read it.
    waiting_whole: Option<Vec<u8>>,
    reading: bool,
    eof: bool,
    model: Option<String>,
    label: Option<String>,
    records: Option<Vec<String>>,
    resumable: bool,
}

/// Assembles checkpoint lines into result text; returns the text and the number of
/// tasks still missing.
pub fn assembled(
    dataset: Dataset,
    model: &str,
    lines: &[String],
) -> Result<(String, usize), String> {
    let done = recover(lines, model, &dataset.fingerprint).map_err(|e| e.to_string())?;
    let a = assemble(model, &session_slots(&dataset.dataset), &done);
    Ok((a.text, a.missing.len()))
}
