//! JSON examples in documents: each must be a valid message (or a value of a type its section
//! declares); a block fenced `json invalid` must be rejected. TypeScript protocols are checked
//! against the JSON Schema the generator derives, protobuf ones through the descriptor pool, so
//! the check needs no generated code.

use prost_reflect::DynamicMessage;
use serde_json::{Value, json};

use super::Finding;
use super::markdown::Block;
use crate::emit::schema::emit_schema;
use crate::front::load::LoadedSpec;
use crate::ir::{Call, Protocol, TypeKind};

/// The finding for one JSON block, if any.
pub fn check(spec: &LoadedSpec, block: &Block, section_types: &[String]) -> Option<Finding> {
    let expect_valid = !block.attrs.split_whitespace().any(|a| a == "invalid");
    let value: Value = match serde_json::from_str(&block.text) {
        Ok(v) => v,
        Err(e) if expect_valid => {
            return Some(Finding {
                line: block.line + e.line().saturating_sub(1),
                message: format!(
                    "JSON example differs: doc says malformed JSON ({e}), spec says a message"
                ),
            });
        }
        Err(_) => return None,
    };
    let outcome = match &spec.proto {
        Some(p) => proto_outcome(p, &spec.protocol, &value),
        None => json_outcome(&spec.protocol, block, section_types, &value),
    };
    match (expect_valid, outcome) {
        (true, Err(why)) => Some(Finding {
            line: block.line,
            message: format!("JSON example differs: doc says a valid message, spec says {why}"),
        }),
        (false, Ok(ty)) => Some(Finding {
            line: block.line,
            message: format!(
                "JSON example differs: doc marks it invalid, spec accepts it as `{ty}`"
            ),
        }),
        _ => None,
    }
}

/// `Ok(type it validates as)` or `Err(why not)`.
fn json_outcome(
    p: &Protocol,
    block: &Block,
    section_types: &[String],
    value: &Value,
) -> Result<String, String> {
    let schema: Value =
        serde_json::from_str(&emit_schema(p)).expect("the schema emitter writes JSON");
    let validates = |ty: &str, v: &Value| -> bool {
        let s = json!({"$defs": schema["$defs"], "$ref": format!("#/$defs/{ty}")});
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .should_validate_formats(true)
            .build(&s)
            .is_ok_and(|validator| validator.is_valid(v))
    };
    if value.get("jsonrpc").is_some() {
        return rpc_outcome(p, block, value, &validates);
    }
    let mut candidates: Vec<String> = p.channels.iter().map(|c| c.union.clone()).collect();
    candidates.extend(
        section_types
            .iter()
            .filter(|t| p.types.contains_key(*t))
            .cloned(),
    );
    // Values of named types (HTTP bodies, config) are checked against the types their section
    // mentions.
    candidates.extend(p.types.iter().filter_map(|(name, def)| {
        let mentioned = block.section.contains(name.as_str())
            || p.routes
                .iter()
                .any(|r| block.section.contains(&r.name) && route_types(r).contains(name));
        (mentioned && !matches!(def.kind, TypeKind::Enum(_))).then(|| name.clone())
    }));
    if p.routes.iter().any(|r| block.section.contains(&r.name))
        || block.section.to_lowercase().contains("config")
    {
        candidates.extend(
            p.types
                .iter()
                .filter(|(n, d)| {
                    matches!(d.kind, TypeKind::Struct(_) | TypeKind::Union { .. })
                        && block.section.to_lowercase().contains(&n.to_lowercase())
                })
                .map(|(n, _)| n.clone()),
        );
    }
    candidates
        .iter()
        .find(|ty| validates(ty, value))
        .cloned()
        .ok_or_else(|| format!("it is none of {}", candidates.join(", ")))
}

fn route_types(r: &crate::ir::Route) -> Vec<String> {
    let mut out = Vec::new();
    for b in std::iter::once(&r.body).chain(r.responses.iter().map(|x| &x.body)) {
        if let crate::ir::Body::Json(t) = b {
            out.push(t.clone());
        }
    }
    out
}

fn rpc_outcome(
    p: &Protocol,
    block: &Block,
    value: &Value,
    validates: &dyn Fn(&str, &Value) -> bool,
) -> Result<String, String> {
    if value["jsonrpc"] != "2.0" {
        return Err("`jsonrpc` must be \"2.0\"".into());
    }
    if let Some(method) = value.get("method").and_then(Value::as_str) {
        let Some(m) = p.methods.iter().find(|m| m.name == method) else {
            return Err(format!("there is no method `{method}`"));
        };
        let has_id = value.get("id").is_some();
        if has_id != (m.call == Call::Request) {
            return Err(format!("`{method}` is a {:?}", m.call).to_lowercase());
        }
        return match (&m.params, value.get("params")) {
            (Some(t), Some(params)) if validates(t, params) => Ok(t.clone()),
            (Some(t), _) => Err(format!("its params are not a valid `{t}`")),
            (None, _) => Ok(method.to_owned()),
        };
    }
    if value.get("error").is_some() {
        return Ok("error response".into());
    }
    // A response: its result type comes from the method the section is about.
    let method = p
        .methods
        .iter()
        .filter(|m| m.call == Call::Request && block.section.contains(&m.name))
        .max_by_key(|m| m.name.len())
        .ok_or_else(|| "a response outside any request's section".to_owned())?;
    let result = value
        .get("result")
        .ok_or("a response without `result` or `error`")?;
    match &method.result {
        Some(t) if validates(t, result) => Ok(t.clone()),
        Some(t) => Err(format!("its result is not a valid `{t}`")),
        None if result.is_null() => Ok(format!("{} result", method.name)),
        None => Err(format!("`{}` answers with null", method.name)),
    }
}

fn proto_outcome(
    spec: &crate::front::proto::ProtoSpec,
    p: &Protocol,
    value: &Value,
) -> Result<String, String> {
    let mut errors = Vec::new();
    for c in &p.channels {
        let Some(desc) = spec.pool.all_messages().find(|m| m.name() == c.union) else {
            continue;
        };
        match DynamicMessage::deserialize(desc, value.clone()) {
            Ok(m) if m.fields().next().is_some() => return Ok(c.union.clone()),
            Ok(_) => errors.push(format!("an empty `{}`", c.union)),
            Err(e) => errors.push(format!("not a `{}` ({e})", c.union)),
        }
    }
    Err(errors.join("; "))
}
