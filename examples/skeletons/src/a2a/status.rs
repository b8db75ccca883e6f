//! A2A's errors as gRPC statuses (specification 5.4 and 10.6): the status code of the
//! mapping table, and a `google.rpc.Status` in `grpc-status-details-bin` holding an
//! `ErrorInfo` with the error's reason in the `a2a-protocol.org` domain, which is how SDK
//! clients tell a `TaskNotFoundError` from any other `NOT_FOUND`.

use agentwire_transport::tonic::{Code, Status};

/// The domain A2A's `ErrorInfo` details name.
pub const DOMAIN: &str = "a2a-protocol.org";

/// The A2A errors this agent answers with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum A2aError {
    TaskNotFound,
    TaskNotCancelable,
    UnsupportedOperation,
    PushNotificationNotSupported,
    VersionNotSupported,
    InvalidParams,
}

impl A2aError {
    /// The gRPC code and `ErrorInfo.reason` of the specification's table.
    fn code_and_reason(self) -> (Code, &'static str) {
        match self {
            A2aError::TaskNotFound => (Code::NotFound, "TASK_NOT_FOUND"),
            A2aError::TaskNotCancelable => (Code::FailedPrecondition, "TASK_NOT_CANCELABLE"),
            A2aError::UnsupportedOperation => (Code::FailedPrecondition, "UNSUPPORTED_OPERATION"),
            A2aError::PushNotificationNotSupported => {
                (Code::FailedPrecondition, "PUSH_NOTIFICATION_NOT_SUPPORTED")
            }
            A2aError::VersionNotSupported => (Code::FailedPrecondition, "VERSION_NOT_SUPPORTED"),
            A2aError::InvalidParams => (Code::InvalidArgument, "INVALID_PARAMS"),
        }
    }

    /// The status, with its `ErrorInfo` detail.
    pub fn status(self, message: impl Into<String>) -> Status {
        let (code, reason) = self.code_and_reason();
        let message = message.into();
        let info = ErrorInfo {
            reason: reason.to_owned(),
            domain: DOMAIN.to_owned(),
            metadata: Default::default(),
        };
        let details = RpcStatus {
            code: code as i32,
            message: message.clone(),
            details: vec![Any {
                type_url: "type.googleapis.com/google.rpc.ErrorInfo".to_owned(),
                value: prost::Message::encode_to_vec(&info),
            }],
        };
        Status::with_details(
            code,
            message,
            prost::Message::encode_to_vec(&details).into(),
        )
    }
}

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
    metadata: std::collections::BTreeMap<String, String>,
}

/// The `ErrorInfo.reason` of a status this module made, if any (for clients and tests).
pub fn reason_of(status: &Status) -> Option<String> {
    let details: RpcStatus = prost::Message::decode(status.details()).ok()?;
    details
        .details
        .iter()
        .filter(|a| a.type_url.ends_with("/google.rpc.ErrorInfo"))
        .filter_map(|a| <ErrorInfo as prost::Message>::decode(a.value.as_slice()).ok())
        .find(|i| i.domain == DOMAIN)
        .map(|i| i.reason)
}
