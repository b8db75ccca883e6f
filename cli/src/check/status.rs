//! gRPC statuses in traces: `{"from": ROLE, "status": {"code": "ALREADY_EXISTS", "message":
//! "..."}}` records how a gRPC call ended. The status is the last word of the stream: nothing
//! may follow it, and a status other than `OK` ended the call early, so instances it left
//! mid-flow are not violations (a registration refused with `ALREADY_EXISTS` is answered).

use agentwire_runtime::grpc_status;
use serde_json::Value;

/// The code name of a trace line's `status`, or why it is not one (JSON pointer, message).
pub fn code(entry: &Value) -> Result<&'static str, (&'static str, String)> {
    let Some(status) = entry.get("status") else {
        return Err(("/status", "missing field `status`".into()));
    };
    let code = status
        .get("code")
        .ok_or(("/status/code", "missing field `code`".to_owned()))?;
    let found = match code {
        Value::String(name) => grpc_status::by_name(name),
        Value::Number(n) => n.as_u64().and_then(grpc_status::by_number),
        _ => None,
    };
    found.ok_or((
        "/status/code",
        format!("`{code}` is not a gRPC status code (a name such as ALREADY_EXISTS, or 0 to 16)"),
    ))
}

/// Whether a trace line records a status rather than a message.
pub fn is_status(entry: &Value) -> bool {
    entry.get("status").is_some() && entry.get("message").is_none()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn codes_by_name_or_number() {
        assert_eq!(
            code(&json!({"status": {"code": "ALREADY_EXISTS"}})),
            Ok("ALREADY_EXISTS")
        );
        assert_eq!(
            code(&json!({"status": {"code": 3}})),
            Ok("INVALID_ARGUMENT")
        );
        assert!(code(&json!({"status": {"code": 17}})).is_err());
        assert!(code(&json!({"status": {"code": "NOPE"}})).is_err());
        assert!(code(&json!({"status": {}})).is_err());
        assert!(is_status(
            &json!({"from": "gateway", "status": {"code": 0}})
        ));
    }
}
