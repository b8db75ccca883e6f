//! A YAML value kept whole, with the location of every node, for a part of `protocol.yaml`
//! whose shape the reader does not know: a carrier's declaration under `transport:` is read
//! by the plug-in registered for its key, long after the file was parsed. [`Node::parse`]
//! reads a node into any `Deserialize` type as if it came from the file itself: its
//! `serde_saphyr::Spanned` fields get the file's locations, and a value that does not fit
//! is reported at the node it is about.

use std::fmt;

use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, IntoDeserializer, Visitor};
use serde_saphyr::{Location, Spanned};

/// One YAML node and where it is written.
pub type Node = Spanned<Value>;

/// A YAML value whose children are [`Node`]s.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    /// Entries in the order written.
    Map(Vec<(Node, Node)>),
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Value::deserialize(d)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Int(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::UInt(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Float(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::Str(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::Str(v))
    }
    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Node>()? {
            items.push(item);
        }
        Ok(Value::Seq(items))
    }
    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<Node>()? {
            entries.push((key, map.next_value::<Node>()?));
        }
        Ok(Value::Map(entries))
    }
}

/// Why a node did not fit the type it was read into, and where.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeError {
    /// The innermost node the failure is about.
    pub at: Option<Location>,
    pub message: String,
}

impl NodeError {
    /// Places the error at `at` unless a node inside already did.
    fn within(mut self, at: Location) -> Self {
        self.at.get_or_insert(at);
        self
    }
}

impl fmt::Display for NodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for NodeError {}

impl de::Error for NodeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        NodeError {
            at: None,
            message: msg.to_string(),
        }
    }
}

/// `Spanned<T>` asks its deserializer for a newtype struct of this name (serde-saphyr's
/// convention); [`NodeDe`] answers it with the node's value and locations.
const SPANNED: &str = "__yaml_spanned";
/// The key serde-saphyr's `Spanned` expects first in the map it is given.
const SPANNED_MARKER: &str = "__serde_saphyr_private_spanned";

/// Reads a node.
pub trait Parse {
    /// `self` read as a `T`, or why it is not one.
    fn parse<T: de::DeserializeOwned>(&self) -> Result<T, NodeError>;
}

impl Parse for Node {
    fn parse<T: de::DeserializeOwned>(&self) -> Result<T, NodeError> {
        T::deserialize(NodeDe(self))
    }
}

/// A deserializer over one node.
struct NodeDe<'a>(&'a Node);

