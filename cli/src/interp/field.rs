//! Field paths of the machines read from a decoded message's JSON, giving the runtime's
//! `machine::Field` the generated checker's typed reads give: the same resolution rules as
//! the generator's machine analysis (an absent optional member or a `null` on the way is
//! absent, a `null` leaf of a nullable type is null, a union reads as its kind).

use std::borrow::Cow;

use agentwire_codegen::ir::{Ty, TypeKind};
use agentwire_runtime::machine::Field;
use serde_json::Value;

use super::node::Node;
use super::types::Types;

/// A field read, owning what `Field` borrows (a list of strings).
#[derive(Debug, Clone, PartialEq)]
pub enum Read<'a> {
    Absent,
    Null,
    Str(Cow<'a, str>),
    Bool(bool),
    Int(i64),
    Num(f64),
    Strs(Vec<String>),
    Present,
}

impl<'a> Read<'a> {
    /// The read of a field the runtime already gives (a request id).
    pub fn of(f: Field<'a>) -> Read<'a> {
        match f {
            Field::Absent => Read::Absent,
            Field::Null => Read::Null,
            Field::Str(s) => Read::Str(Cow::Borrowed(s)),
            Field::Bool(b) => Read::Bool(b),
            Field::Int(n) => Read::Int(n),
            Field::Num(n) => Read::Num(n),
            Field::Strs(v) => Read::Strs(v.to_vec()),
            Field::Present => Read::Present,
        }
    }

    pub fn field(&self) -> Field<'_> {
        match self {
            Read::Absent => Field::Absent,
            Read::Null => Field::Null,
            Read::Str(s) => Field::Str(s),
            Read::Bool(b) => Field::Bool(*b),
            Read::Int(n) => Field::Int(*n),
            Read::Num(n) => Field::Num(*n),
            Read::Strs(v) => Field::Strs(v),
            Read::Present => Field::Present,
        }
    }
}

impl Types {
    /// Reads the dotted `path` from `value`, a value of type `ty`.
    pub fn read<'a>(&self, ty: &Ty, value: &'a Value, path: &[&str]) -> Read<'a> {
        let Some((seg, tail)) = path.split_first() else {
            return self.leaf(ty, value);
        };
        match ty {
            Ty::Nullable(_) if value.is_null() => Read::Absent,
            Ty::Nullable(inner) => self.read(inner, value, path),
            Ty::Named(name) => match self.def(name).map(|d| &d.kind) {
                Some(TypeKind::Struct(fields)) => {
                    let Some(f) = fields.iter().find(|f| f.name == *seg) else {
                        return Read::Absent;
                    };
                    match value.get(*seg) {
                        Some(v) => self.read(&f.ty, v, tail),
                        None => Read::Absent,
                    }
                }
                Some(TypeKind::Union { tag, variants }) => {
                    let kind = self.union_kind(tag, variants, value);
                    if seg == tag && tail.is_empty() {
                        return kind.map_or(Read::Absent, |k| Read::Str(Cow::Owned(k.to_owned())));
                    }
                    match variants.iter().find(|v| Some(v.value.as_str()) == kind) {
                        Some(v) => self.read(&Ty::Named(v.type_name.clone()), value, path),
                        None => Read::Absent,
                    }
                }
                Some(TypeKind::Alias { target, .. }) => self.read(target, value, path),
                _ => Read::Absent,
            },
            _ => Read::Absent,
        }
    }

    /// The kind of a union value: its discriminator, or the default member's.
    fn union_kind<'a>(
        &'a self,
        tag: &str,
        variants: &'a [agentwire_codegen::ir::Variant],
        value: &'a Value,
    ) -> Option<&'a str> {
        match value.get(tag) {
            Some(Value::String(s)) => Some(s),
            Some(_) => None,
            None => variants
                .iter()
                .find(|v| v.default)
                .map(|v| v.value.as_str()),
        }
    }

    /// The whole value of type `ty` as a field.
    fn leaf<'a>(&self, ty: &Ty, value: &'a Value) -> Read<'a> {
        match ty {
            Ty::Nullable(_) if value.is_null() => Read::Null,
            Ty::Nullable(inner) => self.leaf(inner, value),
            Ty::String => value
                .as_str()
                .map_or(Read::Present, |s| Read::Str(Cow::Borrowed(s))),
            Ty::Bool => value.as_bool().map_or(Read::Present, Read::Bool),
            Ty::Integer => value.as_i64().map_or(Read::Present, Read::Int),
            Ty::Number => value.as_f64().map_or(Read::Present, Read::Num),
            Ty::BoolLiteral(b) => Read::Bool(*b),
            Ty::Array(inner) if **inner == Ty::String => Read::Strs(
                value
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|v| v.as_str().map(str::to_owned))
                            .collect()
                    })
                    .unwrap_or_default(),
            ),
            Ty::Any if value.is_null() => Read::Null,
            Ty::Named(name) => self.named_leaf(name, value),
            _ => Read::Present,
        }
    }

    fn named_leaf<'a>(&self, name: &str, value: &'a Value) -> Read<'a> {
        match self.def(name).map(|d| &d.kind) {
            Some(TypeKind::Enum(_)) => value
                .as_str()
                .map_or(Read::Present, |s| Read::Str(Cow::Borrowed(s))),
            Some(TypeKind::Union { tag, variants }) => self
                .union_kind(tag, variants, value)
                .map_or(Read::Present, |k| Read::Str(Cow::Owned(k.to_owned()))),
            // A union of primitives reads as the member that decoded, so `2` and `"2"` differ;
            // one with a named member is only present.
            Some(TypeKind::Untagged(members)) if members.iter().all(|t| t.named().is_none()) => {
                match self.untagged_member(members, &Node::of(value)) {
                    Some(ty) => self.leaf(ty, value),
                    None => Read::Present,
                }
            }
            Some(TypeKind::Alias { target, .. }) => self.leaf(target, value),
            _ => Read::Present,
        }
    }
}
