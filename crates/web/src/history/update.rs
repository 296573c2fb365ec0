//! The history's handlers: runs opened, shown, renamed, deleted, exported and imported; the
//! comparison set kept in the store.

use super::*;
use crate::dashboard::{RunKind, ShownRun};
use crate::data::{DatasetSource, OFFICIAL_DATA};
use crate::msg::{Effect, GetPurpose, LabPurpose, ListPurpose};
use crate::route::{Route, View};
use crate::state::{AppState, Now, Tone};
use wildtool_core::outcome::TaskOutcome;

impl AppState {
    /// The history runs chosen for the comparison, in order.
    pub fn compare_chosen(&self) -> Vec<&crate::history::HistoryEntry> {
        self.history
            .compare
            .iter()
            .filter_map(|id| self.history.get(id))
            .collect()
    }

    /// The history list, placed in the lab module, asked for again when its input changed.
    pub fn history_refresh(&mut self) -> Vec<Effect> {
        let input = super::view::input(self);
        self.movable_refresh(
            crate::placement::HISTORY_LIST,
            wildtool_contract::Call::HistoryList,
            LabPurpose::HistoryList,
            &input,
        )
    }

    /// A history entry for `shown` with what is known of the dataset.
    pub fn entry_for(&self, shown: &ShownRun, now_ms: f64) -> HistoryEntry {
        let d = self.dataset;
        HistoryEntry {
            id: shown.id.clone(),
            label: shown.label.clone(),
            model: shown.model.clone(),
            kind: shown.kind.as_str().to_owned(),
            provider: None,
            endpoint_host: None,
            base_url: None,
            settings: None,
            dataset_fingerprint: shown.fingerprint.clone(),
            dataset_name: d.map(|d| d.source.display()).unwrap_or_default(),
            dataset_source: d.map(|d| d.source.clone()),
            lang: d
                .map(|d| crate::data::lang_name(d.lang).to_owned())
                .unwrap_or_default(),
            started_ms: now_ms,
            finished_ms: Some(now_ms),
            duration_s: None,
            input_tokens: shown
                .scored
                .as_ref()
                .map(|s| s.stats.input_tokens)
                .unwrap_or(0),
            output_tokens: shown
                .scored
                .as_ref()
                .map(|s| s.stats.output_tokens)
                .unwrap_or(0),
            requests: shown.scored.as_ref().map(|s| s.stats.requests).unwrap_or(0),
            wildtool_version: env!("CARGO_PKG_VERSION").to_owned(),
            scorer_version: wildtool_core::SCORER_VERSION.to_owned(),
            status: shown.headline.status.as_str().to_owned(),
            reason: None,
            tasks_scored: shown.headline.tasks_scored,
            tasks_total: shown.headline.tasks_total,
            tasks_saved: 0,
            task_accuracy: shown.headline.task_accuracy.clone(),
            session_accuracy: shown.headline.session_accuracy.clone(),
            has_checkpoint: false,
            has_result_text: false,
            resumable: false,
            concurrency: None,
            first_token: None,
        }
    }

    /// Stores a scored run (upload or link) in the history.
    pub fn keep_in_history(&mut self, shown: &ShownRun, resumable: bool) -> Vec<Effect> {
        let now_ms = self.now_ms;
        let mut entry = self.entry_for(shown, now_ms);
        let mut puts = vec![(
            outcomes_key(&shown.id),
            serde_json::to_string(&shown.outcomes).unwrap_or_default(),
        )];
        if let Some(scored) = &shown.scored {
            if let Some(records) = &scored.records {
                entry.has_checkpoint = true;
                entry.tasks_saved = records.len().saturating_sub(1) as u64;
                entry.resumable = resumable;
                for (i, line) in records.iter().enumerate() {
                    puts.push((checkpoint_key(&shown.id, i), line.clone()));
                }
            } else if let Some(text) = &scored.result_text {
                entry.has_result_text = true;
                puts.push((result_key(&shown.id), text.clone()));
            }
        }
        puts.push((
            meta_key(&entry.id),
            serde_json::to_string(&entry).unwrap_or_default(),
        ));
        self.history.put(entry);
        vec![Effect::KvPut(puts)]
    }

