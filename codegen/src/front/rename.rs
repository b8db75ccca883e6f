//! Rust names for spec type names: a type whose name would shadow a prelude item, a primitive
//! or an item the emitters define in the same module (or is a keyword) is renamed, the same way
//! every time, and each rename is returned as a note for the `cargo xtask gen` summary.
//!
//! Renaming happens once, in the IR, so every emitter, the checker and the skeletons name
//! the same Rust type; the JSON on the wire (keys, tag values) never changes.

use std::collections::{BTreeMap, BTreeSet};

use crate::ir::{Body, Protocol, Ty, TypeKind};
use crate::naming::{RoleSet, exchange, is_keyword, pascal_case, role_set};

/// Names of the Rust prelude (2021 and 2024 editions) and the primitive types: a module-level
/// item of that name shadows them for the emitted code, which names them bare.
const PRELUDE: &[&str] = &[
    "Copy",
    "Send",
    "Sized",
    "Sync",
    "Unpin",
    "Drop",
    "Fn",
    "FnMut",
    "FnOnce",
    "AsyncFn",
    "AsyncFnMut",
    "AsyncFnOnce",
    "Box",
    "ToOwned",
    "Clone",
    "PartialEq",
    "PartialOrd",
    "Eq",
    "Ord",
    "AsRef",
    "AsMut",
    "Into",
    "From",
    "Default",
    "Iterator",
    "Extend",
    "IntoIterator",
    "DoubleEndedIterator",
    "ExactSizeIterator",
    "Option",
    "Some",
    "None",
    "Result",
    "Ok",
    "Err",
    "String",
    "ToString",
    "Vec",
    "TryFrom",
    "TryInto",
    "FromIterator",
    "Future",
    "IntoFuture",
    "Debug",
    "Hash",
    "bool",
    "char",
    "str",
    "f32",
    "f64",
    "i8",
    "i16",
    "i32",
    "i64",
    "i128",
    "isize",
    "u8",
    "u16",
    "u32",
    "u64",
    "u128",
    "usize",
    "std",
    "core",
    "alloc",
    "agentwire_runtime",
];

/// Items every generated module (and its `machine` submodule, which imports it whole)
/// defines itself.
const EMITTED: &[&str] = &[
    "MODULE",
    "ROLES",
    "SCHEMA",
    "decode_type",
    "decode_message",
    "decode_response",
    "schemars_schema",
    "machine",
    "HttpExchange",
    "Message",
    "Kind",
    "Checker",
    "Recorded",
    "kind_of",
];

/// The names the emitters take in this protocol's module, beside `EMITTED`.
fn emitted_here(p: &Protocol) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = EMITTED.iter().map(|s| (*s).to_owned()).collect();
    if !p.methods.is_empty() {
        for role in &p.roles {
            for set in RoleSet::ALL {
                out.insert(role_set(role, set).to_string());
            }
        }
    }
    for r in &p.routes {
        out.insert(exchange(&r.name).to_string());
    }
    out
}

/// Why `name` cannot be a Rust type name in `p`'s module, if it cannot.
fn conflict(name: &str, emitted: &BTreeSet<String>) -> Option<&'static str> {
    if !is_identifier(name) {
        // A JSON Schema definition may be named anything (`attr-directive`).
        Some("not a Rust identifier")
    } else if is_keyword(name) {
        Some("a Rust keyword")
    } else if PRELUDE.contains(&name) {
        Some("a Rust prelude or primitive name")
    } else if emitted.contains(name) {
        Some("an item the generated module defines")
    } else if name.starts_with(|c: char| c.is_ascii_lowercase())
        || name.trim_start_matches('_').contains('_')
    {
        // Rust warns of a type not in upper camel case (meta-schemas' `schemaArray`).
        Some("not in Rust's upper camel case")
    } else {
        None
    }
}

