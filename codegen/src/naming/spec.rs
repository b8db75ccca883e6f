//! The Rust names of the types agentwire writes itself (a spec from any front end but
//! protobuf, whose types prost writes): a type keeps its spec name, a JSON key becomes a
//! snake_case field (`r#type` for a keyword), a type expression its Rust type.

use proc_macro2::{Ident, TokenStream};
use quote::{ToTokens, quote};

use super::case::{field_name, pascal_case};
use super::keywords::is_keyword;
use super::name::Name;
use super::prost::{scalar_ty, well_known_path};
use crate::ir::{Field, Ty};

/// The Rust name of a spec type (checked to be an identifier where the spec is loaded).
pub fn type_name(name: &str) -> Name {
    Name::plain(name)
}

/// [`type_name`] as an identifier.
pub fn type_ident(name: &str) -> Ident {
    type_name(name).ident()
}

/// The Rust field name of a JSON key (`type` becomes `r#type`).
pub fn field(json_name: &str) -> Name {
    let snake = field_name(json_name);
    if is_keyword(&snake) {
        Name::raw(snake)
    } else {
        Name::plain(snake)
    }
}

/// [`field`] as an identifier.
pub fn field_ident(json_name: &str) -> Ident {
    field(json_name).ident()
}

/// The Rust name of an open struct's extra members: `extra`, unless a field has it.
pub fn extra_ident(fields: &[Field]) -> Ident {
    let mut name = String::from("extra");
    while fields.iter().any(|f| field_ident(&f.name) == name) {
        name.push('_');
    }
    Name::plain(name).ident()
}

/// The types a JSON-RPC protocol's module declares for each role that takes part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoleSet {
    /// The requests the role sends.
    Request,
    /// The notifications the role sends.
    Notification,
    /// The results of the requests the role sends.
    Result,
    /// Everything the role sends: requests, notifications and responses.
    Message,
}

impl RoleSet {
    pub const ALL: [RoleSet; 4] = [
        Self::Request,
        Self::Notification,
        Self::Result,
        Self::Message,
    ];
}

/// `<Role>Request`, `<Role>Notification`, `<Role>Result`, `<Role>Message`.
pub fn role_set(role: &str, set: RoleSet) -> Name {
    Name::plain(format!("{}{set:?}", pascal_case(role)))
}

/// The struct of an HTTP route's exchange: `<Route>Exchange`.
pub fn exchange(route: &str) -> Name {
    Name::plain(format!("{}Exchange", pascal_case(route)))
}

/// The Rust type of a type expression.
pub fn rust_ty(ty: &Ty) -> TokenStream {
    match ty {
        Ty::String => quote!(String),
        Ty::Bool => quote!(bool),
        Ty::Number => quote!(f64),
        Ty::Integer => quote!(i64),
        Ty::Scalar(s) => scalar_ty(*s),
        Ty::WellKnown(w) => well_known_path(w).into_token_stream(),
        Ty::Any => quote!(agentwire_runtime::serde_json::Value),
        Ty::BoolLiteral(true) => quote!(agentwire_runtime::literal::True),
        Ty::BoolLiteral(false) => quote!(agentwire_runtime::literal::False),
        Ty::Array(inner) => {
            let inner = rust_ty(inner);
            quote!(Vec<#inner>)
        }
        Ty::Map(inner) => {
            let inner = rust_ty(inner);
            quote!(::std::collections::BTreeMap<String, #inner>)
        }
        Ty::Nullable(inner) => {
            let inner = rust_ty(inner);
            quote!(Option<#inner>)
        }
        Ty::Named(name) => type_ident(name).into_token_stream(),
    }
}
