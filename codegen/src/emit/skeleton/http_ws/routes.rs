//! The typed HTTP side of an `http+websocket` skeleton: a reply enum per route (one variant
//! per documented status) and an HTTP client per role that calls the server's routes.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use crate::ir::{Body, Protocol, Route};
use crate::naming::{field_ident, type_ident};
use crate::naming::{pascal_case, snake_case};

pub(super) fn reply_ident(r: &Route) -> Ident {
    format_ident!("{}Reply", pascal_case(&r.name))
}

/// One variant per documented status of a route, plus `Other`.
pub(super) fn emit_reply(r: &Route) -> TokenStream {
    let name = reply_ident(r);
    let doc = format!(" What `{} {}` answered, by status.", r.method, r.path);
    let mut variants = Vec::new();
    let mut arms = Vec::new();
    for resp in &r.responses {
        let v = format_ident!("Status{}", resp.status);
        let status = resp.status;
        let d = format!(" {}: {}", resp.status, resp.when);
        match &resp.body {
            Body::Json(t) => {
                let t = type_ident(t);
                variants.push(quote!(#[doc = #d] #v(proto::#t),));
                arms.push(quote! {
                    #status => {
                        let value: proto::#t = agentwire_runtime::decode_json(&reply.body)?;
                        value.validate()?;
                        Self::#v(value)
                    }
                });
            }
            Body::Text(_) => {
                variants.push(quote!(#[doc = #d] #v(String),));
                arms.push(quote!(#status => Self::#v(reply.body),));
            }
            Body::None => {
                variants.push(quote!(#[doc = #d] #v,));
                arms.push(quote!(#status => Self::#v,));
            }
        }
    }
    quote! {
        #[doc = #doc]
        #[derive(Debug, Clone, PartialEq)]
        pub enum #name {
            #(#variants)*
            /// A status the spec does not list.
            Other(hw::HttpReply),
        }

        impl #name {
            /// Decodes and validates the body of a documented status.
            pub fn decode(reply: hw::HttpReply) -> Result<Self, hw::ClientError> {
                Ok(match reply.status {
                    #(#arms)*
                    _ => Self::Other(reply),
                })
            }
        }
    }
}

/// One HTTP client per role that calls the server's routes (the server's own calls are the
/// engine's business): a method per route, its body and path parameters validated first.
pub(super) fn emit_http_clients(p: &Protocol, server: &str) -> TokenStream {
    let mut out = TokenStream::new();
    for role in p.roles.iter().filter(|r| *r != server) {
        let routes: Vec<&Route> = p
            .routes
            .iter()
            .filter(|r| &r.from == role && !r.path.starts_with('{'))
            .collect();
        if routes.is_empty() {
            continue;
        }
        let client = format_ident!("{}Http", pascal_case(role));
        let doc = format!(" HTTP client of the `{role}` role: one method per route it calls.");
        let methods = routes.iter().map(|r| emit_client_method(r));
        out.extend(quote! {
            #[doc = #doc]
            #[derive(Debug, Clone)]
            pub struct #client {
                http: agentwire_transport::reqwest::Client,
                base_url: String,
            }

            impl #client {
                /// A client of the server at `base_url` (e.g. `http://127.0.0.1:8080`).
                pub fn new(base_url: impl Into<String>) -> Self {
                    Self {
                        http: agentwire_transport::reqwest::Client::new(),
                        base_url: base_url.into().trim_end_matches('/').to_owned(),
                    }
                }

                /// Presents `token` as `Authorization: Bearer <token>` on every call, for a
                /// server that demands a shared token (`Guard::token` of the session server).
                pub fn with_token(mut self, token: &str) -> Result<Self, hw::ClientError> {
                    self.http = hw::bearer_client(token)?;
                    Ok(self)
                }

                #(#methods)*
            }
        });
    }
    out
}

fn emit_client_method(r: &Route) -> TokenStream {
    let method = format_ident!("{}", snake_case(&r.name));
    let http_method = &r.method;
    let reply = reply_ident(r);
    let params = r.param_names();
    let args = params.iter().map(|n| {
        let a = field_ident(n);
        quote!(#a: &str,)
    });
    let checks = params.iter().map(|n| {
        let a = field_ident(n);
        let ptr = format!("/path/{n}");
        match r.path_params.get(n).map(String::as_str) {
            Some(t) if t != "string" => {
                let t = type_ident(t);
                quote! {
                    let #a = #a.trim();
                    proto::#t(#a.to_owned()).validate().map_err(|e| e.under(#ptr))?;
                }
            }
            _ => TokenStream::new(),
        }
    });
    let mut fmt = String::from("{}");
    for seg in r.path.split('/').skip(1) {
        fmt.push('/');
        fmt.push_str(if seg.starts_with(':') { "{}" } else { seg });
    }
    let fmt_args = params.iter().map(|n| field_ident(n));
    let (body_arg, body_expr, content_type) = match &r.body {
        Body::Json(t) => {
            let t = type_ident(t);
            (
                quote!(body: &proto::#t),
                quote! {{
                    body.validate().map_err(|e| e.under("/body"))?;
                    agentwire_runtime::serde_json::to_string(body).unwrap_or_default()
                }},
                "application/json",
            )
        }
        Body::Text(_) => (
            quote!(body: &str),
            quote!(body.to_owned()),
            "text/plain; charset=utf-8",
        ),
        Body::None => (quote!(), quote!(String::new()), "text/plain"),
    };
    let doc = format!(
        " `{} {}`{}",
        r.method,
        r.path,
        if r.summary.is_empty() {
            String::new()
        } else {
            format!(": {}", r.summary)
        }
    );
    quote! {
        #[doc = #doc]
        pub async fn #method(&self, #(#args)* #body_arg) -> Result<#reply, hw::ClientError> {
            #(#checks)*
            let url = format!(#fmt, self.base_url, #(#fmt_args),*);
            let body = #body_expr;
            let reply = hw::request(&self.http, #http_method, &url, #content_type, body).await?;
            #reply::decode(reply)
        }
    }
}
