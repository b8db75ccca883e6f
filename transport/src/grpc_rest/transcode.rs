//! An HTTP request as the rpc's request, and back: the fields a rule's path binds, the body
//! as the rule maps it, and every other field a query parameter named by its JSON name
//! (either spelling read; a repeated field by repeating the parameter; a nested field by its
//! dotted path). Values in the path and query are typed by their field: a bool is `true` or
//! `false`, an enum its name or number, anything else a string ProtoJSON reads.

use agentwire_runtime::path_template::{Bindings, percent_encode};
use prost_reflect::{FieldDescriptor, Kind, MessageDescriptor};
use serde_json::{Map, Value};

use super::rules::{BodyMap, Route};

/// The fields a dotted path names from `message` down, each part by its proto or JSON name.
pub fn resolve(message: &MessageDescriptor, path: &str) -> Option<Vec<FieldDescriptor>> {
    let mut out = Vec::new();
    let mut at = message.clone();
    for (i, part) in path.split('.').enumerate() {
        if i > 0 {
            let Kind::Message(m) = out.last().map(FieldDescriptor::kind)? else {
                return None;
            };
            at = m;
        }
        let field = at
            .get_field_by_name(part)
            .or_else(|| at.get_field_by_json_name(part))?;
        out.push(field);
    }
    Some(out)
}

/// A path or query value as the JSON ProtoJSON reads for `field`.
fn typed_value(field: &FieldDescriptor, raw: &str) -> Result<Value, String> {
    let bad = |what: &str| format!("`{}`: {raw:?} is not {what}", field.json_name());
    match field.kind() {
        Kind::Bool => match raw {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err(bad("`true` or `false`")),
        },
        Kind::Int32
        | Kind::Sint32
        | Kind::Sfixed32
        | Kind::Int64
        | Kind::Sint64
        | Kind::Sfixed64 => raw
            .parse::<i64>()
            .map(|_| Value::String(raw.to_owned()))
            .map_err(|_| bad("an integer")),
        Kind::Uint32 | Kind::Fixed32 | Kind::Uint64 | Kind::Fixed64 => raw
            .parse::<u64>()
            .map(|_| Value::String(raw.to_owned()))
            .map_err(|_| bad("an unsigned integer")),
        Kind::Enum(_) => Ok(raw
            .parse::<i64>()
            .map_or_else(|_| Value::String(raw.to_owned()), Value::from)),
        Kind::Message(m) if !m.full_name().starts_with("google.protobuf.") => Err(bad(
            "a value (a message is not a query parameter: send it in a body)",
        )),
        Kind::Message(m) if m.full_name() == "google.protobuf.BoolValue" => match raw {
            "true" | "false" => Ok(Value::Bool(raw == "true")),
            _ => Err(bad("`true` or `false`")),
        },
        _ => Ok(Value::String(raw.to_owned())),
    }
}

/// Sets `value` at the field path `fields` in `object`, replacing either spelling of a
/// value there; a repeated field gathers values.
fn set(object: &mut Map<String, Value>, fields: &[FieldDescriptor], value: Value, repeat: bool) {
    let Some((field, rest)) = fields.split_first() else {
        return;
    };
    let existing = object
        .remove(field.name())
        .or_else(|| object.remove(field.json_name()));
    if rest.is_empty() {
        let value = match (repeat && field.is_list(), existing) {
            (true, Some(Value::Array(mut items))) => {
                items.push(value);
                Value::Array(items)
            }
            (true, _) => Value::Array(vec![value]),
            _ => value,
        };
        object.insert(field.json_name().to_owned(), value);
        return;
    }
    let mut inner = match existing {
        Some(Value::Object(inner)) => inner,
        _ => Map::new(),
    };
    set(&mut inner, rest, value, repeat);
    object.insert(field.json_name().to_owned(), Value::Object(inner));
}

