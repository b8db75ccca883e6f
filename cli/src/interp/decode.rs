//! The decoding pass: reads a value as a type of the IR and stops at the first error, the one
//! the generated serde decoder meets first (members in input order, then the missing ones in
//! declaration order), with the same JSON pointer and rule.

use agentwire_codegen::ir::{Field, Ty, TypeKind, Variant};
use agentwire_runtime::{FieldError, JsonPointer, Rule};

use super::node::{Node, Num};
use super::types::Types;

type Step = Result<(), FieldError>;

/// Which serde deserializer the generated code reads a value with: its text reader, or a
/// `serde_json::Value` (members buffered ahead of a union's discriminator, and every decode
/// after the first while all errors are sought). They word a few errors differently, and
/// the wording decides whether a value can be repaired to look past it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Text,
    Value,
}

fn invalid_type(at: &JsonPointer, node: &Node, expected: &str) -> FieldError {
    let message = format!("invalid type: {}, expected {expected}", node.unexpected());
    FieldError::new(at.as_str(), Rule::Type, message)
}

/// serde's wording for a string outside an enum's values.
fn unknown_variant(at: &JsonPointer, got: &str, values: &[&str]) -> FieldError {
    let expected = match values {
        [] => "there are no variants".to_owned(),
        [one] => format!("expected `{one}`"),
        [a, b] => format!("expected `{a}` or `{b}`"),
        _ => {
            let all: Vec<String> = values.iter().map(|v| format!("`{v}`")).collect();
            format!("expected one of {}", all.join(", "))
        }
    };
    FieldError::new(
        at.as_str(),
        Rule::Enum,
        format!("unknown variant `{got}`, {expected}"),
    )
}

fn child(at: &JsonPointer, key: &str) -> String {
    let mut p = at.clone();
    p.with(key, |p| p.as_str().to_owned())
}

impl Types {
    /// The first decoding error of `node` read as `ty`.
    pub fn decode(&self, ty: &Ty, node: &Node, at: &mut JsonPointer, mode: Mode) -> Step {
        match (ty, node) {
            (Ty::Any, _) | (Ty::Nullable(_), Node::Null) => Ok(()),
            (Ty::Nullable(inner), _) => self.decode(inner, node, at, mode),
            (Ty::String, Node::Str(_)) | (Ty::Bool, Node::Bool(_)) | (Ty::Number, Node::Num(_)) => {
                Ok(())
            }
            (Ty::String, _) => Err(invalid_type(at, node, "a string")),
            (Ty::Bool, _) => Err(invalid_type(at, node, "a boolean")),
            (Ty::Number, _) => Err(invalid_type(at, node, "f64")),
            (Ty::Integer, Node::Num(n)) => match n {
                Num::F(_) => Err(invalid_type(at, node, "i64")),
                _ if n.as_i64().is_none() => Err(FieldError::new(
                    at.as_str(),
                    Rule::Type,
                    format!("invalid value: {}, expected i64", node.unexpected()),
                )),
                _ => Ok(()),
            },
            (Ty::Integer, _) => Err(invalid_type(at, node, "i64")),
            (Ty::BoolLiteral(want), Node::Bool(b)) if b == want => Ok(()),
            (Ty::BoolLiteral(want), Node::Bool(b)) => {
                Err(unknown_variant(at, &b.to_string(), &[&want.to_string()]))
            }
            (Ty::BoolLiteral(want), _) => {
                Err(invalid_type(at, node, &format!("the boolean {want}")))
            }
            (Ty::Array(inner), Node::Arr(items)) => {
                for (i, item) in items.iter().enumerate() {
                    at.with_index(i, |at| self.decode(inner, item, at, mode))?;
                }
                Ok(())
            }
            (Ty::Array(_), _) => Err(invalid_type(at, node, "a sequence")),
            (Ty::Map(inner), Node::Obj(members)) => {
                for (k, v) in members {
                    at.with(k, |at| self.decode(inner, v, at, mode))?;
                }
                Ok(())
            }
            (Ty::Map(_), _) => Err(invalid_type(at, node, "a map")),
            (Ty::Named(name), _) => self.decode_named(name, node, at, mode),
            (Ty::Scalar(_) | Ty::WellKnown(_), _) => Err(FieldError::new(
                at.as_str(),
                Rule::Type,
                "a protobuf type is read from its spec's compiled files (load the spec folder)",
            )),
        }
    }

