//! JSON Schema (draft 2020-12) emitter: one document per protocol with every type under
//! `$defs`, published so other languages can validate the same messages. A protobuf spec's
//! schema describes its proto3 JSON form: a oneof's cases are keys of the message holding it
//! (exactly one of them for a stream wrapper, at most one otherwise), 64-bit integers may be
//! strings, bytes are base64 strings, enums are written by name, keys are the proto field
//! names and no others.

use serde_json::{Map, Value, json};

use crate::ir::{Constraints, Field, Protocol, Scalar, Ty, TypeKind, WellKnown};
use crate::naming::Names;
use crate::rules::Shape;

/// The schema document of a protocol, pretty-printed with a trailing newline.
pub fn emit_schema(p: &Protocol) -> String {
    let mut defs = Map::new();
    for (name, def) in &p.types {
        let mut schema = match &def.kind {
            TypeKind::Struct(fields) => {
                let mut s = struct_schema(p, fields);
                if let Some((tag, value)) = crate::emit::types::own_tag(&p.types, name) {
                    let optional = crate::emit::defaults::is_default_member(&p.types, name);
                    add_tag(&mut s, tag, value, optional);
                }
                if let Some(ty) = &def.open {
                    s.insert("additionalProperties".into(), Value::Object(ty_schema(ty)));
                }
                put_constraints(&mut s, &def.rules);
                s
            }
            // Described by the message holding it.
            TypeKind::Oneof { .. } => continue,
            TypeKind::Enum(values) if values.len() == 1 => {
                obj(json!({"type": "string", "const": values[0]}))
            }
            TypeKind::Enum(values) => obj(json!({"type": "string", "enum": values})),
            // As ts-json-schema-generator writes `string | number`: a list of types.
            // An open enum: the known values, or any string.
            // Any other untagged union (objects, lists): each member's schema.
            TypeKind::Untagged(members)
                if members
                    .iter()
                    .any(|t| !matches!(t, Ty::String | Ty::Number | Ty::Integer | Ty::Bool)) =>
            {
                let any_of: Vec<Value> = members
                    .iter()
                    .map(|t| Value::Object(ty_schema(t)))
                    .collect();
                obj(json!({"anyOf": any_of}))
            }
            TypeKind::Untagged(members) => {
                let types: Vec<Value> = members
                    .iter()
                    .filter_map(|t| ty_schema(t).remove("type"))
                    .collect();
                obj(json!({"type": types}))
            }
            TypeKind::Union { tag, variants } => union_schema(tag, variants),
            TypeKind::Alias {
                target,
                constraints,
            } => {
                let mut s = ty_schema(target);
                add_constraints(&mut s, target, constraints);
                s
            }
        };
        // A union's or an enum's rules on the value as a whole (a struct's are above).
        if !matches!(def.kind, TypeKind::Struct(_)) {
            put_constraints(&mut schema, &def.rules);
        }
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
        "$id": crate::naming::FilePaths::of(p).schema_id,
        "title": p.title,
        "description": p.summary,
        "x-channels": channels,
        "$defs": defs,
    });
    let mut out = serde_json::to_string_pretty(&doc).expect("JSON values always serialize");
    out.push('\n');
    out
}

