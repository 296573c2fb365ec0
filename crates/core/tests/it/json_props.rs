//! Property tests of `wildtool_core::json`: dumps/loads round trips, float repr round trips
//! and shortness, a parser that never panics, and deferred parsing that is exact.

use proptest::prelude::*;
use wildtool_core::json::{
    dumps, float_repr, loads, loads_deferring, Escape, Map, PathStep, PyInt, Value,
};

/// Structural equality where NaN equals NaN and `-0.0` differs from `0.0`.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => {
            (x.is_nan() && y.is_nan()) || x.to_bits() == y.to_bits()
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|((k1, v1), (k2, v2))| k1 == k2 && same(v1, v2))
        }
        _ => a == b,
    }
}

fn text_char() -> impl Strategy<Value = char> {
    prop_oneof![
        4 => any::<char>(),
        2 => (0x20u8..0x7f).prop_map(char::from),
        1 => (0u8..0x20).prop_map(char::from),
        1 => prop::sample::select(vec!['"', '\\', '/', '\u{7f}', '\u{2028}', '\u{feff}', 'é', '中']),
        1 => (0x10000u32..0x110000).prop_filter_map("scalar", char::from_u32),
    ]
}

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(text_char(), 0..40).prop_map(|cs| cs.into_iter().collect())
}

fn big_int() -> impl Strategy<Value = PyInt> {
    (any::<bool>(), "[1-9][0-9]{19,60}")
        .prop_map(|(neg, digits)| PyInt::Big(if neg { format!("-{digits}") } else { digits }))
}

fn float() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => any::<f64>(),
        1 => (1u64..(1u64 << 52)).prop_map(f64::from_bits), // subnormal
        1 => prop::sample::select(vec![0.0, -0.0, f64::MAX, f64::MIN_POSITIVE, 1e16, 1e-4, 1e-5, 9999999999999998.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY]),
        2 => -1e6f64..1e6,
    ]
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::int),
        big_int().prop_map(Value::Int),
        float().prop_map(Value::Float),
        text().prop_map(Value::Str),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((text(), inner), 0..6)
                .prop_map(|members| Value::Object(members.into_iter().collect::<Map>())),
        ]
    })
}

