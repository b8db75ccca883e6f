//! A protobuf spec's types as the interpreter reads them: messages decoded from their
//! descriptors (`proto.rs`), the constraints the generated `Validate` impls check on prost's
//! structs (where a field left out holds its default), and the machines' field reads from a
//! decoded message, which read such a field as its default too.

use std::borrow::Cow;

use agentwire_codegen::ir::{Constraints, Field, Scalar, Ty, TypeKind};
use agentwire_codegen::rules::{Shape, Subject};
use agentwire_runtime::{FieldError, Invalid, JsonPointer, Rule};
use prost_reflect::{DescriptorPool, MessageDescriptor};
use serde_json::Value;

use super::field::Read;
use super::proto::MessageSeed;
use super::types::Types;

type Errors = Vec<FieldError>;

impl Types {
    /// Reads this protocol's messages from `pool` (a protobuf spec's compiled files).
    pub fn with_descriptors(mut self, pool: Option<DescriptorPool>) -> Types {
        self.pool = pool;
        self
    }

    pub fn is_proto(&self) -> bool {
        self.pool.is_some()
    }

    /// The descriptor of the message the IR names `name` (a local name below the spec's
    /// package, a full name elsewhere).
    pub fn message(&self, name: &str) -> Option<MessageDescriptor> {
        let pool = self.pool.as_ref()?;
        if !matches!(self.def(name)?.kind, TypeKind::Struct(_)) {
            return None;
        }
        let local = self
            .protocol
            .proto_package
            .as_deref()
            .filter(|p| !p.is_empty())
            .and_then(|p| pool.get_message_by_name(&format!("{p}.{name}")));
        local.or_else(|| pool.get_message_by_name(name))
    }

    /// Decodes `json` as the protobuf message `desc` (IR name `name`) and checks its
    /// constraints, as generated `decode_checked` does.
    pub fn decode_proto(
        &self,
        name: &str,
        desc: &MessageDescriptor,
        json: &str,
    ) -> Result<Value, Invalid> {
        agentwire_runtime::decode_checked_seed(
            json,
            || MessageSeed(desc),
            |value| {
                let mut errors = Vec::new();
                self.validate_proto(name, value, &mut JsonPointer::new(), &mut errors);
                errors
            },
        )
    }

    /// The constraints of message `name` on its decoded `value`, fields in declaration order.
    fn validate_proto(&self, name: &str, value: &Value, at: &mut JsonPointer, errors: &mut Errors) {
        let Some(TypeKind::Struct(fields)) = self.def(name).map(|d| &d.kind) else {
            return;
        };
        for f in fields {
            if let Some((cases, required)) = self.oneof(&f.ty) {
                match cases.iter().find(|c| value.get(&c.name).is_some()) {
                    Some(c) => at.with(&c.name, |at| {
                        self.validate_proto_value(
                            &c.ty,
                            &c.constraints,
                            &value[&c.name],
                            at,
                            errors,
                        )
                    }),
                    None if required => {
                        let names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
                        let message = format!(
                            "no `{}` case is set; expected one of: {}",
                            f.name,
                            names.join(", ")
                        );
                        errors.push(FieldError::new(at.as_str(), Rule::MissingKind, message));
                    }
                    None => {}
                }
                continue;
            }
            // `field_behavior REQUIRED` on a field of explicit presence: set, checked first.
            if f.must_be_set && value.get(&f.name).is_none() {
                let message = format!("`{}` must be set (field_behavior REQUIRED)", f.name);
                at.with(&f.name, |at| {
                    errors.push(FieldError::new(at.as_str(), Rule::Required, message))
                });
            }
            let Some(v) = self.field_value(f, value) else {
                continue;
            };
            if let (Ty::Map(inner), true) = (&f.ty, self.integer_keys(name, &f.name)) {
                at.with(&f.name, |at| {
                    self.validate_integer_map(inner, &f.constraints, &v, at, errors)
                });
                continue;
            }
            at.with(&f.name, |at| {
                self.validate_proto_value(&f.ty, &f.constraints, &v, at, errors)
            });
        }
    }

