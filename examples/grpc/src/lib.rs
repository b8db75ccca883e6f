//! A downstream crate deriving a protobuf protocol: agentwire's own coven spec, expanded by
//! `#[derive(Protocol)]` into prost messages, the tonic client and server, proto3 JSON and
//! validators, plus the sequence checker. Shows which dependencies such a crate needs.

use agentwire::Protocol;

/// The coven gRPC protocol; the derive adds the `coven` module beside this struct.
#[derive(Protocol)]
#[protocol(spec = "../../spec/coven")]
pub struct Coven;
