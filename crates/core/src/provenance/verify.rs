//! Verification of a bundle: a run directory's files (or a set of files: a manifest, a
//! result file and the claimed `metric.json` / `report.json` / `score.jsonl`, or the
//! official harness's result file with its `metric.json`) checked against the dataset.
//!
//! [`verify`] re-scores every result file against the dataset, recomputes every claimed
//! file and number and every hash it can, and returns one [`Claim`] per check, each
//! holding or not with the first difference (the first differing task where labels
//! differ). A pure function of the files' text: the command line and the page call it
//! alike ([`verify_json`] is the JSON-in, JSON-out form).
//!
//! The claims, in order:
//! - `dataset`: the dataset's fingerprint is the manifest's (or the report's);
//! - `DIR/result.jsonl sha256`: the result file is the one the manifest hashed;
//! - `DIR/labels`: the labels recorded in the result file are the ones re-scoring gives;
//! - `DIR/score.jsonl`, `DIR/metric.json`, `DIR/report.json`: the claimed file is the
//!   re-scored one, byte for byte (else the first differing line or JSON member);
//! - `DIR/manifest files`: the manifest's hashes of those files are the re-scored files';
//! - `DIR/headline`: the manifest's headline numbers are the re-scored ones;
//! - `replies`: with a cassette, every request and reply the manifest hashed is in it
//!   and its body still has that hash (first differing task named).
//!
//! An environment run (`env:ledger`, an extension) is checked the same way on its
//! `env-result.jsonl` and `env-report.json`, and an own-history run (`own`,
//! `own:ledger`, an extension) on its `own-result.jsonl` and `own-report.json`
//! (re-made by the function the run writes it with, `own::rescore`).

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use super::cassette::Cassette;
use super::manifest::{headline_claims, Manifest, TaskExchanges};
use super::sha256_hex;
use crate::checker::Segmenter;
use crate::dataset::{fingerprint_hex, Lang, LoadedDataset};
use crate::formats::report_doc::{ReportDataset, ReportDoc, ReportInput};
use crate::formats::score_file::{self, ScoreOrder, SEPARATOR};
use crate::input::lines;
use crate::report::fill_outcomes;
use crate::score::{OfficialChecker, ScoreOptions, Scorer};
use crate::share::task_shapes;

/// One output directory's files, by file name (`result.jsonl`, `metric.json`, …; an
/// official harness's `*_result.jsonl` / `*_metric.json` are named by their suffix).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BundleDir {
    /// The directory relative to the run (`.`, `trial-2`), as the manifest names it.
    pub dir: String,
    /// File texts by name.
    pub files: BTreeMap<String, String>,
}

/// A run file exported by the page (`*.wildtool-run.json`, named `name` in messages) read
/// as a bundle's parts: its manifest and the result file its records assemble to on
/// `dataset`, in `.`, or one directory per trial (`trial-1`, …) for repeated trials, as
/// `wildtool run --trials K` writes them. The command line and the page's Verify drop
/// zone both read run files with it.
pub fn run_export_parts(
    name: &str,
    text: &str,
    dataset: &str,
    lang: Lang,
) -> Result<(String, Vec<BundleDir>), String> {
    use crate::formats::RunExport;
    let doc = RunExport::parse(text.as_bytes()).map_err(|e| format!("{name}: {e}"))?;
    let manifest = RunExport::manifest_of(text.as_bytes()).ok_or_else(|| {
        format!("{name} has no manifest (a run file of a run made in the page has one)")
    })?;
    let loaded = crate::dataset::load_dataset(dataset, lang);
    let texts =
        crate::formats::upload::run_export_trial_results(&doc, &loaded, &fingerprint_hex(dataset))
            .map_err(|e| format!("{name}: {e}"))?;
    let many = texts.len() > 1;
    let dirs = texts
        .into_iter()
        .enumerate()
        .map(|(i, text)| BundleDir {
            dir: if many {
                format!("trial-{}", i + 1)
            } else {
                ".".to_owned()
            },
            files: BTreeMap::from([("result.jsonl".to_owned(), text)]),
        })
        .collect();
    Ok((manifest, dirs))
}

