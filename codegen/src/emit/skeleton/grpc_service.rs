//! Skeleton emitter for plain gRPC services: for every service of the spec's own `.proto`
//! files, the server trait and service and the client that tonic-build writes, with every
//! call kind (unary, server streaming, client streaming, bidirectional). tonic-build itself
//! writes them from our descriptors; what differs is the codec they name,
//! `agentwire_transport::grpc::{ServerCodec, ClientCodec}`, which runs the spec's validators
//! on every message both ways. The emitted code is that binding and a `grpc::Checked` impl
//! per message type the calls carry.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use protox::prost_reflect::{MessageDescriptor, MethodDescriptor, ServiceDescriptor};
use quote::quote;

use crate::front::proto::ProtoSpec;
use crate::ir::Protocol;
use crate::naming::{prost_field, prost_path};

/// The codec a generated server names.
const SERVER_CODEC: &str = "agentwire_transport::grpc::ServerCodec";
/// The codec a generated client names.
const CLIENT_CODEC: &str = "agentwire_transport::grpc::ClientCodec";
/// The codec both ends of a handshake layer's rpc name: the layer's gate checks its
/// messages, in the mode the application chose.
const LAYER_CODEC: &str = "agentwire_transport::grpc::LayerCodec";

/// The well-known types `agentwire_transport::grpc::Checked` covers, by proto name below
/// `google.protobuf.`: an rpc may take or return them directly.
const WELL_KNOWN: &[&str] = &[
    "Empty",
    "Timestamp",
    "Duration",
    "Struct",
    "Value",
    "ListValue",
    "Any",
    "FieldMask",
    "BoolValue",
    "StringValue",
    "BytesValue",
    "Int32Value",
    "UInt32Value",
    "Int64Value",
    "UInt64Value",
    "FloatValue",
    "DoubleValue",
];

/// One rpc as tonic-build reads it.
struct Method {
    /// The Rust method name (prost's snake case, escaped).
    name: String,
    /// The proto name, in the call's path.
    identifier: String,
    /// Whether the `grpc:` section's handshake layer runs on it.
    layer: bool,
    codec: &'static str,
    client_streaming: bool,
    server_streaming: bool,
    comment: Vec<String>,
    request: TokenStream,
    response: TokenStream,
}

/// One service as tonic-build reads it.
struct Service {
    name: String,
    package: String,
    methods: Vec<Method>,
    comment: Vec<String>,
}

impl tonic_build::Service for Service {
    type Comment = String;
    type Method = Method;

    fn name(&self) -> &str {
        &self.name
    }
    fn package(&self) -> &str {
        &self.package
    }
    fn identifier(&self) -> &str {
        &self.name
    }
    fn methods(&self) -> &[Method] {
        &self.methods
    }
    fn comment(&self) -> &[String] {
        &self.comment
    }
}

impl tonic_build::Method for Method {
    type Comment = String;

    fn name(&self) -> &str {
        &self.name
    }
    fn identifier(&self) -> &str {
        &self.identifier
    }
    fn codec_path(&self) -> &str {
        self.codec
    }
    fn client_streaming(&self) -> bool {
        self.client_streaming
    }
    fn server_streaming(&self) -> bool {
        self.server_streaming
    }
    fn comment(&self) -> &[String] {
        &self.comment
    }
    fn request_response_name(&self, _: &str, _: bool) -> (TokenStream, TokenStream) {
        (self.request.clone(), self.response.clone())
    }
}

