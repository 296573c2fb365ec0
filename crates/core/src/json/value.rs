//! The Python-compatible JSON value model.
//!
//! The official harness parses and re-serialises JSON with Python's `json` module, so
//! wildtool keeps exactly the information Python keeps: member order as parsed, integers of
//! arbitrary size distinct from binary64 floats, and the non-standard `NaN`/`Infinity`
//! literals (PROTOCOL §4.6, §5.4).

/// A Python `int` as produced by `json.loads`: exact at any size.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PyInt {
    /// Fits in an `i64`.
    Small(i64),
    /// Canonical decimal digits with an optional leading `-`, no leading zeros, outside `i64`.
    Big(String),
}

/// A JSON value with Python semantics.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `null` / Python `None`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A number without fraction or exponent.
    Int(PyInt),
    /// A number with a fraction or exponent, or `NaN` / `Infinity` / `-Infinity`.
    Float(f64),
    /// A string.
    Str(String),
    /// An array.
    Array(Vec<Value>),
    /// An object with members in parse order.
    Object(Map),
    /// An array or object kept as its validated source text: only
    /// [`loads_deferring`](super::loads_deferring) makes one. It stands for the value
    /// [`RawJson::value`] gives; [`dumps`](super::dumps) writes it as that value, and
    /// lookups (`get`, `as_object`, …) do not look inside it.
    Raw(RawJson),
}

/// An insertion-ordered JSON object.
///
/// Lookups are linear: objects in this domain are small, and order is what matters.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Map {
    entries: Vec<(String, Value)>,
}

impl Map {
    /// An empty object.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of members.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when the object has no members.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The value of `key`, if present.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Mutable access to the value of `key`, if present.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        self.entries
            .iter_mut()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    /// True when `key` is a member.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Python `dict[key] = value`: replaces the value in place when the key exists
    /// (keeping its position), otherwise appends.
    pub fn insert(&mut self, key: impl Into<String>, value: Value) {
        let key = key.into();
        match self.get_mut(&key) {
            Some(slot) => *slot = value,
            None => self.entries.push((key, value)),
        }
    }

    /// Inserts `key` at `index` (clamped to the length); an existing member of that name
    /// is removed first, as rebuilding a Python dict with the key at that position would.
    pub fn insert_at(&mut self, index: usize, key: impl Into<String>, value: Value) {
        let key = key.into();
        self.remove(&key);
        let index = index.min(self.entries.len());
        self.entries.insert(index, (key, value));
    }

    /// Removes `key`, returning its value.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        let pos = self.entries.iter().position(|(k, _)| k == key)?;
        Some(self.entries.remove(pos).1)
    }

    /// Members in order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    /// Mutable members in order.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&String, &mut Value)> {
        self.entries.iter_mut().map(|(k, v)| (&*k, v))
    }

    /// Keys in order.
    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.entries.iter().map(|(k, _)| k)
    }

    /// Appends a member whose key the caller knows is not present yet (used by the parser,
    /// which keeps its own key index for large objects to stay linear).
    pub(crate) fn push_new(&mut self, key: String, value: Value) {
        self.entries.push((key, value));
    }

    /// Mutable access to the value of the member at `index`.
    pub(crate) fn value_at_mut(&mut self, index: usize) -> Option<&mut Value> {
        self.entries.get_mut(index).map(|(_, v)| v)
    }
}

impl FromIterator<(String, Value)> for Map {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(iter: I) -> Self {
        let mut map = Map::new();
        for (k, v) in iter {
            map.insert(k, v);
        }
        map
    }
}

impl Value {
    /// A string value.
    pub fn str(s: impl Into<String>) -> Self {
        Value::Str(s.into())
    }

    /// A small integer value.
    pub fn int(i: i64) -> Self {
        Value::Int(PyInt::Small(i))
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The object, if this is one.
    pub fn as_object(&self) -> Option<&Map> {
        match self {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }

    /// The mutable object, if this is one.
    pub fn as_object_mut(&mut self) -> Option<&mut Map> {
        match self {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }

    /// The array, if this is one.
    pub fn as_array(&self) -> Option<&Vec<Value>> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The mutable array, if this is one.
    pub fn as_array_mut(&mut self) -> Option<&mut Vec<Value>> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The integer as `i64`, if this is a small integer (bools are not integers here).
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Int(PyInt::Small(i)) => Some(*i),
            _ => None,
        }
    }

    /// `obj[key]` for objects; `None` otherwise.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.as_object().and_then(|m| m.get(key))
    }

    /// True for `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// The Python type name (`type(x).__name__`), used in messages and type identity.
    pub fn py_type_name(&self) -> &'static str {
        match self {
            Value::Null => "NoneType",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "str",
            Value::Array(_) => "list",
            Value::Object(_) => "dict",
            Value::Raw(raw) if raw.is_object() => "dict",
            Value::Raw(_) => "list",
        }
    }
}

/// A JSON array or object kept as its source text (see the module docs).
///
/// Only [`loads_deferring`](super::loads_deferring) makes one, from text that parses; it
/// stands for the value that text parses to ([`RawJson::value`]).
#[derive(Debug, Clone, PartialEq)]
pub struct RawJson {
    text: Box<str>,
    /// The text is `dumps(value, Escape::Utf8)` up to `\uXXXX` escapes of non-ASCII
    /// characters, so escaping its non-ASCII characters gives the ASCII form.
    pub(crate) canonical: bool,
}

impl RawJson {
    pub(crate) fn new(text: &str, canonical: bool) -> Self {
        Self {
            text: text.into(),
            canonical,
        }
    }

    /// The source text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// True when the text is an object (else it is an array).
    pub fn is_object(&self) -> bool {
        self.text.starts_with('{')
    }
}
