//! Protobuf messages read at run time as the generated pbjson code reads them (ProtoJSON,
//! `preserve_proto_field_names`), from the spec's descriptors; the value handed back is the
//! message as pbjson writes it (proto names, defaults left out, 64-bit integers as strings,
//! enums by name).
//!
//! Why not `prost_reflect::DynamicMessage::deserialize`: it reads ProtoJSON too, but not as the
//! generated code does, and the interpreter must give the generated code's verdict, pointer and
//! rule. Where they differ this module follows pbjson: `null` for a scalar, list or map field
//! is a type error (prost-reflect reads it as the default; pbjson only takes `null` for a
//! message, a proto3 `optional` field or a oneof case); a oneof case after another is refused
//! before its value is read (`duplicate field`), and so is a field given under both its proto
//! and JSON names; an unknown key is `unknown field` and an enum name outside the enum
//! `unknown variant` (prost-reflect's own wordings classify as neither); an enum number the
//! enum does not define is refused when read (prost-reflect keeps it). The leaves are pbjson's
//! own readers (`NumberDeserialize`, `BytesDeserialize`, the well-known types of
//! `pbjson_types`), so their errors are word for word the generated code's; prost-reflect
//! supplies the descriptors.

use std::fmt;

use pbjson::private::{BytesDeserialize, NumberDeserialize};
use prost_reflect::{EnumDescriptor, FieldDescriptor, Kind, MessageDescriptor};
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Unexpected, Visitor};
use serde_json::{Map, Value};

/// Reads one message of type `desc` (what `decode_checked_seed` runs).
#[derive(Clone, Copy)]
pub struct MessageSeed<'a>(pub &'a MessageDescriptor);

/// serde's wording of "expected" for a list of names (`unknown field`, `unknown variant`).
fn one_of(names: &[String], none: &str) -> String {
    match names {
        [] => none.to_owned(),
        [a] => format!("expected `{a}`"),
        [a, b] => format!("expected `{a}` or `{b}`"),
        _ => {
            let all: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
            format!("expected one of {}", all.join(", "))
        }
    }
}

/// Runs the `Deserialize` impl of `T` (a pbjson or pbjson-types reader) and writes the result
/// as its `Serialize` impl does.
fn through<'de, T, D>(d: D) -> Result<Value, D::Error>
where
    T: Deserialize<'de> + serde::Serialize,
    D: Deserializer<'de>,
{
    let v = T::deserialize(d)?;
    serde_json::to_value(&v).map_err(de::Error::custom)
}

/// A number through pbjson's `NumberDeserialize` (a JSON number or a decimal string), written
/// as a JSON number.
fn number<'de, T, D>(d: D) -> Result<Value, D::Error>
where
    T: std::str::FromStr + Deserialize<'de> + serde::Serialize,
    <T as std::str::FromStr>::Err: std::error::Error,
    D: Deserializer<'de>,
{
    let n = NumberDeserialize::<T>::deserialize(d)?.0;
    serde_json::to_value(n).map_err(de::Error::custom)
}

impl<'de> DeserializeSeed<'de> for MessageSeed<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        use pbjson_types as w;
        // The well-known types with a JSON form of their own: pbjson-types' readers.
        match self.0.full_name() {
            "google.protobuf.Timestamp" => through::<w::Timestamp, D>(d),
            "google.protobuf.Duration" => through::<w::Duration, D>(d),
            "google.protobuf.Struct" => through::<w::Struct, D>(d),
            "google.protobuf.Value" => through::<w::Value, D>(d),
            "google.protobuf.ListValue" => through::<w::ListValue, D>(d),
            "google.protobuf.BoolValue" => through::<w::BoolValue, D>(d),
            "google.protobuf.StringValue" => through::<w::StringValue, D>(d),
            "google.protobuf.BytesValue" => through::<w::BytesValue, D>(d),
            "google.protobuf.Int32Value" => through::<w::Int32Value, D>(d),
            "google.protobuf.UInt32Value" => through::<w::UInt32Value, D>(d),
            "google.protobuf.Int64Value" => through::<w::Int64Value, D>(d),
            "google.protobuf.UInt64Value" => through::<w::UInt64Value, D>(d),
            "google.protobuf.FloatValue" => through::<w::FloatValue, D>(d),
            "google.protobuf.DoubleValue" => through::<w::DoubleValue, D>(d),
            _ => d.deserialize_struct("", &[], MessageVisitor(self.0)),
        }
    }
}

struct MessageVisitor<'a>(&'a MessageDescriptor);

/// The JSON names pbjson accepts for a message's fields, in its order (the fields outside a
/// oneof, then the oneofs'), each proto name ahead of a JSON name that differs from it.
fn accepted_names(desc: &MessageDescriptor) -> Vec<String> {
    let (plain, cased): (Vec<FieldDescriptor>, Vec<FieldDescriptor>) =
        desc.fields().partition(|f| real_oneof(f).is_none());
    let mut out = Vec::new();
    for f in plain.iter().chain(&cased) {
        if f.name() != f.json_name() {
            out.push(f.name().to_owned());
        }
        out.push(f.json_name().to_owned());
    }
    out
}

