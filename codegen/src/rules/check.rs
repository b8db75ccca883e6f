//! The checks every front end runs on a rule it read, with one wording: the argument's parse,
//! the fit to the value's type, a rule given twice, and a lower bound above its upper bound.

use super::{Arg, Constraints, Rule, Shape, Value};
use crate::ir::{FORMATS, Ty};

/// A constraint mistake: what is wrong, and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagError {
    pub message: String,
    pub help: String,
}

impl TagError {
    pub fn new(message: String, help: impl Into<String>) -> Self {
        Self {
            message,
            help: help.into(),
        }
    }
}

/// `written` is the rule as the user wrote it (`@minLength`, `min_length`), for messages.
pub fn count(written: &str, value: &str) -> Result<u64, TagError> {
    value.trim().parse::<u64>().map_err(|_| {
        TagError::new(
            format!("`{written}` needs a whole number, found `{}`", value.trim()),
            "write a count such as 1",
        )
    })
}

pub fn number(written: &str, value: &str) -> Result<f64, TagError> {
    value
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|n| n.is_finite())
        .ok_or_else(|| {
            TagError::new(
                format!(
                    "`{written}` needs a finite number, found `{}`",
                    value.trim()
                ),
                "write a number such as 1 or -0.5",
            )
        })
}

/// A finite number above zero.
pub fn positive(written: &str, value: &str) -> Result<f64, TagError> {
    number(written, value)?;
    value
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|n| *n > 0.0)
        .ok_or_else(|| {
            TagError::new(
                format!(
                    "`{written}` needs a number above zero, found `{}`",
                    value.trim()
                ),
                "write a number such as 1 or 0.5",
            )
        })
}

pub fn pattern(written: &str, value: &str) -> Result<(), TagError> {
    if value.is_empty() {
        return Err(TagError::new(
            format!("`{written}` needs a regular expression"),
            "write e.g. ^[a-z]+$",
        ));
    }
    regex::Regex::new(value).map(|_| ()).map_err(|e| {
        let text = e.to_string();
        // regex draws the pattern over several lines; the last one says what is wrong.
        let last = text
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .map_or(text.as_str(), |l| l.trim().trim_start_matches("error: "));
        TagError::new(
            format!("`{written}` is not a valid regular expression: {last}"),
            "the syntax is the Rust `regex` crate's (no look-around, no backreferences)",
        )
    })
}

pub fn format(written: &str, value: &str) -> Result<(), TagError> {
    if FORMATS.contains(&value) {
        return Ok(());
    }
    Err(TagError::new(
        format!("unknown format `{value}` for `{written}`"),
        format!("expected one of {}", FORMATS.join(", ")),
    ))
}

/// Parses a rule's argument from its text (after a comment tag, or a derive's literal).
pub fn parse_value(rule: Rule, written: &str, value: &str) -> Result<Value, TagError> {
    let value = value.trim();
    Ok(match rule.arg {
        Arg::Count => Value::Count(count(written, value)?),
        Arg::Number => Value::Number(number(written, value)?),
        Arg::Positive => Value::Number(positive(written, value)?),
        Arg::Regex => {
            pattern(written, value)?;
            Value::Text(value.to_owned())
        }
        Arg::Format => {
            format(written, value)?;
            Value::Text(value.to_owned())
        }
        Arg::Flag => Value::Flag,
        Arg::KeyLists => Value::KeyLists(key_lists(written, value)?),
        Arg::Schema => Value::Schema(subschema(written, value)?),
    })
}

/// A subschema document's JSON text, compact; the runtime compiles any JSON, so only the
/// syntax can be wrong.
pub fn subschema(written: &str, value: &str) -> Result<String, TagError> {
    let parsed: serde_json::Value = serde_json::from_str(value).map_err(|e| {
        TagError::new(
            format!("`{written}` needs a JSON Schema written as JSON: {e}"),
            r#"write e.g. {"if": {"required": ["card"]}, "then": {"required": ["billing"]}}"#,
        )
    })?;
    if !(parsed.is_object() || parsed.is_boolean()) {
        return Err(TagError::new(
            format!("`{written}` needs a schema (an object or a boolean), found `{value}`"),
            r#"write e.g. {"not": {"required": ["legacy"]}}"#,
        ));
    }
    Ok(parsed.to_string())
}

/// `card: billing cvc; email: name`: each member name, a colon, the names it requires.
pub fn key_lists(written: &str, value: &str) -> Result<Vec<(String, Vec<String>)>, TagError> {
    let wrong = || {
        TagError::new(
            format!("`{written}` needs member names with the names each requires, found `{value}`"),
            "write e.g. card: billing cvc; email: name",
        )
    };
    let mut out = Vec::new();
    for entry in value.split(';').map(str::trim).filter(|e| !e.is_empty()) {
        let (key, needs) = entry.split_once(':').ok_or_else(wrong)?;
        let needs: Vec<String> = (needs.split([' ', ',']))
            .filter(|n| !n.is_empty())
            .map(str::to_owned)
            .collect();
        if key.trim().is_empty() {
            return Err(wrong());
        }
        out.push((key.trim().to_owned(), needs));
    }
    if out.is_empty() {
        return Err(wrong());
    }
    Ok(out)
}

