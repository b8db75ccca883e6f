//! A protocol's types as the interpreter reads them: the IR plus what the generated decoders
//! know about each type beforehand (which union members read their own discriminator, which
//! patterns are compiled).

use std::collections::{BTreeMap, BTreeSet};

use agentwire_codegen::emit::{defaults, types as emit_types};
use agentwire_codegen::ir::{Constraints, Protocol, TypeDef, TypeKind};
use agentwire_codegen::rules::{PATTERN, SUBSCHEMA};
use agentwire_runtime::regex::Regex;
use agentwire_runtime::subschema::Schema;

/// The IR of one protocol with its per-type facts computed once.
pub struct Types {
    pub protocol: Protocol,
    /// `(tag, value)` of each union member that reads its own discriminator.
    own_tags: BTreeMap<String, (String, String)>,
    /// Members whose discriminator may be left out (a union's default member).
    tag_optional: BTreeSet<String>,
    /// Every pattern of the spec, compiled, with its source kept for the rule's name.
    patterns: BTreeMap<String, (Regex, &'static str)>,
    /// Every subschema document of the spec (`subschema` rules), compiled, by its text.
    schemas: BTreeMap<String, Schema>,
    /// A protobuf spec's compiled files: its messages are read from their descriptors.
    pub(super) pool: Option<prost_reflect::DescriptorPool>,
}

impl Types {
    /// Prepares `protocol`; `Err` names a pattern that does not compile (the loader refuses
    /// those, so only a hand-built IR gets here).
    pub fn new(protocol: Protocol) -> Result<Types, String> {
        let mut own_tags = BTreeMap::new();
        let mut tag_optional = BTreeSet::new();
        let mut patterns = BTreeMap::new();
        let mut schemas = BTreeMap::new();
        for (name, def) in &protocol.types {
            // A struct's, union's or enum's own rule, or a newtype's among its constraints.
            let documents = std::iter::once(&def.rules)
                .chain(constraints_of(def))
                .filter_map(|c| c.get(&SUBSCHEMA).map(|v| v.to_text()));
            for text in documents {
                let schema = Schema::parse(&text).map_err(|e| e.to_string())?;
                schemas.insert(text, schema);
            }
            if let Some(tag) = emit_types::own_tag(&protocol.types, name) {
                own_tags.insert(name.clone(), tag);
            }
            if defaults::is_default_member(&protocol.types, name) {
                tag_optional.insert(name.clone());
            }
            for c in constraints_of(def) {
                if let Some(p) =
                    (c.text(&PATTERN).map(str::to_owned)).filter(|p| !patterns.contains_key(p))
                {
                    let re = Regex::new(&p).map_err(|e| format!("pattern {p}: {e}"))?;
                    // The rule names its pattern for the life of the program, as the
                    // generated code's literal does; one leak per distinct pattern.
                    let source: &'static str = Box::leak(p.clone().into_boxed_str());
                    patterns.insert(p.clone(), (re, source));
                }
            }
        }
        Ok(Types {
            protocol,
            own_tags,
            tag_optional,
            patterns,
            schemas,
            pool: None,
        })
    }

    pub fn def(&self, name: &str) -> Option<&TypeDef> {
        self.protocol.types.get(name)
    }

    /// The discriminator `name` reads itself when decoded alone.
    pub fn own_tag(&self, name: &str) -> Option<&(String, String)> {
        self.own_tags.get(name)
    }

    pub fn tag_optional(&self, name: &str) -> bool {
        self.tag_optional.contains(name)
    }

    pub fn pattern(&self, source: &str) -> Option<&(Regex, &'static str)> {
        self.patterns.get(source)
    }

    /// The compiled subschema document of a `subschema` rule.
    pub fn schema(&self, text: &str) -> Option<&Schema> {
        self.schemas.get(text)
    }
}

/// Every constraint set a type declares (its fields', or its own as a newtype).
fn constraints_of(def: &TypeDef) -> Vec<&Constraints> {
    match &def.kind {
        TypeKind::Struct(fields) | TypeKind::Oneof { cases: fields, .. } => {
            fields.iter().map(|f| &f.constraints).collect()
        }
        TypeKind::Alias { constraints, .. } => vec![constraints],
        _ => Vec::new(),
    }
}
