//! JSON values as JSON Schema compares them (`uniqueItems`, `const`, `enum`): numbers by their
//! value (`1`, `1.0` and `1e0` are one number), objects whatever their member order.

use std::fmt::Write;

use serde_json::Value;

/// One text per JSON value, equal for values JSON Schema calls equal: a whole number is
/// written as an integer, object members in key order. Numbers beyond `f64` precision compare
/// as their `f64` (the reading every JSON Schema validator on `f64` makes).
pub fn canonical(v: &Value) -> String {
    let mut out = String::new();
    write(v, &mut out);
    out
}

fn write(v: &Value, out: &mut String) {
    match v {
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), ..) => {
                let _ = write!(out, "{i}");
            }
            (None, Some(u), _) => {
                let _ = write!(out, "{u}");
            }
            (None, None, Some(f)) if f.fract() == 0.0 && f.abs() < 9.0e15 => {
                let _ = write!(out, "{}", f as i64);
            }
            (None, None, Some(f)) => {
                let _ = write!(out, "{f:e}");
            }
            (None, None, None) => out.push_str(&n.to_string()),
        },
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(item, out);
            }
            out.push(']');
        }
        Value::Object(members) => {
            let mut keys: Vec<&String> = members.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                write(&members[k], out);
            }
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::canonical;
    use serde_json::json;

    #[test]
    fn equal_values_have_one_text() {
        assert_eq!(canonical(&json!(1)), canonical(&json!(1.0)));
        assert_eq!(
            canonical(&json!({"b": [1, 2.0], "a": null})),
            canonical(&json!({"a": null, "b": [1.0, 2]}))
        );
        assert_ne!(canonical(&json!(1)), canonical(&json!("1")));
        assert_ne!(canonical(&json!(1.5)), canonical(&json!(1)));
        assert_ne!(canonical(&json!([1, 2])), canonical(&json!([2, 1])));
        assert_ne!(
            canonical(&json!({"a": 1})),
            canonical(&json!({"a": 1, "b": 1}))
        );
    }
}
