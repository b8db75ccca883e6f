//! JSON examples in documents: each must be a valid message (or a value of a type its section
//! declares); a block fenced `json invalid` must be rejected. TypeScript protocols are checked
//! against the JSON Schema the generator derives, protobuf ones through the descriptor pool, so
//! the check needs no generated code.

use std::collections::BTreeMap;

use prost_reflect::DynamicMessage;
use serde_json::{Value, json};

use super::Finding;
use super::markdown::Block;
use crate::emit::schema::emit_schema;
use crate::front::load::LoadedSpec;
use crate::ir::{Call, Protocol, Ty, TypeDef, TypeKind};

/// The JSON Schemas examples are validated against: the spec's, and the spec's with the
/// document's own declarations in place of the spec's (to catch an example that contradicts
/// the document's interface while the spec accepts it).
pub struct Schemas {
    spec: Value,
    doc: Option<Value>,
}

impl Schemas {
    pub fn new(spec: &LoadedSpec, doc_types: &BTreeMap<String, TypeDef>) -> Self {
        let p = &spec.protocol;
        if spec.proto.is_some() {
            // Protobuf examples are checked through the descriptor pool instead.
            return Self {
                spec: Value::Null,
                doc: None,
            };
        }
        let parse =
            |p: &Protocol| serde_json::from_str::<Value>(&emit_schema(p)).unwrap_or(Value::Null);
        let doc = (!doc_types.is_empty()).then(|| {
            let mut with_doc = p.clone();
            for (name, def) in doc_types {
                let mut def = def.clone();
                sanitize(&mut def.kind, doc_types, &p.types);
                with_doc.types.insert(name.clone(), def);
            }
            parse(&with_doc)
        });
        Self {
            spec: parse(p),
            doc,
        }
    }
}

/// Replaces what a document could not declare (unreadable or undeclared names) by `any`, so
/// the document's schema compiles.
fn sanitize(
    kind: &mut TypeKind,
    doc: &BTreeMap<String, TypeDef>,
    spec: &BTreeMap<String, TypeDef>,
) {
    fn ty(t: &mut Ty, known: &dyn Fn(&str) -> bool) {
        match t {
            Ty::Named(n) if !known(n) => *t = Ty::Any,
            Ty::Array(x) | Ty::Map(x) | Ty::Nullable(x) => ty(x, known),
            _ => {}
        }
    }
    let known = |n: &str| doc.contains_key(n) || spec.contains_key(n);
    match kind {
        TypeKind::Struct(fields) => fields.iter_mut().for_each(|f| ty(&mut f.ty, &known)),
        TypeKind::Alias { target, .. } => ty(target, &known),
        TypeKind::Union { variants, .. } => variants.retain(|v| known(&v.type_name)),
        _ => {}
    }
}

/// A validator for `ty` under `schema`'s definitions.
fn validator(schema: &Value, ty: &str) -> Option<jsonschema::Validator> {
    let s = json!({"$defs": schema["$defs"], "$ref": format!("#/$defs/{ty}")});
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(&s)
        .ok()
}

/// The findings for one JSON block.
pub fn check(spec: &LoadedSpec, block: &Block, schemas: &Schemas) -> Vec<Finding> {
    let expect_valid = !block.attrs.split_whitespace().any(|a| a == "invalid");
    let value: Value = match serde_json::from_str(&block.text) {
        Ok(v) => v,
        Err(e) if expect_valid => {
            return vec![Finding {
                line: block.line + e.line().saturating_sub(1),
                message: format!(
                    "JSON example differs: doc says malformed JSON ({e}), spec says a message"
                ),
            }];
        }
        Err(_) => return Vec::new(),
    };
    let outcome = match &spec.proto {
        Some(p) => proto_outcome(p, &spec.protocol, &value).map_err(|e| vec![(String::new(), e)]),
        None if value.get("jsonrpc").is_some() => {
            let validates =
                |ty: &str, v: &Value| validator(&schemas.spec, ty).is_some_and(|x| x.is_valid(v));
            rpc_outcome(&spec.protocol, block, &value, &validates)
                .map_err(|e| vec![(String::new(), e)])
        }
        // An example marked invalid claims not to be a message: only the channels' unions count.
        None if !expect_valid => {
            let p = &spec.protocol;
            p.channels
                .iter()
                .find(|c| validator(&schemas.spec, &c.union).is_some_and(|v| v.is_valid(&value)))
                .map(|c| c.union.clone())
                .ok_or_else(Vec::new)
        }
        None => json_outcome(&spec.protocol, &schemas.spec, &value),
    };
    let lines = pointer_lines(&block.text);
    let at = |pointer: &str| block.line + lines.get(pointer).copied().unwrap_or(0);
    match (expect_valid, outcome) {
        (true, Err(errors)) => errors
            .into_iter()
            .map(|(pointer, why)| Finding {
                line: at(&pointer),
                message: format!("JSON example differs: doc says a valid message, spec says {why}"),
            })
            .collect(),
        (true, Ok(ty)) => own_declarations(schemas, &ty, &value)
            .into_iter()
            .map(|(pointer, why)| Finding {
                line: at(&pointer),
                message: format!(
                    "JSON example differs from the doc's own declarations: at `{pointer}` the doc's types say {why}, spec accepts it as `{ty}`"
                ),
            })
            .collect(),
        (false, Ok(ty)) => vec![Finding {
            line: block.line,
            message: format!("JSON example differs: doc marks it invalid, spec accepts it as `{ty}`"),
        }],
        (false, Err(_)) => Vec::new(),
    }
}