/// The oneof a field is a case of (not a proto3 `optional` field's synthetic one).
fn real_oneof(f: &FieldDescriptor) -> Option<prost_reflect::OneofDescriptor> {
    f.containing_oneof().filter(|o| !o.is_synthetic())
}

impl<'de> Visitor<'de> for MessageVisitor<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "struct {}", self.0.full_name())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let desc = self.0;
        let mut out = Map::new();
        // Which fields (or oneofs) hold a value: pbjson refuses a second one.
        let mut set: Vec<String> = Vec::new();
        while let Some(field) = map.next_key_seed(KeySeed(desc))? {
            let slot = match real_oneof(&field) {
                Some(o) => o.name().to_owned(),
                None => field.name().to_owned(),
            };
            if set.contains(&slot) {
                let message = format!("duplicate field `{}`", field.json_name());
                return Err(de::Error::custom(message));
            }
            let value = map.next_value_seed(FieldSeed(&field))?;
            if let Some(v) = value {
                set.push(slot);
                if let Some(v) = written(&field, v) {
                    out.insert(field.name().to_owned(), v);
                }
            }
        }
        // A proto2 `required` field that is absent: pbjson's `missing_field`, the first in
        // declaration order, as its generated reader checks them when it builds the message.
        let missing = desc.fields().find(|f| {
            f.cardinality() == prost_reflect::Cardinality::Required
                && !set.iter().any(|s| s == f.name())
        });
        if let Some(f) = missing {
            return Err(de::Error::custom(format_args!(
                "missing field `{}`",
                f.json_name()
            )));
        }
        Ok(Value::Object(out))
    }
}

/// The value pbjson writes for a field holding `v`: `None` for a default it leaves out (every
/// field with implicit presence; a oneof case or an `optional` field is written as set).
fn written(field: &FieldDescriptor, v: Value) -> Option<Value> {
    let explicit = field.supports_presence();
    let default = match &v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => {
            s.is_empty() || (s == "0" && is_64_bit(&field.kind())) || enum_zero(field, s)
        }
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty() && field.is_map(),
    };
    (explicit || !default).then_some(v)
}

fn is_64_bit(kind: &Kind) -> bool {
    matches!(
        kind,
        Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 | Kind::Uint64 | Kind::Fixed64
    )
}

/// Whether `s` names the enum value numbered 0 of an enum field (its default).
fn enum_zero(field: &FieldDescriptor, s: &str) -> bool {
    match field.kind() {
        Kind::Enum(e) if !field.is_list() && !field.is_map() => {
            e.get_value(0).is_some_and(|v| v.name() == s)
        }
        _ => false,
    }
}

/// A key of a message: the field it names, or pbjson's `unknown field` (raised while the key
/// is read, so the error's path names the key).
struct KeySeed<'a>(&'a MessageDescriptor);

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = FieldDescriptor;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<FieldDescriptor, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl Visitor<'_> for KeySeed<'_> {
    type Value = FieldDescriptor;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "expected one of: {:?}", accepted_names(self.0))
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<FieldDescriptor, E> {
        let found = self
            .0
            .fields()
            .find(|f| f.json_name() == key || f.name() == key);
        found.ok_or_else(|| {
            let expected = one_of(&accepted_names(self.0), "there are no fields");
            E::custom(format!("unknown field `{key}`, {expected}"))
        })
    }
}

/// One field's value: `None` when it reads as unset (`null` where pbjson takes an `Option`).
struct FieldSeed<'a>(&'a FieldDescriptor);

impl<'de> DeserializeSeed<'de> for FieldSeed<'_> {
    type Value = Option<Value>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<Value>, D::Error> {
        let f = self.0;
        let kind = f.kind();
        if f.is_map() {
            return MapSeed(&kind).deserialize(d).map(Some);
        }
        if f.is_list() {
            return d.deserialize_seq(ListVisitor(&kind)).map(Some);
        }
        // pbjson reads a message, a oneof case and a proto3 (or proto2) `optional` field
        // through an `Option` (`null` leaves it unset); every other field, a proto2
        // `required` scalar among them, through its bare type.
        let required = f.cardinality() == prost_reflect::Cardinality::Required;
        let optional = matches!(kind, Kind::Message(_)) || (f.supports_presence() && !required);
        let leaf = LeafSeed(&kind);
        if optional {
            d.deserialize_option(OptionVisitor(leaf))
        } else {
            leaf.deserialize(d).map(Some)
        }
    }
}

/// A value of one kind, as pbjson reads a field, list item or map value of that kind.
#[derive(Clone, Copy)]
struct LeafSeed<'a>(&'a Kind);

