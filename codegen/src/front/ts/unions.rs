//! Unions that are not a set of literals or primitives: members that share a literal field
//! become a tagged union once every type is loaded (`resolve_unions`); any other union of
//! interfaces, inline objects, lists or primitives is untagged, its members tried in turn
//! (the most demanding first, by `ir::order_untagged_members`), as ts-json-schema-generator's `anyOf` reads.

use oxc_ast::ast::{TSSignature, TSType};
use oxc_span::{GetSpan, Span};

use super::{BUILTIN_INTEGER, Loader, PendingUnion, refusals, strip_parens, type_ref_name};
use crate::ir::{Constraints, Ty, TypeKind};

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
        if self
            .tagged_ref_union(name, members, span, doc.clone(), inline)
            .is_some()
        {
            return Some(());
        }
        // Primitives of one JSON type (`number | integer`) cannot be told apart.
        if members.iter().all(|t| is_primitive(t)) {
            self.error(span, refusals::union());
            return None;
        }
        let mut tys = Vec::new();
        let labels = self.member_labels(members);
        for (i, (t, label)) in members.iter().zip(labels).enumerate() {
            let label = label.unwrap_or_else(|| (i + 1).to_string());
            let taken = |n: &str| self.declared.contains(n) || self.types.contains_key(n);
            let context = crate::naming::inline_type_name(name, &label, taken);
            let ty = self.ty(t, &context)?;
            // `number | number` (hey-api writes JSON Schema's `integer` and `number` both as
            // `number`) is one member.
            if !tys.iter().any(|(x, _)| *x == ty) {
                tys.push((ty, t.span()));
            }
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
            fixed: Default::default(),
        });
        let kind = TypeKind::Union {
            tag: String::new(),
            variants: Vec::new(),
        };
        self.add_def(name, doc, span, kind, inline);
    }

    /// The union `u` as an untagged union of its members, in the order written
    /// (`ir::order_untagged_members` puts the most demanding first).
    pub(super) fn untagged_union(&mut self, u: &PendingUnion) {
        let tys = u
            .members
            .iter()
            .map(|(m, _)| Ty::Named(m.clone()))
            .collect();
        if let Some(def) = self.types.get_mut(&u.name) {
            def.kind = TypeKind::Untagged(tys);
        }
    }

    /// What each inline member is named by, as the JSON Schema front end names it: when every
    /// member fixes one key (the first member's first such key) to a different string, that
    /// value (its tag value); else the string its first required property is fixed to.
    fn member_labels(&self, members: &[&TSType<'_>]) -> Vec<Option<String>> {
        let keys = members
            .first()
            .map_or_else(Vec::new, |t| self.fixed_keys(t));
        for key in keys {
            let values: Option<Vec<String>> =
                members.iter().map(|t| self.literal_of(t, &key)).collect();
            if let Some(values) = values {
                let distinct: std::collections::BTreeSet<&String> = values.iter().collect();
                if distinct.len() == values.len() {
                    return values.into_iter().map(Some).collect();
                }
            }
        }
        members
            .iter()
            .map(|t| {
                let key = self.fixed_keys(t).into_iter().next()?;
                self.literal_of(t, &key)
            })
            .collect()
    }

    /// The required properties an object literal fixes to a string, in order.
    fn fixed_keys(&self, t: &TSType<'_>) -> Vec<String> {
        let TSType::TSTypeLiteral(l) = strip_parens(t) else {
            return Vec::new();
        };
        l.members
            .iter()
            .filter_map(|m| match m {
                TSSignature::TSPropertySignature(p) if !p.optional => {
                    self.fixed_string(&p.type_annotation.as_ref()?.type_annotation)?;
                    Some(p.key.static_name()?.to_string())
                }
                _ => None,
            })
            .collect()
    }
}

fn is_primitive(t: &TSType<'_>) -> bool {
    let t = strip_parens(t);
    matches!(
        t,
        TSType::TSStringKeyword(_) | TSType::TSNumberKeyword(_) | TSType::TSBooleanKeyword(_)
    ) || type_ref_name(t) == Some(BUILTIN_INTEGER)
}
