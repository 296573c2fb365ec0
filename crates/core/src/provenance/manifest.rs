//! The run manifest (`manifest.json`): what a run was and what it claims, so that someone
//! else can check it. It holds the wildtool and scorer versions, the dataset's name and
//! fingerprint, the provider and model, every setting, what the server said it was
//! (`system_fingerprint` and model id, as returned), times and token totals, the SHA-256
//! of every request body sent and every reply body received (in order per task), the
//! SHA-256 of every output file and the headline numbers it claims. It never holds a key,
//! a header value or an endpoint's path or query.
//!
//! [`ExchangeLog`] is what a driver feeds while a run goes (request sent, reply bytes,
//! reply received); [`Manifest`] is the document, written with [`Manifest::to_json`] and
//! read with [`Manifest::parse`].

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::sha256_hex;
use crate::formats::meta::{DatasetMeta, Tokens};
use crate::input::FormatError;
use crate::runner::engine::TaskKey;
use crate::runner::http::HttpReply;

/// The format version written.
pub const MANIFEST_VERSION: u64 = 1;

/// One request and its reply, as hashes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Exchange {
    /// SHA-256 of the request body as sent.
    pub request_sha256: String,
    /// SHA-256 of the reply body as received (for a streamed reply, of the event stream's
    /// bytes); `None` when no body came back (a network failure, a refusal).
    pub reply_sha256: Option<String>,
    /// The reply's status (`None` without a response).
    pub status: Option<u16>,
}

/// The exchanges of one task, in the order they were sent (retries included).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskExchanges {
    /// Trial, 1-based.
    pub trial: u32,
    /// The session's 0-based line in the dataset.
    pub line: usize,
    /// The task's 0-based position in its session.
    pub task: usize,
    /// Requests and replies in order.
    pub exchanges: Vec<Exchange>,
}

/// What the server said it was, as returned in its replies (distinct values in the order
/// first seen).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ServerSeen {
    /// `system_fingerprint` values (OpenAI-compatible servers).
    #[serde(default)]
    pub system_fingerprints: Vec<String>,
    /// Model ids (`model`, Gemini's `modelVersion`).
    #[serde(default)]
    pub models: Vec<String>,
}

impl ServerSeen {
    fn note(&mut self, body: &str) {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(body) else {
            return;
        };
        let add = |list: &mut Vec<String>, value: Option<&serde_json::Value>| {
            if let Some(s) = value.and_then(serde_json::Value::as_str) {
                if !list.iter().any(|x| x == s) {
                    list.push(s.to_owned());
                }
            }
        };
        add(&mut self.system_fingerprints, v.get("system_fingerprint"));
        add(&mut self.models, v.get("model"));
        add(&mut self.models, v.get("modelVersion"));
    }
}

/// Where a sent request's exchange is: its task (trial, line, position; `None` for the
/// preflight) and its index in that task's list.
type Slot = (Option<(u32, usize, usize)>, usize);

/// Records a run's exchanges as a driver reports them. Request ids are the engine's.
#[derive(Debug, Default)]
pub struct ExchangeLog {
    /// Requests sent and not yet answered: their place in `tasks` or `preflight`.
    pending: HashMap<u64, Slot>,
    streams: HashMap<u64, Sha256>,
    tasks: BTreeMap<(u32, usize, usize), Vec<Exchange>>,
    preflight: Vec<Exchange>,
    server: ServerSeen,
}

impl ExchangeLog {
    /// An empty log.
    pub fn new() -> Self {
        Self::default()
    }

    fn slot(&mut self, at: &Slot) -> Option<&mut Exchange> {
        match at.0 {
            Some(k) => self.tasks.get_mut(&k)?.get_mut(at.1),
            None => self.preflight.get_mut(at.1),
        }
    }

    /// Request `id` of `task` (`None`: the preflight) was sent with `body`.
    pub fn sent(&mut self, id: u64, task: Option<TaskKey>, body: &str) {
        let exchange = Exchange {
            request_sha256: sha256_hex(body.as_bytes()),
            reply_sha256: None,
            status: None,
        };
        let key = task.map(|t| (t.trial, t.line, t.task));
        let list = match key {
            Some(k) => self.tasks.entry(k).or_default(),
            None => &mut self.preflight,
        };
        list.push(exchange);
        let at = list.len() - 1;
        self.pending.insert(id, (key, at));
    }