/// Whether `rule` fits a value of `shape`.
pub fn fits(rule: Rule, written: &str, shape: Shape) -> Result<(), TagError> {
    let want = rule.shape;
    if shape == want || shape == Shape::Unknown {
        return Ok(());
    }
    Err(TagError::new(
        format!(
            "`{written}` applies to {}, and this field is not one",
            want.plural()
        ),
        format!("put `{written}` on a field of {}", want.plural()),
    ))
}

/// The shape of the value a rule on a field of type `ty` constrains: on a list, the list
/// rules (`@minItems`) count the elements and every other rule applies to each element; on a
/// map every rule applies to each value. A named type is `Unknown` here (an alias may be a
/// string).
pub fn shape_for(rule: Rule, ty: &Ty) -> Shape {
    match ty {
        Ty::Nullable(inner) => shape_for(rule, inner),
        Ty::Array(_) if rule.shape == Shape::List => Shape::List,
        Ty::Array(inner) | Ty::Map(inner) => shape_for(rule, inner),
        Ty::String => Shape::Text,
        Ty::Number | Ty::Integer => Shape::Number,
        Ty::Scalar(s) if s.is_number() => Shape::Number,
        Ty::Named(_) | Ty::Any => Shape::Unknown,
        // Decoding checks a well-known type's form; no tag reaches inside it.
        Ty::Bool | Ty::BoolLiteral(_) | Ty::Scalar(_) | Ty::WellKnown(_) => Shape::Other,
    }
}

/// Stores a parsed value; `Err` names a rule given twice or an argument of the wrong kind.
pub fn apply(c: &mut Constraints, rule: Rule, written: &str, value: Value) -> Result<(), TagError> {
    let kind_fits = match (rule.arg, &value) {
        (Arg::Positive, Value::Number(n)) => *n > 0.0,
        (Arg::Count, Value::Count(_))
        | (Arg::Number, Value::Number(_))
        | (Arg::Regex | Arg::Format, Value::Text(_))
        | (Arg::Flag, Value::Flag)
        | (Arg::KeyLists, Value::KeyLists(_))
        | (Arg::Schema, Value::Schema(_)) => true,
        _ => false,
    };
    if !kind_fits {
        return Err(TagError::new(
            format!("`{written}` cannot take {value:?}"),
            format!("see the `{}` rule", rule.tag),
        ));
    }
    if !c.set(rule, value) {
        return Err(TagError::new(
            format!("duplicate `{written}`"),
            "give each rule once per field",
        ));
    }
    Ok(())
}

/// A lower bound above its upper bound can never be met. `name` spells a rule with its value
/// the way the front end writes it (`@minLength 5`, `min_length = 5`). Returns the upper
/// bound's rule (where the error belongs) with the error.
pub fn check_bounds(c: &Constraints, name: impl Fn(Rule, f64) -> String) -> Vec<(Rule, TagError)> {
    c.iter()
        .filter_map(|(lo, lo_v)| {
            let hi = lo.upper?;
            let (l, h) = (lo_v.as_f64()?, c.get(hi)?.as_f64()?);
            (l > h).then(|| {
                let e = TagError::new(
                    format!(
                        "`{}` is above `{}`: no value passes",
                        name(lo, l),
                        name(hi, h)
                    ),
                    "no value can satisfy both; lower the minimum or raise the maximum",
                );
                (hi, e)
            })
        })
        .collect()
}

/// A comment tag with its value, for `check_bounds`.
pub fn tag_with_value(rule: Rule, value: f64) -> String {
    format!("@{} {value}", rule.tag)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{MAX_LENGTH, MIN_ITEMS, MIN_LENGTH};

    #[test]
    fn every_front_end_gets_the_same_wording() {
        assert_eq!(
            count("@minLength", "x").unwrap_err().message,
            "`@minLength` needs a whole number, found `x`"
        );
        assert_eq!(
            count("min_length", "x").unwrap_err().message,
            "`min_length` needs a whole number, found `x`"
        );
        assert!(
            pattern("@pattern", "[")
                .unwrap_err()
                .message
                .ends_with("unclosed character class")
        );
        assert!(format("format", "email").is_err());
        assert_eq!(positive("@step", "0.5"), Ok(0.5));
        assert_eq!(
            positive("@step", "0").unwrap_err().message,
            "`@step` needs a number above zero, found `0`"
        );
        assert!(
            positive("@step", "x")
                .unwrap_err()
                .message
                .contains("finite")
        );
        assert!(fits(&MIN_ITEMS, "@minItems", Shape::Text).is_err());
        assert!(fits(&MIN_ITEMS, "min_items", Shape::Unknown).is_ok());
    }

    #[test]
    fn bounds_and_duplicates() {
        let mut c = Constraints::default();
        apply(&mut c, &MIN_LENGTH, "@minLength", Value::Count(5)).unwrap();
        apply(&mut c, &MAX_LENGTH, "@maxLength", Value::Count(2)).unwrap();
        assert!(apply(&mut c, &MAX_LENGTH, "@maxLength", Value::Count(3)).is_err());
        assert!(apply(&mut c, &MIN_ITEMS, "@minItems", Value::Flag).is_err());
        let errors = check_bounds(&c, tag_with_value);
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].0, &MAX_LENGTH);
        assert_eq!(
            errors[0].1.message,
            "`@minLength 5` is above `@maxLength 2`: no value passes"
        );
    }
}
