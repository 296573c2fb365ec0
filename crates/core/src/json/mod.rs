//! Python-compatible JSON: parsing as `json.loads` does and writing as `json.dumps` /
//! `json.dump(indent=4)` do, byte for byte (PROTOCOL conventions, §4.6, §5.4).
//!
//! - [`loads`] parses like CPython 3.11's `json.loads` ([`JsonError`] mirrors
//!   `JSONDecodeError`); its one known deviation is that lone surrogate escapes become
//!   U+FFFD.
//! - [`dumps`] / [`dumps_into`] write `json.dumps(v, ensure_ascii=…)`, [`dump_indent4`]
//!   writes `json.dump(v, f, indent=4, ensure_ascii=False)`.
//! - [`loads_deferring`] is [`loads`] keeping chosen members' containers as validated
//!   text ([`Value::Raw`]) that [`dumps`] copies through.
//! - [`float_repr`] is `repr(float)` with JSON spellings of NaN and the infinities.
//! - [`repr_str`] / [`repr_str_list`] are Python `repr` of a str / list of str.
//! - [`py_eq`] / [`py_in`] are Python `==` / `in` on parsed values.

mod eq;
mod error;
mod float;
mod parse;
mod printable_table;
mod repr;
mod scan;
mod value;
mod write;

pub use eq::{py_eq, py_in};
pub use error::{JsonError, JsonErrorKind};
pub use float::{float_repr, py_float_repr_plain};
pub use parse::{loads, loads_deferring, PathStep, MAX_DEPTH};
pub use repr::{is_py_printable, repr_str, repr_str_list};
pub use value::{Map, PyInt, RawJson, Value};
pub use write::{dump_indent4, dumps, dumps_into, Escape};

impl std::fmt::Display for Value {
    /// Writes [`dumps`] with [`Escape::Utf8`].
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&dumps(self, Escape::Utf8))
    }
}