    /// A streamed reply's head arrived.
    pub fn head(&mut self, id: u64, status: u16) {
        if let Some(at) = self.pending.get(&id).cloned() {
            if let Some(e) = self.slot(&at) {
                e.status = Some(status);
            }
        }
        self.streams.entry(id).or_default();
    }

    /// More bytes of a streamed reply.
    pub fn bytes(&mut self, id: u64, chunk: &[u8]) {
        self.streams.entry(id).or_default().update(chunk);
    }

    /// A streamed reply ended.
    pub fn ended(&mut self, id: u64) {
        let hash = self.streams.remove(&id).map(|h| {
            let digest = h.finalize();
            digest
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        });
        if let Some(at) = self.pending.remove(&id) {
            if let Some(e) = self.slot(&at) {
                e.reply_sha256 = hash;
            }
        }
    }

    /// The whole reply to request `id` arrived.
    pub fn replied(&mut self, id: u64, reply: &HttpReply) {
        self.streams.remove(&id);
        let Some(at) = self.pending.remove(&id) else {
            return;
        };
        let (status, body) = match reply {
            HttpReply::Response(r) => (Some(r.status), Some(r.body.as_str())),
            HttpReply::TooLarge { status, .. } => (Some(*status), None),
            _ => (None, None),
        };
        if let Some(b) = body {
            if status.is_some_and(|s| (200..300).contains(&s)) {
                self.server.note(b);
            }
        }
        if let Some(e) = self.slot(&at) {
            e.status = status.or(e.status);
            e.reply_sha256 = body.map(|b| sha256_hex(b.as_bytes()));
        }
    }

    /// The exchanges per task (trial, line, task order), the preflight's, and what the
    /// server said it was.
    pub fn finish(self) -> (Vec<TaskExchanges>, Vec<Exchange>, ServerSeen) {
        let tasks = self
            .tasks
            .into_iter()
            .map(|((trial, line, task), exchanges)| TaskExchanges {
                trial,
                line,
                task,
                exchanges,
            })
            .collect();
        (tasks, self.preflight, self.server)
    }
}

/// The numbers one output directory claims, with the hashes of its files.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct OutputClaims {
    /// The directory, relative to the run directory (`.`, `trial-2`).
    pub dir: String,
    /// SHA-256 of each file written there, by file name.
    pub files: BTreeMap<String, String>,
    /// The headline numbers, by name (see [`headline_claims`]).
    pub claims: BTreeMap<String, serde_json::Value>,
}

/// How a run used a cassette.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CassetteUse {
    /// `record` or `replay`.
    pub mode: String,
    /// The cassette's file name (no directory).
    pub file: String,
}

/// The manifest document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// The format version ([`MANIFEST_VERSION`]).
    pub wildtool_manifest: u64,
    /// The wildtool version that ran.
    pub wildtool_version: String,
    /// The scorer's version ([`crate::SCORER_VERSION`]).
    pub scorer_version: String,
    /// `official`, or `env:ledger` for a ledger-environment run (an extension, never an
    /// official number).
    pub kind: String,
    /// The dataset.
    pub dataset: DatasetMeta,
    /// Provider or built-in agent.
    pub provider: String,
    /// Model name sent.
    pub model: String,
    /// Every setting of the run, by name.
    pub settings: BTreeMap<String, serde_json::Value>,
    /// What the server said it was.
    pub server: ServerSeen,
    /// When the run started and finished (RFC 3339, UTC), and how long it took.
    pub started_at: Option<String>,
    /// See `started_at`.
    pub finished_at: Option<String>,
    /// Seconds the run took.
    pub duration_seconds: f64,
    /// Token totals of the whole run (all trials).
    pub tokens: Tokens,
    /// Requests sent (retries and the preflight included).
    pub requests: u64,
    /// Tasks taken from an earlier invocation's checkpoint: their exchanges were made then
    /// and are not listed here.
    pub resumed_tasks: u64,
    /// The cassette, when one was used.
    #[serde(default)]
    pub cassette: Option<CassetteUse>,
    /// The preflight's exchanges.
    #[serde(default)]
    pub preflight: Vec<Exchange>,
    /// Every task's exchanges.
    pub exchanges: Vec<TaskExchanges>,
    /// Each output directory's files and claims.
    pub outputs: Vec<OutputClaims>,
}

