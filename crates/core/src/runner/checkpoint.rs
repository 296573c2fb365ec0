//! The checkpoint format, whole: its header, its task records, the reading of a
//! checkpoint file and the recovery of finished tasks, and the assembly of the official
//! result file from them (PROTOCOL §2.7, §4.5). Pure: the storage is the caller's (a file
//! natively, IndexedDB in the browser); the run engine emits the lines to append, in order.
//!
//! The checkpoint is append-only JSON Lines. The first line is the header
//! `{"wildtool_checkpoint": 1, "model_name": M, "dataset": FINGERPRINT}`
//! ([`CheckpointHeader`]); every other line is one finished task
//! `{"id", "line", "task", "result": T}` ([`TaskRecord`]), with `"trial": n` before
//! `"result"` for trials from 2 on (a record without it belongs to trial 1, so checkpoints
//! written before repeated trials existed load unchanged). Both are written with the
//! Python-compatible JSON writer, so their bytes are stable. A line cut short by a kill is
//! ignored (and the store removes it before appending again).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::input::{lines, FormatError};
use crate::json::{dumps, loads, Escape, Map, Value};

/// Persistent append-only storage of checkpoint lines.
pub trait CheckpointStore {
    /// Storage failure.
    type Error: std::error::Error;
    /// All complete lines stored so far (an unterminated last line is dropped).
    fn load(&mut self) -> Result<Vec<String>, Self::Error>;
    /// Appends one line (without newline) and makes it durable before returning.
    fn append(&mut self, line: &str) -> Result<(), Self::Error>;
}

/// An in-memory store (tests, and the browser before IndexedDB is wired).
#[derive(Debug, Default, Clone)]
pub struct MemoryStore {
    /// The stored lines.
    pub lines: Vec<String>,
}

impl CheckpointStore for MemoryStore {
    type Error = std::convert::Infallible;
    fn load(&mut self) -> Result<Vec<String>, Self::Error> {
        Ok(self.lines.clone())
    }
    fn append(&mut self, line: &str) -> Result<(), Self::Error> {
        self.lines.push(line.to_owned());
        Ok(())
    }
}

/// A checkpoint that belongs to another run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("checkpoint was written for model {found_model:?} on dataset {found_dataset:?}, not {model:?} on {dataset:?}; use another --out directory")]
pub struct CheckpointMismatch {
    /// This run's model.
    pub model: String,
    /// This run's dataset fingerprint.
    pub dataset: String,
    /// The checkpoint's model.
    pub found_model: String,
    /// The checkpoint's dataset fingerprint.
    pub found_dataset: String,
}

/// One finished task.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskRecord {
    /// Session id.
    pub id: String,
    /// Dataset line index of the session.
    pub line: usize,
    /// Task position.
    pub task: usize,
    /// Trial (1-based; 1 unless the run repeats its tasks).
    pub trial: u32,
    /// The official task result object T.
    pub result: Value,
}

impl TaskRecord {
    /// The checkpoint line (dumps-utf8, no newline).
    pub fn to_line(&self) -> String {
        record_line(
            &self.id,
            self.line,
            self.task,
            self.trial,
            &dumps(&self.result, Escape::Utf8),
        )
    }

    /// Parses a checkpoint line; `None` for the header, garbage or a cut line.
    pub fn from_line(line: &str) -> Option<Self> {
        let v = loads(line).ok()?;
        let id = v.get("id")?.as_str()?.to_owned();
        let lineno = usize::try_from(v.get("line")?.as_i64()?).ok()?;
        let task = usize::try_from(v.get("task")?.as_i64()?).ok()?;
        let trial = match v.get("trial") {
            None => 1,
            Some(t) => u32::try_from(t.as_i64()?).ok().filter(|&t| t >= 1)?,
        };
        let result = v.get("result")?.clone();
        result.as_object()?;
        Some(Self {
            id,
            line: lineno,
            task,
            trial,
            result,
        })
    }
}

