//! JSON decoding into generated types with errors that name a JSON pointer and a rule.
//!
//! The fast path is agentwire's own reader ([`crate::json`]). Only when it refuses is the input
//! parsed again by serde_json, and only when that fails too a third time with path tracking, so
//! well-formed traffic pays nothing for precise errors. [`decode_all`] goes on past the first
//! error to find the others (see there); its cost, too, falls on failed input only.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::{FieldError, Invalid, Rule};
use crate::json::unique;
use crate::tagged::AT_PREFIX;
use crate::validate::{JsonPointer, Validate};

/// Parses `json` into `T`; a failure carries the pointer and the rule it broke.
///
/// The fast path accepts exactly what serde_json accepts; where it refuses (bad input, deep
/// nesting, a `RawValue` field) serde_json decides.
///
/// An object with a key twice is refused with rule `duplicate` wherever it is (see
/// [`crate::json::unique`]), so no consumer reads a different message from the same text.
pub fn decode_json<T: DeserializeOwned>(json: &str) -> Result<T, Invalid> {
    match crate::json::from_str::<T>(json) {
        Ok(v) => return Ok(v),
        Err(e) if e.is_duplicate() => {
            return Err(unique::check(json.as_bytes()).err().unwrap_or_else(|| {
                Invalid::one(FieldError::new("", Rule::Duplicate, "duplicate key"))
            }));
        }
        Err(_) => {}
    }
    // serde_json keeps one of two values for a key given twice: look for duplicates first.
    unique::check(json.as_bytes())?;
    // serde_json recurses unguarded (up to its limit of 128 levels): give it room.
    serde_json_room(|| match serde_json::from_str::<T>(json) {
        Ok(v) => Ok(v),
        Err(first) => Err(explain_str::<T>(json, first)),
    })
}

/// Decodes `json` into `T` and checks every constraint: what generated `from_json` and
/// `decode_type` call. A failure lists every error [`decode_all`] finds.
pub fn decode_checked<T: DeserializeOwned + Validate>(json: &str) -> Result<T, Invalid> {
    let value: T = decode_all(json)?;
    value.validate()?;
    Ok(value)
}

/// [`decode_checked`] for a decoder chosen at run time, a `DeserializeSeed` that `seed` makes
/// afresh for each read (the run-time interpreter reads protobuf messages this way, from their
/// descriptors): the same duplicate-key and syntax checks, the same first error from the text
/// with its pointer and rule, the same search past it ([`every_error_with`]); `validate` gives
/// the constraint errors of a value that decoded.
pub fn decode_checked_seed<S, V>(
    json: &str,
    seed: impl Fn() -> S,
    validate: impl Fn(&V) -> Vec<FieldError>,
) -> Result<V, Invalid>
where
    S: for<'de> serde::de::DeserializeSeed<'de, Value = V>,
{
    unique::check(json.as_bytes())?;
    let first = serde_json_room(|| {
        if let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(json) {
            return Err(Invalid::one(FieldError::new(
                "",
                Rule::Syntax,
                e.to_string(),
            )));
        }
        let mut de = serde_json::Deserializer::from_str(json);
        let mut track = serde_path_to_error::Track::new();
        let read = seed().deserialize(serde_path_to_error::Deserializer::new(&mut de, &mut track));
        read.map_err(|e| {
            let pointer = path_to_pointer(&track.path());
            if e.is_syntax() && e.to_string().starts_with("expected value") {
                // A value of the wrong JSON type where an enum was expected, as `explain_str`.
                return Invalid::one(FieldError::new(pointer, Rule::Type, e.to_string()));
            }
            Invalid::one(classify(pointer, e))
        })
    });
    let first = match first {
        Ok(value) => {
            let errors = validate(&value);
            return if errors.is_empty() {
                Ok(value)
            } else {
                Err(Invalid { errors })
            };
        }
        Err(first) => first,
    };
    Err(every_error_with(json, first, |value| {
        let mut track = serde_path_to_error::Track::new();
        match seed().deserialize(serde_path_to_error::Deserializer::new(value, &mut track)) {
            Ok(decoded) => Ok(validate(&decoded)),
            Err(e) => Err(classify(path_to_pointer(&track.path()), e)),
        }
    }))
}