impl<'de> Deserializer<'de> for NodeDe<'_> {
    type Error = NodeError;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, NodeError> {
        let at = self.0.referenced;
        let out = match &self.0.value {
            Value::Null => v.visit_unit(),
            Value::Bool(b) => v.visit_bool(*b),
            Value::Int(i) => v.visit_i64(*i),
            Value::UInt(u) => v.visit_u64(*u),
            Value::Float(x) => v.visit_f64(*x),
            Value::Str(s) => v.visit_str(s),
            Value::Seq(items) => {
                v.visit_seq(de::value::SeqDeserializer::new(items.iter().map(NodeDe)))
            }
            Value::Map(entries) => v.visit_map(de::value::MapDeserializer::new(
                entries.iter().map(|(k, v)| (NodeDe(k), NodeDe(v))),
            )),
        };
        out.map_err(|e| e.within(at))
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, NodeError> {
        match self.0.value {
            Value::Null => v.visit_none(),
            _ => v.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        v: V,
    ) -> Result<V::Value, NodeError> {
        let at = self.0.referenced;
        let out = if name == SPANNED {
            v.visit_newtype_struct(SpannedDe(self.0))
        } else {
            v.visit_newtype_struct(self)
        };
        out.map_err(|e| e.within(at))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, NodeError> {
        let at = self.0.referenced;
        match &self.0.value {
            Value::Str(s) => v.visit_enum(s.as_str().into_deserializer()),
            _ => Err(de::Error::custom("expected the name of a variant")),
        }
        .map_err(|e: NodeError| e.within(at))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

impl<'de> IntoDeserializer<'de, NodeError> for NodeDe<'_> {
    type Deserializer = Self;
    fn into_deserializer(self) -> Self {
        self
    }
}

/// What `Spanned<T>` reads: the marker, then the value and its two locations.
struct SpannedDe<'a>(&'a Node);

impl<'de> Deserializer<'de> for SpannedDe<'_> {
    type Error = NodeError;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, NodeError> {
        v.visit_map(SpannedMap {
            node: self.0,
            next: 0,
        })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

struct SpannedMap<'a> {
    node: &'a Node,
    next: usize,
}

const SPANNED_KEYS: [&str; 4] = [SPANNED_MARKER, "value", "referenced", "defined"];

impl<'de> de::MapAccess<'de> for SpannedMap<'_> {
    type Error = NodeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, NodeError> {
        let Some(key) = SPANNED_KEYS.get(self.next) else {
            return Ok(None);
        };
        seed.deserialize((*key).into_deserializer()).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, NodeError> {
        self.next += 1;
        match self.next {
            1 => seed.deserialize(().into_deserializer()),
            2 => seed.deserialize(NodeDe(self.node)),
            3 => seed.deserialize(location(&self.node.referenced)),
            _ => seed.deserialize(location(&self.node.defined)),
        }
        .map_err(|e| e.within(self.node.referenced))
    }
}

/// A location as the map `Location`'s own `Deserialize` reads (its only constructor).
fn location(at: &Location) -> LocationDe {
    let span = at.span();
    let unknown = u64::from(u32::MAX);
    LocationDe(serde_json::json!({
        "line": at.line(),
        "column": at.column(),
        "span": {
            "offset": span.offset(),
            "len": span.len(),
            "byte_info": [
                span.byte_offset().unwrap_or(unknown),
                span.byte_len().unwrap_or(unknown),
            ],
        },
    }))
}

struct LocationDe(serde_json::Value);

impl<'de> Deserializer<'de> for LocationDe {
    type Error = NodeError;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, NodeError> {
        self.0.deserialize_any(v).map_err(de::Error::custom)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Shape {
        name: Spanned<String>,
        sizes: Spanned<Vec<u16>>,
        #[serde(default)]
        note: Option<Spanned<String>>,
    }

    #[derive(Deserialize)]
    struct File {
        shape: Node,
    }

    fn node(text: &str) -> Node {
        serde_saphyr::from_str::<File>(text).unwrap().shape
    }

    #[test]
    fn a_kept_node_reads_as_if_from_the_file_with_its_locations() {
        let shape: Shape = node("shape:\n  name: box\n  sizes: [1, 2]\n")
            .parse()
            .unwrap();
        assert_eq!(shape.name.value, "box");
        assert_eq!(shape.sizes.value, [1, 2]);
        assert!(shape.note.is_none());
        assert_eq!(
            (shape.name.referenced.line(), shape.name.referenced.column()),
            (2, 9)
        );
        assert_eq!(shape.sizes.referenced.line(), 3);
        assert!(shape.name.referenced.span().byte_offset().is_some());
    }

    #[test]
    fn what_does_not_fit_is_reported_at_the_innermost_node() {
        let err = node("shape:\n  name: box\n  sizes: [1, -2]\n")
            .parse::<Shape>()
            .unwrap_err();
        let at = err.at.unwrap();
        assert_eq!((at.line(), at.column()), (3, 14), "{err}");
        let err = node("shape:\n  name: box\n  sizes: []\n  colour: red\n")
            .parse::<Shape>()
            .unwrap_err();
        assert!(err.message.contains("unknown field `colour`"), "{err}");
        assert_eq!(err.at.unwrap().line(), 4);
        let err = node("shape:\n  name: box\n").parse::<Shape>().unwrap_err();
        assert!(err.message.contains("missing field `sizes`"), "{err}");
        assert_eq!(err.at.unwrap().line(), 2);
    }
}
