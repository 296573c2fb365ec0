//! `json.loads` as CPython 3.11's C scanner does it (PROTOCOL §5.4).
//!
//! The parser is iterative (an explicit stack of open containers), so deep input cannot
//! overflow the native stack; nesting beyond [`MAX_DEPTH`] is refused the way Python raises
//! `RecursionError`.
//!
//! **Known deviation:** Python accepts lone surrogate escapes (`"\ud800"`) and keeps them in
//! the `str`; a Rust `String` cannot hold them, so each lone surrogate becomes U+FFFD.
//! Properly paired escapes (`"\ud83d\ude00"`) become the real character, as in Python.

use std::collections::HashMap;

use super::error::{JsonError, JsonErrorKind};
use super::value::{Map, PyInt, RawJson, Value};

/// Deepest container nesting accepted (the outermost container is depth 1).
///
/// CPython 3.11 raises `RecursionError` once the interpreter's recursion limit (1000) is
/// reached; the exact threshold depends on how deep the caller already is (about 997 levels
/// from a top-level script), so this limit approximates it.
pub const MAX_DEPTH: usize = 1000;

/// CPython's default `sys.get_int_max_str_digits()`.
pub(crate) const MAX_INT_DIGITS: usize = 4300;

/// Objects with more members than this get a hash index for duplicate-key detection.
const INDEX_THRESHOLD: usize = 16;

/// Parses `text` exactly as Python's `json.loads(text)` does.
///
/// Numbers with a fraction or exponent become [`Value::Float`] (`1e400` is infinity), other
/// numbers [`Value::Int`] (`-0` is the integer 0); `NaN`, `Infinity` and `-Infinity` are
/// accepted; a duplicate key keeps its first position and takes the last value; only
/// `" \t\n\r"` may surround tokens. Errors carry Python's message and position.
pub fn loads(text: &str) -> Result<Value, JsonError> {
    parse_with(text, &[])
}

impl RawJson {
    /// The parsed value. The text was validated when it was read, so this does not fail
    /// (an impossible failure gives `null`).
    pub fn value(&self) -> Value {
        loads(self.text()).unwrap_or(Value::Null)
    }
}

/// One step of a [`loads_deferring`] path: what the key or index of a container on the
/// way must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathStep<'a> {
    /// A member with this key.
    Key(&'a str),
    /// A member with one of these keys.
    AnyOf(&'a [&'a str]),
    /// A member whose key starts with this.
    Prefix(&'a str),
    /// Any item of an array.
    AnyIndex,
}

impl PathStep<'_> {
    fn matches(&self, frame: &Frame) -> bool {
        match (self, frame) {
            (PathStep::Key(k), Frame::Object(f)) => f.key == *k,
            (PathStep::AnyOf(keys), Frame::Object(f)) => keys.iter().any(|k| f.key == *k),
            (PathStep::Prefix(p), Frame::Object(f)) => f.key.starts_with(p),
            (PathStep::AnyIndex, Frame::Array(_)) => true,
            _ => false,
        }
    }
}

/// [`loads`], except that the arrays and objects found at `path` (one [`PathStep`] per
/// enclosing container, outermost first) are kept as [`Value::Raw`] (their validated
/// text) where that is exact: when they hold no duplicate keys and no key with an escape.
/// The result is accepted, refused (with the same error) and written by
/// [`dumps`](super::dumps) exactly as [`loads`]'s; only the trees at `path` are not built.
/// For callers that copy such values through unread.
pub fn loads_deferring(text: &str, path: &[PathStep<'_>]) -> Result<Value, JsonError> {
    parse_with(text, path)
}

fn parse_with(text: &str, defer: &[PathStep<'_>]) -> Result<Value, JsonError> {
    let mut parser = Parser {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        defer,
    };
    if text.starts_with('\u{feff}') {
        return Err(parser.error("Unexpected UTF-8 BOM (decode using utf-8-sig)", 0));
    }
    parser.skip_ws();
    let value = parser.parse_document_value()?;
    parser.skip_ws();
    if parser.pos != parser.bytes.len() {
        return Err(parser.error("Extra data", parser.pos));
    }
    Ok(value)
}

/// An open container on the parser's stack.
enum Frame {
    Array(Vec<Value>),
    Object(ObjectFrame),
}

/// An open object: members so far, the key whose value is being parsed, and (for large
/// objects) an index from key to position.
struct ObjectFrame {
    map: Map,
    key: String,
    index: Option<HashMap<String, usize>>,
}

impl ObjectFrame {
    /// Python `d[key] = value`: replace in place if present, else append.
    fn insert(&mut self, key: String, value: Value) {
        if self.index.is_none() && self.map.len() >= INDEX_THRESHOLD {
            let index = self
                .map
                .keys()
                .enumerate()
                .map(|(i, k)| (k.clone(), i))
                .collect();
            self.index = Some(index);
        }
        match &mut self.index {
            Some(index) => match index.get(&key) {
                Some(&i) => {
                    if let Some(slot) = self.map.value_at_mut(i) {
                        *slot = value;
                    }
                }
                None => {
                    index.insert(key.clone(), self.map.len());
                    self.map.push_new(key, value);
                }
            },
            None => self.map.insert(key, value),
        }
    }
}

struct Parser<'a, 'p> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    /// Containers at this path are kept as raw text (empty: none).
    defer: &'p [PathStep<'p>],
}

