//! A gRPC service's JSON-RPC 2.0 binding over HTTP: every unary rpc is a JSON-RPC method of
//! the rpc's name answered with one JSON response, every server-streaming rpc one answered
//! with a Server-Sent Events stream of JSON-RPC responses, all in ProtoJSON (lowerCamelCase
//! member names written, both spellings read). The binding runs no handler of its own: each
//! call is transcoded to protobuf and made on the very tonic service that serves gRPC, in
//! process, so one handler serves both bindings, with the same validating codecs.
//!
//! A [`Profile`] (a generated skeleton's `JSONRPC_HTTP`, from the spec's
//! `transport.jsonrpc_http`) says where the endpoint is, which error reasons become which
//! JSON-RPC codes, the version header a [`VersionGate`] holds both bindings to, and the
//! discovery document served beside them. [`routes`] mounts all of it with the gRPC service
//! for tonic's server; [`Client`] is the calling end.

mod client;
mod gate;
mod profile;
mod server;
mod status;

pub use crate::grpc_json::{CallError, ProfileError, error_status, reason_of};
pub use client::{Client, Updates, discover};
pub use gate::VersionGate;
pub use profile::{Discovery, Profile, VersionRule};
pub use server::{router, routes};
