//! Instances drawn from a JSON Schema, with no hand-picked value: a seeded walk that tries to
//! satisfy each schema (following local `$ref`s, picking one `oneOf`/`anyOf` member, filling
//! required and some optional properties), and near misses made from those by one mutation
//! (a required key dropped, a value of another JSON type, a member added). Which of them are
//! valid is for a reference validator to say; the walk only makes likely candidates.

pub use agentwire_runtime::instances::{Rng, draw, local};
use serde_json::{Value, json};

/// The member a near miss adds to an object, declared by no schema of the corpus.
pub const UNDECLARED: &str = "zz_unknown";

/// A near miss of `value`: one mutation, chosen by `rng`.
pub fn mutate(value: &Value, rng: &mut Rng) -> Value {
    let mut out = value.clone();
    match (&mut out, rng.below(3)) {
        (Value::Object(m), 0) if !m.is_empty() => {
            let key = m
                .keys()
                .nth(rng.below(m.len()))
                .cloned()
                .unwrap_or_default();
            m.remove(&key);
        }
        (Value::Object(m), 1) if !m.is_empty() => {
            let key = m
                .keys()
                .nth(rng.below(m.len()))
                .cloned()
                .unwrap_or_default();
            m.insert(key, json!([7]));
        }
        (Value::Object(m), _) => {
            m.insert(UNDECLARED.to_owned(), json!(1));
        }
        (Value::Array(items), _) if !items.is_empty() => items[0] = json!({"zz": 1}),
        (Value::String(_), _) => out = json!(12),
        _ => out = json!("zz"),
    }
    out
}
