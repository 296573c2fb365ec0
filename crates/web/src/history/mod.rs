//! The run history: every run — live, uploaded, imported or opened from a link — kept in
//! the browser's key-value store with its metadata, and the comparison set chosen from it.
//!
//! Storage layout (keys of the IndexedDB adapter, values are text):
//! - `run/<id>`: the entry's metadata ([`HistoryEntry`], JSON);
//! - `out/<id>`: one outcome per dataset task (JSON), for the dashboard and comparisons;
//! - `ck/<id>/<seq>`: checkpoint lines in completion order, header first — exactly the
//!   lines of a `wildtool run` `checkpoint.jsonl`, so a run resumes in the page or with
//!   the CLI from the same lines;
//! - `res/<id>`: an uploaded result file's text (when small enough), for traces;
//! - `compare`: the comparison set (JSON array of ids).
//!
//! The key is never stored: entries keep the endpoint's host only.

mod update;
pub mod view;

use serde::Serialize;
use serde_json::Value;

use wildtool_core::chart::dashboard::{self, ComparisonRow};
use wildtool_core::outcome::TaskOutcome;
use wildtool_core::report::RunReport;

use crate::data::DatasetSource;

pub use crate::store::{
    checkpoint_key, checkpoint_prefix, manifest_key, meta_key, outcomes_key, result_key,
    COMPARE_KEY, RUN_PREFIX,
};

/// What is known about a run (no key, no full endpoint URL).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HistoryEntry {
    /// Id (also in addresses: `run=`).
    pub id: String,
    /// Label shown (renamable).
    pub label: String,
    /// Model name.
    pub model: String,
    /// `live`, `upload` or `link`.
    pub kind: String,
    /// Provider or agent (live runs).
    pub provider: Option<String>,
    /// Endpoint host (never the key).
    pub endpoint_host: Option<String>,
    /// The endpoint's base URL, kept in this browser so the run can be resumed; never
    /// exported.
    pub base_url: Option<String>,
    /// Settings as used (no key).
    pub settings: Option<Vec<(String, String)>>,
    /// Dataset fingerprint.
    pub dataset_fingerprint: String,
    /// Dataset name.
    pub dataset_name: String,
    /// Where the dataset can be loaded from again.
    pub dataset_source: Option<DatasetSource>,
    /// Dataset language.
    pub lang: String,
    /// Started (ms since the epoch).
    pub started_ms: f64,
    /// Finished (ms since the epoch).
    pub finished_ms: Option<f64>,
    /// Seconds the run was running.
    pub duration_s: Option<f64>,
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Completion tokens.
    pub output_tokens: u64,
    /// Requests sent.
    pub requests: u64,
    /// wildtool version.
    pub wildtool_version: String,
    /// Scorer version.
    pub scorer_version: String,
    /// `running`, `paused`, `done`, `partial`, `failed`, `cancelled`.
    pub status: String,
    /// Why it failed or stopped.
    pub reason: Option<String>,
    /// Tasks scored.
    pub tasks_scored: u64,
    /// Tasks of the dataset.
    pub tasks_total: u64,
    /// Finished tasks stored in the checkpoint.
    pub tasks_saved: u64,
    /// Task accuracy as displayed.
    pub task_accuracy: Option<String>,
    /// Session accuracy as displayed.
    pub session_accuracy: Option<String>,
    /// Checkpoint lines are stored (`ck/<id>/…`).
    pub has_checkpoint: bool,
    /// Result text is stored (`res/<id>`).
    pub has_result_text: bool,
    /// Some tasks are missing and the run can be resumed.
    pub resumable: bool,
    /// Requests in flight (adaptive concurrency and the browser's cap), for live runs.
    pub concurrency: Option<wildtool_core::formats::meta::ConcurrencyMeta>,
    /// First-token latency of a streamed run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_token: Option<wildtool_core::runner::stream::LatencySummary>,
}

impl HistoryEntry {
    /// True when a built-in agent made this run (no model was asked).
    pub fn is_builtin(&self) -> bool {
        self.provider
            .as_deref()
            .is_some_and(|p| wildtool_core::runner::registry::agent(p).is_some())
    }

