//! Object schemas as structs: `properties` and `required`, `allOf` merged member by member
//! (a `$ref` inside `allOf` contributes the referenced definition's members), and
//! `additionalProperties` deciding whether the struct is open.

use std::collections::BTreeSet;

use super::json::Node;
use super::lower::{Lowerer, MAX_REF_DEPTH, doc_of, inline_name};
use crate::ir::{Constraints, Field, Ty, TypeKind};
use crate::rules::{self, Value};

/// The members of an object schema after merging `allOf` and `$ref`s.
#[derive(Default)]
pub(super) struct Members<'n> {
    /// Each property once, the later schema's in place of an earlier one's, in first-seen order.
    pub props: Vec<(String, &'n Node)>,
    pub required: BTreeSet<String>,
    /// The last `additionalProperties` seen.
    pub additional: Option<&'n Node>,
    /// Definitions merged in through `$ref`.
    pub refs: Vec<String>,
    /// Properties the schema itself (not a referenced definition) declares.
    pub own: Vec<String>,
    /// The tag values a catch-all member's `not` excludes, by key.
    pub excluded: Vec<(String, String)>,
    /// Whether a merged schema has `patternProperties`: its members beyond the properties are
    /// kept as any JSON value, for the struct's subschema to check (`conditions`).
    pub patterned: bool,
}

impl<'f> Lowerer<'f> {
    /// Collects the members of `node`; `false` (after reporting why) when some part of it is
    /// not an object schema.
    pub(super) fn collect<'n>(
        &mut self,
        node: &'n Node,
        out: &mut Members<'n>,
        own: bool,
        depth: usize,
    ) -> bool
    where
        'f: 'n,
    {
        if depth > MAX_REF_DEPTH {
            self.error(node, "`$ref`/`allOf` chain too deep (a cycle?)".to_owned());
            return false;
        }
        if let Some((target, name)) = self.ref_target(node) {
            out.refs.push(name);
            if !self.collect(target, out, false, depth + 1) {
                return false;
            }
        }
        for part in node
            .get("allOf")
            .and_then(Node::as_array)
            .unwrap_or_default()
        {
            if !self.collect(part, out, own, depth + 1) {
                return false;
            }
        }
        if (node.get("oneOf").is_some() || node.get("anyOf").is_some())
            && !super::keywords::constraint_choice(node, true)
            && !self.collect_alternatives(node, out, depth)
        {
            return false;
        }
        for m in node
            .get("properties")
            .map(Node::members)
            .unwrap_or_default()
        {
            match out.props.iter_mut().find(|(k, _)| *k == m.key) {
                Some(slot) => slot.1 = &m.value,
                None => out.props.push((m.key.clone(), &m.value)),
            }
            if own && !out.own.contains(&m.key) {
                out.own.push(m.key.clone());
            }
        }
        for r in node
            .get("required")
            .and_then(Node::as_array)
            .unwrap_or_default()
        {
            if let Some(key) = r.as_str() {
                out.required.insert(key.to_owned());
            }
        }
        if let Some(extra) = extra_members(node) {
            out.additional = Some(extra);
        }
        out.excluded.extend(super::keywords::exclusions(node));
        out.patterned |= node.get("patternProperties").is_some();
        true
    }

    /// The members of a `oneOf`/`anyOf` merged into an object (`allOf: [A, {anyOf: [B, C]}]`,
    /// as schemastore's tsconfig schema writes "at least one of files, include, references"):
    /// each alternative's properties become optional fields, unless the object already
    /// declares them, and which alternative holds is checked at run time with the struct's
    /// other conditions (`conditions`). `false` (after reporting why) when an alternative is
    /// not an object schema.
    fn collect_alternatives<'n>(
        &mut self,
        node: &'n Node,
        out: &mut Members<'n>,
        depth: usize,
    ) -> bool
    where
        'f: 'n,
    {
        let list = (node.get("oneOf").or_else(|| node.get("anyOf")))
            .and_then(Node::as_array)
            .unwrap_or_default();
        for alternative in list {
            let mut scratch = Members::default();
            if !self.collect(alternative, &mut scratch, false, depth + 1) {
                return false;
            }
            for (key, schema) in scratch.props {
                if !out.props.iter().any(|(k, _)| *k == key) {
                    out.props.push((key, schema));
                }
            }
            out.patterned |= scratch.patterned;
        }
        true
    }

    /// A struct for an object schema `node` named `name`.
    pub(super) fn object(&mut self, name: &str, node: &Node) -> (TypeKind, Option<Ty>) {
        let mut members = Members::default();
        if !self.collect(node, &mut members, true, 0) {
            return (TypeKind::Struct(Vec::new()), None);
        }
        self.struct_of(name, &members, &[])
    }

    /// The struct of collected members, leaving out the keys in `skip` (a union's tag).
    pub(super) fn struct_of(
        &mut self,
        name: &str,
        members: &Members<'_>,
        skip: &[&str],
    ) -> (TypeKind, Option<Ty>) {
        let mut fields = Vec::new();
        for (key, schema) in &members.props {
            if skip.contains(&key.as_str()) {
                continue;
            }
            let ty = self.ty_of(schema, &inline_name(name, key));
            let mut constraints = self.constraints(schema, &ty);
            if ty == Ty::String {
                constraints.not_one_of = (members.excluded.iter())
                    .filter(|(k, _)| k == key)
                    .map(|(_, v)| v.clone())
                    .collect();
            }
            fields.push(Field {
                name: key.clone(),
                ty,
                optional: !members.required.contains(key),
                doc: doc_of(schema),
                constraints,
                origin: self.origin(schema),
                defaulted: false,
                default: None,
                must_be_set: false,
            });
        }
        for key in &members.required {
            if !members.props.iter().any(|(k, _)| k == key) && !skip.contains(&key.as_str()) {
                // A required key with no schema: any value, but present.
                fields.push(Field {
                    name: key.clone(),
                    ty: Ty::Any,
                    optional: false,
                    doc: String::new(),
                    constraints: Default::default(),
                    origin: Default::default(),
                    defaulted: false,
                    default: None,
                    must_be_set: false,
                });
            }
        }
        let open = match members.additional {
            // The patterns and `additionalProperties` together decide what a member beyond the
            // properties may be: the subschema checks it, the struct keeps it as it came.
            _ if members.patterned => Some(Ty::Any),
            Some(extra) => self.extra_ty(extra, name),
            None => None,
        };
        (TypeKind::Struct(fields), open)
    }
}

