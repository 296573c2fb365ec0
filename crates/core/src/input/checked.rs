//! Reading untrusted JSON documents field by field: every field read is type-checked and a
//! wrong or missing one is named in the error (`field "meta.model": invalid type: …`),
//! so no upload reaches code that assumes a type it does not have.

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::FormatError;

/// The fields of one JSON object, with the path that leads to it.
#[derive(Debug, Clone)]
pub(crate) struct Fields<'a> {
    what: &'static str,
    path: String,
    map: &'a Map<String, Value>,
}

/// What kind of JSON value `v` is, for messages.
pub(crate) fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

impl<'a> Fields<'a> {
    /// The top-level object of a document called `what` in messages.
    pub(crate) fn root(what: &'static str, v: &'a Value) -> Result<Self, FormatError> {
        match v {
            Value::Object(map) => Ok(Self {
                what,
                path: String::new(),
                map,
            }),
            other => Err(FormatError::NotAnObject {
                what,
                found: kind_of(other),
            }),
        }
    }

    fn at(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_owned()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    fn field_error(&self, key: &str, problem: String) -> FormatError {
        FormatError::Field {
            what: self.what,
            path: self.at(key),
            problem,
        }
    }

    /// A required field of type `T`.
    pub(crate) fn req<T: DeserializeOwned>(&self, key: &str) -> Result<T, FormatError> {
        match self.map.get(key) {
            None => Err(self.field_error(key, "is missing".to_owned())),
            Some(v) => {
                T::deserialize(v).map_err(|e| self.field_error(key, format!("is invalid: {e}")))
            }
        }
    }

    /// An optional field: absent or `null` is `None`.
    pub(crate) fn opt<T: DeserializeOwned>(&self, key: &str) -> Result<Option<T>, FormatError> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => T::deserialize(v)
                .map(Some)
                .map_err(|e| self.field_error(key, format!("is invalid: {e}"))),
        }
    }

    /// An optional nested object.
    pub(crate) fn obj(&self, key: &str) -> Result<Option<Fields<'a>>, FormatError> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Object(map)) => Ok(Some(Fields {
                what: self.what,
                path: self.at(key),
                map,
            })),
            Some(other) => {
                Err(self.field_error(key, format!("must be an object, not {}", kind_of(other))))
            }
        }
    }

    /// An optional list whose items are each of type `T` (the failing item is named).
    pub(crate) fn list<T: for<'de> Deserialize<'de>>(
        &self,
        key: &str,
    ) -> Result<Option<Vec<T>>, FormatError> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    T::deserialize(v).map_err(|e| FormatError::Field {
                        what: self.what,
                        path: format!("{}[{i}]", self.at(key)),
                        problem: format!("is invalid: {e}"),
                    })
                })
                .collect::<Result<Vec<T>, _>>()
                .map(Some),
            Some(other) => {
                Err(self.field_error(key, format!("must be a list, not {}", kind_of(other))))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_named_in_errors() {
        let v: Value = serde_json::from_str(
            r#"{"model": 5, "meta": {"n": "x"}, "list": [1, "two"], "s": "ok", "z": null}"#,
        )
        .unwrap_or_default();
        let f = Fields::root("run export", &v).expect("object");
        let e = f.req::<String>("model").unwrap_err().to_string();
        assert_eq!(
            e,
            "run export: field \"model\" is invalid: invalid type: integer `5`, expected a string"
        );
        let meta = f.obj("meta").expect("ok").expect("present");
        let e = meta.req::<u64>("n").unwrap_err().to_string();
        assert!(e.contains("field \"meta.n\""), "{e}");
        let e = f.list::<u64>("list").unwrap_err().to_string();
        assert!(e.contains("field \"list[1]\""), "{e}");
        assert_eq!(f.req::<String>("s").ok().as_deref(), Some("ok"));
        assert_eq!(f.opt::<String>("z").ok(), Some(None));
        assert!(f
            .req::<String>("absent")
            .unwrap_err()
            .to_string()
            .contains("is missing"));
        assert!(f.obj("s").is_err());
        assert!(Fields::root("x", &Value::Bool(true)).is_err());
    }
}
