//! `interface X extends Y, Z`: the members of the bases, in `extends` order, then X's own; a
//! member X declares again replaces the base's where the base had it. Resolved once every
//! interface is loaded, so a base may be declared after the interface that extends it.

use std::collections::{BTreeSet, HashMap};

use oxc_ast::ast::{TSInterfaceDeclaration, TSTypeName};
use oxc_span::Span;

use super::Loader;
use crate::ir::{Field, TypeKind};

/// An interface's bases, as written.
pub(super) struct Extends {
    pub name: String,
    pub bases: Vec<(String, Span)>,
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
            if h.type_arguments.is_some() {
                self.error(
                    h.span,
                    "extending a generic type is not supported; extend an interface that spells out its members",
                );
                continue;
            }
            let base = id.name.as_str().to_owned();
            if !self.declared.contains(&base) {
                self.error(h.span, format!("unknown type `{base}`"));
                continue;
            }
            bases.push((base, h.span));
        }
        if !bases.is_empty() {
            self.extends.push(Extends {
                name: i.id.name.as_str().to_owned(),
                bases,
            });
        }
    }

    /// Gives every extending interface the members of its bases.
    pub(super) fn resolve_extends(&mut self) {
        let pending: HashMap<String, Vec<(String, Span)>> = std::mem::take(&mut self.extends)
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
        pending: &HashMap<String, Vec<(String, Span)>>,
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
            let span = bases[0].1;
            self.error(span, format!("`{name}` extends itself"));
            done.insert(name.to_owned());
            return;
        }
        path.push(name.to_owned());
        for (base, _) in bases {
            self.flatten(base, pending, done, path);
        }
        path.pop();
        done.insert(name.to_owned());
        let own_names: BTreeSet<String> = match self.types.get(name).map(|t| &t.kind) {
            Some(TypeKind::Struct(own)) => own.iter().map(|f| f.name.clone()).collect(),
            _ => BTreeSet::new(),
        };
        let mut fields: Vec<Field> = Vec::new();
        for (base, span) in bases {
            let Some(TypeKind::Struct(base_fields)) = self.types.get(base).map(|t| &t.kind) else {
                self.error(
                    *span,
                    format!("`{base}` is not an interface; only interfaces can be extended"),
                );
                continue;
            };
            for f in base_fields.clone() {
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
        let Some(TypeKind::Struct(own)) = self.types.get_mut(name).map(|t| &mut t.kind) else {
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
