//! A failed call's error, between the bindings: a gRPC status whose details
//! (`google.rpc.Status` in `grpc-status-details-bin`) carry a `google.rpc.ErrorInfo` naming
//! the error's reason and domain, built, read back, and written as the ProtoJSON `Any`
//! objects the JSON bindings put in their error bodies.

use std::collections::BTreeMap;

use serde_json::{Value, json};
use tonic::{Code, Status};

/// The type URL of `google.rpc.ErrorInfo`.
pub const ERROR_INFO: &str = "type.googleapis.com/google.rpc.ErrorInfo";

/// `google.rpc.Status`, as `google/rpc/status.proto` declares it.
#[derive(Clone, PartialEq, prost::Message)]
struct RpcStatus {
    #[prost(int32, tag = "1")]
    code: i32,
    #[prost(string, tag = "2")]
    message: String,
    #[prost(message, repeated, tag = "3")]
    details: Vec<Any>,
}

/// `google.protobuf.Any`.
#[derive(Clone, PartialEq, prost::Message)]
struct Any {
    #[prost(string, tag = "1")]
    type_url: String,
    #[prost(bytes = "vec", tag = "2")]
    value: Vec<u8>,
}

/// `google.rpc.ErrorInfo`, as `google/rpc/error_details.proto` declares it.
#[derive(Clone, PartialEq, prost::Message)]
struct ErrorInfo {
    #[prost(string, tag = "1")]
    reason: String,
    #[prost(string, tag = "2")]
    domain: String,
    #[prost(btree_map = "string, string", tag = "3")]
    metadata: BTreeMap<String, String>,
}

/// A status of `code` whose details name `reason` in `domain`.
pub fn error_status(code: Code, reason: &str, domain: &str, message: impl Into<String>) -> Status {
    let message = message.into();
    let info = ErrorInfo {
        reason: reason.to_owned(),
        domain: domain.to_owned(),
        metadata: BTreeMap::new(),
    };
    let details = RpcStatus {
        code: code as i32,
        message: message.clone(),
        details: vec![Any {
            type_url: ERROR_INFO.to_owned(),
            value: prost::Message::encode_to_vec(&info),
        }],
    };
    Status::with_details(
        code,
        message,
        prost::Message::encode_to_vec(&details).into(),
    )
}

/// The `ErrorInfo`s of a status's details.
fn infos(status: &Status) -> Vec<ErrorInfo> {
    let Ok(details) = <RpcStatus as prost::Message>::decode(status.details()) else {
        return Vec::new();
    };
    details
        .details
        .iter()
        .filter(|a| a.type_url.ends_with("/google.rpc.ErrorInfo"))
        .filter_map(|a| <ErrorInfo as prost::Message>::decode(a.value.as_slice()).ok())
        .collect()
}

/// The `ErrorInfo.reason` of a status's details in `domain`, if any.
pub fn reason_of(status: &Status, domain: &str) -> Option<String> {
    infos(status)
        .into_iter()
        .find(|i| i.domain == domain)
        .map(|i| i.reason)
}

/// The `ErrorInfo`s of a status's details as ProtoJSON `Any` objects.
pub fn details_json(status: &Status) -> Vec<Value> {
    infos(status)
        .iter()
        .map(|i| {
            json!({"@type": ERROR_INFO, "reason": i.reason, "domain": i.domain,
                   "metadata": i.metadata})
        })
        .collect()
}

/// The reason of the first `ErrorInfo` in `domain` among ProtoJSON `Any` objects.
pub fn reason_in_details(details: &Value, domain: &str) -> Option<String> {
    details.as_array()?.iter().find_map(|d| {
        let typed = d.get("@type")?.as_str()? == ERROR_INFO;
        let here = d.get("domain")?.as_str()? == domain;
        (typed && here).then(|| d.get("reason")?.as_str().map(str::to_owned))?
    })
}
