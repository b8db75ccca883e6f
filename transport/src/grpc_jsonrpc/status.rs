//! A failed call on the JSON-RPC binding: the code the profile's table gives its
//! `ErrorInfo` reason (else the JSON-RPC code of the gRPC status class), the status message,
//! and the details as ProtoJSON `Any` objects in `data`.

use serde_json::{Value, json};
use tonic::{Code, Status};

use super::Profile;
use crate::grpc_json::details_json;

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
    let details = details_json(status);
    let mapped = details
        .iter()
        .filter(|d| d["domain"] == profile.error_domain)
        .find_map(|d| profile.code_of(d["reason"].as_str()?));
    let code = mapped.unwrap_or_else(|| class_code(status.code()));
    let message = if status.message().is_empty() {
        format!("{:?}", status.code())
    } else {
        status.message().to_owned()
    };
    let mut error = json!({"code": code, "message": message});
    if !details.is_empty() {
        error["data"] = Value::Array(details);
    }
    error
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grpc_json::{error_status, reason_of};

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
            crate::grpc_json::reason_in_details(&e["data"], "demo.example").as_deref(),
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