impl Lowerer<'_> {
    /// The rules on an object schema as a whole: `dependentRequired`, and draft-04 to 07's
    /// `dependencies` entries that list names (one with a schema is noted, and not read).
    pub(super) fn object_rules(&mut self, node: &Node) -> Constraints {
        let mut lists: Vec<(String, Vec<String>)> = Vec::new();
        for key in ["dependentRequired", "dependencies"] {
            for m in node.get(key).map(Node::members).unwrap_or_default() {
                let Some(names) = m.value.as_array() else {
                    continue;
                };
                let names: Vec<String> = (names.iter())
                    .filter_map(Node::as_str)
                    .map(str::to_owned)
                    .collect();
                match lists.iter_mut().find(|(k, _)| *k == m.key) {
                    Some((_, needs)) => needs.extend(names),
                    None => lists.push((m.key.clone(), names)),
                }
            }
        }
        let mut c = Constraints::default();
        if !lists.is_empty() {
            c.set(&rules::DEPENDENT_REQUIRED, Value::KeyLists(lists));
        }
        c
    }
}

/// What a schema says of members beyond its properties: `additionalProperties`, or
/// `unevaluatedProperties: true` (which admits any, and so declares extension members too).
pub(super) fn extra_members(node: &Node) -> Option<&Node> {
    node.get("additionalProperties").or_else(|| {
        node.get("unevaluatedProperties")
            .filter(|u| u.as_bool() == Some(true))
    })
}
