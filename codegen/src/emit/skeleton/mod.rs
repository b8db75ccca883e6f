//! Client and server skeletons: one emitter per transport kind, which that kind's plug-in
//! (`crate::transport`) calls. Each binds the protocol's typed messages and checker to the generic
//! transport machinery in `agentwire-transport`.
//!
//! Skeletons are written to `generated/src/skeletons/<module>.rs`, outside the protocol's
//! own module tree, so the derive macro (which expands a protocol module) does not pull a
//! network stack into downstream crates that only want types, validators and checkers.

#[cfg(feature = "proto")]
pub mod grpc;
#[cfg(feature = "proto")]
pub mod grpc_jsonrpc;
#[cfg(feature = "proto")]
pub mod grpc_rest;
#[cfg(feature = "proto")]
mod grpc_service;
/// Without the `proto` feature no protobuf spec loads, so no gRPC service has a JSON-RPC
/// binding to emit.
#[cfg(not(feature = "proto"))]
pub mod grpc_jsonrpc {
    pub fn emit(
        _: &crate::ir::Protocol,
        proto: &crate::front::proto::ProtoSpec,
        _: &crate::transport::jsonrpc_http::Binding,
    ) -> Option<proc_macro2::TokenStream> {
        proto.unreachable()
    }
}
/// Without the `proto` feature no protobuf spec loads, so no gRPC service has an HTTP+JSON
/// binding to emit.
#[cfg(not(feature = "proto"))]
pub mod grpc_rest {
    pub fn emit(
        _: &crate::ir::Protocol,
        proto: &crate::front::proto::ProtoSpec,
        _: &crate::transport::http_json::Binding,
    ) -> Option<proc_macro2::TokenStream> {
        proto.unreachable()
    }
}
/// Without the `proto` feature no protobuf spec loads, so there is no gRPC skeleton to emit.
#[cfg(not(feature = "proto"))]
pub mod grpc {
    pub fn emit(
        _: &crate::ir::Protocol,
        proto: Option<&crate::front::proto::ProtoSpec>,
    ) -> Option<proc_macro2::TokenStream> {
        proto.map(|p| p.unreachable())
    }
}
pub mod http_ws;
pub mod jsonrpc;
pub mod jsonrpc_versions;
pub mod ws;
