//! Checker behaviour beyond the golden rows: official crashes (C3, C4, C12), gold parse
//! failures, the recursion-limit emulation through real argument paths, NaN in enums.

use wildtool_core::checker::{
    check, check_str, check_verdict, default_segmenter, JiebaSegmenter, Quirk, INVALID_JSON,
    TOOL_NOT_DEFINED,
};
use wildtool_core::json::{loads, Value};

fn tools() -> Value {
    loads(
        r#"[{"type": "function", "function": {"name": "ev", "parameters": {"type": "object",
            "properties": {"body": {"type": "string"},
                           "tags": {"type": "array", "items": {"type": "string"}},
                           "meta": {"type": "object", "properties": {"note": {"type": "string"},
                                    "deep": {"type": "object", "properties": {"s": {"type": "string"}}}}},
                           "code": {"type": "number", "enum": [1, NaN]},
                           "kind": {"type": ["integer", "null", "nonsense"]},
                           "any": {"type": []}},
            "required": []}}},
           {"function": {"description": "nameless entry is skipped"}},
           {"type": "function", "function": {"name": "dup", "parameters": {"properties": {"a": {"type": "string"}}}}},
           {"type": "function", "function": {"name": "dup", "parameters": {"properties": {"b": {"type": "string"}}}}},
           {"type": "function", "function": {"name": "bare"}}]"#,
    )
    .expect("tools parse")
}

fn seg() -> &'static JiebaSegmenter {
    static SEG: std::sync::OnceLock<JiebaSegmenter> = std::sync::OnceLock::new();
    SEG.get_or_init(JiebaSegmenter::with_default_dict)
}

fn verdict(name: &str, predicted: &str, gold: &str) -> String {
    match check_str(&tools(), name, predicted, gold, seg()) {
        Ok(v) => v.text,
        Err(e) => format!("ERR {e}"),
    }
}

fn words(n: usize, last: &str) -> String {
    let mut v: Vec<String> = (0..n - 1).map(|i| format!("w{i}")).collect();
    v.push(last.to_owned());
    v.join(" ")
}

#[test]
fn unknown_tool_is_c4() {
    let v = check_str(&tools(), "nope", "{}", "{}", seg()).expect("verdict");
    assert_eq!(v.text, TOOL_NOT_DEFINED);
    assert_eq!(v.quirks, [Quirk::ToolNotDefined]);
    assert!(!v.is_official_comparable());
    // tools that are not a list define nothing.
    assert_eq!(
        check(&Value::Null, "ev", &Value::str("{}"), "{}", seg()),
        TOOL_NOT_DEFINED
    );
}