/// Whether `text` is a run file exported by the page.
pub fn is_run_export(text: &str) -> bool {
    text.trim_start().starts_with("{\"wildtool_run\"")
}

/// What is verified.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Bundle {
    /// The dataset's text.
    pub dataset: String,
    /// `manifest.json`, when the bundle has one.
    #[serde(default)]
    pub manifest: Option<String>,
    /// The output directories.
    pub dirs: Vec<BundleDir>,
    /// The cassette's text, when the bundle has one.
    #[serde(default)]
    pub cassette: Option<String>,
}

/// One checked claim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Claim {
    /// What is claimed (`dataset`, `trial-2/metric.json`, …).
    pub name: String,
    /// It holds.
    pub holds: bool,
    /// What was checked, or the first difference.
    pub detail: String,
}

/// The verdicts of a bundle.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Verification {
    /// Every claim checked, in order.
    pub claims: Vec<Claim>,
}

impl Verification {
    /// Every claim holds (and there was at least one).
    pub fn all_hold(&self) -> bool {
        !self.claims.is_empty() && self.claims.iter().all(|c| c.holds)
    }

    fn add(&mut self, name: impl Into<String>, holds: bool, detail: impl Into<String>) {
        self.claims.push(Claim {
            name: name.into(),
            holds,
            detail: detail.into(),
        });
    }

    /// One line per claim: `✓ name: detail` or `✗ name: detail`.
    pub fn lines(&self) -> String {
        let mut out = String::new();
        for c in &self.claims {
            let mark = if c.holds { '✓' } else { '✗' };
            out.push_str(&format!("{mark} {}: {}\n", c.name, c.detail));
        }
        out
    }
}

/// Why a bundle cannot be verified at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BundleError {
    /// The manifest is not readable.
    #[error("manifest.json: {0}")]
    Manifest(String),
    /// The cassette is not readable.
    #[error("cassette: {0}")]
    Cassette(String),
    /// Nothing to verify: no result file in any directory.
    #[error("the bundle holds no result file (result.jsonl, *_result.jsonl, env-result.jsonl or own-result.jsonl)")]
    NoResults,
}

/// The file of `dir` whose name is `name` or ends in `_name`.
fn file<'a>(dir: &'a BundleDir, name: &str) -> Option<&'a str> {
    dir.files.get(name).map(String::as_str).or_else(|| {
        dir.files
            .iter()
            .find(|(k, _)| k.ends_with(&format!("_{name}")))
            .map(|(_, v)| v.as_str())
    })
}

