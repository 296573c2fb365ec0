//! Run metadata: what a run was, shared by the page's run export, its run history and
//! `report.json`. It never holds an API key, and of the endpoint only its origin
//! (`scheme://host[:port]`): a base URL's path or query can carry credentials on some
//! gateways, so neither is kept.

use serde::{Deserialize, Serialize};

use crate::input::checked::Fields;
use crate::input::FormatError;
use crate::report::RunStatus;
use crate::runner::endpoint_url::EndpointUrl;
use crate::runner::stream::LatencySummary;

/// The dataset a run was made on.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct DatasetMeta {
    /// Fingerprint of the dataset text (16 hex digits).
    pub fingerprint: String,
    /// A name for it: the file name, URL or "bundled suite" (`None` when unknown).
    #[serde(default)]
    pub name: Option<String>,
}

/// Tokens used by a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Tokens {
    /// Prompt tokens reported by the endpoint.
    pub input: u64,
    /// Completion tokens reported by the endpoint.
    pub output: u64,
}

/// How many requests a live run kept in flight: adaptive concurrency's limit (which
/// halves on rate limiting and grows back) and, for page runs, the browser's cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ConcurrencyMeta {
    /// The concurrency setting: the most requests in flight.
    pub max: u64,
    /// The lowest limit adaptive concurrency reached.
    pub min: u64,
    /// The limit at the end.
    #[serde(rename = "final")]
    pub final_limit: u64,
    /// How many times the limit was halved.
    #[serde(default)]
    pub decreases: u64,
    /// The most requests the browser kept in flight (six connections per host name over
    /// HTTP/1.1); absent when nothing capped it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub browser_cap: Option<u64>,
}

/// A run whose requests were streamed, and what streaming measured.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct StreamMeta {
    /// Seconds from sending a request to its first chunk of model output (absent when no
    /// streamed reply produced output).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_token: Option<LatencySummary>,
}

/// What a run was: model, endpoint, dataset, when, how much, and with which scorer.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RunMeta {
    /// The label shown for the run (the model name unless the user renamed it).
    pub label: String,
    /// The model name sent to the endpoint and written into the result file.
    pub model: String,
    /// Provider or built-in agent (`openai`, `anthropic`, `gemini`, `gold`, `baseline`,
    /// `replay`); `None` for results scored offline.
    #[serde(default)]
    pub provider: Option<String>,
    /// Origin of the endpoint (`scheme://host[:port]`); never a path, query, credentials
    /// or the key. `None` for built-in agents and offline results.
    #[serde(default)]
    pub endpoint: Option<String>,
    /// The dataset.
    #[serde(default)]
    pub dataset: DatasetMeta,
    /// When the run started (RFC 3339, UTC; see [`rfc3339`]).
    #[serde(default)]
    pub started_at: Option<String>,
    /// When the run ended (RFC 3339, UTC).
    #[serde(default)]
    pub finished_at: Option<String>,
    /// Time spent running, in seconds (pauses excluded where the adapter knows them).
    #[serde(default)]
    pub duration_seconds: Option<f64>,
    /// Tokens reported by the endpoint.
    #[serde(default)]
    pub tokens: Option<Tokens>,
    /// HTTP requests sent (retries included).
    #[serde(default)]
    pub requests: Option<u64>,
    /// The wildtool version that made the run.
    #[serde(default)]
    pub wildtool_version: String,
    /// The scorer version string (`wildtool-X+wtb-…`) its outcomes were scored with.
    #[serde(default)]
    pub scorer_version: String,
    /// `done`, `partial` or `failed` under the counting rule; `None` when unknown (a
    /// version-1 export).
    #[serde(default)]
    pub status: Option<RunStatus>,
    /// Requests in flight during a live run (absent for offline results and older files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<ConcurrencyMeta>,
    /// Present when the run streamed its requests (absent for runs without streaming).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<StreamMeta>,
}

impl RunMeta {
    /// Metadata with this build's versions and the given label, model and dataset.
    pub fn new(label: &str, model: &str, fingerprint: &str) -> Self {
        Self {
            label: label.to_owned(),
            model: model.to_owned(),
            dataset: DatasetMeta {
                fingerprint: fingerprint.to_owned(),
                name: None,
            },
            wildtool_version: env!("CARGO_PKG_VERSION").to_owned(),
            scorer_version: crate::SCORER_VERSION.to_owned(),
            ..Self::default()
        }
    }

    /// The endpoint origin recorded for `base_url` (`None` when it is not a usable
    /// http(s) URL).
    pub fn endpoint_of(base_url: &str) -> Option<String> {
        EndpointUrl::parse(base_url).ok().map(|u| u.origin())
    }

