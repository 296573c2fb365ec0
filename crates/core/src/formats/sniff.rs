//! What a file is, from its first bytes: the check both front doors run before scoring an
//! upload, so that garbage, an empty file, a CSV or a dataset gets its own message instead
//! of a score. Only result-shaped input ([`FileKind::is_scorable`]) is scored.

use serde::{Deserialize, Serialize};

use crate::input::lines;

/// How many leading bytes [`sniff`] needs (more are ignored).
pub const SNIFF_BYTES: usize = 64 * 1024;

/// Run export format versions this build reads.
pub const RUN_EXPORT_VERSIONS: [u64; 2] = [1, 2];

/// The kind of an uploaded or given file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FileKind {
    /// No bytes, or only blank space.
    Empty,
    /// An official result file: one `{"id", "model_name", "result"}` object per line.
    Results,
    /// A `wildtool run` / page checkpoint (`checkpoint.jsonl`).
    Checkpoint,
    /// A run exported by the page.
    RunExport {
        /// The document's `wildtool_run` version.
        version: u64,
    },
    /// A dataset file (the benchmark's tasks, not a model's results).
    Dataset,
    /// A score file (`score.jsonl`): a scorer's output.
    ScoreFile,
    /// A metric file (`metric.json`): a scorer's output.
    Metric,
    /// A wildtool `report.json`.
    Report,
    /// A ledger-environment run (`env-result.jsonl` or its checkpoint): an extension,
    /// not an official result file.
    EnvRun,
    /// A ledger-environment report (`env-report.json`).
    EnvReport,
    /// An own-history run (`own-result.jsonl`) or its report (`own-report.json`): an
    /// extension, not an official result file.
    OwnRun,
    /// Comma- or tab-separated text.
    Csv,
    /// Not text.
    Binary,
    /// Something else; `reason` says what was found.
    Other {
        /// What the first bytes look like.
        reason: String,
    },
}

impl FileKind {
    /// A short name (`results`, `checkpoint`, `run_export`, `dataset`, …).
    pub fn name(&self) -> &'static str {
        match self {
            FileKind::Empty => "empty",
            FileKind::Results => "results",
            FileKind::Checkpoint => "checkpoint",
            FileKind::RunExport { .. } => "run_export",
            FileKind::Dataset => "dataset",
            FileKind::ScoreFile => "score_file",
            FileKind::Metric => "metric",
            FileKind::Report => "report",
            FileKind::EnvRun => "env_run",
            FileKind::EnvReport => "env_report",
            FileKind::OwnRun => "own_run",
            FileKind::Csv => "csv",
            FileKind::Binary => "binary",
            FileKind::Other { .. } => "other",
        }
    }

    /// True for inputs that hold results to score: a result file, a checkpoint, or a run
    /// export of a version this build reads.
    pub fn is_scorable(&self) -> bool {
        match self {
            FileKind::Results | FileKind::Checkpoint => true,
            FileKind::RunExport { version } => RUN_EXPORT_VERSIONS.contains(version),
            _ => false,
        }
    }

    /// What to tell the user about this file.
    pub fn message(&self) -> String {
        match self {
            FileKind::Empty => "The file is empty: there are no results to score.".to_owned(),
            FileKind::Results => "An official result file (one session per line).".to_owned(),
            FileKind::Checkpoint => {
                "A wildtool checkpoint: its complete sessions are assembled into results and scored."
                    .to_owned()
            }
            FileKind::RunExport { version } if RUN_EXPORT_VERSIONS.contains(version) => {
                format!("A run exported by the wildtool page (format version {version}).")
            }
            FileKind::RunExport { version } => format!(
                "A run exported by a newer wildtool page (format version {version}); this build reads versions 1 and 2."
            ),
            FileKind::Dataset => "This is a dataset file, not results. Load it as the dataset, then score the result file a model produced on it.".to_owned(),
            FileKind::ScoreFile => "This is a score file (score.jsonl), a scorer's output. Score the result file it was made from instead.".to_owned(),
            FileKind::Metric => "This is a metric file (metric.json), a scorer's output; it holds no results to score.".to_owned(),
            FileKind::Report => "This is a wildtool report.json: it holds scores, not results. `wildtool report` turns it into an HTML report.".to_owned(),
            FileKind::EnvRun => "ledger-environment run: not an official result file (it is a wildtool extension); score it with `wildtool env-score`.".to_owned(),
            FileKind::OwnRun => "own-history run: not an official result file (a wildtool extension: each task saw the model's own earlier turns, not the gold history, so its numbers are not WildToolBench metrics); read its own-report.json, or set it against a gold-history run of the same model with `wildtool compare`.".to_owned(),
            FileKind::EnvReport => "This is a ledger-environment report (env-report.json, a wildtool extension): it holds env scores, not results. `wildtool report` turns it into an HTML report; `wildtool env-score` re-scores its env-result.jsonl.".to_owned(),
            FileKind::Csv => "This looks like a CSV file. wildtool scores JSON Lines result files: one {\"id\", \"model_name\", \"result\"} object per line.".to_owned(),
            FileKind::Binary => "This is not a text file (it holds binary data); wildtool scores JSON Lines result files.".to_owned(),
            FileKind::Other { reason } => format!(
                "This is not a result file: {reason}. wildtool scores JSON Lines result files: one {{\"id\", \"model_name\", \"result\"}} object per line."
            ),
        }
    }
}