    /// The cases of a oneof field's type, and whether one must be set.
    fn oneof(&self, ty: &Ty) -> Option<(&[Field], bool)> {
        match &self.def(ty.named()?)?.kind {
            TypeKind::Oneof { cases, required } => Some((cases, *required)),
            _ => None,
        }
    }

    /// What prost holds for field `f` of a decoded message: its value, or the default of a
    /// field with implicit presence that pbjson left out (`None`: unset).
    fn field_value<'v>(&self, f: &Field, message: &'v Value) -> Option<Cow<'v, Value>> {
        if let Some(v) = message.get(&f.name) {
            return Some(Cow::Borrowed(v));
        }
        f.defaulted.then(|| Cow::Owned(self.default_of(&f.ty)))
    }

    /// The default of a field of type `ty`, as pbjson writes it.
    fn default_of(&self, ty: &Ty) -> Value {
        match ty {
            Ty::String | Ty::Scalar(Scalar::Bytes) => Value::String(String::new()),
            Ty::Scalar(Scalar::Int64 | Scalar::Uint64) => Value::String("0".into()),
            Ty::Scalar(_) => Value::from(0),
            Ty::Bool => Value::Bool(false),
            Ty::Array(_) => Value::Array(Vec::new()),
            Ty::Map(_) => Value::Object(Default::default()),
            Ty::Named(n) => match self.def(n).map(|d| &d.kind) {
                Some(TypeKind::Enum(values)) => values
                    .first()
                    .map_or(Value::Null, |v| Value::String(v.clone())),
                _ => Value::Null,
            },
            _ => Value::Null,
        }
    }

    /// Whether field `field` of message `name` is a map with integer keys.
    fn integer_keys(&self, name: &str, field: &str) -> bool {
        let Some(f) = self.message(name).and_then(|m| m.get_field_by_name(field)) else {
            return false;
        };
        let key = match f.kind() {
            prost_reflect::Kind::Message(entry) if f.is_map() => entry.map_entry_key_field().kind(),
            _ => return false,
        };
        use prost_reflect::Kind::*;
        matches!(
            key,
            Int32
                | Sint32
                | Sfixed32
                | Uint32
                | Fixed32
                | Int64
                | Sint64
                | Sfixed64
                | Uint64
                | Fixed64
        )
    }

    /// A map with integer keys, its values walked in numeric key order: prost's `BTreeMap`
    /// of integers, which the generated validator walks (JSON keys are strings, whose order
    /// puts `10` before `9`).
    fn validate_integer_map(
        &self,
        inner: &Ty,
        c: &Constraints,
        v: &Value,
        at: &mut JsonPointer,
        errors: &mut Errors,
    ) {
        let element = c.without(Shape::List);
        let mut entries: Vec<(i128, &String, &Value)> = (v.as_object().into_iter().flatten())
            .filter_map(|(k, item)| Some((k.parse::<i128>().ok()?, k, item)))
            .collect();
        entries.sort_by_key(|(n, _, _)| *n);
        for (_, k, item) in entries {
            at.with(k, |at| {
                self.validate_proto_value(inner, &element, item, at, errors)
            });
        }
    }

    fn validate_proto_value(
        &self,
        ty: &Ty,
        c: &Constraints,
        v: &Value,
        at: &mut JsonPointer,
        errors: &mut Errors,
    ) {
        match ty {
            Ty::String => {
                if let Some(s) = v.as_str() {
                    self.rules(c, Shape::Text, Subject::Text(s), at, errors);
                }
            }
            Ty::Scalar(s) if s.is_number() => {
                // 64-bit integers are written as strings.
                let n = v
                    .as_f64()
                    .or_else(|| v.as_str().and_then(|s| s.parse::<f64>().ok()));
                if let Some(n) = n {
                    self.rules(c, Shape::Number, Subject::Number(n), at, errors);
                }
            }
            Ty::Array(inner) => {
                let items = v.as_array().map(Vec::as_slice).unwrap_or_default();
                if c.iter().any(|(r, _)| r.shape == Shape::List) {
                    self.rules(c, Shape::List, Subject::Items(items), at, errors);
                }
                let element = c.without(Shape::List);
                for (i, item) in items.iter().enumerate() {
                    at.with_index(i, |at| {
                        self.validate_proto_value(inner, &element, item, at, errors)
                    });
                }
            }
            Ty::Map(inner) => {
                let element = c.without(Shape::List);
                for (k, item) in v.as_object().into_iter().flatten() {
                    at.with(k, |at| {
                        self.validate_proto_value(inner, &element, item, at, errors)
                    });
                }
            }
            Ty::Named(n) if v.is_object() && self.message(n).is_some() => {
                self.validate_proto(n, v, at, errors);
            }
            _ => {}
        }
    }

    /// Reads the dotted `path` from `value`, a decoded message of type `name`: a field left
    /// out reads as its default where prost holds one, a oneof by its own name as the case
    /// that is set.
    pub fn read_proto<'a>(&self, name: &str, value: &'a Value, path: &[&str]) -> Read<'a> {
        let Some((seg, tail)) = path.split_first() else {
            return Read::Present;
        };
        let Some(TypeKind::Struct(fields)) = self.def(name).map(|d| &d.kind) else {
            return Read::Absent;
        };
        for f in fields {
            let Some((cases, _)) = self.oneof(&f.ty) else {
                continue;
            };
            if f.name == *seg {
                return match cases.iter().find(|c| value.get(&c.name).is_some()) {
                    Some(c) if tail.is_empty() => Read::Str(Cow::Owned(c.name.clone())),
                    _ => Read::Absent,
                };
            }
            if let Some(c) = cases.iter().find(|c| c.name == *seg) {
                return match value.get(&c.name) {
                    Some(v) => self.read_proto_leaf(&c.ty, Cow::Borrowed(v), tail),
                    None => Read::Absent,
                };
            }
        }
        match fields.iter().find(|f| f.name == *seg) {
            Some(f) => match self.field_value(f, value) {
                Some(v) => self.read_proto_leaf(&f.ty, v, tail),
                None => Read::Absent,
            },
            None => Read::Absent,
        }
    }

    fn read_proto_leaf<'a>(&self, ty: &Ty, v: Cow<'a, Value>, tail: &[&str]) -> Read<'a> {
        let message = ty.named().filter(|n| self.message(n).is_some());
        match (message, v) {
            (Some(n), Cow::Borrowed(v)) => self.read_proto(n, v, tail),
            (Some(_), Cow::Owned(_)) => Read::Absent,
            (None, _) if !tail.is_empty() => Read::Absent,
            (None, v) => leaf_of(ty, v),
        }
    }
}

