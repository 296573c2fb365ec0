//! JSON Lines, byte for byte: splitting a byte stream into numbered lines with their byte
//! spans, and the rule that turns one line's bytes into text. The command line (reading a
//! file in chunks) and the page (reading an upload in slices) both use it, so a damaged
//! line costs exactly that line, named by its number, in both.
//!
//! The rule for one line:
//! - lines end at `\n`; a `\r` before it is dropped; the last line may lack the `\n`;
//! - a UTF-8 byte-order mark at the start of the file is dropped;
//! - a line longer than [`MAX_LINE_BYTES`] is not read (it is never held in memory) and
//!   is reported as [`LineError::TooLong`];
//! - a line that is not valid UTF-8 is reported ([`LineError::InvalidUtf8`], or
//!   [`LineError::CutUtf8`] when it ends inside a multi-byte character, as a file cut
//!   short while being written does) and skipped whole — it is never "repaired" with
//!   replacement characters, which would score altered text;
//! - a blank line (only whitespace) is no record and no error.

use super::limits::{Limit, LimitError, MAX_LINE_BYTES};

/// The UTF-8 byte-order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Where one line is in its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineSpan {
    /// 1-based line number (blank lines count).
    pub number: usize,
    /// Byte offset of the line's first byte.
    pub offset: u64,
    /// Length in bytes, without the `\n` (a `\r` before it is included).
    pub len: u64,
}

/// Why one line cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineError {
    /// Longer than [`MAX_LINE_BYTES`].
    TooLong(LimitError),
    /// Not valid UTF-8.
    InvalidUtf8 {
        /// 1-based line number.
        line: usize,
        /// 1-based byte position of the first invalid byte within the line.
        column: usize,
    },
    /// Ends inside a multi-byte character.
    CutUtf8 {
        /// 1-based line number.
        line: usize,
    },
}

impl LineError {
    /// The 1-based number of the line.
    pub fn line(&self) -> usize {
        match self {
            LineError::TooLong(e) => e.line.unwrap_or(0),
            LineError::InvalidUtf8 { line, .. } | LineError::CutUtf8 { line } => *line,
        }
    }

    /// What is wrong, without the line number.
    pub fn problem(&self) -> String {
        match self {
            LineError::TooLong(e) => format!(
                "{} bytes long, more than the limit of {} bytes ({}) for one line",
                e.size,
                e.limit.bytes(),
                super::limits::human_bytes(e.limit.bytes() as u64)
            ),
            LineError::InvalidUtf8 { column, .. } => {
                format!("not valid UTF-8 (invalid byte at byte {column} of the line)")
            }
            LineError::CutUtf8 { .. } => "ends in the middle of a UTF-8 character (the file was probably cut short while it was written)".to_owned(),
        }
    }
}

impl std::fmt::Display for LineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line(), self.problem())
    }
}

impl std::error::Error for LineError {}

fn too_long(span: &LineSpan) -> LineError {
    LineError::TooLong(LimitError {
        limit: Limit::Line,
        size: span.len,
        line: Some(span.number),
    })
}

/// Turns one line's bytes into its text: `Ok(None)` for a blank line.
pub fn decode<'a>(span: &LineSpan, bytes: &'a [u8]) -> Result<Option<&'a str>, LineError> {
    let mut b = bytes;
    if let [rest @ .., b'\r'] = b {
        b = rest;
    }
    if span.offset == 0 {
        b = b.strip_prefix(BOM).unwrap_or(b);
    }
    let text = std::str::from_utf8(b).map_err(|e| match e.error_len() {
        None => LineError::CutUtf8 { line: span.number },
        Some(_) => LineError::InvalidUtf8 {
            line: span.number,
            column: e.valid_up_to() + 1,
        },
    })?;
    Ok((!text.trim().is_empty()).then_some(text))
}