/// A checkpoint record line from its parts, `result_json` being the task result already
/// in dumps-utf8 form (what [`TaskRecord::to_line`] writes, without re-serialising the
/// result).
pub fn record_line(id: &str, line: usize, task: usize, trial: u32, result_json: &str) -> String {
    record_line_with_usage(id, line, task, trial, result_json, None)
}

/// [`record_line`] with the usage extension after the result (`usage_json`: see
/// `cost::usage`), which readers of the official result ignore.
pub fn record_line_with_usage(
    id: &str,
    line: usize,
    task: usize,
    trial: u32,
    result_json: &str,
    usage_json: Option<&str>,
) -> String {
    let mut m = Map::new();
    m.insert("id", Value::str(id));
    m.insert("line", Value::int(line as i64));
    m.insert("task", Value::int(task as i64));
    if trial > 1 {
        m.insert("trial", Value::int(i64::from(trial)));
    }
    let head = dumps(&Value::Object(m), Escape::Utf8);
    let head = head.strip_suffix('}').unwrap_or(&head);
    let mut out = String::with_capacity(head.len() + result_json.len() + 14);
    out.push_str(head);
    out.push_str(", \"result\": ");
    out.push_str(result_json);
    if let Some(usage) = usage_json {
        out.push_str(", \"usage\": ");
        out.push_str(usage);
    }
    out.push('}');
    out
}

/// The header line (see [`CheckpointHeader`]).
pub fn header_line(model: &str, dataset: &str) -> String {
    CheckpointHeader::new(model, dataset).to_line()
}

/// The checkpoint format version this build writes and reads.
pub const CHECKPOINT_VERSION: u64 = 1;

/// The first line of a checkpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckpointHeader {
    /// Format marker and version (`1`).
    pub wildtool_checkpoint: u64,
    /// The run's model name (as written into the result file).
    pub model_name: String,
    /// Fingerprint of the dataset the run is on (16 hex digits).
    pub dataset: String,
}

impl CheckpointHeader {
    /// The header of a run of `model_name` on the dataset with `fingerprint`.
    pub fn new(model_name: &str, fingerprint: &str) -> Self {
        Self {
            wildtool_checkpoint: CHECKPOINT_VERSION,
            model_name: model_name.to_owned(),
            dataset: fingerprint.to_owned(),
        }
    }

    /// The header line (Python-compatible JSON, UTF-8, no newline).
    pub fn to_line(&self) -> String {
        let mut m = Map::new();
        m.insert(
            "wildtool_checkpoint",
            Value::int(i64::try_from(self.wildtool_checkpoint).unwrap_or(i64::MAX)),
        );
        m.insert("model_name", Value::str(&self.model_name));
        m.insert("dataset", Value::str(&self.dataset));
        dumps(&Value::Object(m), Escape::Utf8)
    }

    /// Reads a header line: `Ok(None)` when the line is not a header (a task record, a
    /// cut line); an error naming the field when it is a header with a wrong field.
    pub fn parse(line: &str) -> Result<Option<Self>, FormatError> {
        let Ok(v) = loads(line) else {
            return Ok(None);
        };
        let Some(obj) = v.as_object() else {
            return Ok(None);
        };
        let Some(version) = obj.get("wildtool_checkpoint") else {
            return Ok(None);
        };
        let field = |path: &str, problem: String| FormatError::Field {
            what: "checkpoint header",
            path: path.to_owned(),
            problem,
        };
        let version = version
            .as_i64()
            .and_then(|n| u64::try_from(n).ok())
            .ok_or_else(|| {
                field(
                    "wildtool_checkpoint",
                    format!("must be a version number, not {}", value_kind(version)),
                )
            })?;
        if version != CHECKPOINT_VERSION {
            return Err(FormatError::Version {
                what: "checkpoint",
                found: version.to_string(),
                supported: "version 1",
            });
        }
        let text = |key: &str| -> Result<String, FormatError> {
            match obj.get(key) {
                Some(Value::Str(s)) => Ok(s.clone()),
                Some(other) => Err(field(
                    key,
                    format!("must be a string, not {}", value_kind(other)),
                )),
                None => Err(field(key, "is missing".to_owned())),
            }
        };
        Ok(Some(Self {
            wildtool_checkpoint: version,
            model_name: text("model_name")?,
            dataset: text("dataset")?,
        }))
    }
}

