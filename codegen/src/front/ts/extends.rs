//! `interface X extends Y, Z`: the members of the bases, in `extends` order, then X's own; a
//! member X declares again replaces the base's where the base had it. Resolved once every
//! interface is loaded, so a base may be declared after the interface that extends it.
//! `Omit<Y, "a" | "b">` is a base without those members; an intersection `Y & Z & { ... }`
//! reads as an interface extending `Y` and `Z` with the literal's members as its own, and
//! one holding a union distributes over it (`(A | B) & C` is `(A & C) | (B & C)`).

use std::collections::{BTreeSet, HashMap};

use oxc_ast::ast::{TSInterfaceDeclaration, TSType, TSTypeParameterInstantiation};
use oxc_span::{GetSpan, Span};

use super::{Loader, single_string_literal, strip_parens};
use crate::ir::{Field, TypeKind};

/// An interface's bases, as written.
pub(super) struct Extends {
    pub name: String,
    pub bases: Vec<Base>,
}

/// One base: an interface, less the members `Omit` names.
#[derive(Clone)]
pub(super) struct Base {
    pub name: String,
    pub span: Span,
    pub omit: Vec<String>,
}

impl Loader<'_> {
    /// Records the bases of `i`; an unsupported base is reported and left out.
    pub(super) fn record_extends(&mut self, i: &TSInterfaceDeclaration<'_>) {
        let mut bases = Vec::new();
        for h in &i.extends {
            let Some(name) = super::scope::dotted(&h.type_name) else {
                self.error(
                    h.span,
                    "`extends this` is not supported; extend an interface",
                );
                continue;
            };
            if let Some(base) = self.base(&name, h.type_arguments.as_deref(), h.span) {
                bases.push(base);
            }
        }
        let name = self.ir_name(i.id.name.as_str());
        self.push_extends(&name, bases);
    }

    pub(super) fn push_extends(&mut self, name: &str, bases: Vec<Base>) {
        if !bases.is_empty() {
            self.extends.push(Extends {
                name: name.to_owned(),
                bases,
            });
        }
    }

    /// The base `name<args>` names: an interface of this file, or `Omit` of one.
    fn base(
        &mut self,
        name: &str,
        args: Option<&TSTypeParameterInstantiation<'_>>,
        span: Span,
    ) -> Option<Base> {
        let Some(args) = args else {
            let Some(name) = self.resolve(name) else {
                self.unknown_type(span, name);
                return None;
            };
            return Some(Base {
                name,
                span,
                omit: Vec::new(),
            });
        };
        let params: Vec<&TSType<'_>> = args.params.iter().collect();
        if let ("Omit", [TSType::TSTypeReference(r), keys]) = (name, params.as_slice())
            && let Some(base_name) = super::scope::dotted(&r.type_name)
            && let Some(omit) = omitted_keys(keys)
        {
            let mut base = self.base(&base_name, r.type_arguments.as_deref(), r.span)?;
            base.omit.extend(omit);
            base.span = span;
            return Some(base);
        }
        self.error(
            span,
            "extending a generic type is not supported (only `Omit<Interface, \"key\" | ...>` is read); extend an interface that spells out its members",
        );
        None
    }

    /// The bases of an intersection `A & Omit<B, "k"> & { ... }`, and its object literals.
    pub(super) fn intersection_bases<'r, 'a>(
        &mut self,
        types: &[&'r TSType<'a>],
    ) -> Option<(Vec<Base>, Vec<&'r oxc_ast::ast::TSTypeLiteral<'a>>)> {
        let mut bases = Vec::new();
        let mut literals = Vec::new();
        for t in types {
            match strip_parens(t) {
                TSType::TSTypeReference(r) => {
                    let Some(name) = super::scope::dotted(&r.type_name) else {
                        self.error(r.span, super::refusals::QUALIFIED);
                        return None;
                    };
                    bases.push(self.base(&name, r.type_arguments.as_deref(), r.span)?);
                }
                TSType::TSTypeLiteral(l) => literals.push(&**l),
                other => {
                    self.error(
                        other.span(),
                        "an intersection may join only interfaces, `Omit<...>` of one and object literals; write an interface that extends them",
                    );
                    return None;
                }
            }
        }
        Some((bases, literals))
    }

    /// Gives every extending interface the members of its bases.
    pub(super) fn resolve_extends(&mut self) {
        self.distribute_union_bases();
        let pending: HashMap<String, Vec<Base>> = std::mem::take(&mut self.extends)
            .into_iter()
            .map(|e| (e.name, e.bases))
            .collect();
        let mut done = BTreeSet::new();
        let mut names: Vec<&String> = pending.keys().collect();
        names.sort();
        for name in names {
            self.flatten(name, &pending, &mut done, &mut Vec::new());
        }
    }

    /// Flattens `name` after its bases; `path` holds the interfaces being flattened, to
    /// report a cycle instead of recursing forever.
    fn flatten(
        &mut self,
        name: &str,
        pending: &HashMap<String, Vec<Base>>,
        done: &mut BTreeSet<String>,
        path: &mut Vec<String>,
    ) {
        let Some(bases) = pending.get(name) else {
            return;
        };
        if done.contains(name) {
            return;
        }
        if path.iter().any(|p| p == name) {
            let span = bases[0].span;
            self.error(span, format!("`{name}` extends itself"));
            done.insert(name.to_owned());
            return;
        }
        path.push(name.to_owned());
        for base in bases {
            self.flatten(&base.name, pending, done, path);
        }
        path.pop();
        done.insert(name.to_owned());
        let own_names: BTreeSet<String> = match self.types.get(name).map(|t| &t.kind) {
            Some(TypeKind::Struct(own)) => own.iter().map(|f| f.name.clone()).collect(),
            _ => BTreeSet::new(),
        };
        let mut fields: Vec<Field> = Vec::new();
        let mut open = None;
        for Base {
            name: base,
            span,
            omit,
        } in bases
        {
            let Some(def) = self.types.get(base) else {
                continue;
            };
            // `interface X extends M` where `type M = Record<string, T>` (or
            // `{ [key: string]: T }`): X inherits the index signature, as TypeScript reads it.
            if let TypeKind::Alias {
                target: crate::ir::Ty::Map(value),
                ..
            } = &def.kind
            {
                open = open.or_else(|| Some((**value).clone()));
                continue;
            }
            let TypeKind::Struct(base_fields) = &def.kind else {
                self.error(
                    *span,
                    format!(
                        "`{base}` is not an interface; only interfaces can be extended: extend the interface it names, or write its members out"
                    ),
                );
                continue;
            };
            // An index signature is inherited, as TypeScript does.
            open = open.or_else(|| def.open.clone());
            for f in base_fields.clone() {
                if omit.contains(&f.name) {
                    continue;
                }
                // An inherited literal member can be a discriminator of the extending
                // interface too, unless the interface declares that member itself.
                let inherited = self
                    .literal_fields
                    .get(&(base.clone(), f.name.clone()))
                    .cloned();
                if let Some(lit) = inherited
                    && !own_names.contains(&f.name)
                {
                    self.literal_fields
                        .insert((name.to_owned(), f.name.clone()), lit);
                    self.inherited.insert((name.to_owned(), f.name.clone()));
                }
                match fields.iter_mut().find(|x| x.name == f.name) {
                    // Two bases with the same member: the later one wins, as in TypeScript
                    // where both must agree anyway.
                    Some(slot) => *slot = f,
                    None => fields.push(f),
                }
            }
        }
        self.set_inherited(name, fields, open);
    }

    /// Gives `name` the members `fields` its bases hand down, its own after them (an own
    /// member replaces an inherited one of its name), and their index signature unless it
    /// has one.
    fn set_inherited(&mut self, name: &str, mut fields: Vec<Field>, open: Option<crate::ir::Ty>) {
        let Some(def) = self.types.get_mut(name) else {
            return;
        };
        if def.open.is_none() {
            def.open = open;
        }
        let TypeKind::Struct(own) = &mut def.kind else {
            return;
        };
        for f in std::mem::take(own) {
            match fields.iter_mut().find(|x| x.name == f.name) {
                Some(slot) => *slot = f,
                None => fields.push(f),
            }
        }
        *own = fields;
    }
}

