//! Lowers schema nodes into IR types: a definition into a named type, a property's schema into
//! a type expression (naming inline objects, enums and unions `<Parent><Field>` as the
//! TypeScript loader does).

use std::collections::{BTreeMap, BTreeSet};

use super::json::{Json, Node};
use super::{keywords, refs};
use crate::diag::{SourceFile, SpecError, SpecErrors};
use crate::ir::{Constraints, Origin, Ty, TypeDef, TypeKind};
use crate::naming::pascal_case;
use crate::rules::{self, Arg, Rule, Shape, TagError, Value};

/// How deep `$ref`/`allOf` chains are followed before the loader calls them a cycle.
pub(super) const MAX_REF_DEPTH: usize = 64;

pub struct Lowerer<'f> {
    pub(super) file: &'f SourceFile,
    rel: &'f str,
    /// Every definition's schema, by name.
    pub(super) defs: BTreeMap<String, &'f Node>,
    pub(super) types: BTreeMap<String, TypeDef>,
    /// Union members whose discriminator field moves to their unions: `(type, tag)`.
    pub(super) strip: Vec<(String, String)>,
    /// Schemas whose keywords were checked, by offset (a schema is reached more than once).
    checked: BTreeSet<usize>,
    /// What was read as absent or as any JSON value, by what the note says: how often, and
    /// the first line.
    notes: BTreeMap<String, (usize, usize)>,
    /// The named type each resolvable `$ref` of the document stands for, by its text.
    refs: refs::RefNames,
    pub(super) errors: SpecErrors,
}

impl<'f> Lowerer<'f> {
    pub fn new(file: &'f SourceFile, rel: &'f str, root: &'f Node) -> Self {
        let mut me = Self {
            file,
            rel,
            defs: BTreeMap::new(),
            types: BTreeMap::new(),
            strip: Vec::new(),
            checked: BTreeSet::new(),
            notes: BTreeMap::new(),
            refs: BTreeMap::new(),
            errors: SpecErrors::default(),
        };
        if !root.is_object() {
            me.error(root, "a JSON Schema document is an object".to_owned());
            return me;
        }
        for key in ["$defs", "definitions"] {
            for m in root.get(key).map(Node::members).unwrap_or_default() {
                if me.defs.insert(m.key.clone(), &m.value).is_some() {
                    me.error(
                        &m.value,
                        format!(
                            "`{}` is defined under both `$defs` and `definitions`",
                            m.key
                        ),
                    );
                }
            }
        }
        me.resolve_refs(root);
        if me.defs.is_empty() {
            me.errors.push(
                SpecError::at(file, (0, 1), "the schema defines no types")
                    .with_help("put each message type under `$defs` (or `definitions`), or describe a value at the root"),
            );
        }
        me
    }

    /// Names the root schema (when it describes a value or a `$ref` reaches it) and every
    /// schema a `$ref` reaches inside the document, each once.
    fn resolve_refs(&mut self, root: &'f Node) {
        let id = (root.get("$id").or_else(|| root.get("id"))).and_then(Node::as_str);
        let mut texts = Vec::new();
        refs::all_refs(root, &mut texts, 0);
        let reaches_root = (texts.iter())
            .any(|r| refs::locate(root, id, r).is_some_and(|n| std::ptr::eq(n, root)));
        if refs::root_is_schema(root) || reaches_root {
            // A definition whose Rust name would be the root's (`schema` beside the root of
            // `schema.json`) keeps it: the root is the one named after the file.
            let taken = |n: &str| self.defs.keys().any(|d| d == n || pascal_case(d) == n);
            let name = refs::root_name(self.rel, taken);
            self.defs.insert(name, root);
        }
        for text in texts {
            let Some(node) = refs::locate(root, id, &text) else {
                continue;
            };
            let known = (self.defs.iter()).find(|(_, d)| std::ptr::eq(**d, node));
            let name = match known {
                Some((name, _)) => name.clone(),
                None => {
                    let name = refs::pointer_name(&text, |n| self.defs.contains_key(n));
                    self.defs.insert(name.clone(), node);
                    name
                }
            };
            self.refs.insert(text, name);
        }
    }

