//! Compares agentwire's generated JSON Schema with `typescript-json-schema`'s for the same
//! TypeScript, definition by definition, after a normalisation that removes what only differs
//! in form (documented on [`normalise`]).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

/// One side's definitions by name, normalised.
pub type Definitions = BTreeMap<String, Value>;

/// The outcome: definitions on both sides and equal, those that differ (with the first
/// differing JSON pointer), and those only one side has.
#[derive(Debug, Default)]
pub struct Comparison {
    pub equal: Vec<String>,
    pub differ: BTreeMap<String, String>,
    pub only_ours: Vec<String>,
    pub only_theirs: Vec<String>,
}

/// typescript-json-schema's document (`definitions`, draft-07) as normalised definitions.
pub fn theirs(doc: &Value) -> Definitions {
    let defs = doc
        .get("definitions")
        .or_else(|| doc.get("$defs"))
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    defs.into_iter()
        .map(|(k, v)| (k, normalise(v, &BTreeMap::new())))
        .collect()
}

/// agentwire's document as normalised definitions; `inline` names the types agentwire
/// generated for inline objects and literals (`<Parent><Field>`), which typescript-json-schema
/// writes in place: they are put back in place and left out of the definitions.
pub fn ours(doc: &Value, inline: &BTreeSet<String>) -> Definitions {
    let defs = doc["$defs"].as_object().cloned().unwrap_or_default();
    let bodies: BTreeMap<String, Value> = defs
        .iter()
        .filter(|(k, v)| inline.contains(*k) || primitive_alias(v))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    defs.into_iter()
        .filter(|(k, _)| !inline.contains(k))
        .map(|(k, v)| {
            // The alias's own definition keeps its body.
            let mut others = bodies.clone();
            others.remove(&k);
            (k, normalise(v, &others))
        })
        .collect()
}

/// An alias of a primitive type (`type Uri = string` with its rules), which
/// typescript-json-schema writes in place at each use (it keeps the definition too).
fn primitive_alias(def: &Value) -> bool {
    let primitive = matches!(
        def.get("type").and_then(Value::as_str),
        Some("string" | "number" | "integer" | "boolean")
    );
    primitive && def.get("enum").is_none() && def.get("const").is_none()
}

/// The normalisation both sides go through:
/// - documentation only: `description`, `title`, `$comment`, `default`, `examples`,
///   `deprecated` and `x-` keys are dropped;
/// - `#/definitions/X` and `#/$defs/X` are the same reference; a reference to one of our
///   inline types or to an alias of a primitive type is replaced by its body
///   (typescript-json-schema writes them in place);
/// - `required` is a set (sorted), and an empty one is dropped;
/// - `type: [T, "null"]` is `anyOf: [{type: T}, {type: "null"}]`;
/// - `enum`, `anyOf` and `type` lists are sets; `additionalProperties: true` is `{}` and an
///   empty `properties` is dropped;
/// - a tagged union's `oneOf` of `allOf: [$ref, {tag const}]` plus `discriminator` (agentwire
///   adds the tag rule each member already states) is `anyOf` of the members' `$ref`s, as
///   typescript-json-schema writes a union of interfaces.
pub fn normalise(v: Value, inline: &BTreeMap<String, Value>) -> Value {
    match v {
        Value::Array(items) => {
            Value::Array(items.into_iter().map(|i| normalise(i, inline)).collect())
        }
        Value::Object(map) => normalise_object(map, inline),
        other => other,
    }
}

fn normalise_object(mut map: Map<String, Value>, inline: &BTreeMap<String, Value>) -> Value {
    map.retain(|k, _| {
        !matches!(
            k.as_str(),
            "description" | "title" | "$comment" | "default" | "examples" | "deprecated"
        ) && !k.starts_with("x-")
    });
    if let Some(Value::String(r)) = map.get("$ref") {
        let name = r
            .trim_start_matches("#/definitions/")
            .trim_start_matches("#/$defs/")
            .to_owned();
        if let Some(body) = inline.get(&name) {
            return normalise(body.clone(), inline);
        }
        map.insert("$ref".into(), Value::String(format!("#/$defs/{name}")));
    }
    if map.contains_key("discriminator")
        && let Some(Value::Array(members)) = map.remove("oneOf")
    {
        map.remove("discriminator");
        let refs = members.into_iter().map(|m| m["allOf"][0].clone()).collect();
        map.insert("anyOf".into(), refs);
    }
    if let Some(Value::Array(types)) = map.get("type").cloned()
        && types.len() == 2
        && types.contains(&Value::String("null".into()))
    {
        let other = types.into_iter().find(|t| t != "null").unwrap_or_default();
        map.remove("type");
        let mut first = map.clone();
        first.insert("type".into(), other);
        let mut out = Map::new();
        out.insert(
            "anyOf".into(),
            Value::Array(vec![
                Value::Object(first),
                serde_json::json!({"type": "null"}),
            ]),
        );
        return normalise(Value::Object(out), inline);
    }
    if let Some(Value::Array(required)) = map.remove("required") {
        let mut keys: Vec<String> = required
            .into_iter()
            .filter_map(|k| k.as_str().map(str::to_owned))
            .collect();
        keys.sort();
        keys.dedup();
        if !keys.is_empty() {
            map.insert("required".into(), keys.into());
        }
    }
    // `additionalProperties: true` says what `{}` says; `properties: {}` says nothing.
    if map.get("additionalProperties") == Some(&Value::Bool(true)) {
        map.insert("additionalProperties".into(), Value::Object(Map::new()));
    }
    if map
        .get("properties")
        .is_some_and(|p| p == &Value::Object(Map::new()))
    {
        map.remove("properties");
    }
    let mut out: Map<String, Value> = map
        .into_iter()
        .map(|(k, v)| (k, normalise(v, inline)))
        .collect();
    // An `enum` is a set of values, and so is an `anyOf` for validation (agentwire's order
    // is the order an untagged union tries its members in).
    for key in ["enum", "anyOf", "type"] {
        if let Some(Value::Array(items)) = out.get_mut(key) {
            items.sort_by_key(Value::to_string);
            items.dedup();
        }
    }
    Value::Object(out)
}

