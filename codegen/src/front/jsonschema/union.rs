//! `oneOf`/`anyOf` as unions: a property every member fixes to a different string constant
//! (or the one an OpenAPI `discriminator` names) makes a tagged union; without one the union
//! is untagged, its members tried in order. `null` among the members makes the union
//! nullable, and properties beside `oneOf`/`anyOf` belong to every member.

use super::json::Node;
use super::lower::{Lowerer, doc_of, is_null, string_values};
use super::object::Members;
use crate::ir::{Ty, TypeKind, Variant};

/// One member of a union with its merged object members (`None` when it is not an object).
struct Member<'n> {
    node: &'n Node,
    members: Option<Members<'n>>,
}

impl<'f> Lowerer<'f> {
    /// The members of `node` when it is a union (not an enum of constants, and not a lone
    /// schema made nullable, which `ty_of` reads as `T | null`).
    pub(super) fn union_members<'n>(&self, node: &'n Node) -> Option<Vec<&'n Node>> {
        let members = node
            .get("oneOf")
            .or_else(|| node.get("anyOf"))?
            .as_array()?;
        if string_values(node).is_some() || super::keywords::constraint_choice(node, false) {
            return None;
        }
        let non_null = members.iter().filter(|m| !is_null(m)).count();
        if non_null == 1 && members.len() == 2 && node.get("properties").is_none() {
            return None;
        }
        Some(members.iter().collect())
    }

    /// The type named `name` for the union `node` with `members`.
    pub(super) fn union(
        &mut self,
        name: &str,
        node: &Node,
        members: &[&Node],
    ) -> (TypeKind, Option<Ty>) {
        let (nulls, members): (Vec<&Node>, Vec<&Node>) =
            members.iter().copied().partition(|m| is_null(m));
        if !nulls.is_empty() {
            // `A | B | null`: the union without null, named `<Name>Value`, made nullable.
            let inner = format!("{name}Value");
            let (kind, open) = self.union(&inner, node, &members);
            self.put(&inner, node, true, String::new(), kind, open);
            let target = Ty::Nullable(Box::new(Ty::Named(inner)));
            return (
                TypeKind::Alias {
                    target,
                    constraints: Default::default(),
                },
                None,
            );
        }
        if let Some(kind) = self.open_set(name, node, &members) {
            return (kind, None);
        }
        let merged: Vec<Member> = members
            .iter()
            .map(|m| Member {
                node: m,
                // A member that is a union itself distributes (`nested`), never a struct.
                members: match self.nested_inner(node, m) {
                    Some(_) => None,
                    None => self.merged(node, m),
                },
            })
            .collect();
        if let Some(tag) = self.discriminator(node, &merged) {
            return (self.tagged(name, &tag, &merged), None);
        }
        if let [single] = members.as_slice() {
            // One member without a tag (after merging the properties beside it): its type.
            return match self.merged(node, single) {
                // A documented reference (`{title, allOf: [{$ref}]}`) is the type it names.
                Some(m) if m.own.is_empty() && m.additional.is_none() && !m.refs.is_empty() => (
                    TypeKind::Alias {
                        target: Ty::Named(m.refs[0].clone()),
                        constraints: Default::default(),
                    },
                    None,
                ),
                Some(m) => self.struct_of(name, &m, &[]),
                None => {
                    let target = self.ty_of(single, &format!("{name}Value"));
                    (
                        TypeKind::Alias {
                            target,
                            constraints: Default::default(),
                        },
                        None,
                    )
                }
            };
        }
        (TypeKind::Untagged(self.untagged(name, node, &merged)), None)
    }

    /// Constants of one JSON type beside a plain schema of that type (`anyOf: [{const: "a"},
    /// {const: "b"}, {type: "string"}]`): an open set, as TypeScript's `'a' | 'b' | string`.
    /// Strings are an open enum, `<Name>Known` naming the known values; numbers are any
    /// number of the type (the constants only name the known codes).
    fn open_set(&mut self, name: &str, node: &Node, members: &[&Node]) -> Option<TypeKind> {
        let kind_of = |m: &Node| m.get("type").and_then(Node::as_str).map(str::to_owned);
        let (consts, open): (Vec<&Node>, Vec<&Node>) = members
            .iter()
            .copied()
            .partition(|m| m.get("const").is_some());
        let [open] = open.as_slice() else {
            return None;
        };
        let ty = kind_of(open)?;
        let plain = open.members().iter().all(|m| {
            matches!(
                m.key.as_str(),
                "type" | "title" | "description" | "format" | "default" | "examples"
            )
        });
        if consts.is_empty() || !plain || consts.iter().any(|c| kind_of(c).is_some_and(|k| k != ty))
        {
            return None;
        }
        match ty.as_str() {
            "string" => {
                let values: Vec<String> = consts
                    .iter()
                    .map(|c| c.get("const")?.as_str().map(str::to_owned))
                    .collect::<Option<_>>()?;
                let known = format!("{name}Known");
                self.put(
                    &known,
                    node,
                    true,
                    String::new(),
                    TypeKind::Enum(values),
                    None,
                );
                Some(TypeKind::Untagged(vec![Ty::Named(known), Ty::String]))
            }
            "integer" | "number"
                if consts
                    .iter()
                    .all(|c| c.get("const").and_then(Node::as_f64).is_some()) =>
            {
                let target = if ty == "integer" {
                    Ty::Integer
                } else {
                    Ty::Number
                };
                Some(TypeKind::Alias {
                    target,
                    constraints: Default::default(),
                })
            }
            _ => None,
        }
    }

    /// `member` merged with the properties written beside the `oneOf`/`anyOf` (`None` when it
    /// is not an object schema).
    fn merged<'n>(&mut self, base: &'n Node, member: &'n Node) -> Option<Members<'n>>
    where
        'f: 'n,
    {
        let is_object = member.get("properties").is_some()
            || member.get("allOf").is_some()
            || member.get("type").and_then(Node::as_str) == Some("object")
            || self
                .ref_target(member)
                .is_some_and(|(target, _)| self.is_object_schema(target));
        if !is_object || member.get("oneOf").is_some() || member.get("anyOf").is_some() {
            return None;
        }
        // A documented reference to a union (`{title, allOf: [{$ref: U}]}`) is `U`, no struct.
        let union_ref = |part: &Node| {
            self.ref_target(part)
                .is_some_and(|(target, _)| self.union_members(target).is_some())
        };
        if member
            .get("allOf")
            .and_then(Node::as_array)
            .is_some_and(|parts| parts.iter().any(union_ref))
        {
            return None;
        }
        // The member's properties first, then those beside the union: TypeScript's
        // `(A | B) & { c }` reads `A`'s members before `c`.
        let mut out = Members::default();
        let ok = self.collect(member, &mut out, true, 0);
        self.collect_base(base, &mut out);
        ok.then_some(out)
    }

    /// The properties beside a union's `oneOf`/`anyOf`, which every member has.
    fn collect_base<'n>(&mut self, base: &'n Node, out: &mut Members<'n>) {
        for m in base
            .get("properties")
            .map(Node::members)
            .unwrap_or_default()
        {
            // The member's own schema of a key it shares with the base is the more specific.
            if !out.props.iter().any(|(k, _)| *k == m.key) {
                out.props.push((m.key.clone(), &m.value));
            }
            if !out.own.contains(&m.key) {
                out.own.push(m.key.clone());
            }
        }
        for r in base
            .get("required")
            .and_then(Node::as_array)
            .unwrap_or_default()
        {
            out.required.extend(r.as_str().map(str::to_owned));
        }
    }

    /// The property every member requires and fixes to a string constant of its own; an
    /// OpenAPI `discriminator.propertyName` is tried first.
    fn discriminator(&self, node: &Node, members: &[Member]) -> Option<String> {
        let all: Vec<&Members> = members
            .iter()
            .map(|m| m.members.as_ref())
            .collect::<Option<_>>()?;
        let declared = node
            .get("discriminator")
            .and_then(|d| d.get("propertyName"))
            .and_then(Node::as_str)
            .map(str::to_owned);
        let candidates = declared
            .into_iter()
            .chain(all.first()?.props.iter().map(|(k, _)| k.clone()));
        for key in candidates {
            let values: Option<Vec<String>> = all.iter().map(|m| tag_value(m, &key)).collect();
            if let Some(mut values) = values {
                let n = values.len();
                values.sort();
                values.dedup();
                if values.len() == n {
                    return Some(key);
                }
            }
        }
        None
    }

    /// A tagged union: each member is a named struct without the tag field.
    fn tagged(&mut self, name: &str, tag: &str, members: &[Member]) -> TypeKind {
        let mut variants = Vec::new();
        for m in members {
            let Some(merged) = &m.members else { continue };
            let value = tag_value(merged, tag).unwrap_or_default();
            let only_tag = merged.own.iter().all(|k| k == tag);
            let type_name = match merged.refs.as_slice() {
                [one] if only_tag => {
                    self.strip.push((one.clone(), tag.to_owned()));
                    one.clone()
                }
                _ => {
                    let member_name = self.member_name(name, m.node, &value);
                    let (kind, open) = self.struct_of(&member_name, merged, &[tag]);
                    self.put(&member_name, m.node, true, doc_of(m.node), kind, open);
                    member_name
                }
            };
            variants.push(Variant {
                value,
                type_name,
                origin: self.origin(m.node),
                default: false,
                // Set by `lower_all` once the definitions are lowered: whether the referenced
                // one declares the tag.
                beside: false,
            });
        }
        TypeKind::Union {
            tag: tag.to_owned(),
            variants,
        }
    }

    /// Members of an untagged union, in the order serde tries them.
    fn untagged(&mut self, name: &str, node: &Node, members: &[Member]) -> Vec<Ty> {
        let mut out = Vec::new();
        for (i, m) in members.iter().enumerate() {
            let ty = match (&m.members, self.ref_target(m.node)) {
                (Some(merged), Some((_, target))) if merged.own.is_empty() => Ty::Named(target),
                // A documented reference (`{title, allOf: [{$ref}]}`) is the type it names.
                (Some(merged), None)
                    if merged.own.is_empty()
                        && merged.additional.is_none()
                        && !merged.refs.is_empty() =>
                {
                    Ty::Named(merged.refs[0].clone())
                }
                (Some(merged), _) => {
                    // Named after a constant it fixes (`type: "http"`), else its position.
                    let label = merged
                        .props
                        .iter()
                        .find_map(|(k, _)| tag_value(merged, k))
                        .unwrap_or_else(|| format!("{}", i + 1));
                    let member_name = self.member_name(name, m.node, &label);
                    let (kind, open) = self.struct_of(&member_name, merged, &[]);
                    self.put(&member_name, m.node, true, doc_of(m.node), kind, open);
                    Ty::Named(member_name)
                }
                (None, _) => {
                    let context = self.member_name(name, m.node, &format!("{}", i + 1));
                    match self.nested_inner(node, m.node) {
                        Some(inner) => self.nested_member(node, m.node, inner, &context),
                        None => self.ty_of(m.node, &context),
                    }
                }
            };
            if !out.contains(&ty) {
                out.push(ty);
            }
        }
        out
    }

    /// An inline member's type name: `<Union><Title>` when it has a `title`, else
    /// `<Union><Value>`; numbered when a definition or another type has the name already.
    /// (A bare title would put names such as `Result` or `Session` in the module's namespace.)
    fn member_name(&self, union: &str, node: &Node, value: &str) -> String {
        let label = node
            .get("title")
            .and_then(Node::as_str)
            .filter(|t| !crate::naming::pascal_case(t).is_empty())
            .unwrap_or(value);
        let taken = |n: &str| self.defs.contains_key(n) || self.types.contains_key(n);
        crate::naming::inline_type_name(union, label, taken)
    }
}

/// The constant a member fixes `key` to, when it requires the key.
fn tag_value(m: &Members, key: &str) -> Option<String> {
    if !m.required.contains(key) {
        return None;
    }
    let (_, schema) = m.props.iter().rev().find(|(k, _)| k == key)?;
    match string_values(schema)?.as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    }
}
