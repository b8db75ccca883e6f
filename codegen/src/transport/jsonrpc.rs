//! `transport.kind: jsonrpc`: JSON-RPC 2.0 over `Content-Length` or newline-delimited
//! framing, with the methods of the `jsonrpc:` section.

use proc_macro2::TokenStream;

use super::{RegistryKind, TransportPlugin};
use crate::front::proto::ProtoSpec;
use crate::ir::Protocol;

pub struct JsonRpc;

/// The framings a JSON-RPC byte stream can use.
const FRAMINGS: &[&str] = &["content-length", "newline"];

impl TransportPlugin for JsonRpc {
    fn name(&self) -> &'static str {
        "jsonrpc"
    }

    fn framings(&self) -> &'static [&'static str] {
        FRAMINGS
    }

    fn skeleton(&self, p: &Protocol, _: Option<&ProtoSpec>) -> Option<TokenStream> {
        crate::emit::skeleton::jsonrpc::emit(p)
    }

    fn versioned_skeleton(
        &self,
        folder: &Protocol,
        versions: &[(&Protocol, TokenStream)],
    ) -> Option<TokenStream> {
        crate::emit::skeleton::jsonrpc_versions::emit(folder, versions)
    }

    fn registry_kind(&self) -> RegistryKind {
        RegistryKind::JsonRpc
    }
}
