//! The Verify drop zone: the files of a bundle dropped (or chosen) one after another,
//! read whole, and handed with the loaded dataset's text to the lab module
//! (`verify_view`, the core's `provenance::verify`), whose verdicts the view shows.

pub mod view;

use serde::Serialize;

use crate::msg::{Effect, FilePurpose, FileRef, LabPurpose};
use crate::state::{AppState, Tone};

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

/// The lab call's input (the contract's `VerifyInput`).
#[derive(Serialize)]
struct VerifyCall<'a> {
    files: &'a [(String, String)],
    dataset: Option<&'a str>,
    lang: &'static str,
}

impl AppState {
    /// A file to verify was dropped (`None`: forget the files).
    pub fn verify_file(&mut self, file: Option<FileRef>) -> Vec<Effect> {
        let Some(file) = file else {
            self.verify = VerifyFiles::default();
            self.lab.clear(LabPurpose::Verify);
            return Vec::new();
        };
        if file.size > MAX_VERIFY_BYTES {
            self.say(
                format!(
                    "{} is larger than 256 MB: verify it with wildtool verify.",
                    file.name
                ),
                Tone::Error,
            );
            return vec![Effect::ReleaseFile(file.id)];
        }
        self.verify.reading += 1;
        let len = file.size;
        vec![Effect::ReadFile {
            file,
            offset: 0,
            len,
            purpose: FilePurpose::Verify,
        }]
    }

    /// A file to verify was read: verify the files so far.
    pub fn verify_read(&mut self, file: FileRef, bytes: Result<Vec<u8>, String>) -> Vec<Effect> {
        let mut fx = vec![Effect::ReleaseFile(file.id)];
        self.verify.reading = self.verify.reading.saturating_sub(1);
        let text = match bytes.map(String::from_utf8) {
            Ok(Ok(t)) => t,
            Ok(Err(_)) => {
                self.say(format!("{} is not UTF-8 text.", file.name), Tone::Error);
                return fx;
            }
            Err(e) => {
                self.say(format!("{} could not be read: {e}", file.name), Tone::Error);
                return fx;
            }
        };
        self.verify.files.retain(|(n, _)| *n != file.name);
        self.verify.files.push((file.name, text));
        let input = serde_json::to_string(&VerifyCall {
            files: &self.verify.files,
            dataset: self.dataset.map(|d| d.text.as_str()),
            lang: if self
                .dataset
                .is_some_and(|d| d.lang == wildtool_core::dataset::Lang::Zh)
            {
                "zh"
            } else {
                "en"
            },
        })
        .unwrap_or_default();
        fx.extend(self.lab_call(
            wildtool_contract::Call::VerifyView,
            input,
            LabPurpose::Verify,
        ));
        fx
    }
}