impl<'de> DeserializeSeed<'de> for LeafSeed<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        match self.0 {
            Kind::Double => number::<f64, D>(d),
            Kind::Float => number::<f32, D>(d),
            Kind::Int32 | Kind::Sint32 | Kind::Sfixed32 => number::<i32, D>(d),
            Kind::Uint32 | Kind::Fixed32 => number::<u32, D>(d),
            // 64-bit integers are written as strings.
            Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 => {
                let n = NumberDeserialize::<i64>::deserialize(d)?.0;
                Ok(Value::String(n.to_string()))
            }
            Kind::Uint64 | Kind::Fixed64 => {
                let n = NumberDeserialize::<u64>::deserialize(d)?.0;
                Ok(Value::String(n.to_string()))
            }
            Kind::Bool => through::<bool, D>(d),
            Kind::String => through::<String, D>(d),
            Kind::Bytes => {
                use pbjson::private::base64::Engine;
                let bytes = BytesDeserialize::<Vec<u8>>::deserialize(d)?.0;
                let text = pbjson::private::base64::engine::general_purpose::STANDARD.encode(bytes);
                Ok(Value::String(text))
            }
            Kind::Message(m) => MessageSeed(m).deserialize(d),
            Kind::Enum(e) if e.full_name() == "google.protobuf.NullValue" => {
                pbjson_types::NullValue::deserialize(d)?;
                Ok(Value::Null)
            }
            Kind::Enum(e) => d.deserialize_any(EnumVisitor(e)),
        }
    }
}

struct OptionVisitor<'a>(LeafSeed<'a>);

impl<'de> Visitor<'de> for OptionVisitor<'_> {
    type Value = Option<Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("option")
    }
    fn visit_none<E: de::Error>(self) -> Result<Option<Value>, E> {
        Ok(None)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Option<Value>, E> {
        Ok(None)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Option<Value>, D::Error> {
        self.0.deserialize(d).map(Some)
    }
}

/// A repeated field: a `Vec` of its kind.
struct ListVisitor<'a>(&'a Kind);

impl<'de> Visitor<'de> for ListVisitor<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sequence")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = seq.next_element_seed(LeafSeed(self.0))? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }
}

/// A map field (its kind is the map entry message): a `BTreeMap` of the key and value kinds.
struct MapSeed<'a>(&'a Kind);

impl<'de> DeserializeSeed<'de> for MapSeed<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for MapSeed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let Kind::Message(entry) = self.0 else {
            return Err(de::Error::custom("a map field without an entry message"));
        };
        let key_kind = entry.map_entry_key_field().kind();
        let value_kind = entry.map_entry_value_field().kind();
        let mut out = Map::new();
        while let Some(key) = map.next_key_seed(MapKeySeed(&key_kind))? {
            let value = map.next_value_seed(LeafSeed(&value_kind))?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

/// A map key, read as pbjson reads it (numbers through `NumberDeserialize`) and written back
/// as the string proto3 JSON keys are.
struct MapKeySeed<'a>(&'a Kind);

impl<'de> DeserializeSeed<'de> for MapKeySeed<'_> {
    type Value = String;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<String, D::Error> {
        Ok(match self.0 {
            Kind::Int32 | Kind::Sint32 | Kind::Sfixed32 => {
                NumberDeserialize::<i32>::deserialize(d)?.0.to_string()
            }
            Kind::Uint32 | Kind::Fixed32 => NumberDeserialize::<u32>::deserialize(d)?.0.to_string(),
            Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 => {
                NumberDeserialize::<i64>::deserialize(d)?.0.to_string()
            }
            Kind::Uint64 | Kind::Fixed64 => NumberDeserialize::<u64>::deserialize(d)?.0.to_string(),
            Kind::Bool => bool::deserialize(d)?.to_string(),
            _ => String::deserialize(d)?,
        })
    }
}

/// An enum as pbjson reads one: a value's name, or a number the enum defines.
struct EnumVisitor<'a>(&'a EnumDescriptor);

impl EnumVisitor<'_> {
    fn names(&self) -> Vec<String> {
        self.0.values().map(|v| v.name().to_owned()).collect()
    }

    fn number<E: de::Error>(self, n: Option<i32>, unexpected: Unexpected<'_>) -> Result<Value, E> {
        match n.and_then(|n| self.0.get_value(n)) {
            Some(v) => Ok(Value::String(v.name().to_owned())),
            None => Err(E::invalid_value(unexpected, &self)),
        }
    }
}

impl Visitor<'_> for EnumVisitor<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "expected one of: {:?}", self.names())
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        self.number(i32::try_from(v).ok(), Unexpected::Signed(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        self.number(i32::try_from(v).ok(), Unexpected::Unsigned(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        match self.0.get_value_by_name(v) {
            Some(value) => Ok(Value::String(value.name().to_owned())),
            None => {
                let expected = one_of(&self.names(), "there are no variants");
                Err(E::custom(format!("unknown variant `{v}`, {expected}")))
            }
        }
    }
}
