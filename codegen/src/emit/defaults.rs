//! Declared defaults (`@default`) in the generated module: for each field that has one, a
//! `<FIELD>_DEFAULT` constant and a `<field>_or_default()` accessor on its type, so code reads
//! an absent field as the spec says rather than as Rust's zero value.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::Value;

use std::collections::{BTreeMap, BTreeSet};

use crate::ir::{Field, Protocol, Scalar, Ty, TypeDef, TypeKind, Variant};
use crate::naming::Names;

/// Whether `name` is the default member of a tagged union (what an object without the
/// discriminator reads as), so it reads without its tag even decoded alone.
pub fn is_default_member(types: &BTreeMap<String, TypeDef>, name: &str) -> bool {
    types.values().any(|d| match &d.kind {
        TypeKind::Union { variants, .. } => {
            variants.iter().any(|v| v.default && v.type_name == name)
        }
        _ => false,
    })
}

/// `TaggedUnion::DEFAULT_KIND` for a union with a default member; nothing otherwise (the
/// trait's own `None`).
pub fn default_kind(variants: &[Variant]) -> TokenStream {
    match variants.iter().find(|v| v.default) {
        Some(v) => {
            let value = &v.value;
            quote!(const DEFAULT_KIND: Option<&'static str> = Some(#value);)
        }
        None => TokenStream::new(),
    }
}

/// The constants the spec declares for the transport: `DEFAULT_PORT` (`transport.port`),
/// `CONTENT_TYPE` (`transport.content_type`) and `WEBSOCKET_PATH` (`sessions.websocket`), each
/// only when declared.
pub fn emit_transport_constants(p: &Protocol) -> TokenStream {
    let mut out = TokenStream::new();
    if let Some(port) = p.transport.port {
        let port = proc_macro2::Literal::u16_unsuffixed(port);
        out.extend(quote! {
            /// The port the accepting role listens on by default (`transport.port`).
            pub const DEFAULT_PORT: u16 = #port;
        });
    }
    if let Some(ct) = &p.transport.content_type {
        out.extend(quote! {
            /// The `Content-Type` of a frame whose header leaves it out
            /// (`transport.content_type`); frames are read in its charset, UTF-8.
            pub const CONTENT_TYPE: &str = #ct;
        });
    }
    if let Some(s) = &p.sessions {
        let path = &s.websocket;
        out.extend(quote! {
            /// The WebSocket path the session server serves (`sessions.websocket`).
            pub const WEBSOCKET_PATH: &str = #path;
        });
    }
    out
}

/// The `impl` blocks of every type with a defaulted field (empty when there is none), except
/// the types in `skip` (a versioned folder's shared types, whose module writes their blocks).
pub fn emit_defaults(p: &Protocol, skip: &BTreeSet<String>) -> TokenStream {
    p.types
        .values()
        .filter(|d| !skip.contains(&d.name))
        .filter_map(|d| defaults_impl(p, d))
        .collect()
}

/// The `impl` block of `def`'s defaulted fields; `None` when it has none.
pub fn defaults_impl(p: &Protocol, def: &TypeDef) -> Option<TokenStream> {
    let TypeKind::Struct(fields) = &def.kind else {
        return None;
    };
    let items: Vec<TokenStream> = fields
        .iter()
        .filter_map(|f| f.default.as_ref().and_then(|v| accessor(p, f, v)))
        .collect();
    if items.is_empty() {
        return None;
    }
    let ty = Names::of(p).type_path(&def.name);
    Some(quote! {
        impl #ty {
            #(#items)*
        }
    })
}

/// The constant and accessor of one field, for the scalar types they can be written for;
/// other defaults reach the schema and the docs only.
fn accessor(p: &Protocol, f: &Field, v: &Value) -> Option<TokenStream> {
    let field = Names::of(p).field(&f.name);
    let plain = field.as_str();
    let konst = format_ident!("{}_DEFAULT", plain.to_uppercase());
    let getter = format_ident!("{}_or_default", plain);
    let (ty, lit) = scalar(&f.ty, v)?;
    let doc_const = format!(" The declared default of `{}`: `{v}`.", f.name);
    // proto3 implicit presence cannot tell an absent field from its zero value.
    let (body, doc_get) = if Names::of(p).absent_is_zero() && f.defaulted {
        let zero = match &f.ty {
            Ty::String => quote!(self.#field.is_empty()),
            Ty::Bool => quote!(!self.#field),
            Ty::Scalar(Scalar::Float | Scalar::Double) => quote!(self.#field == 0.0),
            _ => quote!(self.#field == 0),
        };
        let read = if matches!(f.ty, Ty::String) {
            quote!(self.#field.as_str())
        } else {
            quote!(self.#field)
        };
        (
            quote!(if #zero { Self::#konst } else { #read }),
            format!(
                " `{}`, read as `{v}` when absent (proto3: when zero).",
                f.name
            ),
        )
    } else if f.optional && !f.ty.admits_null() {
        let read = if matches!(f.ty, Ty::String) {
            quote!(self.#field.as_deref())
        } else {
            quote!(self.#field)
        };
        (
            quote!(#read.unwrap_or(Self::#konst)),
            format!(" `{}`, read as `{v}` when absent.", f.name),
        )
    } else {
        return None;
    };
    Some(quote! {
        #[doc = #doc_const]
        pub const #konst: #ty = #lit;
        #[doc = #doc_get]
        pub fn #getter(&self) -> #ty {
            #body
        }
    })
}

/// The Rust type an accessor returns and the default as a literal of it.
fn scalar(ty: &Ty, v: &Value) -> Option<(TokenStream, TokenStream)> {
    Some(match (ty, v) {
        (Ty::String, Value::String(s)) => (quote!(&'static str), quote!(#s)),
        (Ty::Bool, Value::Bool(b)) => (quote!(bool), quote!(#b)),
        (Ty::Integer, Value::Number(n)) => {
            let n = proc_macro2::Literal::i64_unsuffixed(n.as_i64()?);
            (quote!(i64), quote!(#n))
        }
        (Ty::Number, Value::Number(n)) => {
            let n = proc_macro2::Literal::f64_unsuffixed(n.as_f64()?);
            (quote!(f64), quote!(#n))
        }
        (Ty::Scalar(s), Value::Number(n)) => {
            let rust = crate::naming::scalar_ty(*s);
            let lit: TokenStream = match s {
                Scalar::Float | Scalar::Double => {
                    let f = proc_macro2::Literal::f64_unsuffixed(n.as_f64()?);
                    quote!(#f)
                }
                Scalar::Bytes => return None,
                _ => {
                    let i = n.as_i64()?;
                    let lit = proc_macro2::Literal::i64_unsuffixed(i);
                    quote!(#lit)
                }
            };
            (rust, lit)
        }
        _ => return None,
    })
}
