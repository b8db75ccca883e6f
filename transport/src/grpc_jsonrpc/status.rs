//! Errors between the bindings: a gRPC status whose details (`google.rpc.Status` in
//! `grpc-status-details-bin`) carry a `google.rpc.ErrorInfo` naming the error's reason, and
//! the JSON-RPC error object the same failure is on the JSON-RPC binding: the code the
//! profile's table gives the reason (else the JSON-RPC code of the gRPC status class), the
//! status message, and the details as ProtoJSON `Any` objects in `data`.

use std::collections::BTreeMap;

use serde_json::{Value, json};
use tonic::{Code, Status};

use super::Profile;

/// The type URL of `google.rpc.ErrorInfo`.
const ERROR_INFO: &str = "type.googleapis.com/google.rpc.ErrorInfo";

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

/// JSON-RPC's own code for a status without a mapped reason: bad parameters, an unknown
/// method, or the server's failure.
fn class_code(code: Code) -> i64 {
    match code {
        Code::InvalidArgument => -32602,
        Code::Unimplemented => -32601,
        _ => -32603,
    }
}

/// The JSON-RPC error object of `status` under `profile`.
pub fn to_error(status: &Status, profile: &Profile) -> Value {
    let infos = infos(status);
    let mapped = infos
        .iter()
        .filter(|i| i.domain == profile.error_domain)
        .find_map(|i| profile.code_of(&i.reason));
    let code = mapped.unwrap_or_else(|| class_code(status.code()));
    let message = if status.message().is_empty() {
        format!("{:?}", status.code())
    } else {
        status.message().to_owned()
    };
    let mut error = json!({"code": code, "message": message});
    if !infos.is_empty() {
        let data: Vec<Value> = infos
            .iter()
            .map(|i| {
                json!({"@type": ERROR_INFO, "reason": i.reason, "domain": i.domain,
                       "metadata": i.metadata})
            })
            .collect();
        error["data"] = Value::Array(data);
    }
    error
}

/// The `ErrorInfo.reason` of a JSON-RPC error object's `data` in `domain`, if any.
pub fn reason_in(error: &Value, domain: &str) -> Option<String> {
    error.get("data")?.as_array()?.iter().find_map(|d| {
        let typed = d.get("@type")?.as_str()? == ERROR_INFO;
        let here = d.get("domain")?.as_str()? == domain;
        (typed && here).then(|| d.get("reason")?.as_str().map(str::to_owned))?
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROFILE: Profile = Profile {
        path: "/",
        service: "demo.Demo",
        descriptors: &[],
        error_domain: "demo.example",
        errors: &[("THING_NOT_FOUND", -32001)],
        version: None,
        discovery: None,
    };

    #[test]
    fn a_mapped_reason_takes_its_code_and_the_rest_their_class() {
        let s = error_status(
            Code::NotFound,
            "THING_NOT_FOUND",
            "demo.example",
            "no thing",
        );
        let e = to_error(&s, &PROFILE);
        assert_eq!(e["code"], -32001);
        assert_eq!(e["message"], "no thing");
        assert_eq!(e["data"][0]["reason"], "THING_NOT_FOUND");
        assert_eq!(
            reason_in(&e, "demo.example").as_deref(),
            Some("THING_NOT_FOUND")
        );
        assert_eq!(
            reason_of(&s, "demo.example").as_deref(),
            Some("THING_NOT_FOUND")
        );
        // The same reason in another domain is not the spec's.
        let other = error_status(Code::NotFound, "THING_NOT_FOUND", "elsewhere", "x");
        assert_eq!(to_error(&other, &PROFILE)["code"], -32603);
        assert_eq!(
            to_error(&Status::invalid_argument("bad"), &PROFILE)["code"],
            -32602
        );
        let bare = to_error(&Status::unimplemented(""), &PROFILE);
        assert_eq!(bare, json!({"code": -32601, "message": "Unimplemented"}));
    }
}
