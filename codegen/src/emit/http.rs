//! HTTP exchange emitter: one typed struct per route (status, path parameters, body) and an
//! `HttpExchange` enum that matches a recorded request to its route.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use crate::ir::{Body, Protocol, Route};
use crate::naming::pascal_case;
use crate::naming::{field_ident, type_ident};

/// The struct name of a route's exchange.
pub fn exchange_ident(route: &Route) -> Ident {
    crate::naming::exchange(&route.name).ident()
}

/// The Rust type of a path parameter.
fn param_ty(route: &Route, name: &str) -> TokenStream {
    match route.path_params.get(name).map(String::as_str) {
        None | Some("string") => quote!(String),
        Some(t) => type_ident(t).into_token_stream(),
    }
}

use quote::ToTokens;

pub fn emit_http(p: &Protocol) -> TokenStream {
    if p.routes.is_empty() {
        return TokenStream::new();
    }
    let structs = p.routes.iter().map(exchange_struct);
    let variants = p.routes.iter().map(|r| {
        let v = format_ident!("{}", pascal_case(&r.name));
        let s = exchange_ident(r);
        quote!(#v(#s),)
    });
    let name_arms = p.routes.iter().map(|r| {
        let v = format_ident!("{}", pascal_case(&r.name));
        let n = &r.name;
        quote!(Self::#v(_) => #n,)
    });
    let decode_arms = p.routes.iter().map(decode_arm);
    quote! {
        #(#structs)*

        /// One HTTP exchange of the protocol, typed by its route.
        #[derive(Debug, Clone, PartialEq)]
        pub enum HttpExchange { #(#variants)* }

        impl HttpExchange {
            /// The route's name in the spec.
            pub fn route(&self) -> &'static str {
                match self { #(#name_arms)* }
            }

            /// Matches a recorded exchange (sender role, method, path, status, body) to its
            /// route and decodes the path parameters and body; errors point under `/path` and
            /// `/body`.
            pub fn decode(
                from: &str,
                method: &str,
                path: &str,
                status: Option<u16>,
                body: &agentwire_runtime::serde_json::Value,
            ) -> Result<Self, agentwire_runtime::Invalid> {
                #(#decode_arms)*
                Err(agentwire_runtime::http::no_route(from, method, path))
            }
        }
    }
}

/// The struct of one route's exchange: its status, path parameters and body.
fn exchange_struct(r: &crate::ir::Route) -> TokenStream {
    let name = exchange_ident(r);
    let doc = format!(
        " `{} {}` from `{}` to `{}`.",
        r.method, r.path, r.from, r.to
    );
    let params = r.param_names().into_iter().map(|n| {
        let ident = field_ident(&n);
        let ty = param_ty(r, &n);
        let d = format!(" Path parameter `:{n}`.");
        quote!(#[doc = #d] pub #ident: #ty,)
    });
    let body = match &r.body {
        Body::Json(t) => {
            let t = type_ident(t);
            quote!(pub body: #t,)
        }
        Body::Text(_) => quote!(pub body: String,),
        Body::None => TokenStream::new(),
    };
    quote! {
        #[doc = #doc]
        #[derive(Debug, Clone, PartialEq)]
        pub struct #name {
            /// The response status, when the exchange recorded one.
            pub status: Option<u16>,
            #(#params)*
            #body
        }
    }
}

/// The arm of `HttpExchange::decode` that matches route `r` and decodes its exchange.
fn decode_arm(r: &crate::ir::Route) -> TokenStream {
    let v = format_ident!("{}", pascal_case(&r.name));
    let s = exchange_ident(r);
    let (from, method, template) = (&r.from, &r.method, &r.path);
    let params = r.param_names().into_iter().map(|n| {
        let ident = field_ident(&n);
        let ty = param_ty(r, &n);
        let pointer = format!("/path/{n}");
        quote! {
            #ident: {
                let raw = agentwire_runtime::http::param(&params, #n);
                let value: #ty = agentwire_runtime::decode_value(&agentwire_runtime::serde_json::Value::String(raw.to_owned()))
                    .map_err(|e| e.under(#pointer))?;
                agentwire_runtime::Validate::validate(&value).map_err(|e| e.under(#pointer))?;
                value
            },
        }
    });
    let body = match &r.body {
        Body::Json(t) => {
            let t = type_ident(t);
            quote! {
                body: {
                    let value: #t = agentwire_runtime::decode_value(body).map_err(|e| e.under("/body"))?;
                    agentwire_runtime::Validate::validate(&value).map_err(|e| e.under("/body"))?;
                    value
                },
            }
        }
        Body::Text(_) => quote! {
            body: agentwire_runtime::http::text_body(body)?,
        },
        Body::None => TokenStream::new(),
    };
    let binding = if r.param_names().is_empty() {
        quote!(_params)
    } else {
        quote!(params)
    };
    quote! {
        if from == #from
            && method.eq_ignore_ascii_case(#method)
            && let Some(#binding) = agentwire_runtime::http::match_path(#template, path)
        {
            return Ok(Self::#v(#s { status, #(#params)* #body }));
        }
    }
}
