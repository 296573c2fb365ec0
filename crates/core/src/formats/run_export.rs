//! The page's run export (`*.wildtool-run.json`): one JSON document holding a run's
//! metadata, settings, results (as checkpoint records or as an official result file) and
//! outcomes. This build writes version 2 and reads versions 1 and 2.
//!
//! Version 1 (written by earlier pages) was
//! `{"wildtool_run": 1, "scorer", "model", "label", "dataset_fingerprint",
//! "settings": {"provider", "model", "temperature", "concurrency", "timeout"},
//! "records", "result_jsonl", "outcomes"}`; it is read into the version-2 shape.
//!
//! A reader scores `records` / `result_jsonl` again (see [`super::upload`]); the stored
//! `outcomes` are what the run showed when it was exported.

use serde::{Deserialize, Serialize};

use super::meta::{DatasetMeta, RunMeta};
use crate::input::checked::Fields;
use crate::input::limits::{self, Limit};
use crate::input::FormatError;
use crate::outcome::TaskOutcome;

/// The run export version this build writes.
pub const RUN_EXPORT_VERSION: u64 = 2;

/// The settings a run was made with (never a key or a base URL; the endpoint's origin is
/// in [`RunMeta::endpoint`]). Absent settings are `None`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RunSettings {
    /// Sampling temperature.
    #[serde(default)]
    pub temperature: Option<f64>,
    /// Largest number of requests in flight.
    #[serde(default)]
    pub concurrency: Option<u64>,
    /// Per-request timeout in seconds.
    #[serde(default)]
    pub timeout_seconds: Option<f64>,
    /// Retries per request.
    #[serde(default)]
    pub retries: Option<u64>,
    /// First retry wait in seconds.
    #[serde(default)]
    pub backoff_seconds: Option<f64>,
    /// Repeated trials of every task.
    #[serde(default)]
    pub trials: Option<u64>,
}

/// A run exported by the page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunExport {
    /// Format marker and version ([`RUN_EXPORT_VERSION`]).
    pub wildtool_run: u64,
    /// What the run was.
    pub meta: RunMeta,
    /// How it was run.
    #[serde(default)]
    pub settings: RunSettings,
    /// Checkpoint lines of the finished tasks (no header), for runs made in the page.
    #[serde(default)]
    pub records: Option<Vec<String>>,
    /// The official result file text, for runs scored from one.
    #[serde(default)]
    pub result_jsonl: Option<String>,
    /// One outcome per dataset task (unscored ones marked incomplete) as exported.
    #[serde(default)]
    pub outcomes: Vec<TaskOutcome>,
    /// The run's manifest (`manifest.json`, [`crate::provenance::manifest::Manifest`])
    /// as its JSON text, for runs made in the page: written by [`RunExport::to_json`] as
    /// the object member `manifest` (version 2; nothing when absent), read with
    /// [`RunExport::manifest_of`] ([`RunExport::parse`] leaves it `None`), so the page's
    /// module neither writes nor copies a JSON tree for it.
    #[serde(skip)]
    pub manifest: Option<String>,
}

const WHAT: &str = "run export";

impl RunExport {
    /// A version-2 export.
    pub fn new(meta: RunMeta, settings: RunSettings) -> Self {
        Self {
            wildtool_run: RUN_EXPORT_VERSION,
            meta,
            settings,
            records: None,
            result_jsonl: None,
            outcomes: Vec::new(),
            manifest: None,
        }
    }

