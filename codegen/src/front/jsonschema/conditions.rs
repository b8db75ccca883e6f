//! Conditions a struct cannot say (`if`/`then`/`else`, `not`, `patternProperties`,
//! `dependentSchemas` and draft-04 to 07's schema-valued `dependencies`, `propertyNames`,
//! `minProperties`/`maxProperties`, and a `oneOf`/`anyOf` that only constrains the object's
//! own members) bundled into one self-contained subschema document: the
//! keywords as the upstream schema writes them, and under `$defs` every definition their
//! `$ref`s reach, each `$ref` rewritten to point there. The struct's rule `subschema` holds the
//! document; generated validators and the interpreter check the object's JSON form against it
//! with `agentwire_runtime::subschema`.
//!
//! A schema that is no struct's (a list, a string, a number, a union, a map) states its
//! conditions the same way, with the keywords only a value of some type has besides
//! (`contains`, a tuple's `prefixItems`, `unevaluatedItems`, ...): they are bundled alike
//! into the type's `subschema` rule, checked on its JSON form. A schema with
//! `unevaluatedProperties` or `unevaluatedItems` is bundled whole, as those keywords depend on
//! what every other keyword beside them evaluated.

use serde_json::{Map, Value, json};

use super::json::Node;
use super::keywords;
use super::lower::{Lowerer, MAX_REF_DEPTH};

/// Keywords read into the bundle wherever they stand on an object schema.
const BUNDLED: &[&str] = &[
    "if",
    "then",
    "else",
    "dependentSchemas",
    "propertyNames",
    "minProperties",
    "maxProperties",
];

/// Keywords read into the bundle where they stand on a schema that is no struct's.
const VALUE_BUNDLED: &[&str] = &[
    "if",
    "then",
    "else",
    "dependentSchemas",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "contains",
    "minContains",
    "maxContains",
    "prefixItems",
    "additionalItems",
    "unevaluatedItems",
];

/// Whether the keyword `key` of a schema that is no struct's (`node`) is a condition its
/// type's `subschema` rule carries.
pub(super) fn is_value_condition(node: &Node, key: &str) -> bool {
    match key {
        "not" => !keywords::is_tag_exclusion(node.get("not").unwrap_or(node)),
        // A map of the one pattern's schema is typed (`keywords::pattern_map`).
        "patternProperties" => keywords::pattern_map(node).is_none(),
        "dependencies" => (node.get(key).map(Node::members).unwrap_or_default())
            .iter()
            .any(|d| d.value.as_array().is_none()),
        // A tuple (draft-04 to 2019-09), or the elements after `prefixItems`.
        "items" => {
            node.get(key).is_some_and(|i| i.as_array().is_some())
                || node.get("prefixItems").is_some()
        }
        "unevaluatedProperties" => node.get(key).and_then(Node::as_bool) != Some(true),
        // A choice that only constrains an object's members, on a map.
        "oneOf" | "anyOf" => keywords::constraint_choice(node, false),
        _ => VALUE_BUNDLED.contains(&key),
    }
}

/// The conditions of a schema that is no struct's, `None` when it has none.
fn value_conditions(node: &Node) -> Option<Map<String, Value>> {
    if let Some(all) = whole(node) {
        return Some(all);
    }
    let mut out = Map::new();
    for m in node.members() {
        if !is_value_condition(node, &m.key) {
            continue;
        }
        match m.key.as_str() {
            "dependencies" => {
                let schemas: Map<String, Value> = (m.value.members().iter())
                    .filter(|d| d.value.as_array().is_none())
                    .map(|d| (d.key.clone(), d.value.to_value()))
                    .collect();
                out.insert("dependentSchemas".to_owned(), Value::Object(schemas));
            }
            "patternProperties" => {
                out.insert(m.key.clone(), m.value.to_value());
                for sibling in ["properties", "additionalProperties"] {
                    if let Some(v) = node.get(sibling) {
                        out.insert(sibling.to_owned(), v.to_value());
                    }
                }
            }
            _ => {
                out.insert(m.key.clone(), m.value.to_value());
            }
        }
    }
    (!out.is_empty()).then_some(out)
}

