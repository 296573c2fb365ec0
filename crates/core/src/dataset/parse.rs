//! Line parsing into the Python-compatible [`Value`] model.

use crate::json::{loads, loads_deferring, PathStep, Value};

/// Parses one JSON document exactly as Python's `json.loads` does (via
/// [`crate::json::loads`]); the error is Python's `JSONDecodeError` message.
pub fn parse_json(text: &str) -> Result<Value, String> {
    loads(text).map_err(|e| e.to_string())
}

/// [`parse_json`] keeping the given top-level members as unparsed, validated text
/// ([`Value::Raw`]): the other language's fields, which a load in one language never reads.
pub fn parse_json_deferring(text: &str, members: &[&str]) -> Result<Value, String> {
    loads_deferring(text, &[PathStep::AnyOf(members)]).map_err(|e| e.to_string())
}
