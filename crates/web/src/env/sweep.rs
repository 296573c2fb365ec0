//! Ledger-environment sweeps in the page (an extension, never official numbers): when the
//! levels of a sweep are `env=ledger` suites (`challenge=…`, or any factor with
//! `env=ledger` held), each level runs as an env run in gold history — the setup's
//! ledger-environment choice is switched on for the sweep and given back after it — and
//! the level's `env-result.jsonl` goes to the lab module's sweep analysis with its
//! dataset, which counts it on `env_success` as `wildtool sweep` does.

use super::SavedEnvChoice;
use crate::state::AppState;

impl AppState {
    /// Before a ledger level's run: env runs, gold history. Returns the choice to give back
    /// (the first time only).
    pub fn env_sweep_choose(&mut self, saved: &mut Option<SavedEnvChoice>) {
        if saved.is_none() {
            *saved = Some(SavedEnvChoice {
                env: self.setup.env,
                history: self.setup.history.clone(),
            });
        }
        self.setup.env = true;
        self.setup.history = "gold".into();
    }

    /// After a ledger sweep: the setup's own choice again.
    pub fn env_sweep_restore(&mut self, saved: &mut Option<SavedEnvChoice>) {
        if let Some(s) = saved.take() {
            self.setup.env = s.env;
            self.setup.history = s.history;
        }
    }

    /// True while an env run waits for the lab module to load (it starts once it has).
    pub fn env_run_pending(&self) -> bool {
        self.env.awaiting.is_some()
    }

    /// The env run `id` once it ended and is shown: its `env-result.jsonl` and task
    /// success as displayed.
    pub fn env_level_result(&self, id: &str) -> Option<(String, Option<String>)> {
        let shown = self.env.shown.as_ref().filter(|s| s.id == id)?;
        let result = shown.result.clone()?;
        let accuracy = serde_json::from_str::<serde_json::Value>(&shown.headline)
            .ok()
            .and_then(|h| {
                h.get("env_task_success")
                    .and_then(|v| v.as_str())
                    .map(|s| format!("env task success {s}"))
            });
        Some((result, accuracy))
    }
}
