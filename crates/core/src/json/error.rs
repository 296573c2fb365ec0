//! The error of [`loads`](super::loads), shaped like Python's `json.JSONDecodeError`.

use std::fmt;

/// Which Python exception `json.loads` would raise for the input.
///
/// The official checker catches only `json.JSONDecodeError`; the other two kinds make the
/// official code crash, so callers that emulate it need to tell them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JsonErrorKind {
    /// `json.JSONDecodeError` (a `ValueError` subclass): malformed JSON text.
    Decode,
    /// Plain `ValueError`: an integer literal with more than 4300 digits (CPython's
    /// `sys.get_int_max_str_digits()` default).
    IntTooLong,
    /// `RecursionError`: containers nested deeper than [`MAX_DEPTH`](super::MAX_DEPTH).
    TooDeep,
}

/// A JSON parse failure with Python's message and position.
///
/// Positions count code points, as Python's do: `offset` is the 0-based character index,
/// `line` and `column` are 1-based (`column` counts characters since the last `\n`).
/// `Display` is Python's `str(err)`, e.g. `Expecting value: line 1 column 1 (char 0)`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct JsonError {
    /// The Python exception this corresponds to.
    pub kind: JsonErrorKind,
    /// The message without position, e.g. `Expecting ',' delimiter`.
    pub msg: String,
    /// 1-based line of the error position.
    pub line: usize,
    /// 1-based column (in characters) of the error position.
    pub column: usize,
    /// 0-based character offset of the error position.
    pub offset: usize,
}

impl JsonError {
    /// Builds an error at byte position `byte_pos` of `text`, converting it to Python's
    /// character-based line, column and offset.
    pub(crate) fn at(
        kind: JsonErrorKind,
        msg: impl Into<String>,
        text: &str,
        byte_pos: usize,
    ) -> Self {
        let mut cut = byte_pos.min(text.len());
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        let prefix = text.get(..cut).unwrap_or("");
        let offset = prefix.chars().count();
        let line = prefix.bytes().filter(|&b| b == b'\n').count() + 1;
        let column = match prefix.rfind('\n') {
            Some(nl) => prefix.get(nl + 1..).map_or(0, |tail| tail.chars().count()) + 1,
            None => offset + 1,
        };
        JsonError {
            kind,
            msg: msg.into(),
            line,
            column,
            offset,
        }
    }
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            JsonErrorKind::Decode => write!(
                f,
                "{}: line {} column {} (char {})",
                self.msg, self.line, self.column, self.offset
            ),
            // Python's ValueError / RecursionError messages carry no position.
            JsonErrorKind::IntTooLong | JsonErrorKind::TooDeep => f.write_str(&self.msg),
        }
    }
}
