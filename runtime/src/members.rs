//! The members an open object carries beyond its declared fields (an index signature beside
//! properties, a JSON Schema `additionalProperties` that is not `false`), kept in the order
//! they arrived so a decode -> encode round trip writes them back unchanged.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Extra members of an open object, in arrival order. Generated structs hold one as a
/// `#[serde(flatten)]` field, so its entries are written beside the declared fields.
#[derive(Debug, Clone, PartialEq)]
pub struct Members<T> {
    entries: Vec<(String, T)>,
}

impl<T> Default for Members<T> {
    fn default() -> Self {
        Self {
            entries: Vec::new(),
        }
    }
}

impl<T> Members<T> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a member, or replaces the value of one of the same name in place.
    pub fn insert(&mut self, key: impl Into<String>, value: T) -> Option<T> {
        let key = key.into();
        match self.entries.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => Some(std::mem::replace(v, value)),
            None => {
                self.entries.push((key, value));
                None
            }
        }
    }

    pub fn get(&self, key: &str) -> Option<&T> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub fn remove(&mut self, key: &str) -> Option<T> {
        let i = self.entries.iter().position(|(k, _)| k == key)?;
        Some(self.entries.remove(i).1)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The members in arrival order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &T)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// Appends a member read by a generated decoder; the decoder has already refused a key
    /// given twice.
    #[doc(hidden)]
    pub fn push_read(&mut self, key: String, value: T) {
        self.entries.push((key, value));
    }
}

impl<T> FromIterator<(String, T)> for Members<T> {
    fn from_iter<I: IntoIterator<Item = (String, T)>>(iter: I) -> Self {
        let mut m = Self::new();
        for (k, v) in iter {
            m.insert(k, v);
        }
        m
    }
}

type Entry<'a, T> = (&'a String, &'a T);

impl<'a, T> IntoIterator for &'a Members<T> {
    type Item = Entry<'a, T>;
    type IntoIter =
        std::iter::Map<std::slice::Iter<'a, (String, T)>, fn(&'a (String, T)) -> Entry<'a, T>>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter().map(|(k, v)| (k, v))
    }
}

impl<T: Serialize> Serialize for Members<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.entries.len()))?;
        for (k, v) in &self.entries {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Members<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct MembersVisitor<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for MembersVisitor<T> {
            type Value = Members<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members<T>, A::Error> {
                let mut out = Members::new();
                while let Some(key) = map.next_key::<String>()? {
                    if out.get(&key).is_some() {
                        return Err(serde::de::Error::custom(format_args!(
                            "duplicate field `{key}`"
                        )));
                    }
                    let value = map.next_value()?;
                    out.entries.push((key, value));
                }
                Ok(out)
            }
        }
        d.deserialize_map(MembersVisitor(PhantomData))
    }
}

#[cfg(feature = "schemars")]
impl<T: schemars::JsonSchema> schemars::JsonSchema for Members<T> {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> std::borrow::Cow<'static, str> {
        format!("Members_{}", T::schema_name()).into()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let values = generator.subschema_for::<T>();
        schemars::json_schema!({ "type": "object", "additionalProperties": values })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_arrival_order_and_refuses_a_key_twice() {
        let m: Members<serde_json::Value> =
            serde_json::from_str(r#"{"z": 1, "a": {"b": [2]}, "m": null}"#).unwrap();
        let keys: Vec<&str> = m.iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["z", "a", "m"]);
        assert_eq!(
            serde_json::to_string(&m).unwrap(),
            r#"{"z":1,"a":{"b":[2]},"m":null}"#
        );
        assert!(serde_json::from_str::<Members<u8>>(r#"{"a": 1, "a": 2}"#).is_err());
        let mut m: Members<u8> = [("x".to_owned(), 1)].into_iter().collect();
        assert_eq!(m.insert("x", 2), Some(1));
        assert_eq!(m.remove("x"), Some(2));
        assert!(m.is_empty());
    }
}
