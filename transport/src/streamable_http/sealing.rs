//! Request state sealed by the transport ([`crate::seal`]): a handler answers a request with
//! its own state in the result member the profile names ([`SealedState::result`]), written
//! as it likes (JSON text, say); the server seals it, bound to the request's method, before
//! the answer leaves, and opens the state a retry gives back in the params member
//! ([`SealedState::params`]) before any engine sees the request, so the handler reads what it
//! wrote. State that does not verify (changed, sealed for another method or under another
//! key) or has expired is refused with 400 and -32602, `data: {"member", "reason"}`, and
//! reaches no handler. Every server instance holding the key opens what any of them sealed.

use std::sync::Arc;

use agentwire_runtime::jsonrpc::codes;
use serde_json::{Value, json};

use super::profile::SealedState;
use crate::seal::Sealer;

/// A sealer shared by a server's sessions (compared by identity, so that a configuration
/// holding one can still be compared).
#[derive(Debug, Clone)]
pub struct SharedSealer(pub Arc<Sealer>);

impl PartialEq for SharedSealer {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for SharedSealer {}

/// What a session seals with: the key and the members.
#[derive(Debug, Clone)]
pub(crate) struct Sealing {
    pub sealer: Arc<Sealer>,
    pub members: SealedState,
}

/// Why a request's state was refused: the error member of the answer.
pub(crate) fn refused(member: &str, reason: &str) -> Value {
    json!({
        "code": codes::INVALID_PARAMS,
        "message": format!("params.{member} is not state this server sealed: {reason}"),
        "data": {"member": member, "reason": reason},
    })
}

impl Sealing {
    /// `text` (a request of `method`) with its sealed state opened in place; unchanged when
    /// it carries none. `Err` holds the error member refusing it.
    pub fn open(&self, method: &str, text: &str) -> Result<Option<String>, Value> {
        let member = self.members.params;
        let Ok(mut message) = serde_json::from_str::<Value>(text) else {
            return Ok(None);
        };
        let Some(slot) = message.get_mut("params").and_then(|p| p.get_mut(member)) else {
            return Ok(None);
        };
        let Some(sealed) = slot.as_str() else {
            return Err(refused(member, "it is not a string"));
        };
        let opened = self
            .sealer
            .open(method, sealed)
            .map_err(|e| refused(member, &e.to_string()))?;
        let opened = String::from_utf8(opened)
            .map_err(|_| refused(member, "it does not hold UTF-8 text"))?;
        *slot = Value::String(opened);
        Ok(Some(message.to_string()))
    }

    /// `json` (the response to a request of `method`) with the state its result carries
    /// sealed; unchanged when it carries none. A state that cannot be sealed (too large)
    /// turns the answer into an internal error: sending it unsealed would hand the client
    /// state it could change.
    pub fn seal(&self, method: &str, json: String) -> String {
        let member = self.members.result;
        let Ok(mut message) = serde_json::from_str::<Value>(&json) else {
            return json;
        };
        let Some(slot) = message.get_mut("result").and_then(|r| r.get_mut(member)) else {
            return json;
        };
        let Some(state) = slot.as_str() else {
            return json;
        };
        match self.sealer.seal(method, state.as_bytes()) {
            Ok(sealed) => {
                *slot = Value::String(sealed);
                message.to_string()
            }
            Err(e) => {
                tracing::error!(error = %e, "a handler's state could not be sealed");
                let error = json!({"code": codes::INTERNAL_ERROR,
                    "message": format!("the answer's state could not be sealed: {e}")});
                json!({"jsonrpc": "2.0", "id": message.get("id"), "error": error}).to_string()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn sealing(key: &[u8]) -> Sealing {
        Sealing {
            sealer: Arc::new(Sealer::new(key, Duration::from_secs(60)).unwrap()),
            members: SealedState {
                params: "state",
                result: "state",
            },
        }
    }

    #[test]
    fn a_result_is_sealed_and_its_retry_opened() {
        let s = sealing(&[7; 32]);
        let answer = r#"{"jsonrpc":"2.0","id":1,"result":{"total":0,"state":"{\"step\":7}"}}"#;
        let sealed: Value = serde_json::from_str(&s.seal("count", answer.to_owned())).unwrap();
        let token = sealed["result"]["state"].as_str().unwrap();
        assert!(!token.contains("step"));
        let retry = json!({"jsonrpc": "2.0", "id": 2, "method": "count",
            "params": {"step": 7, "state": token}})
        .to_string();
        let opened: Value =
            serde_json::from_str(&s.open("count", &retry).unwrap().unwrap()).unwrap();
        assert_eq!(opened["params"]["state"], "{\"step\":7}");
        // Another method, another key, a changed token: refused, with the member named.
        assert_eq!(
            s.open("other", &retry).unwrap_err()["data"]["member"],
            "state"
        );
        assert!(sealing(&[8; 32]).open("count", &retry).is_err());
        let changed = retry.replace(&token[..4], "AAAA");
        assert_eq!(s.open("count", &changed).unwrap_err()["code"], -32602);
        // Nothing to open or seal: unchanged.
        assert_eq!(s.open("count", r#"{"params":{}}"#), Ok(None));
        let plain = r#"{"jsonrpc":"2.0","id":1,"result":{"total":0}}"#;
        assert_eq!(s.seal("count", plain.to_owned()), plain);
    }
}
