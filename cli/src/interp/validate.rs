//! The constraint pass over a decoded value: every rule the generated `Validate` impls check
//! (fields in declaration order, then an open struct's extra members), reported through the
//! runtime's own rule functions so names and wording are the generated code's.

use agentwire_codegen::ir::{Constraints, Field, Ty, TypeKind};
use agentwire_codegen::rules::{Check, Shape, Subject, Value};
use agentwire_runtime::validate as runtime_rules;
use agentwire_runtime::{FieldError, JsonPointer};

use super::node::Node;
use super::types::Types;

type Errors = Vec<FieldError>;

impl Types {
    /// Appends every constraint `node` (which decodes as `ty`) breaks.
    pub fn validate(
        &self,
        ty: &Ty,
        c: &Constraints,
        node: &Node,
        at: &mut JsonPointer,
        errors: &mut Errors,
    ) {
        match (ty, node) {
            (Ty::Nullable(_), Node::Null) => {}
            (Ty::Nullable(inner), _) => self.validate(inner, c, node, at, errors),
            (Ty::String, Node::Str(s)) => self.rules(c, Shape::Text, Subject::Text(s), at, errors),
            (Ty::Number | Ty::Integer, Node::Num(n)) => {
                self.rules(c, Shape::Number, Subject::Number(n.as_f64()), at, errors);
            }
            (Ty::Array(inner), Node::Arr(items)) => {
                // The list rules see the elements as JSON (`unique_items` compares them).
                if c.iter().any(|(r, _)| r.shape == Shape::List) {
                    let values: Vec<serde_json::Value> = items.iter().map(Node::to_value).collect();
                    self.rules(c, Shape::List, Subject::Items(&values), at, errors);
                }
                let element = c.without(Shape::List);
                for (i, item) in items.iter().enumerate() {
                    at.with_index(i, |at| self.validate(inner, &element, item, at, errors));
                }
            }
            (Ty::Map(inner), Node::Obj(members)) => {
                // A map decodes into a `BTreeMap`: its values are walked in key order.
                let mut sorted: Vec<&(String, Node)> = members.iter().collect();
                sorted.sort_by(|a, b| a.0.cmp(&b.0));
                let element = c.without(Shape::List);
                for (k, v) in sorted {
                    at.with(k, |at| self.validate(inner, &element, v, at, errors));
                }
            }
            (Ty::Named(name), _) => self.validate_named(name, node, at, errors),
            _ => {}
        }
    }

    /// The rules of `shape` in `c` on `subject`, each through its runtime function (the rule
    /// table's `run`), a string's on the trimmed value under `@trim`.
    pub(super) fn rules(
        &self,
        c: &Constraints,
        shape: Shape,
        mut subject: Subject<'_>,
        at: &JsonPointer,
        errors: &mut Errors,
    ) {
        for (rule, v) in c.iter().filter(|(r, _)| r.shape == shape) {
            match (rule.check, subject, v) {
                (Check::Trim, Subject::Text(s), _) => subject = Subject::Text(s.trim()),
                (Check::Pattern, Subject::Text(s), Value::Text(p)) => {
                    if let Some((re, source)) = self.pattern(p) {
                        runtime_rules::pattern(s, re, source, at, errors);
                    }
                }
                (Check::Call { run, .. }, ..) => run(subject, v, at, errors),
                (Check::Schema, Subject::Object(whole), Value::Schema(text)) => {
                    if let Some(schema) = self.schema(text) {
                        schema.check_value(whole, &mut at.clone(), errors);
                    }
                }
                _ => {}
            }
        }
        if let (Subject::Text(s), false) = (subject, c.not_one_of.is_empty()) {
            let owned: Vec<&str> = c.not_one_of.iter().map(String::as_str).collect();
            runtime_rules::not_one_of(s, &owned, at, errors);
        }
    }

