//! Lets the sequence check go on past an invalid message, "as if it had arrived": the message's
//! failing values are replaced, one error at a time, by the nearest values its schema accepts
//! (a string of the minimum length, the first allowed enum value, a number at the bound, a
//! value of the expected JSON type for a wrong or missing one), until it decodes. The schema
//! findings are reported from the original message; the repaired one only feeds the checker,
//! so one bad field is one finding instead of a violation on every later message.

use agentwire_runtime::Invalid;
use agentwire_runtime::repair::repair;
use serde_json::Value;

/// How many single-value repairs one message may need before the check gives up on it.
const MAX_REPAIRS: usize = 32;

/// Decodes `entry` after repairing it, or `None` when some error has no repair (a pattern, an
/// unknown kind, a custom rule) or the repairs do not converge.
pub fn decode_repaired<R>(
    entry: &Value,
    first: &Invalid,
    decode: impl Fn(&Value) -> Option<Result<R, Invalid>>,
) -> Option<R> {
    let mut entry = entry.clone();
    let mut errors = first.errors.clone();
    for _ in 0..MAX_REPAIRS {
        for e in &errors {
            if !repair(&mut entry, e) {
                return None;
            }
        }
        match decode(&entry)? {
            Ok(msg) => return Some(msg),
            Err(invalid) => errors = invalid.errors,
        }
    }
    None
}