/// A union of unions is one union: an `anyOf` member that refers to a definition that is
/// itself only an `anyOf` (a TypeScript alias of a union) is replaced by that union's members,
/// as typescript-json-schema writes it. Applied to both sides after [`normalise`].
pub fn flatten_unions(defs: &mut Definitions) {
    let unions: BTreeMap<String, Vec<Value>> = defs
        .iter()
        .filter_map(|(k, v)| {
            let o = v.as_object()?;
            (o.len() == 1).then(|| Some((k.clone(), o.get("anyOf")?.as_array()?.clone())))?
        })
        .collect();
    for v in defs.values_mut() {
        flatten(v, &unions, 0);
    }
}

fn flatten(v: &mut Value, unions: &BTreeMap<String, Vec<Value>>, depth: usize) {
    match v {
        Value::Array(items) => items.iter_mut().for_each(|i| flatten(i, unions, depth)),
        Value::Object(map) => {
            if let Some(Value::Array(members)) = map.get_mut("anyOf")
                && depth < 16
            {
                let mut out = Vec::new();
                for m in members.drain(..) {
                    let target = m["$ref"]
                        .as_str()
                        .and_then(|r| r.strip_prefix("#/$defs/"))
                        .filter(|_| m.as_object().is_some_and(|o| o.len() == 1))
                        .and_then(|n| unions.get(n));
                    match target {
                        Some(inner) => {
                            let mut inner = Value::Object(
                                [("anyOf".to_owned(), Value::Array(inner.clone()))]
                                    .into_iter()
                                    .collect(),
                            );
                            flatten(&mut inner, unions, depth + 1);
                            out.extend(inner["anyOf"].as_array().cloned().unwrap_or_default());
                        }
                        None => out.push(m),
                    }
                }
                out.sort_by_key(Value::to_string);
                out.dedup();
                *members = out;
            }
            map.values_mut().for_each(|x| flatten(x, unions, depth));
        }
        _ => {}
    }
}

/// Compares normalised definitions (flattening unions of unions on both sides first).
pub fn compare(ours: &Definitions, theirs: &Definitions) -> Comparison {
    let (mut ours, mut theirs) = (ours.clone(), theirs.clone());
    flatten_unions(&mut ours);
    flatten_unions(&mut theirs);
    let (ours, theirs) = (&ours, &theirs);
    let mut out = Comparison::default();
    for (name, mine) in ours {
        match theirs.get(name) {
            None => out.only_ours.push(name.clone()),
            Some(t) if t == mine => out.equal.push(name.clone()),
            Some(t) => {
                out.differ.insert(name.clone(), differences(mine, t));
            }
        }
    }
    out.only_theirs = theirs
        .keys()
        .filter(|k| !ours.contains_key(*k))
        .cloned()
        .collect();
    out
}

/// Every place two values differ, as `pointer: ours .., theirs ..`, joined by `; `.
pub fn differences(a: &Value, b: &Value) -> String {
    let mut out = Vec::new();
    walk(a, b, String::new(), &mut out);
    out.join("; ")
}

fn walk(a: &Value, b: &Value, at: String, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                match (x.get(k), y.get(k)) {
                    (Some(p), Some(q)) => walk(p, q, format!("{at}/{k}"), out),
                    (p, q) => out.push(format!("{at}/{k}: ours {}, theirs {}", show(p), show(q))),
                }
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                walk(p, q, format!("{at}/{i}"), out);
            }
        }
        _ if a == b => {}
        _ => out.push(format!("{at}: ours {a}, theirs {b}")),
    }
}

fn show(v: Option<&Value>) -> String {
    v.map_or_else(|| "absent".to_owned(), Value::to_string)
}