/// Tells what a file is from its first bytes (up to [`SNIFF_BYTES`]) and its total size.
pub fn sniff(first_bytes: &[u8], total_len: u64) -> FileKind {
    let head = first_bytes.get(..SNIFF_BYTES).unwrap_or(first_bytes);
    if total_len == 0 || head.is_empty() {
        return FileKind::Empty;
    }
    if head.contains(&0) {
        return FileKind::Binary;
    }
    let complete = head.len() as u64 >= total_len;
    // The first readable, non-blank line decides; damaged lines before it are skipped
    // (the scorer names them), but a head with no readable text at all is binary.
    let mut damaged = 0usize;
    let mut first: Option<(usize, &str)> = None;
    let mut line_count = 0usize;
    for (span, text) in lines::split(head) {
        line_count += 1;
        let cut_by_head = !complete && span.offset + span.len >= head.len() as u64;
        match text {
            Ok(Some(t)) => {
                first = Some((span.offset as usize, t));
                break;
            }
            Ok(None) => {}
            Err(_) if cut_by_head => {
                // The head ends inside this line's character; read what is valid.
                let start = span.offset as usize;
                let bytes = head.get(start..).unwrap_or(&[]);
                let valid = match std::str::from_utf8(bytes) {
                    Ok(t) => t,
                    Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or(""),
                };
                let valid = valid.strip_prefix('\u{feff}').unwrap_or(valid);
                if !valid.trim().is_empty() {
                    first = Some((start, valid));
                }
                break;
            }
            Err(_) => damaged += 1,
        }
        if line_count > 64 {
            break;
        }
    }
    let Some((start, line)) = first else {
        if damaged > 0 {
            return FileKind::Binary;
        }
        return if complete {
            FileKind::Empty
        } else {
            FileKind::Other {
                reason: "it starts with more than 64 KiB of blank space".to_owned(),
            }
        };
    };
    let trimmed = line.trim_start().trim_start_matches('\u{feff}');
    if trimmed.starts_with('{') {
        // A JSON document may span lines (a pretty-printed export): scan from here on.
        let rest = &head[start..];
        let rest = match std::str::from_utf8(rest) {
            Ok(t) => t,
            Err(e) => std::str::from_utf8(&rest[..e.valid_up_to()]).unwrap_or(""),
        };
        let rest = rest.trim_start().trim_start_matches('\u{feff}');
        return classify_object(&scan_keys(rest));
    }
    if trimmed.starts_with('[') {
        return FileKind::Other {
            reason: "it is a JSON array, not JSON Lines".to_owned(),
        };
    }
    if looks_like_csv(head) {
        return FileKind::Csv;
    }
    let shown: String = trimmed.chars().take(40).collect();
    FileKind::Other {
        reason: format!("the first line is not JSON (it starts with {shown:?})"),
    }
}

fn looks_like_csv(head: &[u8]) -> bool {
    let text = String::from_utf8_lossy(head);
    let mut rows = text.lines().filter(|l| !l.trim().is_empty()).take(5);
    let Some(first) = rows.next() else {
        return false;
    };
    [',', '\t', ';'].iter().any(|&sep| {
        let n = first.matches(sep).count();
        n > 0 && rows.clone().all(|r| r.matches(sep).count() >= 1)
    })
}

/// Top-level keys at the start of a JSON object, as far as the text goes.
#[derive(Debug, Default)]
struct Keys {
    /// `(key, scalar value text when the value is a scalar)`.
    keys: Vec<(String, Option<String>)>,
    /// The text is not JSON.
    malformed: bool,
    /// The object ended within the text.
    closed: bool,
}

