//! A decoded value's JSON form as the generated code writes it back, for the rules that read
//! a whole value (`dependent_required`, `subschema`): a closed struct's undeclared members are
//! gone, as its decoder skipped them, and an optional member given as `null` is absent.

use agentwire_codegen::ir::{Ty, TypeKind};
use serde_json::Value;

use super::node::Node;
use super::types::Types;

impl Types {
    /// `node`, decoded as `ty`, written back as JSON.
    pub fn encoded(&self, ty: &Ty, node: &Node) -> Value {
        match (ty, node) {
            (Ty::Nullable(inner), _) if *node != Node::Null => self.encoded(inner, node),
            (Ty::Array(inner), Node::Arr(items)) => {
                Value::Array(items.iter().map(|i| self.encoded(inner, i)).collect())
            }
            (Ty::Map(inner), Node::Obj(members)) => (members.iter())
                .map(|(k, v)| (k.clone(), self.encoded(inner, v)))
                .collect(),
            (Ty::Named(name), _) => self.encoded_named(name, node),
            _ => node.to_value(),
        }
    }

    fn encoded_named(&self, name: &str, node: &Node) -> Value {
        let Some(def) = self.def(name) else {
            return node.to_value();
        };
        match (&def.kind, node) {
            (TypeKind::Alias { target, .. }, _) => self.encoded(target, node),
            // The variant's body as its struct writes it, the tag first.
            (TypeKind::Union { tag, variants }, Node::Obj(members)) => {
                let Ok(v) = self.union_variant(tag, variants, members, &Default::default()) else {
                    return node.to_value();
                };
                let rest: Vec<(String, Node)> =
                    members.iter().filter(|(k, _)| k != tag).cloned().collect();
                let mut out = serde_json::Map::new();
                out.insert(tag.clone(), Value::String(v.value.clone()));
                if let Value::Object(body) = self.encoded_named(&v.type_name, &Node::Obj(rest)) {
                    out.extend(body);
                }
                Value::Object(out)
            }
            (TypeKind::Untagged(members), _) => match self.untagged_member(members, node) {
                Some(ty) => self.encoded(ty, node),
                None => node.to_value(),
            },
            (TypeKind::Struct(fields), Node::Obj(members)) => {
                let tag = self.own_tag(name).map(|(t, _)| t.as_str());
                let kept = members.iter().filter_map(|(k, v)| {
                    let value = match fields.iter().find(|f| f.name == *k) {
                        // `null` for an optional member that is no nullable type: `None`.
                        Some(f)
                            if f.optional
                                && *v == Node::Null
                                && !matches!(f.ty, Ty::Nullable(_) | Ty::Any) =>
                        {
                            return None;
                        }
                        Some(f) => self.encoded(&f.ty, v),
                        None if tag == Some(k.as_str()) => v.to_value(),
                        None => self.encoded(def.open.as_ref()?, v),
                    };
                    Some((k.clone(), value))
                });
                Value::Object(kept.collect())
            }
            _ => node.to_value(),
        }
    }
}
