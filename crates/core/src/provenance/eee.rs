//! The Every Eval Ever export (schema 0.3.0): for each output directory of a run (each
//! trial), one aggregate record (`{uuid}.json`: source, library, model, the task and
//! session accuracy with their 95% Wilson intervals, the generation settings) and its
//! instance-level companion (`{uuid}_samples.jsonl`: one multi-turn record per task with
//! the transcript, the label, the error class, tokens and latency), at the datastore
//! path `data/{benchmark}/{developer}/{model}/` the schema's validator expects.
//!
//! An official run exports benchmark `wildtoolbench` from `report.json` and
//! `result.jsonl`; a ledger-environment run (an extension, never an official number)
//! exports benchmark `wildtoolbench-ledger-env` from `env-report.json` and
//! `env-result.jsonl`, so the two are never mixed. A pure function of the files' text;
//! the time of the export is a parameter.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value as J};

use super::manifest::Manifest;
use super::sha256_hex;
use super::verify::{Bundle, BundleDir};
use crate::dataset::{Lang, LoadedDataset};
use crate::formats::report_doc::ReportDoc;

/// The schema version written.
pub const SCHEMA_VERSION: &str = "0.3.0";

/// One file of the export, by its datastore path (`data/…`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EeeFile {
    /// The path from the export's root.
    pub path: String,
    /// The file's text.
    pub text: String,
}

/// Why a run cannot be exported.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ExportError(pub String);

/// A name usable as a path component: letters, digits, `.`, `_` and `-` kept, anything
/// else `_`, never empty or ending in a dot.
fn component(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    while out.ends_with('.') {
        out.pop();
    }
    if out.is_empty() || out == "data" {
        out.insert_str(0, "m_");
    }
    out
}

/// A version-4-shaped UUID derived from `seed` (deterministic: the same run exports to
/// the same path).
fn uuid4(seed: &str) -> String {
    let h = sha256_hex(seed.as_bytes());
    let b: Vec<char> = h.chars().take(32).collect();
    let variant = match b[16] {
        '0' | '4' | '8' | 'c' => '8',
        '1' | '5' | '9' | 'd' => '9',
        '2' | '6' | 'a' | 'e' => 'a',
        _ => 'b',
    };
    let s: String = b.iter().collect();
    format!(
        "{}-{}-4{}-{}{}-{}",
        &s[0..8],
        &s[8..12],
        &s[13..16],
        variant,
        &s[17..20],
        &s[20..32]
    )
}

fn strings(pairs: &[(&str, String)]) -> J {
    let mut m = Map::new();
    for (k, v) in pairs {
        m.insert((*k).to_owned(), J::String(v.clone()));
    }
    J::Object(m)
}

/// A value as text: strings as they are, anything else as JSON.
fn text_of(v: &J) -> String {
    match v {
        J::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Tool calls of an OpenAI-shaped message in the schema's form (arguments an object of
/// strings; arguments that are not a JSON object are kept whole under `raw`).
fn tool_calls(calls: Option<&J>) -> Option<Vec<J>> {
    let calls = calls?.as_array()?;
    let out: Vec<J> = calls
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let f = c.get("function").unwrap_or(c);
            let name = f.get("name").map(text_of).unwrap_or_default();
            let raw = f.get("arguments").cloned().unwrap_or(J::Null);
            let parsed = match &raw {
                J::String(s) => serde_json::from_str::<J>(s).ok(),
                other => Some(other.clone()),
            };
            let arguments = match parsed {
                Some(J::Object(o)) => J::Object(
                    o.iter()
                        .map(|(k, v)| (k.clone(), J::String(text_of(v))))
                        .collect(),
                ),
                _ if raw.is_null() => J::Null,
                _ => strings(&[("raw", text_of(&raw))]),
            };
            json!({
                "id": c.get("id").map(text_of).unwrap_or_else(|| format!("call_{i}")),
                "name": name,
                "arguments": arguments,
            })
        })
        .collect();
    Some(out)
}

