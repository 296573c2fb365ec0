//! The checkpoint of an environment run: the same append-only task records as an official
//! run's checkpoint (`runner::checkpoint`), whose results are environment traces, under
//! their own header `{"wildtool_env_checkpoint": 1, "model_name", "dataset",
//! "env_version", "history_mode"}`, so an official run and an environment run can never
//! resume from each other's file.

use std::collections::BTreeMap;

use crate::json::{dumps, loads, Escape, Map, Value};

use super::checkpoint::{CheckpointMismatch, TaskRecord};

/// The header's marker key.
pub const ENV_CHECKPOINT_KEY: &str = "wildtool_env_checkpoint";

/// What an environment run is: its environment version and history mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvMode {
    /// The environment's version (`wildtool-ledger-env/1`).
    pub env_version: String,
    /// `gold` (tasks see the official gold history) or `own` (each task continues the
    /// model's own conversation of the earlier tasks).
    pub history: String,
}

impl EnvMode {
    /// Gold history with the given environment version.
    pub fn gold(env_version: &str) -> Self {
        Self {
            env_version: env_version.to_owned(),
            history: "gold".to_owned(),
        }
    }

    /// Own history with the given environment version.
    pub fn own(env_version: &str) -> Self {
        Self {
            env_version: env_version.to_owned(),
            history: "own".to_owned(),
        }
    }

    /// True for own history (tasks of a session run in order, each after the one before).
    pub fn is_own(&self) -> bool {
        self.history == "own"
    }
}

/// The header line of an environment checkpoint.
pub fn env_header_line(model: &str, dataset: &str, mode: &EnvMode) -> String {
    let mut m = Map::new();
    m.insert(ENV_CHECKPOINT_KEY, Value::int(1));
    m.insert("model_name", Value::str(model));
    m.insert("dataset", Value::str(dataset));
    m.insert("env_version", Value::str(mode.env_version.clone()));
    m.insert("history_mode", Value::str(mode.history.clone()));
    dumps(&Value::Object(m), Escape::Utf8)
}

/// Finished tasks of every trial from stored lines, keyed by `(trial, line, task)`. Fails
/// when a header (official or environment) names another run.
pub fn recover_env_trials(
    lines: &[String],
    model: &str,
    dataset: &str,
    mode: &EnvMode,
) -> Result<BTreeMap<(u32, usize, usize), TaskRecord>, CheckpointMismatch> {
    let mut done = BTreeMap::new();
    let mismatch = |found_model: String, found_dataset: String| CheckpointMismatch {
        model: model.to_owned(),
        dataset: format!("{dataset} ({}, {} history)", mode.env_version, mode.history),
        found_model,
        found_dataset,
    };
    for line in lines {
        let Ok(v) = loads(line) else { continue };
        let text = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
        if v.get("wildtool_checkpoint").is_some() {
            return Err(mismatch(
                text("model_name"),
                format!("{} (an official run)", text("dataset")),
            ));
        }
        if v.get(ENV_CHECKPOINT_KEY).is_some() {
            let same = text("model_name") == model
                && text("dataset") == dataset
                && text("env_version") == mode.env_version
                && text("history_mode") == mode.history;
            if !same {
                return Err(mismatch(
                    text("model_name"),
                    format!(
                        "{} ({}, {} history)",
                        text("dataset"),
                        text("env_version"),
                        text("history_mode")
                    ),
                ));
            }
            continue;
        }
        if let Some(rec) = TaskRecord::from_line(line) {
            done.insert((rec.trial, rec.line, rec.task), rec);
        }
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::checkpoint::header_line;

    #[test]
    fn env_and_official_checkpoints_never_mix() {
        let mode = EnvMode::gold("wildtool-ledger-env/1");
        let h = env_header_line("m", "fp", &mode);
        assert!(recover_env_trials(std::slice::from_ref(&h), "m", "fp", &mode).is_ok());
        assert!(recover_env_trials(std::slice::from_ref(&h), "other", "fp", &mode).is_err());
        assert!(recover_env_trials(&[h], "m", "fp", &EnvMode::gold("v2")).is_err());
        assert!(recover_env_trials(&[header_line("m", "fp")], "m", "fp", &mode).is_err());
    }
}
