//! The types a versioned folder's versions emit alike, written once: `src/<module>/shared.rs`
//! holds them, and each version's module re-exports them, so `tick::v1::OpenParams` and
//! `tick::v2::OpenParams` are one type and the crate compiles it once.
//!
//! A type is shared when every version emits exactly the same items for it (the type, its
//! validator and its defaults, docs included, so no version's documentation changes) and
//! every type those items name is shared too: a shared type naming `Step` must find the same
//! `Step` in every version. A channel union stays in each version, as its module writes its
//! `from_json`.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{TokenStream, TokenTree};
use quote::{format_ident, quote};

use crate::emit::types::emit_type;
use crate::emit::validate::Validators;
use crate::ir::{Protocol, TypeDef};

/// The name of the module that holds the shared types, beside the version modules (whose
/// names start with `v` and a digit or letter, never `shared`).
pub const MODULE: &str = "shared";

/// The names of the types every one of `versions` emits alike (empty for fewer than two).
pub fn shared_types(versions: &[&Protocol]) -> BTreeSet<String> {
    let Some((first, rest)) = versions.split_first() else {
        return BTreeSet::new();
    };
    if rest.is_empty() {
        return BTreeSet::new();
    }
    let emitted: Vec<BTreeMap<&str, String>> = versions.iter().map(|p| emitted(p)).collect();
    let unions: BTreeSet<&str> = versions
        .iter()
        .flat_map(|p| p.channels.iter().map(|c| c.union.as_str()))
        .collect();
    let mut shared: BTreeSet<String> = emitted[0]
        .iter()
        .filter(|(name, text)| {
            !unions.contains(*name)
                && emitted[1..]
                    .iter()
                    .all(|other| other.get(*name) == Some(*text))
        })
        .map(|(name, _)| (*name).to_owned())
        .collect();
    // Drop every type naming one that is not shared, until none does.
    let names = referenced_types(first, &shared);
    loop {
        let unshared: Vec<String> = shared
            .iter()
            .filter(|n| {
                names
                    .get(n.as_str())
                    .into_iter()
                    .flatten()
                    .any(|r| r != *n && !shared.contains(r))
            })
            .cloned()
            .collect();
        if unshared.is_empty() {
            return shared;
        }
        for n in unshared {
            shared.remove(&n);
        }
    }
}

/// `src/<module>/shared.rs`'s items: the shared types of `p` (any version: they are alike).
pub fn emit_shared(p: &Protocol, shared: &BTreeSet<String>) -> TokenStream {
    let validators = Validators::new(&p.types, None);
    let items = p
        .types
        .values()
        .filter(|d| shared.contains(&d.name))
        .map(|d| type_items(p, d, &validators));
    quote!(#(#items)*)
}

/// A version module's `pub use` of the shared types (nothing when there are none).
pub fn reexport(shared: &BTreeSet<String>) -> TokenStream {
    if shared.is_empty() {
        return TokenStream::new();
    }
    let module = format_ident!("{MODULE}");
    let names = shared.iter().map(|n| crate::naming::type_ident(n));
    quote! {
        pub use super::#module::{#(#names),*};
    }
}

/// What a module writes for `def`: the type, its validator and its defaults' `impl`.
fn type_items(p: &Protocol, def: &TypeDef, validators: &Validators<'_>) -> TokenStream {
    let ty = emit_type(def, &p.types);
    let validate = validators.emit(def);
    let defaults = crate::emit::defaults::defaults_impl(p, def);
    quote!(#ty #validate #defaults)
}

/// Each type of `p` and the text of its items, for comparing versions.
fn emitted(p: &Protocol) -> BTreeMap<&str, String> {
    let validators = Validators::new(&p.types, None);
    p.types
        .values()
        .map(|d| (d.name.as_str(), type_items(p, d, &validators).to_string()))
        .collect()
}

/// For each of `names`, the types of `p` its items name: every identifier in them that is a
/// type's Rust name. A field or variant spelt like a type counts too, which can only keep a
/// type out of the shared module, never put one in wrongly.
fn referenced_types(p: &Protocol, names: &BTreeSet<String>) -> BTreeMap<String, BTreeSet<String>> {
    let by_ident: BTreeMap<String, &String> = p
        .types
        .keys()
        .map(|n| (crate::naming::type_ident(n).to_string(), n))
        .collect();
    let validators = Validators::new(&p.types, None);
    names
        .iter()
        .filter_map(|n| {
            let def = p.types.get(n)?;
            let mut found = BTreeSet::new();
            collect_idents(type_items(p, def, &validators), &by_ident, &mut found);
            Some((n.clone(), found))
        })
        .collect()
}

fn collect_idents(
    tokens: TokenStream,
    by_ident: &BTreeMap<String, &String>,
    found: &mut BTreeSet<String>,
) {
    for tree in tokens {
        match tree {
            TokenTree::Ident(i) => {
                if let Some(name) = by_ident.get(&i.to_string()) {
                    found.insert((*name).clone());
                }
            }
            TokenTree::Group(g) => collect_idents(g.stream(), by_ident, found),
            _ => {}
        }
    }
}