    /// The document's JSON text (with the manifest, when there is one, as its last
    /// member).
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string(self).unwrap_or_default();
        if let Some(m) = self.manifest.as_deref().map(str::trim) {
            if m.starts_with('{') && text.ends_with('}') {
                text.pop();
                text.push_str(",\"manifest\":");
                text.push_str(m);
                text.push('}');
            }
        }
        text
    }

    /// The manifest member of an export's text, as JSON text (`None` without one or when
    /// the text is not an export's JSON).
    pub fn manifest_of(bytes: &[u8]) -> Option<String> {
        let value: serde_json::Value = serde_json::from_slice(bytes).ok()?;
        value
            .get("manifest")
            .filter(|m| m.is_object())
            .map(ToString::to_string)
    }

    /// Reads a version-1 or version-2 export; every field is type-checked and a wrong
    /// one is named in the error.
    pub fn parse(bytes: &[u8]) -> Result<Self, FormatError> {
        limits::check(Limit::Document, bytes.len() as u64, None).map_err(FormatError::Limit)?;
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        let value: serde_json::Value =
            serde_json::from_slice(bytes).map_err(|e| FormatError::Json {
                what: WHAT,
                message: e.to_string(),
            })?;
        let f = Fields::root(WHAT, &value)?;
        let version: u64 = f.req("wildtool_run")?;
        let records = f.list::<String>("records")?;
        let result_jsonl = f.opt::<String>("result_jsonl")?;
        let outcomes = f.list::<TaskOutcome>("outcomes")?.unwrap_or_default();
        match version {
            1 => {
                let settings = f.obj("settings")?;
                let provider = match &settings {
                    Some(s) => s.opt::<String>("provider")?,
                    None => None,
                };
                let model: String = f.req("model")?;
                let meta = RunMeta {
                    label: f.opt::<String>("label")?.unwrap_or_else(|| model.clone()),
                    model,
                    provider,
                    dataset: DatasetMeta {
                        fingerprint: f.opt::<String>("dataset_fingerprint")?.unwrap_or_default(),
                        name: None,
                    },
                    scorer_version: f.opt::<String>("scorer")?.unwrap_or_default(),
                    ..RunMeta::default()
                };
                let settings = match settings {
                    Some(s) => RunSettings {
                        temperature: s.opt("temperature")?,
                        concurrency: s.opt("concurrency")?,
                        timeout_seconds: s.opt("timeout")?,
                        ..RunSettings::default()
                    },
                    None => RunSettings::default(),
                };
                Ok(Self {
                    wildtool_run: 1,
                    meta,
                    settings,
                    records,
                    result_jsonl,
                    outcomes,
                    manifest: None,
                })
            }
            2 => {
                let meta = match f.obj("meta")? {
                    Some(m) => RunMeta::from_fields(&m)?,
                    None => {
                        return Err(FormatError::Field {
                            what: WHAT,
                            path: "meta".to_owned(),
                            problem: "is missing".to_owned(),
                        })
                    }
                };
                let settings = match f.obj("settings")? {
                    Some(s) => RunSettings {
                        temperature: s.opt("temperature")?,
                        concurrency: s.opt("concurrency")?,
                        timeout_seconds: s.opt("timeout_seconds")?,
                        retries: s.opt("retries")?,
                        backoff_seconds: s.opt("backoff_seconds")?,
                        trials: s.opt("trials")?,
                    },
                    None => RunSettings::default(),
                };
                Ok(Self {
                    wildtool_run: 2,
                    meta,
                    settings,
                    records,
                    result_jsonl,
                    outcomes,
                    manifest: None,
                })
            }
            other => Err(FormatError::Version {
                what: WHAT,
                found: other.to_string(),
                supported: "versions 1 and 2",
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_two_round_trips() {
        let mut meta = RunMeta::new("my run", "org/m", "00aa");
        meta.endpoint = RunMeta::endpoint_of("http://127.0.0.1:8000/v1");
        meta.status = Some(crate::report::RunStatus::Partial);
        let mut doc = RunExport::new(
            meta,
            RunSettings {
                temperature: Some(0.0),
                concurrency: Some(8),
                ..RunSettings::default()
            },
        );
        doc.records = Some(vec!["{\"id\": \"x\"}".to_owned()]);
        let text = doc.to_json();
        assert!(text.starts_with("{\"wildtool_run\":2,"), "{text}");
        assert_eq!(RunExport::parse(text.as_bytes()), Ok(doc));
    }

    #[test]
    fn version_one_is_read() {
        let v1 = r#"{"wildtool_run":1,"scorer":"s","model":"m","label":"L","dataset_fingerprint":"ab","settings":{"provider":"openai","model":"m","temperature":0.5,"concurrency":4,"timeout":600},"records":["r1"],"result_jsonl":null,"outcomes":[]}"#;
        let doc = RunExport::parse(v1.as_bytes()).expect("reads");
        assert_eq!(doc.wildtool_run, 1);
        assert_eq!(doc.meta.label, "L");
        assert_eq!(doc.meta.provider.as_deref(), Some("openai"));
        assert_eq!(doc.meta.dataset.fingerprint, "ab");
        assert_eq!(doc.settings.timeout_seconds, Some(600.0));
        assert_eq!(doc.records, Some(vec!["r1".to_owned()]));
    }

    #[test]
    fn wrong_fields_are_named_not_trapped() {
        let cases = [
            (r#"{"wildtool_run":1,"model":5}"#, "field \"model\""),
            (
                r#"{"wildtool_run":1,"model":"m","records":[1]}"#,
                "field \"records[0]\"",
            ),
            (
                r#"{"wildtool_run":1,"model":"m","settings":{"temperature":"hot"}}"#,
                "field \"settings.temperature\"",
            ),
            (
                r#"{"wildtool_run":2,"meta":{"model":"m","tokens":{"input":-1,"output":0}}}"#,
                "field \"meta.tokens\"",
            ),
            (r#"{"wildtool_run":2}"#, "field \"meta\" is missing"),
            (r#"{"wildtool_run":"2"}"#, "field \"wildtool_run\""),
            (
                r#"{"wildtool_run":1,"model":"m","outcomes":[{"session":0}]}"#,
                "field \"outcomes[0]\"",
            ),
            (r#"[1]"#, "expected a JSON object"),
            (r#"{"wildtool_run":3,"model":"m"}"#, "format version 3"),
            ("{\"wildtool_run\":1,", "not valid JSON"),
        ];
        for (text, want) in cases {
            let e = RunExport::parse(text.as_bytes()).unwrap_err().to_string();
            assert!(e.contains(want), "{text}: {e}");
        }
    }
}
