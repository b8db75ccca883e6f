//! The constraint pass over a decoded value: every rule the generated `Validate` impls check
//! (fields in declaration order, then an open struct's extra members), reported through the
//! runtime's own rule functions so names and wording are the generated code's.

use agentwire_codegen::ir::{Constraints, Field, Ty, TypeKind};
use agentwire_runtime::validate as rules;
use agentwire_runtime::{FieldError, JsonPointer};

use super::node::Node;
use super::types::{Types, known_format};

type Errors = Vec<FieldError>;

impl Types {
    /// Appends every constraint `node` (which decodes as `ty`) breaks.
    pub fn validate(
        &self,
        ty: &Ty,
        c: &Constraints,
        node: &Node,
        at: &mut JsonPointer,
        errors: &mut Errors,
    ) {
        match (ty, node) {
            (Ty::Nullable(_), Node::Null) => {}
            (Ty::Nullable(inner), _) => self.validate(inner, c, node, at, errors),
            (Ty::String, Node::Str(s)) => self.text(c, s, at, errors),
            (Ty::Number | Ty::Integer, Node::Num(n)) => {
                if let Some(min) = c.minimum {
                    rules::minimum(n.as_f64(), min, at, errors);
                }
                if let Some(max) = c.maximum {
                    rules::maximum(n.as_f64(), max, at, errors);
                }
            }
            (Ty::Array(inner), Node::Arr(items)) => {
                if let Some(n) = c.min_items {
                    rules::min_items(items, n, at, errors);
                }
                if let Some(n) = c.max_items {
                    rules::max_items(items, n, at, errors);
                }
                let element = element(c);
                for (i, item) in items.iter().enumerate() {
                    at.with_index(i, |at| self.validate(inner, &element, item, at, errors));
                }
            }
            (Ty::Map(inner), Node::Obj(members)) => {
                // A map decodes into a `BTreeMap`: its values are walked in key order.
                let mut sorted: Vec<&(String, Node)> = members.iter().collect();
                sorted.sort_by(|a, b| a.0.cmp(&b.0));
                let element = element(c);
                for (k, v) in sorted {
                    at.with(k, |at| self.validate(inner, &element, v, at, errors));
                }
            }
            (Ty::Named(name), _) => self.validate_named(name, node, at, errors),
            _ => {}
        }
    }

    /// The string rules, on the trimmed value under `@trim`.
    fn text(&self, c: &Constraints, s: &str, at: &JsonPointer, errors: &mut Errors) {
        let s = if c.trim { s.trim() } else { s };
        if let Some(n) = c.min_length {
            rules::min_length(s, n, at, errors);
        }
        if let Some(n) = c.max_length {
            rules::max_length(s, n, at, errors);
        }
        if let Some((re, source)) = c.pattern.as_deref().and_then(|p| self.pattern(p)) {
            rules::pattern(s, re, source, at, errors);
        }
        if let Some(name) = c.format.as_deref().and_then(known_format) {
            rules::format(s, name, at, errors);
        }
        if !c.not_one_of.is_empty() {
            let owned: Vec<&str> = c.not_one_of.iter().map(String::as_str).collect();
            rules::not_one_of(s, &owned, at, errors);
        }
    }

    /// The rules of a value of the named type.
    pub fn validate_named(
        &self,
        name: &str,
        node: &Node,
        at: &mut JsonPointer,
        errors: &mut Errors,
    ) {
        let Some(def) = self.def(name) else { return };
        match &def.kind {
            TypeKind::Struct(fields) => {
                if let Node::Obj(members) = node {
                    let skip = self.own_tag(name).map(|(tag, _)| tag.as_str());
                    let open = def.open.as_ref().map(|ty| (ty, skip));
                    self.validate_struct(fields, open, members, at, errors);
                }
            }
            TypeKind::Union { tag, variants } => {
                let Node::Obj(members) = node else { return };
                if let Ok(v) = self.union_variant(tag, variants, members, at) {
                    let rest: Vec<(String, Node)> =
                        members.iter().filter(|(k, _)| k != tag).cloned().collect();
                    self.validate_named(&v.type_name, &Node::Obj(rest), at, errors);
                }
            }
            TypeKind::Untagged(members) => {
                if let Some(ty) = self.untagged_member(members, node) {
                    self.validate(ty, &Constraints::default(), node, at, errors);
                }
            }
            TypeKind::Alias {
                target,
                constraints,
            } => self.validate(target, constraints, node, at, errors),
            TypeKind::Enum(_) | TypeKind::Oneof { .. } => {}
        }
    }

    fn validate_struct(
        &self,
        fields: &[Field],
        open: Option<(&Ty, Option<&str>)>,
        members: &[(String, Node)],
        at: &mut JsonPointer,
        errors: &mut Errors,
    ) {
        let get = |key: &str| members.iter().find(|(k, _)| k == key).map(|(_, v)| v);
        for f in fields {
            if let Some(v) = get(&f.name) {
                at.with(&f.name, |at| {
                    self.validate(&f.ty, &f.constraints, v, at, errors)
                });
            }
        }
        // An open struct's extra members, but not the discriminator it reads itself.
        let Some((ty, tag)) = open else { return };
        for (k, v) in members {
            if !fields.iter().any(|f| f.name == *k) && tag != Some(k.as_str()) {
                at.with(k, |at| {
                    self.validate(ty, &Constraints::default(), v, at, errors)
                });
            }
        }
    }
}

/// The rules an array's (or map's) elements take: all but the item counts.
fn element(c: &Constraints) -> Constraints {
    Constraints {
        min_items: None,
        max_items: None,
        ..c.clone()
    }
}
