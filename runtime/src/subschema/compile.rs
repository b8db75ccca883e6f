//! From a subschema document's JSON to its nodes: each schema object once (by its pointer, so
//! a `$ref` and the walk that meets its target share one node, and a recursive `$ref` ends),
//! each keyword into the check it makes. Draft-04 to 07 spellings (`dependencies`, a tuple
//! `items` with `additionalItems`, a boolean `exclusiveMinimum`) are read as well as 2020-12's.
//! A `$ref` may name an anchor (`$anchor`, `$dynamicAnchor`, draft-07's `$id: "#name"`);
//! `$dynamicRef` and 2019-09's `$recursiveRef` resolve statically, to the outermost schema of
//! the document that declares the dynamic anchor (the root for `$recursiveRef`): what they mean
//! when no other document extends this one, as a meta-schema uses them.

use std::collections::HashMap;

use regex::Regex;
use serde_json::{Map, Value};

use super::{Node, Schema};

/// What one keyword checks; schemas are node indices.
#[derive(Debug)]
pub(super) enum Check {
    /// The `false` schema.
    False,
    Ref(usize),
    Type(Vec<String>),
    Enum(Vec<Value>),
    Const(Value),
    Properties(Vec<(String, usize)>),
    PatternProperties(Vec<(Regex, usize)>),
    /// Members neither in `named` nor matching `patterns`.
    Additional {
        named: Vec<String>,
        patterns: Vec<Regex>,
        schema: usize,
    },
    Required(Vec<String>),
    PropertyNames(usize),
    MinProperties(u64),
    MaxProperties(u64),
    DependentRequired(Vec<(String, Vec<String>)>),
    DependentSchemas(Vec<(String, usize)>),
    /// One schema per position (`prefixItems`, a tuple `items`).
    Prefix(Vec<usize>),
    /// The elements from position `from` on.
    Items {
        from: usize,
        schema: usize,
    },
    Contains {
        schema: usize,
        min: u64,
        max: Option<u64>,
    },
    /// Members no adjacent keyword evaluated (`unevaluatedProperties`).
    UnevaluatedProperties(usize),
    /// Elements no adjacent keyword evaluated (`unevaluatedItems`).
    UnevaluatedItems(usize),
    MinItems(u64),
    MaxItems(u64),
    UniqueItems,
    MinLength(u64),
    MaxLength(u64),
    Pattern(Regex, String),
    Format(&'static str),
    Minimum(f64),
    Maximum(f64),
    ExclusiveMinimum(f64),
    ExclusiveMaximum(f64),
    MultipleOf(f64),
    AllOf(Vec<usize>),
    AnyOf(Vec<usize>),
    OneOf(Vec<usize>),
    Not(usize),
    If {
        cond: usize,
        then: Option<usize>,
        otherwise: Option<usize>,
    },
}

/// The formats the validators assert (`crate::formats`); any other is an annotation.
const FORMATS: &[&str] = &["uri", "date-time", "uuid"];

pub(super) struct Compiler<'v> {
    root: &'v Value,
    nodes: Vec<Node>,
    by_pointer: HashMap<String, usize>,
    unread: Vec<String>,
    /// Each anchor's pointer (`$anchor`, draft-07's `$id: "#name"`), the outermost first.
    anchors: HashMap<String, String>,
    /// Each `$dynamicAnchor`'s pointer, the outermost first.
    dynamic: HashMap<String, String>,
}

impl<'v> Compiler<'v> {
    pub(super) fn run(root: &'v Value) -> Schema {
        let mut c = Compiler {
            root,
            nodes: Vec::new(),
            by_pointer: HashMap::new(),
            unread: Vec::new(),
            anchors: HashMap::new(),
            dynamic: HashMap::new(),
        };
        c.find_anchors(root, String::new(), 0);
        c.node(root, String::new());
        Schema {
            nodes: c.nodes,
            unread: c.unread,
        }
    }

