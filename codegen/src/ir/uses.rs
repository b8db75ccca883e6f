//! Where a named type is used: as a member of a tagged union (which may write its tag for
//! it) or anywhere else (a field, a list, a map, an alias, an untagged member), where the
//! schema gives it no tag at all.

use std::collections::BTreeMap;

use super::{Ty, TypeDef, TypeKind};

/// Whether `ty` names `name` at any depth (`Vec<Option<Name>>` included).
fn names(ty: &Ty, name: &str) -> bool {
    match ty {
        Ty::Named(n) => n == name,
        Ty::Array(inner) | Ty::Map(inner) | Ty::Nullable(inner) => names(inner, name),
        _ => false,
    }
}

/// Whether some type of `types` uses `name` other than as a tagged union's member: such a
/// use reads and writes it without the union's tag, so the type cannot carry one itself.
pub fn used_outside_tagged_unions(types: &BTreeMap<String, TypeDef>, name: &str) -> bool {
    types.values().any(|d| {
        d.open.as_ref().is_some_and(|t| names(t, name))
            || match &d.kind {
                TypeKind::Struct(fields) | TypeKind::Oneof { cases: fields, .. } => {
                    fields.iter().any(|f| names(&f.ty, name))
                }
                TypeKind::Alias { target, .. } => names(target, name),
                TypeKind::Untagged(members) => members.iter().any(|t| names(t, name)),
                TypeKind::Enum(_) | TypeKind::Union { .. } => false,
            }
    })
}

/// Every `(tag, value)` pair under which the tagged unions of `types` hold `name`, in order,
/// repeats included.
pub fn tag_pairs(types: &BTreeMap<String, TypeDef>, name: &str) -> Vec<(String, String)> {
    types
        .values()
        .flat_map(|d| match &d.kind {
            TypeKind::Union { tag, variants } => variants
                .iter()
                .filter(|v| v.type_name == name)
                .map(|v| (tag.clone(), v.value.clone()))
                .collect(),
            _ => Vec::new(),
        })
        .collect()
}

/// Whether some tagged union of `types` holds `name` with its tag fixed beside it rather than
/// declared by it (`Variant::beside`): alone, `name` then has no tag of its own.
pub fn tagged_beside(types: &BTreeMap<String, TypeDef>, name: &str) -> bool {
    types.values().any(|d| match &d.kind {
        TypeKind::Union { variants, .. } => {
            variants.iter().any(|v| v.beside && v.type_name == name)
        }
        _ => false,
    })
}
