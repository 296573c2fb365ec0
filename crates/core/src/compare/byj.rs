//! `ByJ`: values indexed by j = 1..=k, written as a JSON object `{"1": x, "2": y, …}` in
//! numeric key order.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Values for j = 1..=k (`0[j - 1]` is the value for j).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ByJ<T>(pub Vec<T>);

impl<T> ByJ<T> {
    /// The value for `j` (1-based).
    pub fn get(&self, j: usize) -> Option<&T> {
        j.checked_sub(1).and_then(|i| self.0.get(i))
    }

    /// k, the largest j.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True when there is no j.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<T: Serialize> Serialize for ByJ<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (i, v) in self.0.iter().enumerate() {
            map.serialize_entry(&(i + 1).to_string(), v)?;
        }
        map.end()
    }
}

struct ByJVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for ByJVisitor<T> {
    type Value = ByJ<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object with keys \"1\" to \"k\"")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
        let mut entries: Vec<(usize, T)> = Vec::new();
        while let Some((key, value)) = access.next_entry::<String, T>()? {
            let j: usize = key
                .parse()
                .map_err(|_| serde::de::Error::custom(format!("key {key:?} is not a number")))?;
            if j == 0 || j > super::runs::MAX_TRIALS {
                return Err(serde::de::Error::custom(format!("key {j} is out of range")));
            }
            entries.push((j, value));
        }
        entries.sort_by_key(|(j, _)| *j);
        let mut out = Vec::with_capacity(entries.len());
        for (expected, (j, value)) in (1..).zip(entries) {
            if j != expected {
                return Err(serde::de::Error::custom(format!(
                    "keys must be 1 to k without gaps or repeats (found {j} where {expected} was expected)"
                )));
            }
            out.push(value);
        }
        Ok(ByJ(out))
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for ByJ<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(ByJVisitor(PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numeric_key_order_and_strict_keys() {
        let v: ByJ<u32> = ByJ((1..=11).collect());
        let text = serde_json::to_string(&v).unwrap_or_default();
        assert!(text.starts_with("{\"1\":1,\"2\":2,"), "{text}");
        assert!(text.ends_with("\"10\":10,\"11\":11}"), "{text}");
        let back: ByJ<u32> = serde_json::from_str(&text).unwrap_or_default();
        assert_eq!(back, v);
        let shuffled: ByJ<u32> = serde_json::from_str(r#"{"2": 5, "1": 4}"#).unwrap_or_default();
        assert_eq!(shuffled.0, vec![4, 5]);
        assert!(serde_json::from_str::<ByJ<u32>>(r#"{"1": 1, "3": 3}"#).is_err());
        assert!(serde_json::from_str::<ByJ<u32>>(r#"{"0": 1}"#).is_err());
        assert!(serde_json::from_str::<ByJ<u32>>(r#"{"x": 1}"#).is_err());
        assert!(serde_json::from_str::<ByJ<u32>>(r#"{"1": 1, "1": 2}"#).is_err());
        assert_eq!(v.get(11), Some(&11));
        assert_eq!(v.get(0), None);
    }
}
