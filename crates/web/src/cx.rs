//! What a feature's handler sees beyond its own state: the loaded dataset, the page's
//! status line and the lab calls (each call counted, so its answer is awaited). A feature
//! written against it is an `update(&mut its state, message, &mut Cx) -> Vec<Effect>`
//! and can be tested on its own state; the state builds the context from its members.

use wildtool_contract::Call;

use crate::data::Dataset;
use crate::lab::LabState;
use crate::msg::{Effect, LabPurpose};
use crate::vocab::{Status, Tone};

/// The narrow context of a feature's handler.
pub struct Cx<'a> {
    /// The loaded dataset.
    pub dataset: Option<Dataset>,
    /// The page-wide status line.
    pub status: &'a mut Option<Status>,
    /// Calls into the lab module and their answers.
    pub lab: &'a mut LabState,
}

impl Cx<'_> {
    /// Sets the status line.
    pub fn say(&mut self, text: impl Into<String>, tone: Tone) {
        *self.status = Some(Status {
            text: text.into(),
            tone,
        });
    }

    /// Asks the lab module for `call` on `input`; the answer is kept under `purpose`.
    pub fn lab_call(&mut self, call: Call, input: String, purpose: LabPurpose) -> Vec<Effect> {
        self.lab.call(call, input, purpose)
    }
}
