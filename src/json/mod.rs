//! Python-compatible JSON: parsing as `json.loads` does and writing as `json.dumps` /
//! `json.dump(indent=4)` do, byte for byte (PROTOCOL conventions, §4.6, §5.4).

mod value;

pub use value::{Map, PyInt, Value};
