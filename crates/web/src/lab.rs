//! Calls into the lab module: the second, lazily loaded WebAssembly module (`crates/lab`)
//! that renders the page's heavy views (the comparison of runs …) as element trees.
//!
//! A call is an [`Effect::Lab`] naming one of the module's exports and its JSON input;
//! the glue loads the module the first time, runs the call and answers with
//! [`Msg::LabDone`] (the output) or [`Msg::LabFailed`] (the reason). Answers are kept by
//! [`LabPurpose`]; a view shows an answer as `Node::Raw`, spliced into the frame without
//! parsing it. Calls are answered in the order they were made, so the answer kept is the
//! one to the latest call: earlier answers that arrive while a later call is pending are
//! dropped.

use serde::Serialize;
use wildtool_core::compare::RunInput;
use wildtool_core::outcome::TaskOutcome;
use wildtool_core::share::TaskShape;

use crate::history::outcomes_key;
use crate::msg::{Effect, GetPurpose, LabPurpose};
use crate::route::View;
use crate::state::{AppState, Tone};

/// The lab module's call that renders the comparison view.
pub const COMPARE_VIEW: &str = "compare_view";

/// An answer of the lab module: its output, or why there is none.
pub type LabAnswer = Result<String, String>;

/// What the page knows of the lab module's calls.
#[derive(Debug, Default)]
pub struct LabState {
    answers: Vec<(LabPurpose, LabAnswer)>,
    pending: Vec<(LabPurpose, u32)>,
    /// The module answered at least once (it is loaded).
    pub loaded: bool,
    /// Outcomes of history runs read for the comparison view (by history id).
    outcomes: Vec<(String, Vec<TaskOutcome>)>,
    /// History ids whose outcomes were asked for.
    asked: Vec<String>,
    /// What the last comparison call was made from (selection and dataset), so an
    /// unchanged selection is not computed again.
    compare_key: Option<String>,
}

impl LabState {
    /// The latest answer for `purpose`.
    pub fn answer(&self, purpose: LabPurpose) -> Option<&LabAnswer> {
        self.answers
            .iter()
            .find(|(p, _)| *p == purpose)
            .map(|(_, a)| a)
    }

    /// True while a call for `purpose` is unanswered.
    pub fn busy(&self, purpose: LabPurpose) -> bool {
        self.pending.iter().any(|(p, n)| *p == purpose && *n > 0)
    }

    /// Forgets the answer for `purpose`.
    pub fn clear(&mut self, purpose: LabPurpose) {
        self.answers.retain(|(p, _)| *p != purpose);
    }

    /// The stored outcomes of history run `id`, once read.
    pub fn outcomes(&self, id: &str) -> Option<&[TaskOutcome]> {
        self.outcomes
            .iter()
            .find(|(k, _)| k == id)
            .map(|(_, o)| o.as_slice())
    }

    fn pending_mut(&mut self, purpose: LabPurpose) -> &mut u32 {
        if let Some(i) = self.pending.iter().position(|(p, _)| *p == purpose) {
            &mut self.pending[i].1
        } else {
            self.pending.push((purpose, 0));
            let last = self.pending.len() - 1;
            &mut self.pending[last].1
        }
    }
}

/// The comparison call's input (read by the lab module as its `CompareInput`).
#[derive(Serialize)]
struct CompareCall<'a> {
    fingerprint: u64,
    shapes: &'a [TaskShape],
    runs: Vec<RunInput>,
}

/// Why the comparison view shows no comparison yet (before any call is made).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompareWait {
    /// No dataset is loaded.
    NoDataset,
    /// Fewer than two runs are chosen.
    TooFew(usize),
    /// Outcomes of chosen runs are still being read.
    Reading,
    /// A chosen run's outcomes are not stored in this browser (its label).
    Missing(String),
}

impl AppState {
    /// Asks the lab module for `call` on `input`; the answer is kept under `purpose`.
    pub fn lab_call(
        &mut self,
        call: &'static str,
        input: String,
        purpose: LabPurpose,
    ) -> Vec<Effect> {
        *self.lab.pending_mut(purpose) += 1;
        vec![Effect::Lab {
            call,
            input,
            purpose,
        }]
    }

