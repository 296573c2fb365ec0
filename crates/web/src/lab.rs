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

use serde::Serialize;
use wildtool_core::compare::RunInput;
use wildtool_core::outcome::TaskOutcome;
use wildtool_core::share::TaskShape;

use crate::history::outcomes_key;
use crate::msg::{Effect, GetPurpose, LabPurpose};
use crate::route::{Location, View};
use crate::state::{AppState, Tone};

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
    /// The share link being opened (its outcomes asked of the lab module).
    pub link_opening: Option<String>,
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
        }
    }
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
}

impl AppState {
    /// Asks the lab module for `call` on `input`; the answer is kept under `purpose`.
    pub fn lab_call(&mut self, call: Call, input: String, purpose: LabPurpose) -> Vec<Effect> {
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
        let outcomes: Option<Vec<TaskOutcome>> = value
            .as_deref()
            .and_then(wildtool_core::outcome::outcomes_from_json);
        self.lab.outcomes.retain(|(k, _)| k != id);
        if let Some(o) = outcomes {
            self.lab.outcomes.push((id.to_owned(), o));
        }
        Vec::new()
    }

    /// A run's per-trial outcomes arrived for its repeated-trials panel.
    pub fn lab_trials_arrived(&mut self, id: &str, value: Option<String>) -> Vec<Effect> {
        let trials: Option<Vec<Vec<TaskOutcome>>> = value
            .as_deref()
            .and_then(wildtool_core::outcome::trial_outcomes_from_json);
        if let Some(t) = trials.filter(|t| !t.is_empty()) {
            self.lab.keep_trials(id, t);
        }
        Vec::new()
    }

    /// The run on the dashboard has repeated trials: their number.
    pub fn shown_trials(&self) -> Option<u32> {
        let s = self.shown.as_ref()?;
        let k = self.history.get(&s.id)?.trials();
        (k > 1).then_some(k)
    }

    /// The trials panel of the run on the dashboard: read its trials, then ask the lab
    /// module for the panel when the run (or the chart layout) changed.
    fn trials_refresh(&mut self) -> Vec<Effect> {
        if self.shown_trials().is_none() {
            return Vec::new();
        }
        let (Some(s), Some(dataset)) = (self.shown.as_ref(), self.dataset) else {
            return Vec::new();
        };
        let id = s.id.clone();
        let Some(trials) = self.lab.trials(&id) else {
            if self.lab.trials_asked.contains(&id) {
                return Vec::new();
            }
            self.lab.trials_asked.push(id.clone());
            return vec![Effect::KvGet(trials_key(&id), GetPurpose::LabTrials(id))];
        };
        let label = s.label.clone();
        let key = format!(
            "{id}|{label}|{}|{}|{}",
            trials.len(),
            self.layout.width,
            self.layout.min_font
        );
        if self.lab.trials_key.as_deref() == Some(key.as_str()) {
            return Vec::new();
        }
        let input = serde_json::to_string(&TrialsCall {
            fingerprint: dataset.fingerprint_u64(),
            shapes: &dataset.shapes,
            run: RunInput {
                label,
                fingerprint: dataset.fingerprint_u64(),
                trials: trials.to_vec(),
            },
            page: self.page_call(),
        })
        .unwrap_or_default();
        self.lab.trials_key = Some(key);
        self.lab_call(TRIALS_VIEW, input, LabPurpose::Trials)
    }

    /// Ticks or unticks history run `id` for the comparison (the history's comparison
    /// set, which the dashboard's chart uses too); a comparison opened from a link makes
    /// way for the history's runs.
    pub fn compare_pick(&mut self, id: &str, on: bool) -> Vec<Effect> {
        let mut fx = self.compare_link_close();
        fx.extend(if on {
            self.compare_add(id)
        } else {
            self.compare_remove(id)
        });
        fx
    }

    /// Shows the comparison of the history's runs instead of a link's.
    pub fn compare_link_close(&mut self) -> Vec<Effect> {
        if self.lab.compare_link.take().is_some() && self.route.view == View::Compare {
            return vec![Effect::ReplaceUrl(self.address())];
        }
        Vec::new()
    }

    /// Which rows pair `pair`'s per-task table shows.
    pub fn compare_diff(&mut self, pair: &str, filter: &str) -> Vec<Effect> {
        let (Ok(i), Some(f)) = (
            pair.parse::<usize>(),
            DIFF_FILTERS.iter().find(|f| **f == filter),
        ) else {
            return Vec::new();
        };
        if i < 64 {
            if self.lab.diff.len() <= i {
                self.lab.diff.resize(i + 1, DiffChoice::default());
            }
            self.lab.diff[i] = DiffChoice {
                filter: f,
                limit: DIFF_ROWS,
            };
        }
        Vec::new()
    }