fn classify_object(k: &Keys) -> FileKind {
    const DATASET: [&str; 11] = [
        "english_env_info",
        "english_tools",
        "english_tasks",
        "english_answer_list",
        "english_task_types",
        "env_info",
        "tools",
        "tasks",
        "answer_list",
        "task_types",
        "turn_subtypes",
    ];
    for (key, value) in &k.keys {
        match key.as_str() {
            "wildtool_run" => {
                let version = value
                    .as_deref()
                    .and_then(|v| v.parse::<u64>().ok())
                    .unwrap_or(0);
                return FileKind::RunExport { version };
            }
            "wildtool_checkpoint" => return FileKind::Checkpoint,
            "wildtool_env_checkpoint" => return FileKind::EnvRun,
            "format"
                if value
                    .as_deref()
                    .is_some_and(|v| v.starts_with("wildtool-env-run/")) =>
            {
                return FileKind::EnvRun
            }
            "format"
                if value
                    .as_deref()
                    .is_some_and(|v| v.starts_with("wildtool-env-report/")) =>
            {
                return FileKind::EnvReport
            }
            "format"
                if value.as_deref().is_some_and(|v| {
                    v.starts_with("wildtool-own-run/") || v.starts_with("wildtool-own-report/")
                }) =>
            {
                return FileKind::OwnRun
            }
            "wildtool_report" | "wildtool_version" => return FileKind::Report,
            "result" => return FileKind::Results,
            "results" => return FileKind::ScoreFile,
            "total_info" => return FileKind::Metric,
            k if DATASET.contains(&k) => return FileKind::Dataset,
            _ => {}
        }
    }
    let has = |name: &str| k.keys.iter().any(|(key, _)| key == name);
    if k.malformed {
        return FileKind::Other {
            reason: "the first line is not valid JSON".to_owned(),
        };
    }
    if !k.closed && has("id") && has("model_name") {
        // Only the result list makes a result line long.
        return FileKind::Results;
    }
    FileKind::Other {
        reason: "its first object has none of the fields of a result line (\"id\", \"model_name\", \"result\")".to_owned(),
    }
}

/// A tolerant scanner for the top-level keys of the JSON object `text` starts with.
fn scan_keys(text: &str) -> Keys {
    let mut s = Scan {
        b: text.as_bytes(),
        i: 0,
    };
    let mut out = Keys::default();
    if s.peek() != Some(b'{') {
        out.malformed = true;
        return out;
    }
    s.i += 1;
    loop {
        s.ws();
        match s.peek() {
            None => return out,
            Some(b'}') => {
                out.closed = true;
                return out;
            }
            Some(b'"') => {}
            Some(_) => {
                out.malformed = true;
                return out;
            }
        }
        let Some(key) = s.string() else {
            return out;
        };
        s.ws();
        match s.peek() {
            None => return out,
            Some(b':') => s.i += 1,
            Some(_) => {
                out.malformed = true;
                return out;
            }
        }
        s.ws();
        let value = match s.peek() {
            None => {
                out.keys.push((key, None));
                return out;
            }
            Some(b'"') => match s.string() {
                Some(v) => Some(v),
                None => {
                    out.keys.push((key, None));
                    return out;
                }
            },
            Some(b'{' | b'[') => {
                if !s.skip_container() {
                    out.keys.push((key, None));
                    return out;
                }
                None
            }
            Some(_) => {
                let start = s.i;
                while let Some(c) = s.peek() {
                    if matches!(c, b',' | b'}' | b']') || c.is_ascii_whitespace() {
                        break;
                    }
                    s.i += 1;
                }
                let token = &text[start..s.i];
                if token.is_empty() {
                    out.malformed = true;
                    return out;
                }
                Some(token.to_owned())
            }
        };
        out.keys.push((key, value));
        s.ws();
        match s.peek() {
            None => return out,
            Some(b',') => s.i += 1,
            Some(b'}') => {
                out.closed = true;
                return out;
            }
            Some(_) => {
                out.malformed = true;
                return out;
            }
        }
    }
}

struct Scan<'a> {
    b: &'a [u8],
    i: usize,
}

