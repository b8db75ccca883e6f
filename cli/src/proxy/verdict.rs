//! What happens to one message on its way through the proxy, whatever carries it: it is
//! recorded and checked, then (with `--enforce`) either forwarded or replaced by an answer
//! in the protocol's own error form. The byte-stream pumps, the HTTP and the WebSocket
//! relays all decide here, so a message is judged the same way on every transport.

use super::refuse::{Answer, answer};
use super::rules::{Rules, other_role};

/// What to do with a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Forward it unchanged.
    Forward,
    /// Drop it (a refused notification, or an answer with nowhere to go).
    Drop,
    /// Send this to the side that sent it instead (already recorded, from the other side).
    Back(String),
    /// Send this on to the receiver instead (already recorded, from the sender).
    On(String),
}

/// Records and checks `body` (`Err`: input that was no message, and why) that `from` sent.
pub fn judge(rules: Rules<'_>, from: &str, body: Result<&str, &str>) -> Verdict {
    let findings = match body {
        Ok(text) => rules.session.message(rules.stream, from, text),
        Err(why) => rules.session.broken(rules.stream, from, why),
    };
    if !rules.enforce || findings.is_empty() {
        return Verdict::Forward;
    }
    match answer(rules.protocol, from, body.ok(), &findings) {
        Some(Answer::ToSender(text)) => {
            rules
                .session
                .message(rules.stream, other_role(rules.protocol, from), &text);
            Verdict::Back(text)
        }
        Some(Answer::ToReceiver(text)) => {
            rules.session.message(rules.stream, from, &text);
            Verdict::On(text)
        }
        None => Verdict::Drop,
    }
}