/// Number of shortest round-trip significant digits (as `{:e}` gives them).
fn digit_count(x: f64) -> usize {
    let s = format!("{x:e}");
    s.split('e')
        .next()
        .unwrap_or("")
        .chars()
        .filter(char::is_ascii_digit)
        .count()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn dumps_then_loads_round_trips(v in value()) {
        for mode in [Escape::Ascii, Escape::Utf8] {
            let text = dumps(&v, mode);
            if mode == Escape::Ascii {
                prop_assert!(text.is_ascii());
            }
            let back = loads(&text);
            prop_assert!(back.is_ok(), "{text:?}: {back:?}");
            let back = back.unwrap_or(Value::Null);
            prop_assert!(same(&back, &v), "{text:?} -> {back:?}");
            prop_assert_eq!(dumps(&back, mode), text);
        }
    }

    #[test]
    fn float_repr_round_trips_and_is_shortest(x in float()) {
        let s = float_repr(x);
        if !x.is_finite() {
            prop_assert!(["NaN", "Infinity", "-Infinity"].contains(&s.as_str()));
            return Ok(());
        }
        prop_assert_eq!(s.parse::<f64>().ok().map(f64::to_bits), Some(x.to_bits()), "{}", s);
        // Layout: scientific exactly outside 1e-4 <= |x| < 1e16.
        let scientific = x != 0.0 && (x.abs() < 1e-4 || x.abs() >= 1e16);
        prop_assert_eq!(s.contains('e'), scientific, "{}", s);
        if let Some((mantissa, exp)) = s.split_once('e') {
            prop_assert!(!mantissa.ends_with(".0"), "{}", s);
            prop_assert!(exp.starts_with('+') || exp.starts_with('-'), "{}", s);
            prop_assert!(exp.len() >= 3, "{}", s);
        } else {
            prop_assert!(s.contains('.'), "{}", s);
        }
        // Shortest: one digit fewer (correctly rounded) must not round-trip. Powers of two
        // have an asymmetric rounding interval, so they are skipped.
        let n = digit_count(x);
        let power_of_two = x.to_bits() & ((1u64 << 52) - 1) == 0;
        if n >= 2 && !power_of_two {
            let shorter = format!("{:.*e}", n - 2, x);
            prop_assert_ne!(shorter.parse::<f64>().ok().map(f64::to_bits), Some(x.to_bits()), "{} vs {}", s, shorter);
        }
        // The significant digits in the output are exactly the shortest digits.
        let digits: String = s.split('e').next().unwrap_or("").chars().filter(char::is_ascii_digit).collect();
        let trimmed = digits.trim_start_matches('0').trim_end_matches('0');
        prop_assert!(trimmed.len() <= n.max(1), "{} has {} digits, shortest {}", s, trimmed.len(), n);
    }

    #[test]
    fn loads_never_panics_on_any_string(s in any::<String>()) {
        let _ = loads(&s);
    }

    #[test]
    fn loads_never_panics_on_json_like_text(s in r#"[\[\]{}",:0-9eE.+\-ntrufalsNIiy \\u\t\n\r dD8F]{0,40}"#) {
        let _ = loads(&s);
    }

    #[test]
    fn loads_never_panics_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        let _ = loads(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn truncated_or_extended_documents_never_panic(v in value(), cut in any::<prop::sample::Index>(), junk in text()) {
        let text = dumps(&v, Escape::Utf8);
        let boundaries: Vec<usize> = text.char_indices().map(|(i, _)| i).chain([text.len()]).collect();
        let at = boundaries[cut.index(boundaries.len())];
        let _ = loads(&text[..at]);
        let extended = format!("{text}{junk}");
        if let Ok(back) = loads(&extended) {
            // Only whitespace-only junk (or junk that completes a number) may be accepted.
            prop_assert!(junk.trim_matches([' ', '\t', '\n', '\r']).is_empty() || !matches!(back, Value::Array(_) | Value::Object(_) | Value::Str(_)));
        }
    }

    /// A value kept as text (`loads_deferring`) is accepted, refused and written exactly as
    /// its tree: for documents as `dumps` writes them, with other spacing, and cut or
    /// extended anywhere.
    #[test]
    fn deferred_values_are_written_as_their_trees(v in value(), cut in any::<prop::sample::Index>(), junk in text(), spaced in any::<bool>()) {
        let path = [PathStep::Key("d"), PathStep::AnyIndex];
        for mode in [Escape::Ascii, Escape::Utf8] {
            let inner = dumps(&v, mode);
            let inner = if spaced { inner.replace(", ", " ,").replace(": ", ":  ") } else { inner };
            let doc = format!("{{\"d\": [{inner}, {inner}], \"e\": {inner}}}");
            let boundaries: Vec<usize> = doc.char_indices().map(|(i, _)| i).chain([doc.len()]).collect();
            let at = boundaries[cut.index(boundaries.len())];
            for text in [doc.clone(), doc[..at].to_owned(), format!("{}{junk}", &doc[..at])] {
                let plain = loads(&text).map(|t| dumps(&t, Escape::Ascii)).map_err(|e| e.to_string());
                let deferred = loads_deferring(&text, &path).map(|t| dumps(&t, Escape::Ascii)).map_err(|e| e.to_string());
                prop_assert_eq!(&plain, &deferred, "{:?}", text);
                let plain8 = loads(&text).map(|t| dumps(&t, Escape::Utf8)).ok();
                let deferred8 = loads_deferring(&text, &path).map(|t| dumps(&t, Escape::Utf8)).ok();
                prop_assert_eq!(plain8, deferred8);
            }
        }
    }
}