    pub fn lower_all(&mut self) {
        let defs: Vec<(String, &Node)> = self.defs.iter().map(|(k, v)| (k.clone(), *v)).collect();
        // A name that is no Rust identifier (`attr-directive`) is kept here; the naming pass
        // (`front::rename`) gives its Rust type a name, as it does for every front end.
        for (name, node) in defs {
            self.define(&name, node, false);
        }
        let mut beside = Vec::new();
        for (ty, tag) in std::mem::take(&mut self.strip) {
            if let Some(TypeDef {
                kind: TypeKind::Struct(fields),
                ..
            }) = self.types.get_mut(&ty)
            {
                let before = fields.len();
                fields.retain(|f| f.name != tag);
                if fields.len() == before {
                    beside.push((ty, tag));
                }
            }
        }
        // A referenced definition that declares no tag field has its tag fixed beside it by
        // the union alone: decoded on its own, it has none (`Variant::beside`).
        for def in self.types.values_mut() {
            if let TypeKind::Union { tag, variants } = &mut def.kind {
                for v in variants.iter_mut() {
                    v.beside |= beside.iter().any(|(t, g)| *t == v.type_name && g == tag);
                }
            }
        }
        // With the tags moved, untagged members are ordered as the TypeScript loader orders them.
        crate::ir::order_untagged_members(&mut self.types);
        for (ty, what) in super::cycles::break_cycles(&mut self.types) {
            let line = self.types.get(&ty).map_or(1, |d| d.origin.line);
            self.notes.entry(what).or_insert((0, line)).0 += 1;
        }
    }

    /// The types, and one note per keyword read as absent (for the `cargo xtask gen` summary).
    pub fn finish(self) -> Result<(BTreeMap<String, TypeDef>, Vec<String>), SpecErrors> {
        let notes = (self.notes.iter())
            .map(|(what, (count, line))| {
                let places = match count {
                    1 => format!("line {line}"),
                    n => format!("{n} places, the first at line {line}"),
                };
                format!("note: {} ({places}): {what}", self.rel)
            })
            .collect();
        self.errors.finish((self.types, notes))
    }

    /// Notes `what` (read leniently) at byte `offset`; the same note is counted, not repeated.
    pub(super) fn note(&mut self, offset: usize, what: String) {
        let line = self.file.line_of(offset);
        self.notes.entry(what).or_insert((0, line)).0 += 1;
    }

    pub(super) fn error(&mut self, node: &Node, message: String) {
        self.errors
            .push(SpecError::at(self.file, node.span, message));
    }

    pub(super) fn origin(&self, node: &Node) -> Origin {
        Origin {
            file: self.rel.to_owned(),
            line: self.file.line_of(node.span.0),
        }
    }

    /// Adds the named type `name` for `node`.
    pub(super) fn define(&mut self, name: &str, node: &Node, inline: bool) {
        if self.types.contains_key(name) {
            return;
        }
        self.check_keywords(node);
        let doc = doc_of(node);
        // Reserve the name first: a type that refers to itself is lowered once.
        self.put(
            name,
            node,
            inline,
            doc.clone(),
            TypeKind::Enum(Vec::new()),
            None,
        );
        let (mut kind, open) = self.kind_of(name, node);
        let mut rules = Constraints::default();
        match &mut kind {
            TypeKind::Struct(_) => {
                rules = self.object_rules(node);
                if let Some(doc) = self.conditions(name, node) {
                    rules.set(&rules::SUBSCHEMA, Value::Schema(doc));
                }
            }
            // No struct: the conditions are the type's rule on its JSON form (a newtype's,
            // or a union's as a whole).
            kind => {
                if let Some(doc) = self.value_conditions(name, node) {
                    let doc = Value::Schema(doc);
                    match kind {
                        TypeKind::Alias { constraints, .. } => {
                            constraints.set(&rules::SUBSCHEMA, doc);
                        }
                        _ => {
                            rules.set(&rules::SUBSCHEMA, doc);
                        }
                    }
                }
            }
        }
        self.put(name, node, inline, doc, kind, open);
        if let Some(def) = self.types.get_mut(name) {
            def.rules = rules;
        }
    }

