//! `transport.kind: grpc`: protobuf types and services, every call kind; the `grpc:`
//! section, when present, declares a handshake layer on one bidi-streaming rpc.

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