impl Loader<'_> {
    /// An intersection with a type alias of a union (`type F = (A | B) & { c: T }` and then
    /// `type X = F & { d: U }`) distributes over the alias's members as over a union written
    /// in place: `X` becomes the union of `X1` (`F1 & { d: U }`), `X2`, ..., each with X's own
    /// members. Repeated until no base names a union, so aliases of aliases distribute too.
    fn distribute_union_bases(&mut self) {
        // Each round replaces at least one base by the members of a union it names, and a
        // union's members are never the union itself: bounded by the depth of nesting.
        for _ in 0..64 {
            let mut changed = false;
            for e in std::mem::take(&mut self.extends) {
                match self.union_base(&e) {
                    Some((k, members)) => {
                        self.distribute(e, k, members);
                        changed = true;
                    }
                    None => self.extends.push(e),
                }
            }
            if !changed {
                return;
            }
        }
    }

    /// The first base of `e` that names a union still to be resolved, with its members;
    /// a union whose members fix their tag beside a type (`tagged_refs`) is not distributed.
    fn union_base(&self, e: &Extends) -> Option<(usize, Vec<(String, Span)>)> {
        e.bases.iter().enumerate().find_map(|(k, b)| {
            let u = self.unions.iter().find(|u| u.name == b.name)?;
            (u.fixed.is_empty() && u.members.len() > 1 && b.omit.is_empty())
                .then(|| (k, u.members.clone()))
        })
    }

    /// Replaces the extending type of `e` by the union of its copies, one per member of the
    /// union its base `k` names.
    fn distribute(&mut self, e: Extends, k: usize, members: Vec<(String, Span)>) {
        let Some(def) = self.types.get(&e.name).cloned() else {
            return;
        };
        let mut names = Vec::new();
        for (j, (member, span)) in members.into_iter().enumerate() {
            let name = format!("{}{}", e.name, j + 1);
            if self.types.contains_key(&name) {
                self.error(
                    span,
                    format!("the generated type name `{name}` clashes with another type"),
                );
                return;
            }
            let mut copy = def.clone();
            copy.name = name.clone();
            copy.inline = true;
            copy.doc = String::new();
            self.types.insert(name.clone(), copy);
            // The literal members the copy declares, as the original declares them.
            let literals: Vec<(String, String)> = self
                .literal_fields
                .iter()
                .filter(|((owner, _), _)| *owner == e.name)
                .map(|((_, field), value)| (field.clone(), value.clone()))
                .collect();
            for (field, value) in literals {
                self.literal_fields.insert((name.clone(), field), value);
            }
            let mut bases = e.bases.clone();
            bases[k] = Base {
                name: member,
                span,
                omit: Vec::new(),
            };
            self.extends.push(Extends {
                name: name.clone(),
                bases,
            });
            names.push((name, span));
        }
        if let Some(def) = self.types.get_mut(&e.name) {
            def.kind = TypeKind::Union {
                tag: String::new(),
                variants: Vec::new(),
            };
            def.open = None;
        }
        self.unions.push(super::PendingUnion {
            name: e.name,
            members: names,
            constraints: Default::default(),
            fixed: HashMap::new(),
        });
    }
}

/// The keys of `Omit`'s second argument: one string literal or a union of them.
fn omitted_keys(t: &TSType<'_>) -> Option<Vec<String>> {
    match strip_parens(t) {
        TSType::TSUnionType(u) => u
            .types
            .iter()
            .map(|t| single_string_literal(t).map(str::to_owned))
            .collect(),
        other => single_string_literal(other).map(|k| vec![k.to_owned()]),
    }
}