    /// A value of the named type, decoded alone (a union member requires its discriminator).
    pub fn decode_named(&self, name: &str, node: &Node, at: &mut JsonPointer, mode: Mode) -> Step {
        let Some(def) = self.def(name) else {
            return Err(FieldError::new(
                at.as_str(),
                Rule::Type,
                format!("the spec has no type `{name}`"),
            ));
        };
        match &def.kind {
            TypeKind::Struct(fields) => match node {
                Node::Obj(members) => {
                    let members: Vec<&(String, Node)> = members.iter().collect();
                    self.decode_struct(name, fields, def.open.as_ref(), &members, true, at, mode)
                }
                _ => Err(invalid_type(at, node, &format!("a `{name}` object"))),
            },
            TypeKind::Enum(values) => enum_value(values, node, at, mode),
            TypeKind::Union { tag, variants } => self.decode_union(tag, variants, node, at, mode),
            TypeKind::Untagged(members) => match self.untagged_member(members, node) {
                Some(_) => Ok(()),
                None => Err(FieldError::new(
                    at.as_str(),
                    Rule::Type,
                    format!("data did not match any variant of untagged enum {name}"),
                )),
            },
            TypeKind::Alias { target, .. } => self.decode(target, node, at, mode),
            TypeKind::Oneof { .. } => Err(FieldError::new(
                at.as_str(),
                Rule::Type,
                "a protobuf oneof is read from its spec's compiled files (load the spec folder)",
            )),
        }
    }

    /// The member of an untagged union `node` reads as, as the generated reader picks it
    /// (`agentwire_runtime::untagged`): the first that decodes and whose rules hold, else the
    /// first that decodes. (Among valid members the generated reader prefers the one that
    /// keeps the most of the value; which valid one it is changes no verdict.)
    pub fn untagged_member<'t>(&self, members: &'t [Ty], node: &Node) -> Option<&'t Ty> {
        let decodes = |t: &&Ty| {
            self.decode(t, node, &mut JsonPointer::new(), Mode::Value)
                .is_ok()
        };
        let valid = |t: &&Ty| {
            let mut errors = Vec::new();
            let none = agentwire_codegen::ir::Constraints::default();
            self.validate(t, &none, node, &mut JsonPointer::new(), &mut errors);
            errors.is_empty()
        };
        (members.iter().find(|t| decodes(t) && valid(t))).or_else(|| members.iter().find(decodes))
    }

    /// The variant of a tagged union `members` (an object's) dispatch to, or the error.
    pub fn union_variant<'v>(
        &self,
        tag: &str,
        variants: &'v [Variant],
        members: &[(String, Node)],
        at: &JsonPointer,
    ) -> Result<&'v Variant, FieldError> {
        let Some((_, kind)) = members.iter().find(|(k, _)| k == tag) else {
            return variants.iter().find(|v| v.default).ok_or_else(|| {
                FieldError::new(
                    child(at, tag),
                    Rule::MissingKind,
                    format!("missing discriminator `{tag}`"),
                )
            });
        };
        let Node::Str(kind) = kind else {
            let mut at = at.clone();
            return Err(at.with(tag, |at| invalid_type(at, kind, "a string")));
        };
        variants.iter().find(|v| v.value == *kind).ok_or_else(|| {
            let all: Vec<String> = variants.iter().map(|v| format!("`{}`", v.value)).collect();
            FieldError::new(
                child(at, tag),
                Rule::UnknownKind,
                format!(
                    "unknown `{tag}` value `{kind}`, expected one of {}",
                    all.join(", ")
                ),
            )
        })
    }

    fn decode_union(
        &self,
        tag: &str,
        variants: &[Variant],
        node: &Node,
        at: &mut JsonPointer,
        mode: Mode,
    ) -> Step {
        let Node::Obj(members) = node else {
            let expected = format!("an object with a `{tag}` field");
            return Err(invalid_type(at, node, &expected));
        };
        // The members ahead of the discriminator are checked first, as the generated decoder
        // buffers them; the discriminator's own errors come when it is read.
        let position = members.iter().position(|(k, _)| k == tag);
        let variant = self.union_variant(tag, variants, members, at)?;
        // Those ahead of it went through a `Value` on their way.
        let rest: Vec<(Mode, &(String, Node))> = members
            .iter()
            .enumerate()
            .filter(|(i, _)| Some(*i) != position)
            .map(|(i, m)| {
                (
                    if position.is_some_and(|p| i < p) {
                        Mode::Value
                    } else {
                        mode
                    },
                    m,
                )
            })
            .collect();
        self.decode_member(tag, variant, &rest, at, mode)
    }

    /// A union member read from the object's members other than the discriminator.
    fn decode_member(
        &self,
        tag: &str,
        variant: &Variant,
        rest: &[(Mode, &(String, Node))],
        at: &mut JsonPointer,
        mode: Mode,
    ) -> Step {
        let name = &variant.type_name;
        let own = self
            .own_tag(name)
            .is_some_and(|(t, v)| t == tag && *v == variant.value);
        match self.def(name).map(|d| (&d.kind, d.open.as_ref())) {
            Some((TypeKind::Struct(fields), open)) if own => {
                let members: Vec<&(String, Node)> = rest.iter().map(|(_, m)| *m).collect();
                let modes: Vec<Mode> = rest.iter().map(|(m, _)| *m).collect();
                self.decode_struct_in(name, fields, open, &members, &modes, false, at)
            }
            _ => {
                let node = Node::Obj(rest.iter().map(|(_, m)| (*m).clone()).collect());
                self.decode_named(name, &node, at, mode)
            }
        }
    }

    /// A struct's members in order, then its discriminator (decoded alone) and its missing
    /// required fields in declaration order.
    #[allow(clippy::too_many_arguments)]
    fn decode_struct(
        &self,
        name: &str,
        fields: &[Field],
        open: Option<&Ty>,
        members: &[&(String, Node)],
        standalone: bool,
        at: &mut JsonPointer,
        mode: Mode,
    ) -> Step {
        let modes = vec![mode; members.len()];
        self.decode_struct_in(name, fields, open, members, &modes, standalone, at)
    }

    /// `decode_struct` with each member read in its own mode.
    #[allow(clippy::too_many_arguments)]
    fn decode_struct_in(
        &self,
        name: &str,
        fields: &[Field],
        open: Option<&Ty>,
        members: &[&(String, Node)],
        modes: &[Mode],
        standalone: bool,
        at: &mut JsonPointer,
    ) -> Step {
        let own = self.own_tag(name).filter(|_| standalone);
        let mut tag_seen = false;
        for ((key, value), mode) in members
            .iter()
            .map(|m| (&m.0, &m.1))
            .zip(modes.iter().copied())
        {
            if let Some(f) = fields.iter().find(|f| f.name == *key) {
                at.with(key, |at| self.decode(&f.ty, value, at, mode))?;
            } else if let Some((tag, want)) = own.filter(|(t, _)| t == key) {
                let Node::Str(kind) = value else {
                    return Err(at.with(key, |at| invalid_type(at, value, "a string")));
                };
                if kind != want {
                    return Err(FieldError::new(
                        child(at, tag),
                        Rule::UnknownKind,
                        format!("unknown `{tag}` value `{kind}`, expected one of `{want}`"),
                    ));
                }
                tag_seen = true;
            } else if let Some(ty) = open {
                at.with(key, |at| self.decode(ty, value, at, mode))?;
            }
        }
        if let Some((tag, _)) = own.filter(|_| !tag_seen && !self.tag_optional(name)) {
            return Err(missing(at, tag));
        }
        match fields
            .iter()
            .find(|f| !f.optional && !members.iter().any(|m| m.0 == f.name))
        {
            Some(f) => Err(missing(at, &f.name)),
            None => Ok(()),
        }
    }
}

