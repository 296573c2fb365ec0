//! Ledger sessions in own history: the model's ledger carries from task to task.

use std::collections::BTreeMap;

use crate::dataset::LoadedDataset;
use crate::json::Value;
use crate::ledger::run_file::SessionEnv;

/// The own-history env metrics of the ledger sessions among `traces` (`None` when no
/// scored session has a ledger environment).
pub fn metrics_json(
    dataset: &LoadedDataset,
    envs: &BTreeMap<usize, SessionEnv>,
    traces: &BTreeMap<usize, Vec<Value>>,
) -> Option<serde_json::Value> {
    let _ = (dataset, envs, traces);
    None
}
