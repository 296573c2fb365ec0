//! Line parsing into the Python-compatible [`Value`] model.
//!
//! TEMPORARY BRIDGE: until `crate::json::loads` (branch wt-json) is merged, lines are
//! parsed with `serde_json` (already a dependency) and converted. Differences from
//! Python's `json.loads` that the bridge cannot express: `NaN`/`Infinity` literals are
//! rejected, and integers beyond `u64` become floats. Swap the body for
//! `crate::json::loads` when it lands; the signature stays.

use crate::json::{Map, PyInt, Value};

/// Parses one JSON document, as `json.loads` would; the error is a human message.
pub fn parse_json(text: &str) -> Result<Value, String> {
    serde_json::from_str::<serde_json::Value>(text)
        .map(convert)
        .map_err(|e| e.to_string())
}

fn convert(v: serde_json::Value) -> Value {
    match v {
        serde_json::Value::Null => Value::Null,
        serde_json::Value::Bool(b) => Value::Bool(b),
        serde_json::Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::Int(PyInt::Small(i))
            } else if let Some(u) = n.as_u64() {
                Value::Int(PyInt::Big(u.to_string()))
            } else {
                Value::Float(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        serde_json::Value::String(s) => Value::Str(s),
        serde_json::Value::Array(a) => Value::Array(a.into_iter().map(convert).collect()),
        serde_json::Value::Object(o) => {
            Value::Object(o.into_iter().map(|(k, v)| (k, convert(v))).collect::<Map>())
        }
    }
}
