//! Cost in money on the dashboard and in the comparison: the lab module's `cost_view`
//! (the core's `cost::figures`, the `cost` of `report.json`) prices each run from its
//! recorded usage with the price table Setup shows (the bundled one or the one saved).
//! The shell only gathers the runs' stored lines: the shown run's are in memory, the
//! compared runs' are read from the store (checkpoint lines, else the result text).

use wildtool_contract::inputs::{CostInput, CostRun};
use wildtool_contract::Call;

use super::Source;
use crate::msg::{Effect, GetPurpose, LabPurpose, ListPurpose};
use crate::state::AppState;
use crate::store::{checkpoint_prefix, result_key};

impl AppState {
    /// The price table in use and a run's lines, as the lab call's input.
    fn cost_input(&self, runs: Vec<CostRun>) -> String {
        serde_json::to_string(&CostInput {
            prices: self.budget.prices.clone(),
            runs,
        })
        .unwrap_or_default()
    }

    fn cost_ask(
        &mut self,
        purpose: LabPurpose,
        key: String,
        runs: impl FnOnce(&Self) -> Vec<CostRun>,
    ) -> Vec<Effect> {
        if self.lab.asked_with(purpose) == Some(key.as_str()) {
            return Vec::new();
        }
        self.lab.ask_with(purpose, key);
        let input = self.cost_input(runs(self));
        self.lab_call(Call::CostView, input, purpose)
    }

    /// The dashboard's cost of the shown run (asked when the run or the prices change).
    pub fn dash_cost_refresh(&mut self) -> Vec<Effect> {
        let Some(s) = &self.shown else {
            return Vec::new();
        };
        // What the figures are made of: the run, its lines (a stored run's arrive when it
        // is scored again), its trials and the prices.
        let scored = s.scored.as_ref();
        let lines = scored.map_or(0, |x| {
            x.records.as_ref().map_or(0, |r| r.len())
                + x.result_text.as_ref().map_or(0, |t| t.len())
        });
        let trials = self.lab.trials(&s.id).map_or(1, |t| t.len());
        let key = format!(
            "{}\n{}\n{lines} {trials}\n{}",
            s.id,
            s.label,
            self.budget.prices.as_deref().unwrap_or("")
        );
        self.cost_ask(LabPurpose::DashCost, key, |me| {
            let Some(s) = &me.shown else {
                return Vec::new();
            };
            let trials = match me.lab.trials(&s.id) {
                Some(t) if t.len() > 1 => t.to_vec(),
                _ => vec![s.outcomes.clone()],
            };
            let scored = s.scored.as_ref();
            let records = scored.and_then(|x| x.records.clone());
            let builtin = me.history.get(&s.id).is_some_and(|e| e.is_builtin());
            vec![CostRun {
                builtin,
                label: s.label.clone(),
                model: s.model.clone(),
                trials,
                text: records
                    .is_none()
                    .then(|| scored.and_then(|x| x.result_text.clone()))
                    .flatten(),
                records,
            }]
        })
    }

    /// The comparison's costs: the chosen runs' lines are read, then priced.
    pub fn compare_cost_refresh(&mut self) -> Vec<Effect> {
        if self.lab.compare_link.is_some() || self.compare_wait().is_some() {
            return Vec::new();
        }
        let chosen: Vec<(String, bool, bool)> = self
            .compare_chosen()
            .iter()
            .map(|e| (e.id.clone(), e.has_checkpoint, e.has_result_text))
            .collect();
        let mut fx = Vec::new();
        for (id, ck, text) in &chosen {
            let reads = &mut self.cost_reads;
            if reads.read.iter().any(|(k, _)| k == id) || reads.asked.contains(id) {
                continue;
            }
            if *ck {
                fx.push(Effect::KvList(
                    checkpoint_prefix(id),
                    ListPurpose::Cost(id.clone()),
                ));
            } else if *text {
                fx.push(Effect::KvGet(
                    result_key(id),
                    GetPurpose::CostText(id.clone()),
                ));
            } else {
                reads.read.push((id.clone(), None));
                continue;
            }
            reads.asked.push(id.clone());
        }
        if !fx.is_empty()
            || chosen
                .iter()
                .any(|(id, ..)| self.cost_reads.asked.contains(id))
        {
            return fx;
        }
        let mut key: Vec<&str> = chosen.iter().map(|(id, ..)| id.as_str()).collect();
        key.push(self.budget.prices.as_deref().unwrap_or(""));
        let key = key.join("\n");
        self.cost_ask(LabPurpose::CompareCost, key, |me| {
            chosen
                .iter()
                .filter_map(|(id, ..)| {
                    let e = me.history.get(id)?;
                    let run = me.run_input(id)?;
                    let source = me.cost_reads.read.iter().find(|(k, _)| k == id);
                    let (records, text) = match source.and_then(|(_, s)| s.as_ref()) {
                        Some(Source::Records(r)) => (Some(r.clone()), None),
                        Some(Source::Text(t)) => (None, Some(t.clone())),
                        None => (None, None),
                    };
                    Some(CostRun {
                        builtin: e.is_builtin(),
                        label: run.label,
                        model: e.model.clone(),
                        trials: run.trials,
                        records,
                        text,
                    })
                })
                .collect()
        })
    }

    /// A compared run's stored checkpoint lines arrived.
    pub fn cost_records_arrived(
        &mut self,
        id: &str,
        entries: Vec<(String, String)>,
    ) -> Vec<Effect> {
        let lines = entries.into_iter().map(|(_, v)| v).collect::<Vec<_>>();
        let source = (!lines.is_empty()).then_some(Source::Records(lines));
        self.cost_arrived(id, source)
    }

    /// A compared run's stored result text arrived (or none).
    pub fn cost_text_arrived(&mut self, id: &str, text: Option<String>) -> Vec<Effect> {
        self.cost_arrived(id, text.map(Source::Text))
    }

    fn cost_arrived(&mut self, id: &str, source: Option<Source>) -> Vec<Effect> {
        let reads = &mut self.cost_reads;
        reads.asked.retain(|k| k != id);
        reads.read.retain(|(k, _)| k != id);
        reads.read.push((id.to_owned(), source));
        Vec::new()
    }
}