#[test]
fn non_string_arguments_are_c12() {
    let predicted = loads(r#"{"body": "x"}"#).expect("parse");
    let v = check_verdict(&tools(), "ev", &predicted, r#"{"body": "x"}"#, seg()).expect("verdict");
    assert_eq!(v.text, INVALID_JSON);
    assert_eq!(v.quirks, [Quirk::NonStringArguments]);
}

#[test]
fn later_duplicate_tool_wins_and_missing_parameters_are_empty() {
    assert_eq!(verdict("dup", r#"{"b": "x"}"#, r#"{"b": "x"}"#), "correct");
    assert_eq!(
        verdict("dup", r#"{"a": "x"}"#, r#"{"a": "x"}"#),
        "error_schema: args not defined"
    );
    assert_eq!(verdict("bare", "{}", "{}"), "correct");
    assert_eq!(
        verdict("bare", r#"{"a": 1}"#, "{}"),
        "error_schema: args not defined"
    );
}

#[test]
fn gold_that_does_not_parse_is_a_comparison_failure() {
    assert_eq!(
        verdict("ev", r#"{"body": "x"}"#, ""),
        "error: comparison failed - Expecting value: line 1 column 1 (char 0)"
    );
    // The schema stage still comes first.
    assert_eq!(
        verdict("ev", r#"{"x": 1}"#, ""),
        "error_schema: args not defined"
    );
}

#[test]
fn list_valued_type_is_a_union_and_flagged() {
    let run = |p: &str, g: &str| check_str(&tools(), "ev", p, g, seg()).expect("verdict");
    let v = run(r#"{"kind": null}"#, r#"{"kind": null}"#);
    assert_eq!(
        (v.text.as_str(), v.quirks.as_slice()),
        ("correct", &[Quirk::ListValuedType][..])
    );
    assert_eq!(
        run(r#"{"kind": true}"#, r#"{"kind": 1}"#).text,
        "error_match: value type inconsistent at 'kind'"
    );
    assert_eq!(
        run(r#"{"kind": "1"}"#, r#"{"kind": 1}"#).text,
        "error_schema: nested args type inconsistent"
    );
    // An empty union checks nothing.
    assert_eq!(run(r#"{"any": [1]}"#, r#"{"any": [1]}"#).text, "correct");
}

#[test]
fn nan_is_in_an_enum_holding_nan() {
    // CPython's json.loads returns one shared NaN object, and `in` tests identity first.
    assert_eq!(
        verdict("ev", r#"{"code": NaN}"#, r#"{"code": NaN}"#),
        "error_match: value mismatch at 'code'"
    );
    assert_eq!(
        verdict("ev", r#"{"code": 2}"#, r#"{"code": 2}"#),
        "error_schema: nested args value not in enum"
    );
    assert_eq!(
        verdict("ev", r#"{"code": 1.0}"#, r#"{"code": 1.0}"#),
        "correct"
    );
}

#[test]
fn recursion_limit_depends_on_nesting() {
    let args = |key: &str, text: &str| match key {
        "body" => format!(r#"{{"body": "{text}"}}"#),
        "tags" => format!(r#"{{"tags": ["{text}"]}}"#),
        "meta" => format!(r#"{{"meta": {{"note": "{text}"}}}}"#),
        _ => format!(r#"{{"meta": {{"deep": {{"s": "{text}"}}}}}}"#),
    };
    let failed = |key: &str, n: usize| {
        let path = match key {
            "body" => "body",
            "tags" => "tags[0]",
            "meta" => "meta.note",
            _ => "meta.deep.s",
        };
        let got = verdict("ev", &args(key, &words(n, "P")), &args(key, &words(n, "G")));
        match got.as_str() {
            "correct" => false,
            other => {
                assert_eq!(
                    other,
                    format!("error_match: rouge calculation failed at '{path}'")
                );
                true
            }
        }
    };
    assert!(!failed("body", 981));
    assert!(failed("body", 982));
    assert!(!failed("tags", 980));
    assert!(failed("tags", 981));
    assert!(!failed("meta", 980));
    assert!(failed("meta", 981));
    assert!(!failed("deep", 979));
    assert!(failed("deep", 980));
}

#[test]
fn default_segmenter_is_jieba_in_native_builds() {
    let seg = default_segmenter();
    assert_eq!(
        seg.cut("北京烤鸭").map(|w| w.concat()),
        Ok("北京烤鸭".to_owned())
    );
}

#[test]
fn deep_nesting_does_not_overflow() {
    let tools = loads(
        r#"[{"type": "function", "function": {"name": "n", "parameters": {"type": "object",
            "properties": {"x": {"type": "array"}}}}}]"#,
    )
    .expect("tools parse");
    let nested = |leaf: &str| format!(r#"{{"x": {}{leaf}{}}}"#, "[".repeat(990), "]".repeat(990));
    let v = check(&tools, "n", &Value::Str(nested("1")), &nested("2"), seg());
    assert!(
        v.starts_with("error_match: value mismatch at 'x[0][0]"),
        "{v}"
    );
    assert_eq!(
        check(&tools, "n", &Value::Str(nested("1")), &nested("1"), seg()),
        "correct"
    );
}

#[test]
fn deep_schema_does_not_overflow() {
    let levels = 990;
    let schema = format!(
        "{}{{\"type\": \"integer\"}}{}",
        r#"{"type": "array", "items": "#.repeat(levels),
        "}".repeat(levels)
    );
    let tools = loads(&format!(
        r#"[{{"type": "function", "function": {{"name": "n", "parameters": {{"type": "object",
            "properties": {{"x": {schema}}}}}}}}}]"#
    ))
    .expect("tools parse");
    let value = |leaf: &str| {
        format!(
            r#"{{"x": {}{leaf}{}}}"#,
            "[".repeat(levels),
            "]".repeat(levels)
        )
    };
    let v = check(
        &tools,
        "n",
        &Value::Str(value(r#""s""#)),
        &value("1"),
        seg(),
    );
    assert_eq!(v, "error_schema: nested args type inconsistent");
    assert_eq!(
        check(&tools, "n", &Value::Str(value("1")), &value("1"), seg()),
        "correct"
    );
}