/// Verifies `bundle` (see the module docs); `segmenter` segments Chinese text for the
/// argument checker, as in scoring.
pub fn verify(
    bundle: &Bundle,
    lang: Lang,
    candidate_cap: usize,
    segmenter: &dyn Segmenter,
) -> Result<Verification, BundleError> {
    let manifest = match &bundle.manifest {
        Some(text) => {
            Some(Manifest::parse(text).map_err(|e| BundleError::Manifest(e.to_string()))?)
        }
        None => None,
    };
    let cassette = match &bundle.cassette {
        Some(text) => Some(
            Cassette::parse(text.as_bytes()).map_err(|e| BundleError::Cassette(e.to_string()))?,
        ),
        None => None,
    };
    let has_results = bundle.dirs.iter().any(|d| {
        file(d, "result.jsonl").is_some()
            || d.files.contains_key("env-result.jsonl")
            || d.files.contains_key("own-result.jsonl")
    });
    if !has_results {
        return Err(BundleError::NoResults);
    }
    let mut v = Verification::default();
    let fingerprint = fingerprint_hex(&bundle.dataset);
    let loaded = crate::protocol::load_checked(&bundle.dataset, lang);
    match &manifest {
        Some(m) => {
            let holds = m.dataset.fingerprint == fingerprint;
            let detail = if holds {
                format!(
                    "fingerprint {fingerprint}{}",
                    m.dataset
                        .name
                        .as_ref()
                        .map(|n| format!(" ({n})"))
                        .unwrap_or_default()
                )
            } else {
                format!(
                    "the manifest's dataset has fingerprint {}, the dataset given has {fingerprint}",
                    m.dataset.fingerprint
                )
            };
            v.add("dataset", holds, detail);
        }
        None => {
            let claimed = bundle
                .dirs
                .iter()
                .filter_map(|d| file(d, "report.json"))
                .find_map(|t| ReportDoc::parse(t.as_bytes()).ok())
                .map(|r| r.dataset.fingerprint);
            if let Some(fp) = claimed.filter(|f| !f.is_empty()) {
                let holds = fp == fingerprint;
                v.add(
                    "dataset",
                    holds,
                    if holds {
                        format!("fingerprint {fingerprint} (report.json)")
                    } else {
                        format!("report.json's dataset has fingerprint {fp}, the dataset given has {fingerprint}")
                    },
                );
            }
        }
    }
    let mut turn_difference = None;
    for dir in &bundle.dirs {
        let claims = manifest
            .as_ref()
            .and_then(|m| m.outputs.iter().find(|o| o.dir == dir.dir));
        let prefix = if dir.dir == "." || dir.dir.is_empty() {
            String::new()
        } else {
            format!("{}/", dir.dir)
        };
        let mut recomputed: BTreeMap<String, String> = BTreeMap::new();
        let result_name;
        if let Some(result) = dir.files.get("env-result.jsonl") {
            result_name = "env-result.jsonl";
            match crate::ledger::run_file::score_file(&loaded.sessions, &fingerprint, result, false)
            {
                Ok(scored) => {
                    recomputed.insert("env-report.json".to_owned(), scored.report);
                }
                Err(e) => v.add(
                    format!("{prefix}env-result.jsonl"),
                    false,
                    format!("cannot be re-scored: {e}"),
                ),
            }
        } else if let Some(result) = dir.files.get("own-result.jsonl") {
            result_name = "own-result.jsonl";
            let dataset_file = manifest.as_ref().and_then(|m| m.dataset.name.clone());
            let check = OfficialChecker::new(segmenter);
            let options = ScoreOptions { candidate_cap };
            match crate::own::rescore::rescore(
                &loaded,
                &fingerprint,
                dataset_file,
                result,
                &check,
                options,
            ) {
                Ok(re) => {
                    recomputed.insert("own-report.json".to_owned(), re.report_json);
                }
                Err(e) => v.add(
                    format!("{prefix}own-result.jsonl"),
                    false,
                    format!("cannot be re-scored: {e}"),
                ),
            }
        } else if let Some(result) = file(dir, "result.jsonl") {
            result_name = "result.jsonl";
            let r = rescore(&loaded, result, candidate_cap, segmenter);
            if turn_difference.is_none() {
                turn_difference = r.stats.first_turn_difference.clone();
            }
            v.add(
                format!("{prefix}labels"),
                r.label_difference.is_none(),
                match &r.label_difference {
                    None => format!(
                        "the recorded labels of {} task(s) are the re-scored ones",
                        r.tasks
                    ),
                    Some(d) => d.clone(),
                },
            );
            if let Some(claimed) = file(dir, "report.json") {
                if let Some(text) = rebuild_report(&loaded, &fingerprint, &r, claimed) {
                    recomputed.insert("report.json".to_owned(), text);
                }
            }
            recomputed.insert("score.jsonl".to_owned(), r.score_jsonl);
            recomputed.insert("metric.json".to_owned(), r.metric_json);
        } else {
            continue;
        }
        if let Some(c) = claims {
            if let (Some(want), Some(text)) = (c.files.get(result_name), file(dir, result_name)) {
                let got = sha256_hex(text.as_bytes());
                let holds = *want == got;
                v.add(
                    format!("{prefix}{result_name} sha256"),
                    holds,
                    if holds {
                        format!("{got}, as in the manifest")
                    } else {
                        format!("the file's SHA-256 is {got}, the manifest says {want}")
                    },
                );
            }
        }
        for (name, text) in &recomputed {
            if let Some(claimed) = file(dir, name) {
                let diff = first_difference(name, claimed, text);
                v.add(
                    format!("{prefix}{name}"),
                    diff.is_none(),
                    diff.unwrap_or_else(|| "equals the re-scored file byte for byte".to_owned()),
                );
            }
        }
        if let Some(c) = claims {
            let mut differing = Vec::new();
            let mut checked = 0;
            for (name, want) in &c.files {
                if let Some(text) = recomputed.get(name) {
                    checked += 1;
                    let got = sha256_hex(text.as_bytes());
                    if *want != got {
                        differing.push(format!(
                            "{name}: the manifest says {want}, the re-scored file's is {got}"
                        ));
                    }
                }
            }
            if checked > 0 {
                v.add(
                    format!("{prefix}manifest files"),
                    differing.is_empty(),
                    differing.first().cloned().unwrap_or_else(|| {
                        format!("{checked} file hash(es) equal the re-scored files'")
                    }),
                );
            }
            let source = match result_name {
                "env-result.jsonl" => "env-report.json",
                "own-result.jsonl" => "own-report.json",
                _ => "metric.json",
            };
            if let Some(text) = recomputed.get(source) {
                let got = headline_claims(source, text);
                let first = c.claims.iter().find(|(k, want)| got.get(*k) != Some(*want));
                v.add(
                    format!("{prefix}headline"),
                    first.is_none(),
                    match first {
                        None => format!(
                            "{} claimed number(s) equal the re-scored ones",
                            c.claims.len()
                        ),
                        Some((k, want)) => format!(
                            "{k}: claimed {want}, re-scored {}",
                            got.get(k)
                                .map(|g| g.to_string())
                                .unwrap_or_else(|| "nothing".to_owned())
                        ),
                    },
                );
            }
        }
    }
    if let (Some(claim), Some(d)) = (
        v.claims
            .iter_mut()
            .find(|c| c.name == "dataset" && !c.holds),
        turn_difference,
    ) {
        let id = loaded
            .session_at(d.session)
            .map(|s| s.id.clone())
            .unwrap_or_else(|| format!("line {}", d.session));
        claim.detail.push_str(&format!(
            "; the first differing task is session {id}, task {} (task_idx {}): recorded {:?}, the dataset has {:?}",
            d.task + 1,
            d.task,
            d.recorded,
            d.dataset
        ));
    }
    if let (Some(m), Some(c)) = (&manifest, &cassette) {
        v.claims.push(check_replies(m, c, &loaded));
    }
    Ok(v)
}

