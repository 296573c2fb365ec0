//! Python equality (`==` and `in`) on values produced by `json.loads` (PROTOCOL §5.2, §5.3).
//!
//! bool, int and float compare numerically across kinds (`true == 1 == 1.0`), integers
//! exactly at any size, a float equals an integer only when it is integral and exactly that
//! value; str, list and dict compare structurally (dict order ignored); `None == None`;
//! other kinds never compare equal.
//!
//! **NaN.** A float NaN is never `==` to anything. But CPython's `json.loads` returns one
//! shared NaN object for every `NaN` literal, and container comparison and `in` test
//! identity before `==`. So inside lists/dicts, and for [`py_in`], NaN matches NaN:
//! `json.loads('[NaN]') == json.loads('[NaN]')` and `NaN in [1, NaN]` are both `True` in
//! CPython 3.11, while the scalar `NaN == NaN` is `False`.

use super::value::{PyInt, Value};

/// Python `a == b` for values from `json.loads` (see the module docs for NaN).
pub fn py_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Raw(x), _) => py_eq(&x.value(), b),
        (_, Value::Raw(y)) => py_eq(a, &y.value()),
        (Value::Null, Value::Null) => true,
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| py_eq_or_same(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| py_eq_or_same(v, w)))
        }
        _ => match (Num::of(a), Num::of(b)) {
            (Some(x), Some(y)) => x.eq(&y),
            _ => false,
        },
    }
}

/// Python `needle in haystack` for a list from `json.loads`: identity or `==`, so a NaN
/// needle is found when the list holds a NaN.
pub fn py_in(needle: &Value, haystack: &[Value]) -> bool {
    haystack.iter().any(|item| py_eq_or_same(needle, item))
}

/// CPython's `PyObject_RichCompareBool` on json values: identity (all NaN are the same
/// object) or `==`.
fn py_eq_or_same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) if x.is_nan() && y.is_nan() => true,
        _ => py_eq(a, b),
    }
}

/// A numeric view of bool, int and float.
enum Num<'a> {
    Small(i64),
    Big(&'a str),
    Float(f64),
}

impl<'a> Num<'a> {
    fn of(v: &'a Value) -> Option<Self> {
        match v {
            Value::Bool(b) => Some(Num::Small(i64::from(*b))),
            Value::Int(PyInt::Small(i)) => Some(Num::Small(*i)),
            Value::Int(PyInt::Big(s)) => Some(Num::Big(s)),
            Value::Float(x) => Some(Num::Float(*x)),
            _ => None,
        }
    }

    fn eq(&self, other: &Num<'_>) -> bool {
        match (self, other) {
            (Num::Float(x), Num::Float(y)) => x == y,
            (Num::Float(x), int) | (int, Num::Float(x)) => int_eq_float(int, *x),
            (Num::Small(x), Num::Small(y)) => x == y,
            (Num::Big(x), Num::Big(y)) => x == y,
            (Num::Small(x), Num::Big(y)) | (Num::Big(y), Num::Small(x)) => x.to_string() == *y,
        }
    }
}

/// Exact int/float equality: the float must be finite, integral and exactly the integer.
fn int_eq_float(int: &Num<'_>, x: f64) -> bool {
    if !x.is_finite() || x.fract() != 0.0 {
        return false;
    }
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    match int {
        // In range, the cast of an integral float is exact.
        Num::Small(i) => (-TWO_63..TWO_63).contains(&x) && x as i64 == *i,
        // `{:.0}` prints the exact decimal value of an integral float.
        Num::Big(digits) => {
            let exact = if x == 0.0 {
                "0".to_owned()
            } else {
                format!("{x:.0}")
            };
            exact == *digits
        }
        Num::Float(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::loads;

    fn eq(a: &str, b: &str) -> bool {
        match (loads(a), loads(b)) {
            (Ok(x), Ok(y)) => py_eq(&x, &y),
            _ => panic!("test input must parse"),
        }
    }

    #[test]
    fn numeric_cross_kind() {
        assert!(eq("true", "1"));
        assert!(eq("1", "1.0"));
        assert!(eq("true", "1.0"));
        assert!(eq("false", "0"));
        assert!(eq("false", "-0.0"));
        assert!(eq("0.0", "-0.0"));
        assert!(!eq("true", "2"));
        assert!(!eq("1", "1.5"));
        assert!(eq("9223372036854775807", "9223372036854775807"));
        assert!(!eq("9223372036854775807", "9223372036854775807.0")); // float is 2^63
        assert!(eq("9223372036854775808", "9223372036854775808.0"));
        assert!(!eq("100000000000000000000000", "1e23")); // 1e23 is 99999999999999991611392.0
        assert!(eq("99999999999999991611392", "1e23"));
        assert!(!eq(
            "123456789012345678901234567890",
            "123456789012345678901234567891"
        ));
        assert!(!eq("1e400", "1"));
        assert!(eq("1e400", "Infinity"));
    }

    #[test]
    fn nan_rules() {
        assert!(!eq("NaN", "NaN"));
        assert!(eq("[NaN]", "[NaN]"));
        assert!(eq("{\"a\": NaN}", "{\"a\": NaN}"));
        let nan = Value::Float(f64::NAN);
        assert!(py_in(&nan, &[Value::int(1), Value::Float(f64::NAN)]));
        assert!(!py_in(&nan, &[Value::int(1)]));
        assert!(py_in(&Value::Bool(true), &[Value::Float(1.0)]));
    }

    #[test]
    fn structural() {
        assert!(eq("null", "null"));
        assert!(!eq("null", "0"));
        assert!(!eq("\"1\"", "1"));
        assert!(eq(
            "{\"a\": 1, \"b\": [true, 2]}",
            "{\"b\": [1.0, 2], \"a\": 1}"
        ));
        assert!(!eq("{\"a\": 1}", "{\"a\": 1, \"b\": 2}"));
        assert!(!eq("{\"a\": 1}", "{\"b\": 1}"));
        assert!(!eq("[1, 2]", "[2, 1]"));
        assert!(!eq("[]", "{}"));
        assert!(eq("\"é\"", "\"\\u00e9\""));
    }
}
