//! Response typing across a recorded JSON-RPC stream: a response's `result` is only typed by
//! the request it answers, so a checker of traces remembers each side's requests by id and
//! decodes each result as the result type of the request with the same id from the other
//! side. Ids are typed: `2` and `"2"` are different requests.

use std::collections::HashMap;

use serde_json::Value;

use crate::Invalid;
use crate::registry::Protocol;

/// The requests of one stream still waiting for their answers, by sender and id.
#[derive(Debug, Default)]
pub struct Calls {
    /// (sender, id as JSON text) -> method.
    open: HashMap<(String, String), String>,
    /// The most requests remembered at once; beyond, the oldest are not tracked (a trace
    /// of a million unanswered requests must not hold them all).
    limit: usize,
}

/// Requests remembered at once by default.
pub const DEFAULT_LIMIT: usize = 65_536;

impl Calls {
    pub fn new() -> Self {
        Self {
            open: HashMap::new(),
            limit: DEFAULT_LIMIT,
        }
    }

    /// Takes one message `from` sent (already decoded once by the protocol): remembers a
    /// request, and decodes a response's result as the result of the request it answers.
    /// `Some(Err)` names what is wrong with the result, pointers relative to the message;
    /// `None` when the message is not a response to a known request.
    pub fn observe(
        &mut self,
        p: &dyn Protocol,
        from: &str,
        message: &Value,
    ) -> Option<Result<(), Invalid>> {
        let id = message.get("id").filter(|id| !id.is_null())?;
        let key = id.to_string();
        if let Some(method) = message.get("method").and_then(Value::as_str) {
            if self.open.len() < self.limit.max(1) {
                self.open.insert((from.to_owned(), key), method.to_owned());
            }
            return None;
        }
        // Answered by whoever did not send it: any other role with that id open.
        let asker = p
            .roles()
            .iter()
            .find(|r| **r != from && self.open.contains_key(&(r.to_string(), key.clone())))?;
        let method = self.open.remove(&(asker.to_string(), key))?;
        message.get("result")?;
        let decoded = p.decode_response(&method, &message.to_string())?;
        Some(decoded.map(|_| ()))
    }
}