    /// The rules of a value of the named type.
    pub fn validate_named(
        &self,
        name: &str,
        node: &Node,
        at: &mut JsonPointer,
        errors: &mut Errors,
    ) {
        let Some(def) = self.def(name) else { return };
        match &def.kind {
            TypeKind::Struct(fields) => {
                if let Node::Obj(members) = node {
                    let skip = self.own_tag(name).map(|(tag, _)| tag.as_str());
                    let open = def.open.as_ref().map(|ty| (ty, skip));
                    self.validate_struct(fields, open, members, at, errors);
                    if !def.rules.is_empty() {
                        // The object as the generated code writes it back (its JSON form is
                        // what the generated rule reads), with the members a closed struct
                        // with conditions skipped put back as sent.
                        let mut whole = self.encoded(&Ty::Named(name.to_owned()), node);
                        if let (true, serde_json::Value::Object(o)) =
                            (def.keeps_undeclared(), &mut whole)
                        {
                            let skip = self.own_tag(name).map(|(tag, _)| tag.as_str());
                            for (k, v) in members {
                                let declared = fields.iter().any(|f| f.name == *k);
                                if !declared && skip != Some(k.as_str()) {
                                    o.entry(k.clone()).or_insert_with(|| v.to_value());
                                }
                            }
                        }
                        self.rules(
                            &def.rules,
                            Shape::Object,
                            Subject::Object(&whole),
                            at,
                            errors,
                        );
                    }
                }
            }
            TypeKind::Union { tag, variants } => {
                let Node::Obj(members) = node else { return };
                if let Ok(v) = self.union_variant(tag, variants, members, at) {
                    let rest: Vec<(String, Node)> =
                        members.iter().filter(|(k, _)| k != tag).cloned().collect();
                    self.validate_named(&v.type_name, &Node::Obj(rest), at, errors);
                }
                self.whole(name, &def.rules, node, at, errors);
            }
            TypeKind::Untagged(members) => {
                if let Some(ty) = self.untagged_member(members, node) {
                    self.validate(ty, &Constraints::default(), node, at, errors);
                }
                self.whole(name, &def.rules, node, at, errors);
            }
            TypeKind::Alias {
                target,
                constraints,
            } => {
                let own = constraints.without(Shape::Object);
                self.validate(target, &own, node, at, errors);
                self.whole(name, constraints, node, at, errors);
            }
            TypeKind::Enum(_) => self.whole(name, &def.rules, node, at, errors),
            TypeKind::Oneof { .. } => {}
        }
    }

    /// The rules in `c` on a value of the named type as a whole (`subschema`), on its JSON
    /// form as the generated code writes it back.
    fn whole(
        &self,
        name: &str,
        c: &Constraints,
        node: &Node,
        at: &JsonPointer,
        errors: &mut Errors,
    ) {
        if c.only(Shape::Object).is_empty() {
            return;
        }
        let whole = self.encoded(&Ty::Named(name.to_owned()), node);
        self.rules(c, Shape::Object, Subject::Object(&whole), at, errors);
    }

    fn validate_struct(
        &self,
        fields: &[Field],
        open: Option<(&Ty, Option<&str>)>,
        members: &[(String, Node)],
        at: &mut JsonPointer,
        errors: &mut Errors,
    ) {
        let get = |key: &str| members.iter().find(|(k, _)| k == key).map(|(_, v)| v);
        for f in fields {
            if let Some(v) = get(&f.name) {
                at.with(&f.name, |at| {
                    self.validate(&f.ty, &f.constraints, v, at, errors)
                });
            }
        }
        // An open struct's extra members, but not the discriminator it reads itself.
        let Some((ty, tag)) = open else { return };
        for (k, v) in members {
            if !fields.iter().any(|f| f.name == *k) && tag != Some(k.as_str()) {
                at.with(k, |at| {
                    self.validate(ty, &Constraints::default(), v, at, errors)
                });
            }
        }
    }
}