impl Parser<'_, '_> {
    fn error(&self, msg: &str, byte_pos: usize) -> JsonError {
        JsonError::at(JsonErrorKind::Decode, msg, self.text, byte_pos)
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn starts_with_at(&self, pos: usize, lit: &str) -> bool {
        self.bytes
            .get(pos..)
            .is_some_and(|rest| rest.starts_with(lit.as_bytes()))
    }

    /// Parses one value at `self.pos` (whitespace already skipped), iteratively.
    fn parse_document_value(&mut self) -> Result<Value, JsonError> {
        self.parse_document_value_at(0)
    }

    /// One value, `outer` containers deep (for the depth limit).
    fn parse_document_value_at(&mut self, outer: usize) -> Result<Value, JsonError> {
        let mut stack: Vec<Frame> = Vec::new();
        'value: loop {
            // Parse a value start; containers that are non-empty are pushed and resumed.
            let mut value = match self.peek() {
                Some(b'[' | b'{') if self.deferred_member(&stack) => {
                    match super::scan::scan(self.bytes, self.pos, stack.len()) {
                        Some(found) => {
                            let text = self.text.get(self.pos..found.end).unwrap_or("");
                            self.pos = found.end;
                            Value::Raw(RawJson::new(text, found.canonical))
                        }
                        None => self.parse_nested(stack.len())?,
                    }
                }
                Some(open @ (b'[' | b'{')) => {
                    if outer + stack.len() >= MAX_DEPTH {
                        let what = if open == b'[' { "array" } else { "object" };
                        return Err(JsonError::at(
                            JsonErrorKind::TooDeep,
                            format!(
                                "maximum recursion depth exceeded while decoding a JSON {what} from a unicode string"
                            ),
                            self.text,
                            self.pos,
                        ));
                    }
                    self.pos += 1;
                    self.skip_ws();
                    if open == b'[' {
                        if self.peek() == Some(b']') {
                            self.pos += 1;
                            Value::Array(Vec::new())
                        } else {
                            stack.push(Frame::Array(Vec::new()));
                            continue 'value;
                        }
                    } else if self.peek() == Some(b'}') {
                        self.pos += 1;
                        Value::Object(Map::new())
                    } else {
                        let key = self.parse_key()?;
                        stack.push(Frame::Object(ObjectFrame {
                            map: Map::new(),
                            key,
                            index: None,
                        }));
                        continue 'value;
                    }
                }
                _ => self.parse_scalar()?,
            };
            // Attach the finished value to its parent, closing containers as they end.
            loop {
                match stack.last_mut() {
                    None => return Ok(value),
                    Some(Frame::Array(items)) => {
                        items.push(value);
                        self.skip_ws();
                        match self.peek() {
                            Some(b']') => {
                                self.pos += 1;
                                value = match stack.pop() {
                                    Some(Frame::Array(items)) => Value::Array(items),
                                    _ => Value::Null, // unreachable: last was an array
                                };
                            }
                            Some(b',') => {
                                self.pos += 1;
                                self.skip_ws();
                                continue 'value;
                            }
                            _ => return Err(self.error("Expecting ',' delimiter", self.pos)),
                        }
                    }
                    Some(Frame::Object(frame)) => {
                        let key = std::mem::take(&mut frame.key);
                        frame.insert(key, value);
                        self.skip_ws();
                        match self.peek() {
                            Some(b'}') => {
                                self.pos += 1;
                                value = match stack.pop() {
                                    Some(Frame::Object(frame)) => Value::Object(frame.map),
                                    _ => Value::Null, // unreachable: last was an object
                                };
                            }
                            Some(b',') => {
                                self.pos += 1;
                                self.skip_ws();
                                frame.key = self.parse_key()?;
                                continue 'value;
                            }
                            _ => return Err(self.error("Expecting ',' delimiter", self.pos)),
                        }
                    }
                }
            }
        }
    }

