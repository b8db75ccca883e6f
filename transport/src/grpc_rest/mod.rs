//! A gRPC service's HTTP+JSON binding, transcoded as its `google.api.http` annotations say:
//! each rpc served at its rule's HTTP method and path template (variables bound to request
//! fields, `{name=things/*}` patterns included), its request read from the body as the rule
//! maps it (`*`, one field, or none) with the remaining fields from query parameters, its
//! reply written as ProtoJSON (server-streaming rpcs as a Server-Sent Events stream of
//! them), and a failure answered with the HTTP status of its gRPC code and the
//! `google.rpc.Status` JSON form, details included. Like `grpc_jsonrpc`, the binding runs no
//! handler of its own: every call is made in process on the tonic service that serves gRPC.
//!
//! A [`Profile`] (a generated skeleton's `HTTP_JSON`, from the spec's `transport.http_json`
//! and its proto's annotations) lists the rules; [`mount`] adds the binding to the routes of
//! the other bindings on one port; [`Client`] is the calling end.

mod client;
mod profile;
mod rules;
mod server;
mod status;
mod transcode;

pub use client::{Client, Updates};
pub use profile::{Profile, Rule};
pub use server::{mount, router};
pub use status::error_body;
