//! Validator emitter: `impl Validate` for structs and newtypes, checking every constraint the
//! type cannot express and recursing into nested values with their JSON pointer.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::TokenStream;
use quote::quote;

use crate::emit::types::{field_ident, type_ident};
use crate::ir::{Constraints, Ty, TypeDef, TypeKind};

/// The names of the types whose values can fail validation: those with a constraint of their
/// own or holding, at any depth, a type that has one. Validators skip every field outside this
/// set, so a field with nothing to check costs nothing, not even a pointer segment.
pub fn fallible_types(types: &BTreeMap<String, TypeDef>) -> BTreeSet<String> {
    let mut fallible = BTreeSet::new();
    // A fixpoint, because types refer to each other (and to themselves) in any order.
    loop {
        let before = fallible.len();
        for (name, def) in types {
            if !fallible.contains(name) && can_fail(def, &fallible) {
                fallible.insert(name.clone());
            }
        }
        if fallible.len() == before {
            return fallible;
        }
    }
}

fn can_fail(def: &TypeDef, fallible: &BTreeSet<String>) -> bool {
    match &def.kind {
        TypeKind::Struct(fields) => fields
            .iter()
            .any(|f| value_checks(&f.ty, &f.constraints, quote!(v), fallible).is_some()),
        TypeKind::Enum(_) => false,
        TypeKind::Union { variants, .. } => {
            variants.iter().any(|v| fallible.contains(&v.type_name))
        }
        TypeKind::Alias {
            target,
            constraints,
        } => value_checks(target, constraints, quote!(v), fallible).is_some(),
    }
}

/// The `Validate` impl of a struct or constrained newtype (enums and unions get theirs from
/// the type emitter). `fallible` is [`fallible_types`] of the protocol.
pub fn emit_validate(def: &TypeDef, fallible: &BTreeSet<String>) -> TokenStream {
    let name = type_ident(&def.name);
    let body = match &def.kind {
        TypeKind::Struct(fields) => {
            let checks = fields.iter().filter_map(|f| {
                let ident = field_ident(&f.name);
                let check = value_checks(&f.ty, &f.constraints, quote!(v), fallible)?;
                let json = &f.name;
                Some(if f.optional {
                    quote! {
                        if let Some(v) = &self.#ident {
                            at.with(#json, |at| { #check });
                        }
                    }
                } else {
                    quote! {
                        let v = &self.#ident;
                        at.with(#json, |at| { #check });
                    }
                })
            });
            quote!(#(#checks)*)
        }
        TypeKind::Alias {
            target,
            constraints,
        } if !constraints.is_empty() => value_checks(target, constraints, quote!(v), fallible)
            .map(|c| quote! { let v = &self.0; #c })
            .unwrap_or_default(),
        _ => return TokenStream::new(),
    };
    let (at, errors) = if body.is_empty() {
        (quote!(_at), quote!(_errors))
    } else {
        (quote!(at), quote!(errors))
    };
    quote! {
        impl agentwire_runtime::Validate for #name {
            fn validate_at(&self, #at: &mut agentwire_runtime::JsonPointer, #errors: &mut Vec<agentwire_runtime::FieldError>) {
                #body
            }
        }
    }
}

/// Checks for a value `v` (a reference) of type `ty`; `None` when nothing can fail.
fn value_checks(
    ty: &Ty,
    c: &Constraints,
    v: TokenStream,
    fallible: &BTreeSet<String>,
) -> Option<TokenStream> {
    if let Ty::Nullable(inner) = ty {
        let inner = value_checks(inner, c, quote!(v), fallible)?;
        return Some(quote! { if let Some(v) = #v { #inner } });
    }
    let rt = quote!(agentwire_runtime::validate);
    let mut out = Vec::new();
    match ty {
        Ty::String => {
            if c.trim {
                // `@trim`: the receiver trims before checking, so the checks see the trimmed value.
                out.push(quote!(let v: &str = #v.trim();));
            }
            let v = if c.trim { quote!(v) } else { v };
            if let Some(n) = c.min_length {
                out.push(quote!(#rt::min_length(#v, #n, at, errors);));
            }
            if let Some(n) = c.max_length {
                out.push(quote!(#rt::max_length(#v, #n, at, errors);));
            }
            if let Some(p) = &c.pattern {
                out.push(quote! {
                    static PATTERN: ::std::sync::LazyLock<agentwire_runtime::regex::Regex> =
                        ::std::sync::LazyLock::new(|| {
                            agentwire_runtime::regex::Regex::new(#p).expect("pattern checked when the spec was loaded")
                        });
                    #rt::pattern(#v, &PATTERN, #p, at, errors);
                });
            }
            if let Some(f) = &c.format {
                out.push(quote!(#rt::format(#v, #f, at, errors);));
            }
        }
        Ty::Number | Ty::Integer => {
            let as_f64 = if *ty == Ty::Integer {
                quote!(*#v as f64)
            } else {
                quote!(*#v)
            };
            if let Some(n) = c.minimum {
                out.push(quote!(#rt::minimum(#as_f64, #n, at, errors);));
            }
            if let Some(n) = c.maximum {
                out.push(quote!(#rt::maximum(#as_f64, #n, at, errors);));
            }
        }
        Ty::Array(inner) => {
            if let Some(n) = c.min_items {
                out.push(quote!(#rt::min_items(#v, #n, at, errors);));
            }
            if let Some(n) = c.max_items {
                out.push(quote!(#rt::max_items(#v, #n, at, errors);));
            }
            if needs_walk(inner, fallible) {
                out.push(quote!(agentwire_runtime::Validate::validate_at(#v, at, errors);));
            }
        }
        Ty::Map(inner) if needs_walk(inner, fallible) => {
            out.push(quote!(agentwire_runtime::Validate::validate_at(#v, at, errors);));
        }
        Ty::Named(name) if fallible.contains(name) => {
            out.push(quote!(agentwire_runtime::Validate::validate_at(#v, at, errors);));
        }
        _ => {}
    }
    (!out.is_empty()).then(|| quote!(#(#out)*))
}

/// Whether values of `ty` can hold something that fails validation.
fn needs_walk(ty: &Ty, fallible: &BTreeSet<String>) -> bool {
    match ty {
        Ty::Named(name) => fallible.contains(name),
        Ty::Array(inner) | Ty::Map(inner) | Ty::Nullable(inner) => needs_walk(inner, fallible),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::ts::load_text;

    #[test]
    fn fallibility_follows_references_at_any_depth_and_through_cycles() {
        let types = load_text(
            r#"
/** @minLength 1 */
export type Id = string;
export interface Plain { text: string; n: number; kind: "a" | "b" }
interface HoldsId { ids: Id[] }
interface Deep { inner?: { holder: HoldsId | null } }
interface Tree { children: Tree[]; label: string }
interface A { type: "a"; plain: Plain }
interface B { type: "b"; deep: Deep }
type AorB = A | B;
type OnlyA = A;
            "#,
        );
        let fallible = fallible_types(&types);
        for name in ["Id", "HoldsId", "Deep", "B", "AorB"] {
            assert!(fallible.contains(name), "{name} can fail: {fallible:?}");
        }
        for name in ["Plain", "Tree", "A", "OnlyA"] {
            assert!(!fallible.contains(name), "{name} has nothing to check");
        }
        // A validator walks into fallible fields only.
        let a = emit_validate(&types["A"], &fallible).to_string();
        assert!(!a.contains("\"plain\""), "{a}");
        let b = emit_validate(&types["B"], &fallible).to_string();
        assert!(b.contains("\"deep\""), "{b}");
    }
}
