//! Ledger-environment runs in the Compare view (an extension, never official numbers).
//! When the runs chosen for the comparison are env runs, their stored result files
//! (`env-result.jsonl` in gold history, `own-result.jsonl` in own history) are read and
//! sent to the lab module's `env_compare_view`, which scores them, pairs them on
//! `env_success` as `wildtool compare` does and draws the env metrics, the paired test and
//! — with a gold-history and an own-history run — the self-conditioning figure. An env run
//! is never compared with an official run.

use wildtool_contract::env::{EnvCompareInput, EnvCompareRun, EnvSession};
use wildtool_contract::Call;
use wildtool_core::json::{dumps, Escape};

use crate::env::{result_key, ENV_KIND};
use crate::lab::CompareWait;
use crate::msg::{Effect, GetPurpose, LabPurpose};
use crate::state::AppState;

/// The env runs' result files read for the comparison.
#[derive(Debug, Default)]
pub struct EnvCompared {
    /// Result texts by history id (`None`: not stored in this browser).
    results: Vec<(String, Option<String>)>,
    /// Ids asked for.
    asked: Vec<String>,
    /// What the last comparison was asked for (its runs).
    pub key: Option<String>,
}

impl AppState {
    fn env_chosen(&self) -> Option<Vec<&crate::history::HistoryEntry>> {
        if self.lab.compare_link.is_some() {
            return None;
        }
        let chosen = self.compare_chosen();
        chosen.iter().any(|e| e.kind == ENV_KIND).then_some(chosen)
    }

    /// Why an env comparison cannot be asked for yet (`None`: the chosen runs are not
    /// env runs; `Some(None)`: ready).
    pub fn env_compare_wait(&self) -> Option<Option<CompareWait>> {
        let chosen = self.env_chosen()?;
        let c = &self.env.compared;
        Some(if chosen.len() < 2 {
            Some(CompareWait::TooFew(chosen.len()))
        } else if chosen.iter().any(|e| e.kind != ENV_KIND) {
            Some(CompareWait::Mixed)
        } else if self.dataset.is_none() {
            Some(CompareWait::NoDataset)
        } else {
            chosen
                .iter()
                .find_map(|e| match c.results.iter().find(|(id, _)| *id == e.id) {
                    Some((_, Some(_))) => None,
                    Some((_, None)) => Some(CompareWait::Missing(e.label.clone())),
                    None => Some(CompareWait::Reading),
                })
        })
    }

    /// The comparison view's work when the chosen runs are env runs (`None` otherwise):
    /// read their result files, then ask the lab module when the runs changed.
    pub fn env_compare_refresh(&mut self) -> Option<Vec<Effect>> {
        let ids: Vec<String> = self.env_chosen()?.iter().map(|e| e.id.clone()).collect();
        let mut fx = Vec::new();
        for id in ids {
            let c = &mut self.env.compared;
            if !c.asked.contains(&id) {
                c.asked.push(id.clone());
                fx.push(Effect::KvGet(result_key(&id), GetPurpose::EnvCompare(id)));
            }
        }
        if !fx.is_empty() || self.env_compare_wait().flatten().is_some() {
            return Some(fx);
        }
        let dataset = self.dataset?;
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
        if self.env.compared.key.as_deref() == Some(key.as_str()) {
            return Some(fx);
        }
        let runs = chosen
            .iter()
            .filter_map(|e| {
                let (_, text) = self
                    .env
                    .compared
                    .results
                    .iter()
                    .find(|(id, _)| *id == e.id)?;
                Some(EnvCompareRun {
                    label: e.label.clone(),
                    result: text.clone()?,
                })
            })
            .collect();
        let sessions = self
            .env_sessions()
            .into_iter()
            .map(|s| EnvSession {
                line: s.index,
                text: dumps(&s.raw, Escape::Utf8),
            })
            .collect();
        let input = EnvCompareInput {
            fingerprint: dataset.fingerprint.clone(),
            shapes: dataset.shapes.clone(),
            sessions,
            runs,
        };
        self.env.compared.key = Some(key);
        // The official comparison's answer is replaced: ask it again when it is shown.
        self.lab.forget_compare();
        Some(self.lab_call(
            Call::EnvCompareView,
            serde_json::to_string(&input).unwrap_or_default(),
            LabPurpose::Compare,
        ))
    }

    /// A chosen env run's stored result file arrived (`None`: not stored).
    pub fn env_compare_arrived(&mut self, id: &str, value: Option<String>) -> Vec<Effect> {
        let c = &mut self.env.compared;
        c.results.retain(|(k, _)| k != id);
        c.results.push((id.to_owned(), value));
        Vec::new()
    }
}