    pub(super) fn put(
        &mut self,
        name: &str,
        node: &Node,
        inline: bool,
        doc: String,
        kind: TypeKind,
        open: Option<Ty>,
    ) {
        let def = TypeDef {
            name: name.to_owned(),
            inline,
            doc,
            origin: self.origin(node),
            kind,
            open,
            rules: Default::default(),
        };
        self.types.insert(name.to_owned(), def);
    }

    /// The kind of the named type for `node`, and whether it is an open struct.
    fn kind_of(&mut self, name: &str, node: &Node) -> (TypeKind, Option<Ty>) {
        if let Some(values) = string_values(node) {
            return (TypeKind::Enum(values), None);
        }
        if let Some(members) = self.union_members(node) {
            return self.union(name, node, &members);
        }
        if every_type(node) {
            let kind = TypeKind::Alias {
                target: Ty::Any,
                constraints: Constraints::default(),
            };
            return (kind, None);
        }
        if let Some((members, null)) = self.type_list(node, name) {
            if !null {
                return (TypeKind::Untagged(members), None);
            }
            let inner = format!("{name}Value");
            self.put(
                &inner,
                node,
                true,
                String::new(),
                TypeKind::Untagged(members),
                None,
            );
            let target = Ty::Nullable(Box::new(Ty::Named(inner)));
            let kind = TypeKind::Alias {
                target,
                constraints: Constraints::default(),
            };
            return (kind, None);
        }
        if self.is_object_schema(node) {
            return self.object(name, node);
        }
        let target = self.ty_of_bare(node, name);
        let constraints = self.constraints(node, &target);
        (
            TypeKind::Alias {
                target,
                constraints,
            },
            None,
        )
    }

    /// The type of the schema `node`; `context` names the inline types it needs. A schema
    /// with conditions that is no struct's (`{"type": "array", "contains": ...}`, `{"$ref":
    /// ..., "not": ...}`) is a type of its own, named `context`, whose rule carries them.
    pub(super) fn ty_of(&mut self, node: &Node, context: &str) -> Ty {
        if node.is_object() && !self.is_object_schema(node) && Self::has_value_conditions(node) {
            self.define(context, node, true);
            return Ty::Named(context.to_owned());
        }
        self.ty_of_bare(node, context)
    }

    /// [`Self::ty_of`] without the type of its own for conditions (which the caller gives).
    fn ty_of_bare(&mut self, node: &Node, context: &str) -> Ty {
        match &node.value {
            Json::Bool(true) => return Ty::Any,
            Json::Bool(false) => {
                self.error(node, "a `false` schema admits no value".to_owned());
                return Ty::Any;
            }
            Json::Object(_) => {}
            _ => {
                self.error(node, "a schema is an object or a boolean".to_owned());
                return Ty::Any;
            }
        }
        self.check_keywords(node);
        let reference = ["$ref", "$dynamicRef", "$recursiveRef"]
            .iter()
            .find_map(|k| node.get(k));
        if let Some(target) = reference {
            return self.reference(target);
        }
        if let Some(inner) = self.nullable_inner(node) {
            return match inner {
                Nullable::Type(t) => {
                    let inner = self.plain_ty(node, t, context);
                    Ty::Nullable(Box::new(inner))
                }
                Nullable::Member(m) => Ty::Nullable(Box::new(self.ty_of(m, context))),
            };
        }
        if every_type(node) {
            return Ty::Any;
        }
        if let Some((members, null)) = self.type_list(node, context) {
            self.put(
                context,
                node,
                true,
                String::new(),
                TypeKind::Untagged(members),
                None,
            );
            let named = Ty::Named(context.to_owned());
            return if null {
                Ty::Nullable(Box::new(named))
            } else {
                named
            };
        }
        if string_values(node).is_some()
            || self.union_members(node).is_some()
            || self.is_object_schema(node)
        {
            self.define(context, node, true);
            return Ty::Named(context.to_owned());
        }
        if let Some([single]) = keywords::all_of_parts(node).as_deref() {
            return self.ty_of(single, context);
        }
        if let Some(ty) = self.literal_ty(node, context) {
            return ty;
        }
        match node.get("type").map(|t| (t, t.as_str())) {
            Some((_, Some(t))) => self.plain_ty(node, t, context),
            // A list `type_list` leaves: one JSON type (`["integer", "number"]` is `number`),
            // with or without `null`.
            Some((_, None)) => match single_type(node) {
                Some((t, false)) => self.plain_ty(node, t, context),
                Some((t, true)) => Ty::Nullable(Box::new(self.plain_ty(node, t, context))),
                None => Ty::Any,
            },
            None => Ty::Any,
        }
    }