/// What [`LineSplitter`] hands each line to: its span and its raw bytes (or why it was
/// not read).
pub type LineVisitor<'v> = dyn FnMut(LineSpan, Result<&[u8], LineError>) + 'v;

/// Splits a stream of byte chunks into lines. Lines within one chunk are handed over
/// without copying; a line that spans chunks is gathered, up to the limit.
#[derive(Debug, Clone)]
pub struct LineSplitter {
    limit: usize,
    buf: Vec<u8>,
    number: usize,
    start: u64,
    len: u64,
    over: bool,
}

impl Default for LineSplitter {
    fn default() -> Self {
        Self::new()
    }
}

impl LineSplitter {
    /// A splitter with the [`MAX_LINE_BYTES`] limit.
    pub fn new() -> Self {
        Self::with_limit(MAX_LINE_BYTES)
    }

    /// A splitter with another line limit (tests).
    pub fn with_limit(limit: usize) -> Self {
        Self {
            limit,
            buf: Vec::new(),
            number: 1,
            start: 0,
            len: 0,
            over: false,
        }
    }

    /// Bytes consumed so far.
    pub fn position(&self) -> u64 {
        self.start + self.len
    }

    /// Feeds the next chunk; `visit` gets every line the chunk completes, with its raw
    /// bytes or the [`LineError::TooLong`] error (pass the bytes to [`decode`]).
    pub fn push(&mut self, chunk: &[u8], visit: &mut LineVisitor<'_>) {
        let mut rest = chunk;
        while !rest.is_empty() {
            match memchr::memchr(b'\n', rest) {
                Some(i) => {
                    let (piece, after) = rest.split_at(i);
                    rest = after.get(1..).unwrap_or(&[]);
                    if self.len == 0 && !self.over && piece.len() <= self.limit {
                        // The whole line is in this chunk.
                        self.len = piece.len() as u64;
                        let span = self.span();
                        visit(span, Ok(piece));
                    } else {
                        self.extend(piece);
                        self.emit(visit);
                        continue;
                    }
                    self.next_line();
                }
                None => {
                    self.extend(rest);
                    break;
                }
            }
        }
    }

    /// Ends the stream: hands over the last line when it has no terminator.
    pub fn finish(&mut self, visit: &mut LineVisitor<'_>) {
        if self.len > 0 {
            self.emit(visit);
        }
    }

    fn span(&self) -> LineSpan {
        LineSpan {
            number: self.number,
            offset: self.start,
            len: self.len,
        }
    }

    fn extend(&mut self, piece: &[u8]) {
        self.len += piece.len() as u64;
        if self.over {
            return;
        }
        if self.len > self.limit as u64 {
            self.over = true;
            self.buf = Vec::new();
        } else {
            self.buf.extend_from_slice(piece);
        }
    }

    fn emit(&mut self, visit: &mut LineVisitor<'_>) {
        let span = self.span();
        if self.over {
            visit(span, Err(too_long(&span)));
        } else {
            visit(span, Ok(&self.buf));
        }
        self.next_line();
    }

    fn next_line(&mut self) {
        self.start += self.len + 1;
        self.len = 0;
        self.number += 1;
        self.over = false;
        self.buf.clear();
        if self.buf.capacity() > 4 << 20 {
            self.buf = Vec::new();
        }
    }
}

/// Every line of a whole byte string with its text (the same rule as [`LineSplitter`]
/// followed by [`decode`]).
pub fn split(bytes: &[u8]) -> Split<'_> {
    split_with_limit(bytes, MAX_LINE_BYTES)
}

/// [`split`] with another line limit (tests).
pub fn split_with_limit(bytes: &[u8], limit: usize) -> Split<'_> {
    Split {
        rest: bytes,
        offset: 0,
        number: 1,
        limit,
    }
}

/// Iterator returned by [`split`].
#[derive(Debug, Clone)]
pub struct Split<'a> {
    rest: &'a [u8],
    offset: u64,
    number: usize,
    limit: usize,
}