fn missing(at: &JsonPointer, field: &str) -> FieldError {
    FieldError::new(
        child(at, field),
        Rule::Required,
        format!("missing field `{field}`"),
    )
}

/// A string enum's value. serde reads an enum from a string, or from an object of one member
/// (`{"value": null}`); anything else is refused in the reader's own words.
fn enum_value(values: &[String], node: &Node, at: &JsonPointer, mode: Mode) -> Step {
    let all: Vec<&str> = values.iter().map(String::as_str).collect();
    match (node, mode) {
        (Node::Str(s), _) if values.contains(s) => Ok(()),
        (Node::Str(s), _) => Err(unknown_variant(at, s, &all)),
        (Node::Obj(members), _)
            if members.len() == 1 || (mode == Mode::Text && !members.is_empty()) =>
        {
            let (key, value) = &members[0];
            if !values.contains(key) {
                return Err(unknown_variant(at, key, &all));
            }
            match value {
                Node::Null if members.len() == 1 => Ok(()),
                Node::Null => Err(FieldError::new(at.as_str(), Rule::Type, "expected `}`")),
                other => Err(invalid_type(at, other, "unit")),
            }
        }
        (Node::Obj(_), Mode::Value) => Err(FieldError::new(
            at.as_str(),
            Rule::Type,
            "invalid value: map, expected map with a single key",
        )),
        // serde_json's text reader reports any other value as "expected value", with no type
        // to repair it with; a `Value` names the type it wanted.
        (_, Mode::Text) => Err(FieldError::new(at.as_str(), Rule::Type, "expected value")),
        (other, Mode::Value) => Err(invalid_type(at, other, "string or map")),
    }
}