    /// Reads a stored entry (JSON written by this page); `None` when it is not one. Fields
    /// that are absent or of another type take their empty value.
    pub fn parse(text: &str) -> Option<HistoryEntry> {
        let v: Value = serde_json::from_str(text).ok()?;
        let text = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
        let string = |k: &str| text(k).unwrap_or_default();
        let num = |k: &str| v.get(k).and_then(Value::as_f64);
        let count = |k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
        let flag = |k: &str| v.get(k).and_then(Value::as_bool).unwrap_or(false);
        let settings = v.get("settings").and_then(Value::as_array).map(|pairs| {
            pairs
                .iter()
                .filter_map(|p| {
                    let p = p.as_array()?;
                    Some((
                        p.first()?.as_str()?.to_owned(),
                        p.get(1)?.as_str()?.to_owned(),
                    ))
                })
                .collect()
        });
        Some(HistoryEntry {
            id: text("id")?,
            label: string("label"),
            model: string("model"),
            kind: string("kind"),
            provider: text("provider"),
            endpoint_host: text("endpoint_host"),
            base_url: text("base_url"),
            settings,
            dataset_fingerprint: string("dataset_fingerprint"),
            dataset_name: string("dataset_name"),
            dataset_source: v.get("dataset_source").and_then(DatasetSource::from_value),
            lang: string("lang"),
            started_ms: num("started_ms").unwrap_or(0.0),
            finished_ms: num("finished_ms"),
            duration_s: num("duration_s"),
            input_tokens: count("input_tokens"),
            output_tokens: count("output_tokens"),
            requests: count("requests"),
            wildtool_version: string("wildtool_version"),
            scorer_version: string("scorer_version"),
            status: string("status"),
            reason: text("reason"),
            tasks_scored: count("tasks_scored"),
            tasks_total: count("tasks_total"),
            tasks_saved: count("tasks_saved"),
            task_accuracy: text("task_accuracy"),
            session_accuracy: text("session_accuracy"),
            has_checkpoint: flag("has_checkpoint"),
            has_result_text: flag("has_result_text"),
            resumable: flag("resumable"),
            concurrency: v.get("concurrency").and_then(|c| {
                let n = |k: &str| c.get(k).and_then(Value::as_u64);
                Some(wildtool_core::formats::meta::ConcurrencyMeta {
                    max: n("max")?,
                    min: n("min")?,
                    final_limit: n("final")?,
                    decreases: n("decreases").unwrap_or(0),
                    browser_cap: n("browser_cap"),
                })
            }),
            first_token: v.get("first_token").and_then(|t| {
                let x = |k: &str| t.get(k).and_then(Value::as_f64);
                Some(wildtool_core::runner::stream::LatencySummary {
                    count: t.get("count").and_then(Value::as_u64)?,
                    median: x("median")?,
                    p90: x("p90")?,
                    mean: x("mean")?,
                    max: x("max")?,
                })
            }),
        })
    }

    /// The core's run metadata for this entry (what exports and reports carry): the
    /// endpoint's origin, never its path, the base URL or the key.
    pub fn meta(&self) -> wildtool_core::formats::RunMeta {
        use wildtool_core::formats::meta::{rfc3339, Tokens};
        use wildtool_core::report::RunStatus;
        let mut m = wildtool_core::formats::RunMeta::new(
            &self.label,
            &self.model,
            &self.dataset_fingerprint,
        );
        m.provider = self.provider.clone();
        m.endpoint = self
            .base_url
            .as_deref()
            .and_then(wildtool_core::formats::RunMeta::endpoint_of);
        m.dataset.name = Some(self.dataset_name.clone()).filter(|n| !n.is_empty());
        m.started_at = rfc3339(self.started_ms / 1000.0);
        m.finished_at = self.finished_ms.and_then(|t| rfc3339(t / 1000.0));
        m.duration_seconds = self.duration_s;
        if self.input_tokens + self.output_tokens > 0 {
            m.tokens = Some(Tokens {
                input: self.input_tokens,
                output: self.output_tokens,
            });
        }
        m.requests = (self.requests > 0).then_some(self.requests);
        m.scorer_version = self.scorer_version.clone();
        m.status = Some(RunStatus::of(self.tasks_scored, self.tasks_total));
        m.concurrency = self.concurrency;
        if self.setting("stream") == Some("true") {
            m.stream = Some(wildtool_core::formats::meta::StreamMeta {
                first_token: self.first_token,
            });
        }
        m
    }