/// [`verify`] over JSON: `{"bundle": Bundle, "lang": "en"|"zh"}` in, `{"claims": […],
/// "all_hold": bool}` or `{"error": "…"}` out.
pub fn verify_json(input: &str, segmenter: &dyn Segmenter) -> String {
    let parsed: Result<serde_json::Value, _> = serde_json::from_str(input);
    let out = match parsed {
        Err(e) => serde_json::json!({"error": format!("not JSON: {e}")}),
        Ok(v) => {
            let lang = match v.get("lang").and_then(serde_json::Value::as_str) {
                Some("zh") => Lang::Zh,
                _ => Lang::En,
            };
            match v
                .get("bundle")
                .cloned()
                .map(serde_json::from_value::<Bundle>)
            {
                Some(Ok(b)) => {
                    match verify(&b, lang, crate::protocol::DEFAULT_CANDIDATE_CAP, segmenter) {
                        Ok(r) => serde_json::json!({"claims": r.claims, "all_hold": r.all_hold()}),
                        Err(e) => serde_json::json!({"error": e.to_string()}),
                    }
                }
                Some(Err(e)) => serde_json::json!({"error": format!("bundle: {e}")}),
                None => serde_json::json!({"error": "field \"bundle\" is missing"}),
            }
        }
    };
    out.to_string()
}

struct Rescored {
    score_jsonl: String,
    metric_json: String,
    outcomes: Vec<crate::outcome::TaskOutcome>,
    stats: crate::score::ScoreStats,
    model: String,
    tasks: usize,
    label_difference: Option<String>,
}