impl Manifest {
    /// Pretty JSON with a final newline.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }

    /// Reads a manifest, naming the field that is wrong.
    pub fn parse(text: &str) -> Result<Self, FormatError> {
        let v: serde_json::Value = serde_json::from_str(text).map_err(|e| FormatError::Json {
            what: "manifest.json",
            message: e.to_string(),
        })?;
        match v
            .get("wildtool_manifest")
            .and_then(serde_json::Value::as_u64)
        {
            Some(MANIFEST_VERSION) => {}
            Some(other) => {
                return Err(FormatError::Version {
                    what: "manifest.json",
                    found: other.to_string(),
                    supported: "1",
                })
            }
            None => {
                return Err(FormatError::Field {
                    what: "manifest.json",
                    path: "wildtool_manifest".to_owned(),
                    problem: "is missing (not a run manifest)".to_owned(),
                })
            }
        }
        serde_json::from_value(v).map_err(|e| FormatError::Field {
            what: "manifest.json",
            path: String::new(),
            problem: e.to_string(),
        })
    }

    /// The exchanges of one task.
    pub fn task(&self, trial: u32, line: usize, task: usize) -> Option<&TaskExchanges> {
        self.exchanges
            .iter()
            .find(|t| t.trial == trial && t.line == line && t.task == task)
    }

    /// Every reply hash in the manifest (a set, for checking a cassette against it).
    pub fn reply_hashes(&self) -> BTreeSet<&str> {
        self.exchanges
            .iter()
            .flat_map(|t| &t.exchanges)
            .chain(&self.preflight)
            .filter_map(|e| e.reply_sha256.as_deref())
            .collect()
    }
}

/// One output directory's files and claims: the SHA-256 of each file written (`None`:
/// not written, not listed) and the headline numbers of the file named `claims_from`.
pub fn output_claims(
    dir: &str,
    files: &[(&str, Option<&[u8]>)],
    claims_from: &str,
) -> OutputClaims {
    let mut out = OutputClaims {
        dir: dir.to_owned(),
        ..OutputClaims::default()
    };
    for (name, bytes) in files {
        let Some(bytes) = bytes else {
            continue;
        };
        out.files.insert((*name).to_owned(), sha256_hex(bytes));
        if *name == claims_from {
            out.claims = headline_claims(name, &String::from_utf8_lossy(bytes));
        }
    }
    out
}

impl Manifest {
    /// A run's manifest before its exchanges and outputs: the format and scorer versions
    /// filled in, every other field empty for the front door to set.
    pub fn new(
        kind: &str,
        wildtool_version: &str,
        dataset: DatasetMeta,
        provider: &str,
        model: &str,
    ) -> Manifest {
        Manifest {
            wildtool_manifest: MANIFEST_VERSION,
            wildtool_version: wildtool_version.to_owned(),
            scorer_version: crate::SCORER_VERSION.to_owned(),
            kind: kind.to_owned(),
            dataset,
            provider: provider.to_owned(),
            model: model.to_owned(),
            settings: BTreeMap::new(),
            server: ServerSeen::default(),
            started_at: None,
            finished_at: None,
            duration_seconds: 0.0,
            tokens: Tokens::default(),
            requests: 0,
            resumed_tasks: 0,
            cassette: None,
            preflight: Vec::new(),
            exchanges: Vec::new(),
            outputs: Vec::new(),
        }
    }

    /// The manifest with the run's exchange log (every task's and the preflight's hashes,
    /// what the server said it was) and its outputs: how both front doors (`wildtool
    /// run`, the page's lab module) finish it.
    pub fn with_log(mut self, log: ExchangeLog, outputs: Vec<OutputClaims>) -> Manifest {
        (self.exchanges, self.preflight, self.server) = log.finish();
        self.outputs = outputs;
        self
    }
}

