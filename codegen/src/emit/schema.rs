//! JSON Schema (draft 2020-12) emitter: one document per protocol with every type under
//! `$defs`, published so other languages can validate the same messages.

use serde_json::{Map, Value, json};

use crate::ir::{Constraints, Protocol, Ty, TypeKind};

/// The schema document of a protocol, pretty-printed with a trailing newline.
pub fn emit_schema(p: &Protocol) -> String {
    let mut defs = Map::new();
    for (name, def) in &p.types {
        let mut schema = match &def.kind {
            TypeKind::Struct(fields) => {
                let mut props = Map::new();
                let mut required = Vec::new();
                for f in fields {
                    let mut s = ty_schema(&f.ty);
                    add_constraints(&mut s, &f.constraints);
                    if !f.doc.is_empty() {
                        s.insert("description".into(), f.doc.clone().into());
                    }
                    props.insert(f.name.clone(), Value::Object(s));
                    if !f.optional {
                        required.push(Value::String(f.name.clone()));
                    }
                }
                let mut s = Map::new();
                s.insert("type".into(), "object".into());
                s.insert("properties".into(), Value::Object(props));
                if !required.is_empty() {
                    s.insert("required".into(), Value::Array(required));
                }
                s
            }
            TypeKind::Enum(values) if values.len() == 1 => {
                obj(json!({"type": "string", "const": values[0]}))
            }
            TypeKind::Enum(values) => obj(json!({"type": "string", "enum": values})),
            TypeKind::Union { tag, variants } => {
                let one_of: Vec<Value> = variants
                    .iter()
                    .map(|v| {
                        json!({
                            "allOf": [
                                {"$ref": format!("#/$defs/{}", v.type_name)},
                                {
                                    "type": "object",
                                    "properties": {tag.as_str(): {"const": v.value}},
                                    "required": [tag]
                                }
                            ]
                        })
                    })
                    .collect();
                let mapping: Map<String, Value> = variants
                    .iter()
                    .map(|v| {
                        (
                            v.value.clone(),
                            Value::String(format!("#/$defs/{}", v.type_name)),
                        )
                    })
                    .collect();
                obj(json!({
                    "oneOf": one_of,
                    "discriminator": {"propertyName": tag, "mapping": mapping}
                }))
            }
            TypeKind::Alias {
                target,
                constraints,
            } => {
                let mut s = ty_schema(target);
                add_constraints(&mut s, constraints);
                s
            }
        };
        if !def.doc.is_empty() {
            schema.insert("description".into(), def.doc.clone().into());
        }
        defs.insert(name.clone(), Value::Object(schema));
    }
    let channels: Map<String, Value> = p
        .channels
        .iter()
        .map(|c| {
            (
                format!("{}_to_{}", c.from, c.to),
                json!({"$ref": format!("#/$defs/{}", c.union)}),
            )
        })
        .collect();
    let doc = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": format!("urn:agentwire:{}", p.module),
        "title": p.title,
        "description": p.summary,
        "x-channels": channels,
        "$defs": defs,
    });
    let mut out = serde_json::to_string_pretty(&doc).expect("JSON values always serialize");
    out.push('\n');
    out
}

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => unreachable!("json! object literal"),
    }
}

fn ty_schema(ty: &Ty) -> Map<String, Value> {
    obj(match ty {
        Ty::String => json!({"type": "string"}),
        Ty::Bool => json!({"type": "boolean"}),
        Ty::Number => json!({"type": "number"}),
        Ty::Integer => json!({"type": "integer"}),
        Ty::Any => json!({}),
        Ty::BoolLiteral(b) => json!({"const": b}),
        Ty::Array(inner) => json!({"type": "array", "items": Value::Object(ty_schema(inner))}),
        Ty::Map(inner) => {
            json!({"type": "object", "additionalProperties": Value::Object(ty_schema(inner))})
        }
        Ty::Nullable(inner) => {
            json!({"anyOf": [Value::Object(ty_schema(inner)), {"type": "null"}]})
        }
        Ty::Named(name) => json!({"$ref": format!("#/$defs/{name}")}),
    })
}

fn add_constraints(s: &mut Map<String, Value>, c: &Constraints) {
    let mut put = |k: &str, v: Value| {
        s.insert(k.to_owned(), v);
    };
    if let Some(n) = c.min_length {
        put("minLength", n.into());
    }
    if let Some(n) = c.max_length {
        put("maxLength", n.into());
    }
    if let Some(p) = &c.pattern {
        put("pattern", p.clone().into());
    }
    if let Some(n) = c.minimum {
        put("minimum", json_number(n));
    }
    if let Some(n) = c.maximum {
        put("maximum", json_number(n));
    }
    if let Some(n) = c.min_items {
        put("minItems", n.into());
    }
    if let Some(n) = c.max_items {
        put("maxItems", n.into());
    }
    if let Some(f) = &c.format {
        put("format", f.clone().into());
    }
    if c.trim {
        put("x-trim", true.into());
    }
}

fn json_number(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9.0e15 {
        (n as i64).into()
    } else {
        n.into()
    }
}
