//! JSON kept in the order its members arrived, which decides which error a decoder meets
//! first (`serde_json::Value` sorts object keys).

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// A JSON number as serde_json reads it: an integer when it has no fraction or exponent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Num {
    /// A non-negative integer.
    U(u64),
    /// A negative integer.
    I(i64),
    F(f64),
}

impl Num {
    pub fn as_f64(self) -> f64 {
        match self {
            Num::U(n) => n as f64,
            Num::I(n) => n as f64,
            Num::F(n) => n,
        }
    }

    /// The value as an `i64`, when serde would read it as one.
    pub fn as_i64(self) -> Option<i64> {
        match self {
            Num::U(n) => i64::try_from(n).ok(),
            Num::I(n) => Some(n),
            Num::F(_) => None,
        }
    }
}

/// One JSON value; objects keep their members in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Null,
    Bool(bool),
    Num(Num),
    Str(String),
    Arr(Vec<Node>),
    Obj(Vec<(String, Node)>),
}

impl Node {
    /// Parses `json` keeping member order; `Err` is serde_json's own error.
    pub fn parse(json: &str) -> Result<Node, serde_json::Error> {
        serde_json::from_str(json)
    }

    /// The node of a parsed `Value` (members in the `Value`'s key order).
    pub fn of(value: &Value) -> Node {
        match value {
            Value::Null => Node::Null,
            Value::Bool(b) => Node::Bool(*b),
            Value::Number(n) => Node::Num(if let Some(u) = n.as_u64() {
                Num::U(u)
            } else if let Some(i) = n.as_i64() {
                Num::I(i)
            } else {
                Num::F(n.as_f64().unwrap_or_default())
            }),
            Value::String(s) => Node::Str(s.clone()),
            Value::Array(items) => Node::Arr(items.iter().map(Node::of).collect()),
            Value::Object(map) => {
                Node::Obj(map.iter().map(|(k, v)| (k.clone(), Node::of(v))).collect())
            }
        }
    }

    /// The node as a `Value` (what a rule that compares whole values reads).
    pub fn to_value(&self) -> Value {
        match self {
            Node::Null => Value::Null,
            Node::Bool(b) => Value::Bool(*b),
            Node::Num(Num::U(n)) => (*n).into(),
            Node::Num(Num::I(n)) => (*n).into(),
            Node::Num(Num::F(n)) => {
                serde_json::Number::from_f64(*n).map_or(Value::Null, Value::Number)
            }
            Node::Str(s) => Value::String(s.clone()),
            Node::Arr(items) => Value::Array(items.iter().map(Node::to_value).collect()),
            Node::Obj(members) => Value::Object(
                members
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_value()))
                    .collect(),
            ),
        }
    }

    /// How serde names the value in an "invalid type" message.
    pub fn unexpected(&self) -> String {
        match self {
            Node::Null => "null".into(),
            Node::Bool(b) => format!("boolean `{b}`"),
            Node::Num(Num::U(n)) => format!("integer `{n}`"),
            Node::Num(Num::I(n)) => format!("integer `{n}`"),
            Node::Num(Num::F(n)) => format!("floating point `{n}`"),
            Node::Str(s) => format!("string {s:?}"),
            Node::Arr(_) => "sequence".into(),
            Node::Obj(_) => "map".into(),
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Node::Str(s) => Some(s),
            _ => None,
        }
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Node, D::Error> {
        d.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Node, E> {
        Ok(Node::Bool(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Node, E> {
        Ok(Node::Num(Num::U(v)))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Node, E> {
        Ok(Node::Num(if v >= 0 { Num::U(v as u64) } else { Num::I(v) }))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Node, E> {
        Ok(Node::Num(Num::F(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Node, E> {
        Ok(Node::Str(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Node, E> {
        Ok(Node::Str(v))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Node::Arr(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut members = Vec::new();
        while let Some((k, v)) = map.next_entry::<String, Node>()? {
            members.push((k, v));
        }
        Ok(Node::Obj(members))
    }
}
