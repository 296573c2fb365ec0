//! Parity of `wildtool_core::json` with CPython 3.11's `json` module.
//!
//! The case tables were produced by CPython 3.11.7 (`json.loads`, `str(JSONDecodeError)`,
//! `json.dumps` with and without `ensure_ascii`).

use std::path::PathBuf;

use wildtool_core::json::{
    dump_indent4, dumps, float_repr, loads, py_eq, Escape, JsonErrorKind, Map, PyInt, Value,
    MAX_DEPTH,
};

const ERROR_CASES: &[(&str, &str)] = &[
    ("", "Expecting value: line 1 column 1 (char 0)"),
    (" ", "Expecting value: line 1 column 2 (char 1)"),
    (
        "\u{feff}{}",
        "Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)",
    ),
    ("[1,]", "Expecting value: line 1 column 4 (char 3)"),
    (
        "{\"a\":1,}",
        "Expecting property name enclosed in double quotes: line 1 column 8 (char 7)",
    ),
    (
        "{",
        "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
    ),
    ("[", "Expecting value: line 1 column 2 (char 1)"),
    ("-", "Expecting value: line 1 column 1 (char 0)"),
    ("-Inf", "Expecting value: line 1 column 1 (char 0)"),
    ("nul", "Expecting value: line 1 column 1 (char 0)"),
    ("tru", "Expecting value: line 1 column 1 (char 0)"),
    ("[1 2]", "Expecting ',' delimiter: line 1 column 4 (char 3)"),
    (
        "{\"a\" 1}",
        "Expecting ':' delimiter: line 1 column 6 (char 5)",
    ),
    (
        "{1:2}",
        "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
    ),
    (
        "\"abc",
        "Unterminated string starting at: line 1 column 1 (char 0)",
    ),
    (
        "\"\\",
        "Unterminated string starting at: line 1 column 1 (char 0)",
    ),
    (
        "\"a\u{a}b\"",
        "Invalid control character at: line 1 column 3 (char 2)",
    ),
    (
        "\"a\u{1f}b\"",
        "Invalid control character at: line 1 column 3 (char 2)",
    ),
    ("\"\\x\"", "Invalid \\escape: line 1 column 2 (char 1)"),
    (
        "\"\\u12",
        "Invalid \\uXXXX escape: line 1 column 3 (char 2)",
    ),
    (
        "\"\\u1234",
        "Invalid \\uXXXX escape: line 1 column 3 (char 2)",
    ),
    (
        "\"\\uZZZZ\"",
        "Invalid \\uXXXX escape: line 1 column 3 (char 2)",
    ),
    (
        "\"\\ud83d\\uZZZZ\"",
        "Invalid \\uXXXX escape: line 1 column 9 (char 8)",
    ),
    ("1.", "Extra data: line 1 column 2 (char 1)"),
    ("01", "Extra data: line 1 column 2 (char 1)"),
    ("1e", "Extra data: line 1 column 2 (char 1)"),
    ("1e+", "Extra data: line 1 column 2 (char 1)"),
    ("[]]", "Extra data: line 1 column 3 (char 2)"),
    ("{} x", "Extra data: line 1 column 4 (char 3)"),
    ("nan", "Expecting value: line 1 column 1 (char 0)"),
    ("infinity", "Expecting value: line 1 column 1 (char 0)"),
    ("+1", "Expecting value: line 1 column 1 (char 0)"),
    (".5", "Expecting value: line 1 column 1 (char 0)"),
    (
        "[1,\u{a} 2,\u{a} ]",
        "Expecting value: line 3 column 2 (char 9)",
    ),
    (
        "{\"\u{e9}\": 1 2}",
        "Expecting ',' delimiter: line 1 column 9 (char 8)",
    ),
    (
        "[\u{a}  \"x\",\u{a}  tru]",
        "Expecting value: line 3 column 3 (char 11)",
    ),
    ("\u{a0}1", "Expecting value: line 1 column 1 (char 0)"),
    ("1\u{a0}", "Extra data: line 1 column 2 (char 1)"),
    ("\u{c}1", "Expecting value: line 1 column 1 (char 0)"),
    (
        "\"\\ud800",
        "Invalid \\uXXXX escape: line 1 column 3 (char 2)",
    ),
    ("{\"a\":}", "Expecting value: line 1 column 6 (char 5)"),
    (
        "{\"a\"",
        "Expecting ':' delimiter: line 1 column 5 (char 4)",
    ),
    ("[,]", "Expecting value: line 1 column 2 (char 1)"),
    (
        "{,}",
        "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
    ),
    (
        "\"\\u00e9",
        "Invalid \\uXXXX escape: line 1 column 3 (char 2)",
    ),
    (
        "\"\u{0}\"",
        "Invalid control character at: line 1 column 2 (char 1)",
    ),
    ("\"\u{7f}\u{e9}\" x", "Extra data: line 1 column 6 (char 5)"),
    ("0x10", "Extra data: line 1 column 2 (char 1)"),
    ("--1", "Expecting value: line 1 column 1 (char 0)"),
    ("-01", "Extra data: line 1 column 3 (char 2)"),
    ("[1]   ,", "Extra data: line 1 column 7 (char 6)"),
    (
        "\"\u{1f600}\u{1f600}\" \u{1f600}",
        "Extra data: line 1 column 6 (char 5)",
    ),
];
const OK_CASES: &[(&str, &str, &str)] = &[
    ("1e2", "100.0", "100.0"),
    ("-0", "0", "0"),
    ("-0.0", "-0.0", "-0.0"),
    ("1e400", "Infinity", "Infinity"),
    ("-1e400", "-Infinity", "-Infinity"),
    ("1E-2", "0.01", "0.01"),
    ("0.5e1", "5.0", "5.0"),
    (
        "12345678901234567890",
        "12345678901234567890",
        "12345678901234567890",
    ),
    (
        "-9223372036854775809",
        "-9223372036854775809",
        "-9223372036854775809",
    ),
    (
        "-9223372036854775808",
        "-9223372036854775808",
        "-9223372036854775808",
    ),
    (
        "9223372036854775807",
        "9223372036854775807",
        "9223372036854775807",
    ),
    ("NaN", "NaN", "NaN"),
    ("Infinity", "Infinity", "Infinity"),
    ("-Infinity", "-Infinity", "-Infinity"),
    (" \u{9}\u{a}\u{d}[1 , 2 ]\u{d}\u{a}", "[1, 2]", "[1, 2]"),
    (
        "{\"a\": 1, \"b\": 2, \"a\": 3}",
        "{\"a\": 3, \"b\": 2}",
        "{\"a\": 3, \"b\": 2}",
    ),
    (
        "{\"a\":{\"a\":1,\"a\":[2]}}",
        "{\"a\": {\"a\": [2]}}",
        "{\"a\": {\"a\": [2]}}",
    ),
    ("\"\\ud83d\\ude00\"", "\"\\ud83d\\ude00\"", "\"\u{1f600}\""),
    ("\"\\uD83D\\uDE00\"", "\"\\ud83d\\ude00\"", "\"\u{1f600}\""),
    (
        "\"\\u00e9\\/\\b\\f\\n\\r\\t\\\"\\\\\"",
        "\"\\u00e9/\\b\\f\\n\\r\\t\\\"\\\\\"",
        "\"\u{e9}/\\b\\f\\n\\r\\t\\\"\\\\\"",
    ),
    ("\"\u{7f}\"", "\"\\u007f\"", "\"\u{7f}\""),
    (
        "\"\u{e9}\u{1f600}\"",
        "\"\\u00e9\\ud83d\\ude00\"",
        "\"\u{e9}\u{1f600}\"",
    ),
    (
        "[true,false,null]",
        "[true, false, null]",
        "[true, false, null]",
    ),
    ("{\"\":\"\"}", "{\"\": \"\"}", "{\"\": \"\"}"),
    ("[[],{},[[]]]", "[[], {}, [[]]]", "[[], {}, [[]]]"),
    ("1.5e-7", "1.5e-07", "1.5e-07"),
    ("0.1", "0.1", "0.1"),
    ("1e16", "1e+16", "1e+16"),
    ("123.0", "123.0", "123.0"),
    ("5e-324", "5e-324", "5e-324"),
    ("2.5E+20", "2.5e+20", "2.5e+20"),
    ("\"\\u0041\\u0041\"", "\"AA\"", "\"AA\""),
    (
        "100000000000000000000000000000000000000000.0",
        "1e+41",
        "1e+41",
    ),
    ("[1.0, 1, true]", "[1.0, 1, true]", "[1.0, 1, true]"),
    (
        "\"\u{2028}\u{2029}\"",
        "\"\\u2028\\u2029\"",
        "\"\u{2028}\u{2029}\"",
    ),
    ("4.35", "4.35", "4.35"),
    ("1e-7", "1e-07", "1e-07"),
    ("-1.0e-4", "-0.0001", "-0.0001"),
];