/// The request `route` reads from a path's `bound` variables, the `query` string and the
/// `body` bytes, as ProtoJSON; the error says what does not fit.
pub fn request_json(
    route: &Route,
    bound: Bindings,
    query: Option<&str>,
    body: &[u8],
) -> Result<Value, String> {
    let input = &route.rpc.input;
    let body_json = || -> Result<Value, String> {
        let text = std::str::from_utf8(body).map_err(|e| format!("the body is not UTF-8: {e}"))?;
        if text.trim().is_empty() {
            return Ok(Value::Object(Map::new()));
        }
        serde_json::from_str(text).map_err(|e| format!("the body is not JSON: {e}"))
    };
    let mut object = match &route.body {
        BodyMap::Whole => match body_json()? {
            Value::Object(o) => o,
            _ => return Err("the body must be a JSON object".to_owned()),
        },
        BodyMap::Field(f) => {
            let mut o = Map::new();
            o.insert(f.json_name().to_owned(), body_json()?);
            o
        }
        BodyMap::Nothing => Map::new(),
    };
    let query = query.unwrap_or_default();
    if matches!(route.body, BodyMap::Whole) && !query.is_empty() {
        return Err("query parameters are not read when the body is the whole request".to_owned());
    }
    for (key, raw) in form_urlencoded::parse(query.as_bytes()) {
        let fields = resolve(input, &key)
            .ok_or_else(|| format!("query parameter `{key}` is not a field of the request"))?;
        let bound_here = bound
            .iter()
            .any(|(f, _)| resolve(input, f) == Some(fields.clone()));
        let in_body = matches!(&route.body, BodyMap::Field(b) if fields.first() == Some(b));
        if bound_here || in_body {
            return Err(format!(
                "query parameter `{key}` is already in the path or body"
            ));
        }
        let leaf = fields.last().ok_or("an empty parameter name")?;
        set(&mut object, &fields, typed_value(leaf, &raw)?, true);
    }
    for (field, raw) in bound {
        let fields = resolve(input, &field).ok_or_else(|| format!("`{field}` is unknown"))?;
        let leaf = fields.last().ok_or("an empty path variable")?;
        set(&mut object, &fields, typed_value(leaf, &raw)?, false);
    }
    Ok(Value::Object(object))
}

/// An HTTP request built from the rpc's request.
#[derive(Debug, Clone, PartialEq)]
pub struct Outgoing {
    /// The path with its query string.
    pub target: String,
    /// The body, when the rule has one.
    pub body: Option<Value>,
}

/// The value at a dotted JSON-name path, taken out of `object`.
fn take(object: &mut Map<String, Value>, fields: &[FieldDescriptor]) -> Option<Value> {
    let (field, rest) = fields.split_first()?;
    if rest.is_empty() {
        return object.remove(field.json_name());
    }
    match object.get_mut(field.json_name())? {
        Value::Object(inner) => take(inner, rest),
        _ => None,
    }
}

/// `request` (ProtoJSON, JSON names) as `route` sends it, or `None` when a path variable has
/// no value that fits (another of the rpc's rules may take it).
pub fn outgoing(route: &Route, request: &Value) -> Option<Outgoing> {
    let mut object = request.as_object()?.clone();
    let mut values = Vec::new();
    for v in route.template.variables() {
        let fields = resolve(&route.rpc.input, &v.field)?;
        let value = take(&mut object, &fields)?;
        values.push((v.field.clone(), value.as_str()?.to_owned()));
    }
    let value_of = |f: &str| values.iter().find(|(k, _)| k == f).map(|(_, v)| v.clone());
    let path = route.template.expand(&value_of)?;
    let body = match &route.body {
        BodyMap::Whole => Some(Value::Object(std::mem::take(&mut object))),
        BodyMap::Field(f) => Some(object.remove(f.json_name()).unwrap_or(Value::Null)),
        BodyMap::Nothing => None,
    };
    let mut pairs = Vec::new();
    flatten("", &Value::Object(object), &mut pairs);
    let query: Vec<String> = pairs
        .iter()
        .map(|(k, v)| format!("{}={}", percent_encode(k), percent_encode(v)))
        .collect();
    let target = if query.is_empty() {
        path
    } else {
        format!("{path}?{}", query.join("&"))
    };
    Some(Outgoing { target, body })
}

/// Every leaf of `value` as a query pair: nested members by their dotted path, arrays by
/// repeating the name.
fn flatten(prefix: &str, value: &Value, out: &mut Vec<(String, String)>) {
    match value {
        Value::Object(members) => {
            for (k, v) in members {
                let name = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&name, v, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| flatten(prefix, v, out)),
        Value::String(s) => out.push((prefix.to_owned(), s.clone())),
        Value::Null => {}
        other => out.push((prefix.to_owned(), other.to_string())),
    }
}