/// ASCII letters, digits and `_`, not starting with a digit, not `_` alone: a name every
/// emitter can spell as is.
fn is_identifier(name: &str) -> bool {
    name != "_"
        && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Renames every spec type whose name cannot be a Rust type name, returning one note per
/// rename (`Result` becomes `ResultType`; a name not in Pascal case is first put in it,
/// `match` -> `Match`, `decode_type` -> `DecodeType`; a digit is appended while the name is still taken). Protobuf specs
/// keep prost's names and are left alone.
pub fn rust_type_names(p: &mut Protocol) -> Vec<String> {
    if !crate::naming::Names::of(p).renames_types() {
        return Vec::new();
    }
    let emitted = emitted_here(p);
    let mut taken: BTreeSet<String> = p.types.keys().cloned().collect();
    let mut renames = BTreeMap::new();
    let mut notes = Vec::new();
    for name in p.types.keys() {
        let Some(why) = conflict(name, &emitted) else {
            continue;
        };
        let capital = pascal_case(name);
        let free = |n: &str, taken: &BTreeSet<String>| {
            conflict(n, &emitted).is_none() && !taken.contains(n)
        };
        let mut new = if capital != *name && free(&capital, &taken) {
            capital
        } else {
            format!("{capital}Type")
        };
        let base = new.clone();
        let mut n = 2;
        while !free(&new, &taken) {
            new = format!("{base}{n}");
            n += 1;
        }
        taken.insert(new.clone());
        notes.push(format!(
            "note: type `{name}` is {why}; its Rust type is `{new}` (the JSON is unchanged)"
        ));
        renames.insert(name.clone(), new);
    }
    if !renames.is_empty() {
        apply(p, &renames);
    }
    notes
}

/// Replaces every mention of a renamed type.
fn apply(p: &mut Protocol, renames: &BTreeMap<String, String>) {
    let to = |n: &mut String| {
        if let Some(new) = renames.get(n.as_str()) {
            n.clone_from(new);
        }
    };
    let types = std::mem::take(&mut p.types);
    for (mut name, mut def) in types {
        to(&mut name);
        to(&mut def.name);
        match &mut def.kind {
            TypeKind::Struct(fields) | TypeKind::Oneof { cases: fields, .. } => {
                for f in fields {
                    ty(&mut f.ty, &to);
                }
            }
            TypeKind::Union { variants, .. } => {
                for v in variants {
                    to(&mut v.type_name);
                }
            }
            TypeKind::Alias { target, .. } => ty(target, &to),
            // An untagged union names its members' types too (an open enum's known values).
            TypeKind::Untagged(members) => members.iter_mut().for_each(|m| ty(m, &to)),
            TypeKind::Enum(_) => {}
        }
        if let Some(open) = &mut def.open {
            ty(open, &to);
        }
        p.types.insert(name, def);
    }
    p.channels.iter_mut().for_each(|c| to(&mut c.union));
    p.messages.iter_mut().for_each(|m| to(&mut m.type_name));
    for m in &mut p.methods {
        m.params.iter_mut().for_each(&to);
        m.result.iter_mut().for_each(&to);
    }
    for r in &mut p.routes {
        let bodies =
            std::iter::once(&mut r.body).chain(r.responses.iter_mut().map(|x| &mut x.body));
        for b in bodies {
            if let Body::Json(n) = b {
                to(n);
            }
        }
        r.path_params.values_mut().for_each(&to);
    }
}

fn ty(t: &mut Ty, to: &impl Fn(&mut String)) {
    match t {
        Ty::Named(n) => to(n),
        Ty::Array(inner) | Ty::Map(inner) | Ty::Nullable(inner) => ty(inner, to),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conflicts_are_named() {
        let emitted = BTreeSet::new();
        assert_eq!(
            conflict("Result", &emitted),
            Some("a Rust prelude or primitive name")
        );
        assert_eq!(conflict("match", &emitted), Some("a Rust keyword"));
        assert_eq!(conflict("MODULE", &emitted), None);
        assert_eq!(conflict("Ping", &emitted), None);
        assert_eq!(
            conflict("attr-directive", &emitted),
            Some("not a Rust identifier")
        );
        assert_eq!(conflict("$x", &emitted), Some("not a Rust identifier"));
        assert_eq!(
            conflict("schemaArray", &emitted),
            Some("not in Rust's upper camel case")
        );
        assert_eq!(
            conflict("Ext_Module", &emitted),
            Some("not in Rust's upper camel case")
        );
    }
}
