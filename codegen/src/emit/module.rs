//! Assembles the generated module of a JSON protocol: its types, validators, per-channel
//! `from_json`/`to_json`, and for JSON-RPC protocols the method sets of each side.

use std::collections::BTreeSet;

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use crate::emit::types::emit_type;
use crate::emit::validate::Validators;
use crate::ir::{Call, Method, Protocol};
use crate::naming::{Names, RoleSet, role_set, type_ident};

/// The module's items as one token stream (no header, not yet formatted). The types in
/// `shared` (a versioned folder's, see `emit::shared`) are not written here but re-exported
/// from the folder's `shared` module.
pub fn emit_module(p: &Protocol, shared: &BTreeSet<String>) -> TokenStream {
    let validators = Validators::new(&p.types, None);
    let types = p
        .types
        .values()
        .filter(|d| !shared.contains(&d.name))
        .map(|d| {
            let ty = emit_type(d, &p.types);
            let validate = validators.emit(d);
            quote!(#ty #validate)
        });
    let reexport = crate::emit::shared::reexport(shared);
    let channels = p.channels.iter().map(|c| {
        let union = type_ident(&c.union);
        let doc = format!(" Decodes one `{}` -> `{}` message and checks every constraint of the spec; a failure lists every error found.", c.from, c.to);
        quote! {
            impl #union {
                #[doc = #doc]
                pub fn from_json(json: &str) -> Result<Self, agentwire_runtime::Invalid> {
                    agentwire_runtime::decode_checked(json)
                }

                /// Encodes the message as one JSON text.
                pub fn to_json(&self) -> String {
                    agentwire_runtime::serde_json::to_string(self).expect("generated messages always serialize")
                }
            }
        }
    });
    let rpc = if p.methods.is_empty() {
        TokenStream::new()
    } else {
        emit_jsonrpc(p)
    };
    let (surface, dynamic) = emit_surface_skipping(p, shared);
    let http = crate::emit::http::emit_http(p);
    // Every module with a transport has a checker (skeletons observe through it); without
    // machines it accepts every message.
    let machine_mod = machine_mod(p);
    quote! {
        #surface
        #reexport
        #(#types)*
        #(#channels)*
        #rpc
        #http
        #dynamic
        #machine_mod
    }
}

/// `pub mod machine;`, unless the protocol declares only types.
pub fn machine_mod(p: &Protocol) -> TokenStream {
    if p.types_only() {
        return TokenStream::new();
    }
    quote! {
        /// The sequence checker compiled from `machine.yaml`.
        pub mod machine;
    }
}

/// What every module offers, JSON or protobuf: the constants `MODULE`, `ROLES`, `SCHEMA`,
/// and the functions `decode_type` and `decode_message` (returned apart, as modules put them
/// at the top and the bottom).
pub fn emit_surface(p: &Protocol) -> (TokenStream, TokenStream) {
    emit_surface_skipping(p, &BTreeSet::new())
}

