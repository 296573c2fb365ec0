//! The Verify drop zone: the files of a bundle dropped (or chosen) one after another,
//! read whole, and handed with the loaded dataset's text to the lab module
//! (`verify_view`, the core's `provenance::verify`), whose verdicts the view shows.

pub mod update;
pub mod view;

/// Largest file read for verification.
pub const MAX_VERIFY_BYTES: u64 = 256 << 20;

/// The files dropped so far and the files being read.
#[derive(Debug, Default)]
pub struct VerifyFiles {
    /// `(name, text)` in the order dropped; a file dropped again replaces its namesake.
    pub files: Vec<(String, String)>,
    /// Files still being read.
    pub reading: usize,
}