    /// The type of a schema whose `type` is the single JSON type `t`.
    fn plain_ty(&mut self, node: &Node, t: &str, context: &str) -> Ty {
        match t {
            "string" => Ty::String,
            "integer" => Ty::Integer,
            "number" => Ty::Number,
            "boolean" => Ty::Bool,
            "null" => Ty::Nullable(Box::new(Ty::Any)),
            "array" => {
                let items = match node.get("items") {
                    // A tuple, one schema per position (draft-04 to 2019-09's `items: [...]`,
                    // 2020-12's `prefixItems`): a list of any JSON values, each position
                    // checked by the type's `subschema` rule (`conditions`).
                    _ if node.get("prefixItems").is_some() => Ty::Any,
                    Some(items) if items.as_array().is_some() => Ty::Any,
                    Some(items) => self.ty_of(items, &format!("{context}Item")),
                    None => Ty::Any,
                };
                Ty::Array(Box::new(items))
            }
            // `type: ["object", "null"]` beside properties: the struct, made optional above.
            "object" if self.is_object_schema(node) => {
                self.define(context, node, true);
                Ty::Named(context.to_owned())
            }
            "object" => Ty::Map(Box::new(self.map_values(node, context))),
            other => {
                self.error(node, format!("unknown JSON type `{other}`"));
                Ty::Any
            }
        }
    }

    /// `type: ["string", "array", ...]` with two or more JSON types besides `null`: the
    /// members of an untagged union, and whether `null` is among them. `number` takes in
    /// `integer` (every integer is a number); an `object` with properties is a struct
    /// `<context>Object`, an `array` a list of its `items`.
    fn type_list(&mut self, node: &Node, context: &str) -> Option<(Vec<Ty>, bool)> {
        let types = node.get("type")?.as_array()?;
        let names: Vec<&str> = types.iter().filter_map(Node::as_str).collect();
        let real = names.iter().filter(|n| **n != "null").count();
        if real < 2 || (real == 2 && names.contains(&"integer") && names.contains(&"number")) {
            return None;
        }
        let mut members = Vec::new();
        for name in &names {
            let ty = match *name {
                "null" => continue,
                "integer" if names.contains(&"number") => continue,
                "object" if self.is_object_schema(node) => {
                    let name = format!("{context}Object");
                    let (kind, open) = self.object(&name, node);
                    self.put(&name, node, true, String::new(), kind, open);
                    Ty::Named(name)
                }
                other => self.plain_ty(node, other, context),
            };
            if !members.contains(&ty) {
                members.push(ty);
            }
        }
        (members.len() >= 2).then_some((members, names.contains(&"null")))
    }

