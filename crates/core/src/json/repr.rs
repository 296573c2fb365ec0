//! Python `repr` of `str` and of a `list` of `str` (PROTOCOL §5.3, `pylist`).
//!
//! "Printable" is CPython 3.11's `str.isprintable`, from a generated table of its
//! Unicode 14.0 database (`printable_table.rs`), so characters assigned in later Unicode
//! versions are escaped exactly as the official Python does.

use std::cmp::Ordering;
use std::fmt::Write as _;

use super::printable_table::NON_PRINTABLE;

/// Python 3.11 `str.isprintable()` for one character: false for categories Cc, Cf, Cs, Co,
/// Cn, Zl, Zp and Zs (Unicode 14.0), except that the ASCII space is printable.
pub fn is_py_printable(c: char) -> bool {
    if c.is_ascii() {
        return c == ' ' || c.is_ascii_graphic();
    }
    let cp = u32::from(c);
    NON_PRINTABLE
        .binary_search_by(|&(first, last)| {
            if last < cp {
                Ordering::Less
            } else if first > cp {
                Ordering::Greater
            } else {
                Ordering::Equal
            }
        })
        .is_err()
}

/// Python `repr(s)`: quoted with `'`, or with `"` when `s` contains `'` and no `"`;
/// `\\`, the quote, `\n`, `\r`, `\t` escaped; other non-printables as `\xNN`, `\uNNNN` or
/// `\UNNNNNNNN` (lower-case hex); printable non-ASCII kept raw.
pub fn repr_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_repr_str(&mut out, s);
    out
}

/// Python `repr(list_of_str)`, e.g. `['unit', 'days']`; `[]` when empty.
pub fn repr_str_list<S: AsRef<str>>(items: &[S]) -> String {
    let mut out = String::from("[");
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        push_repr_str(&mut out, item.as_ref());
    }
    out.push(']');
    out
}

fn push_repr_str(out: &mut String, s: &str) {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if is_py_printable(c) => out.push(c),
            c => {
                let code = u32::from(c);
                let _ = if code < 0x100 {
                    write!(out, "\\x{code:02x}")
                } else if code < 0x10000 {
                    write!(out, "\\u{code:04x}")
                } else {
                    write!(out, "\\U{code:08x}")
                };
            }
        }
    }
    out.push(quote);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_and_escapes() {
        assert_eq!(repr_str("unit"), "'unit'");
        assert_eq!(repr_str("it's"), "\"it's\"");
        assert_eq!(repr_str("x'\""), "'x\\'\"'");
        assert_eq!(repr_str("a\\b\n\r\t"), "'a\\\\b\\n\\r\\t'");
        assert_eq!(repr_str(""), "''");
    }

    #[test]
    fn non_printables() {
        // Checked against CPython 3.11:
        // repr('a\x7f\x80\xa0\xad\u0378\U000e0001\u2028 é') ==
        // "'a\\x7f\\x80\\xa0\\xad\\u0378\\U000e0001\\u2028 é'"
        assert_eq!(
            repr_str("a\u{7f}\u{80}\u{a0}\u{ad}\u{378}\u{e0001}\u{2028} é"),
            "'a\\x7f\\x80\\xa0\\xad\\u0378\\U000e0001\\u2028 é'"
        );
        assert_eq!(repr_str("\u{0}\u{1b}"), "'\\x00\\x1b'");
        assert_eq!(repr_str("\u{10ffff}"), "'\\U0010ffff'");
        assert_eq!(repr_str("\u{e000}"), "'\\ue000'");
        assert_eq!(repr_str("😀中文"), "'😀中文'");
        assert_eq!(repr_str("\u{3000}"), "'\\u3000'");
        // Assigned in Unicode 15 (CJK Ext. H), unassigned for CPython 3.11.
        assert_eq!(repr_str("\u{31350}"), "'\\U00031350'");
        assert!(is_py_printable('\u{2f800}'));
        assert!(!is_py_printable('\u{fffe}'));
    }

    #[test]
    fn lists() {
        assert_eq!(repr_str_list(&["unit", "days"]), "['unit', 'days']");
        assert_eq!(repr_str_list::<&str>(&[]), "[]");
        assert_eq!(repr_str_list(&[String::from("it's")]), "[\"it's\"]");
    }
}
