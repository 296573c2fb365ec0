//! Calls into the lab module: the second, lazily loaded WebAssembly module (`crates/lab`)
//! that renders the page's heavy views (the comparison of runs …) as element trees.
//!
//! A call is an [`Effect::Lab`] naming one of the module's exports and its JSON input;
//! the glue loads the module the first time, runs the call and answers with
//! [`Msg::LabDone`](crate::msg::Msg::LabDone) (the output) or
//! [`Msg::LabFailed`](crate::msg::Msg::LabFailed) (the reason). Answers are kept by
//! [`LabPurpose`]; a view shows an answer as `Node::Raw`, spliced into the frame without
//! parsing it. Calls are answered in the order they were made, so the answer kept is the
//! one to the latest call: earlier answers that arrive while a later call is pending are
//! dropped.
//!
//! The comparison view compares either runs of the history (the comparison set) or the
//! two runs a comparison link (`#v2.…`) carries; either way the lab module computes the
//! numbers with the core's `compare_runs`, the code behind `wildtool compare`.

mod update;

use serde::Serialize;
use wildtool_core::compare::RunInput;
use wildtool_core::outcome::TaskOutcome;
use wildtool_core::share::TaskShape;

use crate::msg::{Effect, LabPurpose};

pub use wildtool_contract::consts::{BOARD_KEYS, DIFF_FILTERS, DIFF_ROWS};
use wildtool_contract::Call;
const COMPARE_VIEW: Call = Call::CompareView;
const COMPARE_LINK_VIEW: Call = Call::CompareLinkView;
const TRIALS_VIEW: Call = Call::TrialsView;
const LEADERBOARD_VIEW: Call = Call::LeaderboardView;

/// Key of a run's per-trial outcomes (JSON array of outcome lists, trial 1 first), kept
/// for runs with repeated trials.
pub fn trials_key(id: &str) -> String {
    format!("trials/{id}")
}

/// An answer of the lab module: its output, or why there is none.
pub type LabAnswer = Result<String, String>;

/// How one pair's per-task table is shown (the lab module's `DiffView`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DiffChoice {
    /// One of [`DIFF_FILTERS`].
    pub filter: &'static str,
    /// Rows at most.
    pub limit: usize,
}

impl Default for DiffChoice {
    fn default() -> Self {
        DiffChoice {
            filter: DIFF_FILTERS[0],
            limit: DIFF_ROWS,
        }
    }
}

/// What the page knows of the lab module's calls.
#[derive(Debug)]
pub struct LabState {
    answers: Vec<(LabPurpose, LabAnswer)>,
    pending: Vec<(LabPurpose, u32)>,
    /// The module answered at least once (it is loaded).
    pub loaded: bool,
    /// Outcomes of history runs read for the comparison view (by history id).
    outcomes: Vec<(String, Vec<TaskOutcome>)>,
    /// History ids whose outcomes were asked for.
    asked: Vec<String>,
    /// The comparison link shown in the comparison view (instead of history runs).
    pub compare_link: Option<String>,
    /// Per pair, how its per-task table is shown.
    pub diff: Vec<DiffChoice>,
    /// A comparison link is being copied.
    pub copying: bool,
    /// What the comparison shown was computed from (the runs), and how it was asked for
    /// (with the view's options), so nothing unchanged is computed again.
    compare_runs_key: Option<String>,
    compare_key: Option<String>,
    /// Every trial's outcomes of runs with repeated trials (by history id).
    trials: Vec<(String, Vec<Vec<TaskOutcome>>)>,
    /// History ids whose trials were asked for.
    trials_asked: Vec<String>,
    /// What the trials panel shown was asked for.
    trials_key: Option<String>,
    /// The ranked leaderboard's column and direction (ascending).
    pub board_sort: (&'static str, bool),
    /// What the ranked leaderboard shown was asked for.
    board_key: Option<String>,
    /// The published leaderboard file's text, passed to the lab module as it is.
    pub board_text: Option<String>,
    /// The text filtering the published-model picker.
    pub model_filter: String,
    /// The input of the latest call per purpose (movable views, the share link).
    asked_with: Vec<(LabPurpose, String)>,
    /// The share link being opened with its header (its outcomes asked of the lab
    /// module).
    pub link_opening: Option<(String, wildtool_contract::inputs::LinkHeader)>,
    /// The link whose header was asked of the lab module.
    pub link_heading: Option<String>,
    /// The dataset fingerprint the comparison link shown needs.
    pub compare_link_fingerprint: u64,
}

impl Default for LabState {
    fn default() -> Self {
        LabState {
            answers: Vec::new(),
            pending: Vec::new(),
            loaded: false,
            outcomes: Vec::new(),
            asked: Vec::new(),
            compare_link: None,
            diff: Vec::new(),
            copying: false,
            compare_runs_key: None,
            compare_key: None,
            trials: Vec::new(),
            trials_asked: Vec::new(),
            trials_key: None,
            board_sort: (BOARD_KEYS[0], false),
            board_key: None,
            board_text: None,
            model_filter: String::new(),
            asked_with: Vec::new(),
            link_opening: None,
            link_heading: None,
            compare_link_fingerprint: 0,
        }
    }
}

impl LabState {
    /// The official comparison is asked for again when it is next shown (another
    /// comparison's answer took its place).
    pub fn forget_compare(&mut self) {
        self.compare_key = None;
        self.compare_runs_key = None;
    }

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

