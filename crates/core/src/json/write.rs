//! `json.dumps` / `json.dump(indent=4)` output, byte for byte (PROTOCOL conventions, §4.4).

use std::fmt::Write as _;

use super::float::push_float_repr;
use super::value::{PyInt, Value};

/// How `dumps` treats non-ASCII characters (Python's `ensure_ascii`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Escape {
    /// `ensure_ascii=True`: everything outside U+0020–U+007E is escaped as lower-case
    /// `\uXXXX` (surrogate pairs above U+FFFF; U+007F too, as CPython's C encoder does).
    Ascii,
    /// `ensure_ascii=False`: non-ASCII (and U+007F) is written raw.
    Utf8,
}

/// Python `json.dumps(v, ensure_ascii=…)` with default separators `", "` and `": "`.
pub fn dumps(v: &Value, escape: Escape) -> String {
    let mut out = String::new();
    dumps_into(&mut out, v, escape);
    out
}

/// Appends [`dumps`] of `v` to `out` (for streaming many lines into one buffer).
pub fn dumps_into(out: &mut String, v: &Value, escape: Escape) {
    match v {
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                dumps_into(out, item, escape);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                push_json_string(out, key, escape);
                out.push_str(": ");
                dumps_into(out, item, escape);
            }
            out.push('}');
        }
        Value::Raw(raw) => match escape {
            Escape::Ascii if raw.canonical => push_escaping_non_ascii(out, raw.text()),
            _ => dumps_into(out, &raw.value(), escape),
        },
        scalar => push_scalar(out, scalar, escape),
    }
}

/// Python `json.dump(v, f, indent=4, ensure_ascii=False)`: one member per line, 4 spaces
/// per level, `,` at line ends, `": "` after keys, `[]`/`{}` for empty containers, and no
/// trailing newline.
pub fn dump_indent4(v: &Value) -> String {
    dump_indent(v, 4)
}

/// Python `json.dumps(v, indent=width, ensure_ascii=False)` (the layout of
/// [`dump_indent4`] with `width` spaces per level).
pub fn dump_indent(v: &Value, width: usize) -> String {
    let mut out = String::new();
    push_indented(&mut out, v, 0, width);
    out
}

fn push_newline_indent(out: &mut String, level: usize, width: usize) {
    out.push('\n');
    for _ in 0..level * width {
        out.push(' ');
    }
}

fn push_indented(out: &mut String, v: &Value, level: usize, width: usize) {
    match v {
        Value::Array(items) if !items.is_empty() => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_newline_indent(out, level + 1, width);
                push_indented(out, item, level + 1, width);
            }
            push_newline_indent(out, level, width);
            out.push(']');
        }
        Value::Object(map) if !map.is_empty() => {
            out.push('{');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_newline_indent(out, level + 1, width);
                push_json_string(out, key, Escape::Utf8);
                out.push_str(": ");
                push_indented(out, item, level + 1, width);
            }
            push_newline_indent(out, level, width);
            out.push('}');
        }
        Value::Raw(raw) => push_indented(out, &raw.value(), level, width),
        other => dumps_into(out, other, Escape::Utf8),
    }
}

fn push_scalar(out: &mut String, v: &Value, escape: Escape) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Int(PyInt::Small(i)) => {
            let _ = write!(out, "{i}");
        }
        Value::Int(PyInt::Big(digits)) => out.push_str(digits),
        Value::Float(x) => push_float_repr(out, *x),
        Value::Str(s) => push_json_string(out, s, escape),
        Value::Array(_) | Value::Object(_) | Value::Raw(_) => dumps_into(out, v, escape),
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

fn push_u_escape(out: &mut String, unit: u32) {
    out.push_str("\\u");
    for shift in [12, 8, 4, 0] {
        out.push(char::from(HEX[((unit >> shift) & 0xF) as usize]));
    }
}

/// Appends `s` as a quoted JSON string in Python's escaping.
pub(crate) fn push_json_string(out: &mut String, s: &str, escape: Escape) {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let has_zero_byte = |w: u64| w.wrapping_sub(ONES) & !w & HIGHS != 0;
    let ascii = escape == Escape::Ascii;
    out.reserve(s.len() + 2);
    out.push('"');
    let bytes = s.as_bytes();
    let mut plain = 0;
    let mut i = 0;
    while i < bytes.len() {
        // Eight bytes at a time while none needs an escape: no `"`, `\\`, control
        // character or (for ASCII output) byte from 0x7F up.
        if let Some(word) = bytes.get(i..i + 8) {
            let mut buf = [0u8; 8];
            buf.copy_from_slice(word);
            let w = u64::from_le_bytes(buf);
            let below_space = w.wrapping_sub(ONES * 0x20) & !w & HIGHS != 0;
            let high = ascii && (w | w.wrapping_add(ONES)) & HIGHS != 0;
            if !(below_space
                || high
                || has_zero_byte(w ^ (ONES * u64::from(b'"')))
                || has_zero_byte(w ^ (ONES * u64::from(b'\\'))))
            {
                i += 8;
                continue;
            }
        }
        let b = bytes.get(i).copied().unwrap_or(0);
        let needs_escape = match b {
            b'"' | b'\\' | 0..=0x1f => true,
            0x7f.. => ascii,
            _ => false,
        };
        if !needs_escape {
            i += 1;
            continue;
        }
        // `i` is on a character boundary: an ASCII byte, or (ASCII output only) the
        // first byte of a character, since the bytes of every escaped character are
        // stepped over together.
        out.push_str(s.get(plain..i).unwrap_or(""));
        let Some(c) = s.get(i..).and_then(|rest| rest.chars().next()) else {
            break;
        };
        i += c.len_utf8();
        plain = i;
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    push_u_escape(out, u32::from(*unit));
                }
            }
        }
    }
    out.push_str(s.get(plain..).unwrap_or(""));
    out.push('"');
}

/// Appends `text` with every character from U+007F up written as `\uXXXX` (surrogate
/// pairs above U+FFFF), as `ensure_ascii` does; text outside strings is ASCII already.
fn push_escaping_non_ascii(out: &mut String, text: &str) {
    out.reserve(text.len());
    let bytes = text.as_bytes();
    let mut plain = 0;
    let mut i = 0;
    while i < bytes.len() {
        // Eight ASCII bytes below 0x7F at a time.
        if let Some(word) = bytes.get(i..i + 8) {
            let mut buf = [0u8; 8];
            buf.copy_from_slice(word);
            let w = u64::from_le_bytes(buf);
            const ONES: u64 = 0x0101_0101_0101_0101;
            const HIGHS: u64 = 0x8080_8080_8080_8080;
            // A byte >= 0x7F has its high bit set after adding 1 (or before).
            if (w | w.wrapping_add(ONES)) & HIGHS == 0 {
                i += 8;
                continue;
            }
        }
        let b = bytes.get(i).copied().unwrap_or(0);
        if b < 0x7f {
            i += 1;
            continue;
        }
        let Some(c) = text.get(i..).and_then(|rest| rest.chars().next()) else {
            break;
        };
        out.push_str(text.get(plain..i).unwrap_or(""));
        let mut units = [0u16; 2];
        for unit in c.encode_utf16(&mut units) {
            push_u_escape(out, u32::from(*unit));
        }
        i += c.len_utf8();
        plain = i;
    }
    out.push_str(text.get(plain..).unwrap_or(""));
}
