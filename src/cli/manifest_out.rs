//! Writes `DIR/manifest.json` at the end of every `wildtool run` (official, env and
//! own-history runs):
//! the core's [`Manifest`] filled from the run's settings, its end, the driver's
//! exchange log and the files the run wrote (hashed as they are on disk).

use std::path::{Path, PathBuf};

use wildtool_core::formats::meta::{rfc3339, DatasetMeta, Tokens};
use wildtool_core::formats::RunMeta;
use wildtool_core::provenance::manifest::{output_claims, CassetteUse, ExchangeLog, Manifest};
use wildtool_core::runner::engine::{Backend, RunEnd, RunSpec};

use super::files::{FileError, OutputSet};
use super::run_cmd::{unix_now, RunArgs};

/// What kind of run wrote the files, and which of them it claims.
pub(crate) struct RunKind {
    /// `official`, `env:ledger`, `own` or `own:ledger`.
    pub name: &'static str,
    /// The files of each output directory, in the order they are listed.
    pub files: &'static [&'static str],
    /// The file whose headline numbers are the run's claims.
    pub claims_from: &'static str,
    /// `gold` (the official protocol's history) or `own` (the model's own conversation).
    pub history_mode: &'static str,
}

/// An official run's files.
pub(crate) const OFFICIAL: RunKind = RunKind {
    name: "official",
    files: &["result.jsonl", "score.jsonl", "metric.json", "report.json"],
    claims_from: "metric.json",
    history_mode: "gold",
};

/// A ledger-environment run's files (an extension).
pub(crate) const ENV_LEDGER: RunKind = RunKind {
    name: "env:ledger",
    files: &["env-result.jsonl", "env-report.json"],
    claims_from: "env-report.json",
    history_mode: "gold",
};

/// An own-history run's files (an extension): the canned environment only.
pub(crate) const OWN: RunKind = RunKind {
    name: "own",
    files: &["own-result.jsonl", "own-report.json"],
    claims_from: "own-report.json",
    history_mode: "own",
};

/// An own-history run with the ledger environment (both extensions).
pub(crate) const OWN_LEDGER: RunKind = RunKind {
    name: "own:ledger",
    ..OWN
};

fn settings(
    args: &RunArgs,
    spec: &RunSpec,
    kind: &RunKind,
) -> std::collections::BTreeMap<String, serde_json::Value> {
    use serde_json::json;
    let temperature = match spec.backend() {
        Backend::Http { temperature, .. } => Some(*temperature),
        Backend::Agent(_) => None,
    };
    let endpoint = spec
        .endpoint()
        .and_then(|(_, e)| RunMeta::endpoint_of(&e.base_url));
    let pairs = [
        ("endpoint", json!(endpoint)),
        ("temperature", json!(temperature)),
        (
            "seeds",
            json!("per task and trial: runner::engine::trial_seed(trial, line, task)"),
        ),
        ("concurrency", json!(spec.concurrency())),
        ("adaptive_concurrency", json!(spec.adaptive())),
        ("timeout", json!(spec.timeout())),
        ("retries", json!(spec.retries())),
        ("backoff", json!(spec.backoff())),
        ("trials", json!(spec.trials())),
        ("preflight", json!(spec.preflight())),
        ("breaker_threshold", json!(spec.breaker_threshold())),
        ("stream", json!(spec.stream())),
        ("stream_idle_timeout", json!(spec.stream_idle_timeout())),
        ("sessions", json!(args.sessions)),
        ("lang", json!(format!("{:?}", args.lang).to_lowercase())),
        ("candidate_cap", json!(args.candidate_cap)),
        ("max_cost", json!(args.max_cost)),
        ("history_mode", json!(kind.history_mode)),
        ("env", json!(args.env_name)),
        (
            "replay_file",
            json!(args
                .replay_file
                .as_ref()
                .and_then(|p| p.file_name())
                .map(|n| n.to_string_lossy())),
        ),
        ("offline", json!(args.offline)),
    ];
    pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
}

/// The files a run writes: what kind of run it is and its output directories (one per
/// trial).
pub(crate) struct RunFiles<'a> {
    /// The kind of run (which files it writes, which holds its claims).
    pub kind: &'a RunKind,
    /// Its output directories.
    pub dirs: &'a [PathBuf],
}

/// Stages `OUT/manifest.json` in the run's output set `set`, from the staged files of
/// `files.dirs`, so the manifest is committed with the files it names.
pub(crate) fn write_manifest(
    args: &RunArgs,
    spec: &RunSpec,
    end: &RunEnd,
    exchanges: ExchangeLog,
    started_unix: f64,
    files: RunFiles<'_>,
    set: &mut OutputSet,
) -> Result<(), FileError> {
    let RunFiles { kind, dirs } = files;
    let mut outputs = Vec::new();
    for dir in dirs {
        let rel = relative(&args.out, dir);
        // The files are read where they are staged: the manifest is one file of the run's
        // output set, committed with the files it names (outputs.md). A file the run did
        // not write (nothing to score yet) is not listed.
        let staged = set.staged(if rel == "." { "" } else { &rel });
        let read: Vec<(&str, Option<Vec<u8>>)> = kind
            .files
            .iter()
            .map(|name| (*name, std::fs::read(staged.join(name)).ok()))
            .collect();
        let files: Vec<(&str, Option<&[u8]>)> =
            read.iter().map(|(n, b)| (*n, b.as_deref())).collect();
        outputs.push(output_claims(&rel, &files, kind.claims_from));
    }
    let dataset = DatasetMeta {
        fingerprint: spec.dataset().to_owned(),
        name: args
            .dataset
            .file_name()
            .map(|n| n.to_string_lossy().into_owned()),
    };
    let mut m = Manifest::new(
        kind.name,
        env!("CARGO_PKG_VERSION"),
        dataset,
        &args.provider,
        spec.model(),
    );
    m.settings = settings(args, spec, kind);
    m.started_at = rfc3339(started_unix);
    m.finished_at = rfc3339(unix_now());
    m.duration_seconds = end.progress.elapsed;
    m.tokens = Tokens {
        input: end.progress.input_tokens,
        output: end.progress.output_tokens,
    };
    m.requests = end.progress.requests;
    m.resumed_tasks = end.progress.resumed;
    m.cassette = args.cassette.as_ref().map(|c| CassetteUse {
        mode: if args.offline { "replay" } else { "record" }.to_owned(),
        file: c
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
    });
    let manifest = m.with_log(exchanges, outputs);
    set.write("manifest.json", manifest.to_json())
}

fn relative(root: &Path, dir: &Path) -> String {
    match dir.strip_prefix(root) {
        Ok(p) if p.as_os_str().is_empty() => ".".to_owned(),
        Ok(p) => p.to_string_lossy().into_owned(),
        Err(_) => dir.to_string_lossy().into_owned(),
    }
}