fn rescore(
    loaded: &LoadedDataset,
    result: &str,
    candidate_cap: usize,
    segmenter: &dyn Segmenter,
) -> Rescored {
    let check = OfficialChecker::new(segmenter);
    let mut scorer = Scorer::new(loaded, &check, ScoreOptions { candidate_cap });
    let mut order = ScoreOrder::new();
    for (span, line) in lines::split(result.as_bytes()) {
        match line {
            Ok(Some(t)) => order.push(score_file::sort_key(t), span.number, (span.number, t)),
            Ok(None) => {}
            Err(e) => scorer.skip(crate::score::LineError::from(e)),
        }
    }
    let mut score_jsonl = String::new();
    let mut outcomes = Vec::new();
    let mut tasks = 0;
    let mut label_difference = None;
    for (number, text) in order.into_sorted() {
        let Ok(line) = scorer.score_line(number, text) else {
            continue;
        };
        tasks += line.outcomes.len();
        if label_difference.is_none() {
            if let Some(&t) = scorer.disagreeing_tasks().first() {
                label_difference = Some(labels_differ(text, &line.score_line, t).unwrap_or_else(|| {
                    format!("session {}, task {} (task_idx {t}): the recorded labels are not the ones replaying the recorded replies gives", line.id, t + 1)
                }));
            }
        }
        if !score_jsonl.is_empty() {
            score_jsonl.push_str(SEPARATOR);
        }
        score_jsonl.push_str(&line.score_line);
        outcomes.extend(line.outcomes);
    }
    let model = score_file::model_name(None, &scorer);
    Rescored {
        metric_json: scorer.metric_json(&model),
        stats: scorer.final_stats(),
        score_jsonl,
        outcomes,
        model,
        tasks,
        label_difference,
    }
}

/// For task `task` of a line whose recorded labels the replay changed: the first label it
/// records (per task: `action_name_label`, `is_optimal`; per step: `current_action_*`)
/// that differs from the score line's, with the session and task named.
fn labels_differ(result_line: &str, score_line: &str, task: usize) -> Option<String> {
    let r: serde_json::Value = serde_json::from_str(result_line).ok()?;
    let s: serde_json::Value = serde_json::from_str(score_line).ok()?;
    let id = r
        .get("id")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("?");
    let recorded = r.get("result").and_then(serde_json::Value::as_array)?;
    let scored = s.get("results").and_then(serde_json::Value::as_array)?;
    let t = task;
    let (Some(rt), Some(st)) = (recorded.get(t), scored.get(t)) else {
        return None;
    };
    {
        let at = |what: String, want: &serde_json::Value, got: Option<&serde_json::Value>| {
            Some(format!(
                "session {id}, task {} (task_idx {t}): {what} is recorded as {want}, re-scoring gives {}",
                t + 1,
                got.map(|g| g.to_string()).unwrap_or_else(|| "nothing".to_owned())
            ))
        };
        let none = serde_json::Value::Null;
        let (rl, sl) = (
            rt.get("inference_log").unwrap_or(&none),
            st.get("inference_log").unwrap_or(&none),
        );
        let mut step = 0;
        while let Some(rs) = rl.get(format!("step_{step}")) {
            let ss = sl.get(format!("step_{step}"));
            let ro = rs
                .get("inference_output")
                .and_then(serde_json::Value::as_object);
            let so = ss.and_then(|x| x.get("inference_output"));
            for (k, want) in ro.into_iter().flatten() {
                if k.starts_with("current_action_") && so.and_then(|o| o.get(k)) != Some(want) {
                    return at(format!("step_{step} {k}"), want, so.and_then(|o| o.get(k)));
                }
            }
            step += 1;
        }
        for key in ["action_name_label", "is_optimal"] {
            if let Some(want) = rt.get(key) {
                if st.get(key) != Some(want) {
                    return at(key.to_owned(), want, st.get(key));
                }
            }
        }
    }
    None
}