/// A tagged union: one member per variant (the tag fixed to its value), and the
/// discriminator mapping.
fn union_schema(tag: &str, variants: &[crate::ir::Variant]) -> Map<String, Value> {
    let one_of: Vec<Value> = variants
        .iter()
        .map(|v| {
            // The default member also matches an object without the tag.
            let mut fixed = json!({
                "type": "object",
                "properties": {tag: {"const": v.value}},
                "required": [tag]
            });
            if v.default
                && let Some(o) = fixed.as_object_mut()
            {
                o.remove("required");
            }
            json!({
                "allOf": [
                    {"$ref": format!("#/$defs/{}", v.type_name)},
                    fixed
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

fn field_schema(f: &Field) -> Value {
    let mut s = ty_schema(&f.ty);
    add_constraints(&mut s, &f.ty, &f.constraints);
    if let Some(default) = &f.default {
        s.insert("default".into(), default.clone());
    }
    if !f.doc.is_empty() {
        s.insert("description".into(), f.doc.clone().into());
    }
    Value::Object(s)
}

fn struct_schema(p: &Protocol, fields: &[Field]) -> Map<String, Value> {
    let mut props = Map::new();
    let mut required = Vec::new();
    let mut oneofs = Vec::new();
    for f in fields {
        let oneof =
            f.ty.named()
                .and_then(|n| p.types.get(n))
                .and_then(|d| match &d.kind {
                    TypeKind::Oneof { cases, required } => Some((cases, *required)),
                    _ => None,
                });
        if let Some((cases, required)) = oneof {
            for c in cases {
                props.insert(c.name.clone(), field_schema(c));
            }
            oneofs.push(oneof_rule(cases, required));
            continue;
        }
        props.insert(f.name.clone(), field_schema(f));
        // A field that must be present has its key.
        if !f.optional || f.must_be_set || (f.defaulted && default_fails(f)) {
            required.push(Value::String(f.name.clone()));
        }
    }
    let mut s = Map::new();
    s.insert("type".into(), "object".into());
    s.insert("properties".into(), Value::Object(props));
    if !required.is_empty() {
        s.insert("required".into(), Value::Array(required));
    }
    if Names::of(p).refuses_unknown_members() {
        // pbjson refuses keys the message does not have. (It also reads each field under its
        // lowerCamelCase JSON name; the schema describes the form the spec writes, with the
        // proto field names.)
        s.insert("additionalProperties".into(), false.into());
    }
    match oneofs.len() {
        0 => {}
        1 => s.extend(obj(oneofs.remove(0))),
        _ => {
            s.insert("allOf".into(), Value::Array(oneofs));
        }
    }
    s
}

/// A union member's discriminator, which it writes and requires even decoded alone: a
/// required string constant among its properties, as the source declared it. A default
/// member's (`optional`) is not required and carries its value as `default`.
fn add_tag(s: &mut Map<String, Value>, tag: String, value: String, optional: bool) {
    if let Some(Value::Object(props)) = s.get_mut("properties") {
        let schema = if optional {
            json!({"type": "string", "const": value, "default": value})
        } else {
            json!({"type": "string", "const": value})
        };
        props.insert(tag.clone(), schema);
    }
    if optional {
        return;
    }
    match s.get_mut("required") {
        Some(Value::Array(required)) => required.push(tag.into()),
        _ => {
            s.insert("required".into(), json!([tag]));
        }
    }
}

/// Whether the value an absent proto3 field reads as (`""`, `0`, an empty list) breaks the
/// field's constraints: then the key is required, as the validator rejects its absence.
fn default_fails(f: &Field) -> bool {
    let shape = match &f.ty {
        Ty::String => Shape::Text,
        Ty::Scalar(s) if s.is_number() => Shape::Number,
        Ty::Array(_) => Shape::List,
        _ => return false,
    };
    f.constraints
        .iter()
        .any(|(rule, v)| rule.shape == shape && (rule.zero_fails)(v))
}

/// Exactly one case key (a stream wrapper's oneof), or at most one.
fn oneof_rule(cases: &[Field], required: bool) -> Value {
    let mut each: Vec<Value> = cases
        .iter()
        .map(|c| json!({"required": [c.name]}))
        .collect();
    if !required {
        let none = json!({"not": {"anyOf": each.clone()}});
        each.push(none);
    }
    json!({"oneOf": each})
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
        Ty::Scalar(s) => scalar_schema(*s),
        Ty::WellKnown(w) => well_known_schema(w),
    })
}

/// The JSON form of a well-known type, as `pbjson_types` writes and reads it.
fn well_known_schema(w: &WellKnown) -> Value {
    match w {
        WellKnown::Timestamp => json!({"type": "string", "format": "date-time"}),
        WellKnown::Duration => {
            json!({"type": "string", "pattern": "^-?[0-9]+(\\.[0-9]{1,9})?s$"})
        }
        WellKnown::Struct => json!({"type": "object"}),
        WellKnown::Value | WellKnown::Other { .. } => json!({}),
        WellKnown::ListValue => json!({"type": "array"}),
        WellKnown::NullValue => json!({"type": "null"}),
        WellKnown::Empty => json!({"type": "object", "maxProperties": 0}),
        WellKnown::Any => json!({
            "type": "object",
            "properties": {
                "typeUrl": {"type": "string"},
                "value": {"type": "string", "contentEncoding": "base64"},
            },
        }),
        WellKnown::FieldMask => json!({
            "type": "object",
            "properties": {"paths": {"type": "array", "items": {"type": "string"}}},
        }),
        WellKnown::Wrapper(inner) => Value::Object(ty_schema(inner)),
    }
}

/// The proto3 JSON form of a scalar, as pbjson reads it.
fn scalar_schema(s: Scalar) -> Value {
    let special = json!({"enum": ["NaN", "Infinity", "-Infinity"]});
    match s {
        Scalar::Int32 => json!({"type": "integer", "minimum": i32::MIN, "maximum": i32::MAX}),
        Scalar::Uint32 => json!({"type": "integer", "minimum": 0, "maximum": u32::MAX}),
        Scalar::Int64 => json!({"type": ["integer", "string"], "pattern": "^-?[0-9]+$"}),
        Scalar::Uint64 => {
            json!({"type": ["integer", "string"], "minimum": 0, "pattern": "^[0-9]+$"})
        }
        Scalar::Float | Scalar::Double => json!({"anyOf": [{"type": "number"}, special]}),
        Scalar::Bytes => json!({"type": "string", "contentEncoding": "base64"}),
    }
}

/// Adds `c` to the schema `s` of a value of type `ty`: on a list the item counts stay on the
/// list and the other rules go to its items, on a map they go to its values.
fn add_constraints(s: &mut Map<String, Value>, ty: &Ty, c: &Constraints) {
    // A rule on the value as a whole (`subschema`) stays on it, never on its elements.
    let whole = c.only(Shape::Object);
    if !whole.is_empty() {
        put_constraints(s, &whole);
        return add_constraints(s, ty, &c.without(Shape::Object));
    }
    let element = c.without(Shape::List);
    let inner = match ty {
        Ty::Array(inner) => Some(("items", inner)),
        Ty::Map(inner) => Some(("additionalProperties", inner)),
        _ => None,
    };
    if let Some((key, inner)) = inner
        && !element.is_empty()
        && let Some(Value::Object(item)) = s.get_mut(key)
    {
        add_constraints(item, inner, &element);
        return put_constraints(s, &c.only(Shape::List));
    }
    put_constraints(s, c);
}

/// Each rule under its JSON Schema keyword.
fn put_constraints(s: &mut Map<String, Value>, c: &Constraints) {
    for (rule, v) in c.iter() {
        // A subschema document is one more condition the value meets, beside the others.
        if let crate::rules::Value::Schema(_) = v {
            if let Value::Array(all) = s.entry("allOf").or_insert_with(|| json!([])) {
                all.push(v.to_json());
            }
            continue;
        }
        s.insert(rule.keyword.to_owned(), v.to_json());
    }
    if !c.not_one_of.is_empty() {
        s.insert("not".to_owned(), json!({"enum": c.not_one_of}));
    }
}