/// The schema `node` whole (its definitions aside) where it has `unevaluatedProperties` (not
/// `true`) or `unevaluatedItems`: those read what every keyword beside them evaluated.
fn whole(node: &Node) -> Option<Map<String, Value>> {
    let unevaluated = node.members().iter().any(|m| match m.key.as_str() {
        "unevaluatedProperties" => m.value.as_bool() != Some(true),
        "unevaluatedItems" => true,
        _ => false,
    });
    if !unevaluated {
        return None;
    }
    let Value::Object(mut all) = node.to_value() else {
        return None;
    };
    for key in ["$defs", "definitions", "$id", "$schema"] {
        all.remove(key);
    }
    Some(all)
}

/// Whether the object schema `node` says something the bundle carries (the keyword `key` of
/// it, for `check_keywords`).
pub(super) fn is_bundled(node: &Node, key: &str) -> bool {
    match key {
        "not" => !keywords::is_tag_exclusion(node.get("not").unwrap_or(node)),
        "patternProperties" => true,
        // On an object schema a choice is a condition: whether it only constrains the
        // object's own members (`keywords::constraint_choice`) or adds members of its own
        // (`Lowerer::collect_alternatives`, which makes them optional fields).
        "oneOf" | "anyOf" => true,
        // With the whole schema (`whole`): the struct keeps its undeclared members for it.
        "unevaluatedProperties" => node.get(key).and_then(Node::as_bool) != Some(true),
        "unevaluatedItems" => true,
        "dependencies" => (node.get(key).map(Node::members).unwrap_or_default())
            .iter()
            .any(|d| d.value.as_array().is_none()),
        _ => BUNDLED.contains(&key),
    }
}

/// The bundled keywords of one schema object, `None` when it has none.
fn own_conditions(node: &Node) -> Option<Map<String, Value>> {
    if let Some(all) = whole(node) {
        return Some(all);
    }
    let mut out = Map::new();
    for m in node.members() {
        if !is_bundled(node, &m.key) {
            continue;
        }
        match m.key.as_str() {
            // Only the entries with a schema: those with a list are `dependent_required`.
            "dependencies" => {
                let schemas: Map<String, Value> = (m.value.members().iter())
                    .filter(|d| d.value.as_array().is_none())
                    .map(|d| (d.key.clone(), d.value.to_value()))
                    .collect();
                out.insert("dependentSchemas".to_owned(), Value::Object(schemas));
            }
            // Which members are "additional" depends on the patterns and the sibling
            // properties: the names of those go along (each admitting any value, as the
            // struct's fields check the values).
            "patternProperties" => {
                out.insert(m.key.clone(), m.value.to_value());
                if let Some(extra) = node.get("additionalProperties") {
                    let names: Map<String, Value> = (node.get("properties"))
                        .map(|p| {
                            p.members()
                                .iter()
                                .map(|p| (p.key.clone(), json!(true)))
                                .collect()
                        })
                        .unwrap_or_default();
                    out.insert("properties".to_owned(), Value::Object(names));
                    out.insert("additionalProperties".to_owned(), extra.to_value());
                }
            }
            _ => {
                out.insert(m.key.clone(), m.value.to_value());
            }
        }
    }
    (!out.is_empty()).then_some(out)
}

