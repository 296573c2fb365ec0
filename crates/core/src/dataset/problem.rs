//! Dataset problems: what is wrong, where, and how bad.

use std::fmt;

/// How serious a [`Problem`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// The file still loads and scores as the official code would; worth a look.
    Warning,
    /// A PROTOCOL §1.4 constraint is violated: the official code would crash or score the
    /// wrong thing. The session is not valid.
    Error,
}

impl Severity {
    /// `"warning"` or `"error"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// One problem found in a dataset.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Problem {
    /// 1-based physical line number in the file (for humans; blank lines count).
    pub line: usize,
    /// The session's `id`, when the line has a string `id`.
    pub session_id: Option<String>,
    /// JSON path inside the line, e.g. `english_answer_list[2][1].dependency_list[0]`;
    /// empty for the whole line.
    pub path: String,
    /// What is wrong.
    pub message: String,
    /// Error or warning.
    pub severity: Severity,
}

impl Problem {
    /// True for errors.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Problem {
    /// `line 3 (wild_tool_bench_2) english_tasks[1]: error: expected a string, found int`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}", self.line)?;
        if let Some(id) = &self.session_id {
            write!(f, " ({id})")?;
        }
        if !self.path.is_empty() {
            write!(f, " {}", self.path)?;
        }
        write!(f, ": {}: {}", self.severity.as_str(), self.message)
    }
}

/// Collects problems for one line, with the line number and session id filled in.
#[derive(Debug, Clone)]
pub(crate) struct Sink {
    line: usize,
    session_id: Option<String>,
    pub(crate) problems: Vec<Problem>,
}

impl Sink {
    pub(crate) fn new(line: usize, session_id: Option<String>) -> Self {
        Self {
            line,
            session_id,
            problems: Vec::new(),
        }
    }

    pub(crate) fn error(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.push(Severity::Error, path.into(), message.into());
    }

    pub(crate) fn warning(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.push(Severity::Warning, path.into(), message.into());
    }

    fn push(&mut self, severity: Severity, path: String, message: String) {
        self.problems.push(Problem {
            line: self.line,
            session_id: self.session_id.clone(),
            path,
            message,
            severity,
        });
    }
}

/// A JSON path written out only when a problem names it (the loader walks every node of
/// a dataset, and building each path as text cost more than the checks).
#[derive(Debug, Clone, Copy)]
pub(crate) enum JsonPath<'a> {
    /// A top-level field (or any path already written).
    Root(&'a str),
    /// `parent[index]`.
    Index(&'a JsonPath<'a>, usize),
    /// `parent.key`.
    Member(&'a JsonPath<'a>, &'a str),
}

impl std::fmt::Display for JsonPath<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JsonPath::Root(s) => f.write_str(s),
            JsonPath::Index(parent, i) => write!(f, "{parent}[{i}]"),
            JsonPath::Member(parent, key) => write!(f, "{parent}.{key}"),
        }
    }
}