    /// Shows `shown` on the dashboard.
    pub fn show(&mut self, mut shown: ShownRun) -> Vec<Effect> {
        shown.set_layout(self.layout);
        let id = shown.id.clone();
        self.history.set_row(&id, shown.row());
        self.shown = Some(shown);
        self.traces = Default::default();
        self.refresh_shown();
        // Opened from the address (a deep link, Back/Forward): stay on what it names.
        if self.route.run.as_deref() == Some(id.as_str())
            && matches!(self.route.view, View::Dashboard | View::Traces)
        {
            return self.open_route_trace();
        }
        let mut r = Route::view(View::Dashboard);
        r.run = Some(id);
        self.focus = Some("dashboard-title".into());
        self.go(r)
    }

    /// Opens history entry `id` (outcomes first, then score files in the background).
    pub fn open_history(&mut self, id: &str) -> Vec<Effect> {
        if self.shown.as_ref().is_some_and(|s| s.id == id) {
            return self.open_route_trace();
        }
        if self
            .history
            .get(id)
            .is_some_and(|e| e.kind == crate::env::ENV_KIND)
        {
            return self.env_open_stored(id);
        }
        self.history.opening = Some(id.to_owned());
        vec![Effect::KvGet(
            outcomes_key(id),
            GetPurpose::Outcomes(id.to_owned()),
        )]
    }

    /// A run's outcomes arrived (to open it, or for the comparison chart).
    pub fn outcomes_arrived(&mut self, id: &str, value: Option<String>, _now: Now) -> Vec<Effect> {
        let outcomes: Option<Vec<TaskOutcome>> = value
            .as_deref()
            .and_then(wildtool_core::outcome::outcomes_from_json);
        let Some(entry) = self.history.get(id).cloned() else {
            return Vec::new();
        };
        let Some(outcomes) = outcomes else {
            if self.history.opening.as_deref() == Some(id) {
                self.history.opening = None;
                self.say(
                    format!(
                        "The results of {} are not stored in this browser.",
                        entry.label
                    ),
                    Tone::Error,
                );
            }
            return Vec::new();
        };
        self.history.set_row(id, summarize(&entry.label, &outcomes));
        if self.history.opening.as_deref() != Some(id) {
            self.refresh_shown();
            return Vec::new();
        }
        self.history.opening = None;
        let dataset = match self.dataset {
            Some(d) if d.fingerprint == entry.dataset_fingerprint => d,
            _ => {
                return self.load_dataset_of(&entry);
            }
        };
        let kind = RunKind::parse(&entry.kind);
        let mut shown = ShownRun::new(
            crate::dashboard::RunIdent {
                id: id.to_owned(),
                label: entry.label.clone(),
                model: entry.model.clone(),
                kind,
            },
            dataset,
            &outcomes,
            None,
            None,
        );
        if let Some(reason) = &entry.reason {
            shown.end = Some(crate::dashboard::EndNote {
                outcome: entry.status.clone(),
                reason: Some(reason.clone()),
                fix: None,
            });
        }
        let mut fx = self.show(shown);
        // Its manifest next (a run made in the page keeps one), so its export and
        // Verify have it; then its score files.
        fx.push(Effect::KvGet(
            crate::store::manifest_key(id),
            GetPurpose::Manifest(id.to_owned()),
        ));
        fx
    }