fn official_runs() -> Vec<PathBuf> {
    let root = crate::support::fixture("official-runs");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("fixture dir")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    assert!(
        dirs.len() >= 2,
        "expected official run fixtures in {root:?}"
    );
    dirs
}

#[test]
fn errors_match_python_messages_and_positions() {
    for (input, want) in ERROR_CASES {
        match loads(input) {
            Ok(v) => panic!("{input:?} parsed as {v:?}, Python says {want}"),
            Err(e) => {
                assert_eq!(e.to_string(), *want, "input {input:?}");
                assert_eq!(e.kind, JsonErrorKind::Decode);
            }
        }
    }
}

#[test]
fn accepted_inputs_reserialise_like_python() {
    for (input, ascii, utf8) in OK_CASES {
        let v = loads(input).unwrap_or_else(|e| panic!("{input:?}: {e}"));
        assert_eq!(dumps(&v, Escape::Ascii), *ascii, "ascii of {input:?}");
        assert_eq!(dumps(&v, Escape::Utf8), *utf8, "utf8 of {input:?}");
        assert_eq!(v.to_string(), *utf8, "Display of {input:?}");
    }
}

#[test]
fn number_kinds() {
    assert_eq!(loads("1e2").ok(), Some(Value::Float(100.0)));
    assert_eq!(loads("-0").ok(), Some(Value::int(0)));
    assert_eq!(loads("10").ok(), Some(Value::int(10)));
    assert_eq!(loads("1.0").ok(), Some(Value::Float(1.0)));
    assert!(matches!(loads("-0.0"), Ok(Value::Float(x)) if x == 0.0 && x.is_sign_negative()));
    assert_eq!(loads("1e400").ok(), Some(Value::Float(f64::INFINITY)));
    assert_eq!(
        loads("-123456789012345678901234567890").ok(),
        Some(Value::Int(PyInt::Big(
            "-123456789012345678901234567890".into()
        )))
    );
    assert_eq!(
        loads("9223372036854775808").ok(),
        Some(Value::Int(PyInt::Big("9223372036854775808".into())))
    );
    assert_eq!(
        loads("-9223372036854775808").ok(),
        Some(Value::int(i64::MIN))
    );
    assert!(matches!(loads("NaN"), Ok(Value::Float(x)) if x.is_nan()));
}