fn value_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Int(_) | Value::Float(_) => "a number",
        Value::Str(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
        Value::Raw(raw) if raw.is_object() => "an object",
        Value::Raw(_) => "a list",
    }
}

/// A checkpoint file as read from an upload.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckpointFile {
    /// Its header.
    pub header: CheckpointHeader,
    /// The task-record lines, in file order.
    pub records: Vec<String>,
    /// Lines that could not be read or are not task records (a line cut by a kill is
    /// normal at the end), with their numbers.
    pub problems: Vec<(usize, String)>,
}

impl CheckpointFile {
    /// Reads a checkpoint: the first non-blank line must be the header; every other line
    /// is a task record or a named problem.
    pub fn parse(bytes: &[u8]) -> Result<Self, FormatError> {
        let mut header: Option<CheckpointHeader> = None;
        let mut records = Vec::new();
        let mut problems = Vec::new();
        for (span, text) in lines::split(bytes) {
            let text = match text {
                Ok(Some(t)) => t,
                Ok(None) => continue,
                Err(e) => {
                    if header.is_none() {
                        return Err(FormatError::Line(e));
                    }
                    problems.push((span.number, e.to_string()));
                    continue;
                }
            };
            if header.is_none() {
                match CheckpointHeader::parse(text)? {
                    Some(h) => header = Some(h),
                    None => {
                        return Err(FormatError::Kind(format!(
                            "line {}: a checkpoint starts with its header line ({{\"wildtool_checkpoint\": 1, …}})",
                            span.number
                        )))
                    }
                }
                continue;
            }
            if TaskRecord::from_line(text).is_some() {
                records.push(text.to_owned());
            } else if CheckpointHeader::parse(text).ok().flatten().is_some() {
                problems.push((
                    span.number,
                    format!("line {}: a second header line (ignored)", span.number),
                ));
            } else {
                problems.push((
                    span.number,
                    format!("line {}: not a task record (ignored)", span.number),
                ));
            }
        }
        let header = header.ok_or_else(|| {
            FormatError::Kind("the checkpoint is empty: it has no header line".to_owned())
        })?;
        Ok(Self {
            header,
            records,
            problems,
        })
    }
}

/// Finished tasks of trial 1 recovered from stored lines, keyed by `(line, task)`; later
/// duplicates replace earlier ones. Fails when the header names another model or dataset.
pub fn recover(
    lines: &[String],
    model: &str,
    dataset: &str,
) -> Result<BTreeMap<(usize, usize), TaskRecord>, CheckpointMismatch> {
    Ok(crate::order::map_from(
        recover_trials(lines, model, dataset)?
            .into_iter()
            .filter(|((trial, _, _), _)| *trial == 1)
            .map(|((_, line, task), rec)| ((line, task), rec)),
    ))
}

/// Finished tasks of every trial recovered from stored lines, keyed by
/// `(trial, line, task)`; later duplicates replace earlier ones. Fails when the header
/// names another model or dataset.
pub fn recover_trials(
    lines: &[String],
    model: &str,
    dataset: &str,
) -> Result<BTreeMap<(u32, usize, usize), TaskRecord>, CheckpointMismatch> {
    let mut done = BTreeMap::new();
    for line in lines {
        // A header with a field of the wrong type belongs to no run.
        let header =
            CheckpointHeader::parse(line).unwrap_or_else(|_| Some(CheckpointHeader::new("", "")));
        if let Some(found) = header {
            if found.model_name != model || found.dataset != dataset {
                return Err(CheckpointMismatch {
                    model: model.to_owned(),
                    dataset: dataset.to_owned(),
                    found_model: found.model_name,
                    found_dataset: found.dataset,
                });
            }
            continue;
        }
        if let Some(rec) = TaskRecord::from_line(line) {
            done.insert((rec.trial, rec.line, rec.task), rec);
        }
    }
    Ok(done)
}

