//! Decoding of untagged unions (`anyOf`, `A | B`): every member is tried on the value, and the
//! one that reads it whole wins, not merely the first that reads it at all.
//!
//! serde's `#[serde(untagged)]` takes the first member that decodes. With open objects (a
//! member ignores members it does not declare) that is often the wrong one: a response type
//! with two optional fields takes a value meant for a sibling with three, and the third is
//! silently dropped. A schema's `anyOf` is satisfied by any member the value is valid
//! against, so the reader here prefers, in this order: a member whose constraints hold and
//! that keeps every part of the input; else the valid member that keeps the most of it (the
//! earlier on a tie); else (nothing is valid) the first that decodes, whose errors the
//! validator then reports. Members come in the order the generator put them (the most
//! demanding first, catch-alls last), which decides ties.

use serde::de::{self, Deserialize, Deserializer};
use serde::{Serialize, de::DeserializeOwned};
use serde_json::Value;

use crate::validate::Validate;

/// One member's decoder: reads the buffered value as the member and wraps it in the union.
pub type Member<U> = fn(&Value) -> Result<U, serde_json::Error>;

/// Reads `value` as `T`; what a generated [`Member`] calls before wrapping the result.
pub fn member<T: DeserializeOwned>(value: &Value) -> Result<T, serde_json::Error> {
    T::deserialize(value)
}

/// `Deserialize::deserialize` of the untagged union `name` with `members` in trial order.
/// A value no member decodes is refused with serde's own wording for untagged enums.
pub fn deserialize<'de, U, D>(d: D, name: &str, members: &[Member<U>]) -> Result<U, D::Error>
where
    U: Serialize + Validate,
    D: Deserializer<'de>,
{
    let value = Value::deserialize(d)?;
    pick(&value, members).ok_or_else(|| {
        de::Error::custom(format_args!(
            "data did not match any variant of untagged enum {name}"
        ))
    })
}

/// The member `value` reads as (see the module doc); `None` when no member decodes it.
pub fn pick<U: Serialize + Validate>(value: &Value, members: &[Member<U>]) -> Option<U> {
    let whole = kept(value, value);
    let mut first_decoded: Option<U> = None;
    let mut best_valid: Option<(usize, U)> = None;
    for read in members {
        let Ok(candidate) = read(value) else {
            continue;
        };
        if candidate.validate().is_err() {
            if first_decoded.is_none() {
                first_decoded = Some(candidate);
            }
            continue;
        }
        // Generated types always serialize; a failure would only mean "keeps nothing".
        let written = serde_json::to_value(&candidate).unwrap_or(Value::Null);
        let score = kept(value, &written);
        if score == whole {
            return Some(candidate);
        }
        if best_valid.as_ref().is_none_or(|(best, _)| score > *best) {
            best_valid = Some((score, candidate));
        }
    }
    best_valid.map(|(_, u)| u).or(first_decoded)
}

/// How much of `input` survives in `output`: one for every object member present in both
/// (plus what its value keeps), every array element position, and every scalar written back
/// unchanged (`1` and `1.0` differ). `kept(v, v)` is the size of `v`.
pub fn kept(input: &Value, output: &Value) -> usize {
    match (input, output) {
        (Value::Object(i), Value::Object(o)) => i
            .iter()
            .filter_map(|(k, v)| o.get(k).map(|w| 1 + kept(v, w)))
            .sum(),
        (Value::Array(i), Value::Array(o)) => {
            i.iter().zip(o).map(|(v, w)| 1 + kept(v, w)).sum::<usize>()
        }
        (Value::Object(_) | Value::Array(_), _) => 0,
        (i, o) => usize::from(i == o),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{FieldError, Rule};
    use crate::validate::JsonPointer;
    use serde_json::json;

    /// Two open objects: `Few` declares two optional members, `More` three others.
    #[derive(Debug, PartialEq, Serialize, serde::Deserialize)]
    struct Few {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        a: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        b: Option<String>,
    }

    #[derive(Debug, PartialEq, Serialize, serde::Deserialize)]
    struct More {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        a: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        c: Option<Vec<u8>>,
    }

    #[derive(Debug, PartialEq, Serialize)]
    #[serde(untagged)]
    enum Either {
        Few(Few),
        More(More),
    }

    impl Validate for Either {
        fn validate_at(&self, at: &mut JsonPointer, errors: &mut Vec<FieldError>) {
            // `b` must not be empty: a rule only the validator knows.
            if let Either::Few(Few { b: Some(b), .. }) = self
                && b.is_empty()
            {
                errors.push(FieldError::new(at.as_str(), Rule::MinLength(1), "empty"));
            }
        }
    }

    const MEMBERS: &[Member<Either>] = &[
        |v| member(v).map(Either::Few),
        |v| member(v).map(Either::More),
    ];

    fn read(value: Value) -> Option<Either> {
        pick(&value, MEMBERS)
    }

    #[test]
    fn the_member_that_keeps_the_input_whole_wins_over_an_earlier_one() {
        // `Few` decodes it too, dropping `c`.
        let got = read(json!({"a": "x", "c": [1, 2]})).unwrap();
        assert!(matches!(got, Either::More(_)), "{got:?}");
        // Nobody keeps `z`: the earlier member, which keeps as much as the other, stays.
        let got = read(json!({"a": "x", "z": 1})).unwrap();
        assert!(matches!(got, Either::Few(_)), "{got:?}");
        let got = read(json!({"b": "y"})).unwrap();
        assert!(matches!(got, Either::Few(_)), "{got:?}");
    }

    #[test]
    fn a_valid_member_wins_over_an_invalid_one_that_keeps_more() {
        // `Few` keeps `b` but breaks its rule; `More` is valid and keeps `a`.
        let got = read(json!({"a": "x", "b": ""})).unwrap();
        assert!(matches!(got, Either::More(_)), "{got:?}");
    }

    #[test]
    fn a_value_no_member_decodes_is_refused_with_serdes_wording() {
        assert!(read(json!("text")).is_none());
        let err = deserialize(&json!(3), "Either", MEMBERS).unwrap_err();
        assert_eq!(
            err.to_string(),
            "data did not match any variant of untagged enum Either"
        );
    }

    #[test]
    fn kept_counts_members_elements_and_equal_scalars() {
        let v = json!({"a": [1, 2.5], "b": {"c": null}});
        assert_eq!(kept(&v, &v), 8);
        assert_eq!(kept(&v, &json!({"a": [1.0, 2.5]})), 4);
        assert_eq!(kept(&json!(1), &json!(1.0)), 0);
        assert_eq!(kept(&json!({}), &json!({"x": 1})), 0);
    }
}
