//! Checking deferred JSON: a container read as validated text instead of a tree.
//!
//! Scoring re-writes each result line with `json.dumps(…, ensure_ascii=True)`, and most of
//! a line's bytes (each step's `inference_input`: the history and the tool list) are only
//! copied through. [`scan`] checks such a container exactly as [`loads`](super::loads)
//! would accept it, without building it, and notes whether its text already is what
//! `dumps` writes for it (separators `", "` / `": "`, no other whitespace, the escapes
//! `dumps` writes, canonical numbers, no duplicate keys). Such text
//! ([`RawJson`](super::RawJson)) is written by copying it, escaping only non-ASCII
//! characters; any other text is parsed and written as usual.

use super::float::float_repr;
use super::parse::{number_end, skip_plain_string_bytes, MAX_DEPTH};

/// What [`scan`] found for a container that [`loads`](super::loads) accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Scanned {
    /// Byte position after the container.
    pub end: usize,
    /// The text is in `dumps` form (see [`RawJson`]).
    pub canonical: bool,
}

/// Checks the array or object starting at `start` (a `[` or `{`), opened at nesting depth
/// `depth` (the containers already open around it). `None` when it cannot be deferred:
/// the text is malformed or too deep (the caller parses it and reports the error), or an
/// object has a key with an escape or a duplicate key (its members must be merged).
pub(crate) fn scan(bytes: &[u8], start: usize, depth: usize) -> Option<Scanned> {
    let mut s = Scanner {
        bytes,
        pos: start,
        canonical: true,
        keys: Vec::new(),
        open: Vec::new(),
    };
    s.container(depth)?;
    Some(Scanned {
        end: s.pos,
        canonical: s.canonical,
    })
}

