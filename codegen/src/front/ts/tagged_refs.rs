//! `(A & { type: "a" }) | (B & { type: "b" }) | { type: "c"; ... }`: a union whose members fix
//! their tag beside a named type, as generators of TypeScript from JSON Schema write serde's
//! internally tagged enums. Each such member is the named type itself, its tag moved to the
//! union (as the JSON Schema loader reads `allOf: [$ref]` beside a tag `const`), so both
//! forms of one schema give the same Rust types.

use std::collections::{BTreeSet, HashMap};

use oxc_ast::ast::{TSSignature, TSType};
use oxc_span::{GetSpan, Span};

use super::{Loader, PendingUnion, strip_parens};
use crate::ir::{Constraints, TypeKind};

/// One member of such a union.
enum Member<'r, 'a> {
    /// `Name & { key: "value" }`.
    Tagged { name: String, value: String },
    /// An inline object fixing the key itself.
    Inline(&'r TSType<'a>),
}

impl Loader<'_> {
    /// Reads `members` as a union tagged beside named types, when each member is
    /// `Name & { key: "value" }` (at least one) or an object literal fixing `key`, on one key
    /// and with values all different. `None` when the union has another shape.
    pub(super) fn tagged_ref_union(
        &mut self,
        name: &str,
        members: &[&TSType<'_>],
        span: Span,
        doc: String,
        inline: bool,
    ) -> Option<()> {
        let mut key: Option<String> = None;
        let mut read = Vec::new();
        for t in members {
            let (k, member) = self.tagged_member(t)?;
            if let Some(k) = k
                && key.get_or_insert_with(|| k.clone()) != &k
            {
                return None;
            }
            read.push(member);
        }
        // At least one member is `Name & { key: ... }`, which names the key.
        let key = key?;
        let values: Option<BTreeSet<String>> = read
            .iter()
            .map(|m| match m {
                Member::Tagged { value, .. } => Some(value.clone()),
                Member::Inline(t) => self.literal_of(t, &key),
            })
            .collect();
        if values?.len() != read.len() {
            return None;
        }
        let mut names = Vec::new();
        let mut fixed = HashMap::new();
        for (i, (member, t)) in read.into_iter().zip(members).enumerate() {
            match member {
                Member::Tagged {
                    name: target,
                    value,
                } => {
                    fixed.insert(i, (key.clone(), value));
                    names.push((target, t.span()));
                }
                Member::Inline(t) => {
                    // Named after its tag value, as the JSON Schema front end names it.
                    let label = self
                        .literal_of(t, &key)
                        .unwrap_or_else(|| (i + 1).to_string());
                    let taken = |n: &str| self.declared.contains(n) || self.types.contains_key(n);
                    let context = crate::naming::inline_type_name(name, &label, taken);
                    // A member that does not read is reported; the union is then left out.
                    let Some(ty) = self.ty(t, &context) else {
                        return Some(());
                    };
                    names.push((ty.named().unwrap_or_default().to_owned(), t.span()));
                }
            }
        }
        self.unions.push(PendingUnion {
            name: name.to_owned(),
            members: names,
            constraints: Constraints::default(),
            fixed,
        });
        let kind = TypeKind::Union {
            tag: String::new(),
            variants: Vec::new(),
        };
        self.add_def(name, doc, span, kind, inline);
        Some(())
    }

    /// A member's shape: `Name & { key: "v" }` with its key, or an object literal.
    fn tagged_member<'r, 'a>(&self, t: &'r TSType<'a>) -> Option<(Option<String>, Member<'r, 'a>)> {
        match strip_parens(t) {
            TSType::TSIntersectionType(i) => {
                let [a, b] = i.types.as_slice() else {
                    return None;
                };
                let (target, lit) = match (strip_parens(a), strip_parens(b)) {
                    (r @ TSType::TSTypeReference(_), TSType::TSTypeLiteral(l))
                    | (TSType::TSTypeLiteral(l), r @ TSType::TSTypeReference(_)) => (r, l),
                    _ => return None,
                };
                let target = self
                    .ref_name(target)
                    .filter(|n| self.declared.contains(n))?;
                let [TSSignature::TSPropertySignature(p)] = lit.members.as_slice() else {
                    return None;
                };
                let key = p.key.static_name()?.to_string();
                let value = self.fixed_string(&p.type_annotation.as_ref()?.type_annotation)?;
                (!p.optional).then_some((
                    Some(key),
                    Member::Tagged {
                        name: target.to_owned(),
                        value,
                    },
                ))
            }
            lit @ TSType::TSTypeLiteral(_) => Some((None, Member::Inline(lit))),
            _ => None,
        }
    }

    /// The string literal an object literal fixes `key` to.
    pub(super) fn literal_of(&self, t: &TSType<'_>, key: &str) -> Option<String> {
        let TSType::TSTypeLiteral(l) = strip_parens(t) else {
            return None;
        };
        l.members.iter().find_map(|m| match m {
            TSSignature::TSPropertySignature(p)
                if !p.optional && p.key.static_name().is_some_and(|k| k == key) =>
            {
                self.fixed_string(&p.type_annotation.as_ref()?.type_annotation)
            }
            _ => None,
        })
    }
}