/// How many bytes of input one failed decode may read again while looking for more errors:
/// each error costs one more decode of the whole message, so a large message gets fewer.
const SEARCH_BUDGET: usize = 4 << 20;
/// The most decodes one failed message gets while looking for more errors.
const MAX_ROUNDS: usize = 32;

/// Like [`decode_json`] (the same value, the same first error), but a message that fails is
/// decoded again past each error to report every one: missing required fields, values of the
/// wrong type, enum values, and the constraints the rest of the message breaks. Each failing
/// value is replaced by the nearest one its rule accepts ([`crate::repair`]) and the message
/// decoded again, until it decodes (its constraints are then checked, except under the
/// replaced values), an error has no replacement (an unknown kind, a pattern), or the search
/// budget is spent (32 decodes, fewer for a message over 128 KiB).
///
/// The value returned on success is not validated; [`decode_checked`] does both.
pub fn decode_all<T: DeserializeOwned + Validate>(json: &str) -> Result<T, Invalid> {
    let first = match decode_json::<T>(json) {
        Ok(v) => return Ok(v),
        Err(first) => first,
    };
    Err(every_error_with(
        json,
        first,
        |value| match serde_path_to_error::deserialize::<_, T>(value) {
            Ok(decoded) => {
                let mut broken = Vec::new();
                decoded.validate_at(&mut JsonPointer::new(), &mut broken);
                Ok(broken)
            }
            Err(e) => Err(classify(path_to_pointer(e.path()), e.into_inner())),
        },
    ))
}

/// The search [`decode_all`] runs past the `first` errors of decoding `json`, for any decoder:
/// `decode` reads a value (its object keys in `Value` order) and gives either the constraint
/// errors of what decoded or its first decoding error. The run-time interpreter of spec
/// folders (`agentwire trace check --spec`) calls it with its own decoder, so both report the
/// same errors in the same order.
pub fn every_error_with(
    json: &str,
    first: Invalid,
    decode: impl FnMut(&Value) -> Result<Vec<FieldError>, FieldError>,
) -> Invalid {
    if matches!(
        first.errors.first().map(|e| &e.rule),
        Some(Rule::Syntax | Rule::Duplicate) | None
    ) {
        return first;
    }
    serde_json_room(|| match serde_json::from_str::<Value>(json) {
        Ok(mut value) => every_error(&mut value, first, rounds_for(json.len()), decode),
        Err(_) => first,
    })
}

fn rounds_for(len: usize) -> usize {
    (SEARCH_BUDGET / len.max(1)).clamp(1, MAX_ROUNDS)
}

/// Goes on from the `first` errors of decoding `value`, repairing as it goes.
fn every_error(
    value: &mut Value,
    first: Invalid,
    rounds: usize,
    mut decode: impl FnMut(&Value) -> Result<Vec<FieldError>, FieldError>,
) -> Invalid {
    let mut found = first.errors;
    let mut pending = found.clone();
    // Errors under a replaced value are about the replacement (a `null` put in for a missing
    // field), not the message.
    let mut replaced: Vec<String> = Vec::new();
    // Objects that lost an unknown member: an error about the object itself (its oneof now
    // has no case) is about the removal.
    let mut emptied: Vec<String> = Vec::new();
    for _ in 0..rounds {
        for e in &pending {
            if !crate::repair::repair(value, e) {
                return Invalid { errors: found };
            }
            match e.pointer.rsplit_once('/') {
                Some((parent, _)) if e.rule == Rule::UnknownKind => emptied.push(parent.into()),
                _ => replaced.push(e.pointer.clone()),
            }
        }
        let about_the_message =
            |e: &FieldError| !is_under(&e.pointer, &replaced) && !emptied.contains(&e.pointer);
        match decode(&*value) {
            Ok(broken) => {
                found.extend(broken.into_iter().filter(about_the_message));
                break;
            }
            Err(e) => {
                if about_the_message(&e) {
                    found.push(e.clone());
                }
                pending = vec![e];
            }
        }
    }
    Invalid { errors: found }
}