struct Scanner<'a> {
    bytes: &'a [u8],
    pos: usize,
    canonical: bool,
    /// Keys (byte spans, quotes excluded) of the open objects, innermost last.
    keys: Vec<(usize, usize)>,
    /// For each open container: `Some(first key index in keys)` for objects.
    open: Vec<Option<usize>>,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// Skips whitespace; any whitespace makes the text non-canonical.
    fn ws(&mut self) {
        let start = self.pos;
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
        if self.pos != start {
            self.canonical = false;
        }
    }

    /// Skips the one space `dumps` writes after `,` and `:`; anything else is non-canonical.
    fn separator_ws(&mut self) {
        if self.peek() == Some(b' ')
            && !matches!(
                self.bytes.get(self.pos + 1),
                Some(b' ' | b'\t' | b'\n' | b'\r')
            )
        {
            self.pos += 1;
        } else {
            self.ws();
            self.canonical = false;
        }
    }

    /// The container at `pos`, iteratively.
    fn container(&mut self, outer_depth: usize) -> Option<()> {
        // Open the first container.
        self.open_container(outer_depth)?;
        loop {
            // At the start of a member (object: key position) or item, or at a closer.
            let Some(&top) = self.open.last() else {
                return Some(());
            };
            let is_object = top.is_some();
            if is_object {
                self.key()?;
                if self.peek() != Some(b':') {
                    self.ws();
                    if self.peek() != Some(b':') {
                        return None;
                    }
                }
                self.pos += 1;
                self.separator_ws();
            }
            // A value.
            match self.peek() {
                Some(b'[' | b'{') => {
                    self.open_container(outer_depth)?;
                    continue;
                }
                _ => self.scalar()?,
            }
            self.after_value()?;
        }
    }

    /// Opens the container at `pos`; an empty one is closed at once (and what follows it
    /// handled by [`Scanner::after_value`]).
    fn open_container(&mut self, outer_depth: usize) -> Option<()> {
        if outer_depth + self.open.len() >= MAX_DEPTH {
            return None;
        }
        let open = self.peek()?;
        self.pos += 1;
        let close = if open == b'{' { b'}' } else { b']' };
        if self.peek() != Some(close) {
            self.ws();
        }
        if self.peek() == Some(close) {
            self.pos += 1;
            if self.open.is_empty() {
                return Some(());
            }
            return self.after_value();
        }
        self.open.push((open == b'{').then_some(self.keys.len()));
        Some(())
    }

    /// After a value inside the innermost container: `,` (then the next member starts) or
    /// the closer (then the parent continues).
    fn after_value(&mut self) -> Option<()> {
        loop {
            let top = *self.open.last()?;
            let close = if top.is_some() { b'}' } else { b']' };
            if !matches!(self.peek(), Some(b',')) && self.peek() != Some(close) {
                self.ws();
            }
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    self.separator_ws();
                    return Some(());
                }
                Some(c) if c == close => {
                    self.pos += 1;
                    self.open.pop();
                    if let Some(first) = top {
                        self.keys.truncate(first);
                    }
                    if self.open.is_empty() {
                        return Some(());
                    }
                }
                _ => return None,
            }
        }
    }

    /// An object key: a string without escapes, not seen before in its object.
    fn key(&mut self) -> Option<()> {
        if self.peek() != Some(b'"') {
            return None;
        }
        let start = self.pos + 1;
        let end = skip_plain_string_bytes(self.bytes, start);
        if self.bytes.get(end) != Some(&b'"') {
            return None;
        }
        let first = (*self.open.last()?)?;
        let key = self.bytes.get(start..end)?;
        let seen = self.keys.get(first..)?;
        if seen.iter().any(|&(a, b)| self.bytes.get(a..b) == Some(key)) {
            return None;
        }
        self.keys.push((start, end));
        self.pos = end + 1;
        Some(())
    }

    /// Any value other than an array or object.
    fn scalar(&mut self) -> Option<()> {
        let rest = self.bytes.get(self.pos..)?;
        let literal: &[u8] = match rest.first()? {
            b'"' => return self.string(),
            b'n' => b"null",
            b't' => b"true",
            b'f' => b"false",
            b'N' => b"NaN",
            b'I' => b"Infinity",
            b'-' if rest.get(1) == Some(&b'I') => b"-Infinity",
            _ => return self.number(),
        };
        if !rest.starts_with(literal) {
            return None;
        }
        self.pos += literal.len();
        Some(())
    }

    /// A string value, checked as the parser checks it; escapes other than those `dumps`
    /// writes make the text non-canonical.
    fn string(&mut self) -> Option<()> {
        let mut pos = self.pos + 1;
        loop {
            pos = skip_plain_string_bytes(self.bytes, pos);
            match self.bytes.get(pos)? {
                b'"' => {
                    self.pos = pos + 1;
                    return Some(());
                }
                b'\\' => pos = self.escape(pos)?,
                _ => return None,
            }
        }
    }

    /// The escape at `bs`; returns the position after it.
    fn escape(&mut self, bs: usize) -> Option<usize> {
        match self.bytes.get(bs + 1)? {
            b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => Some(bs + 2),
            b'/' => {
                self.canonical = false;
                Some(bs + 2)
            }
            b'u' => {
                let code = self.hex4(bs + 2)?;
                // The parser also needs one more byte after the digits.
                if bs + 6 >= self.bytes.len() {
                    return None;
                }
                let lower = self
                    .bytes
                    .get(bs + 2..bs + 6)
                    .is_some_and(|d| d.iter().all(|b| !b.is_ascii_uppercase()));
                let short = matches!(code, 0x8 | 0x9 | 0xa | 0xc | 0xd);
                let written =
                    (code < 0x20 && !short) || (code >= 0x7f && !(0xD800..0xE000).contains(&code));
                if (0xD800..0xDC00).contains(&code) {
                    // A pair is written as is; a lone surrogate is not kept.
                    let low = (self.bytes.get(bs + 6..bs + 8) == Some(b"\\u"))
                        .then(|| self.hex4(bs + 8))
                        .flatten();
                    match low {
                        Some(l) if (0xDC00..0xE000).contains(&l) => {
                            let low_lower = self
                                .bytes
                                .get(bs + 8..bs + 12)
                                .is_some_and(|d| d.iter().all(|b| !b.is_ascii_uppercase()));
                            if !(lower && low_lower) {
                                self.canonical = false;
                            }
                            return Some(bs + 12);
                        }
                        _ => self.canonical = false,
                    }
                } else if !(written && lower) {
                    self.canonical = false;
                }
                Some(bs + 6)
            }
            _ => None,
        }
    }

    fn hex4(&self, pos: usize) -> Option<u32> {
        self.bytes
            .get(pos..pos + 4)?
            .iter()
            .try_fold(0u32, |acc, &b| Some(acc * 16 + (b as char).to_digit(16)?))
    }

    /// A number as the parser reads it (the longest valid prefix); `-0` and floats whose
    /// `repr` differs from their text are non-canonical; an integer over the digit limit
    /// is refused like the parser refuses it.
    fn number(&mut self) -> Option<()> {
        let start = self.pos;
        let (idx, is_float) = number_end(self.bytes, start)?;
        self.pos = idx;
        let lexeme = std::str::from_utf8(self.bytes.get(start..idx)?).ok()?;
        if is_float {
            let x: f64 = lexeme.parse().ok()?;
            if float_repr(x) != lexeme {
                self.canonical = false;
            }
        } else if lexeme == "-0" {
            self.canonical = false;
        } else if lexeme.trim_start_matches('-').len() > super::parse::MAX_INT_DIGITS {
            return None;
        }
        Some(())
    }
}

