//! What `--enforce` sends instead of a message that failed its check: the protocol's own
//! error form. JSON-RPC requests get an error response with their id (the codes the
//! generated peers use), a broken frame one with a null id, an answer that failed goes back
//! to the side that asked as an error for its id, and a notification is dropped. A JSON-text
//! protocol whose other side has an `error` message with a `payload.message` gets that
//! message, as its generated server sends on a bad frame; otherwise the frame is dropped.

use agentwire_runtime::jsonrpc::codes;
use agentwire_runtime::registry::{Protocol, TransportKind};
use serde_json::{Value, json};

use crate::check::finding::{Detail, Finding};

/// Where the answer to a refused message goes.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// Back to the side that sent the refused message.
    ToSender(String),
    /// On to the side it was meant for (a refused answer becomes an error for the request).
    ToReceiver(String),
}

/// The answer to `body`, which `from` sent and `findings` refused; `None` drops it silently.
/// `broken` tells a frame that could not be read at all.
pub fn answer(
    p: &dyn Protocol,
    from: &str,
    body: Option<&str>,
    findings: &[Finding],
) -> Option<Answer> {
    let why = findings
        .iter()
        .map(|f| f.text.as_str())
        .collect::<Vec<_>>()
        .join("; ");
    let message = format!("refused by agentwire proxy: {why}");
    if p.transport() == TransportKind::JsonRpc {
        return jsonrpc(body, findings, message);
    }
    let other = p.roles().iter().find(|r| **r != from)?;
    error_frame(p, other, &message, findings).map(Answer::ToSender)
}

fn rpc_error(id: &Value, code: i64, message: String, findings: &[Finding]) -> String {
    let texts: Vec<&str> = findings.iter().map(|f| f.text.as_str()).collect();
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code, "message": message, "data": {"findings": texts}},
    })
    .to_string()
}

fn jsonrpc(body: Option<&str>, findings: &[Finding], message: String) -> Option<Answer> {
    let parsed = body.and_then(|b| serde_json::from_str::<Value>(b).ok());
    let Some(Value::Object(msg)) = parsed else {
        let code = if findings.iter().any(|f| f.detail == Detail::Json) || body.is_none() {
            codes::PARSE_ERROR
        } else {
            codes::INVALID_REQUEST
        };
        return Some(Answer::ToSender(rpc_error(
            &Value::Null,
            code,
            message,
            findings,
        )));
    };
    let id = msg.get("id").filter(|id| id.is_string() || id.is_number());
    match (msg.contains_key("method"), id) {
        // A notification is never answered.
        (true, None) => None,
        (true, Some(id)) => {
            let code = request_code(findings);
            Some(Answer::ToSender(rpc_error(id, code, message, findings)))
        }
        (false, Some(id)) => Some(Answer::ToReceiver(rpc_error(
            id,
            codes::INTERNAL_ERROR,
            message,
            findings,
        ))),
        (false, None) => Some(Answer::ToSender(rpc_error(
            &Value::Null,
            codes::INVALID_REQUEST,
            message,
            findings,
        ))),
    }
}

/// The code the generated peers answer a refused request with: -32601 for a method the
/// receiver does not take, -32602 for bad params, the failed check's own `code:` for a
/// sequence violation that declares one, -32600 otherwise.
fn request_code(findings: &[Finding]) -> i64 {
    let field = findings.iter().find_map(|f| match &f.detail {
        Detail::Field { pointer, rule, .. } => Some((pointer.as_str(), rule.as_str())),
        _ => None,
    });
    let declared = findings.iter().find_map(|f| match &f.detail {
        Detail::Sequence { code, .. } => *code,
        _ => None,
    });
    match (field, declared) {
        (Some(("/message/method", "unknown_kind" | "wrong_side")), _) => codes::METHOD_NOT_FOUND,
        (Some((pointer, _)), _) if pointer.starts_with("/message/params") => codes::INVALID_PARAMS,
        (_, Some(code)) => code,
        _ => codes::INVALID_REQUEST,
    }
}

/// The `error` message `role` sends in `p`, if it has one of the usual shape: tried with
/// the common tag names, with and without an id, and kept only when `p` decodes it.
fn error_frame(
    p: &dyn Protocol,
    role: &str,
    message: &str,
    findings: &[Finding],
) -> Option<String> {
    let texts: Vec<&str> = findings.iter().map(|f| f.text.as_str()).collect();
    for tag in ["type", "kind"] {
        for with_id in [false, true] {
            let mut frame = json!({
                tag: "error",
                "payload": {"message": message, "details": {"findings": texts}},
            });
            if with_id {
                frame["id"] = "refused-by-proxy".into();
            }
            for details in [true, false] {
                if !details {
                    frame["payload"]
                        .as_object_mut()
                        .map(|o| o.remove("details"));
                }
                let entry = json!({"from": role, "message": frame});
                if matches!(p.decode(role, &entry), Some(Ok(_))) {
                    return Some(frame.to_string());
                }
            }
        }
    }
    None
}
