//! A failed call on the HTTP+JSON binding: the HTTP status `google/rpc/code.proto` gives
//! its gRPC code, and the `google.rpc.Status` JSON form in an `error` member (`code` the
//! HTTP status, `status` the gRPC code's name, `message`, and `details` as ProtoJSON `Any`
//! objects, each `google.rpc.ErrorInfo` among them).

use agentwire_runtime::grpc_status::{CODES, HTTP};
use axum::http::StatusCode;
use serde_json::{Value, json};
use tonic::Status;

use crate::grpc_json::details_json;

/// The HTTP status and JSON body of a failed call.
pub fn error_body(status: &Status) -> (StatusCode, Value) {
    let code = usize::try_from(i32::from(status.code())).unwrap_or(2);
    let http = HTTP.get(code).copied().unwrap_or(500);
    let name = CODES.get(code).copied().unwrap_or("UNKNOWN");
    let message = if status.message().is_empty() {
        name.to_owned()
    } else {
        status.message().to_owned()
    };
    let body = json!({"error": {
        "code": http,
        "status": name,
        "message": message,
        "details": details_json(status),
    }});
    (
        StatusCode::from_u16(http).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        body,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grpc_json::error_status;

    #[test]
    fn each_code_takes_its_http_status_and_the_details_stay() {
        let s = error_status(
            tonic::Code::NotFound,
            "THING_NOT_FOUND",
            "demo.example",
            "gone",
        );
        let (http, body) = error_body(&s);
        assert_eq!(http, StatusCode::NOT_FOUND);
        assert_eq!(body["error"]["code"], 404);
        assert_eq!(body["error"]["status"], "NOT_FOUND");
        assert_eq!(body["error"]["message"], "gone");
        assert_eq!(body["error"]["details"][0]["reason"], "THING_NOT_FOUND");
        let (http, body) = error_body(&Status::failed_precondition(""));
        assert_eq!(http, StatusCode::BAD_REQUEST);
        assert_eq!(body["error"]["message"], "FAILED_PRECONDITION");
        assert_eq!(body["error"]["details"], json!([]));
        assert_eq!(
            error_body(&Status::unimplemented("x")).0,
            StatusCode::NOT_IMPLEMENTED
        );
        assert_eq!(
            error_body(&Status::unauthenticated("x")).0,
            StatusCode::UNAUTHORIZED
        );
    }
}
