//! `@default <value>`: a field's declared default (what a receiver reads when the key is
//! absent), from a JSDoc tag or a proto comment. The value is written as JSON (`30`, `true`,
//! `"chat"`) or, for a string, bare (`chat`); it must fit the field's type.

use serde_json::Value;

use crate::ir::{Ty, TypeDef, TypeKind};

/// Reads `raw` as the default of a field of type `ty`. `types` resolves named types (enums,
/// aliases); a name it does not hold (yet) takes any string.
pub fn value(
    raw: &str,
    ty: &Ty,
    types: &std::collections::BTreeMap<String, TypeDef>,
) -> Result<Value, String> {
    let raw = raw.trim();
    if raw.is_empty() {
        return Err("`@default` needs a value (`@default 30`, `@default chat`)".to_owned());
    }
    let v = serde_json::from_str::<Value>(raw).unwrap_or_else(|_| Value::String(raw.to_owned()));
    match fits(&v, ty, types) {
        Ok(()) => Ok(v),
        Err(want) => Err(format!("`@default {raw}` does not fit the field: {want}")),
    }
}

/// `Err` says what the type wants.
fn fits(
    v: &Value,
    ty: &Ty,
    types: &std::collections::BTreeMap<String, TypeDef>,
) -> Result<(), String> {
    let want = |ok: bool, what: &str| if ok { Ok(()) } else { Err(what.to_owned()) };
    match ty {
        Ty::String => want(v.is_string(), "a string is expected"),
        Ty::Bool => want(v.is_boolean(), "`true` or `false` is expected"),
        Ty::BoolLiteral(b) => want(v.as_bool() == Some(*b), &format!("`{b}` is expected")),
        Ty::Number => want(v.is_number(), "a number is expected"),
        Ty::Integer => want(v.is_i64() || v.is_u64(), "a whole number is expected"),
        Ty::Nullable(_) if v.is_null() => Ok(()),
        Ty::Nullable(inner) => fits(v, inner, types),
        Ty::Named(n) => match types.get(n).map(|t| &t.kind) {
            Some(TypeKind::Enum(values)) => match v.as_str() {
                Some(s) if values.iter().any(|x| x == s) => Ok(()),
                _ => Err(format!(
                    "one of {} is expected",
                    values
                        .iter()
                        .map(|x| format!("`{x}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            },
            Some(TypeKind::Alias { target, .. }) => fits(v, target, types),
            Some(_) => Err(format!(
                "`{n}` is not a scalar type; a default is a string, number or bool"
            )),
            None => want(v.is_string(), "a string is expected"),
        },
        Ty::Scalar(s) if s.is_number() => match s {
            crate::ir::Scalar::Float | crate::ir::Scalar::Double => {
                want(v.is_number(), "a number is expected")
            }
            _ => want(v.is_i64() || v.is_u64(), "a whole number is expected"),
        },
        Ty::Scalar(_) => want(v.is_string(), "a base64 string is expected"),
        Ty::Any => Ok(()),
        Ty::WellKnown(_) => {
            Err("a well-known type has no declared default (it is absent when unset)".into())
        }
        Ty::Array(_) | Ty::Map(_) => {
            Err("a list or map field has no declared default (it is empty when absent)".into())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_read_as_json_or_as_a_bare_string() {
        let types = Default::default();
        assert_eq!(value("30", &Ty::Integer, &types), Ok(Value::from(30)));
        assert_eq!(value("chat", &Ty::String, &types), Ok(Value::from("chat")));
        assert_eq!(
            value("\"chat\"", &Ty::String, &types),
            Ok(Value::from("chat"))
        );
        assert_eq!(value("false", &Ty::Bool, &types), Ok(Value::from(false)));
        assert!(
            value("thirty", &Ty::Integer, &types)
                .unwrap_err()
                .contains("whole number")
        );
        assert!(value("1.5", &Ty::Integer, &types).is_err());
        assert!(value("", &Ty::String, &types).is_err());
    }
}
