//! Validator emitter: `impl Validate` for structs and newtypes, checking every constraint the
//! type cannot express and recursing into nested values with their JSON pointer.

use proc_macro2::TokenStream;
use quote::quote;

use crate::emit::types::{field_ident, type_ident};
use crate::ir::{Constraints, Ty, TypeDef, TypeKind};

/// The `Validate` impl of a struct or constrained newtype (enums and unions get theirs from
/// the type emitter).
pub fn emit_validate(def: &TypeDef) -> TokenStream {
    let name = type_ident(&def.name);
    let body = match &def.kind {
        TypeKind::Struct(fields) => {
            let checks = fields.iter().filter_map(|f| {
                let ident = field_ident(&f.name);
                let check = value_checks(&f.ty, &f.constraints, quote!(v))?;
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
        } if !constraints.is_empty() => value_checks(target, constraints, quote!(v))
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
fn value_checks(ty: &Ty, c: &Constraints, v: TokenStream) -> Option<TokenStream> {
    if let Ty::Nullable(inner) = ty {
        let inner = value_checks(inner, c, quote!(v))?;
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
            if needs_walk(inner) {
                out.push(quote!(agentwire_runtime::Validate::validate_at(#v, at, errors);));
            }
        }
        Ty::Map(inner) if needs_walk(inner) => {
            out.push(quote!(agentwire_runtime::Validate::validate_at(#v, at, errors);));
        }
        Ty::Named(_) => {
            out.push(quote!(agentwire_runtime::Validate::validate_at(#v, at, errors);));
        }
        _ => {}
    }
    (!out.is_empty()).then(|| quote!(#(#out)*))
}

/// Whether values of `ty` can hold something that fails validation.
fn needs_walk(ty: &Ty) -> bool {
    match ty {
        Ty::Named(_) => true,
        Ty::Array(inner) | Ty::Map(inner) | Ty::Nullable(inner) => needs_walk(inner),
        _ => false,
    }
}
