//! A union member that is itself a union: `{properties: {mode: {const: "form"}}, allOf:
//! [{$ref: F}]}` where `F` has an `anyOf` of its own, or a member with an `anyOf` beside its
//! properties. The member distributes over the inner union, as TypeScript's `(A | B) & C` is
//! `(A & C) | (B & C)`: one struct per inner alternative, holding the alternative's fields,
//! then the member's own properties, then the properties written beside the outer union.

use super::json::Node;
use super::lower::{Lowerer, inline_name, string_values};
use super::object::Members;
use crate::ir::{Field, Ty, TypeKind};

/// Where a nested member's alternatives come from.
pub(super) enum Inner<'n> {
    /// A definition the member merges in (`allOf: [{$ref}]`) that is a union.
    Def(String),
    /// The member's own `anyOf`/`oneOf`.
    Members(Vec<&'n Node>),
}

impl<'f> Lowerer<'f> {
    /// The inner union of a member of a union written on `base`, when it has one and there
    /// are properties to distribute (a documented reference to a union is that union).
    pub(super) fn nested_inner<'n>(&self, base: &Node, member: &'n Node) -> Option<Inner<'n>> {
        let props = |n: &Node| n.get("properties").is_some_and(|p| !p.members().is_empty());
        if string_values(member).is_some() || !(props(base) || props(member)) {
            return None;
        }
        let has_props = member.get("properties").is_some() || member.get("allOf").is_some();
        if has_props && let Some(list) = member.get("anyOf").or_else(|| member.get("oneOf")) {
            return Some(Inner::Members(list.as_array()?.iter().collect()));
        }
        member
            .get("allOf")
            .and_then(Node::as_array)
            .unwrap_or_default()
            .iter()
            .find_map(|part| {
                let (target, name) = self.ref_target(part)?;
                self.union_members(target)?;
                Some(Inner::Def(name))
            })
    }

    /// The type of the nested `member` of a union whose own properties are in `base`: the
    /// inner alternatives, each with the member's and the base's properties added.
    pub(super) fn nested_member(
        &mut self,
        base: &Node,
        member: &Node,
        inner: Inner<'_>,
        context: &str,
    ) -> Ty {
        self.check_keywords(member);
        let mut own = Members::default();
        shallow(member, &mut own);
        shallow(base, &mut own);
        let (kind, open) = self.struct_of(context, &own, &[]);
        let TypeKind::Struct(extra) = kind else {
            return Ty::Any;
        };
        let alternatives: Vec<Ty> = match inner {
            Inner::Def(name) => vec![Ty::Named(name)],
            Inner::Members(list) => list
                .iter()
                .enumerate()
                .map(|(j, m)| self.ty_of(m, &inline_name(context, &format!("Part{}", j + 1))))
                .collect(),
        };
        match alternatives.as_slice() {
            [one] => self.with_fields(member, one, &extra, &open, context),
            _ => {
                let tys = alternatives
                    .iter()
                    .enumerate()
                    .map(|(j, t)| {
                        self.with_fields(member, t, &extra, &open, &format!("{context}{}", j + 1))
                    })
                    .collect();
                self.put(
                    context,
                    member,
                    true,
                    String::new(),
                    TypeKind::Untagged(tys),
                    None,
                );
                Ty::Named(context.to_owned())
            }
        }
    }

    /// `ty` with `extra` fields after its own (an untagged union: each member's), as the
    /// type `name`; an extra field replaces one of the same key in place.
    fn with_fields(
        &mut self,
        at: &Node,
        ty: &Ty,
        extra: &[Field],
        open: &Option<Ty>,
        name: &str,
    ) -> Ty {
        if let Some(n) = ty.named()
            && !self.types.contains_key(n)
            && let Some(node) = self.defs.get(n).copied()
        {
            self.define(n, node, false);
        }
        let Some(def) = ty.named().and_then(|n| self.types.get(n)).cloned() else {
            self.error(at, "a union member with properties distributes only over object schemas; write the properties in each object member instead".to_owned());
            return Ty::Any;
        };
        match def.kind {
            TypeKind::Struct(mut fields) => {
                for f in extra {
                    match fields.iter_mut().find(|x| x.name == f.name) {
                        Some(slot) => *slot = f.clone(),
                        None => fields.push(f.clone()),
                    }
                }
                let open = open.clone().or(def.open);
                self.put(
                    name,
                    at,
                    true,
                    String::new(),
                    TypeKind::Struct(fields),
                    open,
                );
                Ty::Named(name.to_owned())
            }
            TypeKind::Untagged(members) => {
                let tys = members
                    .iter()
                    .enumerate()
                    .map(|(j, t)| self.with_fields(at, t, extra, open, &format!("{name}{}", j + 1)))
                    .collect();
                self.put(name, at, true, String::new(), TypeKind::Untagged(tys), None);
                Ty::Named(name.to_owned())
            }
            TypeKind::Alias { target, .. } => self.with_fields(at, &target, extra, open, name),
            _ => {
                self.error(at, "a union member with properties distributes only over object schemas; write the properties in each object member instead".to_owned());
                Ty::Any
            }
        }
    }
}

/// The properties, `required` and `additionalProperties` written on `node` itself.
fn shallow<'n>(node: &'n Node, out: &mut Members<'n>) {
    for m in node
        .get("properties")
        .map(Node::members)
        .unwrap_or_default()
    {
        match out.props.iter_mut().find(|(k, _)| *k == m.key) {
            Some(slot) => slot.1 = &m.value,
            None => out.props.push((m.key.clone(), &m.value)),
        }
        out.own.push(m.key.clone());
    }
    for r in node
        .get("required")
        .and_then(Node::as_array)
        .unwrap_or_default()
    {
        out.required.extend(r.as_str().map(str::to_owned));
    }
    if let Some(extra) = super::object::extra_members(node) {
        out.additional.get_or_insert(extra);
    }
    out.excluded.extend(super::keywords::exclusions(node));
}