impl Lowerer<'_> {
    /// The subschema document of the object schema `node` named `name`: the conditions of
    /// `node` and of every schema merged into it (`allOf` parts, `$ref`s among them), `None`
    /// when there are none.
    pub(super) fn conditions(&mut self, name: &str, node: &Node) -> Option<String> {
        let mut parts = Vec::new();
        self.gather(node, &mut parts, 0);
        self.bundle(name, node, parts)
    }

    /// The subschema document of the schema `node` named `name` that is no struct's: its own
    /// conditions (see [`is_value_condition`]), `None` when it has none.
    pub(super) fn value_conditions(&mut self, name: &str, node: &Node) -> Option<String> {
        let own = value_conditions(node)?;
        self.bundle(name, node, vec![own])
    }

    /// Whether the schema `node`, no struct's, has conditions for a `subschema` rule.
    pub(super) fn has_value_conditions(node: &Node) -> bool {
        node.members()
            .iter()
            .any(|m| is_value_condition(node, &m.key))
    }

    /// One document of the condition `parts` of `node` (named `name`), the definitions their
    /// `$ref`s reach under its `$defs`.
    fn bundle(
        &mut self,
        name: &str,
        node: &Node,
        mut parts: Vec<Map<String, Value>>,
    ) -> Option<String> {
        let mut doc = match parts.len() {
            0 => return None,
            1 => parts.remove(0),
            _ => {
                let all = parts.into_iter().map(Value::Object).collect();
                Map::from_iter([("allOf".to_owned(), Value::Array(all))])
            }
        };
        let mut body = Value::Object(std::mem::take(&mut doc));
        let defs = self.reached_defs(&mut body);
        let Value::Object(mut doc) = body else {
            return None;
        };
        if !defs.is_empty() {
            // Its own resource, so its `#/$defs/...` resolve inside it wherever the emitted
            // schema embeds it.
            doc.insert(
                "$id".to_owned(),
                json!(format!("urn:agentwire:subschema:{name}")),
            );
            doc.insert("$defs".to_owned(), Value::Object(defs));
        }
        let text = Value::Object(doc).to_string();
        let compiled = agentwire_runtime::subschema::Schema::parse(&text).ok()?;
        for p in compiled.unread_patterns() {
            self.note(
                node.span.0,
                format!("the pattern `{p}` is not one the `regex` crate reads; the condition holding it is checked without it"),
            );
        }
        Some(text)
    }

    /// The conditions of `node` and of the schemas it merges, in order.
    fn gather(&self, node: &Node, out: &mut Vec<Map<String, Value>>, depth: usize) {
        if depth > MAX_REF_DEPTH {
            return;
        }
        if let Some((target, _)) = self.ref_target(node) {
            self.gather(target, out, depth + 1);
        }
        for part in node
            .get("allOf")
            .and_then(Node::as_array)
            .unwrap_or_default()
        {
            self.gather(part, out, depth + 1);
        }
        out.extend(own_conditions(node));
    }

    /// Rewrites each `$ref` of `body` that names a schema of this document to
    /// `#/$defs/<name>`, and returns those schemas (theirs rewritten too), each once.
    fn reached_defs(&self, body: &mut Value) -> Map<String, Value> {
        let mut defs = Map::new();
        let mut pending = Vec::new();
        self.rewrite(body, &mut pending);
        while let Some(name) = pending.pop() {
            if defs.contains_key(&name) {
                continue;
            }
            let Some(node) = self.defs.get(&name) else {
                continue;
            };
            let mut schema = node.to_value();
            // A definition copied out of its document: no base URI or dialect of its own.
            if let Value::Object(o) = &mut schema {
                o.remove("$id");
                o.remove("$schema");
                o.remove("id")
                    .filter(|id| !id.is_string())
                    .map(|id| o.insert("id".to_owned(), id));
            }
            self.rewrite(&mut schema, &mut pending);
            defs.insert(name, schema);
        }
        defs
    }

    fn rewrite(&self, v: &mut Value, pending: &mut Vec<String>) {
        match v {
            Value::Object(o) => {
                if let Some(Value::String(text)) = o.get_mut("$ref")
                    && let Some(name) = self.ref_name(text)
                {
                    *text = format!("#/$defs/{}", name.replace('~', "~0").replace('/', "~1"));
                    pending.push(name);
                }
                // A dynamic reference the document resolves (to the outermost schema with its
                // anchor, `refs::locate`) is a plain one to that definition in the bundle.
                for key in ["$dynamicRef", "$recursiveRef"] {
                    if let Some(Value::String(text)) = o.get(key)
                        && let Some(name) = self.ref_name(text)
                        && !o.contains_key("$ref")
                    {
                        o.remove(key);
                        let pointer =
                            format!("#/$defs/{}", name.replace('~', "~0").replace('/', "~1"));
                        o.insert("$ref".to_owned(), Value::String(pointer));
                        pending.push(name);
                    }
                }
                o.values_mut().for_each(|v| self.rewrite(v, pending));
            }
            Value::Array(items) => items.iter_mut().for_each(|v| self.rewrite(v, pending)),
            _ => {}
        }
    }
}