    /// The value of setting `name`, as stored with the run.
    pub fn setting(&self, name: &str) -> Option<&str> {
        self.settings
            .as_ref()?
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The run's settings as the core's run export records them.
    pub fn export_settings(&self) -> wildtool_core::formats::run_export::RunSettings {
        let get = |k: &str| {
            self.settings
                .as_ref()
                .and_then(|s| s.iter().find(|(n, _)| n == k))
                .and_then(|(_, v)| v.trim().parse::<f64>().ok())
        };
        wildtool_core::formats::run_export::RunSettings {
            temperature: get("temperature"),
            concurrency: get("concurrency").map(|v| v as u64),
            timeout_seconds: get("timeout"),
            retries: get("retries").map(|v| v as u64),
            backoff_seconds: get("backoff"),
            trials: Some(u64::from(self.trials())).filter(|t| *t > 1),
        }
    }

    /// Trials of the run (every task run this many times; 1 without repeated trials).
    pub fn trials(&self) -> u32 {
        self.settings
            .as_ref()
            .and_then(|s| s.iter().find(|(n, _)| n == "trials"))
            .and_then(|(_, v)| v.trim().parse::<u32>().ok())
            .filter(|t| *t >= 1)
            .unwrap_or(1)
    }

    /// True while the run has not ended (it was interrupted by a reload).
    pub fn unfinished(&self) -> bool {
        matches!(self.status.as_str(), "running" | "paused")
    }
}

/// The history as loaded.
#[derive(Debug, Default)]
pub struct History {
    /// Entries, newest first.
    pub entries: Vec<HistoryEntry>,
    /// Loaded from the store.
    pub loaded: bool,
    /// Entry being renamed and the draft label.
    pub renaming: Option<(String, String)>,
    /// Ids in the comparison set, in order.
    pub compare: Vec<String>,
    /// Comparison rows of compared runs (by id), once their outcomes are read.
    pub rows: Vec<(String, ComparisonRow)>,
    /// Entry being opened.
    pub opening: Option<String>,
    /// Export the entry once opened.
    pub export_when_open: Option<String>,
    counter: u64,
}

impl History {
    /// Loads `run/…` entries from the store.
    pub fn load(&mut self, entries: &[(String, String)]) {
        let mut list: Vec<HistoryEntry> = entries
            .iter()
            .filter_map(|(_, v)| HistoryEntry::parse(v))
            .collect();
        for e in list.drain(..) {
            if !self.entries.iter().any(|x| x.id == e.id) {
                self.insert_sorted(e);
            }
        }
        self.loaded = true;
    }

    /// Inserts `entry` before the first older one (newest first).
    fn insert_sorted(&mut self, entry: HistoryEntry) {
        let at = self
            .entries
            .iter()
            .position(|e| e.started_ms < entry.started_ms)
            .unwrap_or(self.entries.len());
        self.entries.insert(at, entry);
    }

    /// The entry `id`.
    pub fn get(&self, id: &str) -> Option<&HistoryEntry> {
        self.entries.iter().find(|e| e.id == id)
    }

    /// Inserts or replaces an entry.
    pub fn put(&mut self, entry: HistoryEntry) {
        match self.entries.iter_mut().find(|e| e.id == entry.id) {
            Some(slot) => *slot = entry,
            None => self.insert_sorted(entry),
        }
    }

    /// A new id (`prefix`, time and a counter; ids only need to be unique here).
    pub fn new_id(&mut self, prefix: &str) -> String {
        self.counter += 1;
        format!("{prefix}-{}-{}", self.clock_part(), self.counter)
    }

    fn clock_part(&self) -> String {
        let newest = self
            .entries
            .iter()
            .map(|e| e.started_ms)
            .fold(0.0f64, f64::max);
        format!(
            "{:x}",
            (newest as u64).wrapping_add(self.entries.len() as u64)
        )
    }