impl super::RawJson {
    /// The number of items of each item of this array, when it is an array of arrays
    /// (what `[len(x) for x in value]` gives); `None` for an object or an array with an
    /// item that is not an array. Read from the validated text without building the tree.
    pub fn item_lens(&self) -> Option<Vec<usize>> {
        let bytes = self.text().as_bytes();
        if bytes.first() != Some(&b'[') {
            return None;
        }
        let mut lens = Vec::new();
        // Depth 1: inside the outer array; 2: inside one of its items.
        let mut depth = 0usize;
        // At depth 2: whether the item has a value yet (so `[]` counts 0).
        let mut item_open_empty = false;
        let mut pos = 0;
        while let Some(&b) = bytes.get(pos) {
            match b {
                b'"' => {
                    if depth == 1 {
                        return None;
                    }
                    if depth == 2 && item_open_empty {
                        item_open_empty = false;
                        if let Some(n) = lens.last_mut() {
                            *n += 1;
                        }
                    }
                    // Skip the string: it is valid, so escapes are `\` + one byte
                    // (`\uXXXX` carries no quote or backslash in its digits).
                    pos += 1;
                    loop {
                        pos = skip_plain_string_bytes(bytes, pos);
                        match bytes.get(pos) {
                            Some(b'\\') => pos += 2,
                            Some(b'"') => break,
                            Some(_) => pos += 1,
                            None => return None,
                        }
                    }
                }
                b'[' | b'{' => {
                    if depth == 1 {
                        if b == b'{' {
                            return None;
                        }
                        lens.push(0);
                        item_open_empty = true;
                    } else if depth == 2 && item_open_empty {
                        item_open_empty = false;
                        if let Some(n) = lens.last_mut() {
                            *n += 1;
                        }
                    }
                    depth += 1;
                }
                b']' | b'}' => {
                    depth = depth.checked_sub(1)?;
                    if depth == 1 {
                        item_open_empty = false;
                    }
                }
                b',' if depth == 2 => {
                    if let Some(n) = lens.last_mut() {
                        *n += 1;
                    }
                }
                b' ' | b'\t' | b'\n' | b'\r' | b',' | b':' => {}
                _ => {
                    if depth == 1 {
                        // A scalar item of the outer array.
                        return None;
                    }
                    if depth == 2 && item_open_empty {
                        item_open_empty = false;
                        if let Some(n) = lens.last_mut() {
                            *n += 1;
                        }
                    }
                }
            }
            pos += 1;
        }
        Some(lens)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{dumps, loads, loads_deferring, Escape, PathStep, RawJson, Value};
    use super::*;

    /// The deferred form of `text` (as the value of key `d`) writes what the tree does.
    fn same_output(text: &str) -> bool {
        let doc = format!("{{\"d\": {text}}}");
        let plain = loads(&doc).map(|v| dumps(&v, Escape::Ascii));
        let deferred =
            loads_deferring(&doc, &[PathStep::Key("d")]).map(|v| dumps(&v, Escape::Ascii));
        plain == deferred
    }

    fn deferred(text: &str) -> Option<RawJson> {
        let doc = format!("{{\"d\": {text}}}");
        match loads_deferring(&doc, &[PathStep::Key("d")])
            .ok()?
            .get("d")?
        {
            Value::Raw(raw) => Some(raw.clone()),
            _ => None,
        }
    }

    #[test]
    fn canonical_text_is_copied() {
        let text = r#"[{"role": "user", "content": "hi \"there\"\n"}, [], {}, 1, -2.5, null, true, "\u00e9\ud83d\ude00"]"#;
        let raw = deferred(text).expect("deferred");
        assert!(raw.canonical);
        assert!(same_output(text));
    }

    #[test]
    fn non_ascii_is_escaped_as_dumps_does() {
        let text = "[\"北京 €\u{7f} 😀\", {\"k\": \"é\"}]";
        assert!(deferred(text).expect("deferred").canonical);
        assert!(same_output(text));
    }

    #[test]
    fn other_spellings_are_rewritten() {
        for text in [
            "[1,2]",
            "[ 1, 2 ]",
            "{\"a\" : 1}",
            "[1.50]",
            "[1e5]",
            "[-0]",
            "[\"\\/\"]",
            "[\"\\u00E9\"]",
            "[\"\\u0041\"]",
            "[\"\\ud800\"]",
            "[1e400]",
            "[\n1]",
            "[1,  2]",
        ] {
            let raw = deferred(text).expect(text);
            assert!(!raw.canonical, "{text}");
            assert!(same_output(text), "{text}");
        }
    }

    #[test]
    fn objects_needing_a_merge_are_parsed() {
        assert!(deferred(r#"{"a": 1, "a": 2}"#).is_none());
        assert!(deferred(r#"[{"a": 1, "b": {"a": 1}, "c": 2}]"#).is_some());
        assert!(deferred(r#"{"\u0061": 1}"#).is_none());
        assert!(same_output(r#"{"a": 1, "a": 2}"#));
        assert!(same_output(r#"{"\u0061": 1, "a": 2}"#));
    }

    #[test]
    fn invalid_text_fails_as_loads_fails() {
        for text in [
            "[1,]",
            "[1 2]",
            "{\"a\" 1}",
            "[\"a\u{1}\"]",
            "[01]",
            "[1.]",
            "[\"\\x\"]",
            "[\"\\u12\"]",
            "{\"a\": [}",
            "[",
            "[tru]",
            "{1: 2}",
        ] {
            let doc = format!("{{\"d\": {text}}}");
            assert_eq!(
                loads(&doc).map_err(|e| e.to_string()),
                loads_deferring(&doc, &[PathStep::Key("d")]).map_err(|e| e.to_string()),
                "{text}"
            );
            assert!(loads(&doc).is_err(), "{text}");
        }
    }

    #[test]
    fn depth_limit_is_the_parsers() {
        for depth in [MAX_DEPTH - 2, MAX_DEPTH - 1, MAX_DEPTH] {
            let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            let doc = format!("{{\"d\": {text}}}");
            assert_eq!(
                loads(&doc)
                    .map(|v| dumps(&v, Escape::Ascii))
                    .map_err(|e| e.to_string()),
                loads_deferring(&doc, &[PathStep::Key("d")])
                    .map(|v| dumps(&v, Escape::Ascii))
                    .map_err(|e| e.to_string()),
            );
        }
    }

    #[test]
    fn value_gives_the_tree() {
        let raw = deferred(r#"{"x": [1, "y"]}"#).expect("deferred");
        assert!(raw.is_object());
        assert_eq!(Some(raw.value()), loads(r#"{"x": [1, "y"]}"#).ok());
    }

    #[test]
    fn item_lens_count_without_the_tree() {
        for text in [
            "[]",
            "[[]]",
            "[[], [1], [1, 2, 3]]",
            r#"[[{"a": [1, 2], "b": "x,y]"}, "q\"z", [3, [4, 5]]], [null, true]]"#,
            "[ [ 1 , 2 ] ,[ ] ]",
            r#"[["[", "]", "\\\\"]]"#,
        ] {
            let raw = deferred(text).expect(text);
            let tree = loads(text).expect(text);
            let want: Vec<usize> = tree
                .as_array()
                .expect(text)
                .iter()
                .map(|v| v.as_array().expect(text).len())
                .collect();
            assert_eq!(raw.item_lens(), Some(want), "{text}");
        }
        for text in ["{}", "[1]", "[[1], {}]", r#"[[], "x"]"#, r#"{"a": []}"#] {
            assert_eq!(deferred(text).expect(text).item_lens(), None, "{text}");
        }
    }
}