    /// True when the value about to be parsed is at the deferred path.
    fn deferred_member(&self, stack: &[Frame]) -> bool {
        !self.defer.is_empty()
            && stack.len() == self.defer.len()
            && self
                .defer
                .iter()
                .zip(stack)
                .all(|(step, frame)| step.matches(frame))
    }

    /// The container at `pos`, parsed into a tree, `depth` containers deep.
    fn parse_nested(&mut self, depth: usize) -> Result<Value, JsonError> {
        let mut inner = Parser {
            text: self.text,
            bytes: self.bytes,
            pos: self.pos,
            defer: &[],
        };
        let value = inner.parse_document_value_at(depth)?;
        self.pos = inner.pos;
        Ok(value)
    }

    /// Reads `"key"` `:` and the whitespace after it.
    fn parse_key(&mut self) -> Result<String, JsonError> {
        if self.peek() != Some(b'"') {
            return Err(self.error(
                "Expecting property name enclosed in double quotes",
                self.pos,
            ));
        }
        let key = self.parse_string()?;
        self.skip_ws();
        if self.peek() != Some(b':') {
            return Err(self.error("Expecting ':' delimiter", self.pos));
        }
        self.pos += 1;
        self.skip_ws();
        Ok(key)
    }

    /// Any value other than an array or object.
    fn parse_scalar(&mut self) -> Result<Value, JsonError> {
        let start = self.pos;
        let constant = |lit: &str, value: Value, p: &mut Self| -> Option<Value> {
            if p.starts_with_at(start, lit) {
                p.pos = start + lit.len();
                Some(value)
            } else {
                None
            }
        };
        let found = match self.peek() {
            Some(b'"') => return self.parse_string().map(Value::Str),
            Some(b'n') => constant("null", Value::Null, self),
            Some(b't') => constant("true", Value::Bool(true), self),
            Some(b'f') => constant("false", Value::Bool(false), self),
            Some(b'N') => constant("NaN", Value::Float(f64::NAN), self),
            Some(b'I') => constant("Infinity", Value::Float(f64::INFINITY), self),
            Some(b'-') => constant("-Infinity", Value::Float(f64::NEG_INFINITY), self),
            _ => None,
        };
        match found {
            Some(v) => Ok(v),
            None => self.parse_number(),
        }
    }

    /// A number ([`number_end`]) as an int or a float.
    fn parse_number(&mut self) -> Result<Value, JsonError> {
        let start = self.pos;
        let Some((idx, is_float)) = number_end(self.bytes, start) else {
            return Err(self.error("Expecting value", start));
        };
        self.pos = idx;
        let lexeme = self.text.get(start..idx).unwrap_or("");
        if is_float {
            // Rust's parser is correctly rounded like Python's float(); overflow gives ±inf.
            return lexeme
                .parse::<f64>()
                .map(Value::Float)
                .map_err(|_| self.error("Expecting value", start));
        }
        if let Ok(small) = lexeme.parse::<i64>() {
            return Ok(Value::Int(PyInt::Small(small)));
        }
        let digits = lexeme.trim_start_matches('-').len();
        if digits > MAX_INT_DIGITS {
            return Err(JsonError::at(
                JsonErrorKind::IntTooLong,
                format!(
                    "Exceeds the limit ({MAX_INT_DIGITS} digits) for integer string conversion: value has {digits} digits; use sys.set_int_max_str_digits() to increase the limit"
                ),
                self.text,
                start,
            ));
        }
        // The lexeme is already canonical: optional '-', no leading zeros, outside i64.
        Ok(Value::Int(PyInt::Big(lexeme.to_owned())))
    }

    /// Four hex digits at `pos`, if all present.
    fn hex4(&self, pos: usize) -> Option<u32> {
        let digits = self.bytes.get(pos..pos + 4)?;
        digits
            .iter()
            .try_fold(0u32, |acc, &b| Some(acc * 16 + (b as char).to_digit(16)?))
    }

