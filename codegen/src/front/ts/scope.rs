//! Namespaces (`namespace Ns { ... }`, `declare module Ns { ... }`, as Stainless and
//! vscode-debugprotocol write them) and qualified names (`Ns.Type`, `Enum.Member`). A
//! declaration inside a namespace is the type named by the namespace path and its own name run
//! together (`Ns.Type` is `NsType`); a name is looked up from the innermost enclosing namespace
//! outwards, as TypeScript resolves it.

use oxc_ast::ast::{TSType, TSTypeName};
use oxc_span::Span;

use super::enums::Member;
use super::{Loader, strip_parens};
use crate::ir::Ty;

/// The dotted text of a type name: `Type`, `Ns.Type`, `Outer.Inner.Type`.
pub(super) fn dotted(name: &TSTypeName<'_>) -> Option<String> {
    match name {
        TSTypeName::IdentifierReference(id) => Some(id.name.as_str().to_owned()),
        TSTypeName::QualifiedName(q) => Some(format!("{}.{}", dotted(&q.left)?, q.right.name)),
        TSTypeName::ThisExpression(_) => None,
    }
}

impl Loader<'_> {
    /// The type name of a declaration `name` of the namespace being read.
    pub(super) fn ir_name(&self, name: &str) -> String {
        format!("{}{name}", self.scope.concat())
    }

    /// Records the declaration `name` of the namespace path `scope`; its type name.
    pub(super) fn declare(&mut self, scope: &[String], name: &str) -> String {
        let ir = format!("{}{name}", scope.concat());
        let mut path = scope.to_vec();
        path.push(name.to_owned());
        self.qualified.insert(path.join("."), ir.clone());
        ir
    }

    /// The type a (dotted) name written in the namespace being read refers to.
    pub(super) fn resolve(&self, name: &str) -> Option<String> {
        (0..=self.scope.len()).rev().find_map(|k| {
            let mut path = self.scope[..k].to_vec();
            path.push(name.to_owned());
            self.qualified.get(&path.join(".")).cloned()
        })
    }

    /// The enum member `Enum.Member` names, if `name` is one.
    pub(super) fn enum_member(&self, name: &TSTypeName<'_>) -> Option<Member> {
        let TSTypeName::QualifiedName(q) = name else {
            return None;
        };
        let owner = self.resolve(&dotted(&q.left)?)?;
        self.enum_members
            .get(&(owner, q.right.name.as_str().to_owned()))
            .cloned()
    }

    /// The declared type a reference without type arguments names (`A`, `Ns.A`); a plain name
    /// that names nothing is returned as written, so that it is reported as unknown.
    pub(super) fn ref_name(&self, t: &TSType<'_>) -> Option<String> {
        let TSType::TSTypeReference(r) = strip_parens(t) else {
            return None;
        };
        if r.type_arguments.is_some() || self.enum_member(&r.type_name).is_some() {
            return None;
        }
        let text = dotted(&r.type_name)?;
        self.resolve(&text).or_else(|| {
            matches!(r.type_name, TSTypeName::IdentifierReference(_)).then_some(text)
        })
    }

    /// A qualified name as a type: a declared type or an enum member's value.
    pub(super) fn qualified(&mut self, name: &TSTypeName<'_>, context: &str, span: Span) -> Option<Ty> {
        if let Some(member) = self.enum_member(name) {
            return Some(match member {
                Member::Text(value) => self.inline_enum(context, vec![value], span),
                Member::Number(n) => self.number_literal_type(context, &[n], span),
            });
        }
        let text = dotted(name)?;
        match self.resolve(&text) {
            Some(ir) => Some(Ty::Named(ir)),
            None => {
                self.unknown_type(span, &text);
                None
            }
        }
    }

    /// The string an enum member written as a type fixes a value to (`Kind.Text`).
    pub(super) fn enum_member_text(&self, t: &TSType<'_>) -> Option<String> {
        let TSType::TSTypeReference(r) = strip_parens(t) else {
            return None;
        };
        match self.enum_member(&r.type_name)? {
            Member::Text(value) => Some(value),
            Member::Number(_) => None,
        }
    }
}