/// The report a claimed `report.json` should be: rebuilt from the re-score over the
/// tasks it lists, with its run metadata, refusal override, dataset file name and cost
/// taken as claimed (they are not recomputable from the files).
fn rebuild_report(
    loaded: &LoadedDataset,
    fingerprint: &str,
    r: &Rescored,
    claimed_text: &str,
) -> Option<String> {
    let claimed = ReportDoc::parse(claimed_text.as_bytes()).ok()?;
    let sessions: std::collections::BTreeSet<u32> =
        claimed.tasks.iter().map(|t| t.session).collect();
    let shapes: Vec<_> = task_shapes(loaded)
        .into_iter()
        .filter(|s| sessions.contains(&s.session))
        .collect();
    let mut doc = ReportDoc::build(ReportInput {
        model_name: &r.model,
        dataset: ReportDataset {
            file: claimed.dataset.file.clone(),
            fingerprint: fingerprint.to_owned(),
            sessions: loaded.line_count as u64,
            problems: loaded.problems.len() as u64,
        },
        tasks: fill_outcomes(&shapes, &r.outcomes),
        scoring: r.stats.clone(),
        run: claimed.run.clone(),
        forced: claimed.forced.as_ref().map(|f| f.reason.clone()),
    });
    doc.cost = claimed.cost.clone();
    // The run's metadata and cost are the claim's own: their text is copied from it, so a
    // number that does not read back to the same digits (a float parsed one unit in the
    // last place off) cannot make an honest report look rewritten.
    let mut text = doc.to_json();
    for key in ["run", "cost"] {
        if let (Some(ours), Some(theirs)) =
            (member_span(&text, key), member_span(claimed_text, key))
        {
            text.replace_range(ours, &claimed_text[theirs]);
        }
    }
    Some(text)
}

/// The byte range of the value of the top-level member `key` in a pretty-printed JSON
/// object (two-space indent, as `report.json` is written), `None` when there is none.
fn member_span(text: &str, key: &str) -> Option<std::ops::Range<usize>> {
    let head = format!("\n  \"{key}\": ");
    let start = text.find(&head)? + head.len();
    let bytes = text.as_bytes();
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, &b) in bytes.iter().enumerate().skip(start) {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    return Some(start..i + 1);
                }
            }
            // A scalar value (or the object's end) ends at the next comma or line end.
            b',' | b'\n' | b'}' | b']' if depth == 0 => return Some(start..i),
            _ => {}
        }
    }
    None
}

/// The first difference between a claimed file and the recomputed one, or `None` when
/// they are equal byte for byte.
pub fn first_difference(name: &str, claimed: &str, recomputed: &str) -> Option<String> {
    if claimed == recomputed {
        return None;
    }
    if name.ends_with(".jsonl") {
        let a: Vec<&str> = claimed.lines().collect();
        let b: Vec<&str> = recomputed.lines().collect();
        for i in 0..a.len().max(b.len()) {
            let (x, y) = (a.get(i), b.get(i));
            if x != y {
                let id = |l: Option<&&str>| {
                    l.and_then(|l| serde_json::from_str::<serde_json::Value>(l).ok())
                        .and_then(|v| {
                            v.get("id")
                                .and_then(serde_json::Value::as_str)
                                .map(str::to_owned)
                        })
                };
                let who = id(x).or_else(|| id(y)).unwrap_or_else(|| "?".to_owned());
                let inner = match (x, y) {
                    (Some(x), Some(y)) => json_difference(x, y)
                        .map(|d| format!(": {d}"))
                        .unwrap_or_default(),
                    (None, _) => ": the claimed file ends here".to_owned(),
                    (_, None) => ": the re-scored file ends here".to_owned(),
                };
                return Some(format!("line {} (session {who}) differs{inner}", i + 1));
            }
        }
        return Some("differs in line endings".to_owned());
    }
    Some(json_difference(claimed, recomputed).unwrap_or_else(|| {
        let at = claimed
            .bytes()
            .zip(recomputed.bytes())
            .position(|(a, b)| a != b)
            .unwrap_or(claimed.len().min(recomputed.len()));
        format!("the same values, written differently from byte {at}")
    }))
}

/// The first JSON member (path) whose values differ, with both values.
fn json_difference(claimed: &str, recomputed: &str) -> Option<String> {
    let a: serde_json::Value = serde_json::from_str(claimed).ok()?;
    let b: serde_json::Value = serde_json::from_str(recomputed).ok()?;
    let (path, x, y) = walk(&a, &b, String::new())?;
    let short = |v: Option<&serde_json::Value>| {
        let s = v
            .map(|v| v.to_string())
            .unwrap_or_else(|| "nothing".to_owned());
        if s.chars().count() > 120 {
            format!("{}…", s.chars().take(120).collect::<String>())
        } else {
            s
        }
    };
    Some(format!(
        "{}: claimed {}, re-scored {}",
        if path.is_empty() {
            "(the whole document)"
        } else {
            &path
        },
        short(x),
        short(y)
    ))
}