/// Whether `pointer` is one of `roots` or inside one of them.
fn is_under(pointer: &str, roots: &[String]) -> bool {
    roots.iter().any(|root| {
        pointer
            .strip_prefix(root.as_str())
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    })
}

/// Runs a parse by serde_json where its deepest recursion fits (see [`crate::json::with_stack`]).
pub(crate) fn serde_json_room<R>(f: impl FnOnce() -> R) -> R {
    use crate::json::{STACK_FOR_SERDE_JSON, with_stack};
    with_stack(STACK_FOR_SERDE_JSON, 2 * STACK_FOR_SERDE_JSON, f)
}

/// Converts an already-parsed JSON value into `T`, with the same error shape as `decode_json`.
/// A `Value` has lost any duplicate key already: read peer text into one with
/// [`crate::json::unique::parse_value`], which refuses them.
pub fn decode_value<T: DeserializeOwned>(value: &Value) -> Result<T, Invalid> {
    match serde_json_room(|| serde_path_to_error::deserialize::<_, T>(value)) {
        Ok(v) => Ok(v),
        Err(e) => {
            let pointer = path_to_pointer(e.path());
            Err(Invalid::one(classify(pointer, e.into_inner())))
        }
    }
}

fn explain_str<T: DeserializeOwned>(json: &str, first: serde_json::Error) -> Invalid {
    // serde_json reports some type mismatches (a number where an enum is expected) as syntax
    // errors; only input that is not JSON at all is a syntax error here.
    if let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(json) {
        return Invalid::one(FieldError::new("", Rule::Syntax, e.to_string()));
    }
    let mut de = serde_json::Deserializer::from_str(json);
    let error = match serde_path_to_error::deserialize::<_, T>(&mut de) {
        Ok(_) => return Invalid::one(classify(String::new(), first)),
        Err(e) if e.inner().is_syntax() && e.inner().to_string().starts_with("expected value") => {
            // A value of the wrong JSON type where an enum was expected.
            let pointer = path_to_pointer(e.path());
            return Invalid::one(FieldError::new(pointer, Rule::Type, e.inner().to_string()));
        }
        Err(e) => e,
    };
    let pointer = path_to_pointer(error.path());
    Invalid::one(classify(pointer, error.into_inner()))
}

/// Renders a serde_path_to_error path as a JSON pointer.
pub(crate) fn path_to_pointer(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => {
                out.push('/');
                out.push_str(&index.to_string());
            }
            Segment::Map { key } => {
                out.push('/');
                out.push_str(&key.replace('~', "~0").replace('/', "~1"));
            }
            Segment::Enum { .. } | Segment::Unknown => {}
        }
    }
    out
}

