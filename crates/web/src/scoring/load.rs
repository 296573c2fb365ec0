//! Loading the scorer: the page's scoring runs in the lab module ([`crate::scoring`]), so a
//! run does not start, and no stored run, checkpoint or upload is scored, before the
//! module is loaded. A run's Start waits for it ("Loading the scorer…", the run feature);
//! a module that cannot be loaded is said as the reason, and nothing is shown as scored
//! (the state's `scorer_loaded`).

use crate::msg::{Effect, LabPurpose};
use crate::state::AppState;

impl AppState {
    /// Loads the lab module to score (once at a time).
    pub(crate) fn load_scorer(&mut self) -> Vec<Effect> {
        if self.scorer.loading {
            return Vec::new();
        }
        self.scorer.loading = true;
        vec![Effect::Lab {
            call: wildtool_contract::Call::Score,
            input: r#"{"op": "close", "job": 0}"#.to_owned(),
            purpose: LabPurpose::Scorer,
        }]
    }
}
