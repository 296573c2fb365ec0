//! Python `str` behaviour the checker depends on (PROTOCOL Conventions, §5.3).
//!
//! Lengths and indexes count code points; whitespace is what Python's `str.split()` splits
//! on; lower-casing is Python's full Unicode `str.lower()`.

/// True for a character Python's `str.split()` treats as whitespace: Rust's
/// `char::is_whitespace` plus U+001C–U+001F (the information separators).
pub fn is_py_whitespace(c: char) -> bool {
    c.is_whitespace() || ('\u{1C}'..='\u{1F}').contains(&c)
}

/// Python `s.split()`: the non-empty runs of non-whitespace characters, in order.
pub fn py_split(s: &str) -> impl Iterator<Item = &str> {
    s.split(is_py_whitespace).filter(|part| !part.is_empty())
}

/// Python `" ".join(s.split())`: whitespace runs collapsed to one space, trimmed.
pub fn collapse_whitespace(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for (i, part) in py_split(s).enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(part);
    }
    out
}

/// Python `str.lower()`: full Unicode lower-casing (`İ` becomes `i̇`, two code points;
/// a word-final capital sigma becomes `ς`).
pub fn py_lower(s: &str) -> String {
    s.to_lowercase()
}

/// The checker's string normalisation: every Python whitespace character removed, then
/// [`py_lower`]. No Unicode normalisation (NFC/NFD) is applied.
pub fn normalize(s: &str) -> String {
    let stripped: String = s.chars().filter(|&c| !is_py_whitespace(c)).collect();
    py_lower(&stripped)
}

/// Length in code points (Python `len(str)`).
pub fn py_len(s: &str) -> usize {
    s.chars().count()
}

/// True when `s` contains a character in U+4E00–U+9FA5, the range that makes the official
/// checker segment strings with jieba (§5.3 step 4).
pub fn contains_han(s: &str) -> bool {
    s.chars().any(|c| ('\u{4E00}'..='\u{9FA5}').contains(&c))
}

/// Python's `f"{x:.2f}"`: rounds the exact binary value, ties to even (Rust's `{:.2}` does
/// the same). NaN and infinities print as Python does.
pub fn format_2f(x: f64) -> String {
    if x.is_nan() {
        "nan".to_owned()
    } else if x.is_infinite() {
        if x > 0.0 { "inf" } else { "-inf" }.to_owned()
    } else {
        format!("{x:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_set_matches_python() {
        for c in [
            '\t', '\n', '\u{B}', '\u{C}', '\r', '\u{1C}', '\u{1D}', '\u{1E}', '\u{1F}', ' ',
            '\u{85}', '\u{A0}', '\u{1680}', '\u{2000}', '\u{200A}', '\u{2028}', '\u{2029}',
            '\u{202F}', '\u{205F}', '\u{3000}',
        ] {
            assert!(is_py_whitespace(c), "{:?} should be whitespace", c);
        }
        for c in ['\u{200B}', '\u{180E}', '\u{FEFF}', 'a', '\u{0}', '\u{1B}'] {
            assert!(!is_py_whitespace(c), "{:?} should not be whitespace", c);
        }
    }

    #[test]
    fn split_and_collapse() {
        let parts: Vec<&str> = py_split("  a\u{1F}b\u{3000}\u{3000}c \n").collect();
        assert_eq!(parts, ["a", "b", "c"]);
        assert_eq!(collapse_whitespace("  x   y\t"), "x y");
        assert_eq!(collapse_whitespace(" \t "), "");
    }

    #[test]
    fn lower_is_full_unicode() {
        assert_eq!(py_lower("İstanbul"), "i\u{307}stanbul");
        assert_eq!(py_len(&py_lower("İ")), 2);
        assert_eq!(py_lower("ΟΔΟΣ"), "\u{3bf}\u{3b4}\u{3bf}\u{3c2}");
        assert_eq!(py_lower("ΣΑ"), "\u{3c3}\u{3b1}");
        assert_eq!(py_lower("AΣ B"), "a\u{3c2} b");
    }

    #[test]
    fn normalize_strips_and_lowers() {
        assert_eq!(normalize("New\u{3000}York"), "newyork");
        assert_eq!(normalize(" \u{1C}"), "");
        assert_eq!(normalize("😀 Party"), "😀party");
    }

    #[test]
    fn han_range_is_exact() {
        assert!(contains_han("abc北"));
        assert!(contains_han("\u{4E00}"));
        assert!(contains_han("\u{9FA5}"));
        assert!(!contains_han("\u{9FA6}"));
        assert!(!contains_han("\u{3400}"));
        assert!(!contains_han("かな。"));
    }

    #[test]
    fn two_decimal_rounding_of_halves() {
        assert_eq!(format_2f(0.125), "0.12");
        assert_eq!(format_2f(0.625), "0.62");
        assert_eq!(format_2f(0.375), "0.38");
        assert_eq!(format_2f(0.875), "0.88");
        assert_eq!(format_2f(0.699999995), "0.70");
        assert_eq!(format_2f(0.0), "0.00");
        assert_eq!(format_2f(1.0), "1.00");
        // Neither is an exact half in binary; both lie just above it (Python agrees).
        assert_eq!(format_2f(0.665), "0.67");
        assert_eq!(format_2f(0.675), "0.68");
        assert_eq!(format_2f(2.0 / 3.0), "0.67");
    }
}