    /// More rows of pair `pair`'s per-task table.
    pub fn compare_more(&mut self, pair: &str) -> Vec<Effect> {
        if let Ok(i) = pair.parse::<usize>() {
            if i < 64 {
                if self.lab.diff.len() <= i {
                    self.lab.diff.resize(i + 1, DiffChoice::default());
                }
                self.lab.diff[i].limit += DIFF_ROWS;
            }
        }
        Vec::new()
    }

    /// Copies a comparison link the comparison view shows.
    pub fn copy_compare_link(&mut self, url: String) -> Vec<Effect> {
        if !url.starts_with(&self.base) || !url.contains("#v2.") {
            return Vec::new();
        }
        self.lab.copying = true;
        vec![Effect::Copy(url)]
    }

    /// The clipboard answered a comparison link's copy.
    pub fn compare_link_copied(&mut self, ok: bool) {
        if ok {
            self.say("Comparison link copied.", Tone::Ok);
        } else {
            self.say(
                "The browser did not allow copying: select the link and copy it.",
                Tone::Warn,
            );
        }
    }

    /// Follows a link of a view (an address of this page), like Back and Forward would.
    pub fn go_address(&mut self, address: &str) -> Vec<Effect> {
        if !address.starts_with('?') {
            return Vec::new();
        }
        let route = Location::parse(&format!("{}{address}", self.base)).route();
        let mut fx = Vec::new();
        if let Some(id) = route.run.clone() {
            if self.shown.as_ref().map(|s| &s.id) != Some(&id) {
                fx.extend(self.open_history(&id));
            }
        }
        self.focus = Some(format!("{}-title", route.view.slug()));
        fx.extend(self.go(route));
        self.open_route_trace();
        fx
    }

    /// Opens the comparison a link (`#v2.…`) carries, once its dataset is loaded.
    pub fn open_pair_link(&mut self, link: &str) -> Vec<Effect> {
        let header = match wildtool_core::share::pair::read_pair_header(link) {
            Ok(h) => h,
            Err(e) => {
                self.boot.link = None;
                self.flags.share = Some("error");
                self.say(
                    format!("This comparison link cannot be opened: {e}"),
                    Tone::Error,
                );
                return Vec::new();
            }
        };
        let fingerprint = format!("{:016x}", header.dataset_fingerprint);
        if self.dataset.is_none_or(|d| d.fingerprint != fingerprint) {
            if self.pending_dataset.is_some() {
                return Vec::new();
            }
            return self.ask_for_dataset(
                format!(
                    "comparison link ({} vs {}, {} tasks)",
                    header.label_a, header.label_b, header.task_count
                ),
                &fingerprint,
            );
        }
        self.boot.link = None;
        self.flags.share = Some("opened");
        self.lab.compare_link = Some(link.to_owned());
        self.say(
            format!(
                "Opened a comparison link: {} vs {} (scorer {}).",
                header.label_a, header.label_b, header.scorer_version
            ),
            Tone::Ok,
        );
        self.focus = Some("compare-title".into());
        let mut fx = self.go_view(View::Compare);
        fx.push(Effect::ReplaceUrl(self.address()));
        fx
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
        if let Some(link) = &self.lab.compare_link {
            let fits = wildtool_core::share::pair::read_pair_header(link)
                .ok()
                .zip(self.dataset)
                .is_some_and(|(h, d)| h.dataset_fingerprint == d.fingerprint_u64());
            return (!fits).then_some(CompareWait::NoDataset);
        }
        let chosen = self.compare_chosen();
        if chosen.len() < 2 {
            return Some(CompareWait::TooFew(chosen.len()));
        }
        if self.dataset.is_none() {
            return Some(CompareWait::NoDataset);
        }
        for e in &chosen {
            let (read, asked) = if e.trials() > 1 {
                (
                    self.lab.trials(&e.id).is_some(),
                    self.lab.trials_asked.contains(&e.id),
                )
            } else {
                (
                    self.lab.outcomes(&e.id).is_some(),
                    self.lab.asked.contains(&e.id),
                )
            };
            if !read {
                return Some(if asked {
                    CompareWait::Missing(e.label.clone())
                } else {
                    CompareWait::Reading
                });
            }
        }
        None
    }