    /// The lab module answered (or failed) a call for `purpose`.
    pub fn lab_answered(&mut self, purpose: LabPurpose, answer: LabAnswer) -> Vec<Effect> {
        let left = self.lab.pending_mut(purpose);
        *left = left.saturating_sub(1);
        let latest = *left == 0;
        match &answer {
            Ok(_) => self.lab.loaded = true,
            Err(e) if latest => self.say(e.clone(), Tone::Error),
            Err(_) => {}
        }
        if latest {
            self.lab.clear(purpose);
            self.lab.answers.push((purpose, answer));
        }
        Vec::new()
    }

    /// A history run's outcomes arrived for the comparison view.
    pub fn lab_outcomes_arrived(&mut self, id: &str, value: Option<String>) -> Vec<Effect> {
        let outcomes: Option<Vec<TaskOutcome>> =
            value.as_deref().and_then(|v| serde_json::from_str(v).ok());
        self.lab.outcomes.retain(|(k, _)| k != id);
        if let Some(o) = outcomes {
            self.lab.outcomes.push((id.to_owned(), o));
        }
        Vec::new()
    }

    /// Ticks or unticks history run `id` for the comparison (the history's comparison
    /// set, which the dashboard's chart uses too).
    pub fn compare_pick(&mut self, id: &str, on: bool) -> Vec<Effect> {
        if on {
            self.compare_add(id)
        } else {
            self.compare_remove(id)
        }
    }

    /// The history runs chosen for the comparison, in order.
    pub fn compare_chosen(&self) -> Vec<&crate::history::HistoryEntry> {
        self.history
            .compare
            .iter()
            .filter_map(|id| self.history.get(id))
            .collect()
    }

    /// Why no comparison can be asked for yet, if so.
    pub fn compare_wait(&self) -> Option<CompareWait> {
        let chosen = self.compare_chosen();
        if chosen.len() < 2 {
            return Some(CompareWait::TooFew(chosen.len()));
        }
        if self.dataset.is_none() {
            return Some(CompareWait::NoDataset);
        }
        for e in &chosen {
            if self.lab.outcomes(&e.id).is_none() {
                return Some(if self.lab.asked.contains(&e.id) {
                    CompareWait::Missing(e.label.clone())
                } else {
                    CompareWait::Reading
                });
            }
        }
        None
    }

    /// Work the comparison view needs after any message: read the chosen runs'
    /// outcomes, then ask the lab module for the comparison when the selection (or the
    /// dataset) changed.
    pub fn lab_refresh(&mut self) -> Vec<Effect> {
        if self.route.view != View::Compare {
            return Vec::new();
        }
        let mut fx = Vec::new();
        let unread: Vec<String> = self
            .compare_chosen()
            .iter()
            .filter(|e| self.lab.outcomes(&e.id).is_none() && !self.lab.asked.contains(&e.id))
            .map(|e| e.id.clone())
            .collect();
        for id in unread {
            self.lab.asked.push(id.clone());
            fx.push(Effect::KvGet(
                outcomes_key(&id),
                GetPurpose::LabOutcomes(id),
            ));
        }
        if !fx.is_empty() || self.compare_wait().is_some() {
            return fx;
        }
        let Some(dataset) = self.dataset else {
            return fx;
        };
        let chosen = self.compare_chosen();
        let key = format!(
            "{}|{}",
            dataset.fingerprint,
            chosen
                .iter()
                .map(|e| format!("{}={}", e.id, e.label))
                .collect::<Vec<_>>()
                .join("|")
        );
        if self.lab.compare_key.as_deref() == Some(key.as_str()) {
            return fx;
        }
        let runs = chosen
            .iter()
            .map(|e| RunInput {
                label: e.label.clone(),
                fingerprint: u64::from_str_radix(&e.dataset_fingerprint, 16).unwrap_or(0),
                trials: vec![self.lab.outcomes(&e.id).unwrap_or_default().to_vec()],
            })
            .collect();
        let input = serde_json::to_string(&CompareCall {
            fingerprint: dataset.fingerprint_u64(),
            shapes: &dataset.shapes,
            runs,
        })
        .unwrap_or_default();
        self.lab.compare_key = Some(key);
        fx.extend(self.lab_call(COMPARE_VIEW, input, LabPurpose::Compare));
        fx
    }
}