impl Scan<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn ws(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            self.i += 1;
        }
    }

    /// Reads a string at `"` (raw, escapes kept); `None` when the text ends inside it.
    fn string(&mut self) -> Option<String> {
        let start = self.i + 1;
        let mut j = start;
        while let Some(&c) = self.b.get(j) {
            match c {
                b'\\' => j += 2,
                b'"' => {
                    let raw = String::from_utf8_lossy(self.b.get(start..j)?).into_owned();
                    self.i = j + 1;
                    return Some(raw);
                }
                _ => j += 1,
            }
        }
        self.i = self.b.len();
        None
    }

    /// Skips an object or array; false when the text ends inside it.
    fn skip_container(&mut self) -> bool {
        let mut depth = 0usize;
        while let Some(c) = self.peek() {
            match c {
                b'"' => {
                    if self.string().is_none() {
                        return false;
                    }
                    continue;
                }
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        self.i += 1;
                        return true;
                    }
                }
                _ => {}
            }
            self.i += 1;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(text: &str) -> FileKind {
        sniff(text.as_bytes(), text.len() as u64)
    }

    #[test]
    fn every_kind_is_told_apart() {
        assert_eq!(sniff(b"", 0), FileKind::Empty);
        assert_eq!(kind(" \n\n\t\n"), FileKind::Empty);
        assert_eq!(
            kind("{\"id\": \"wild_tool_bench_0\", \"model_name\": \"m\", \"result\": []}\n"),
            FileKind::Results
        );
        assert_eq!(
            kind("\u{feff}{\"id\": \"x_0\", \"model_name\": \"m\", \"result\": [{\"a\": [1, {\"b\": \"}\"}]}]}"),
            FileKind::Results
        );
        assert_eq!(
            kind("{\"wildtool_checkpoint\": 1, \"model_name\": \"m\", \"dataset\": \"ab\"}\n{\"id\": \"x\"}"),
            FileKind::Checkpoint
        );
        assert_eq!(
            kind("{\n  \"wildtool_run\": 2,\n  \"meta\": {}\n}"),
            FileKind::RunExport { version: 2 }
        );
        assert_eq!(
            kind("{\"wildtool_run\":1,\"scorer\":\"s\"}"),
            FileKind::RunExport { version: 1 }
        );
        assert!(!kind("{\"wildtool_run\": 9}").is_scorable());
        assert_eq!(
            kind("{\"id\": \"wild_tool_bench_0\", \"env_info\": \"2024\", \"tools\": []}"),
            FileKind::Dataset
        );
        assert_eq!(
            kind("{\"id\": \"wild_tool_bench_0\", \"results\": []}"),
            FileKind::ScoreFile
        );
        assert_eq!(
            kind("{\n    \"model_name\": \"m\",\n    \"total_info\": {}\n}"),
            FileKind::Metric
        );
        assert_eq!(
            kind("{\n  \"wildtool_version\": \"0.1.0\",\n  \"report\": {}}"),
            FileKind::Report
        );
        assert_eq!(
            kind("session,task,correct\n0,0,true\n0,1,false\n"),
            FileKind::Csv
        );
        assert_eq!(sniff(b"\x89PNG\r\n\x1a\n\0\0\0", 11), FileKind::Binary);
        assert_eq!(sniff(b"\xff\xfe\xfd\n\xc3\x28", 6), FileKind::Binary);
        assert!(matches!(kind("hello world"), FileKind::Other { .. }));
        assert!(matches!(kind("{broken"), FileKind::Other { .. }));
        assert!(matches!(kind("[1, 2]"), FileKind::Other { .. }));
        assert!(matches!(kind("{\"a\": 1}"), FileKind::Other { .. }));
        // Distinct messages.
        let kinds = [
            FileKind::Empty,
            FileKind::Results,
            FileKind::Checkpoint,
            FileKind::RunExport { version: 2 },
            FileKind::Dataset,
            FileKind::ScoreFile,
            FileKind::Metric,
            FileKind::Report,
            FileKind::Csv,
            FileKind::Binary,
        ];
        let mut messages: Vec<String> = kinds.iter().map(FileKind::message).collect();
        messages.sort();
        messages.dedup();
        assert_eq!(messages.len(), kinds.len());
    }

    #[test]
    fn a_head_cut_inside_a_long_first_line_is_still_recognised() {
        let mut line =
            "{\"id\": \"wild_tool_bench_3\", \"model_name\": \"m\", \"result\": [".to_owned();
        while line.len() < SNIFF_BYTES * 2 {
            line.push_str("{\"content\": \"\u{4e2d}\u{6587}\"}, ");
        }
        let head = &line.as_bytes()[..SNIFF_BYTES];
        assert_eq!(sniff(head, line.len() as u64), FileKind::Results);
        let mut long_first = "{\"id\": \"wild_tool_bench_3\", \"model_name\": \"".to_owned();
        long_first.push_str(&"m".repeat(SNIFF_BYTES));
        assert_eq!(
            sniff(&long_first.as_bytes()[..SNIFF_BYTES], 1 << 30),
            FileKind::Results
        );
    }
}
