//! Custom options of a `.proto` spec (`[(google.api.field_behavior) = REQUIRED]`,
//! `option (google.api.http) = {...}`), read as plain data: for each message, field, oneof,
//! enum, enum value, service and rpc of the spec folder's own files, every extension set on
//! its options, by the extension's full name, with its value as JSON (enum values by name,
//! messages as objects with the proto field names, repeated options as arrays). Nothing in
//! the generator gives them meaning; they reach the IR as `Protocol::options`.

use std::collections::{BTreeMap, BTreeSet};

use protox::prost_reflect::{DescriptorPool, DynamicMessage, Kind, MapKey, Value};
use serde_json::Value as Json;

/// The options of every element of the files named in `own`, by the element's full proto
/// name (`pkg.v1.Task.id`, `pkg.v1.TaskService.SendMessage`); elements without custom
/// options are left out.
pub fn collect(
    pool: &DescriptorPool,
    own: &BTreeSet<String>,
) -> BTreeMap<String, BTreeMap<String, Json>> {
    let mut out = BTreeMap::new();
    let mut put = |name: &str, options: DynamicMessage| {
        let found = extensions(&options);
        if !found.is_empty() {
            out.insert(name.to_owned(), found);
        }
    };
    let is_own = |file: &str| own.contains(file);
    for m in pool
        .all_messages()
        .filter(|m| is_own(m.parent_file().name()))
    {
        put(m.full_name(), m.options());
        for f in m.fields() {
            put(f.full_name(), f.options());
        }
        for o in m.oneofs() {
            put(o.full_name(), o.options());
        }
    }
    for e in pool.all_enums().filter(|e| is_own(e.parent_file().name())) {
        put(e.full_name(), e.options());
        for v in e.values() {
            put(v.full_name(), v.options());
        }
    }
    for s in pool.services().filter(|s| is_own(s.parent_file().name())) {
        put(s.full_name(), s.options());
        for m in s.methods() {
            put(m.full_name(), m.options());
        }
    }
    out
}

/// The extensions set on one options message.
fn extensions(options: &DynamicMessage) -> BTreeMap<String, Json> {
    options
        .extensions()
        .map(|(ext, value)| (ext.full_name().to_owned(), json(value, &ext.kind())))
        .collect()
}

/// A reflected value as JSON: enum numbers become their value's name (the number when the
/// enum lacks it), 64-bit integers stay numbers (this is data for tools, not proto3 JSON).
fn json(value: &Value, kind: &Kind) -> Json {
    match value {
        Value::Bool(b) => Json::Bool(*b),
        Value::I32(n) => Json::from(*n),
        Value::I64(n) => Json::from(*n),
        Value::U32(n) => Json::from(*n),
        Value::U64(n) => Json::from(*n),
        Value::F32(n) => Json::from(f64::from(*n)),
        Value::F64(n) => Json::from(*n),
        Value::String(s) => Json::String(s.clone()),
        Value::Bytes(b) => Json::Array(b.iter().map(|x| Json::from(*x)).collect()),
        Value::EnumNumber(n) => match kind {
            Kind::Enum(e) => e
                .get_value(*n)
                .map_or_else(|| Json::from(*n), |v| Json::String(v.name().to_owned())),
            _ => Json::from(*n),
        },
        Value::Message(m) => Json::Object(
            m.fields()
                .map(|(f, v)| (f.name().to_owned(), json(v, &f.kind())))
                .collect(),
        ),
        Value::List(items) => Json::Array(items.iter().map(|v| json(v, kind)).collect()),
        Value::Map(entries) => {
            let value_kind = match kind {
                Kind::Message(entry) => entry.map_entry_value_field().kind(),
                other => other.clone(),
            };
            let mut sorted: Vec<_> = entries.iter().collect();
            sorted.sort_by(|a, b| a.0.cmp(b.0));
            Json::Object(
                sorted
                    .into_iter()
                    .map(|(k, v)| (key(k), json(v, &value_kind)))
                    .collect(),
            )
        }
    }
}

fn key(k: &MapKey) -> String {
    match k {
        MapKey::Bool(b) => b.to_string(),
        MapKey::I32(n) => n.to_string(),
        MapKey::I64(n) => n.to_string(),
        MapKey::U32(n) => n.to_string(),
        MapKey::U64(n) => n.to_string(),
        MapKey::String(s) => s.clone(),
    }
}
