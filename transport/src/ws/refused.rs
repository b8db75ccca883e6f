//! Why an inbound frame was refused, in a form both logs and protocol error answers use.

use agentwire_runtime::Invalid;
use agentwire_runtime::machine::Violation;
use serde_json::{Value, json};

/// An inbound frame the skeleton did not hand to the application.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Refused {
    /// The protocol carries JSON text frames only.
    #[error("binary frame of {0} bytes: this protocol carries JSON text frames")]
    Binary(usize),
    /// The text did not decode or broke a constraint of the spec.
    #[error("invalid message: {0}")]
    Invalid(#[from] Invalid),
    /// The message arrived out of sequence (checker in enforce mode).
    #[error("out of sequence: {0}")]
    Violation(#[from] Violation),
}

impl Refused {
    /// The failing rules as JSON, for error answers that carry details.
    pub fn details(&self) -> Value {
        match self {
            Refused::Binary(len) => json!({"frame": "binary", "bytes": len}),
            Refused::Invalid(invalid) => json!({
                "errors": invalid.errors.iter().map(|e| json!({
                    "pointer": e.pointer,
                    "rule": e.rule.name(),
                    "message": e.message,
                })).collect::<Vec<_>>()
            }),
            Refused::Violation(v) => json!({
                "machine": v.machine,
                "state": v.state,
                "got": v.got,
                "expected": v.expected,
            }),
        }
    }
}