impl<'a> Iterator for Split<'a> {
    type Item = (LineSpan, Result<Option<&'a str>, LineError>);

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let (line, rest) = match memchr::memchr(b'\n', self.rest) {
            Some(i) => (&self.rest[..i], self.rest.get(i + 1..).unwrap_or(&[])),
            None => (self.rest, &[][..]),
        };
        let span = LineSpan {
            number: self.number,
            offset: self.offset,
            len: line.len() as u64,
        };
        self.rest = rest;
        self.offset += line.len() as u64 + 1;
        self.number += 1;
        let text = if line.len() > self.limit {
            Err(too_long(&span))
        } else {
            decode(&span, line)
        };
        Some((span, text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Seen = Vec<(LineSpan, Result<Option<String>, LineError>)>;

    fn chunked(bytes: &[u8], size: usize, limit: usize) -> Seen {
        let mut out = Vec::new();
        let mut s = LineSplitter::with_limit(limit);
        let mut visit = |span: LineSpan, r: Result<&[u8], LineError>| {
            let text = r.and_then(|b| decode(&span, b).map(|t| t.map(str::to_owned)));
            out.push((span, text));
        };
        for c in bytes.chunks(size.max(1)) {
            s.push(c, &mut visit);
        }
        s.finish(&mut visit);
        out
    }

    fn whole(bytes: &[u8], limit: usize) -> Seen {
        split_with_limit(bytes, limit)
            .map(|(s, t)| (s, t.map(|t| t.map(str::to_owned))))
            .collect()
    }

    #[test]
    fn lines_spans_and_errors() {
        let text = "\u{feff}{\"a\": 1}\r\n\n  \nd\u{e9}j\u{e0}\n\u{4e2d}";
        let mut bytes = text.as_bytes().to_vec();
        bytes.truncate(bytes.len() - 1); // cut the last character
        bytes.extend_from_slice(b"\nx\xffy\n");
        let seen = whole(&bytes, 1 << 20);
        assert_eq!(seen.len(), 6);
        assert_eq!(seen[0].1, Ok(Some("{\"a\": 1}".to_owned())));
        assert_eq!(seen[1].1, Ok(None));
        assert_eq!(seen[2].1, Ok(None));
        assert_eq!(seen[3].1, Ok(Some("d\u{e9}j\u{e0}".to_owned())));
        assert_eq!(seen[4].1, Err(LineError::CutUtf8 { line: 5 }));
        assert_eq!(
            seen[5].1,
            Err(LineError::InvalidUtf8 { line: 6, column: 2 })
        );
        // Spans point at the bytes.
        for (span, _) in &seen {
            let end = (span.offset + span.len) as usize;
            assert!(end <= bytes.len());
            assert!(!bytes[span.offset as usize..end].contains(&b'\n'));
        }
        for size in [1, 2, 3, 5, 64] {
            assert_eq!(chunked(&bytes, size, 1 << 20), seen, "chunk size {size}");
        }
    }

    #[test]
    fn long_lines_are_skipped_without_being_held() {
        let bytes = b"short\n0123456789abcdef\nok\n0123456789";
        let seen = whole(bytes, 8);
        assert_eq!(seen[0].1, Ok(Some("short".to_owned())));
        assert!(
            matches!(seen[1].1, Err(LineError::TooLong(e)) if e.line == Some(2) && e.size == 16)
        );
        assert_eq!(seen[2].1, Ok(Some("ok".to_owned())));
        assert!(matches!(seen[3].1, Err(LineError::TooLong(_))));
        assert_eq!(seen.len(), 4);
        for size in [1, 4, 7, 100] {
            assert_eq!(chunked(bytes, size, 8), seen, "chunk size {size}");
        }
        let e = &seen[1].1;
        assert!(e.as_ref().err().is_some_and(|e| e.line() == 2));
    }
}