/// One message of a recorded transcript in the schema's form.
fn message(turn: usize, m: &J) -> J {
    let role = m
        .get("role")
        .map(text_of)
        .unwrap_or_else(|| "assistant".to_owned());
    let content = match m.get("content") {
        None | Some(J::Null) => J::Null,
        Some(J::String(s)) => J::String(s.clone()),
        Some(other) => J::String(other.to_string()),
    };
    let mut out = json!({"turn_idx": turn, "role": role, "content": content});
    if let Some(r) = m.get("reasoning_content").filter(|r| !r.is_null()) {
        out["reasoning_trace"] = J::String(text_of(r));
    }
    if let Some(calls) = tool_calls(m.get("tool_calls")) {
        out["tool_calls"] = J::Array(calls);
    }
    if let Some(id) = m.get("tool_call_id").filter(|r| !r.is_null()) {
        out["tool_call_id"] = json!([text_of(id)]);
    }
    out
}

/// What one task contributes to its instance record.
struct Task {
    sample_id: String,
    user: String,
    reference: Vec<String>,
    messages: Vec<J>,
    correct: bool,
    label: String,
    error: Option<String>,
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    latency_s: Option<f64>,
    metadata: Vec<(&'static str, String)>,
}

fn sum_u64(v: Option<&J>) -> Option<u64> {
    let xs = v?.as_array()?;
    let known: Vec<u64> = xs.iter().filter_map(J::as_u64).collect();
    (!known.is_empty()).then(|| known.iter().sum())
}

fn sum_f64(v: Option<&J>) -> Option<f64> {
    let xs = v?.as_array()?;
    let known: Vec<f64> = xs.iter().filter_map(J::as_f64).collect();
    (!known.is_empty()).then(|| known.iter().sum())
}

/// The tasks of an official run's result file, labelled by its report.
fn official_tasks(result: &str, report: &ReportDoc) -> Vec<Task> {
    let by_key: BTreeMap<(u32, u8), &crate::outcome::TaskOutcome> = report
        .tasks
        .iter()
        .map(|o| ((o.session, o.position), o))
        .collect();
    let mut out = Vec::new();
    for line in result.lines() {
        let Ok(v) = serde_json::from_str::<J>(line) else {
            continue;
        };
        let id = v.get("id").map(text_of).unwrap_or_default();
        let Some(index) = id.rsplit('_').next().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        let Some(tasks) = v.get("result").and_then(J::as_array) else {
            continue;
        };
        for (t, task) in tasks.iter().enumerate() {
            let Some(o) = by_key.get(&(index, t as u8)) else {
                continue;
            };
            let log = task.get("inference_log").cloned().unwrap_or(J::Null);
            let user = log
                .get("begin_of_current_task")
                .and_then(|m| m.get("content"))
                .map(text_of)
                .unwrap_or_default();
            let mut last_input: Vec<J> = Vec::new();
            let mut last_output = None;
            let mut reference = Vec::new();
            let mut s = 0;
            while let Some(step) = log.get(format!("step_{s}")) {
                if let Some(ms) = step
                    .get("inference_input")
                    .and_then(|i| i.get("messages"))
                    .and_then(J::as_array)
                {
                    last_input = ms.clone();
                }
                last_output = step.get("inference_output").cloned();
                if let Some(a) = step.get("inference_answer") {
                    reference.push(a.to_string());
                }
                s += 1;
            }
            let mut messages: Vec<J> = last_input
                .iter()
                .enumerate()
                .map(|(i, m)| message(i, m))
                .collect();
            if let Some(o) = last_output {
                let mut m = o.clone();
                m["role"] = J::String("assistant".to_owned());
                messages.push(message(messages.len(), &m));
            }
            let label = if o.correct { "correct" } else { "error" }.to_owned();
            let error = o.error.map(|e| e.as_str().to_owned());
            out.push(Task {
                sample_id: format!("{id}/task_{t}"),
                user,
                reference,
                messages,
                correct: o.correct,
                label,
                error,
                input_tokens: sum_u64(task.get("input_token_count")),
                output_tokens: sum_u64(task.get("output_token_count")),
                latency_s: sum_f64(task.get("latency")),
                metadata: vec![
                    ("session", id.clone()),
                    ("task_idx", t.to_string()),
                    ("task_type", o.task_type.as_str().to_owned()),
                    (
                        "subtype",
                        o.subtype.map(|s| s.as_str().to_owned()).unwrap_or_default(),
                    ),
                    ("optimal", o.optimal.to_string()),
                ],
            });
        }
    }
    out
}

/// The tasks of a ledger-environment run's `env-result.jsonl`.
fn env_tasks(result: &str, loaded: &LoadedDataset) -> Vec<Task> {
    let mut out = Vec::new();
    for line in result.lines() {
        let Ok(v) = serde_json::from_str::<J>(line) else {
            continue;
        };
        let Some(tasks) = v.get("tasks").and_then(J::as_array) else {
            continue;
        };
        let id = v.get("id").map(text_of).unwrap_or_default();
        let session = v
            .get("line")
            .and_then(J::as_u64)
            .and_then(|l| loaded.session_at(l as usize));
        for task in tasks {
            let t: usize = task
                .get("task")
                .map(text_of)
                .and_then(|s| s.parse().ok())
                .unwrap_or(0);
            let user = session
                .and_then(|s| s.tasks.get(t))
                .map(|g| g.user_message.clone())
                .unwrap_or_default();
            let mut messages = vec![json!({"turn_idx": 0, "role": "user", "content": user})];
            let steps = task
                .get("steps")
                .and_then(J::as_array)
                .cloned()
                .unwrap_or_default();
            let (mut input, mut output, mut latency) = (Vec::new(), Vec::new(), Vec::new());
            for step in &steps {
                if let Some(r) = step.get("reply") {
                    let mut m = r.clone();
                    m["role"] = J::String("assistant".to_owned());
                    messages.push(message(messages.len(), &m));
                }
                for c in step
                    .get("calls")
                    .and_then(J::as_array)
                    .into_iter()
                    .flatten()
                {
                    let content = c.get("result").map(text_of).unwrap_or_default();
                    let turn = messages.len();
                    messages.push(json!({
                        "turn_idx": turn,
                        "role": "tool",
                        "content": content,
                        "tool_call_id": [c.get("id").map(text_of).unwrap_or_default()],
                    }));
                }
                input.push(step.get("input_tokens").cloned().unwrap_or(J::Null));
                output.push(step.get("output_tokens").cloned().unwrap_or(J::Null));
                latency.push(step.get("latency").cloned().unwrap_or(J::Null));
            }
            let correct = task
                .get("env_success")
                .and_then(J::as_bool)
                .unwrap_or(false);
            let label = task.get("path_label_env").map(text_of).unwrap_or_default();
            out.push(Task {
                sample_id: format!("{id}/task_{t}"),
                user,
                reference: task
                    .get("digest_expected")
                    .map(|d| vec![format!("ledger state sha256 {}", text_of(d))])
                    .unwrap_or_default(),
                messages,
                correct,
                error: (!correct).then(|| {
                    task.get("end")
                        .map(text_of)
                        .unwrap_or_else(|| "failed".to_owned())
                }),
                label,
                input_tokens: sum_u64(Some(&J::Array(input))),
                output_tokens: sum_u64(Some(&J::Array(output))),
                latency_s: sum_f64(Some(&J::Array(latency))),
                metadata: vec![
                    ("session", id.clone()),
                    ("task_idx", t.to_string()),
                    (
                        "challenge",
                        task.get("challenge").map(text_of).unwrap_or_default(),
                    ),
                    (
                        "extension",
                        "wildtool ledger environment, not a WildToolBench metric".to_owned(),
                    ),
                ],
            });
        }
    }
    out
}

/// One aggregate result: a rate with its Wilson interval.
struct Headline {
    id: &'static str,
    name: &'static str,
    description: &'static str,
    rate: f64,
    total: u64,
    lo: f64,
    hi: f64,
}

fn file<'a>(dir: &'a BundleDir, name: &str) -> Option<&'a str> {
    dir.files.get(name).map(String::as_str)
}

