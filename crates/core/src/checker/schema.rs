//! The schema stage of the official checker (PROTOCOL §5.2, §6 P12, P13, C3).
//!
//! Only the top-level argument object uses the plain wording ("args ..."); every value
//! below it, top-level parameters included, uses the "nested" wording.

use crate::json::{py_in, Map, Value};

/// What the schema stage noticed that the official code would not survive.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SchemaNotes {
    /// A list-valued `type` was met (official TypeError, C3); wildtool used the union.
    pub list_valued_type: bool,
}

/// Whether a value sits at the top-level argument object or below it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    Top,
    Nested,
}

impl Level {
    fn pick(self, top: &'static str, nested: &'static str) -> &'static str {
        match self {
            Level::Top => top,
            Level::Nested => nested,
        }
    }
}

/// Checks the top-level predicted value against the tool's `required` and `properties`
/// (the synthetic schema `{"type": "object", "required": …, "properties": …}` of §5.1,
/// which never has `additionalProperties`). Returns the first error verdict, if any.
pub fn check_top_level(
    value: &Value,
    required: &[Value],
    properties: Option<&Map>,
    notes: &mut SchemaNotes,
) -> Option<&'static str> {
    let Value::Object(obj) = value else {
        return Some("error_schema: args type inconsistent");
    };
    check_object(obj, required, properties, false, Level::Top, notes)
}

/// Checks `value` against a nested schema (a parameter, property or item schema).
pub fn check_nested(
    value: &Value,
    schema: &Value,
    notes: &mut SchemaNotes,
) -> Option<&'static str> {
    check_value(value, schema_map(schema), notes)
}

/// A schema that is not an object behaves like the empty schema `{}` (untyped: string).
fn schema_map(schema: &Value) -> Option<&Map> {
    schema.as_object()
}

fn member<'s>(schema: Option<&'s Map>, key: &str) -> Option<&'s Value> {
    schema.and_then(|m| m.get(key))
}

fn check_value(
    value: &Value,
    schema: Option<&Map>,
    notes: &mut SchemaNotes,
) -> Option<&'static str> {
    let level = Level::Nested;
    // 1. anyOf: first passing branch wins; otherwise the first branch's error.
    if let Some(Value::Array(branches)) = member(schema, "anyOf") {
        let mut first_error = None;
        for (idx, branch) in branches.iter().enumerate() {
            match check_value(value, schema_map(branch), notes) {
                None => return None,
                Some(err) if idx == 0 => first_error = Some(err),
                Some(_) => {}
            }
        }
        return first_error;
    }
    // 2. type.
    if !type_allows(member(schema, "type"), value, notes) {
        return Some(level.pick(
            "error_schema: args type inconsistent",
            "error_schema: nested args type inconsistent",
        ));
    }
    // 3. enum, under Python `in` (identity or equality: `true == 1 == 1.0`; a NaN from
    //    `json.loads` is one shared object, so NaN is found in an enum holding NaN).
    if let Some(Value::Array(options)) = member(schema, "enum") {
        if !py_in(value, options) {
            return Some(level.pick(
                "error_schema: args value not in enum",
                "error_schema: nested args value not in enum",
            ));
        }
    }
    match value {
        // 4. object value.
        Value::Object(obj) => {
            let required = match member(schema, "required") {
                Some(Value::Array(r)) => r.as_slice(),
                _ => &[],
            };
            let properties = member(schema, "properties").and_then(Value::as_object);
            let additional = matches!(
                member(schema, "additionalProperties"),
                Some(Value::Bool(true))
            );
            check_object(obj, required, properties, additional, level, notes)
        }
        // 5. array value with items.
        Value::Array(items) => {
            let item_schema = member(schema, "items")?;
            items
                .iter()
                .find_map(|item| check_value(item, schema_map(item_schema), notes))
        }
        _ => None,
    }
}

fn check_object(
    obj: &Map,
    required: &[Value],
    properties: Option<&Map>,
    additional_properties: bool,
    level: Level,
    notes: &mut SchemaNotes,
) -> Option<&'static str> {
    let missing = required.iter().any(|key| match key {
        Value::Str(k) => !obj.contains_key(k),
        // A non-string name is never a key of a JSON object.
        _ => true,
    });
    if missing {
        return Some(level.pick(
            "error_schema: required args missing",
            "error_schema: required nested args missing",
        ));
    }
    for (key, item) in obj.iter() {
        match member(properties, key) {
            Some(sub) => {
                if let Some(err) = check_value(item, schema_map(sub), notes) {
                    return Some(err);
                }
            }
            None if additional_properties => {}
            None => {
                return Some(level.pick(
                    "error_schema: args not defined",
                    "error_schema: nested args not defined",
                ))
            }
        }
    }
    None
}

/// The §5.2 type table. `None` (absent) means string; an unknown name accepts anything;
/// a list is the union of its known names (C3), and accepts anything when none is known.
fn type_allows(ty: Option<&Value>, value: &Value, notes: &mut SchemaNotes) -> bool {
    match ty {
        None => matches!(value, Value::Str(_)),
        Some(Value::Str(name)) => named_type_allows(name, value).unwrap_or(true),
        Some(Value::Array(names)) => {
            notes.list_valued_type = true;
            let known: Vec<bool> = names
                .iter()
                .filter_map(Value::as_str)
                .filter_map(|name| named_type_allows(name, value))
                .collect();
            known.is_empty() || known.into_iter().any(|ok| ok)
        }
        // Any other JSON value is not a type name the official table knows.
        Some(_) => true,
    }
}

