//! The nearest value a rule accepts: a failing value replaced so decoding can go on past it.
//! Decoding uses it to find every error of a message, not just the first
//! ([`crate::decode::decode_all`]); `agentwire trace check` to let the sequence check go on
//! past an invalid message, "as if it had arrived". A string of the minimum length, the first
//! allowed enum value, a number at the bound, a value of the expected JSON type for a wrong or
//! missing one; a member a closed type does not have is dropped.

use serde_json::{Value, json};

use crate::error::{FieldError, Rule};

/// Replaces the value `e` points at by one its rule accepts; false when there is none.
pub fn repair(entry: &mut Value, e: &FieldError) -> bool {
    let (parent, key) = match e.pointer.rsplit_once('/') {
        Some((parent, key)) => (parent, key.replace("~1", "/").replace("~0", "~")),
        None => return false,
    };
    if e.rule == Rule::Required {
        // A missing field becomes `null`; the next decode says which type it needs.
        return match entry.pointer_mut(parent) {
            Some(Value::Object(map)) => {
                map.insert(key, Value::Null);
                true
            }
            _ => false,
        };
    }
    if e.rule == Rule::UnknownKind && e.message.starts_with("unknown field ") {
        // A member a closed type does not have (pbjson's messages): without it, it decodes.
        return match entry.pointer_mut(parent) {
            Some(Value::Object(map)) => map.remove(&key).is_some(),
            _ => false,
        };
    }
    let Some(value) = entry.pointer_mut(&e.pointer) else {
        return false;
    };
    match replacement(value, e) {
        Some(new) if new != *value => {
            *value = new;
            true
        }
        _ => false,
    }
}

/// The value that satisfies `e`'s rule nearest to `value`.
fn replacement(value: &Value, e: &FieldError) -> Option<Value> {
    let text = value.as_str().unwrap_or_default();
    Some(match &e.rule {
        Rule::Type => of_expected_type(&e.message)?,
        Rule::Enum => Value::String(first_backticked_after(&e.message, "expected")?),
        Rule::MinLength(n) => {
            let missing = (*n as usize).saturating_sub(text.chars().count());
            Value::String(format!("{text}{}", "x".repeat(missing)))
        }
        Rule::MaxLength(n) => Value::String(text.chars().take(*n as usize).collect()),
        Rule::MinItems(n) => {
            let items = value.as_array()?;
            let first = items.first()?.clone();
            let mut items = items.clone();
            items.resize(*n as usize, first);
            Value::Array(items)
        }
        Rule::MaxItems(n) => Value::Array(
            value
                .as_array()?
                .iter()
                .take(*n as usize)
                .cloned()
                .collect(),
        ),
        Rule::Minimum(v) | Rule::Maximum(v) => json!(v),
        Rule::Format("uri") => json!("urn:agentwire:repaired"),
        Rule::Format("date-time") => json!("1970-01-01T00:00:00Z"),
        Rule::Format("uuid") => json!("00000000-0000-0000-0000-000000000000"),
        _ => return None,
    })
}

/// A value of the type a serde "invalid type: X, expected Y" message names.
fn of_expected_type(message: &str) -> Option<Value> {
    let expected = message.rsplit_once("expected ")?.1;
    let has = |w: &str| expected.contains(w);
    Some(if has("string") || has("char") {
        json!("x")
    } else if has("bool") {
        json!(false)
    } else if has("integer")
        || has("i64")
        || has("u64")
        || has("i32")
        || has("u32")
        || has("number")
        || has("f64")
    {
        json!(0)
    } else if has("sequence") || has("array") {
        json!([])
    } else if has("map") || has("struct") || has("object") {
        json!({})
    } else {
        return None;
    })
}

fn first_backticked_after(message: &str, word: &str) -> Option<String> {
    let rest = &message[message.find(word)? + word.len()..];
    let start = rest.find('`')? + 1;
    let len = rest[start..].find('`')?;
    Some(rest[start..start + len].to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(pointer: &str, rule: Rule, message: &str) -> FieldError {
        FieldError::new(pointer, rule, message)
    }

    #[test]
    fn each_rule_gets_the_nearest_accepted_value() {
        let mut v = json!({"m": {"id": "", "kind": "zz", "n": "7", "list": [1, 2, 3]}});
        assert!(repair(
            &mut v,
            &err("/m/id", Rule::MinLength(2), "too short")
        ));
        assert!(repair(
            &mut v,
            &err(
                "/m/kind",
                Rule::Enum,
                "unknown variant `zz`, expected one of `a`, `b`"
            )
        ));
        assert!(repair(
            &mut v,
            &err(
                "/m/n",
                Rule::Type,
                "invalid type: string \"7\", expected i64"
            )
        ));
        assert!(repair(
            &mut v,
            &err("/m/list", Rule::MaxItems(1), "too many")
        ));
        assert!(repair(
            &mut v,
            &err("/m/gone", Rule::Required, "missing field `gone`")
        ));
        assert_eq!(
            v,
            json!({"m": {"id": "xx", "kind": "a", "n": 0, "list": [1], "gone": null}})
        );
        assert!(!repair(
            &mut v,
            &err("/m/id", Rule::Pattern("^a$"), "no match")
        ));
        assert!(repair(
            &mut v,
            &err(
                "/m/n",
                Rule::UnknownKind,
                "unknown field `n`, expected `id`"
            )
        ));
        assert_eq!(v["m"].get("n"), None);
    }
}
