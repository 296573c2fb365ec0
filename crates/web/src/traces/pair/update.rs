//! The handlers of traces side by side: the second run read from the history and scored
//! again, the columns asked of the lab module.

use super::*;
use crate::history::{checkpoint_prefix, outcomes_key, result_key};
use crate::msg::{Effect, GetPurpose, LabPurpose, ListPurpose};
use crate::route::View;
use crate::scoring::{JobStep, ScoreJob};
use crate::state::{AppState, Now};

impl AppState {
    /// Traces side by side are shown: reads the second run (once) and asks the lab module
    /// to render both columns whenever what they show changes.
    pub fn pair_refresh(&mut self) -> Vec<Effect> {
        if self.route.view != View::Traces {
            return Vec::new();
        }
        let (Some(vs), Some(s), Some(t)) =
            (self.route.vs.clone(), self.route.session, self.route.task)
        else {
            return Vec::new();
        };
        if self.vs.as_ref().is_none_or(|v| v.id != vs) {
            if !self.history.loaded || self.dataset.is_none() {
                return Vec::new();
            }
            let entry = self.history.get(&vs);
            let known = entry.is_some();
            // A run of another dataset has other tasks under these numbers.
            let other = entry
                .filter(|e| {
                    self.dataset
                        .is_some_and(|d| d.fingerprint != e.dataset_fingerprint)
                })
                .map(|e| {
                    format!(
                        "Run {vs} was made on another dataset ({}): its tasks are not this one.",
                        e.dataset_name
                    )
                });
            self.vs = Some(VsRun {
                id: vs.clone(),
                done: !known || other.is_some(),
                note: other,
                ..VsRun::default()
            });
            if known && self.vs.as_ref().is_some_and(|v| v.note.is_none()) {
                return vec![Effect::KvGet(outcomes_key(&vs), GetPurpose::VsOutcomes(vs))];
            }
        }
        let run = self.route.run.clone().unwrap_or_default();
        let shown = self.shown.as_ref().filter(|r| r.id == run);
        let entry_a = self.history.get(&run);
        // Run A is read while it is being opened or scored, B until nothing more comes.
        let a_reading = match shown {
            None => entry_a.is_some(),
            Some(r) => {
                r.scored.is_none()
                    && (self.rescore.as_ref().is_some_and(|j| j.id == run)
                        || entry_a.is_some_and(|e| e.has_checkpoint || e.has_result_text))
            }
        };
        let Some(v) = self.vs.as_ref() else {
            return Vec::new();
        };
        let b_label = self
            .history
            .get(&vs)
            .map_or(String::new(), |e| e.label.clone());
        let key = format!(
            "{run}|{vs}|{s}|{t}|{}|{}|{}|{}|{}|{b_label}|{}",
            shown.is_some(),
            shown.is_some_and(|r| r.scored.is_some()),
            a_reading,
            v.outcomes.is_some(),
            v.scored.is_some(),
            v.done
        );
        if v.key.as_deref() == Some(key.as_str()) {
            return Vec::new();
        }
        let a_label = shown.map_or(String::new(), |r| r.label.clone());
        let b_reading = !v.done && v.scored.is_none();
        let mut column_b = column(
            &vs,
            &b_label,
            v.outcomes.as_deref(),
            v.scored.as_ref(),
            b_reading,
            (s, t),
        );
        if let Some(note) = &v.note {
            column_b.note = note.clone().into();
        }
        let input = serde_json::to_string(&PairInput {
            position: t,
            columns: vec![
                column(
                    &run,
                    &a_label,
                    shown.map(|r| r.outcomes.as_slice()),
                    shown.and_then(|r| r.scored.as_ref()),
                    a_reading,
                    (s, t),
                ),
                column_b,
            ],
        })
        .unwrap_or_default();
        // Another pair or task: its answer is not shown meanwhile.
        let same = v
            .key
            .as_deref()
            .is_some_and(|k| k.split('|').take(4).eq(key.split('|').take(4)));
        if !same {
            self.lab.clear(LabPurpose::TracePair);
        }
        if let Some(v) = self.vs.as_mut() {
            v.key = Some(key);
            v.reading = a_reading || b_reading;
        }
        self.lab_call(TRACE_PAIR, input, LabPurpose::TracePair)
    }

    /// The second run's outcomes arrived: its records are read next.
    pub fn vs_outcomes_arrived(&mut self, id: &str, value: Option<String>) -> Vec<Effect> {
        let outcomes = value
            .as_deref()
            .and_then(wildtool_core::outcome::outcomes_from_json);
        let entry = self.history.get(id).cloned();
        let Some(v) = self.vs.as_mut().filter(|v| v.id == id) else {
            return Vec::new();
        };
        let (Some(outcomes), Some(entry)) = (outcomes, entry) else {
            v.done = true;
            return Vec::new();
        };
        v.outcomes = Some(outcomes);
        if entry.has_checkpoint {
            vec![Effect::KvList(
                checkpoint_prefix(id),
                ListPurpose::Vs(id.to_owned()),
            )]
        } else if entry.has_result_text {
            vec![Effect::KvGet(
                result_key(id),
                GetPurpose::VsResultText(id.to_owned()),
            )]
        } else {
            v.done = true;
            Vec::new()
        }
    }

    /// The second run's stored checkpoint lines arrived: they are scored.
    pub fn vs_records_arrived(&mut self, id: &str, entries: Vec<(String, String)>) -> Vec<Effect> {
        let (Some(dataset), Some(entry)) = (self.dataset, self.history.get(id)) else {
            return self.vs_text_arrived(id, None, None);
        };
        let model = entry.model.clone();
        let lines: Vec<String> = entries.into_iter().map(|(_, v)| v).collect();
        match crate::upload::assembled(dataset, &model, &lines) {
            Ok((text, _)) => self.vs_text_arrived(id, Some(text), Some(model)),
            Err(_) => self.vs_text_arrived(id, None, None),
        }
    }

    /// The second run's result text arrived (or none): it is scored for its score lines.
    pub fn vs_text_arrived(
        &mut self,
        id: &str,
        text: Option<String>,
        model: Option<String>,
    ) -> Vec<Effect> {
        let dataset = self.dataset;
        let Some(v) = self.vs.as_mut().filter(|v| v.id == id) else {
            return Vec::new();
        };
        let (Some(text), Some(dataset)) = (text, dataset) else {
            v.done = true;
            return Vec::new();
        };
        let mut job = ScoreJob::new(dataset);
        for (i, line) in text.lines().enumerate() {
            job.push(i + 1, line.to_owned());
        }
        v.job = Some((job, model));
        self.vs_continue(Now::default())
    }

    /// Scores the next slice of the second run's records.
    pub fn vs_continue(&mut self, _now: Now) -> Vec<Effect> {
        let Some((job, _)) = self.vs.as_mut().and_then(|v| v.job.as_mut()) else {
            return Vec::new();
        };
        let mut fx = Vec::new();
        match job.run(64) {
            JobStep::NeedsJieba => {
                let text = job.next_text().unwrap_or("").to_owned();
                self.needs_jieba(&text, &mut fx);
                return fx;
            }
            JobStep::More => return vec![Effect::ContinueSoon],
            JobStep::Idle => {}
        }
        if let Some(v) = self.vs.as_mut() {
            if let Some((job, model)) = v.job.take() {
                v.scored = Some(job.finish(model.as_deref()));
            }
            v.done = true;
        }
        fx
    }
}