    /// A string starting at the opening quote at `self.pos`; leaves `pos` after the closing
    /// quote.
    fn parse_string(&mut self) -> Result<String, JsonError> {
        let begin = self.pos;
        let mut pos = begin + 1;
        let mut out = String::new();
        loop {
            let chunk_start = pos;
            pos = skip_plain_string_bytes(self.bytes, pos);
            // Chunk boundaries sit on ASCII bytes or the end, so they are char boundaries.
            let chunk = self.text.get(chunk_start..pos).unwrap_or("");
            match self.bytes.get(pos) {
                None => return Err(self.error("Unterminated string starting at", begin)),
                Some(b'"') => {
                    self.pos = pos + 1;
                    if out.is_empty() {
                        return Ok(chunk.to_owned());
                    }
                    out.push_str(chunk);
                    return Ok(out);
                }
                Some(b'\\') => {
                    out.push_str(chunk);
                    pos = self.parse_escape(pos, begin, &mut out)?;
                }
                Some(_) => return Err(self.error("Invalid control character at", pos)),
            }
        }
    }

    /// The escape whose backslash is at `bs`; returns the position after it.
    fn parse_escape(&self, bs: usize, begin: usize, out: &mut String) -> Result<usize, JsonError> {
        let simple = match self.bytes.get(bs + 1) {
            None => return Err(self.error("Unterminated string starting at", begin)),
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => return self.parse_unicode_escape(bs, out),
            Some(_) => return Err(self.error("Invalid \\escape", bs)),
        };
        out.push(simple);
        Ok(bs + 2)
    }

    /// `\uXXXX` at `bs`, joining a following low-surrogate escape as CPython does.
    fn parse_unicode_escape(&self, bs: usize, out: &mut String) -> Result<usize, JsonError> {
        let u = bs + 1;
        let end = u + 5;
        // CPython also requires one more character after the four digits.
        let code = match self.hex4(u + 1) {
            Some(c) if end < self.bytes.len() => c,
            _ => return Err(self.error("Invalid \\uXXXX escape", u)),
        };
        if (0xD800..0xDC00).contains(&code)
            && end + 6 < self.bytes.len()
            && self.bytes.get(end) == Some(&b'\\')
            && self.bytes.get(end + 1) == Some(&b'u')
        {
            let low = self
                .hex4(end + 2)
                .ok_or_else(|| self.error("Invalid \\uXXXX escape", end + 1))?;
            if (0xDC00..0xE000).contains(&low) {
                let joined = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                out.push(char::from_u32(joined).unwrap_or('\u{fffd}'));
                return Ok(end + 6);
            }
        }
        // Lone surrogates cannot live in a Rust String: documented U+FFFD substitution.
        out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
        Ok(end)
    }
}

/// CPython's `_match_number_unicode` at `start`: the end of the longest valid number
/// prefix (backtracking over a dangling `.` or exponent) and whether it is a float; `None`
/// when no number starts there.
pub(crate) fn number_end(bytes: &[u8], start: usize) -> Option<(usize, bool)> {
    let digit_at = |pos: usize| bytes.get(pos).is_some_and(u8::is_ascii_digit);
    let digits_from = |mut pos: usize| {
        while digit_at(pos) {
            pos += 1;
        }
        pos
    };
    let mut idx = start;
    if bytes.get(idx) == Some(&b'-') {
        idx += 1;
    }
    match bytes.get(idx) {
        Some(b'1'..=b'9') => idx = digits_from(idx + 1),
        Some(b'0') => idx += 1,
        _ => return None,
    }
    let mut is_float = false;
    if bytes.get(idx) == Some(&b'.') && digit_at(idx + 1) {
        is_float = true;
        idx = digits_from(idx + 2);
    }
    if let Some(b'e' | b'E') = bytes.get(idx) {
        let mut e = idx + 1;
        if let Some(b'+' | b'-') = bytes.get(e) {
            e += 1;
        }
        if digit_at(e) {
            is_float = true;
            idx = digits_from(e);
        }
    }
    Some((idx, is_float))
}

/// The first position at or after `pos` holding `"`, `\\` or a byte below 0x20 (or the
/// end), scanning eight bytes at a time while none of them can match.
pub(crate) fn skip_plain_string_bytes(bytes: &[u8], mut pos: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let has_zero_byte = |w: u64| w.wrapping_sub(ONES) & !w & HIGHS != 0;
    while let Some(word) = bytes.get(pos..pos + 8) {
        let mut buf = [0u8; 8];
        buf.copy_from_slice(word);
        let w = u64::from_le_bytes(buf);
        let below_space = w.wrapping_sub(ONES * 0x20) & !w & HIGHS != 0;
        if below_space
            || has_zero_byte(w ^ (ONES * u64::from(b'"')))
            || has_zero_byte(w ^ (ONES * u64::from(b'\\')))
        {
            break;
        }
        pos += 8;
    }
    while let Some(&b) = bytes.get(pos) {
        if b == b'"' || b == b'\\' || b < 0x20 {
            break;
        }
        pos += 1;
    }
    pos
}