/// A session to assemble: its dataset line, id and task count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionSlot {
    /// Dataset line index.
    pub line: usize,
    /// Session id.
    pub id: String,
    /// Number of tasks.
    pub tasks: usize,
}

/// The assembled result file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Assembled {
    /// `result.jsonl` text: one `{"id", "model_name", "result": [T…]}` per complete
    /// session, dumps-utf8 plus `"\n"`, sorted by dataset line.
    pub text: String,
    /// Complete sessions written.
    pub sessions: usize,
    /// `(line, task)` of tasks still missing; their sessions are left out of the result
    /// file (they are not model errors and are re-run on resume).
    pub missing: Vec<(usize, usize)>,
}

/// The session id and task traces of one line of an assembled result
/// (`{"id", "result": [trace…]}`), as the environment and own-history run files read them.
pub fn line_traces(line: &str) -> Result<(String, Vec<Value>), String> {
    let v = crate::json::loads(line).map_err(|e| format!("a session line is not JSON: {e}"))?;
    let id = v.get("id").and_then(Value::as_str).unwrap_or("").to_owned();
    let traces = v
        .get("result")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    Ok((id, traces))
}

/// Builds the official result file from the finished tasks.
pub fn assemble(
    model: &str,
    slots: &[SessionSlot],
    done: &BTreeMap<(usize, usize), TaskRecord>,
) -> Assembled {
    let texts: BTreeMap<(usize, usize), String> = crate::order::map_from(
        done.iter()
            .map(|(k, r)| (*k, dumps(&r.result, Escape::Utf8))),
    );
    assemble_json(model, slots, &texts)
}

/// [`assemble`] from task results already in dumps-utf8 form, keyed by `(line, task)`.
pub fn assemble_json(
    model: &str,
    slots: &[SessionSlot],
    done: &BTreeMap<(usize, usize), String>,
) -> Assembled {
    let mut sorted: Vec<&SessionSlot> = slots.iter().collect();
    crate::order::sort_by_key(&mut sorted, |s| s.line);
    let mut out = Assembled::default();
    for slot in sorted {
        let results: Option<Vec<&str>> = (0..slot.tasks)
            .map(|t| done.get(&(slot.line, t)).map(String::as_str))
            .collect();
        let Some(results) = results else {
            out.missing.extend(
                (0..slot.tasks)
                    .filter(|t| !done.contains_key(&(slot.line, *t)))
                    .map(|t| (slot.line, t)),
            );
            continue;
        };
        out.text
            .push_str(&session_result_line(model, &slot.id, results));
        out.text.push('\n');
        out.sessions += 1;
    }
    out
}