    fn page_call(&self) -> PageCall<'_> {
        PageCall {
            base: &self.base,
            query: self
                .keep_query
                .iter()
                .map(|(k, v)| {
                    format!(
                        "{}={}",
                        crate::route::encode_component(k),
                        crate::route::encode_component(v)
                    )
                })
                .collect(),
            width: self.layout.width,
            min_font: self.layout.min_font,
        }
    }

    /// Work the comparison view needs after any message: read the chosen runs'
    /// outcomes, then ask the lab module for the comparison when what it shows changed.
    pub fn lab_refresh(&mut self) -> Vec<Effect> {
        match self.route.view {
            View::Dashboard => {
                let mut fx = self.dashboard_refresh();
                fx.extend(self.trials_refresh());
                fx.extend(self.leaderboard_refresh());
                fx
            }
            View::Compare => self.compare_refresh(),
            View::History => {
                let input = crate::history::view::input(self);
                self.movable_refresh(
                    crate::placement::HISTORY_LIST,
                    Call::HistoryList,
                    LabPurpose::HistoryList,
                    &input,
                )
            }
            View::Setup => self.setup_refresh(),
            _ => Vec::new(),
        }
    }

    /// Asks the store for the outcomes of history runs `ids` not read or asked for yet
    /// (every trial's, for runs with repeated trials).
    fn read_runs(&mut self, ids: &[String]) -> Vec<Effect> {
        let unread: Vec<(String, bool)> = ids
            .iter()
            .filter_map(|id| self.history.get(id))
            .map(|e| (e.id.clone(), e.trials() > 1))
            .filter(|(id, trials)| {
                if *trials {
                    self.lab.trials(id).is_none() && !self.lab.trials_asked.contains(id)
                } else {
                    self.lab.outcomes(id).is_none() && !self.lab.asked.contains(id)
                }
            })
            .collect();
        let mut fx = Vec::new();
        for (id, trials) in unread {
            if trials {
                self.lab.trials_asked.push(id.clone());
                fx.push(Effect::KvGet(trials_key(&id), GetPurpose::LabTrials(id)));
            } else {
                self.lab.asked.push(id.clone());
                fx.push(Effect::KvGet(
                    outcomes_key(&id),
                    GetPurpose::LabOutcomes(id),
                ));
            }
        }
        fx
    }

    /// History run `id` as the statistics read it (all its trials), once its outcomes
    /// are read.
    fn run_input(&self, id: &str) -> Option<RunInput> {
        let e = self.history.get(id)?;
        let trials = match self.lab.trials(id) {
            Some(t) if e.trials() > 1 => t.to_vec(),
            _ => vec![self.lab.outcomes(id)?.to_vec()],
        };
        Some(RunInput {
            label: e.label.clone(),
            fingerprint: u64::from_str_radix(&e.dataset_fingerprint, 16).unwrap_or(0),
            trials,
        })
    }

    /// The ranked leaderboard on the dashboard (official datasets only): the run shown
    /// and the runs of the comparison among the published models.
    fn leaderboard_refresh(&mut self) -> Vec<Effect> {
        let (Some(dataset), Some(shown)) = (self.dataset, self.shown.as_ref()) else {
            return Vec::new();
        };
        if self.leaderboard.as_ref().is_none_or(|m| m.is_empty())
            || !self.overlay().is_some_and(|o| o.shown)
        {
            return Vec::new();
        }
        let shown_id = shown.id.clone();
        let others: Vec<String> = self
            .history
            .compare
            .iter()
            .filter(|id| **id != shown_id)
            .cloned()
            .collect();
        let fx = self.read_runs(&others);
        if !fx.is_empty() {
            return fx;
        }
        let (Some(shown), Some(models)) = (self.shown.as_ref(), self.leaderboard.as_ref()) else {
            return fx;
        };
        let mut runs = vec![match self.lab.trials(&shown.id) {
            Some(t) if self.shown_trials().is_some() => RunInput {
                label: shown.label.clone(),
                fingerprint: dataset.fingerprint_u64(),
                trials: t.to_vec(),
            },
            _ => RunInput {
                label: shown.label.clone(),
                fingerprint: dataset.fingerprint_u64(),
                trials: vec![shown.outcomes.clone()],
            },
        }];
        runs.extend(others.iter().filter_map(|id| self.run_input(id)));
        let key = format!(
            "{}|{}|{}|{}|{}",
            dataset.fingerprint,
            runs.iter()
                .map(|r| format!("{}:{}", r.label, r.trials.len()))
                .collect::<Vec<_>>()
                .join("|"),
            self.lab.board_sort.0,
            self.lab.board_sort.1,
            models.len()
        );
        if self.lab.board_key.as_deref() == Some(key.as_str()) {
            return fx;
        }
        let input = serde_json::to_string(&BoardCall {
            fingerprint: dataset.fingerprint_u64(),
            shapes: &dataset.shapes,
            leaderboard: self.lab.board_text.as_deref().unwrap_or_default(),
            runs,
            sort: self.lab.board_sort.0,
            ascending: self.lab.board_sort.1,
        })
        .unwrap_or_default();
        self.lab.board_key = Some(key);
        self.lab_call(LEADERBOARD_VIEW, input, LabPurpose::Leaderboard)
    }

    /// Sorts the ranked leaderboard by column `key` (again: the other way round).
    pub fn leaderboard_sort(&mut self, key: &str) -> Vec<Effect> {
        let Some(k) = BOARD_KEYS.iter().find(|k| **k == key) else {
            return Vec::new();
        };
        self.lab.board_sort = if self.lab.board_sort.0 == *k {
            (k, !self.lab.board_sort.1)
        } else {
            (k, *k == "label")
        };
        Vec::new()
    }

    /// The comparison view's work after any message.
    fn compare_refresh(&mut self) -> Vec<Effect> {
        let mut fx = Vec::new();
        if self.lab.compare_link.is_none() {
            // Runs with repeated trials are compared over all their trials.
            let ids: Vec<String> = self.compare_chosen().iter().map(|e| e.id.clone()).collect();
            fx.extend(self.read_runs(&ids));
        }
        if !fx.is_empty() || self.compare_wait().is_some() {
            return fx;
        }
        let Some(dataset) = self.dataset else {
            return fx;
        };
        let runs_key = match &self.lab.compare_link {
            Some(link) => format!("{}|link|{link}", dataset.fingerprint),
            None => format!(
                "{}|{}",
                dataset.fingerprint,
                self.compare_chosen()
                    .iter()
                    .map(|e| format!("{}={}", e.id, e.label))
                    .collect::<Vec<_>>()
                    .join("|")
            ),
        };
        if self.lab.compare_runs_key.as_deref() != Some(runs_key.as_str()) {
            self.lab.diff.clear();
        }
        let p = &self.budget.plan;
        let key = format!(
            "{runs_key}|{:?}|{}|{}|{}|{}|{}|{}",
            self.lab.diff,
            self.layout.width,
            self.layout.min_font,
            p.pair,
            p.sessions,
            p.trials,
            p.difference
        );
        if self.lab.compare_key.as_deref() == Some(key.as_str()) {
            return fx;
        }
        let input = match &self.lab.compare_link {
            Some(link) => serde_json::to_string(&LinkCall {
                link,
                fingerprint: dataset.fingerprint_u64(),
                shapes: &dataset.shapes,
                page: self.page_call(),
                diff: &self.lab.diff,
                plan: &self.budget.plan,
            }),
            None => {
                let chosen = self.compare_chosen();
                serde_json::to_string(&CompareCall {
                    fingerprint: dataset.fingerprint_u64(),
                    shapes: &dataset.shapes,
                    runs: chosen
                        .iter()
                        .filter_map(|e| self.run_input(&e.id))
                        .collect(),
                    ids: chosen.iter().map(|e| Some(e.id.as_str())).collect(),
                    page: self.page_call(),
                    diff: &self.lab.diff,
                    plan: &self.budget.plan,
                })
            }
        }
        .unwrap_or_default();
        let call = if self.lab.compare_link.is_some() {
            COMPARE_LINK_VIEW
        } else {
            COMPARE_VIEW
        };
        // The item audit reads the same runs (from the same input), not a link's.
        let audit = (self.lab.compare_runs_key.as_deref() != Some(runs_key.as_str()))
            .then(|| input.clone());
        self.lab.compare_runs_key = Some(runs_key);
        self.lab.compare_key = Some(key);
        fx.extend(self.lab_call(call, input, LabPurpose::Compare));
        if let Some(input) = audit {
            self.lab.clear(LabPurpose::Audit);
            if call == COMPARE_VIEW {
                fx.extend(self.lab_call(Call::AuditView, input, LabPurpose::Audit));
            }
        }
        fx
    }
}
