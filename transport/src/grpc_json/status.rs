//! A failed call's error, between the bindings: a gRPC status whose details
//! (`google.rpc.Status` in `grpc-status-details-bin`) carry a `google.rpc.ErrorInfo` naming
//! the error's reason and domain, or a validator's `google.rpc.BadRequest`, built, read
//! back, and written as the ProtoJSON `Any` objects the JSON bindings put in their error
//! bodies.

use std::collections::BTreeMap;

use serde_json::{Value, json};
use tonic::{Code, Status};

pub use crate::grpc::details::ERROR_INFO;
use crate::grpc::details::{Any, BAD_REQUEST, BadRequest, ErrorInfo, details_of, with_details};

/// A status of `code` whose details name `reason` in `domain`.
pub fn error_status(code: Code, reason: &str, domain: &str, message: impl Into<String>) -> Status {
    let info = ErrorInfo {
        reason: reason.to_owned(),
        domain: domain.to_owned(),
        metadata: BTreeMap::new(),
    };
    let any = Any {
        type_url: ERROR_INFO.to_owned(),
        value: prost::Message::encode_to_vec(&info),
    };
    with_details(code, message.into(), vec![any])
}

/// The `ErrorInfo`s of a status's details.
fn infos(status: &Status) -> Vec<ErrorInfo> {
    details_of(status)
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

/// The `ErrorInfo`s and `BadRequest`s of a status's details as ProtoJSON `Any` objects, in
/// their order (other detail types are left out: their schema is not known here).
pub fn details_json(status: &Status) -> Vec<Value> {
    details_of(status)
        .iter()
        .filter_map(
            |a| match a.type_url.rsplit('/').next().unwrap_or_default() {
                "google.rpc.ErrorInfo" => {
                    let i: ErrorInfo = prost::Message::decode(a.value.as_slice()).ok()?;
                    Some(
                        json!({"@type": ERROR_INFO, "reason": i.reason, "domain": i.domain,
                            "metadata": i.metadata}),
                    )
                }
                "google.rpc.BadRequest" => {
                    let b: BadRequest = prost::Message::decode(a.value.as_slice()).ok()?;
                    let violations: Vec<Value> = b
                        .field_violations
                        .iter()
                        .map(|v| json!({"field": v.field, "description": v.description}))
                        .collect();
                    Some(json!({"@type": BAD_REQUEST, "fieldViolations": violations}))
                }
                _ => None,
            },
        )
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