    /// `const`/`enum` of values not all strings: strings and `null` make an optional enum
    /// `<context>Value`, booleans a `bool` (one value, that literal); numbers and mixed values
    /// are read as their JSON type, with a note that the values are not checked.
    fn literal_ty(&mut self, node: &Node, context: &str) -> Option<Ty> {
        let values: Vec<&Node> = match (node.get("const"), node.get("enum")) {
            (Some(c), _) => vec![c],
            (None, Some(e)) => e.as_array()?.iter().collect(),
            (None, None) => return None,
        };
        let strings: Vec<String> = (values.iter())
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect();
        let nulls = (values.iter())
            .filter(|v| matches!(v.value, Json::Null))
            .count();
        if !strings.is_empty() && strings.len() + nulls == values.len() {
            let name = format!("{context}Value");
            self.put(
                &name,
                node,
                true,
                String::new(),
                TypeKind::Enum(strings),
                None,
            );
            return Some(Ty::Nullable(Box::new(Ty::Named(name))));
        }
        let bools: Vec<bool> = values.iter().filter_map(|v| v.as_bool()).collect();
        if !bools.is_empty() && bools.len() == values.len() {
            return Some(match bools.as_slice() {
                [one] => Ty::BoolLiteral(*one),
                _ if bools.iter().all(|b| *b == bools[0]) => Ty::BoolLiteral(bools[0]),
                _ => Ty::Bool,
            });
        }
        let whole = |v: &&Node| matches!(&v.value, Json::Number(_, text) if !text.contains(['.', 'e', 'E']));
        let numbers = values.iter().all(|v| matches!(v.value, Json::Number(..)));
        let (ty, what) = match () {
            _ if values.iter().all(whole) && !values.is_empty() => (Ty::Integer, "an integer"),
            _ if numbers && !values.is_empty() => (Ty::Number, "a number"),
            _ => (Ty::Any, "any JSON value"),
        };
        let key = if node.get("const").is_some() {
            "a `const`"
        } else {
            "an `enum`"
        };
        self.note(
            node.span.0,
            format!("{key} of values that are not all strings is read as {what}; the values themselves are not checked"),
        );
        Some(ty)
    }

    /// The values' type of an object schema without properties (a map): its
    /// `additionalProperties`, or, where that is `false`, the schema `patternProperties` gives
    /// every name it admits (`keywords::pattern_map`).
    fn map_values(&mut self, node: &Node, context: &str) -> Ty {
        match keywords::pattern_map(node) {
            Some(values) => self.ty_of(values, &format!("{context}Value")),
            None => self.additional(node, context).unwrap_or(Ty::Any),
        }
    }

    /// `additionalProperties` of `node`: `None` when absent or `false`, else the members' type.
    pub(super) fn additional(&mut self, node: &Node, context: &str) -> Option<Ty> {
        self.extra_ty(node.get("additionalProperties")?, context)
    }

    /// The members' type an `additionalProperties` value `extra` admits (`None` for `false`).
    pub(super) fn extra_ty(&mut self, extra: &Node, context: &str) -> Option<Ty> {
        match &extra.value {
            Json::Bool(false) => None,
            Json::Bool(true) => Some(Ty::Any),
            _ => Some(self.ty_of(extra, &format!("{context}Value"))),
        }
    }

    /// A `$ref`: the named type of the schema it reaches in this document.
    fn reference(&mut self, target: &Node) -> Ty {
        let text = target.as_str().unwrap_or_default();
        if let Some(name) = self.refs.get(text) {
            return Ty::Named(name.clone());
        }
        if text.starts_with('#') || target.as_str().is_none() {
            self.errors.push(
                SpecError::at(
                    self.file,
                    target.span,
                    format!(
                        "`$ref` {} reaches no schema of this document",
                        target.to_value()
                    ),
                )
                .with_help("refer to a definition of this file: `#/$defs/Name`"),
            );
            return Ty::Any;
        }
        // Another document: read as any JSON value until the loader reads several files.
        self.note(
            target.span.0,
            "a `$ref` to another document is read as any JSON value".to_owned(),
        );
        Ty::Any
    }

    /// The named type a `$ref` text stands for, if it reaches a schema of this document.
    pub(super) fn ref_name(&self, text: &str) -> Option<String> {
        self.refs.get(text).cloned()
    }