/// Where the document's own declarations refuse an example the spec accepts as `ty`.
fn own_declarations(schemas: &Schemas, ty: &str, value: &Value) -> Vec<(String, String)> {
    let Some(doc) = &schemas.doc else {
        return Vec::new();
    };
    let Some(v) = validator(doc, ty) else {
        return Vec::new();
    };
    // For a JSON-RPC message `ty` types its params or result.
    let (inner, prefix) = match (
        value.get("jsonrpc"),
        value.get("params"),
        value.get("result"),
    ) {
        (None, ..) => (value, ""),
        (Some(_), Some(p), _) => (p, "/params"),
        (Some(_), None, Some(r)) => (r, "/result"),
        (Some(_), None, None) => return Vec::new(),
    };
    v.iter_errors(inner)
        .map(|e| (format!("{prefix}{}", e.instance_path()), e.to_string()))
        .collect()
}

/// `Ok(type it validates as)`, or the closest type's differences as (JSON pointer, why).
/// Every union member whose discriminator the value carries, every struct and every channel
/// union is tried; the closest is the member the discriminator names, else the struct
/// sharing most keys with the value.
fn json_outcome(
    p: &Protocol,
    schema: &Value,
    value: &Value,
) -> Result<String, Vec<(String, String)>> {
    let mut tagged = Vec::new();
    for def in p.types.values() {
        if let TypeKind::Union { tag, variants } = &def.kind
            && let Some(v) = variants
                .iter()
                .find(|v| value.get(tag).and_then(Value::as_str) == Some(v.value.as_str()))
        {
            tagged.push(v.type_name.clone());
        }
    }
    let structs: Vec<&String> = p
        .types
        .iter()
        .filter(|(_, d)| matches!(d.kind, TypeKind::Struct(_) | TypeKind::Union { .. }))
        .map(|(n, _)| n)
        .collect();
    // A value carrying a member's discriminator claims to be that member: only those count.
    let tried: Vec<&String> = if tagged.is_empty() {
        structs.clone()
    } else {
        tagged.iter().collect()
    };
    for ty in tried {
        if validator(schema, ty).is_some_and(|v| v.is_valid(value)) {
            return Ok(ty.clone());
        }
    }
    let keys: Vec<&String> = value
        .as_object()
        .map(|o| o.keys().collect())
        .unwrap_or_default();
    let shared = |ty: &str| match p.types.get(ty).map(|d| &d.kind) {
        Some(TypeKind::Struct(f)) => keys
            .iter()
            .filter(|k| f.iter().any(|f| &&f.name == *k))
            .count(),
        _ => 0,
    };
    let closest = tagged.first().cloned().or_else(|| {
        structs
            .iter()
            .max_by_key(|t| shared(t))
            .filter(|t| 2 * shared(t) > keys.len())
            .map(|t| (*t).clone())
    });
    let Some(ty) = closest else {
        return Err(vec![(
            String::new(),
            "it is none of the spec's messages and types".into(),
        )]);
    };
    let errors = validator(schema, &ty)
        .map(|v| {
            v.iter_errors(value)
                .map(|e| {
                    (
                        e.instance_path().to_string(),
                        format!("`{ty}` refuses `{}`: {e}", e.instance_path()),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    Err(errors)
}

/// The 0-based line, within a JSON text, where the value at each JSON pointer starts.
fn pointer_lines(text: &str) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    let mut scan = Scan {
        bytes: text.as_bytes(),
        at: 0,
        line: 0,
    };
    scan.value(String::new(), &mut out);
    out
}

struct Scan<'a> {
    bytes: &'a [u8],
    at: usize,
    line: usize,
}

impl Scan<'_> {
    fn skip_ws(&mut self) {
        while let Some(&b) = self.bytes.get(self.at) {
            match b {
                b'\n' => self.line += 1,
                b' ' | b'\t' | b'\r' | b',' | b':' => {}
                _ => return,
            }
            self.at += 1;
        }
    }

    /// A string starting at the current `"`; returns its raw text (escapes kept, enough for keys).
    fn string(&mut self) -> String {
        let start = self.at + 1;
        self.at += 1;
        while let Some(&b) = self.bytes.get(self.at) {
            self.at += 1;
            match b {
                b'\\' => self.at += 1,
                b'"' => break,
                b'\n' => self.line += 1,
                _ => {}
            }
        }
        String::from_utf8_lossy(
            &self.bytes[start.min(self.at)..self.at.saturating_sub(1).max(start)],
        )
        .into_owned()
    }

    fn value(&mut self, pointer: String, out: &mut BTreeMap<String, usize>) {
        self.skip_ws();
        out.entry(pointer.clone()).or_insert(self.line);
        match self.bytes.get(self.at) {
            Some(b'{') => {
                self.at += 1;
                loop {
                    self.skip_ws();
                    match self.bytes.get(self.at) {
                        Some(b'"') => {
                            let line = self.line;
                            let key = self.string().replace('~', "~0").replace('/', "~1");
                            let child = format!("{pointer}/{key}");
                            out.insert(child.clone(), line);
                            self.value(child, out);
                        }
                        Some(b'}') | None => break,
                        Some(_) => self.at += 1,
                    }
                }
                self.at += 1;
            }
            Some(b'[') => {
                self.at += 1;
                let mut i = 0;
                loop {
                    self.skip_ws();
                    match self.bytes.get(self.at) {
                        Some(b']') | None => break,
                        Some(_) => {
                            self.value(format!("{pointer}/{i}"), out);
                            i += 1;
                        }
                    }
                }
                self.at += 1;
            }
            Some(b'"') => {
                self.string();
            }
            Some(_) => {
                while let Some(&b) = self.bytes.get(self.at) {
                    if matches!(b, b',' | b'}' | b']' | b'\n' | b' ') {
                        break;
                    }
                    self.at += 1;
                }
            }
            None => {}
        }
    }
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
        let has_id = value.get("id").is_some();
        // A method may be both a request and a notification: the id says which is meant.
        let call = if has_id {
            Call::Request
        } else {
            Call::Notification
        };
        let named = |m: &&crate::ir::Method| m.name == method;
        let exact = p.methods.iter().find(|m| named(m) && m.call == call);
        let Some(m) = exact.or_else(|| p.methods.iter().find(named)) else {
            return Err(format!("there is no method `{method}`"));
        };
        if has_id != (m.call == Call::Request) {
            return Err(format!("`{method}` is a {:?}", m.call).to_lowercase());
        }
        return match (&m.params, value.get("params")) {
            (Some(t), Some(params)) if validates(t, params) => Ok(t.clone()),
            (Some(_), None) if m.params_optional => Ok(method.to_owned()),
            (Some(t), _) => Err(format!("its params are not a valid `{t}`")),
            (None, _) => Ok(method.to_owned()),
        };
    }
    if value.get("error").is_some() {
        return Ok("error response".into());
    }
    let result = value
        .get("result")
        .ok_or("a response without `result` or `error`")?;
    // A response: its result type comes from the method the section is about, else from
    // whichever request's result it is.
    let Some(method) = p
        .methods
        .iter()
        .filter(|m| m.call == Call::Request && block.section.contains(&m.name))
        .max_by_key(|m| m.name.len())
    else {
        return p
            .methods
            .iter()
            .filter(|m| m.call == Call::Request)
            .find_map(|m| match &m.result {
                Some(t) if validates(t, result) => Some(t.clone()),
                None if result.is_null() => Some(format!("{} result", m.name)),
                _ => None,
            })
            .ok_or_else(|| "its result is no request's result".to_owned());
    };
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