/// The claimed headline numbers of an output file: for `metric.json`, task and session
/// accuracy with their counts (`task.accuracy`, `task.correct_count`, …); for an
/// `env-report.json`, its numeric top-level members (`tasks_scored`, …) and those one
/// level under `ledger_env` (`env_task_success.value`, …); for an own-history run's
/// `own-report.json`, the numbers of its task and session accuracy
/// (`task_accuracy.rate`, …), of its error-propagation share (`propagation.share`, …) and
/// of its ledger sessions' verdict (`ledger_env.session_verdict.rate`, …). Unknown files
/// claim nothing.
pub fn headline_claims(file_name: &str, text: &str) -> BTreeMap<String, serde_json::Value> {
    let mut out = BTreeMap::new();
    let Ok(v) = serde_json::from_str::<serde_json::Value>(text) else {
        return out;
    };
    let numbers = |prefix: &str, obj: Option<&serde_json::Value>, out: &mut BTreeMap<_, _>| {
        if let Some(map) = obj.and_then(serde_json::Value::as_object) {
            for (k, x) in map {
                if x.is_number() {
                    out.insert(format!("{prefix}{k}"), x.clone());
                }
            }
        }
    };
    match file_name {
        "metric.json" => {
            for level in ["task", "session"] {
                numbers(
                    &format!("{level}."),
                    v.get("total_info").and_then(|t| t.get(level)),
                    &mut out,
                );
            }
        }
        "env-report.json" => {
            numbers("", Some(&v), &mut out);
            if let Some(m) = v.get("ledger_env").and_then(serde_json::Value::as_object) {
                for (name, x) in m {
                    numbers(&format!("{name}."), Some(x), &mut out);
                }
            }
        }
        "own-report.json" => {
            let report = v.get("report").and_then(|d| d.get("report"));
            for key in ["task_accuracy", "session_accuracy"] {
                numbers(
                    &format!("{key}."),
                    report.and_then(|r| r.get(key)),
                    &mut out,
                );
            }
            numbers("propagation.", v.get("propagation"), &mut out);
            numbers(
                "ledger_env.session_verdict.",
                v.get("ledger_env").and_then(|l| l.get("session_verdict")),
                &mut out,
            );
        }
        _ => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::http::HttpResponse;

    #[test]
    fn log_keeps_order_per_task_and_server_ids() {
        let mut log = ExchangeLog::new();
        let key = TaskKey {
            trial: 1,
            line: 2,
            task: 0,
        };
        log.sent(1, None, "p");
        log.sent(2, Some(key), "a");
        log.sent(3, Some(key), "b");
        log.replied(3, &HttpReply::Response(HttpResponse::new(500, "x")));
        log.replied(
            2,
            &HttpReply::Response(HttpResponse::new(
                200,
                r#"{"model": "m-1", "system_fingerprint": "fp_1"}"#,
            )),
        );
        log.head(1, 200);
        log.bytes(1, b"ab");
        log.bytes(1, b"c");
        log.ended(1);
        let (tasks, pre, server) = log.finish();
        assert_eq!(tasks.len(), 1);
        let ex = &tasks[0].exchanges;
        assert_eq!(ex[0].request_sha256, sha256_hex(b"a"));
        assert_eq!(ex[1].status, Some(500));
        assert_eq!(
            pre[0].reply_sha256.as_deref(),
            Some(sha256_hex(b"abc").as_str())
        );
        assert_eq!(server.models, ["m-1"]);
        assert_eq!(server.system_fingerprints, ["fp_1"]);
    }

    #[test]
    fn claims_of_a_metric_file() {
        let c = headline_claims(
            "metric.json",
            r#"{"total_info": {"task": {"accuracy": 0.5, "correct_count": 1, "total_count": 2}, "session": {"accuracy": 0.0}}}"#,
        );
        assert_eq!(c.len(), 4);
        assert_eq!(c.get("task.accuracy"), Some(&serde_json::json!(0.5)));
    }

    #[test]
    fn parse_names_the_problem() {
        let e = Manifest::parse("{}")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains("wildtool_manifest"), "{e}");
        let e = Manifest::parse(r#"{"wildtool_manifest": 9}"#)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains("version 9"), "{e}");
    }
}
