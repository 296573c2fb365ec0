//! Loading the scorer: the page's scoring runs in the lab module ([`crate::scoring`]), so a
//! run does not start, and no stored run, checkpoint or upload is scored, before the
//! module is loaded. A run's Start waits for it ("Loading the scorer…"); a module that
//! cannot be loaded is said as the reason, and nothing is shown as scored.

use crate::history::HistoryEntry;
use crate::msg::{Effect, LabPurpose};
use crate::state::{AppState, Now, Tone};

/// Where loading the scorer stands.
#[derive(Debug, Default)]
pub struct ScorerLoad {
    /// The lab module is being loaded to score.
    pub loading: bool,
    /// A run waiting for the scorer to start: its resume entry and stored lines.
    pub waiting_run: Option<(Option<HistoryEntry>, Vec<String>)>,
}

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

    /// Holds a run until the scorer is loaded; `None` when it is (the run starts now).
    pub(crate) fn run_waits_for_scorer(
        &mut self,
        resume: &Option<HistoryEntry>,
        stored: &[String],
    ) -> Option<Vec<Effect>> {
        if crate::scoring::ready() {
            return None;
        }
        self.scorer.waiting_run = Some((resume.clone(), stored.to_vec()));
        self.say(
            "Loading the scorer (the page's lab module) before the run starts…",
            Tone::Info,
        );
        Some(self.load_scorer())
    }

    /// The lab module loaded to score (or could not be loaded): a waiting run starts and
    /// waiting scoring continues, or both fail with the reason.
    pub fn scorer_loaded(&mut self, result: Result<(), String>, now: Now) -> Vec<Effect> {
        self.scorer.loading = false;
        let result = match result {
            Ok(()) if !crate::scoring::ready() => {
                Err("the module has no scorer (reload the page)".to_owned())
            }
            other => other,
        };
        let waiting = self.scorer.waiting_run.take();
        match result {
            Ok(()) => {
                let mut fx = self.resume_scoring(now);
                if let Some((resume, stored)) = waiting {
                    fx.extend(self.start_again(resume, stored, now));
                }
                fx
            }
            Err(e) => {
                let why = format!("The page's scorer (its lab module) could not be loaded: {e}");
                if waiting.is_some() {
                    self.say(format!("Cannot start the run. {why}."), Tone::Error);
                    self.focus = Some("status".into());
                } else {
                    self.say(format!("{why}."), Tone::Error);
                }
                self.rescore = None;
                let mut fx = Vec::new();
                if self.upload.state == crate::upload::UploadState::Scoring {
                    fx.extend(self.upload_fail(&why));
                }
                fx.extend(self.run_scoring_failed(&why));
                fx
            }
        }
    }
}