    /// The node of the schema `v` at `pointer`, compiled on first sight.
    fn node(&mut self, v: &'v Value, pointer: String) -> usize {
        if let Some(id) = self.by_pointer.get(&pointer) {
            return *id;
        }
        let id = self.nodes.len();
        self.nodes.push(Node::default());
        self.by_pointer.insert(pointer.clone(), id);
        let checks = match v {
            Value::Bool(false) => vec![Check::False],
            Value::Object(o) => self.checks(o, &pointer),
            // `true`, and anything that is no schema, admits every value.
            _ => Vec::new(),
        };
        self.nodes[id].checks = checks;
        id
    }

    /// The node of the member `key` of the schema at `pointer` (a subschema keyword's value).
    fn sub(&mut self, v: &'v Value, pointer: &str, key: &str) -> usize {
        self.node(v, format!("{pointer}/{}", escape(key)))
    }

    fn subs(&mut self, list: &'v [Value], pointer: &str, key: &str) -> Vec<usize> {
        (list.iter().enumerate())
            .map(|(i, s)| self.node(s, format!("{pointer}/{}/{i}", escape(key))))
            .collect()
    }

    fn checks(&mut self, o: &'v Map<String, Value>, at: &str) -> Vec<Check> {
        let mut out = Vec::new();
        // In key order whatever the map keeps (serde_json's `preserve_order` may be on in one
        // build and off in another): errors come in one order everywhere.
        let mut keys: Vec<(&String, &'v Value)> = o.iter().collect();
        keys.sort_by(|a, b| a.0.cmp(b.0));
        for (key, v) in keys {
            if let Some(check) = self.keyword(o, key, v, at) {
                out.push(check);
            }
        }
        out
    }

    /// The check of one keyword of the schema object `o` (at `at`); `None` for annotations,
    /// unknown keywords and values not of the keyword's form.
    fn keyword(
        &mut self,
        o: &'v Map<String, Value>,
        key: &str,
        v: &'v Value,
        at: &str,
    ) -> Option<Check> {
        let count = || v.as_u64();
        let number = || v.as_f64();
        Some(match key {
            "$ref" => Check::Ref(self.reference(v.as_str()?)?),
            "$dynamicRef" => Check::Ref(self.dynamic_reference(v.as_str()?)?),
            "$recursiveRef" if v.as_str() == Some("#") => Check::Ref(0),
            "type" => Check::Type(match v {
                Value::String(t) => vec![t.clone()],
                Value::Array(list) => list
                    .iter()
                    .filter_map(|t| t.as_str().map(str::to_owned))
                    .collect(),
                _ => return None,
            }),
            "enum" => Check::Enum(v.as_array()?.clone()),
            "const" => Check::Const(v.clone()),
            "properties" => Check::Properties(self.members(v.as_object()?, at, key)),
            "patternProperties" => {
                let members = self.members(v.as_object()?, at, key);
                let compiled = (members.into_iter())
                    .filter_map(|(p, id)| Some((self.regex(&p)?, id)))
                    .collect();
                Check::PatternProperties(compiled)
            }
            "additionalProperties" => Check::Additional {
                named: (o.get("properties").and_then(Value::as_object))
                    .map(|p| p.keys().cloned().collect())
                    .unwrap_or_default(),
                patterns: (o.get("patternProperties").and_then(Value::as_object))
                    .map(|p| p.keys().filter_map(|k| Regex::new(k).ok()).collect())
                    .unwrap_or_default(),
                schema: self.sub(v, at, key),
            },
            "required" => Check::Required(strings(v)?),
            "propertyNames" => Check::PropertyNames(self.sub(v, at, key)),
            "minProperties" => Check::MinProperties(count()?),
            "maxProperties" => Check::MaxProperties(count()?),
            "dependentRequired" => Check::DependentRequired(self.dependencies(v, at, key).0),
            "dependentSchemas" => Check::DependentSchemas(self.dependencies(v, at, key).1),
            // Draft-04 to 07: a list is `dependentRequired`, a schema `dependentSchemas`.
            "dependencies" => {
                let (lists, schemas) = self.dependencies(v, at, key);
                let both = [
                    Check::DependentRequired(lists),
                    Check::DependentSchemas(schemas),
                ];
                Check::AllOf(both.into_iter().map(|c| self.synthetic(c)).collect())
            }
            "prefixItems" => Check::Prefix(self.subs(v.as_array()?, at, key)),
            "items" => match v {
                Value::Array(list) => Check::Prefix(self.subs(list, at, key)),
                _ => {
                    let from = (o.get("prefixItems").and_then(Value::as_array)).map_or(0, Vec::len);
                    Check::Items {
                        from,
                        schema: self.sub(v, at, key),
                    }
                }
            },
            // Only beside a tuple `items`.
            "additionalItems" => Check::Items {
                from: o.get("items").and_then(Value::as_array)?.len(),
                schema: self.sub(v, at, key),
            },
            "contains" => Check::Contains {
                schema: self.sub(v, at, key),
                min: o.get("minContains").and_then(Value::as_u64).unwrap_or(1),
                max: o.get("maxContains").and_then(Value::as_u64),
            },
            "unevaluatedProperties" => Check::UnevaluatedProperties(self.sub(v, at, key)),
            "unevaluatedItems" => Check::UnevaluatedItems(self.sub(v, at, key)),
            "minItems" => Check::MinItems(count()?),
            "maxItems" => Check::MaxItems(count()?),
            "uniqueItems" if v.as_bool() == Some(true) => Check::UniqueItems,
            "minLength" => Check::MinLength(count()?),
            "maxLength" => Check::MaxLength(count()?),
            "pattern" => {
                let source = v.as_str()?;
                Check::Pattern(self.regex(source)?, source.to_owned())
            }
            "format" => Check::Format(FORMATS.iter().find(|f| Some(**f) == v.as_str())?),
            "minimum" if o.get("exclusiveMinimum") == Some(&Value::Bool(true)) => {
                Check::ExclusiveMinimum(number()?)
            }
            "maximum" if o.get("exclusiveMaximum") == Some(&Value::Bool(true)) => {
                Check::ExclusiveMaximum(number()?)
            }
            "minimum" => Check::Minimum(number()?),
            "maximum" => Check::Maximum(number()?),
            "exclusiveMinimum" => Check::ExclusiveMinimum(number()?),
            "exclusiveMaximum" => Check::ExclusiveMaximum(number()?),
            "multipleOf" => Check::MultipleOf(number().filter(|n| *n > 0.0)?),
            "allOf" => Check::AllOf(self.subs(v.as_array()?, at, key)),
            "anyOf" => Check::AnyOf(self.subs(v.as_array()?, at, key)),
            "oneOf" => Check::OneOf(self.subs(v.as_array()?, at, key)),
            "not" => Check::Not(self.sub(v, at, key)),
            "if" => Check::If {
                cond: self.sub(v, at, key),
                then: o.get("then").map(|t| self.sub(t, at, "then")),
                otherwise: o.get("else").map(|e| self.sub(e, at, "else")),
            },
            _ => return None,
        })
    }

    /// Each member of a keyword whose members are schemas (`properties`), with its node.
    fn members(&mut self, o: &'v Map<String, Value>, at: &str, key: &str) -> Vec<(String, usize)> {
        let base = format!("{at}/{}", escape(key));
        let mut out: Vec<(String, usize)> = (o.iter())
            .map(|(name, s)| (name.clone(), self.sub(s, &base, name)))
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    /// The entries of `dependencies`-like keyword: those listing names, and those with a schema.
    #[allow(clippy::type_complexity)]
    fn dependencies(
        &mut self,
        v: &'v Value,
        at: &str,
        key: &str,
    ) -> (Vec<(String, Vec<String>)>, Vec<(String, usize)>) {
        let Some(o) = v.as_object() else {
            return Default::default();
        };
        let base = format!("{at}/{}", escape(key));
        let mut lists = Vec::new();
        let mut schemas = Vec::new();
        for (name, entry) in o {
            match strings(entry) {
                Some(needs) if entry.is_array() => lists.push((name.clone(), needs)),
                _ => schemas.push((name.clone(), self.sub(entry, &base, name))),
            }
        }
        (lists, schemas)
    }

    /// A node holding one check, for a keyword that stands for two (`dependencies`).
    fn synthetic(&mut self, check: Check) -> usize {
        self.nodes.push(Node {
            checks: vec![check],
        });
        self.nodes.len() - 1
    }

    /// The node a `$ref` names: a JSON pointer into this document (`#`, `#/$defs/X`) or an
    /// anchor of it (`#name`). Any other reference (another document) is unknown here and
    /// checks nothing.
    fn reference(&mut self, text: &str) -> Option<usize> {
        let fragment = percent_decode(text.strip_prefix('#')?);
        let pointer = match fragment.as_str() {
            "" => String::new(),
            p if p.starts_with('/') => fragment,
            name => (self.anchors.get(name).or_else(|| self.dynamic.get(name)))?.clone(),
        };
        let target = self.root.pointer(&pointer)?;
        Some(self.node(target, pointer))
    }

    /// The node a `$dynamicRef` names: the outermost schema declaring its dynamic anchor, else
    /// what the same text names as a `$ref` (2020-12's rule for an anchor that is not dynamic).
    fn dynamic_reference(&mut self, text: &str) -> Option<usize> {
        let name = text.strip_prefix('#').map(percent_decode);
        match name.and_then(|n| self.dynamic.get(&n).cloned()) {
            Some(pointer) => {
                let target = self.root.pointer(&pointer)?;
                Some(self.node(target, pointer))
            }
            None => self.reference(text),
        }
    }

    /// Records the anchors of the schema `v` at `pointer` and below, the outermost kept where
    /// a name is declared twice.
    fn find_anchors(&mut self, v: &Value, pointer: String, depth: usize) {
        if depth > 128 {
            return;
        }
        match v {
            Value::Object(o) => {
                let anchor = (o.get("$anchor").and_then(Value::as_str))
                    .or_else(|| o.get("$id").and_then(Value::as_str)?.strip_prefix('#'))
                    .or_else(|| o.get("id").and_then(Value::as_str)?.strip_prefix('#'));
                if let Some(name) = anchor.filter(|n| !n.is_empty() && !n.starts_with('/')) {
                    outermost(&mut self.anchors, name, &pointer);
                }
                if let Some(name) = o.get("$dynamicAnchor").and_then(Value::as_str) {
                    outermost(&mut self.dynamic, name, &pointer);
                }
                let mut keys: Vec<&String> = o.keys().collect();
                keys.sort();
                for k in keys {
                    // `enum`/`const`/`examples` hold values, not schemas.
                    if matches!(k.as_str(), "enum" | "const" | "examples" | "default") {
                        continue;
                    }
                    self.find_anchors(&o[k], format!("{pointer}/{}", escape(k)), depth + 1);
                }
            }
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    self.find_anchors(item, format!("{pointer}/{i}"), depth + 1);
                }
            }
            _ => {}
        }
    }

    fn regex(&mut self, source: &str) -> Option<Regex> {
        match Regex::new(source) {
            Ok(re) => Some(re),
            Err(_) => {
                if !self.unread.iter().any(|u| u == source) {
                    self.unread.push(source.to_owned());
                }
                None
            }
        }
    }
}

/// Keeps `pointer` for the anchor `name` unless a schema nearer the root declares it.
fn outermost(anchors: &mut HashMap<String, String>, name: &str, pointer: &str) {
    let depth = |p: &str| p.matches('/').count();
    match anchors.get(name) {
        Some(kept) if depth(kept) <= depth(pointer) => {}
        _ => {
            anchors.insert(name.to_owned(), pointer.to_owned());
        }
    }
}

/// A list of strings (`required`, a dependency's names).
fn strings(v: &Value) -> Option<Vec<String>> {
    (v.as_array()?.iter())
        .map(|s| s.as_str().map(str::to_owned))
        .collect()
}

/// A JSON pointer segment (RFC 6901).
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// A URI fragment's `%XX` escapes decoded (a `$ref` to `#/$defs/a%20b`).
fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_owned();
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
