//! Client and server skeletons: one emitter per transport kind, chosen by the spec's
//! `transport.kind`. Each binds the protocol's typed messages and checker to the generic
//! transport machinery in `agentwire-transport`.
//!
//! Skeletons are written to `generated/src/skeletons/<module>.rs`, outside the protocol's
//! own module tree, so the derive macro (which expands a protocol module) does not pull a
//! network stack into downstream crates that only want types, validators and checkers.

use proc_macro2::TokenStream;

use crate::front::proto::ProtoSpec;
use crate::ir::Protocol;

#[cfg(feature = "proto")]
mod grpc;
/// Without the `proto` feature no protobuf spec loads, so there is no gRPC skeleton to emit.
#[cfg(not(feature = "proto"))]
mod grpc {
    pub fn emit(
        _: &crate::ir::Protocol,
        proto: Option<&crate::front::proto::ProtoSpec>,
    ) -> Option<proc_macro2::TokenStream> {
        proto.map(|p| p.unreachable())
    }
}
mod http_ws;
mod jsonrpc;
mod ws;

/// The skeleton module of `p`, or `None` when its transport has no skeleton emitter.
/// `proto` is the compiled `.proto` of a protobuf spec (the gRPC emitter reads oneof names
/// and event case types from it).
pub fn emit_skeleton(p: &Protocol, proto: Option<&ProtoSpec>) -> Option<TokenStream> {
    match p.transport.kind.as_str() {
        "websocket" => ws::emit(p),
        "http+websocket" => http_ws::emit(p),
        "jsonrpc" => jsonrpc::emit(p),
        "grpc" => grpc::emit(p, proto),
        _ => None,
    }
}
