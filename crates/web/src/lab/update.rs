//! The lab calls' handlers: calls made, answers kept by purpose, the comparison's and
//! trials' inputs asked again when they change.

use super::*;
use crate::msg::{Effect, GetPurpose, LabPurpose};
use crate::placement::*;
use crate::route::{Location, View};
use crate::state::{AppState, Tone};
use crate::store::outcomes_key;
use crate::ui::{Element, Node};
use serde::Serialize;
use wildtool_contract::Call;
use wildtool_core::compare::RunInput;
use wildtool_core::outcome::TaskOutcome;

impl AppState {
    /// Asks the lab module for `call` on `input`; the answer is kept under `purpose`.
    pub fn lab_call(&mut self, call: Call, input: String, purpose: LabPurpose) -> Vec<Effect> {
        self.lab.call(call, input, purpose)
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

    /// Opens the comparison a link (`#v2.…`) with `header` carries, once its dataset is
    /// loaded.
    pub fn open_pair_link(
        &mut self,
        link: &str,
        header: &wildtool_contract::inputs::LinkHeader,
    ) -> Vec<Effect> {
        let fingerprint = format!("{:016x}", header.fingerprint);
        if self.dataset.is_none_or(|d| d.fingerprint != fingerprint) {
            if self.pending_dataset.is_some() {
                return Vec::new();
            }
            return self.ask_for_dataset(
                format!(
                    "comparison link ({} vs {}, {} tasks)",
                    header.label, header.label_b, header.task_count
                ),
                &fingerprint,
            );
        }
        self.boot.link = None;
        self.flags.share = Some("opened");
        self.lab.compare_link = Some(link.to_owned());
        self.lab.compare_link_fingerprint = header.fingerprint;
        self.say(
            format!(
                "Opened a comparison link: {} vs {} (scorer {}).",
                header.label, header.label_b, header.scorer_version
            ),
            Tone::Ok,
        );
        self.focus = Some("compare-title".into());
        let mut fx = self.go_view(View::Compare);
        fx.push(Effect::ReplaceUrl(self.address()));
        fx
    }

    /// Why no comparison can be asked for yet, if so.
    pub fn compare_wait(&self) -> Option<CompareWait> {
        if self.lab.compare_link.is_some() {
            let fits = self
                .dataset
                .is_some_and(|d| self.lab.compare_link_fingerprint == d.fingerprint_u64());
            return (!fits).then_some(CompareWait::NoDataset);
        }
        if let Some(wait) = self.env_compare_wait() {
            return wait;
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
                fx.extend(self.dash_cost_refresh());
                fx
            }
            View::Compare => {
                let mut fx = self.compare_refresh();
                fx.extend(self.compare_cost_refresh());
                fx
            }
            View::History => self.history_refresh(),
            View::Setup => self.setup_refresh(),
            View::Generate | View::Sweep => {
                let form = if self.route.view == View::Sweep {
                    "sweep"
                } else {
                    "generate"
                };
                self.movable_refresh(
                    crate::placement::Place::Lab,
                    Call::FactorPicker,
                    LabPurpose::FactorPicker,
                    &form,
                )
            }
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
    pub(crate) fn run_input(&self, id: &str) -> Option<RunInput> {
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
        if let Some(fx) = self.env_compare_refresh() {
            return fx;
        }
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
        self.env.compared.key = None;
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

impl AppState {
    /// Asks the lab module for a movable view placed there when its input changed since
    /// the last call for `purpose`.
    #[inline(always)]
    pub fn movable_refresh(
        &mut self,
        place: Place,
        call: Call,
        purpose: LabPurpose,
        input: &impl Serialize,
    ) -> Vec<Effect> {
        if place == Place::Shell {
            return Vec::new();
        }
        let text = serde_json::to_string(input).unwrap_or_default();
        if self.lab.asked_with(purpose) == Some(text.as_str()) {
            return Vec::new();
        }
        self.lab.ask_with(purpose, text.clone());
        self.lab_call(call, text, purpose)
    }

    /// A movable view: built here, or the lab module's latest answer for `purpose` (until
    /// there is one, a loading note `{id}-loading` marked `data-loading`, which the
    /// end-to-end tests wait to be gone). Inlined, so that a view placed in the
    /// lab module is not linked into the app shell.
    #[inline(always)]
    pub fn movable<I>(
        &self,
        place: Place,
        purpose: LabPurpose,
        input: impl FnOnce() -> I,
        build: fn(&I) -> Element,
        id: &str,
        loading: &str,
    ) -> Node {
        if place == Place::Shell {
            return build(&input()).into();
        }
        lab_answer(self.lab.answer(purpose), id, loading)
    }
}