/// `Some(accepted)` for a known type name, `None` for an unknown one.
fn named_type_allows(name: &str, value: &Value) -> Option<bool> {
    let ok = match name {
        "string" => matches!(value, Value::Str(_)),
        "integer" => matches!(value, Value::Int(_) | Value::Bool(_)),
        "number" => matches!(value, Value::Int(_) | Value::Float(_) | Value::Bool(_)),
        "float" => matches!(value, Value::Float(_)),
        "boolean" => matches!(value, Value::Bool(_)),
        "array" => matches!(value, Value::Array(_)),
        "object" => matches!(value, Value::Object(_)),
        "null" => matches!(value, Value::Null),
        _ => return None,
    };
    Some(ok)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::loads;

    fn nested(value: &str, schema: &str) -> Option<&'static str> {
        let (Ok(v), Ok(s)) = (loads(value), loads(schema)) else {
            return Some("unparsable test input");
        };
        check_nested(&v, &s, &mut SchemaNotes::default())
    }

    const TYPE: &str = "error_schema: nested args type inconsistent";

    #[test]
    fn type_table() {
        assert_eq!(nested("true", r#"{"type": "integer"}"#), None);
        assert_eq!(nested("true", r#"{"type": "number"}"#), None);
        assert_eq!(nested("1", r#"{"type": "float"}"#), Some(TYPE));
        assert_eq!(nested("1.5", r#"{"type": "float"}"#), None);
        assert_eq!(nested("1", r#"{"type": "boolean"}"#), Some(TYPE));
        assert_eq!(nested("null", r#"{"type": "null"}"#), None);
        assert_eq!(nested("5", "{}"), Some(TYPE));
        assert_eq!(nested(r#""5""#, "{}"), None);
        assert_eq!(nested("5", r#"{"type": "str"}"#), None);
        // A schema that is not an object is untyped, i.e. string.
        assert_eq!(nested("5", "true"), Some(TYPE));
    }

    #[test]
    fn any_of_returns_the_first_branch_error() {
        let s = r#"{"anyOf": [{"type": "object", "required": ["a"]}, {"type": "integer"}], "type": "string"}"#;
        assert_eq!(
            nested("{}", s),
            Some("error_schema: required nested args missing")
        );
        assert_eq!(nested("3", s), None);
        assert_eq!(nested(r#""x""#, s), Some(TYPE));
    }

    #[test]
    fn additional_properties_must_be_exactly_true() {
        let v = r#"{"k": 1}"#;
        let no = "error_schema: nested args not defined";
        assert_eq!(
            nested(v, r#"{"type": "object", "additionalProperties": true}"#),
            None
        );
        assert_eq!(
            nested(v, r#"{"type": "object", "additionalProperties": 1}"#),
            Some(no)
        );
        assert_eq!(
            nested(v, r#"{"type": "object", "additionalProperties": {}}"#),
            Some(no)
        );
    }

    #[test]
    fn keys_are_checked_in_predicted_order_after_required() {
        let s = r#"{"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}, "b": {"type": "string", "enum": ["x"]}}}"#;
        assert_eq!(
            nested(r#"{"b": "y", "a": 1}"#, s),
            Some("error_schema: nested args value not in enum")
        );
        assert_eq!(nested(r#"{"a": 1, "b": "y"}"#, s), Some(TYPE));
        assert_eq!(
            nested(r#"{"b": "x"}"#, s),
            Some("error_schema: required nested args missing")
        );
    }

    #[test]
    fn top_level_wording() {
        let props = loads(r#"{"a": {"type": "integer"}}"#).ok();
        let props = props.as_ref().and_then(Value::as_object);
        let mut notes = SchemaNotes::default();
        let run = |v: &str, notes: &mut SchemaNotes| match loads(v) {
            Ok(v) => check_top_level(&v, &[Value::str("a")], props, notes),
            Err(_) => Some("unparsable test input"),
        };
        assert_eq!(
            run("[]", &mut notes),
            Some("error_schema: args type inconsistent")
        );
        assert_eq!(
            run("{}", &mut notes),
            Some("error_schema: required args missing")
        );
        assert_eq!(
            run(r#"{"a": 1, "c": 1}"#, &mut notes),
            Some("error_schema: args not defined")
        );
        assert_eq!(run(r#"{"a": "1"}"#, &mut notes), Some(TYPE));
        assert!(!notes.list_valued_type);
    }

    #[test]
    fn list_valued_type_is_noted() {
        let mut notes = SchemaNotes::default();
        let (Ok(v), Ok(s)) = (loads("null"), loads(r#"{"type": ["string", "null"]}"#)) else {
            return;
        };
        assert_eq!(check_nested(&v, &s, &mut notes), None);
        assert!(notes.list_valued_type);
    }
}
