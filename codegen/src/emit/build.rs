//! Ways to build a generated struct without spelling out every optional field: `Default`
//! where no field needs a value from the caller, otherwise `new` taking the required fields;
//! and a chainable `with_<field>` setter per optional field.

use std::collections::BTreeMap;

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};

use crate::ir::{Field, Ty, TypeDef, TypeKind};
use crate::naming::variant_names;
use crate::naming::{extra_ident, field_ident, rust_ty, type_ident};

/// Clippy's `too_many_arguments` limit: a `new` with more parameters allows the lint.
const MAX_ARGS: usize = 7;

/// How a field gets its value when the struct is built.
enum Start {
    /// Optional: absent until its setter runs.
    Absent,
    /// Required, but its type has exactly one value (a lone literal such as `jsonrpc: "2.0"`).
    Only(TokenStream),
    /// Required: a parameter of `new`.
    Given,
}

fn start(f: &Field, types: &BTreeMap<String, TypeDef>) -> Start {
    if f.optional {
        return Start::Absent;
    }
    match &f.ty {
        Ty::BoolLiteral(true) => Start::Only(quote!(agentwire_runtime::literal::True)),
        Ty::BoolLiteral(false) => Start::Only(quote!(agentwire_runtime::literal::False)),
        Ty::Named(name) => match types.get(name).map(|d| &d.kind) {
            Some(TypeKind::Enum(values)) if values.len() == 1 => {
                let ty = type_ident(name);
                let variant = format_ident!("{}", variant_names([values[0].as_str()])[0]);
                Start::Only(quote!(#ty::#variant))
            }
            _ => Start::Given,
        },
        _ => Start::Given,
    }
}

/// Whether `#[derive(Default)]` gives every field its starting value (no lone-value enum,
/// which has no `Default`, and nothing required from the caller).
pub fn derives_default(fields: &[Field], types: &BTreeMap<String, TypeDef>) -> bool {
    fields.iter().all(|f| match start(f, types) {
        Start::Absent => true,
        Start::Only(_) => matches!(f.ty, Ty::BoolLiteral(_)),
        Start::Given => false,
    })
}

/// The parameter type and the conversion of one value: text takes `impl Into<String>`.
fn param(ty: &Ty, value: &Ident) -> (TokenStream, TokenStream) {
    match ty {
        Ty::String => (quote!(impl Into<String>), quote!(#value.into())),
        other => (rust_ty(other), quote!(#value)),
    }
}

/// `Default` (when not derived) or `new`, and the `with_*` setters of struct `name`; `open`
/// and `undeclared` say which members beyond the fields it holds (`TypeDef::keeps_undeclared`).
pub fn emit_builders(
    name: &Ident,
    fields: &[Field],
    (open, undeclared): (bool, bool),
    types: &BTreeMap<String, TypeDef>,
) -> TokenStream {
    let starts: Vec<Start> = fields.iter().map(|f| start(f, types)).collect();
    let extra = open.then(|| {
        let ident = extra_ident(fields);
        quote!(#ident: agentwire_runtime::Members::new(),)
    });
    let extra = match undeclared {
        true => quote!(#extra __undeclared: ::std::default::Default::default(),),
        false => quote!(#extra),
    };
    let mut params = Vec::new();
    let inits: Vec<TokenStream> = fields
        .iter()
        .zip(&starts)
        .map(|(f, s)| {
            let ident = field_ident(&f.name);
            match s {
                Start::Absent => quote!(#ident: None,),
                Start::Only(value) => quote!(#ident: #value,),
                Start::Given => {
                    let (ty, value) = param(&f.ty, &ident);
                    params.push(quote!(#ident: #ty));
                    // A value taken as is uses the shorthand (clippy's `redundant_field_names`).
                    if matches!(f.ty, Ty::String) {
                        quote!(#ident: #value,)
                    } else {
                        quote!(#ident,)
                    }
                }
            }
        })
        .collect();
    let setters = setters(fields);
    if params.is_empty() {
        let default = (!derives_default(fields, types)).then(|| {
            quote! {
                impl Default for #name {
                    fn default() -> Self {
                        Self { #(#inits)* #extra }
                    }
                }
            }
        });
        let setters = (!setters.is_empty()).then(|| quote!(impl #name { #(#setters)* }));
        return quote!(#default #setters);
    }
    let allow = (params.len() > MAX_ARGS).then(|| quote!(#[allow(clippy::too_many_arguments)]));
    let doc = format!(" Builds `{name}` from its required fields.");
    quote! {
        impl #name {
            #[doc = #doc]
            ///
            /// The optional fields start absent; the `with_*` methods set them.
            #allow
            pub fn new(#(#params),*) -> Self {
                Self { #(#inits)* #extra }
            }
            #(#setters)*
        }
    }
}

/// One `with_<field>` per optional field, named after the Rust field (a name taken twice
/// gets `_` appended).
fn setters(fields: &[Field]) -> Vec<TokenStream> {
    let mut taken: Vec<String> = Vec::new();
    fields
        .iter()
        .filter(|f| f.optional)
        .map(|f| {
            let ident = field_ident(&f.name);
            let mut name = format!("with_{}", ident.to_string().trim_start_matches("r#"));
            while taken.contains(&name) {
                name.push('_');
            }
            taken.push(name.clone());
            let setter = Ident::new(&name, Span::call_site());
            let value = format_ident!("value");
            let (ty, conv) = param(&f.ty, &value);
            let doc = format!(" Sets `{}`.", f.name);
            quote! {
                #[doc = #doc]
                pub fn #setter(mut self, value: #ty) -> Self {
                    self.#ident = Some(#conv);
                    self
                }
            }
        })
        .collect()
}
