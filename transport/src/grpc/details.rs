//! `google.rpc` error details carried in a gRPC status (`grpc-status-details-bin`, a
//! `google.rpc.Status` whose `details` are `Any`s): the messages as `google/rpc/status.proto`
//! and `error_details.proto` declare them, and the status of a message the validators
//! refused, whose `google.rpc.BadRequest` names each failing field, so a client can tell
//! which field to fix without reading the message.

use std::collections::BTreeMap;

use agentwire_runtime::Invalid;
use tonic::{Code, Status};

/// The type URL of `google.rpc.ErrorInfo`.
pub const ERROR_INFO: &str = "type.googleapis.com/google.rpc.ErrorInfo";
/// The type URL of `google.rpc.BadRequest`.
pub const BAD_REQUEST: &str = "type.googleapis.com/google.rpc.BadRequest";

/// `google.rpc.Status`.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct RpcStatus {
    #[prost(int32, tag = "1")]
    pub code: i32,
    #[prost(string, tag = "2")]
    pub message: String,
    #[prost(message, repeated, tag = "3")]
    pub details: Vec<Any>,
}

/// `google.protobuf.Any`.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct Any {
    #[prost(string, tag = "1")]
    pub type_url: String,
    #[prost(bytes = "vec", tag = "2")]
    pub value: Vec<u8>,
}

/// `google.rpc.ErrorInfo`.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct ErrorInfo {
    #[prost(string, tag = "1")]
    pub reason: String,
    #[prost(string, tag = "2")]
    pub domain: String,
    #[prost(btree_map = "string, string", tag = "3")]
    pub metadata: BTreeMap<String, String>,
}

/// `google.rpc.BadRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct BadRequest {
    #[prost(message, repeated, tag = "1")]
    pub field_violations: Vec<FieldViolation>,
}

/// `google.rpc.BadRequest.FieldViolation`.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct FieldViolation {
    #[prost(string, tag = "1")]
    pub field: String,
    #[prost(string, tag = "2")]
    pub description: String,
}

/// A status of `code` and `message` whose details are `details`.
pub(crate) fn with_details(code: Code, message: String, details: Vec<Any>) -> Status {
    let body = RpcStatus {
        code: code as i32,
        message: message.clone(),
        details,
    };
    Status::with_details(code, message, prost::Message::encode_to_vec(&body).into())
}

/// The details of a status, decoded; none when it carries none or they do not decode.
pub(crate) fn details_of(status: &Status) -> Vec<Any> {
    <RpcStatus as prost::Message>::decode(status.details())
        .map(|s| s.details)
        .unwrap_or_default()
}

/// The status of a message the validators refused: `code`, `message`, and a
/// `google.rpc.BadRequest` with one violation per failure, the field named by its path
/// (`message.parts[0].text`) and described with the failure's sentence and rule.
pub fn invalid_with_violations(code: Code, message: String, invalid: &Invalid) -> Status {
    let violations = invalid
        .errors
        .iter()
        .map(|e| FieldViolation {
            field: field_path(&e.pointer),
            description: format!("{} [{}]", e.message, e.rule),
        })
        .collect();
    let bad = BadRequest {
        field_violations: violations,
    };
    let any = Any {
        type_url: BAD_REQUEST.to_owned(),
        value: prost::Message::encode_to_vec(&bad),
    };
    with_details(code, message, vec![any])
}

/// A JSON pointer (`/message/parts/0/text`) as a field path (`message.parts[0].text`), the
/// form `BadRequest.FieldViolation.field` takes; the root is the empty path.
pub fn field_path(pointer: &str) -> String {
    let mut out = String::new();
    for segment in pointer.split('/').skip(1) {
        let segment = segment.replace("~1", "/").replace("~0", "~");
        if !segment.is_empty() && segment.bytes().all(|b| b.is_ascii_digit()) {
            out.push_str(&format!("[{segment}]"));
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&segment);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use agentwire_runtime::{FieldError, Rule};

    use super::*;

    #[test]
    fn pointers_become_field_paths() {
        assert_eq!(field_path(""), "");
        assert_eq!(field_path("/message/role"), "message.role");
        assert_eq!(field_path("/message/parts/0/text"), "message.parts[0].text");
        assert_eq!(field_path("/metadata/a~1b"), "metadata.a/b");
    }

    #[test]
    fn a_refused_message_names_each_field() {
        let invalid = Invalid {
            errors: vec![
                FieldError::new("/message/role", Rule::Enum, "99 is not a value"),
                FieldError::new("/message/parts", Rule::Required, "is required"),
            ],
        };
        let status = invalid_with_violations(Code::InvalidArgument, "bad".into(), &invalid);
        assert_eq!(status.code(), Code::InvalidArgument);
        let details = details_of(&status);
        assert_eq!(details.len(), 1);
        assert_eq!(details[0].type_url, BAD_REQUEST);
        let bad: BadRequest = prost::Message::decode(details[0].value.as_slice()).unwrap();
        let fields: Vec<(&str, &str)> = bad
            .field_violations
            .iter()
            .map(|v| (v.field.as_str(), v.description.as_str()))
            .collect();
        assert_eq!(
            fields,
            [
                ("message.role", "99 is not a value [enum]"),
                ("message.parts", "is required [required]")
            ]
        );
    }
}
