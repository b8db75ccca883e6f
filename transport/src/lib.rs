//! The transport machinery behind agentwire's generated client and server skeletons.
//!
//! Generated code (`agentwire_protocols::skeletons::<module>`) binds a protocol's typed
//! messages and sequence checker to the generic pieces here; a user writes only behaviour.

pub mod budget;
pub mod check;
pub mod grpc;
pub mod grpc_json;
pub mod grpc_jsonrpc;
pub mod grpc_rest;
pub mod http_ws;
pub mod jsonrpc;
#[cfg(any(feature = "oauth-resource", feature = "oauth-client"))]
pub mod oauth;
pub mod origin;
pub mod seal;
pub mod stdio;
pub mod store;
pub mod streamable_http;
pub mod throttle;
pub mod webhook;
pub mod ws;

pub use check::{CheckMode, Gate};

// The crates generated skeletons name through this one, so `agentwire-protocols` needs no
// direct dependency on each of them.
pub use {
    agentwire_runtime, axum, bytes, futures_util, reqwest, rusqlite, tokio, tokio_tungstenite,
    tokio_util, tonic, tracing,
};
