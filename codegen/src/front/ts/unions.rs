//! Unions that are not a set of literals or primitives: members that share a literal field
//! become a tagged union once every type is loaded (`resolve_unions`); any other union of
//! interfaces, inline objects, lists or primitives is untagged, its members tried in turn
//! (most required fields first), as ts-json-schema-generator's `anyOf` reads.

use oxc_ast::ast::TSType;
use oxc_span::{GetSpan, Span};

use super::{BUILTIN_INTEGER, Loader, PendingUnion, refusals, strip_parens, type_ref_name};
use crate::ir::{Constraints, Ty, TypeDef, TypeKind};

impl Loader<'_> {
    /// The union `members` as the type `name` (a field's union when `inline`): a pending
    /// union when every member names an object type, untagged otherwise. `None` (reported)
    /// when a member cannot be read or the members cannot be told apart.
    pub(super) fn union_type(
        &mut self,
        name: &str,
        members: &[&TSType<'_>],
        span: Span,
        doc: String,
        inline: bool,
    ) -> Option<()> {
        // Primitives of one JSON type (`number | integer`) cannot be told apart.
        if members.iter().all(|t| is_primitive(t)) {
            self.error(span, refusals::union(members));
            return None;
        }
        let mut tys = Vec::new();
        for (i, t) in members.iter().enumerate() {
            let context = format!("{name}{}", i + 1);
            tys.push((self.ty(t, &context)?, t.span()));
        }
        let objects: Option<Vec<(String, Span)>> = tys
            .iter()
            .map(|(t, s)| match t {
                Ty::Named(n) if self.is_object(n) => Some((n.clone(), *s)),
                _ => None,
            })
            .collect();
        if let Some(objects) = objects {
            self.pending_union(name, objects, span, doc, inline, Constraints::default());
            return Some(());
        }
        let tys = tys.into_iter().map(|(t, _)| t).collect();
        self.add_def(name, doc, span, TypeKind::Untagged(tys), inline);
        Some(())
    }

    /// Whether `name` is (or will be, once unions resolve) an object type.
    fn is_object(&self, name: &str) -> bool {
        self.declared.contains(name)
            || matches!(
                self.types.get(name).map(|t| &t.kind),
                Some(TypeKind::Struct(_) | TypeKind::Union { .. })
            )
    }

    /// Records the union `name` of `members`, resolved once every type is loaded.
    pub(super) fn pending_union(
        &mut self,
        name: &str,
        members: Vec<(String, Span)>,
        span: Span,
        doc: String,
        inline: bool,
        constraints: Constraints,
    ) {
        self.unions.push(PendingUnion {
            name: name.to_owned(),
            members,
            constraints,
        });
        let kind = TypeKind::Union {
            tag: String::new(),
            variants: Vec::new(),
        };
        self.add_def(name, doc, span, kind, inline);
    }

    /// The union `u` as an untagged union of its members: tried in turn when decoding, the
    /// member with the most required fields first, so that a looser one (all fields optional)
    /// does not take every value.
    pub(super) fn untagged_union(&mut self, u: &PendingUnion) {
        let mut members: Vec<(usize, &String)> = u
            .members
            .iter()
            .map(|(m, _)| (self.required_fields(m), m))
            .collect();
        members.sort_by_key(|(n, _)| std::cmp::Reverse(*n));
        let tys = members
            .into_iter()
            .map(|(_, m)| Ty::Named(m.clone()))
            .collect();
        if let Some(def) = self.types.get_mut(&u.name) {
            def.kind = TypeKind::Untagged(tys);
        }
    }

    /// Orders every untagged union's members once all unions are resolved: the member that
    /// asks most of a value first (its required fields, then all its fields; a member that is
    /// itself a union counts as its most demanding member). A looser member tried first would
    /// take a value a stricter one describes and drop the members it does not know (MCP's
    /// `PrimitiveSchemaDefinition`: a `StringSchema` would swallow an enum schema's `enum`).
    /// The sort is stable, so ties keep the order the schema wrote.
    pub(super) fn order_untagged_members(&mut self) {
        let names: Vec<String> = self
            .types
            .iter()
            .filter(|(_, d)| matches!(d.kind, TypeKind::Untagged(_)))
            .map(|(n, _)| n.clone())
            .collect();
        for name in names {
            let Some(TypeKind::Untagged(tys)) = self.types.get(&name).map(|d| &d.kind) else {
                continue;
            };
            let mut keyed: Vec<((usize, usize), Ty)> =
                tys.iter().map(|t| (self.demand(t, 0), t.clone())).collect();
            keyed.sort_by_key(|(k, _)| std::cmp::Reverse(*k));
            if let Some(def) = self.types.get_mut(&name) {
                def.kind = TypeKind::Untagged(keyed.into_iter().map(|(_, t)| t).collect());
            }
        }
    }

    /// What a value must carry to be `ty`: (required members, all members), the most
    /// demanding member for a union. Bounded in depth, so a recursive type ends.
    fn demand(&self, ty: &Ty, depth: usize) -> (usize, usize) {
        let Ty::Named(name) = ty else {
            return (0, 0);
        };
        if depth > 8 {
            return (0, 0);
        }
        match self.types.get(name).map(|d| &d.kind) {
            Some(TypeKind::Struct(fields)) => {
                (fields.iter().filter(|f| !f.optional).count(), fields.len())
            }
            Some(TypeKind::Untagged(tys)) => tys
                .iter()
                .map(|t| self.demand(t, depth + 1))
                .max()
                .unwrap_or_default(),
            // A tagged member's struct lost its tag field to the union; the tag is still
            // required of the value.
            Some(TypeKind::Union { variants, .. }) => variants
                .iter()
                .map(|v| self.demand(&Ty::Named(v.type_name.clone()), depth + 1))
                .map(|(required, all)| (required + 1, all + 1))
                .max()
                .unwrap_or_default(),
            Some(TypeKind::Alias { target, .. }) => self.demand(target, depth + 1),
            _ => (0, 0),
        }
    }

    fn required_fields(&self, name: &str) -> usize {
        match self.types.get(name) {
            Some(TypeDef {
                kind: TypeKind::Struct(fields),
                ..
            }) => fields.iter().filter(|f| !f.optional).count(),
            _ => 0,
        }
    }
}

fn is_primitive(t: &TSType<'_>) -> bool {
    let t = strip_parens(t);
    matches!(
        t,
        TSType::TSStringKeyword(_) | TSType::TSNumberKeyword(_) | TSType::TSBooleanKeyword(_)
    ) || type_ref_name(t) == Some(BUILTIN_INTEGER)
}