/// Turns a serde error message into a rule; serde's wording for each case is stable.
fn classify(mut pointer: String, error: serde_json::Error) -> FieldError {
    let full = error.to_string();
    let mut message = match full.rfind(" at line ") {
        Some(i) if error.line() > 0 => &full[..i],
        _ => full.as_str(),
    };
    // Errors raised inside fields buffered ahead of a discriminator carry their inner pointer.
    while let Some(rest) = message.strip_prefix(AT_PREFIX) {
        let Some((inner, tail)) = rest.split_once("`: ") else {
            break;
        };
        pointer.push_str(inner);
        message = tail;
    }
    let rule = if let Some(field) = backticked_after(message, "missing field ") {
        push_segment(&mut pointer, field);
        Rule::Required
    } else if let Some(tag) = backticked_after(message, "missing discriminator ") {
        push_segment(&mut pointer, tag);
        Rule::MissingKind
    } else if message.starts_with("unknown variant ") {
        Rule::Enum
    } else if let Some(key) = backticked_after(message, "unknown field ") {
        // A key outside the type (pbjson's oneof wrappers): the path already names it.
        return FieldError::unknown_kind(pointer, key, message);
    } else if let Some(tag) = backticked_after(message, "unknown ") {
        push_segment(&mut pointer, tag);
        // `tagged::unknown_kind`'s wording: "unknown `<tag>` value `<kind>`, ...".
        let prefix = format!("unknown `{tag}` value ");
        if let Some(kind) = backticked_after(message, &prefix) {
            return FieldError::unknown_kind(pointer, kind, message);
        }
        Rule::UnknownKind
    } else if message.starts_with("duplicate field ") {
        // The pointer names the object: pbjson reports a oneof given twice under the name of
        // one of its cases, which need not be a key of the input.
        Rule::Duplicate
    } else {
        Rule::Type
    };
    FieldError::new(pointer, rule, message)
}

fn backticked_after<'a>(message: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = message.strip_prefix(prefix)?.strip_prefix('`')?;
    rest.split_once('`').map(|(name, _)| name)
}

fn push_segment(pointer: &mut String, segment: &str) {
    pointer.push('/');
    pointer.push_str(&segment.replace('~', "~0").replace('/', "~1"));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Inner {
        loading: bool,
    }

    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Outer {
        id: String,
        payload: Inner,
    }

    /// A message with a constraint beyond its type: a non-empty id.
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Counted {
        id: String,
        count: i64,
        payload: Inner,
    }

    impl Validate for Counted {
        fn validate_at(&self, at: &mut JsonPointer, errors: &mut Vec<FieldError>) {
            at.with("id", |at| {
                crate::validate::min_length(&self.id, 1, at, errors)
            });
        }
    }

    #[test]
    fn every_error_of_a_message_is_reported() {
        let json = r#"{"id": "", "count": "7", "payload": {}}"#;
        let e = decode_checked::<Counted>(json).unwrap_err();
        assert_eq!(
            e.to_string(),
            "/count: invalid type: string \"7\", expected i64 [type]; \
             /payload/loading: missing field `loading` [required]; \
             /id: length 0 is below the minimum 1 [min_length 1]"
        );
        // The first error is decode_json's, and a valid message decodes as before.
        assert_eq!(
            decode_json::<Counted>(json).unwrap_err().errors[0],
            e.errors[0]
        );
        let ok = r#"{"id": "a", "count": 7, "payload": {"loading": true}}"#;
        assert_eq!(decode_checked::<Counted>(ok).unwrap().count, 7);
        // Input that is not JSON has one error.
        let e = decode_checked::<Counted>(r#"{"id": "#).unwrap_err();
        assert_eq!(e.errors.len(), 1);
        assert_eq!(e.errors[0].rule, Rule::Syntax);
    }

    #[test]
    fn a_large_message_gets_fewer_rounds() {
        assert_eq!(rounds_for(10), MAX_ROUNDS);
        assert_eq!(rounds_for(1 << 20), 4);
        assert_eq!(rounds_for(64 << 20), 1);
    }

    #[test]
    fn errors_name_pointer_and_rule() {
        let e = decode_json::<Outer>(r#"{"id": "a", "payload": {}}"#).unwrap_err();
        assert_eq!(e.errors[0].pointer, "/payload/loading");
        assert_eq!(e.errors[0].rule, Rule::Required);
        let e = decode_json::<Outer>(r#"{"id": "a", "payload": {"loading": 1}}"#).unwrap_err();
        assert_eq!(e.errors[0].pointer, "/payload/loading");
        assert_eq!(e.errors[0].rule, Rule::Type);
        let e = decode_json::<Outer>(r#"{"id": "a", "#).unwrap_err();
        assert_eq!(e.errors[0].rule, Rule::Syntax);
        assert_eq!(e.errors[0].pointer, "");
    }
}