/// [`emit_surface`] without the defaults of the types in `shared`, which their own module
/// writes.
fn emit_surface_skipping(p: &Protocol, shared: &BTreeSet<String>) -> (TokenStream, TokenStream) {
    let module = &p.module;
    let roles = &p.roles;
    let names = Names::of(p);
    // A version's module sits one folder deeper (`src/<module>/<version>.rs`); a protobuf
    // module's `mod.rs` does too.
    let paths = crate::naming::FilePaths::of(p);
    let up = match names {
        Names::Spec => paths.up_to_root,
        Names::Prost => names.up_to_src(),
    };
    let schema_path = format!("{up}/{}", paths.schema);
    let dynamic = match names {
        // Protobuf types under JSON-RPC: the method sets are over the prost types, whose
        // serde impls are pbjson's (ProtoJSON).
        Names::Prost => {
            let rpc = emit_jsonrpc(p);
            let proto = emit_proto_dynamic(p);
            quote!(#rpc #proto)
        }
        Names::Spec => emit_dynamic(p),
    };
    let defaults = crate::emit::defaults::emit_defaults(p, shared);
    let transport = crate::emit::defaults::emit_transport_constants(p);
    let consts = quote! {
        /// The protocol's module name.
        pub const MODULE: &str = #module;
        /// The roles that exchange messages.
        pub const ROLES: &[&str] = &[#(#roles),*];
        /// The JSON Schema (draft 2020-12) of every type, derived from the same spec.
        pub const SCHEMA: &str = include_str!(#schema_path);
        #transport
        #defaults
    };
    (consts, dynamic)
}

/// What a module offers beyond `SCHEMA`, `decode_type` and `decode_message`, which every
/// module has. Decided here once: the module emitter writes exactly these and the registry binds
/// exactly these.
pub struct Offers {
    /// `decode_response`: a module whose spec has methods (JSON or protobuf types).
    pub responses: bool,
    /// `schemars_schema`: a JSON module (prost's types derive no `JsonSchema`).
    pub schemars: bool,
}

/// The optional functions of `p`'s module.
pub fn offers(p: &Protocol) -> Offers {
    Offers {
        responses: !p.methods.is_empty(),
        schemars: Names::of(p).serde_types(),
    }
}

/// `decode_type` and `decode_message` of a protobuf module: over the messages (proto3 JSON)
/// and the stream wrappers of each role.
fn emit_proto_dynamic(p: &Protocol) -> TokenStream {
    let messages: Vec<&String> = p
        .types
        .iter()
        .filter(|(_, d)| matches!(d.kind, crate::ir::TypeKind::Struct(_)))
        .map(|(n, _)| n)
        .collect();
    let paths = messages.iter().map(|n| crate::naming::prost_path(n));
    let unions = p.channels.iter().map(|c| {
        let role = &c.from;
        let union = crate::naming::prost_path(&c.union);
        quote! {
            #role => Some(#union::from_json(json).map(|m| {
                agentwire_runtime::serde_json::to_value(&m).expect("generated messages always serialize")
            })),
        }
    });
    let message_arms: Vec<TokenStream> = if p.methods.is_empty() {
        unions.collect()
    } else {
        p.roles
            .iter()
            .filter_map(|role| rpc_message_arm(p, role))
            .collect()
    };
    let responses = decode_response_fn(p);
    let decode_message = decode_message_fn(
        p,
        &[
            " Decodes (proto3 JSON) and validates one message sent by `from`, returning it",
            " re-encoded; `None` when `from` sends no messages in this protocol. A message only",
            " another role sends fails with rule `wrong_side`, naming its sender.",
        ],
        message_arms.into_iter(),
    );
    quote! {
        #responses

        /// Decodes (proto3 JSON) and validates a message of the type named `type_name`,
        /// returning it as the typed code re-encodes it; `None` when the protocol has no such
        /// message.
        pub fn decode_type(
            type_name: &str,
            json: &str,
        ) -> Option<Result<agentwire_runtime::serde_json::Value, agentwire_runtime::Invalid>> {
            Some(match type_name {
                #( #messages => agentwire_runtime::dynamic::reencode::<#paths>(json), )*
                _ => return None,
            })
        }

        #decode_message
    }
}

/// `decode_type` and `decode_message`: decoding where the type or sender is only known at
/// run time.
fn emit_dynamic(p: &Protocol) -> TokenStream {
    let names: Vec<&String> = p.types.keys().collect();
    let idents: Vec<Ident> = names.iter().map(|n| type_ident(n)).collect();
    // A plain alias of a number (or of numbers in lists and maps) is `f64` itself, which
    // would write `1` back as `1.0`.
    let reencoders: Vec<Ident> = names
        .iter()
        .map(|n| {
            let ty = crate::ir::Ty::Named((*n).clone());
            if crate::emit::types::holds_number(&crate::emit::types::number_shape(&ty, &p.types, 0))
            {
                format_ident!("reencode_numbers")
            } else {
                format_ident!("reencode")
            }
        })
        .collect();
    let message_arms = p.roles.iter().filter_map(|role| {
        if !p.methods.is_empty() {
            return rpc_message_arm(p, role);
        }
        let channel = p.channel_from(role)?;
        let union = type_ident(&channel.union);
        Some(quote! {
            #role => Some(#union::from_json(json).map(|m| {
                agentwire_runtime::serde_json::to_value(&m).expect("generated messages always serialize")
            })),
        })
    });
    let responses = decode_response_fn(p);
    let decode_message = decode_message_fn(
        p,
        &[
            " Decodes and validates one message sent by `from`, returning it re-encoded; `None`",
            " when `from` sends no messages in this protocol. A failure lists every error found;",
            " a message only another role sends fails with rule `wrong_side`, naming its sender.",
        ],
        message_arms,
    );
    quote! {
        /// Decodes and validates a value of the type named `type_name`, returning it as the
        /// typed code re-encodes it; `None` when the protocol has no such type.
        pub fn decode_type(
            type_name: &str,
            json: &str,
        ) -> Option<Result<agentwire_runtime::serde_json::Value, agentwire_runtime::Invalid>> {
            Some(match type_name {
                #( #names => agentwire_runtime::dynamic::#reencoders::<#idents>(json), )*
                _ => return None,
            })
        }

        #responses

        /// The schema schemars derives from the Rust type named `type_name` (the same rules as
        /// the published `SCHEMA`, from the other direction); `None` for an unknown name.
        #[cfg(feature = "schemars")]
        pub fn schemars_schema(type_name: &str) -> Option<::schemars::Schema> {
            Some(match type_name {
                #( #names => ::schemars::schema_for!(#idents), )*
                _ => return None,
            })
        }

        #decode_message
    }
}