#[test]
fn int_digit_limit_is_a_value_error() {
    let ok = "7".repeat(4300);
    assert_eq!(loads(&ok).ok(), Some(Value::Int(PyInt::Big(ok.clone()))));
    assert!(loads(&format!("-{ok}")).is_ok());
    let e = loads(&"7".repeat(4301)).expect_err("too many digits");
    assert_eq!(e.kind, JsonErrorKind::IntTooLong);
    assert_eq!(
        e.to_string(),
        "Exceeds the limit (4300 digits) for integer string conversion: value has 4301 digits; use sys.set_int_max_str_digits() to increase the limit"
    );
    // Floats have no digit limit.
    assert!(loads(&format!("{}.5", "7".repeat(5000))).is_ok());
}

#[test]
fn duplicate_keys_keep_first_position_last_value() {
    let v = loads(r#"{"a": 1, "b": 2, "a": 3}"#).expect("parse");
    let keys: Vec<&String> = v.as_object().expect("object").keys().collect();
    assert_eq!(keys, ["a", "b"]);
    assert_eq!(v.get("a"), Some(&Value::int(3)));
    // Large objects (hash-indexed path) behave the same.
    let mut text = String::from("{");
    for i in 0..100 {
        text.push_str(&format!("\"k{i}\": {i}, "));
    }
    text.push_str("\"k5\": \"last\", \"k99\": null}");
    let v = loads(&text).expect("parse");
    let m = v.as_object().expect("object");
    assert_eq!(m.len(), 100);
    assert_eq!(m.keys().nth(5).map(String::as_str), Some("k5"));
    assert_eq!(m.get("k5"), Some(&Value::str("last")));
    assert_eq!(m.keys().last().map(String::as_str), Some("k99"));
    assert_eq!(m.get("k99"), Some(&Value::Null));
}

#[test]
fn surrogate_escapes() {
    assert_eq!(loads(r#""\ud83d\ude00""#).ok(), Some(Value::str("😀")));
    // Lone surrogates: Python keeps them; wildtool substitutes U+FFFD (documented).
    assert_eq!(loads(r#""\ud800""#).ok(), Some(Value::str("\u{fffd}")));
    assert_eq!(loads(r#""\udc00x""#).ok(), Some(Value::str("\u{fffd}x")));
    assert_eq!(loads(r#""\ud83dA""#).ok(), Some(Value::str("\u{fffd}A")));
    assert_eq!(
        loads(r#""\ud83d\u0041""#).ok(),
        Some(Value::str("\u{fffd}A"))
    );
    assert_eq!(
        loads(r#""\ud83d\ud83d\ude00""#).ok(),
        Some(Value::str("\u{fffd}😀"))
    );
}

#[test]
fn nesting_is_bounded_without_stack_overflow() {
    let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
    let v = loads(&ok).expect("MAX_DEPTH levels parse");
    // Writers and equality recurse; the depth bound keeps them safe too.
    assert_eq!(dumps(&v, Escape::Ascii), ok);
    assert!(dump_indent4(&v).starts_with("[\n    [\n        ["));
    assert!(py_eq(&v, &v.clone()));
    let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
    let e = loads(&deep).expect_err("too deep");
    assert_eq!(e.kind, JsonErrorKind::TooDeep);
    assert_eq!(
        e.to_string(),
        "maximum recursion depth exceeded while decoding a JSON array from a unicode string"
    );
    let huge = "{\"a\":".repeat(1_000_000);
    assert_eq!(
        loads(&huge).map_err(|e| e.kind),
        Err(JsonErrorKind::TooDeep)
    );
    let unclosed = "[".repeat(2_000_000);
    assert!(loads(&unclosed).is_err());
}

#[test]
fn indent4_layout() {
    let v = loads(r#"{"a": [1, {}, []], "b": {}, "c": {"d": 0.5, "é": "ü\n"}, "e": []}"#)
        .expect("parse");
    let want = "{\n    \"a\": [\n        1,\n        {},\n        []\n    ],\n    \"b\": {},\n    \"c\": {\n        \"d\": 0.5,\n        \"é\": \"ü\\n\"\n    },\n    \"e\": []\n}";
    assert_eq!(dump_indent4(&v), want);
    assert_eq!(dump_indent4(&Value::int(3)), "3");
    assert_eq!(dump_indent4(&Value::Array(vec![])), "[]");
    assert_eq!(dump_indent4(&Value::Object(Map::new())), "{}");
}

#[test]
fn control_characters_escape_lower_hex() {
    let s: String = (0u8..0x20)
        .map(char::from)
        .chain(['\u{7f}', '"', '\\'])
        .collect();
    let v = Value::Str(s);
    let want_utf8 = "\"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000b\\f\\r\\u000e\\u000f\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018\\u0019\\u001a\\u001b\\u001c\\u001d\\u001e\\u001f\u{7f}\\\"\\\\\"";
    assert_eq!(dumps(&v, Escape::Utf8), want_utf8);
    assert_eq!(
        dumps(&v, Escape::Ascii),
        want_utf8.replace('\u{7f}', "\\u007f")
    );
    assert_eq!(
        dumps(&Value::str("\u{10ffff}\u{ffff}"), Escape::Ascii),
        "\"\\udbff\\udfff\\uffff\""
    );
}

#[test]
fn result_lines_round_trip_utf8() {
    for dir in official_runs() {
        let text = std::fs::read_to_string(dir.join("mini_result.jsonl")).expect("read result");
        assert!(text.ends_with('\n'));
        let mut n = 0;
        for line in text.lines() {
            let v = loads(line).unwrap_or_else(|e| panic!("{dir:?}: {e}"));
            assert_eq!(dumps(&v, Escape::Utf8), line, "{dir:?} line {n}");
            n += 1;
        }
        assert!(n > 0);
    }
}

#[test]
fn score_lines_round_trip_ascii() {
    for dir in official_runs() {
        let text = std::fs::read_to_string(dir.join("mini_score.jsonl")).expect("read score");
        assert!(!text.ends_with('\n'));
        let rebuilt: Vec<String> = text
            .split('\n')
            .map(|line| {
                dumps(
                    &loads(line).unwrap_or_else(|e| panic!("{dir:?}: {e}")),
                    Escape::Ascii,
                )
            })
            .collect();
        assert_eq!(rebuilt.join("\n"), text, "{dir:?}");
    }
}

#[test]
fn metric_file_round_trips_indent4() {
    for dir in official_runs() {
        let text = std::fs::read_to_string(dir.join("mini_metric.json")).expect("read metric");
        let v = loads(&text).expect("parse metric");
        assert_eq!(dump_indent4(&v), text, "{dir:?}");
    }
}

#[test]
fn float_repr_matches_python_for_latency_like_values() {
    assert_eq!(float_repr(0.2857142857142857), "0.2857142857142857");
    assert_eq!(float_repr(12.345678901234567), "12.345678901234567");
    assert_eq!(float_repr(1e-4), "0.0001");
    assert_eq!(float_repr(9.999999999999999e-5), "9.999999999999999e-05");
    assert_eq!(float_repr(1e15), "1000000000000000.0");
    assert_eq!(float_repr(-1e16), "-1e+16");
}

#[test]
fn python_equality_through_parse() {
    let p = |s: &str| loads(s).expect("parse");
    assert!(py_eq(&p("true"), &p("1.0")));
    assert!(py_eq(
        &p(r#"{"a": 1, "b": 2}"#),
        &p(r#"{"b": 2.0, "a": true}"#)
    ));
    assert!(!py_eq(&p("NaN"), &p("NaN")));
    assert!(!py_eq(&p("\"a\""), &p("\"A\"")));
}

/// Differential check against CPython: set `WILDTOOL_JSON_DIFF` to a JSONL file whose lines
/// are `{"input": s, "ok": json.dumps(json.loads(s))}` or `{"input": s, "err": str(error)}`
/// (or `"other": exception name`), produced by CPython, and run with `--ignored`.
#[test]
#[ignore = "needs a CPython-generated case file in WILDTOOL_JSON_DIFF"]
fn differential_against_cpython_cases() {
    let path = std::env::var("WILDTOOL_JSON_DIFF").expect("WILDTOOL_JSON_DIFF");
    let text = std::fs::read_to_string(path).expect("read case file");
    let mut failures = Vec::new();
    let mut count = 0;
    for line in text.lines() {
        let case = loads(line).expect("case line");
        let input = case.get("input").and_then(Value::as_str).expect("input");
        let got = loads(input);
        count += 1;
        let ok = match (got, case.get("ok"), case.get("err")) {
            (Ok(v), Some(Value::Str(want)), _) => dumps(&v, Escape::Ascii) == *want,
            (Err(e), _, Some(Value::Str(want))) => {
                e.kind == JsonErrorKind::Decode && e.to_string() == *want
            }
            (Err(e), None, None) => e.kind != JsonErrorKind::Decode,
            _ => false,
        };
        if !ok {
            failures.push(line.to_owned());
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {count} differ, e.g. {:?}",
        failures.len(),
        &failures[..failures.len().min(5)]
    );
}

/// Throughput of `loads` + `dumps` on the official result lines (run with `--ignored`,
/// ideally under `--profile bench`).
#[test]
#[ignore = "timing measurement"]
fn throughput_on_result_lines() {
    let mut lines = Vec::new();
    for dir in official_runs() {
        let text = std::fs::read_to_string(dir.join("mini_result.jsonl")).expect("read result");
        lines.extend(text.lines().map(str::to_owned));
    }
    let bytes_per_round: usize = lines.iter().map(String::len).sum();
    let rounds = 200;
    let parsed: Vec<Value> = lines.iter().map(|l| loads(l).expect("parse")).collect();
    let mb = (bytes_per_round * rounds) as f64 / 1e6;
    let start = std::time::Instant::now();
    for _ in 0..rounds {
        for line in &lines {
            std::hint::black_box(loads(line).expect("parse"));
        }
    }
    let secs = start.elapsed().as_secs_f64();
    eprintln!("loads: {mb:.1} MB in {secs:.2} s = {:.1} MB/s", mb / secs);
    for mode in [Escape::Ascii, Escape::Utf8] {
        let mut out = String::new();
        let start = std::time::Instant::now();
        for _ in 0..rounds {
            for v in &parsed {
                out.clear();
                wildtool_core::json::dumps_into(&mut out, v, mode);
                std::hint::black_box(&out);
            }
        }
        let secs = start.elapsed().as_secs_f64();
        eprintln!(
            "dumps({mode:?}): {mb:.1} MB in {secs:.2} s = {:.1} MB/s",
            mb / secs
        );
    }
}