    /// Reads the stored comparison set.
    pub fn set_compare_ids(&mut self, stored: Option<&str>) {
        self.compare = stored
            .and_then(|s| serde_json::from_str::<Value>(s).ok())
            .and_then(|v| {
                v.as_array()?
                    .iter()
                    .map(|id| id.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        let mut seen: Vec<String> = Vec::new();
        self.compare.retain(|id| {
            let new = !seen.contains(id);
            seen.push(id.clone());
            new
        });
    }

    /// Comparison rows of the compared runs other than `except`, in set order.
    pub fn compare_rows(&self, except: Option<&str>) -> Vec<ComparisonRow> {
        self.compare
            .iter()
            .filter(|id| Some(id.as_str()) != except)
            .filter_map(|id| self.row(id).cloned())
            .collect()
    }

    /// The comparison row of `id`, once read.
    pub fn row(&self, id: &str) -> Option<&ComparisonRow> {
        self.rows.iter().find(|(k, _)| k == id).map(|(_, r)| r)
    }

    /// Keeps the comparison row of `id`.
    pub fn set_row(&mut self, id: &str, row: ComparisonRow) {
        self.rows.retain(|(k, _)| k != id);
        self.rows.push((id.to_owned(), row));
    }

    /// Forgets the comparison row of `id`.
    pub fn drop_row(&mut self, id: &str) {
        self.rows.retain(|(k, _)| k != id);
    }

    /// The comparison set as stored.
    pub fn compare_json(&self) -> String {
        serde_json::to_string(&self.compare).unwrap_or_else(|_| "[]".into())
    }
}

/// A stored run (one outcome per dataset task) as a comparison row.
pub fn summarize(label: &str, outcomes: &[TaskOutcome]) -> ComparisonRow {
    dashboard::summarize(label, &RunReport::from_outcomes(outcomes))
}

/// The host of an endpoint base URL (what the history keeps of it).
pub fn endpoint_host(base_url: &str) -> Option<String> {
    wildtool_core::runner::endpoint_url::EndpointUrl::parse(base_url.trim())
        .ok()
        .map(|u| u.host().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_and_garbage_is_skipped() {
        let e = HistoryEntry {
            id: "run-1".into(),
            label: "a \"label\"".into(),
            model: "m".into(),
            kind: "live".into(),
            provider: Some("openai".into()),
            endpoint_host: Some("127.0.0.1".into()),
            base_url: Some("http://127.0.0.1:1/v1".into()),
            settings: Some(vec![("timeout".into(), "600".into())]),
            dataset_fingerprint: "00ff".into(),
            dataset_name: "the bundled suite".into(),
            dataset_source: Some(DatasetSource::Url {
                url: "http://x/y.jsonl".into(),
            }),
            lang: "en".into(),
            started_ms: 1.5e12,
            finished_ms: Some(1.6e12),
            duration_s: Some(12.5),
            input_tokens: 10,
            output_tokens: 3,
            requests: 7,
            wildtool_version: "0.1.0".into(),
            scorer_version: "s".into(),
            status: "partial".into(),
            reason: Some("cancelled".into()),
            tasks_scored: 4,
            tasks_total: 8,
            tasks_saved: 5,
            task_accuracy: Some("50.0%".into()),
            session_accuracy: None,
            has_checkpoint: true,
            has_result_text: false,
            resumable: true,
            concurrency: Some(wildtool_core::formats::meta::ConcurrencyMeta {
                max: 24,
                min: 6,
                final_limit: 12,
                decreases: 2,
                browser_cap: Some(12),
            }),
            first_token: Some(wildtool_core::runner::stream::LatencySummary {
                count: 3,
                median: 0.25,
                p90: 0.5,
                mean: 0.3,
                max: 0.5,
            }),
        };
        let text = serde_json::to_string(&e).unwrap();
        assert_eq!(HistoryEntry::parse(&text), Some(e.clone()));
        assert_eq!(
            e.meta().stream,
            None,
            "a run without the stream setting did not stream"
        );
        let mut streamed = e.clone();
        if let Some(s) = streamed.settings.as_mut() {
            s.push(("stream".into(), "true".into()));
        }
        assert_eq!(
            streamed
                .meta()
                .stream
                .and_then(|s| s.first_token)
                .map(|t| t.median),
            Some(0.25),
            "the run metadata records that the run streamed"
        );
        assert_eq!(HistoryEntry::parse("{\"label\": 1}"), None);
        assert_eq!(HistoryEntry::parse("garbage"), None);
        let mut h = History::default();
        h.load(&[
            ("run/a".into(), "{\"id\": \"a\", \"started_ms\": 1}".into()),
            ("run/b".into(), "{\"id\": \"b\", \"started_ms\": 3}".into()),
            ("run/c".into(), "not json".into()),
        ]);
        assert_eq!(
            h.entries.iter().map(|e| e.id.as_str()).collect::<Vec<_>>(),
            ["b", "a"]
        );
    }
}
