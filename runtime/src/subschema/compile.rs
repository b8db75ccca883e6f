//! From a subschema document's JSON to its nodes: each schema object once (by its pointer, so
//! a `$ref` and the walk that meets its target share one node, and a recursive `$ref` ends),
//! each keyword into the check it makes. Draft-04 to 07 spellings (`dependencies`, a tuple
//! `items` with `additionalItems`, a boolean `exclusiveMinimum`) are read as well as 2020-12's.

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
}

impl<'v> Compiler<'v> {
    pub(super) fn run(root: &'v Value) -> Schema {
        let mut c = Compiler {
            root,
            nodes: Vec::new(),
            by_pointer: HashMap::new(),
            unread: Vec::new(),
        };
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

    /// The node a `$ref` names: a JSON pointer into this document (`#`, `#/$defs/X`). Any
    /// other reference (another document, an anchor) is unknown here and checks nothing.
    fn reference(&mut self, text: &str) -> Option<usize> {
        let pointer = text.strip_prefix('#')?;
        let pointer = percent_decode(pointer);
        let target = self.root.pointer(&pointer)?;
        Some(self.node(target, pointer))
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
