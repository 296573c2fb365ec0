//! Size limits on what wildtool reads and stores. Both front doors enforce them through
//! the core functions that read lines and documents, so a file is refused (or one line
//! of it skipped) with the same message in the command line and in the page.
//!
//! | limit | value | where |
//! |---|---|---|
//! | [`MAX_LINE_BYTES`] | 64 MiB | one line of a result file, checkpoint or dataset; a longer line is skipped and named (the page would need about ten times a line's size in memory to score it) |
//! | [`MAX_DOCUMENT_BYTES`] | 256 MiB | a whole-file JSON document: a run exported by the page, a `report.json` |
//! | [`MAX_REPLY_BODY_BYTES`] | 16 MiB | one HTTP response body from a model endpoint; the transports stop reading beyond it and the request fails as a transport failure |
//! | [`MAX_STEP_BYTES`] | 16 MiB | one recorded step of a task (the reply as stored in the log); a larger step ends the task as incomplete instead of growing the checkpoint without bound |

use std::fmt;

/// Largest line read from a JSON Lines file (result file, checkpoint, dataset), in bytes
/// without the line terminator.
pub const MAX_LINE_BYTES: usize = 64 * 1024 * 1024;

/// Largest whole-file JSON document read (a page run export, a `report.json`), in bytes.
pub const MAX_DOCUMENT_BYTES: usize = 256 * 1024 * 1024;

/// Largest response body accepted from a model endpoint, in bytes.
pub const MAX_REPLY_BODY_BYTES: usize = 16 * 1024 * 1024;

/// Largest recorded step (one reply with its log entry), in bytes of its JSON text.
pub const MAX_STEP_BYTES: usize = 16 * 1024 * 1024;

/// Which limit was exceeded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// [`MAX_LINE_BYTES`].
    Line,
    /// [`MAX_DOCUMENT_BYTES`].
    Document,
    /// [`MAX_REPLY_BODY_BYTES`].
    ReplyBody,
    /// [`MAX_STEP_BYTES`].
    Step,
}

impl Limit {
    /// The limit in bytes.
    pub fn bytes(self) -> usize {
        match self {
            Limit::Line => MAX_LINE_BYTES,
            Limit::Document => MAX_DOCUMENT_BYTES,
            Limit::ReplyBody => MAX_REPLY_BODY_BYTES,
            Limit::Step => MAX_STEP_BYTES,
        }
    }

    fn what(self) -> &'static str {
        match self {
            Limit::Line => "a line",
            Limit::Document => "a document",
            Limit::ReplyBody => "a reply body",
            Limit::Step => "a recorded step",
        }
    }
}

/// Something larger than its limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub struct LimitError {
    /// The limit exceeded.
    pub limit: Limit,
    /// The size found (for a line or a reply cut off while reading: at least this much).
    pub size: u64,
    /// 1-based line number, when the thing is a line.
    pub line: Option<usize>,
}

impl fmt::Display for LimitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(line) = self.line {
            write!(f, "line {line} is")?;
        } else {
            write!(f, "{} is", capitalised(self.limit.what()))?;
        }
        write!(
            f,
            " {} bytes long; the limit for {} is {} bytes ({})",
            self.size,
            self.limit.what(),
            self.limit.bytes(),
            human_bytes(self.limit.bytes() as u64)
        )
    }
}

/// `s` with its first letter in upper case. The limits' names are ASCII, and the ASCII rule
/// keeps std's Unicode case tables (about 10 KB of the app shell) out of the page.
fn capitalised(s: &str) -> String {
    let mut out = s.to_owned();
    if let Some(first) = out.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    out
}

/// Checks a size against a limit.
pub fn check(limit: Limit, size: u64, line: Option<usize>) -> Result<(), LimitError> {
    if size > limit.bytes() as u64 {
        Err(LimitError { limit, size, line })
    } else {
        Ok(())
    }
}

/// Checks the length of a model endpoint's response body (transports call this before
/// and while reading a body).
pub fn check_reply_body(len: u64) -> Result<(), LimitError> {
    check(Limit::ReplyBody, len, None)
}

/// Checks the JSON length of one recorded step.
pub fn check_step(len: u64) -> Result<(), LimitError> {
    check(Limit::Step, len, None)
}

/// A byte count for messages in binary units (`1536` → `1.5 KiB`, `67108864` → `64.0 MiB`).
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if n < 1024 {
        return format!("{n} bytes");
    }
    let mut value = n as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_name_the_line_and_the_limit() {
        assert!(check(Limit::Line, MAX_LINE_BYTES as u64, Some(3)).is_ok());
        let e = check(Limit::Line, MAX_LINE_BYTES as u64 + 1, Some(3)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 3 is 67108865 bytes long; the limit for a line is 67108864 bytes (64.0 MiB)"
        );
        let e = check_reply_body(50 * 1024 * 1024).unwrap_err();
        assert_eq!(
            e.to_string(),
            "A reply body is 52428800 bytes long; the limit for a reply body is 16777216 bytes (16.0 MiB)"
        );
        assert!(check_step(10).is_ok());
        assert_eq!(human_bytes(1023), "1023 bytes");
        assert_eq!(human_bytes(1536), "1.5 KiB");
    }
}
