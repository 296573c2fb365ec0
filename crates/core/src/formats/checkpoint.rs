//! The checkpoint's header line and the reading of a whole checkpoint file.
//!
//! A checkpoint is append-only JSON Lines: the header
//! `{"wildtool_checkpoint": 1, "model_name": M, "dataset": FINGERPRINT}` and then one line
//! per finished task (`runner::checkpoint::TaskRecord`). The header is written with the
//! Python-compatible JSON writer, so its bytes are stable.

use serde::{Deserialize, Serialize};

use super::lines;
use super::FormatError;
use crate::json::{dumps, loads, Escape, Map, Value};
use crate::runner::checkpoint::TaskRecord;

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

#[cfg(test)]
mod tests {
    use super::*;

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
