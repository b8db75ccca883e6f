//! One pass every front end runs on its types: the members of each untagged union are put in
//! the order a decoder must try them, so the same union reads the same way whether it came
//! from TypeScript or from a JSON Schema.

use std::collections::BTreeMap;

use super::{Ty, TypeDef, TypeKind};

/// How deep `demand` follows named types before it stops counting (a recursive type ends).
const MAX_DEPTH: usize = 8;

/// Orders every untagged union's members: the member that asks most of a value first (its
/// required members, then all its members; a member that is itself a union counts as its most
/// demanding member). A looser member tried first would take a value a stricter one
/// describes and drop the members it does not know (a `StringSchema` tried before an enum
/// schema would swallow the enum schema's `enum`). The sort is stable, so ties keep the
/// order the source wrote. Run once every union of the file is resolved.
pub fn order_untagged_members(types: &mut BTreeMap<String, TypeDef>) {
    let names: Vec<String> = types
        .iter()
        .filter(|(_, d)| matches!(d.kind, TypeKind::Untagged(_)))
        .map(|(n, _)| n.clone())
        .collect();
    for name in names {
        let Some(TypeKind::Untagged(tys)) = types.get(&name).map(|d| &d.kind) else {
            continue;
        };
        // A catch-all member (one whose tag excludes the others' values) comes last: it
        // takes only what no named member takes.
        let mut keyed: Vec<((bool, usize, usize), Ty)> = tys
            .iter()
            .map(|t| {
                let (required, all) = demand(types, t, 0);
                ((!catch_all(types, t), required, all), t.clone())
            })
            .collect();
        keyed.sort_by_key(|(k, _)| std::cmp::Reverse(*k));
        if let Some(def) = types.get_mut(&name) {
            def.kind = TypeKind::Untagged(keyed.into_iter().map(|(_, t)| t).collect());
        }
    }
}

/// Whether `ty` is a union's catch-all member: a struct with a field that must not be one of
/// the tag values the named members own.
fn catch_all(types: &BTreeMap<String, TypeDef>, ty: &Ty) -> bool {
    match ty.named().and_then(|n| types.get(n)).map(|d| &d.kind) {
        Some(TypeKind::Struct(fields)) => {
            fields.iter().any(|f| !f.constraints.not_one_of.is_empty())
        }
        // A catch-all distributed over an inner union (`anyOf` beside its properties).
        Some(TypeKind::Untagged(members)) => {
            !members.is_empty() && members.iter().all(|m| catch_all(types, m))
        }
        _ => false,
    }
}

/// What a value must carry to be `ty`: (required members, all members), the most demanding
/// member for a union; `(0, 0)` for anything that is not an object.
fn demand(types: &BTreeMap<String, TypeDef>, ty: &Ty, depth: usize) -> (usize, usize) {
    let Ty::Named(name) = ty else {
        return (0, 0);
    };
    if depth > MAX_DEPTH {
        return (0, 0);
    }
    match types.get(name).map(|d| &d.kind) {
        Some(TypeKind::Struct(fields)) => {
            (fields.iter().filter(|f| !f.optional).count(), fields.len())
        }
        Some(TypeKind::Untagged(tys)) => tys
            .iter()
            .map(|t| demand(types, t, depth + 1))
            .max()
            .unwrap_or_default(),
        // A tagged member's struct lost its tag field to the union; the tag is still
        // required of the value.
        Some(TypeKind::Union { variants, .. }) => variants
            .iter()
            .map(|v| demand(types, &Ty::Named(v.type_name.clone()), depth + 1))
            .map(|(required, all)| (required + 1, all + 1))
            .max()
            .unwrap_or_default(),
        Some(TypeKind::Alias { target, .. }) => demand(types, target, depth + 1),
        _ => (0, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Field;

    fn def(name: &str, kind: TypeKind) -> (String, TypeDef) {
        let def = TypeDef {
            name: name.to_owned(),
            inline: false,
            doc: String::new(),
            origin: Default::default(),
            kind,
            open: None,
            rules: Default::default(),
        };
        (name.to_owned(), def)
    }

    fn fields(required: usize, optional: usize) -> TypeKind {
        let field = |i: usize, optional: bool| Field {
            name: format!("f{i}"),
            ty: Ty::String,
            optional,
            doc: String::new(),
            constraints: Default::default(),
            origin: Default::default(),
            defaulted: false,
            default: None,
            must_be_set: false,
        };
        TypeKind::Struct(
            (0..required)
                .map(|i| field(i, false))
                .chain((required..required + optional).map(|i| field(i, true)))
                .collect(),
        )
    }

    #[test]
    fn the_most_demanding_member_comes_first_and_ties_keep_their_order() {
        let named = |n: &str| Ty::Named(n.to_owned());
        let mut types: BTreeMap<String, TypeDef> = [
            def("Loose", fields(0, 3)),
            def("Strict", fields(2, 0)),
            def("Wider", fields(2, 1)),
            def("Twin", fields(0, 3)),
            def(
                "U",
                TypeKind::Untagged(vec![
                    Ty::String,
                    named("Loose"),
                    named("Twin"),
                    named("Strict"),
                    named("Wider"),
                ]),
            ),
        ]
        .into_iter()
        .collect();
        order_untagged_members(&mut types);
        assert_eq!(
            types["U"].kind,
            TypeKind::Untagged(vec![
                named("Wider"),
                named("Strict"),
                named("Loose"),
                named("Twin"),
                Ty::String,
            ])
        );
    }
}
