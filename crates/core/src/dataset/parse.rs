//! Line parsing into the Python-compatible [`Value`] model.

use crate::json::{loads, Value};

/// Parses one JSON document exactly as Python's `json.loads` does (via
/// [`crate::json::loads`]); the error is Python's `JSONDecodeError` message.
pub fn parse_json(text: &str) -> Result<Value, String> {
    loads(text).map_err(|e| e.to_string())
}
