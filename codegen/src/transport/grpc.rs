//! `transport.kind: grpc`: one bidi-streaming rpc of a protobuf service, which the `grpc:`
//! section names (it is required), with protobuf types.

use proc_macro2::TokenStream;

use super::{RegistryKind, Section, TransportPlugin};
use crate::front::proto::ProtoSpec;
use crate::ir::Protocol;

pub struct Grpc;

impl TransportPlugin for Grpc {
    fn name(&self) -> &'static str {
        "grpc"
    }

    fn framings(&self) -> &'static [&'static str] {
        &["grpc"]
    }

    fn sections(&self) -> &'static [Section] {
        &[Section::Grpc]
    }

    fn missing(&self, section: Section) -> Option<(String, Option<String>)> {
        (section == Section::Grpc).then(|| {
            let msg = "a grpc protocol needs a `grpc:` section: service, rpc, handshake and \
                       exchange";
            let help = crate::suggest::see("\"gRPC protocols\"", crate::suggest::GRPC_DOCS);
            (msg.to_owned(), Some(help))
        })
    }

    fn protobuf(&self) -> bool {
        true
    }

    fn skeleton(&self, p: &Protocol, proto: Option<&ProtoSpec>) -> Option<TokenStream> {
        crate::emit::skeleton::grpc::emit(p, proto)
    }

    fn registry_kind(&self) -> RegistryKind {
        RegistryKind::Grpc
    }
}