    /// The definition a `$ref` node names, if it is one of this document's.
    pub(super) fn ref_target(&self, node: &Node) -> Option<(&'f Node, String)> {
        let name = self.refs.get(node.get("$ref")?.as_str()?)?;
        self.defs.get(name).map(|n| (*n, name.clone()))
    }

    /// `type: [t, "null"]`, or `anyOf`/`oneOf` of one schema and `{type: null}`.
    fn nullable_inner<'n>(&self, node: &'n Node) -> Option<Nullable<'n>> {
        if let Some(types) = node.get("type").and_then(Node::as_array) {
            let names: Vec<&str> = types.iter().filter_map(Node::as_str).collect();
            if let [a, b] = names.as_slice()
                && (*a == "null" || *b == "null")
            {
                return Some(Nullable::Type(if *a == "null" { b } else { a }));
            }
            return None;
        }
        let members = node
            .get("anyOf")
            .or_else(|| node.get("oneOf"))?
            .as_array()?;
        let (null, rest): (Vec<&Node>, Vec<&Node>) = members.iter().partition(|m| is_null(m));
        match (null.len(), rest.as_slice()) {
            (1, [one]) if node.get("properties").is_none() => Some(Nullable::Member(one)),
            _ => None,
        }
    }

    /// Whether `node` describes an object with declared members (a struct), following
    /// `allOf` and `$ref` inside `allOf`.
    pub(super) fn is_object_schema(&self, node: &Node) -> bool {
        if node.get("properties").is_some() {
            return true;
        }
        match keywords::all_of_parts(node).as_deref() {
            Some([_]) | None => false,
            Some(_) => true,
        }
    }

    /// Constraints read from `node` for a value of type `ty` through the rules' shared checks
    /// (argument, fit, bounds): on a list, its own rules come from `node` and the others from
    /// its `items`.
    pub(super) fn constraints(&mut self, node: &Node, ty: &Ty) -> Constraints {
        let mut c = Constraints::default();
        let mut spans = Vec::new();
        match node.get("items").filter(|_| matches!(ty, Ty::Array(_))) {
            Some(items) => {
                self.read_rules(node, ty, Some(true), &mut c, &mut spans);
                self.read_rules(items, ty, Some(false), &mut c, &mut spans);
            }
            None => self.read_rules(node, ty, None, &mut c, &mut spans),
        }
        for (rule, e) in rules::check_bounds(&c, |r, v| format!("{}: {v}", r.keyword)) {
            let span = (spans.iter().find(|(r, _)| *r == rule)).map_or(node.span, |(_, s)| *s);
            self.errors
                .push(SpecError::at(self.file, span, e.message).with_help(e.help));
        }
        if matches!(ty, Ty::Named(_)) {
            // A referenced type carries its own rules.
            return Constraints::default();
        }
        c
    }

    /// Reads the rule keywords of `source` into `c` (only the list rules, or only the others,
    /// when `lists` says which), each checked as every front end checks a rule. A rule on a
    /// value it does not apply to constrains nothing in JSON Schema: it is noted and read as
    /// absent (a `format` is carried: the schema passes it on as an annotation).
    fn read_rules(
        &mut self,
        source: &Node,
        ty: &Ty,
        lists: Option<bool>,
        c: &mut Constraints,
        spans: &mut Vec<(Rule, (usize, usize))>,
    ) {
        for m in source.members() {
            let Some(rule) = rules::by_keyword(&m.key) else {
                continue;
            };
            // A rule on an object as a whole is the struct's (`object_rules`), not a field's.
            if rule.shape == Shape::Object {
                continue;
            }
            // Draft-04's boolean `exclusiveMinimum` makes its `minimum` exclusive: the bound
            // is read as the later drafts' number form, where it has one.
            if m.value.as_bool().is_some() && matches!(rule.arg, Arg::Number) {
                continue;
            }
            let rule = draft4_exclusive(source, rule);
            if lists.is_some_and(|l| l != (rule.shape == Shape::List))
                || (rule.arg == Arg::Flag && m.value.as_bool() == Some(false))
            {
                continue;
            }
            if let Err(e) = rules::fits(rule, &m.key, rules::shape_for(rule, ty))
                && rule.arg != Arg::Format
            {
                self.note(m.key_span.0, format!("{}; read as absent", e.message));
                continue;
            }
            match rule_value(rule, &m.value).and_then(|v| rules::apply(c, rule, &m.key, v)) {
                Ok(()) => spans.push((rule, m.key_span)),
                Err(e) => self
                    .errors
                    .push(SpecError::at(self.file, m.value.span, e.message).with_help(e.help)),
            }
        }
    }

    /// Notes keywords the IR does not read: unchecked rules and keywords JSON Schema does not define.
    pub(super) fn check_keywords(&mut self, node: &Node) {
        if !self.checked.insert(node.span.0) {
            return;
        }
        for m in node.members() {
            // A catch-all member's "none of the known tags" is what trying it after the
            // tagged members means; `unevaluatedProperties: true` admits what is absent
            // admits (and `object` reads it as extension members).
            let allowed = match m.key.as_str() {
                // On a struct, the conditions JSON Schema states with subschemas are checked
                // at run time (`conditions`).
                key if self.is_object_schema(node) && super::conditions::is_bundled(node, key) => {
                    true
                }
                // Elsewhere they are the type's rule `subschema` (`Lowerer::ty_of`, `define`).
                key if !self.is_object_schema(node)
                    && super::conditions::is_value_condition(node, key) =>
                {
                    true
                }
                "not" => keywords::is_tag_exclusion(&m.value),
                "unevaluatedProperties" => m.value.as_bool() == Some(true),
                // A map whose every value has the one pattern's schema: the values are checked,
                // the names are not (noted).
                "patternProperties"
                    if !self.is_object_schema(node) && keywords::pattern_map(node).is_some() =>
                {
                    self.note(
                        m.key_span.0,
                        "member names are not checked against `patternProperties`; each value is read as its pattern's schema".to_owned(),
                    );
                    true
                }
                // Read as the object's `dependent_required` where the schema is a struct's (the
                // entries with a schema are bundled, above).
                "dependentRequired" | "dependencies" => self.is_object_schema(node),
                _ => false,
            };
            if allowed {
                continue;
            }
            match keywords::classify(&m.key) {
                keywords::Keyword::Known => {}
                keywords::Keyword::Unchecked(instead) => self.note(
                    m.key_span.0,
                    format!(
                        "`{}` is not checked by the generated validators; they check {instead}",
                        m.key
                    ),
                ),
                keywords::Keyword::Unknown => self.note(
                    m.key_span.0,
                    format!("`{}` is no JSON Schema keyword and is ignored", m.key),
                ),
            }
        }
    }
}