impl Headline {
    fn of(
        id: &'static str,
        name: &'static str,
        description: &'static str,
        r: &crate::report::Rate,
    ) -> Self {
        Self {
            id,
            name,
            description,
            rate: r.rate,
            total: r.total,
            lo: r.ci95.lo,
            hi: r.ci95.hi,
        }
    }
}

/// Exports a run (see the module docs): the manifest says what the run was; each
/// directory of the bundle with results becomes one aggregate record and its samples.
/// `retrieved_unix` is the export's time (Unix seconds).
pub fn export(
    bundle: &Bundle,
    lang: Lang,
    retrieved_unix: u64,
) -> Result<Vec<EeeFile>, ExportError> {
    let manifest = match &bundle.manifest {
        Some(t) => Manifest::parse(t).map_err(|e| ExportError(e.to_string()))?,
        None => {
            return Err(ExportError(
                "the run has no manifest.json (run it with this version of wildtool)".to_owned(),
            ))
        }
    };
    let loaded = crate::protocol::load_checked(&bundle.dataset, lang);
    let env = manifest.kind.starts_with("env:");
    let benchmark = if env {
        "wildtoolbench-ledger-env"
    } else {
        "wildtoolbench"
    };
    let (developer, model) = match manifest.model.split_once('/') {
        Some((d, m)) => (component(d), component(m)),
        None if matches!(manifest.provider.as_str(), "gold" | "baseline" | "replay") => {
            ("wildtool".to_owned(), component(&manifest.model))
        }
        None => ("unknown".to_owned(), component(&manifest.model)),
    };
    let model_id = format!("{developer}/{model}");
    let mut files = Vec::new();
    for dir in &bundle.dirs {
        let (tasks, headlines) = if env {
            let (Some(result), Some(report)) =
                (file(dir, "env-result.jsonl"), file(dir, "env-report.json"))
            else {
                continue;
            };
            let r: J = serde_json::from_str(report)
                .map_err(|e| ExportError(format!("env-report.json: {e}")))?;
            let rate = |key: &'static str, name: &'static str, description: &'static str| {
                let m = r.get("ledger_env").and_then(|m| m.get(key));
                let ci = |i: usize| {
                    m.and_then(|m| m.get("ci95"))
                        .and_then(|c| c.get(i))
                        .and_then(J::as_f64)
                };
                Headline {
                    id: key,
                    name,
                    description,
                    rate: m
                        .and_then(|m| m.get("value"))
                        .and_then(J::as_f64)
                        .unwrap_or(0.0),
                    total: m
                        .and_then(|m| m.get("denominator"))
                        .and_then(J::as_u64)
                        .unwrap_or(0),
                    lo: ci(0).unwrap_or(0.0),
                    hi: ci(1).unwrap_or(1.0),
                }
            };
            (
                env_tasks(result, &loaded),
                vec![
                    rate("env_task_success", "Environment task success", "Share of scored ledger tasks whose end state and trajectory pass every component (wildtool extension)."),
                    rate("env_session_success", "Environment session success", "Share of scored ledger sessions whose four tasks all succeed (wildtool extension)."),
                ],
            )
        } else {
            let (Some(result), Some(report)) =
                (file(dir, "result.jsonl"), file(dir, "report.json"))
            else {
                continue;
            };
            let doc =
                ReportDoc::parse(report.as_bytes()).map_err(|e| ExportError(e.to_string()))?;
            let r = &doc.report;
            (
                official_tasks(result, &doc),
                vec![
                    Headline::of(
                        "task_accuracy",
                        "Task accuracy",
                        "Share of scored tasks whose final label is correct (official WildToolBench scoring).",
                        &r.task_accuracy,
                    ),
                    Headline::of(
                        "session_accuracy",
                        "Session accuracy",
                        "Share of scored sessions in which all four tasks are correct (official WildToolBench scoring).",
                        &r.session_accuracy,
                    ),
                ],
            )
        };
        if tasks.is_empty() {
            continue;
        }
        let trial = if dir.dir == "." {
            String::new()
        } else {
            format!("/{}", dir.dir)
        };
        let evaluation_id = format!("{benchmark}/{model_id}/{retrieved_unix}{trial}");
        let uuid = uuid4(&format!(
            "{}\n{}\n{evaluation_id}",
            manifest.dataset.fingerprint,
            bundle.manifest.as_deref().unwrap_or("")
        ));
        let base = format!("data/{benchmark}/{developer}/{model}/{uuid}");
        let main_result = headlines[0].id;
        let mut samples = String::new();
        for t in &tasks {
            let tool_calls: usize = t
                .messages
                .iter()
                .filter_map(|m| m.get("tool_calls").and_then(J::as_array))
                .map(Vec::len)
                .sum();
            let last_assistant = t
                .messages
                .iter()
                .rposition(|m| m.get("role").and_then(J::as_str) == Some("assistant"))
                .unwrap_or(0);
            let extracted = t
                .messages
                .get(last_assistant)
                .map(|m| {
                    m.get("tool_calls")
                        .filter(|c| !c.is_null())
                        .map(J::to_string)
                        .or_else(|| m.get("content").map(text_of))
                        .unwrap_or_default()
                })
                .unwrap_or_default();
            let mut metadata: Vec<(&str, String)> = vec![("label", t.label.clone())];
            metadata.extend(t.metadata.iter().map(|(k, v)| (*k, v.clone())));
            if let Some(e) = &t.error {
                metadata.push(("error_class", e.clone()));
            }
            let row = json!({
                "schema_version": SCHEMA_VERSION,
                "evaluation_id": evaluation_id,
                "model_id": model_id,
                "evaluation_name": format!("{benchmark} {main_result}"),
                "evaluation_result_id": main_result,
                "sample_id": t.sample_id,
                "sample_hash": sha256_hex(format!("{}\n{}", t.user, t.reference.join("\n")).as_bytes()),
                "interaction_type": "multi_turn",
                "input": {"raw": t.user, "reference": t.reference},
                "output": null,
                "messages": t.messages,
                "answer_attribution": [{
                    "turn_idx": last_assistant,
                    "source": format!("messages[{last_assistant}]"),
                    "extracted_value": extracted,
                    "extraction_method": if env { "ledger state and trajectory check" } else { "official tool-call graph decision and argument checker" },
                    "is_terminal": true,
                }],
                "evaluation": {
                    "score": if t.correct { 1.0 } else { 0.0 },
                    "is_correct": t.correct,
                    "num_turns": t.messages.len().max(1),
                    "tool_calls_count": tool_calls,
                },
                "token_usage": match (t.input_tokens, t.output_tokens) {
                    (None, None) => J::Null,
                    (i, o) => json!({
                        "input_tokens": i.unwrap_or(0),
                        "output_tokens": o.unwrap_or(0),
                        "total_tokens": i.unwrap_or(0) + o.unwrap_or(0),
                    }),
                },
                "performance": {"latency_ms": t.latency_s.map(|s| s * 1000.0)},
                "error": t.error,
                "metadata": strings(&metadata),
            });
            samples.push_str(&row.to_string());
            samples.push('\n');
        }
        let temperature = manifest
            .settings
            .get("temperature")
            .cloned()
            .unwrap_or(J::Null);
        let settings: Vec<(&str, String)> = manifest
            .settings
            .iter()
            .filter(|(_, v)| !v.is_null())
            .map(|(k, v)| (k.as_str(), text_of(v)))
            .collect();
        let source_data = json!({
            "dataset_name": manifest.dataset.name.clone().unwrap_or_else(|| "WildToolBench-format dataset".to_owned()),
            "source_type": "other",
            "additional_details": strings(&[
                ("fingerprint", manifest.dataset.fingerprint.clone()),
                ("sessions", loaded.line_count.to_string()),
            ]),
        });
        let results: Vec<J> = headlines
            .iter()
            .map(|h| {
                json!({
                    "evaluation_result_id": h.id,
                    "evaluation_name": format!("{benchmark} {}", h.id),
                    "source_data": source_data,
                    "evaluation_timestamp": manifest.started_at,
                    "metric_config": {
                        "evaluation_description": h.description,
                        "metric_id": h.id,
                        "metric_name": h.name,
                        "metric_kind": "accuracy",
                        "metric_unit": "proportion",
                        "lower_is_better": false,
                        "score_type": "continuous",
                        "min_score": 0.0,
                        "max_score": 1.0,
                    },
                    "score_details": {
                        "score": h.rate,
                        "uncertainty": {
                            "confidence_interval": {"lower": h.lo, "upper": h.hi, "confidence_level": 0.95, "method": "wilson"},
                            "num_samples": h.total,
                        },
                    },
                    "generation_config": {
                        "generation_args": {"temperature": temperature},
                        "additional_details": strings(&settings),
                    },
                })
            })
            .collect();
        let mut aggregate = json!({
            "schema_version": SCHEMA_VERSION,
            "evaluation_id": evaluation_id,
            "retrieved_timestamp": retrieved_unix.to_string(),
            "source_metadata": {
                "source_name": "wildtool",
                "source_type": "evaluation_run",
                "source_organization_name": "wildtool",
                "evaluator_relationship": "third_party",
                "additional_details": strings(&[
                    ("run_kind", manifest.kind.clone()),
                    ("provider", manifest.provider.clone()),
                ]),
            },
            "eval_library": {
                "name": "wildtool",
                "version": manifest.wildtool_version,
                "additional_details": strings(&[("scorer_version", manifest.scorer_version.clone())]),
            },
            "model_info": {
                "name": manifest.model,
                "id": model_id,
                "developer": developer,
                "inference_platform": manifest.provider,
                "additional_details": strings(&[
                    ("deployment_type", "unknown".to_owned()),
                    ("model_availability", "unknown".to_owned()),
                    ("server_models", manifest.server.models.join(", ")),
                    ("system_fingerprints", manifest.server.system_fingerprints.join(", ")),
                ]),
            },
            "evaluation_results": results,
            "detailed_evaluation_results": {
                "format": "jsonl",
                "file_path": format!("{base}_samples.jsonl"),
                "hash_algorithm": "sha256",
                "checksum": sha256_hex(samples.as_bytes()),
                "total_rows": tasks.len(),
            },
        });
        if let Some(t) = &manifest.started_at {
            aggregate["evaluation_timestamp"] = J::String(t.clone());
        }
        files.push(EeeFile {
            path: format!("{base}.json"),
            text: serde_json::to_string_pretty(&aggregate).unwrap_or_default() + "\n",
        });
        files.push(EeeFile {
            path: format!("{base}_samples.jsonl"),
            text: samples,
        });
    }
    if files.is_empty() {
        return Err(ExportError(
            "no output directory with results and a report to export".to_owned(),
        ));
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_are_version_4_and_components_portable() {
        let u = uuid4("x");
        assert_eq!(u.len(), 36);
        assert_eq!(u.as_bytes()[14], b'4');
        assert!(matches!(u.as_bytes()[19], b'8' | b'9' | b'a' | b'b'));
        assert_eq!(component("qwen3 8b/x."), "qwen3_8b_x");
        assert_eq!(component("data"), "m_data");
    }
}
