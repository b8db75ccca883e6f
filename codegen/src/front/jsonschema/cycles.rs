//! Types that hold one another by value in a cycle (a meta-schema's `{"$ref": "#"}` inside
//! `Option`, an untagged member that is its own parent) would have no size in Rust. A list or
//! a map puts its elements behind a pointer; anything else does not, so the loader breaks each
//! such cycle at one field, untagged member or alias, reading it as any JSON value, with a note.

use std::collections::BTreeMap;

use crate::ir::{Ty, TypeDef, TypeKind};

/// Where a type names another by value: the index of its field, untagged member or alias.
type Edge = (String, usize, String);

/// The types `ty` holds by value (through `Option`, not through a list or a map).
fn by_value(ty: &Ty) -> Option<&str> {
    match ty {
        Ty::Named(n) => Some(n),
        Ty::Nullable(inner) => by_value(inner),
        _ => None,
    }
}

/// Every by-value reference of `def`, and whether the loader may cut it (a tagged union's
/// variant cannot be: its member is the variant).
fn edges(def: &TypeDef) -> Vec<(usize, String, bool)> {
    match &def.kind {
        TypeKind::Struct(fields) => (fields.iter().enumerate())
            .filter_map(|(i, f)| by_value(&f.ty).map(|n| (i, n.to_owned(), true)))
            .collect(),
        TypeKind::Untagged(members) => (members.iter().enumerate())
            .filter_map(|(i, m)| by_value(m).map(|n| (i, n.to_owned(), true)))
            .collect(),
        TypeKind::Alias { target, .. } => by_value(target)
            .map(|n| vec![(0, n.to_owned(), true)])
            .unwrap_or_default(),
        TypeKind::Union { variants, .. } => (variants.iter().enumerate())
            .map(|(i, v)| (i, v.type_name.clone(), false))
            .collect(),
        TypeKind::Enum(_) | TypeKind::Oneof { .. } => Vec::new(),
    }
}

/// One cycle's cuttable edge, if any type reaches itself by value.
fn find_cut(types: &BTreeMap<String, TypeDef>) -> Option<Edge> {
    // 0: unseen, 1: on the path, 2: done.
    let mut state: BTreeMap<&str, u8> = BTreeMap::new();
    for start in types.keys() {
        let mut path: Vec<(&str, usize, String)> = Vec::new();
        if let Some(cut) = visit(types, start, &mut state, &mut path) {
            return Some(cut);
        }
    }
    None
}

fn visit<'t>(
    types: &'t BTreeMap<String, TypeDef>,
    name: &'t str,
    state: &mut BTreeMap<&'t str, u8>,
    path: &mut Vec<(&'t str, usize, String)>,
) -> Option<Edge> {
    match state.get(name) {
        Some(2) => return None,
        Some(1) => {
            // The path from `name` back to it is the cycle: cut its last cuttable edge.
            let from = path.iter().position(|(n, _, _)| *n == name)?;
            let (n, i, to) = path[from..]
                .iter()
                .rev()
                .find(|(n, i, _)| edges(&types[*n]).iter().any(|(j, _, cut)| j == i && *cut))?;
            return Some(((*n).to_owned(), *i, to.clone()));
        }
        _ => {}
    }
    let def = types.get(name)?;
    state.insert(name, 1);
    for (i, to, _) in edges(def) {
        let Some((key, _)) = types.get_key_value(to.as_str()) else {
            continue;
        };
        path.push((name, i, to.clone()));
        if let Some(cut) = visit(types, key, state, path) {
            return Some(cut);
        }
        path.pop();
    }
    state.insert(name, 2);
    None
}

/// Replaces the by-value `Named(to)` inside `ty` with any JSON value.
fn cut(ty: &mut Ty) {
    match ty {
        Ty::Nullable(inner) => cut(inner),
        other => *other = Ty::Any,
    }
}

/// Breaks every by-value cycle of `types`, returning each cut's type and what it says (for a
/// note).
pub(super) fn break_cycles(types: &mut BTreeMap<String, TypeDef>) -> Vec<(String, String)> {
    let mut notes = Vec::new();
    // Each cut removes an edge, so this ends; the bound guards against a mistake here.
    for _ in 0..10_000 {
        let Some((from, i, to)) = find_cut(types) else {
            break;
        };
        let Some(def) = types.get_mut(&from) else {
            break;
        };
        let place = match &mut def.kind {
            TypeKind::Struct(fields) => fields.get_mut(i).map(|f| {
                cut(&mut f.ty);
                format!("`{from}.{}`", f.name)
            }),
            TypeKind::Untagged(members) => members.get_mut(i).map(|m| {
                cut(m);
                format!("a member of `{from}`")
            }),
            TypeKind::Alias { target, .. } => {
                cut(target);
                Some(format!("`{from}`"))
            }
            _ => None,
        };
        let Some(place) = place else {
            break;
        };
        notes.push((from.clone(), format!(
            "{place} holds `{to}` by value in a cycle of types (no list or map between them); it is read as any JSON value"
        )));
    }
    notes
}