/// A field's value as the generated checker's read of it (`Leaf::Str`, `Int`, `IntFrom`,
/// `ProtoEnum`, `Strs`, or only present).
fn leaf_of<'a>(ty: &Ty, v: Cow<'a, Value>) -> Read<'a> {
    let text = |v: Cow<'a, Value>| match v {
        Cow::Borrowed(Value::String(s)) => Some(Cow::Borrowed(s.as_str())),
        Cow::Owned(Value::String(s)) => Some(Cow::Owned(s)),
        _ => None,
    };
    match ty {
        Ty::String => text(v).map_or(Read::Present, Read::Str),
        Ty::Bool => v.as_bool().map_or(Read::Present, Read::Bool),
        Ty::Scalar(Scalar::Int32 | Scalar::Uint32) => v.as_i64().map_or(Read::Present, Read::Int),
        Ty::Scalar(Scalar::Int64) => v
            .as_str()
            .and_then(|s| s.parse().ok())
            .map_or(Read::Present, Read::Int),
        Ty::Array(inner) if **inner == Ty::String => Read::Strs(
            v.as_array()
                .into_iter()
                .flatten()
                .filter_map(|s| s.as_str().map(str::to_owned))
                .collect(),
        ),
        // An enum reads as its value's name (a number the enum lacks never decodes).
        Ty::Named(_) => match v.as_i64() {
            Some(n) => Read::Int(n),
            None => text(v).map_or(Read::Present, Read::Str),
        },
        _ => Read::Present,
    }
}
