//! What the JSON bindings of a gRPC service share (`grpc_jsonrpc`, JSON-RPC over HTTP, and
//! `grpc_rest`, HTTP+JSON transcoded from `google.api.http`): the service's descriptors read
//! and written as ProtoJSON, each call made in process on the tonic service that serves
//! gRPC (so one handler and its validating codecs serve every binding), a failed call's
//! `google.rpc.ErrorInfo`, and the calling end's bounded HTTP reads.

mod call;
mod codec;
mod error;
mod fetch;
mod schema;
mod status;

pub use call::InProcess;
pub(crate) use call::{grpc_request, read_body};
pub use error::ProfileError;
pub use fetch::CallError;
pub(crate) use fetch::{Events, REPLY_LIMIT, http_client, read_all, typed};
pub use schema::ProtoJson;
pub(crate) use schema::{Rpc, Schema, from_json, to_json};
pub(crate) use status::details_json;
#[cfg(test)]
pub(crate) use status::reason_in_details;
pub use status::{ERROR_INFO, error_status, reason_of};
