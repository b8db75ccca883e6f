//! `interface X extends Y, Z`: the members of the bases, in `extends` order, then X's own; a
//! member X declares again replaces the base's where the base had it. Resolved once every
//! interface is loaded, so a base may be declared after the interface that extends it.
//! `Omit<Y, "a" | "b">` is a base without those members; an intersection `Y & Z & { ... }`
//! reads as an interface extending `Y` and `Z` with the literal's members as its own, and
//! one holding a union distributes over it (`(A | B) & C` is `(A & C) | (B & C)`).

use std::collections::{BTreeSet, HashMap};

use oxc_ast::ast::{TSInterfaceDeclaration, TSType, TSTypeName, TSTypeParameterInstantiation};
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
            let TSTypeName::IdentifierReference(id) = &h.type_name else {
                self.error(
                    h.span,
                    "a qualified base (`extends a.B`) is not supported; extend an interface of this file",
                );
                continue;
            };
            if let Some(base) = self.base(id.name.as_str(), h.type_arguments.as_deref(), h.span) {
                bases.push(base);
            }
        }
        self.push_extends(i.id.name.as_str(), bases);
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
            if !self.declared.contains(name) {
                self.unknown_type(span, name);
                return None;
            }
            return Some(Base {
                name: name.to_owned(),
                span,
                omit: Vec::new(),
            });
        };
        let params: Vec<&TSType<'_>> = args.params.iter().collect();
        if let ("Omit", [TSType::TSTypeReference(r), keys]) = (name, params.as_slice())
            && let TSTypeName::IdentifierReference(id) = &r.type_name
            && let Some(omit) = omitted_keys(keys)
        {
            let mut base = self.base(id.name.as_str(), r.type_arguments.as_deref(), r.span)?;
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
                    let TSTypeName::IdentifierReference(id) = &r.type_name else {
                        self.error(r.span, "qualified type names are not supported");
                        return None;
                    };
                    bases.push(self.base(id.name.as_str(), r.type_arguments.as_deref(), r.span)?);
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
            let TypeKind::Struct(base_fields) = &def.kind else {
                self.error(
                    *span,
                    format!("`{base}` is not an interface; only interfaces can be extended"),
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
