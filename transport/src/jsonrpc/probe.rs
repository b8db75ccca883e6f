//! A lenient look at a message that failed to decode: is it a request, a notification or a
//! response, and what is its id? That decides whether and how a refusal is answered.

use agentwire_runtime::jsonrpc::RequestId;
use serde::Deserialize;
use serde::de::IgnoredAny;

/// The parts of an undecodable message that decide how it is refused.
#[derive(Debug, Default, PartialEq)]
pub struct Shape {
    /// The id, when it is present and a valid id (a number or string).
    pub id: Option<RequestId>,
    pub has_id: bool,
    pub has_method: bool,
    pub has_outcome: bool,
}

impl Shape {
    /// A call without an `id` member: JSON-RPC never answers those, even with an error.
    pub fn is_notification(&self) -> bool {
        self.has_method && !self.has_id
    }

    /// Something with an id and a result or error but no method: answering it could loop.
    pub fn is_response(&self) -> bool {
        !self.has_method && self.has_id && self.has_outcome
    }
}

// Members are read as "present" flags: a `null` member still counts as present.
#[derive(Deserialize)]
struct Loose {
    #[serde(default, deserialize_with = "some")]
    id: Option<serde_json::Value>,
    #[serde(default, deserialize_with = "present")]
    method: bool,
    #[serde(default, deserialize_with = "present")]
    result: bool,
    #[serde(default, deserialize_with = "present")]
    error: bool,
}

fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    IgnoredAny::deserialize(d).map(|_| true)
}

fn some<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<serde_json::Value>, D::Error> {
    serde_json::Value::deserialize(d).map(Some)
}

/// Reads what it can of `text`; anything that is not a JSON object gives an empty shape.
pub fn probe(text: &str) -> Shape {
    // A derived struct decoder also accepts an array (by position), which is not an envelope.
    if !text.trim_start().starts_with('{') {
        return Shape::default();
    }
    let Ok(loose) = serde_json::from_str::<Loose>(text) else {
        return Shape::default();
    };
    Shape {
        has_id: loose.id.is_some(),
        id: loose.id.and_then(|v| serde_json::from_value(v).ok()),
        has_method: loose.method,
        has_outcome: loose.result || loose.error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tells_calls_from_notifications_and_responses() {
        let s = probe(r#"{"jsonrpc":"2.0","id":7,"method":"x","params":3}"#);
        assert_eq!(s.id, Some(RequestId::Number(7)));
        assert!(!s.is_notification() && !s.is_response());
        assert!(probe(r#"{"method":"x"}"#).is_notification());
        assert!(probe(r#"{"id":"a","result":null}"#).is_response());
        assert_eq!(probe("[1,2]"), Shape::default());
        assert_eq!(probe(r#"{"id":{"x":1},"method":"m"}"#).id, None);
    }
}
