//! Compares two JSON Schema documents definition by definition by what a message must look
//! like, not by how the schema is written: each definition becomes a [`Shape`] (its members,
//! which are required, whether others are admitted, and each member's kind: JSON types and
//! fixed values, one level into lists and unions). Two writers of the same types (agentwire's
//! emitter and zod's `toJSONSchema`) place references, `allOf` and literals differently; the
//! shape is what both must agree on.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde_json::Value;

/// A value's kind: its JSON types (`integer` counted as `number`, which is all JSON has),
/// `=<json>` for each value a `const` or `enum` fixes, `array<...>` with its items' kind,
/// and `any` for a schema that admits everything.
pub type Kind = BTreeSet<String>;

/// What a definition says of the messages it admits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shape {
    /// An object: each member's kind, the required ones, and whether undeclared members are
    /// admitted (an index signature, `additionalProperties` other than `false`).
    Object {
        members: BTreeMap<String, Kind>,
        required: BTreeSet<String>,
        open: bool,
    },
    /// A union of several alternatives: each alternative's shape, written as text and sorted,
    /// so the order the alternatives are written in does not matter.
    Union(BTreeSet<String>),
    /// Anything else (a string, a list, a literal): its kind.
    Value(Kind),
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Shape::Object {
                members,
                required,
                open,
            } => {
                let members: Vec<String> = members
                    .iter()
                    .map(|(k, v)| {
                        let opt = if required.contains(k) { "" } else { "?" };
                        format!("{k}{opt}: {}", join(v))
                    })
                    .collect();
                let open = if *open { ", .." } else { "" };
                write!(f, "{{{}{open}}}", members.join(", "))
            }
            Shape::Union(members) => write!(f, "{}", join(members)),
            Shape::Value(kind) => write!(f, "{}", join(kind)),
        }
    }
}

fn join<'a>(set: impl IntoIterator<Item = &'a String>) -> String {
    set.into_iter().cloned().collect::<Vec<_>>().join(" | ")
}

/// The shape of `schema`, whose references resolve in `root` (`#/$defs/X`, `#/definitions/X`).
pub fn shape(root: &Value, schema: &Value) -> Shape {
    let schema = resolve(root, schema);
    if let Some(parts) = schema.get("allOf").and_then(Value::as_array) {
        return merge_all_of(root, schema, parts);
    }
    if let Some(members) = alternatives(schema) {
        let each: Vec<Shape> = members.iter().map(|m| shape(root, m)).collect();
        // A union of plain values (`string | number`, however written) is one value kind.
        if each.iter().all(|s| matches!(s, Shape::Value(_))) {
            return Shape::Value(kind(root, schema, 2));
        }
        // A union of unions is one union of their alternatives.
        let mut shapes = BTreeSet::new();
        for s in each {
            match s {
                Shape::Union(inner) => shapes.extend(inner),
                other => {
                    shapes.insert(other.to_string());
                }
            }
        }
        if shapes.len() > 1 {
            return Shape::Union(shapes);
        }
        return shape(root, &members[0]);
    }
    if schema.get("properties").is_some() {
        return object(root, schema);
    }
    Shape::Value(kind(root, schema, 2))
}

/// An object's members, required set and openness.
fn object(root: &Value, schema: &Value) -> Shape {
    let members = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|props| {
            props
                .iter()
                .map(|(k, v)| (k.clone(), kind(root, v, 2)))
                .collect()
        })
        .unwrap_or_default();
    let required = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let open = schema
        .get("additionalProperties")
        .or_else(|| schema.get("unevaluatedProperties"))
        .is_some_and(|a| a != &Value::Bool(false));
    Shape::Object {
        members,
        required,
        open,
    }
}