/// Where the Rust type of a proto message lives in the generated crate: the main package's
/// at the top of the protocol's module, another kept package's in nested modules, the
/// well-known types in `pbjson_types`. `None` for a type that gets no Rust type.
pub(super) fn rust_type(
    spec: &ProtoSpec,
    module: &str,
    m: &MessageDescriptor,
) -> Option<(TokenStream, bool)> {
    let package = m.package_name();
    let local = m
        .full_name()
        .strip_prefix(package)
        .map_or(m.full_name(), |n| n.trim_start_matches('.'));
    if package == "google.protobuf" {
        let ty = WELL_KNOWN.iter().find(|w| **w == local)?;
        let ident = quote::format_ident!("{ty}");
        return Some((quote!(::pbjson_types::#ident), true));
    }
    if !spec.packages().contains(package) {
        return None;
    }
    let module = prost_field(module);
    let mut path = quote!(crate::#module);
    if spec.package().ok().as_deref() != Some(package) {
        for part in package.split('.') {
            let part = prost_field(part);
            path = quote!(#path::#part);
        }
    }
    let ty = prost_path(local);
    Some((quote!(#path::#ty), false))
}

/// The leading comment of the element at `path` in the service's file, as doc lines.
fn comment(service: &ServiceDescriptor, path: &[i32]) -> Vec<String> {
    let file = service.parent_file_descriptor_proto();
    let location = file
        .source_code_info
        .as_ref()
        .and_then(|info| info.location.iter().find(|l| l.path == path));
    location
        .and_then(|l| l.leading_comments.as_deref())
        .unwrap_or_default()
        .lines()
        .map(|l| l.trim().to_owned())
        .filter(|l| !l.is_empty() && !l.starts_with('@'))
        .collect()
}

/// Whether `m` is the rpc the `grpc:` section's handshake layer runs on.
fn carries_layer(p: &Protocol, m: &MethodDescriptor) -> bool {
    p.transport.grpc.as_ref().is_some_and(|g| {
        g.skeleton.is_some() && g.service == m.parent_service().full_name() && g.rpc == m.name()
    })
}

/// One rpc, or `None` when a type it carries gets no Rust type.
fn method(
    p: &Protocol,
    spec: &ProtoSpec,
    m: &MethodDescriptor,
    checked: &mut BTreeSet<String>,
) -> Option<Method> {
    let module = p.module.as_str();
    let (request, wk_in) = rust_type(spec, module, &m.input())?;
    let (response, wk_out) = rust_type(spec, module, &m.output())?;
    for (ty, well_known) in [(&request, wk_in), (&response, wk_out)] {
        if !well_known {
            checked.insert(ty.to_string());
        }
    }
    Some(Method {
        name: prost_field(m.name()).to_string(),
        identifier: m.name().to_owned(),
        layer: carries_layer(p, m),
        codec: SERVER_CODEC,
        client_streaming: m.is_client_streaming(),
        server_streaming: m.is_server_streaming(),
        comment: comment(m.parent_service(), m.path()),
        request,
        response,
    })
}

/// The services of the spec's own files, each with every rpc whose types have Rust types
/// (all of them, unless a kept package's loader reported otherwise), and the message types
/// they carry that need a `Checked` impl, as token strings.
fn services(p: &Protocol, spec: &ProtoSpec) -> (Vec<Service>, BTreeSet<String>) {
    let mut checked = BTreeSet::new();
    let services = spec
        .pool
        .services()
        .filter(|s| spec.own.contains(s.parent_file().name()))
        .map(|s| Service {
            name: s.name().to_owned(),
            package: s.package_name().to_owned(),
            methods: s
                .methods()
                .filter_map(|m| method(p, spec, &m, &mut checked))
                .collect(),
            comment: comment(&s, s.path()),
        })
        .filter(|s| !s.methods.is_empty())
        .collect();
    (services, checked)
}

/// The server and client modules of every service, and the `Checked` impls of the message
/// types they carry; `None` when the spec's files declare no service.
pub fn emit(p: &Protocol, proto: &ProtoSpec) -> Option<TokenStream> {
    let (mut services, checked) = services(p, proto);
    if services.is_empty() {
        return None;
    }
    // tonic's `connect(endpoint)` constructor would clash with an rpc named `Connect`.
    let transport = !services
        .iter()
        .flat_map(|s| &s.methods)
        .any(|m| m.name == "connect");
    let mut builder = tonic_build::CodeGenBuilder::new();
    builder.emit_package(true).build_transport(transport);
    let mut out = TokenStream::new();
    for s in &mut services {
        for m in &mut s.methods {
            m.codec = if m.layer { LAYER_CODEC } else { SERVER_CODEC };
        }
        out.extend(builder.generate_server(s, ""));
        for m in &mut s.methods {
            m.codec = if m.layer { LAYER_CODEC } else { CLIENT_CODEC };
        }
        out.extend(builder.generate_client(s, ""));
    }
    let types: Vec<TokenStream> = checked
        .iter()
        .filter_map(|t| t.parse::<TokenStream>().ok())
        .collect();
    Some(quote! {
        agentwire_transport::checked!(#(#types),*);
        #out
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn every_call_kind_gets_a_server_method_and_a_client_method_on_the_checked_codecs() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/protocols/gauge");
        let spec = crate::front::load::load_spec(&dir).unwrap();
        let code = emit(&spec.protocol, spec.proto.as_ref().unwrap())
            .unwrap()
            .to_string();
        for needle in [
            "pub mod meter_server",
            "pub mod meter_client",
            "async fn read",
            "type WatchStream",
            "tonic :: Streaming < crate :: gauge :: Sample >",
            "type TuneStream",
            ":: pbjson_types :: Empty",
            "agentwire_transport :: grpc :: ServerCodec :: default",
            "agentwire_transport :: grpc :: ClientCodec :: default",
            "\"/gauge.Meter/Upload\"",
        ] {
            assert!(code.contains(needle), "missing `{needle}` in {code}");
        }
        assert!(!code.contains("ProstCodec"));
    }
}