/// The official result line of one complete session (no newline):
/// `{"id", "model_name", "result": [T…]}` in dumps-utf8, from the task results in task
/// order, each already in dumps-utf8 form.
pub fn session_result_line<'a>(
    model: &str,
    id: &str,
    results_json: impl IntoIterator<Item = &'a str>,
) -> String {
    let mut m = Map::new();
    m.insert("id", Value::str(id));
    m.insert("model_name", Value::str(model));
    let head = dumps(&Value::Object(m), Escape::Utf8);
    let head = head.strip_suffix('}').unwrap_or(&head);
    let mut out = String::from(head);
    out.push_str(", \"result\": [");
    for (i, r) in results_json.into_iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(r);
    }
    out.push_str("]}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(line: usize, task: usize) -> TaskRecord {
        let mut t = Map::new();
        t.insert("action_name_label", Value::str("correct"));
        t.insert("n", Value::int((line * 10 + task) as i64));
        TaskRecord {
            id: format!("wild_tool_bench_{line}"),
            line,
            task,
            trial: 1,
            result: Value::Object(t),
        }
    }

    #[test]
    fn records_round_trip_and_cut_lines_are_ignored() {
        let r = rec(3, 1);
        let line = r.to_line();
        assert_eq!(TaskRecord::from_line(&line), Some(r));
        let cut = &line[..line.len() / 2];
        let lines = vec![header_line("m", "fp"), line.clone(), cut.to_owned()];
        let done = recover(&lines, "m", "fp").unwrap_or_default();
        assert_eq!(done.len(), 1);
        assert!(recover(&lines, "other", "fp").is_err());
    }

    #[test]
    fn lines_built_from_text_equal_the_serialised_objects() {
        let mut nested = Map::new();
        nested.insert("s", Value::str("é\"\n}"));
        nested.insert(
            "a",
            Value::Array(vec![Value::int(1), Value::Float(0.5), Value::Null]),
        );
        let mut result = Map::new();
        result.insert("action_name_label", Value::str("correct"));
        result.insert("inference_log", Value::Object(nested));
        let result = Value::Object(result);
        for trial in [1, 2] {
            let mut m = Map::new();
            m.insert("id", Value::str("wild_tool_bench_\u{4e2d}7"));
            m.insert("line", Value::int(7));
            m.insert("task", Value::int(3));
            if trial > 1 {
                m.insert("trial", Value::int(trial));
            }
            m.insert("result", result.clone());
            let rec = TaskRecord {
                id: "wild_tool_bench_\u{4e2d}7".to_owned(),
                line: 7,
                task: 3,
                trial: trial as u32,
                result: result.clone(),
            };
            assert_eq!(rec.to_line(), dumps(&Value::Object(m), Escape::Utf8));
        }
        let mut m = Map::new();
        m.insert("id", Value::str("x\"y"));
        m.insert("model_name", Value::str("org/m\u{e9}"));
        m.insert("result", Value::Array(vec![result.clone(), result.clone()]));
        let text = dumps(&result, Escape::Utf8);
        assert_eq!(
            session_result_line("org/m\u{e9}", "x\"y", [text.as_str(), text.as_str()]),
            dumps(&Value::Object(m), Escape::Utf8)
        );
    }

    #[test]
    fn trials_from_two_on_are_keyed_and_old_records_are_trial_one() {
        let one = rec(3, 1);
        assert!(
            !one.to_line().contains("\"trial\""),
            "trial 1 lines are unchanged"
        );
        let two = TaskRecord {
            trial: 2,
            ..rec(3, 1)
        };
        let line = two.to_line();
        assert!(line.starts_with(
            "{\"id\": \"wild_tool_bench_3\", \"line\": 3, \"task\": 1, \"trial\": 2, \"result\": "
        ));
        assert_eq!(TaskRecord::from_line(&line), Some(two.clone()));
        for bad in ["0", "-1", "\"2\"", "1.5", "null"] {
            let l = line.replace("\"trial\": 2", &format!("\"trial\": {bad}"));
            assert_eq!(TaskRecord::from_line(&l), None, "trial {bad}");
        }
        let lines = vec![header_line("m", "fp"), one.to_line(), line];
        let all = recover_trials(&lines, "m", "fp").unwrap_or_default();
        let keys: Vec<_> = all.keys().copied().collect();
        assert_eq!(keys, vec![(1, 3, 1), (2, 3, 1)]);
        let first = recover(&lines, "m", "fp").unwrap_or_default();
        assert_eq!(first.get(&(3, 1)), Some(&one), "recover keeps trial 1 only");
        assert_eq!(first.len(), 1);
    }

    #[test]
    fn assembly_is_sorted_complete_and_official() {
        let slots = vec![
            SessionSlot {
                line: 10,
                id: "wild_tool_bench_10".to_owned(),
                tasks: 1,
            },
            SessionSlot {
                line: 2,
                id: "wild_tool_bench_2".to_owned(),
                tasks: 2,
            },
            SessionSlot {
                line: 5,
                id: "wild_tool_bench_5".to_owned(),
                tasks: 2,
            },
        ];
        let mut done = BTreeMap::new();
        for r in [rec(10, 0), rec(2, 1), rec(2, 0), rec(5, 1)] {
            done.insert((r.line, r.task), r);
        }
        let a = assemble("org/m", &slots, &done);
        assert_eq!(a.sessions, 2);
        assert_eq!(a.missing, vec![(5, 0)]);
        assert_eq!(
            a.text,
            "{\"id\": \"wild_tool_bench_2\", \"model_name\": \"org/m\", \"result\": [{\"action_name_label\": \"correct\", \"n\": 20}, {\"action_name_label\": \"correct\", \"n\": 21}]}\n\
             {\"id\": \"wild_tool_bench_10\", \"model_name\": \"org/m\", \"result\": [{\"action_name_label\": \"correct\", \"n\": 100}]}\n"
        );
    }

    #[test]
    fn header_round_trip_and_bytes() {
        let h = CheckpointHeader::new("org/m \u{4e2d}", "00ff");
        let line = h.to_line();
        assert_eq!(
            line,
            "{\"wildtool_checkpoint\": 1, \"model_name\": \"org/m \u{4e2d}\", \"dataset\": \"00ff\"}"
        );
        assert_eq!(CheckpointHeader::parse(&line), Ok(Some(h)));
        assert_eq!(CheckpointHeader::parse("{\"id\": \"x\"}"), Ok(None));
        assert_eq!(CheckpointHeader::parse("{\"wildtool_chec"), Ok(None));
    }

    #[test]
    fn wrong_header_fields_are_named() {
        let e = CheckpointHeader::parse(
            "{\"wildtool_checkpoint\": 1, \"model_name\": 7, \"dataset\": \"x\"}",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "checkpoint header: field \"model_name\" must be a string, not a number"
        );
        let e = CheckpointHeader::parse("{\"wildtool_checkpoint\": 1, \"model_name\": \"m\"}")
            .unwrap_err();
        assert!(e.to_string().contains("\"dataset\" is missing"));
        let e = CheckpointHeader::parse("{\"wildtool_checkpoint\": \"1\"}").unwrap_err();
        assert!(e.to_string().contains("wildtool_checkpoint"));
        assert!(matches!(
            CheckpointHeader::parse(
                "{\"wildtool_checkpoint\": 2, \"model_name\": \"m\", \"dataset\": \"x\"}"
            ),
            Err(FormatError::Version { .. })
        ));
    }

    #[test]
    fn checkpoint_files_keep_records_and_name_problems() {
        let rec = "{\"id\": \"s_0\", \"line\": 0, \"task\": 0, \"result\": {\"a\": 1}}";
        let mut text = format!(
            "{}\n{rec}\n\nnot json\n",
            CheckpointHeader::new("m", "fp").to_line()
        );
        text.push_str(&rec[..10]);
        let f = CheckpointFile::parse(text.as_bytes()).expect("reads");
        assert_eq!(f.header.model_name, "m");
        assert_eq!(f.records, vec![rec.to_owned()]);
        assert_eq!(
            f.problems.iter().map(|p| p.0).collect::<Vec<_>>(),
            vec![4, 5]
        );
        assert!(CheckpointFile::parse(b"").is_err());
        assert!(CheckpointFile::parse(rec.as_bytes()).is_err());
        let bad = b"{\"wildtool_checkpoint\": 1, \"model_name\": [1], \"dataset\": \"x\"}\n";
        let e = CheckpointFile::parse(bad).unwrap_err().to_string();
        assert!(
            e.contains("\"model_name\" must be a string, not a list"),
            "{e}"
        );
    }
}