type Diff<'a> = (
    String,
    Option<&'a serde_json::Value>,
    Option<&'a serde_json::Value>,
);

fn walk<'a>(a: &'a serde_json::Value, b: &'a serde_json::Value, path: String) -> Option<Diff<'a>> {
    use serde_json::Value as J;
    let join = |k: &str| {
        if path.is_empty() {
            k.to_owned()
        } else {
            format!("{path}.{k}")
        }
    };
    match (a, b) {
        (J::Object(x), J::Object(y)) => {
            for (k, xv) in x {
                match y.get(k) {
                    Some(yv) => {
                        if let Some(d) = walk(xv, yv, join(k)) {
                            return Some(d);
                        }
                    }
                    None => return Some((join(k), Some(xv), None)),
                }
            }
            y.iter()
                .find(|(k, _)| !x.contains_key(*k))
                .map(|(k, yv)| (join(k), None, Some(yv)))
        }
        (J::Array(x), J::Array(y)) => {
            for i in 0..x.len().max(y.len()) {
                match (x.get(i), y.get(i)) {
                    (Some(xv), Some(yv)) => {
                        if let Some(d) = walk(xv, yv, format!("{path}[{i}]")) {
                            return Some(d);
                        }
                    }
                    (xv, yv) => return Some((format!("{path}[{i}]"), xv, yv)),
                }
            }
            None
        }
        _ if a == b => None,
        _ => Some((path, Some(a), Some(b))),
    }
}

/// The manifest's exchanges against the cassette: every request it hashed is recorded
/// there, and the recorded reply body still has the manifest's hash.
fn check_replies(m: &Manifest, c: &Cassette, loaded: &LoadedDataset) -> Claim {
    let mut replies: HashMap<String, Vec<String>> = HashMap::new();
    for e in c.entries() {
        replies
            .entry(sha256_hex(e.request.as_bytes()))
            .or_default()
            .push(sha256_hex(e.reply.as_bytes()));
    }
    let name = |t: &TaskExchanges| {
        let id = loaded
            .session_at(t.line)
            .map(|s| s.id.clone())
            .unwrap_or_else(|| format!("line {}", t.line));
        let trial = if t.trial > 1 {
            format!("trial {}, ", t.trial)
        } else {
            String::new()
        };
        format!(
            "{trial}session {id}, task {} (task_idx {})",
            t.task + 1,
            t.task
        )
    };
    let mut checked = 0;
    for t in &m.exchanges {
        for (k, e) in t.exchanges.iter().enumerate() {
            let Some(want) = &e.reply_sha256 else {
                continue;
            };
            checked += 1;
            let problem = match replies.get(&e.request_sha256) {
                None => Some("its request is not in the cassette".to_owned()),
                Some(list) if !list.contains(want) => Some(format!(
                    "the cassette's reply has SHA-256 {}, the manifest says {want}",
                    list.first().map(String::as_str).unwrap_or("")
                )),
                Some(_) => None,
            };
            if let Some(p) = problem {
                return Claim {
                    name: "replies".to_owned(),
                    holds: false,
                    detail: format!("{}, request {}: {p}", name(t), k + 1),
                };
            }
        }
    }
    Claim {
        name: "replies".to_owned(),
        holds: true,
        detail: format!("{checked} recorded reply(ies) in the cassette have the manifest's hashes"),
    }
}

#[cfg(test)]
mod tests {
    use super::member_span;

    #[test]
    fn member_spans_cover_objects_scalars_and_strings_with_braces() {
        let text = "{\n  \"a\": 1,\n  \"run\": {\n    \"x\": \"}{\\\"\",\n    \"d\": 0.018077623\n  },\n  \"cost\": null\n}";
        let run = member_span(text, "run").map(|r| &text[r]);
        assert_eq!(
            run,
            Some("{\n    \"x\": \"}{\\\"\",\n    \"d\": 0.018077623\n  }")
        );
        assert_eq!(member_span(text, "cost").map(|r| &text[r]), Some("null"));
        assert_eq!(member_span(text, "a").map(|r| &text[r]), Some("1"));
        assert_eq!(member_span(text, "missing"), None);
    }
}