    /// Reads run metadata from a checked object (every field type-checked and named).
    pub(crate) fn from_fields(f: &Fields<'_>) -> Result<Self, FormatError> {
        let dataset = match f.obj("dataset")? {
            Some(d) => DatasetMeta {
                fingerprint: d.opt::<String>("fingerprint")?.unwrap_or_default(),
                name: d.opt("name")?,
            },
            None => DatasetMeta::default(),
        };
        Ok(Self {
            label: f.opt::<String>("label")?.unwrap_or_default(),
            model: f.req("model")?,
            provider: f.opt("provider")?,
            endpoint: f.opt("endpoint")?,
            dataset,
            started_at: f.opt("started_at")?,
            finished_at: f.opt("finished_at")?,
            duration_seconds: f.opt("duration_seconds")?,
            tokens: f.opt("tokens")?,
            requests: f.opt("requests")?,
            wildtool_version: f.opt::<String>("wildtool_version")?.unwrap_or_default(),
            scorer_version: f.opt::<String>("scorer_version")?.unwrap_or_default(),
            status: f.opt("status")?,
            concurrency: match f.obj("concurrency")? {
                Some(c) => Some(ConcurrencyMeta {
                    max: c.opt("max")?.unwrap_or_default(),
                    min: c.opt("min")?.unwrap_or_default(),
                    final_limit: c.opt("final")?.unwrap_or_default(),
                    decreases: c.opt("decreases")?.unwrap_or_default(),
                    browser_cap: c.opt("browser_cap")?,
                }),
                None => None,
            },
            stream: match f.obj("stream")? {
                Some(s) => Some(StreamMeta {
                    first_token: match s.obj("first_token")? {
                        // Read field by field: a typed reader would add its own copy of
                        // the deserializer to the page's module.
                        Some(t) => match (
                            t.opt::<u64>("count")?,
                            t.opt::<f64>("median")?,
                            t.opt::<f64>("p90")?,
                            t.opt::<f64>("mean")?,
                            t.opt::<f64>("max")?,
                        ) {
                            (Some(count), Some(median), Some(p90), Some(mean), Some(max)) => {
                                Some(LatencySummary {
                                    count,
                                    median,
                                    p90,
                                    mean,
                                    max,
                                })
                            }
                            _ => None,
                        },
                        None => None,
                    },
                }),
                None => None,
            },
        })
    }
}

/// A Unix time in seconds as RFC 3339 UTC with second precision
/// (`1718443812.5` → `2024-06-15T09:30:12Z`); `None` for times before 1970 or not finite.
/// Both front doors format run times with it.
pub fn rfc3339(unix_seconds: f64) -> Option<String> {
    if !unix_seconds.is_finite() || !(0.0..=253_402_300_799.0).contains(&unix_seconds) {
        return None;
    }
    let secs = unix_seconds.floor() as i64;
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil date from days since 1970-01-01 (proleptic Gregorian).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    Some(format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_and_endpoints() {
        assert_eq!(rfc3339(0.0).as_deref(), Some("1970-01-01T00:00:00Z"));
        assert_eq!(
            rfc3339(1_718_443_812.5).as_deref(),
            Some("2024-06-15T09:30:12Z")
        );
        assert_eq!(
            rfc3339(951_782_400.0).as_deref(),
            Some("2000-02-29T00:00:00Z")
        );
        assert_eq!(rfc3339(f64::NAN), None);
        assert_eq!(rfc3339(-1.0), None);
        assert_eq!(
            RunMeta::endpoint_of("https://API.example.com:443/v1?key=secret").as_deref(),
            Some("https://api.example.com")
        );
        assert_eq!(
            RunMeta::endpoint_of("http://127.0.0.1:8000/v1").as_deref(),
            Some("http://127.0.0.1:8000")
        );
        assert_eq!(RunMeta::endpoint_of("https://u:p@h/v1"), None);
        let m = RunMeta::new("l", "m", "ab");
        assert_eq!(m.scorer_version, crate::SCORER_VERSION);
    }

    #[test]
    fn a_streamed_run_says_so_and_reads_back() {
        let read = |m: &RunMeta| {
            let v = serde_json::to_value(m).expect("serialises");
            let f = Fields::root("run", &v).expect("object");
            (
                v.get("stream").cloned(),
                RunMeta::from_fields(&f).expect("reads"),
            )
        };
        let plain = RunMeta::new("l", "m", "ab");
        assert_eq!(
            read(&plain),
            (None, plain.clone()),
            "no stream field without streaming"
        );
        let mut streamed = plain;
        let mut l = crate::runner::stream::Latencies::new();
        l.push(0.25);
        streamed.stream = Some(StreamMeta {
            first_token: l.summary(),
        });
        let (field, back) = read(&streamed);
        assert_eq!(back, streamed);
        assert_eq!(
            field.and_then(|s| s.get("first_token").and_then(|t| t.get("median")).cloned()),
            Some(serde_json::json!(0.25))
        );
    }
}
