//! A message from the wrong side, named as such: decoding as one role a message only another
//! role sends fails with "`x` is sent by the server, not the client" (rule `wrong_side`)
//! rather than "unknown kind". Generated `decode_message` functions and `agentwire trace
//! check` both ask here, so the wording is the same everywhere.

use serde_json::Value;

use crate::error::{FieldError, Invalid, Rule};

/// When `invalid` (the errors of decoding a message as sent by `from`) says only that its kind
/// is unknown or missing, and another of `roles` accepts it (`accepts(role)`), the error that
/// says whose message it is. `whole` is the pointer of the message itself (`""`, or
/// `/message` inside a trace entry); the kind is the error's own, or else `text_at` reads it
/// from the input at the error's pointer.
pub fn wrong_side(
    roles: &[&str],
    from: &str,
    invalid: &Invalid,
    whole: &str,
    text_at: impl Fn(&str) -> Option<String>,
    accepts: impl Fn(&str) -> bool,
) -> Option<FieldError> {
    let [e] = invalid.errors.as_slice() else {
        return None;
    };
    if !matches!(e.rule, Rule::UnknownKind | Rule::MissingKind) || !e.pointer.starts_with(whole) {
        return None;
    }
    let sender = roles.iter().find(|r| **r != from && accepts(r))?;
    // The kind is the tag's value, or (a protobuf oneof) the member's name; the other side
    // may name its kinds under another tag, so this side finds none.
    let kind = e.kind.clone().or_else(|| text_at(&e.pointer));
    Some(match kind {
        Some(kind) if e.rule == Rule::UnknownKind => named(&e.pointer, &kind, sender, from),
        _ => FieldError::new(
            whole,
            Rule::WrongSide,
            format!("this message is sent by the {sender}, not the {from}"),
        ),
    })
}

/// The error for `kind` (at `pointer`) received as if `from` sent it, when `sender` does.
pub fn named(pointer: &str, kind: &str, sender: &str, from: &str) -> FieldError {
    FieldError::new(
        pointer,
        Rule::WrongSide,
        format!("`{kind}` is sent by the {sender}, not the {from}"),
    )
}

/// What a skeleton reports for a frame it `refused`: the error `decode_message` gives the
/// same text (`by_role`) when that names the frame as another side's, else `refused` itself.
/// Skeletons call it on refused frames only, so an accepted frame costs nothing more.
pub fn prefer_wrong_side(refused: Invalid, by_role: Option<Result<Value, Invalid>>) -> Invalid {
    match by_role {
        Some(Err(named)) if matches!(named.errors.as_slice(), [e] if e.rule == Rule::WrongSide) => {
            named
        }
        _ => refused,
    }
}

/// What a generated `decode_message` returns: `decode(from, json)`, with an error about a
/// message another role sends replaced by the one [`wrong_side`] words. The other roles are
/// tried only on that failure, so an accepted message costs nothing more.
pub fn decode_by_role<R>(
    roles: &[&str],
    from: &str,
    json: &str,
    decode: impl Fn(&str, &str) -> Option<Result<R, Invalid>>,
) -> Option<Result<R, Invalid>> {
    Some(decode(from, json)?.map_err(|invalid| {
        let text_at = |pointer: &str| {
            let value: Value = serde_json::from_str(json).ok()?;
            value.pointer(pointer)?.as_str().map(str::to_owned)
        };
        let accepts = |role: &str| matches!(decode(role, json), Some(Ok(_)));
        match wrong_side(roles, from, &invalid, "", text_at, accepts) {
            Some(e) => Invalid::one(e),
            None => invalid,
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A toy protocol: the client sends `ping`, the server `pong`, both under `type`.
    fn decode(from: &str, json: &str) -> Option<Result<String, Invalid>> {
        let kind = match from {
            "client" => "ping",
            "server" => "pong",
            _ => return None,
        };
        let value: Value = serde_json::from_str(json).unwrap();
        match value["type"].as_str() {
            Some(k) if k == kind => Some(Ok(k.to_owned())),
            Some(k) => Some(Err(Invalid::one(FieldError::new(
                "/type",
                Rule::UnknownKind,
                format!("unknown `type` value `{k}`"),
            )))),
            None => Some(Err(Invalid::one(FieldError::new(
                "/type",
                Rule::MissingKind,
                "missing discriminator `type`",
            )))),
        }
    }

    #[test]
    fn the_other_sides_kind_is_named_with_its_sender() {
        let roles = ["client", "server"];
        let e = decode_by_role(&roles, "client", r#"{"type":"pong"}"#, decode)
            .unwrap()
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "/type: `pong` is sent by the server, not the client [wrong_side]"
        );
        // A kind nobody sends stays unknown; a role that sends nothing is `None`.
        let e = decode_by_role(&roles, "client", r#"{"type":"zap"}"#, decode)
            .unwrap()
            .unwrap_err();
        assert_eq!(e.errors[0].rule, Rule::UnknownKind);
        assert!(decode_by_role(&roles, "robot", r#"{"type":"ping"}"#, decode).is_none());
        assert_eq!(
            decode_by_role(&roles, "server", r#"{"type":"pong"}"#, decode),
            Some(Ok("pong".to_owned()))
        );
    }

    #[test]
    fn the_kind_is_the_errors_own_not_read_from_its_wording() {
        // A protobuf oneof member outside this side's wrapper: nothing at the pointer, and a
        // message worded any way at all.
        let invalid = Invalid::one(FieldError::unknown_kind("/pong", "pong", "no such member"));
        let e = wrong_side(
            &["client", "server"],
            "client",
            &invalid,
            "",
            |_| None,
            |r| r == "server",
        )
        .unwrap();
        assert_eq!(
            e.to_string(),
            "/pong: `pong` is sent by the server, not the client [wrong_side]"
        );
    }
}