/// `allOf` of objects is one object with every part's members (how zod writes an
/// intersection); anything else keeps the first part's shape.
fn merge_all_of(root: &Value, schema: &Value, parts: &[Value]) -> Shape {
    let mut merged = BTreeMap::new();
    let mut required = BTreeSet::new();
    let mut open = false;
    let own = serde_json::json!({});
    let own_part = if schema.get("properties").is_some() {
        schema
    } else {
        &own
    };
    for part in parts.iter().chain(std::iter::once(own_part)) {
        match shape(root, part) {
            Shape::Object {
                members,
                required: r,
                open: o,
            } => {
                merged.extend(members);
                required.extend(r);
                open |= o;
            }
            other if part == own_part => drop(other),
            other => return other,
        }
    }
    Shape::Object {
        members: merged,
        required,
        open,
    }
}

/// The members of a union schema (`anyOf`, `oneOf`), if it is one.
fn alternatives(schema: &Value) -> Option<&Vec<Value>> {
    schema
        .get("anyOf")
        .or_else(|| schema.get("oneOf"))
        .and_then(Value::as_array)
        .filter(|m| !m.is_empty())
}

/// Follows `$ref`s within `root`.
fn resolve<'a>(root: &'a Value, mut schema: &'a Value) -> &'a Value {
    for _ in 0..32 {
        let Some(target) = schema.get("$ref").and_then(Value::as_str) else {
            break;
        };
        let Some(found) = target
            .strip_prefix('#')
            .and_then(|pointer| root.pointer(pointer))
        else {
            break;
        };
        schema = found;
    }
    schema
}

/// A value's kind (see [`Kind`]); `depth` bounds how far lists and unions are followed.
pub fn kind(root: &Value, schema: &Value, depth: u8) -> Kind {
    let schema = resolve(root, schema);
    let mut out = Kind::new();
    if let Some(v) = schema.get("const") {
        out.insert(format!("={v}"));
        return out;
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        out.extend(values.iter().map(|v| format!("={v}")));
        return out;
    }
    if let Some(parts) = alternatives(schema).or_else(|| schema.get("allOf")?.as_array()) {
        for part in parts {
            out.extend(kind(root, part, depth));
        }
        return out;
    }
    match schema.get("type") {
        Some(Value::String(t)) => out.insert(type_atom(root, schema, t, depth)),
        Some(Value::Array(ts)) => {
            for t in ts.iter().filter_map(Value::as_str) {
                out.insert(type_atom(root, schema, t, depth));
            }
            true
        }
        _ if schema.get("properties").is_some() => out.insert("object".into()),
        _ => out.insert("any".into()),
    };
    out
}

fn type_atom(root: &Value, schema: &Value, t: &str, depth: u8) -> String {
    match t {
        "integer" => "number".into(),
        "array" if depth > 0 => {
            let items = schema.get("items").map_or_else(
                || Kind::from(["any".to_owned()]),
                |i| kind(root, i, depth - 1),
            );
            format!("array<{}>", join(&items))
        }
        other => other.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn references_literals_and_intersections_have_one_shape() {
        let ours = json!({"$defs": {
            "Role": {"type": "string", "enum": ["user", "assistant"]},
            "M": {"type": "object", "properties": {"role": {"$ref": "#/$defs/Role"},
                  "n": {"type": "integer"}, "tag": {"const": "m"}}, "required": ["role", "tag"]}
        }});
        let theirs = json!({"allOf": [
            {"type": "object", "properties": {"role": {"type": "string", "enum": ["assistant", "user"]}},
             "required": ["role"]},
            {"type": "object", "properties": {"n": {"type": "number"},
             "tag": {"type": "string", "const": "m"}}, "required": ["tag"]}
        ]});
        let a = shape(&ours, &ours["$defs"]["M"]);
        assert_eq!(a, shape(&theirs, &theirs));
        let other = json!({"type": "object", "properties": {"role": {"type": "string"}}});
        assert_ne!(a, shape(&other, &other));
        assert_eq!(
            a.to_string(),
            r#"{n?: number, role: ="assistant" | ="user", tag: ="m"}"#
        );
    }
}