    /// True while any call is unanswered (the page's `lab` hook: what is shown may still
    /// change).
    pub fn any_busy(&self) -> bool {
        self.pending.iter().any(|(_, n)| *n > 0)
    }

    /// The input of the latest call for `purpose`.
    pub fn asked_with(&self, purpose: LabPurpose) -> Option<&str> {
        self.asked_with
            .iter()
            .find(|(p, _)| *p == purpose)
            .map(|(_, t)| t.as_str())
    }

    /// Notes the input of a call for `purpose`.
    pub fn ask_with(&mut self, purpose: LabPurpose, input: String) {
        self.asked_with.retain(|(p, _)| *p != purpose);
        self.asked_with.push((purpose, input));
    }

    /// Takes an answer for `purpose` without saying anything: the answer to the latest
    /// call, if this is it.
    pub fn settle(&mut self, purpose: LabPurpose, answer: LabAnswer) -> Option<LabAnswer> {
        let left = self.pending_mut(purpose);
        *left = left.saturating_sub(1);
        if *left > 0 {
            return None;
        }
        if answer.is_ok() {
            self.loaded = true;
        }
        self.clear(purpose);
        self.answers.push((purpose, answer.clone()));
        Some(answer)
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

    /// Keeps every trial's outcomes of run `id`.
    pub fn keep_trials(&mut self, id: &str, trials: Vec<Vec<TaskOutcome>>) {
        self.trials.retain(|(k, _)| k != id);
        self.trials.push((id.to_owned(), trials));
    }

    /// The run whose trials panel was asked for last.
    pub fn trials_panel_of(&self) -> Option<&str> {
        self.trials_key.as_deref().and_then(|k| k.split('|').next())
    }

    /// Every trial's outcomes of run `id`, once read.
    pub fn trials(&self, id: &str) -> Option<&[Vec<TaskOutcome>]> {
        self.trials
            .iter()
            .find(|(k, _)| k == id)
            .map(|(_, t)| t.as_slice())
    }

    /// Asks the lab module for `call` on `input`; the answer is kept under `purpose`.
    pub fn call(&mut self, call: Call, input: String, purpose: LabPurpose) -> Vec<Effect> {
        *self.pending_mut(purpose) += 1;
        vec![Effect::Lab {
            call,
            input,
            purpose,
        }]
    }

    fn pending_mut(&mut self, purpose: LabPurpose) -> &mut u32 {
        let i = match self.pending.iter().position(|(p, _)| *p == purpose) {
            Some(i) => i,
            None => {
                self.pending.push((purpose, 0));
                self.pending.len() - 1
            }
        };
        &mut self.pending[i].1
    }
}

/// The page as the lab module's views need it (its `PageContext`).
#[derive(Serialize)]
struct PageCall<'a> {
    base: &'a str,
    query: Vec<String>,
    width: f64,
    min_font: f64,
}

/// The comparison call's input (the lab module's `CompareInput`).
#[derive(Serialize)]
struct CompareCall<'a> {
    fingerprint: u64,
    shapes: &'a [TaskShape],
    runs: Vec<RunInput>,
    ids: Vec<Option<&'a str>>,
    page: PageCall<'a>,
    diff: &'a [DiffChoice],
    plan: &'a wildtool_contract::inputs::PlanFields,
}

/// The link call's input (the lab module's `LinkInput`).
#[derive(Serialize)]
struct LinkCall<'a> {
    link: &'a str,
    fingerprint: u64,
    shapes: &'a [TaskShape],
    page: PageCall<'a>,
    diff: &'a [DiffChoice],
    plan: &'a wildtool_contract::inputs::PlanFields,
}

/// The trials call's input (the lab module's `TrialsInput`).
#[derive(Serialize)]
struct TrialsCall<'a> {
    fingerprint: u64,
    shapes: &'a [TaskShape],
    run: RunInput,
    page: PageCall<'a>,
}

/// The leaderboard call's input (the lab module's `LeaderboardInput`).
#[derive(Serialize)]
struct BoardCall<'a> {
    fingerprint: u64,
    shapes: &'a [TaskShape],
    /// The published leaderboard file (`paper-leaderboard.json`), parsed by the lab module.
    leaderboard: &'a str,
    runs: Vec<RunInput>,
    sort: &'static str,
    ascending: bool,
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
    /// Env runs (an extension) and official runs are chosen together.
    Mixed,
}
