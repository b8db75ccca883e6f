//! What a gRPC skeleton gains from `transport.jsonrpc_http`: the binding's profile
//! (`JSONRPC_HTTP`, with the spec's compiled descriptors, which the transport reads and writes
//! ProtoJSON from) and, for the service, a function mounting both bindings for one handler:
//! the tonic server behind the version gate, and the JSON-RPC endpoint and discovery document
//! calling it (`agentwire_transport::grpc_jsonrpc::routes`).

use proc_macro2::{Literal, TokenStream};
use prost::Message;
use quote::{format_ident, quote};

use super::grpc_service::rust_type;
use crate::front::proto::ProtoSpec;
use crate::ir::Protocol;
use crate::transport::jsonrpc_http::Binding;

/// The items, or `None` when the spec's own files declare no service.
pub fn emit(p: &Protocol, proto: &ProtoSpec, b: &Binding) -> Option<TokenStream> {
    let service = proto
        .pool
        .services()
        .find(|s| proto.own.contains(s.parent_file().name()))?;
    let service_name = service.full_name().to_owned();
    let descriptors = descriptors_item(p, proto, "jsonrpc_http");
    let path = &b.path;
    let domain = &b.domain;
    let errors = b.errors.iter().map(|(r, c)| quote!((#r, #c)));
    let version = match &b.version {
        Some(v) => {
            let (header, supported, absent, reason) =
                (&v.header, &v.supported, &v.absent, &v.reason);
            let code = format_ident!("{}", v.code);
            quote!(Some(agentwire_transport::grpc_jsonrpc::VersionRule {
                header: #header,
                supported: &[#(#supported),*],
                absent: #absent,
                code: tonic::Code::#code,
                reason: #reason,
            }))
        }
        None => quote!(None),
    };
    let document = b.discovery.as_ref().and_then(|(dpath, ty)| {
        let package = service.package_name();
        let message = proto
            .pool
            .get_message_by_name(ty)
            .or_else(|| proto.pool.get_message_by_name(&format!("{package}.{ty}")))?;
        let (rust, _) = rust_type(proto, &p.module, &message)?;
        Some((dpath.clone(), message.full_name().to_owned(), rust))
    });
    let discovery = match &document {
        Some((dpath, full, _)) => quote!(Some(agentwire_transport::grpc_jsonrpc::Discovery {
            path: #dpath,
            message: #full,
        })),
        None => quote!(None),
    };
    let doc = format!(
        " The JSON-RPC binding of `{service_name}` that `spec/{}/protocol.yaml` declares \
         (`transport.jsonrpc_http`): every rpc a method of its name at `{path}`, for \
         `agentwire_transport::grpc_jsonrpc::{{routes, Client, VersionGate}}`.",
        p.module
    );
    let mounts = crate::transport::mounts(p, Some(proto), "jsonrpc_http");
    let routes = routes_fn(
        service.name(),
        &service_name,
        path,
        document.as_ref(),
        &mounts,
    );
    Some(quote! {
        #[doc = #doc]
        pub static JSONRPC_HTTP: agentwire_transport::grpc_jsonrpc::Profile =
            agentwire_transport::grpc_jsonrpc::Profile {
                path: #path,
                service: #service_name,
                descriptors: DESCRIPTORS,
                error_domain: #domain,
                errors: &[#(#errors),*],
                version: #version,
                discovery: #discovery,
            };
        #descriptors
        #routes
    })
}

/// `DESCRIPTORS`, the spec's compiled `.proto` files, when `key` is the protocol's first
/// carrier (every carrier of the service reads them; one emits them).
pub fn descriptors_item(p: &Protocol, proto: &ProtoSpec, key: &str) -> TokenStream {
    if !crate::transport::first_carrier(p, key) {
        return TokenStream::new();
    }
    let mut set = proto.fds.clone();
    // Comments and spans are no use to a transcoder, and are most of the set's size.
    for f in &mut set.file {
        f.source_code_info = None;
    }
    let descriptors = Literal::byte_string(&set.encode_to_vec());
    quote! {
        /// The spec's compiled `.proto` files with their imports, an encoded
        /// `google.protobuf.FileDescriptorSet` without source info.
        pub const DESCRIPTORS: &[u8] = #descriptors;
    }
}

/// A service name in snake case as tonic-build spells its modules: `_` before every upper
/// case letter but the first (`A2AService` is `a2_a_service`), where heck would join
/// acronyms.
fn tonic_snake(name: &str) -> String {
    let mut out = String::new();
    let mut chars = name.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c.to_ascii_lowercase());
        if chars.peek().is_some_and(|n| n.is_uppercase()) {
            out.push('_');
        }
    }
    out
}

/// `<service>_routes(handler[, document])`: both bindings of the service for one handler.
fn routes_fn(
    name: &str,
    full: &str,
    path: &str,
    document: Option<&(String, String, TokenStream)>,
    mounts: &[TokenStream],
) -> TokenStream {
    let snake = tonic_snake(name);
    let server_mod = format_ident!("{snake}_server");
    let server_ty = format_ident!("{name}Server");
    let trait_name = format_ident!("{name}");
    let fn_name = format_ident!("{snake}_routes");
    let (param, arg) = match document {
        Some((_, _, rust)) => (
            quote!(, document: Option<&#rust>),
            quote!(document.map(prost::Message::encode_to_vec)),
        ),
        None => (quote!(), quote!(None::<Vec<u8>>)),
    };
    let served = match document {
        Some((dpath, _, _)) => format!(" and `document` at `{dpath}`"),
        None => String::new(),
    };
    let others = if mounts.is_empty() {
        ""
    } else {
        ", the service's other HTTP bindings"
    };
    let doc = format!(
        " Serves `handler` on every binding of `{full}` at once: gRPC, JSON-RPC over \
         HTTP at `{path}`{others}{served}, every call through the version gate of \
         `JSONRPC_HTTP`. Give the routes to `tonic::transport::Server::builder()\
         .accept_http1(true).add_routes`."
    );
    quote! {
        #[doc = #doc]
        pub fn #fn_name<T: #server_mod::#trait_name>(
            handler: T #param
        ) -> Result<tonic::service::Routes, agentwire_transport::grpc_jsonrpc::ProfileError> {
            let grpc = #server_mod::#server_ty::with_interceptor(
                handler,
                agentwire_transport::grpc_jsonrpc::VersionGate::new(&JSONRPC_HTTP),
            );
            let document = #arg;
            let routes = agentwire_transport::grpc_jsonrpc::routes(
                grpc.clone(),
                &JSONRPC_HTTP,
                document.as_deref(),
            )?;
            #(#mounts)*
            Ok(routes)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::tonic_snake;

    #[test]
    fn service_names_are_snake_cased_as_tonic_build_does() {
        assert_eq!(tonic_snake("A2AService"), "a2_a_service");
        assert_eq!(tonic_snake("CovenControl"), "coven_control");
        assert_eq!(tonic_snake("Meter"), "meter");
    }
}