    /// A stored run's manifest arrived (`None`: it has none): kept with the run shown,
    /// then its score files are read.
    pub fn manifest_arrived(&mut self, id: &str, value: Option<String>) -> Vec<Effect> {
        let Some(entry) = self.history.get(id).cloned() else {
            return Vec::new();
        };
        match self.shown.as_mut() {
            Some(shown) if shown.id == id => shown.manifest = value,
            _ => return Vec::new(),
        }
        let mut fx = Vec::new();
        if entry.has_checkpoint {
            fx.push(Effect::KvList(
                checkpoint_prefix(id),
                ListPurpose::Open(id.to_owned()),
            ));
        } else if entry.has_result_text {
            fx.push(Effect::KvGet(
                result_key(id),
                GetPurpose::ResultText(id.to_owned()),
            ));
        } else if self.history.export_when_open.as_deref() == Some(id) {
            self.history.export_when_open = None;
            fx.extend(self.export("run"));
        }
        fx
    }

    /// Loads the dataset a history entry was made on, then opens it.
    fn load_dataset_of(&mut self, entry: &HistoryEntry) -> Vec<Effect> {
        match &entry.dataset_source {
            Some(src @ (DatasetSource::Bundled | DatasetSource::Url { .. })) => {
                self.pending_open = Some(entry.id.clone());
                self.fetch_dataset(src.clone(), entry.lang.clone())
            }
            Some(DatasetSource::Generated { spec }) => {
                self.pending_open = Some(entry.id.clone());
                self.generate_dataset(spec.clone(), Now::default())
            }
            _ => {
                self.say(
                    format!(
                        "{} was made on {} (fingerprint {}): load that dataset in Setup, then open it again.",
                        entry.label, entry.dataset_name, entry.dataset_fingerprint
                    ),
                    Tone::Warn,
                );
                Vec::new()
            }
        }
    }

    /// A stored result text arrived: score it for traces and exports.
    pub fn result_text_arrived(
        &mut self,
        id: &str,
        value: Option<String>,
        now: Now,
    ) -> Vec<Effect> {
        let Some(text) = value else { return Vec::new() };
        self.rescore_start(id, None, text, None, now)
    }

    /// Stored checkpoint lines of a run being opened arrived.
    pub fn open_with_checkpoint(
        &mut self,
        id: &str,
        entries: Vec<(String, String)>,
        now: Now,
    ) -> Vec<Effect> {
        let Some(dataset) = self.dataset else {
            return Vec::new();
        };
        let Some(entry) = self.history.get(id).cloned() else {
            return Vec::new();
        };
        let lines: Vec<String> = entries.into_iter().map(|(_, v)| v).collect();
        match crate::upload::assembled(dataset, &entry.model, &lines) {
            Ok((text, _)) => self.rescore_start(id, Some(entry.model), text, Some(lines), now),
            Err(e) => {
                self.say(
                    format!("The stored run could not be read: {e}"),
                    Tone::Error,
                );
                Vec::new()
            }
        }
    }

    /// Asks for the outcomes of compared runs (for the comparison chart).
    pub fn history_compare_fetch(&mut self) -> Vec<Effect> {
        self.history
            .compare
            .iter()
            .filter(|id| self.history.row(id).is_none())
            .map(|id| Effect::KvGet(outcomes_key(id), GetPurpose::Outcomes(id.clone())))
            .collect()
    }

    /// Adds `id` to the comparison set (once).
    pub fn compare_add(&mut self, id: &str) -> Vec<Effect> {
        if self.history.get(id).is_none() {
            return Vec::new();
        }
        let mut fx = Vec::new();
        if !self.history.compare.iter().any(|c| c == id) {
            self.history.compare.push(id.to_owned());
            fx.push(Effect::KvPut(vec![(
                COMPARE_KEY.into(),
                self.history.compare_json(),
            )]));
        }
        let label = self
            .history
            .get(id)
            .map(|e| e.label.clone())
            .unwrap_or_default();
        self.say(
            format!(
                "{label} is in the comparison ({} run(s)).",
                self.history.compare.len()
            ),
            Tone::Ok,
        );
        fx.extend(self.history_compare_fetch());
        self.refresh_shown();
        fx
    }