enum Nullable<'n> {
    Type(&'n str),
    Member(&'n Node),
}

/// The one JSON type a `type` list names besides `null` (`integer` folded into `number`), and
/// whether `null` is listed.
fn single_type(node: &Node) -> Option<(&str, bool)> {
    let names: Vec<&str> = (node.get("type")?.as_array()?.iter())
        .filter_map(Node::as_str)
        .collect();
    let null = names.contains(&"null");
    let mut rest: Vec<&str> = names.into_iter().filter(|n| *n != "null").collect();
    if rest.contains(&"number") {
        rest.retain(|n| *n != "integer");
    }
    match rest.as_slice() {
        [one] => Some((one, null)),
        _ => None,
    }
}

/// `type: [...]` naming every JSON type (`null` aside): any value, whatever else it says.
fn every_type(node: &Node) -> bool {
    let Some(types) = node.get("type").and_then(Node::as_array) else {
        return false;
    };
    let names: Vec<&str> = types.iter().filter_map(Node::as_str).collect();
    ["string", "number", "boolean", "object", "array"]
        .iter()
        .all(|t| names.contains(t))
}

pub(super) fn is_null(node: &Node) -> bool {
    node.get("type").and_then(Node::as_str) == Some("null")
}

/// A string constant (`const`, a one-value `enum`), or the string values of an enum written
/// as `enum: [...]` or as `oneOf`/`anyOf` of documented constants.
pub(super) fn string_values(node: &Node) -> Option<Vec<String>> {
    if let Some(c) = node.get("const") {
        return c.as_str().map(|s| vec![s.to_owned()]);
    }
    if let Some(values) = node.get("enum").and_then(Node::as_array) {
        return values
            .iter()
            .map(|v| v.as_str().map(str::to_owned))
            .collect();
    }
    let members = node
        .get("oneOf")
        .or_else(|| node.get("anyOf"))?
        .as_array()?;
    if members.is_empty() || node.get("properties").is_some() {
        return None;
    }
    // Every member a string constant, or this is no enum.
    members
        .iter()
        .map(|m| m.get("const").and_then(Node::as_str).map(str::to_owned))
        .collect()
}

/// The text of `description`, with the `default` value noted after it.
pub(super) fn doc_of(node: &Node) -> String {
    let mut doc = node
        .get("description")
        .and_then(Node::as_str)
        .unwrap_or_default()
        .trim()
        .to_owned();
    if let Some(default) = node.get("default") {
        if !doc.is_empty() {
            doc.push_str("\n\n");
        }
        doc.push_str(&format!("Default: `{}`.", default.to_value()));
    }
    doc
}

/// `<Parent><Field>` for a member's inline type.
pub(super) fn inline_name(parent: &str, key: &str) -> String {
    format!("{parent}{}", pascal_case(key))
}

/// The rule a draft-04 `minimum`/`maximum` stands for: the exclusive one beside
/// `exclusiveMinimum: true`/`exclusiveMaximum: true`, else itself.
fn draft4_exclusive(source: &Node, rule: Rule) -> Rule {
    let (flag, exclusive) = if *rule == rules::MINIMUM {
        ("exclusiveMinimum", &rules::EXCLUSIVE_MINIMUM)
    } else if *rule == rules::MAXIMUM {
        ("exclusiveMaximum", &rules::EXCLUSIVE_MAXIMUM)
    } else {
        return rule;
    };
    if source.get(flag).and_then(Node::as_bool) == Some(true) {
        exclusive
    } else {
        rule
    }
}

/// A rule keyword's argument, parsed with the wording every front end uses; any `format` is
/// taken (one the validators do not know is carried into the schema and noted by the summary).
fn rule_value(rule: Rule, node: &Node) -> Result<Value, TagError> {
    let written = rule.keyword;
    let text = || node.to_value().to_string();
    match (rule.arg, node.as_f64(), node.as_str()) {
        (Arg::Count, Some(n), _) => rules::count(written, &n.to_string()).map(Value::Count),
        (Arg::Count, None, _) => rules::count(written, &text()).map(Value::Count),
        (Arg::Number, Some(n), _) => Ok(Value::Number(n)),
        (Arg::Number, None, _) => rules::number(written, &text()).map(Value::Number),
        (Arg::Positive, Some(n), _) => rules::positive(written, &n.to_string()).map(Value::Number),
        (Arg::Positive, None, _) => rules::positive(written, &text()).map(Value::Number),
        (Arg::Regex, _, Some(p)) => rules::pattern(written, p).map(|()| Value::Text(p.to_owned())),
        (Arg::Format, _, Some(f)) => Ok(Value::Text(f.to_owned())),
        (Arg::Regex | Arg::Format, _, None) => Err(TagError::new(
            format!("`{written}` needs a string, found `{}`", text()),
            "write the value as a JSON string",
        )),
        (Arg::Schema, ..) => rules::subschema(written, &text()).map(Value::Schema),
        (Arg::KeyLists, ..) => Err(TagError::new(
            format!("`{written}` is read on an object schema, not here"),
            "write it beside the object's `properties`",
        )),
        (Arg::Flag, ..) if node.as_bool() == Some(true) => Ok(Value::Flag),
        (Arg::Flag, ..) => Err(TagError::new(
            format!("`{written}` takes `true`, found `{}`", text()),
            "write `true`, or leave the keyword out",
        )),
    }
}
