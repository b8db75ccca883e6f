//! The requests a client has in flight, each with a token that drops the connection its
//! answer comes on. A request sent on its own (no session, its version named in the message)
//! has nowhere a later notification could reach it, so the client cancels it the only way
//! such a server can see: by closing that connection.

use std::collections::HashMap;
use std::sync::Mutex;

use agentwire_runtime::jsonrpc::{CancelRule, RequestId};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// The tokens of the requests whose answers are awaited, by id.
#[derive(Debug, Default)]
pub(crate) struct InFlight(Mutex<HashMap<RequestId, CancellationToken>>);

impl InFlight {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<RequestId, CancellationToken>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers request `id`: its token, cancelled when the request is abandoned.
    pub(crate) fn start(&self, id: &RequestId) -> CancellationToken {
        let token = CancellationToken::new();
        self.map().insert(id.clone(), token.clone());
        token
    }

    /// Request `id`'s answer arrived (or never will): nothing is left to drop.
    pub(crate) fn finish(&self, id: &RequestId) {
        self.map().remove(id);
    }

    /// Drops the connection of request `id`'s answer; `false` when none is awaited.
    pub(crate) fn abandon(&self, id: &RequestId) -> bool {
        let token = self.map().remove(id);
        token.inspect(CancellationToken::cancel).is_some()
    }

    /// How many answers are awaited.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.map().len()
    }
}

/// The id `json` cancels when it is `rule`'s notification (its method, the id under its
/// params' member the rule names).
pub(crate) fn cancelled_id(rule: &CancelRule, json: &str) -> Option<RequestId> {
    let message: Value = serde_json::from_str(json).ok()?;
    if message.get("method")?.as_str()? != rule.method || message.get("id").is_some() {
        return None;
    }
    let id = message.get("params")?.get(rule.id)?;
    serde_json::from_value(id.clone()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentwire_runtime::jsonrpc::CancelAnswer;

    const RULE: CancelRule = CancelRule {
        method: "x/cancel",
        id: "which",
        answer: CancelAnswer::Nothing,
    };

    #[test]
    fn a_cancel_notification_names_the_request_it_cancels() {
        let note = r#"{"jsonrpc":"2.0","method":"x/cancel","params":{"which":7}}"#;
        assert_eq!(cancelled_id(&RULE, note), Some(RequestId::Number(7)));
        let named = r#"{"jsonrpc":"2.0","method":"x/cancel","params":{"which":"a"}}"#;
        assert_eq!(
            cancelled_id(&RULE, named),
            Some(RequestId::String("a".into()))
        );
        for other in [
            r#"{"jsonrpc":"2.0","method":"x/other","params":{"which":7}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"x/cancel","params":{"which":7}}"#,
            r#"{"jsonrpc":"2.0","method":"x/cancel","params":{}}"#,
            "not json",
        ] {
            assert_eq!(cancelled_id(&RULE, other), None, "{other}");
        }
    }

    #[test]
    fn abandoning_cancels_the_token_once_and_forgets_it() {
        let flying = InFlight::default();
        let token = flying.start(&RequestId::Number(1));
        flying.start(&RequestId::Number(2));
        assert!(flying.abandon(&RequestId::Number(1)));
        assert!(token.is_cancelled());
        assert!(!flying.abandon(&RequestId::Number(1)));
        flying.finish(&RequestId::Number(2));
        assert!(!flying.abandon(&RequestId::Number(2)));
        assert_eq!(flying.len(), 0);
    }
}