    /// Removes `id` from the comparison set.
    pub fn compare_remove(&mut self, id: &str) -> Vec<Effect> {
        self.history.compare.retain(|c| c != id);
        self.refresh_shown();
        vec![Effect::KvPut(vec![(
            COMPARE_KEY.into(),
            self.history.compare_json(),
        )])]
    }

    /// Saves the label being edited.
    pub fn rename_save(&mut self) -> Vec<Effect> {
        let Some((id, draft)) = self.history.renaming.take() else {
            return Vec::new();
        };
        let label = draft.trim().to_owned();
        if label.is_empty() {
            return Vec::new();
        }
        let Some(mut entry) = self.history.get(&id).cloned() else {
            return Vec::new();
        };
        entry.label = label.clone();
        let json = serde_json::to_string(&entry).unwrap_or_default();
        self.history.put(entry);
        if let Some(s) = &mut self.shown {
            if s.id == id {
                s.label = label;
            }
        }
        self.history.drop_row(&id);
        let mut fx = vec![Effect::KvPut(vec![(meta_key(&id), json)])];
        fx.extend(self.history_compare_fetch());
        self.focus = Some(format!("history-row-{id}"));
        fx
    }

    /// Deletes entry `id` and everything stored with it.
    pub fn history_delete(&mut self, id: &str) -> Vec<Effect> {
        self.history.entries.retain(|e| e.id != id);
        self.history.drop_row(id);
        let was_compared = self.history.compare.iter().any(|c| c == id);
        self.history.compare.retain(|c| c != id);
        let mut fx = vec![
            Effect::KvDelete(vec![
                meta_key(id),
                outcomes_key(id),
                result_key(id),
                crate::store::manifest_key(id),
                crate::lab::trials_key(id),
            ]),
            Effect::KvDeletePrefix(checkpoint_prefix(id)),
        ];
        if was_compared {
            fx.push(Effect::KvPut(vec![(
                COMPARE_KEY.into(),
                self.history.compare_json(),
            )]));
        }
        if self.shown.as_ref().is_some_and(|s| s.id == id) {
            self.shown = None;
        }
        self.refresh_shown();
        self.say("Deleted from the history.", Tone::Ok);
        self.focus = Some("history-title".into());
        fx
    }

    /// The unfinished run to offer for resuming, if any.
    pub fn resume_candidate(&self) -> Option<&HistoryEntry> {
        self.history
            .entries
            .iter()
            .find(|e| e.unfinished() && e.has_checkpoint && e.tasks_saved > 0)
    }

    /// After the history loaded: offers to resume an interrupted run.
    pub fn resume_offer(&mut self) -> Vec<Effect> {
        if self.resume_candidate().is_some() && self.flags.resume.is_none() {
            self.flags.resume = Some("offered");
        }
        Vec::new()
    }

    /// Forgets an unfinished run's offer (the run stays in the history as cancelled).
    pub fn discard_stored(&mut self, id: &str) -> Vec<Effect> {
        let Some(mut entry) = self.history.get(id).cloned() else {
            return Vec::new();
        };
        entry.status = "cancelled".into();
        entry.resumable = true;
        let json = serde_json::to_string(&entry).unwrap_or_default();
        self.history.put(entry);
        self.flags.resume = Some("discarded");
        vec![Effect::KvPut(vec![(meta_key(id), json)])]
    }

    /// Exports a history entry: opened first when it is not on the dashboard.
    pub fn history_export(&mut self, id: &str) -> Vec<Effect> {
        if self.shown.as_ref().is_some_and(|s| s.id == id) {
            return self.export("run");
        }
        self.history.export_when_open = Some(id.to_owned());
        self.open_history(id)
    }

    /// The dataset a link or history entry names, for messages.
    pub fn dataset_hint(source: &Option<DatasetSource>) -> String {
        match source {
            Some(DatasetSource::Url { url }) if url == OFFICIAL_DATA => "the official data".into(),
            Some(s) => s.display(),
            None => "its dataset".into(),
        }
    }
}
