//! The little the transport reads of a JSON-RPC message to route it: its kind, id and method.
//! Everything else (params, results, validation against a schema) is the engine's business.

use agentwire_runtime::jsonrpc::{RequestId, RpcError, codes};
use serde::Deserialize;
use serde_json::value::RawValue;

/// What a message is, as far as routing goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// Has a `method` and an `id`: expects an answer.
    Request { id: RequestId, method: String },
    /// Has a `method` and no `id`.
    Notification { method: String },
    /// Has an `id` and a `result` or an `error`.
    Response { id: RequestId },
}

impl Kind {
    /// The id of a request or a response.
    pub fn id(&self) -> Option<&RequestId> {
        match self {
            Kind::Request { id, .. } | Kind::Response { id } => Some(id),
            Kind::Notification { .. } => None,
        }
    }
}

/// Why a body is not one JSON-RPC message: the JSON-RPC error code the spec gives, the
/// rule it broke, and the id of the request it was, when that could be read (the refusal
/// answers it; JSON-RPC answers with a null id only what it cannot read).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotAMessage {
    pub code: i64,
    pub rule: String,
    pub id: Option<RequestId>,
}

/// The envelope members the transport looks at; unknown members are ignored.
#[derive(Deserialize)]
struct Envelope<'a> {
    jsonrpc: Option<String>,
    #[serde(default, deserialize_with = "present")]
    id: Option<Option<RequestId>>,
    method: Option<String>,
    #[serde(borrow)]
    result: Option<&'a RawValue>,
    #[serde(borrow)]
    error: Option<&'a RawValue>,
}

/// Tells an absent member (`None`) from a present `null` (`Some(None)`).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<RequestId>>, D::Error> {
    Option::<RequestId>::deserialize(d).map(Some)
}

/// Classifies `text`, which must be a single JSON-RPC 2.0 message (not a batch: this
/// transport carries one message per POST).
pub fn classify(text: &str) -> Result<Kind, NotAMessage> {
    let value: &RawValue = serde_json::from_str(text).map_err(|e| NotAMessage {
        code: codes::PARSE_ERROR,
        rule: format!("body is not JSON: {e}"),
        id: None,
    })?;
    let invalid = |rule: &str| NotAMessage {
        code: codes::INVALID_REQUEST,
        rule: rule.to_owned(),
        id: None,
    };
    let raw = value.get().trim_start();
    if raw.starts_with('[') {
        return Err(invalid(
            "a batch (JSON array) is not accepted: send one message per POST",
        ));
    }
    if !raw.starts_with('{') {
        return Err(invalid("a JSON-RPC message is a JSON object"));
    }
    let env: Envelope<'_> = serde_json::from_str(raw)
        .map_err(|e| invalid(&format!("malformed JSON-RPC envelope: {e}")))?;
    // A call whose id could be read is answered with it, whatever else is wrong with it.
    let call_id = match (&env.method, &env.id) {
        (Some(_), Some(Some(id))) => Some(id.clone()),
        _ => None,
    };
    let invalid = |rule: &str| NotAMessage {
        id: call_id.clone(),
        ..invalid(rule)
    };
    if env.jsonrpc.as_deref() != Some("2.0") {
        return Err(invalid("`jsonrpc` must be \"2.0\""));
    }
    match (
        env.method,
        env.id,
        env.result.is_some() || env.error.is_some(),
    ) {
        (Some(_), Some(None), _) => Err(invalid("a request id is a number or a string, not null")),
        (Some(method), Some(Some(id)), false) => Ok(Kind::Request { id, method }),
        (Some(method), None, false) => Ok(Kind::Notification { method }),
        (None, Some(Some(id)), true) if env.result.is_some() != env.error.is_some() => {
            Ok(Kind::Response { id })
        }
        (None, _, true) if env.result.is_some() == env.error.is_some() => Err(invalid(
            "a response has exactly one of `result` and `error`",
        )),
        (None, Some(None) | None, true) => Err(invalid("a response without an id answers nothing")),
        _ => Err(invalid("neither a request, a notification nor a response")),
    }
}

/// What every consumer refuses of a message the envelope reader took: nesting deeper than
/// serde_json reads and a key given twice, with the code and text the JSON-RPC engine
/// answers them with (one answer, wherever it is given), and the request's id.
pub fn check_members(text: &str, kind: &Kind) -> Result<(), NotAMessage> {
    agentwire_runtime::json::unique::check(text.as_bytes()).map_err(|invalid| {
        let error = RpcError::for_invalid(&invalid);
        NotAMessage {
            code: error.code,
            rule: error.message,
            id: match kind {
                Kind::Request { id, .. } => Some(id.clone()),
                _ => None,
            },
        }
    })
}

/// The JSON text of an error response with a null id (the form the transport answers a body
/// it cannot take with).
pub fn error_body(code: i64, message: &str) -> String {
    error_answer(None, code, message)
}

/// The JSON text of an error response to `id` (`None`: a null id).
pub fn error_answer(id: Option<&RequestId>, code: i64, message: &str) -> String {
    serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        let req = classify(r#"{"jsonrpc":"2.0","id":"2","method":"ping"}"#).unwrap();
        assert_eq!(
            req,
            Kind::Request {
                id: RequestId::String("2".into()),
                method: "ping".into()
            }
        );
        let n = classify(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).unwrap();
        assert!(matches!(n, Kind::Notification { .. }));
        let r = classify(r#"{"jsonrpc":"2.0","id":2,"result":{}}"#).unwrap();
        assert_eq!(
            r,
            Kind::Response {
                id: RequestId::Number(2)
            }
        );
    }

    #[test]
    fn too_deep_and_twice_are_refused_with_the_request_id() {
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":9,"method":"echo","params":{{"a":{}1{}}}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        let kind = classify(&deep).unwrap();
        let e = check_members(&deep, &kind).unwrap_err();
        assert_eq!(
            (e.code, e.id),
            (codes::PARSE_ERROR, Some(RequestId::Number(9)))
        );
        assert!(e.rule.contains("nested deeper than"), "{}", e.rule);
        let twice = r#"{"jsonrpc":"2.0","id":"t","method":"echo","params":{"a":1,"a":2}}"#;
        let e = check_members(twice, &classify(twice).unwrap()).unwrap_err();
        assert_eq!(e.id, Some(RequestId::String("t".into())));
        let fine = r#"{"jsonrpc":"2.0","id":1,"method":"echo","params":[[[1]]]}"#;
        assert!(check_members(fine, &classify(fine).unwrap()).is_ok());
        let e = classify(r#"{"jsonrpc":"1.0","id":4,"method":"x"}"#).unwrap_err();
        assert_eq!(e.id, Some(RequestId::Number(4)));
    }

    #[test]
    fn refusals() {
        assert_eq!(classify("{").unwrap_err().code, codes::PARSE_ERROR);
        for bad in [
            "[]",
            "3",
            r#"{"id":1,"method":"x"}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"x"}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":1,"error":{}}"#,
            r#"{"jsonrpc":"2.0","result":1}"#,
            r#"{"jsonrpc":"2.0","id":{},"method":"x"}"#,
            r#"{"jsonrpc":"2.0"}"#,
        ] {
            assert_eq!(
                classify(bad).unwrap_err().code,
                codes::INVALID_REQUEST,
                "{bad}"
            );
        }
    }
}