/// `decode_message`'s arm for `role` of a JSON-RPC protocol: its message type decodes and
/// validates; `None` when the role sends and answers nothing.
fn rpc_message_arm(p: &Protocol, role: &str) -> Option<TokenStream> {
    let has_any = p
        .methods
        .iter()
        .any(|m| m.sent_by(role) || m.answered_by(role));
    if !has_any {
        return None;
    }
    let message_ty = role_set(role, RoleSet::Message);
    Some(quote! {
        #role => Some(#message_ty::from_json(json).and_then(|m| {
            m.validate()?;
            Ok(agentwire_runtime::serde_json::to_value(&m).expect("JSON-RPC messages always serialize"))
        })),
    })
}

/// `decode_response(method, json)`, for a module with methods (see [`offers`]).
fn decode_response_fn(p: &Protocol) -> TokenStream {
    if !offers(p).responses {
        return TokenStream::new();
    }
    let arms = p
        .methods
        .iter()
        .filter(|m| m.call == Call::Request)
        .map(|m| {
            let name = &m.name;
            // Any sender's request set decodes the result: a method has one result type.
            let set = role_set(&m.from[0], RoleSet::Request);
            quote!(#name => agentwire_runtime::jsonrpc::reencode_response::<#set>(method, json),)
        });
    quote! {
        /// Decodes and validates a response to a `method` request, returning it re-encoded;
        /// `None` when no request has that method.
        pub fn decode_response(
            method: &str,
            json: &str,
        ) -> Option<Result<agentwire_runtime::serde_json::Value, agentwire_runtime::Invalid>> {
            Some(match method {
                #(#arms)*
                _ => return None,
            })
        }
    }
}

fn emit_jsonrpc(p: &Protocol) -> TokenStream {
    let mut out = TokenStream::new();
    for role in &p.roles {
        let of = |call: Call| -> Vec<&Method> {
            p.methods
                .iter()
                .filter(|m| m.call == call && m.sent_by(role))
                .collect()
        };
        let requests = of(Call::Request);
        let notifications = of(Call::Notification);
        // A role that only answers still sends responses: it gets a message type too.
        let answers = p.methods.iter().any(|m| m.answered_by(role));
        if requests.is_empty() && notifications.is_empty() && !answers {
            continue;
        }
        let req_ty = role_set(role, RoleSet::Request).ident();
        let notif_ty = role_set(role, RoleSet::Notification).ident();
        let result_ty = role_set(role, RoleSet::Result).ident();
        let message_ty = role_set(role, RoleSet::Message).ident();
        let req_ref = if requests.is_empty() {
            quote!(agentwire_runtime::jsonrpc::NoMethods)
        } else {
            out.extend(method_set(&req_ty, &requests, role, "requests"));
            out.extend(result_set(&req_ty, &result_ty, &requests));
            quote!(#req_ty)
        };
        let notif_ref = if notifications.is_empty() {
            quote!(agentwire_runtime::jsonrpc::NoMethods)
        } else {
            out.extend(method_set(&notif_ty, &notifications, role, "notifications"));
            quote!(#notif_ty)
        };
        let doc = format!(
            " Any JSON-RPC message the `{role}` sends: its requests, notifications and responses."
        );
        out.extend(quote! {
            #[doc = #doc]
            pub type #message_ty = agentwire_runtime::jsonrpc::Message<#req_ref, #notif_ref>;
        });
    }
    out
}

fn variant_ident(method: &str) -> Ident {
    format_ident!("{}", crate::naming::variant_name(method))
}

/// An enum with one variant per method, holding its params, plus its `MethodSet` impl.
fn method_set(name: &Ident, methods: &[&Method], role: &str, what: &str) -> TokenStream {
    let doc =
        format!(" The {what} the `{role}` sends, one variant per method, holding its params.");
    let names: Vec<&str> = methods.iter().map(|m| m.name.as_str()).collect();
    let arms_method = methods.iter().map(|m| {
        let v = variant_ident(&m.name);
        let n = &m.name;
        match m.params {
            Some(_) => quote!(Self::#v(_) => #n,),
            None => quote!(Self::#v => #n,),
        }
    });
    let arms_has = methods.iter().map(|m| {
        let v = variant_ident(&m.name);
        match m.params {
            Some(_) if m.params_optional => quote!(Self::#v(p) => p.is_some(),),
            Some(_) => quote!(Self::#v(_) => true,),
            None => quote!(Self::#v => false,),
        }
    });
    let arms_decode = methods.iter().map(|m| {
        let v = variant_ident(&m.name);
        let n = &m.name;
        match m.params {
            Some(_) if m.params_optional => {
                quote!(#n => agentwire_runtime::jsonrpc::optional_params(params).map(Self::#v),)
            }
            Some(_) => quote!(#n => agentwire_runtime::jsonrpc::params(params).map(Self::#v),),
            None => quote!(#n => Ok(Self::#v),),
        }
    });
    let payloads: Vec<Payload<'_>> = methods
        .iter()
        .map(|m| Payload {
            method: &m.name,
            ty: &m.params,
            optional: m.params_optional,
            doc: variant_doc(m),
        })
        .collect();
    let enum_items = payload_enum(name, &doc, &payloads);
    quote! {
        #enum_items

        impl agentwire_runtime::jsonrpc::MethodSet for #name {
            const METHODS: &'static [&'static str] = &[#(#names),*];

            fn method(&self) -> &'static str {
                match self { #(#arms_method)* }
            }

            fn has_params(&self) -> bool {
                match self { #(#arms_has)* }
            }

            fn decode_params(
                method: &str,
                params: Option<&agentwire_runtime::serde_json::value::RawValue>,
            ) -> Option<Result<Self, agentwire_runtime::Invalid>> {
                Some(match method {
                    #(#arms_decode)*
                    _ => return None,
                })
            }
        }
    }
}

/// The typed results of a request set, one variant per request.
fn result_set(req: &Ident, name: &Ident, methods: &[&Method]) -> TokenStream {
    let doc = format!(" The result of each request in [`{req}`], by method.");
    let arms_decode = methods.iter().map(|m| {
        let v = variant_ident(&m.name);
        let n = &m.name;
        match m.result {
            Some(_) => quote!(#n => agentwire_runtime::decode_all(result.get()).map(Self::Result::#v),),
            None => quote!(#n => agentwire_runtime::decode_all::<()>(result.get()).map(|()| Self::Result::#v),),
        }
    });
    let payloads: Vec<Payload<'_>> = methods
        .iter()
        .map(|m| Payload {
            method: &m.name,
            ty: &m.result,
            optional: false,
            doc: String::new(),
        })
        .collect();
    let enum_items = payload_enum(name, &doc, &payloads);
    quote! {
        #enum_items

        impl agentwire_runtime::jsonrpc::RequestSet for #req {
            type Result = #name;

            fn decode_result(
                method: &str,
                result: &agentwire_runtime::serde_json::value::RawValue,
            ) -> Option<Result<Self::Result, agentwire_runtime::Invalid>> {
                Some(match method {
                    #(#arms_decode)*
                    _ => return None,
                })
            }
        }
    }
}

/// The doc line of a method's variant: its name and summary.
fn variant_doc(m: &Method) -> String {
    if m.summary.is_empty() {
        format!(" `{}`", m.name)
    } else {
        format!(" `{}`: {}", m.name, m.summary)
    }
}

/// One variant of a payload enum: a method and its params or result type.
struct Payload<'a> {
    method: &'a str,
    ty: &'a Option<String>,
    /// The payload may be omitted: the variant holds an `Option`.
    optional: bool,
    doc: String,
}

/// An enum with one variant per method, each holding that method's payload type (params or
/// result; none for a method without one), which serializes as the bare payload and validates
/// it. Method sets and result sets differ only in the trait they implement on top.
fn payload_enum(name: &Ident, doc: &str, methods: &[Payload<'_>]) -> TokenStream {
    let variants = methods.iter().map(|m| {
        let v = variant_ident(m.method);
        let vdoc = &m.doc;
        let vdoc = (!vdoc.is_empty()).then(|| quote!(#[doc = #vdoc]));
        match m.ty {
            Some(t) if m.optional => {
                let t = type_ident(t);
                quote!(#vdoc #v(Option<#t>),)
            }
            Some(t) => {
                let t = type_ident(t);
                quote!(#vdoc #v(#t),)
            }
            None => quote!(#vdoc #v,),
        }
    });
    // An omitted optional payload serializes as the unit it stands for; the envelope leaves
    // it out (`has_params` is false).
    let arms_ser = methods.iter().map(|m| {
        let v = variant_ident(m.method);
        match m.ty {
            Some(_) => quote!(Self::#v(p) => agentwire_runtime::serde::Serialize::serialize(p, s),),
            None => quote!(Self::#v => s.serialize_unit(),),
        }
    });
    let arms_validate = methods.iter().map(|m| {
        let v = variant_ident(m.method);
        match m.ty {
            Some(_) if m.optional => quote!(Self::#v(p) => {
                if let Some(p) = p {
                    agentwire_runtime::Validate::validate_at(p, at, errors);
                }
            }),
            Some(_) => {
                quote!(Self::#v(p) => agentwire_runtime::Validate::validate_at(p, at, errors),)
            }
            None => quote!(Self::#v => {}),
        }
    });
    quote! {
        #[doc = #doc]
        #[derive(Debug, Clone, PartialEq)]
        pub enum #name { #(#variants)* }

        impl agentwire_runtime::serde::Serialize for #name {
            fn serialize<S: agentwire_runtime::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self { #(#arms_ser)* }
            }
        }

        impl agentwire_runtime::Validate for #name {
            fn validate_at(&self, at: &mut agentwire_runtime::JsonPointer, errors: &mut Vec<agentwire_runtime::FieldError>) {
                match self { #(#arms_validate)* }
            }
        }
    }
}

/// Formats a token stream as a source file (prettyplease), for `cargo xtask gen` and for the
/// front-door equality test.
pub fn format_file(tokens: TokenStream) -> Result<String, syn::Error> {
    let file: syn::File = syn::parse2(tokens)?;
    Ok(prettyplease::unparse(&file))
}

/// `decode_message(from, json)`: the protocol's decoder for each sender, with a message
/// another role sends named as such (`agentwire_runtime::side::decode_by_role`).
fn decode_message_fn(
    p: &Protocol,
    doc: &[&str],
    message_arms: impl Iterator<Item = TokenStream>,
) -> TokenStream {
    let message_arms: Vec<TokenStream> = message_arms.collect();
    // A types-only protocol has no senders: no `decode_message`. One with a transport has
    // it even when its catalogue is empty (a gRPC spec of plain services): it answers `None`.
    if p.types_only() {
        return TokenStream::new();
    }
    let by_role = if message_arms.is_empty() {
        quote! {
            let _ = (from, json);
            None
        }
    } else {
        quote! {
            match from {
                #(#message_arms)*
                _ => None,
            }
        }
    };
    quote! {
        #(#[doc = #doc])*
        pub fn decode_message(
            from: &str,
            json: &str,
        ) -> Option<Result<agentwire_runtime::serde_json::Value, agentwire_runtime::Invalid>> {
            fn by_role(
                from: &str,
                json: &str,
            ) -> Option<Result<agentwire_runtime::serde_json::Value, agentwire_runtime::Invalid>> {
                #by_role
            }
            agentwire_runtime::side::decode_by_role(ROLES, from, json, by_role)
        }
    }
}
