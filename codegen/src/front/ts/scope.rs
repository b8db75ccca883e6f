//! Namespaces (`namespace Ns { ... }`, `declare module Ns { ... }`, as Stainless and
//! vscode-debugprotocol write them) and qualified names (`Ns.Type`, `Enum.Member`). A
//! declaration inside a namespace is the type named by the namespace path and its own name run
//! together (`Ns.Type` is `NsType`); a name is looked up from the innermost enclosing namespace
//! outwards, as TypeScript resolves it.

use oxc_ast::ast::{
    BindingIdentifier, Declaration, Statement, TSNamespaceDeclaration, TSNamespaceDeclarationBody,
    TSType, TSTypeName,
};
use oxc_span::{GetSpan, Span};

use super::enums::Member;
use super::{Decl, Loader, strip_parens};

/// A declaration and the namespace path it is declared in.
pub(super) type Scoped<'r, 'a> = (Vec<String>, Decl<'r, 'a>);
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
    /// The declarations of `body`, read in the namespace `scope`, appended to `out`; constants
    /// are recorded, anything else is reported.
    pub(super) fn declarations<'r, 'a>(
        &mut self,
        body: &'r [Statement<'a>],
        scope: &[String],
        out: &mut Vec<Scoped<'r, 'a>>,
    ) {
        for stmt in body {
            match stmt {
                Statement::TSInterfaceDeclaration(i) => out.push((scope.to_vec(), Decl::Interface(i))),
                Statement::TSTypeAliasDeclaration(a) => out.push((scope.to_vec(), Decl::Alias(a))),
                Statement::TSEnumDeclaration(e) => out.push((scope.to_vec(), Decl::Enum(e))),
                Statement::TSNamespaceDeclaration(ns) => self.namespace(ns, scope, out),
                Statement::VariableDeclaration(v) => self.record_consts(v),
                Statement::FunctionDeclaration(f) => self.skip(f.span, "function", f.id.as_ref()),
                Statement::ClassDeclaration(c) => self.skip(c.span, "class", c.id.as_ref()),
                // `export { A, type B as C }`: exports names declared here, declares nothing.
                Statement::ExportNamedDeclaration(_) => {}
                Statement::ExportDeclaration(e) => {
                    // oxc attaches a JSDoc to the `export` statement, not to the declaration
                    // inside it: move it there, or `export` would silently drop its rules.
                    let inner = e.declaration.span().start;
                    if let Some(doc) = self.docs.remove(&e.span.start) {
                        self.docs.insert(inner, doc);
                    }
                    let at = scope.to_vec();
                    match &e.declaration {
                        Declaration::TSInterfaceDeclaration(i) => out.push((at, Decl::Interface(i))),
                        Declaration::TSTypeAliasDeclaration(a) => out.push((at, Decl::Alias(a))),
                        Declaration::TSEnumDeclaration(en) => out.push((at, Decl::Enum(en))),
                        Declaration::TSNamespaceDeclaration(ns) => self.namespace(ns, scope, out),
                        Declaration::VariableDeclaration(v) => self.record_consts(v),
                        Declaration::FunctionDeclaration(f) => {
                            self.skip(f.span, "function", f.id.as_ref())
                        }
                        Declaration::ClassDeclaration(c) => self.skip(c.span, "class", c.id.as_ref()),
                        _ => self.error(
                            e.span,
                            "only interfaces, type aliases, enums, namespaces and constants may be exported; leave functions and classes out of the message types",
                        ),
                    }
                }
                Statement::TSExternalModuleDeclaration(m) => self.error(
                    m.span,
                    "`declare module \"name\"` describes a package's module, which is not read; declare its types at the top level or in a `namespace`",
                ),
                other => self.error(
                    other.span(),
                    "messages.ts may contain only interfaces, type aliases, enums, namespaces and constants",
                ),
            }
        }
    }

    /// A function or class (`declare function f(): void;`, `export declare class C`, as
    /// generated `.d.ts` files mix them with their types): it declares no wire type, so it is
    /// left out with a note, as a JSON Schema's unknown keyword is. A type that names it is
    /// then an unknown type.
    fn skip(&mut self, span: Span, what: &str, name: Option<&BindingIdentifier<'_>>) {
        let name = name.map_or_else(String::new, |n| format!(" `{}`", n.name));
        let message = format!("{what}{name} declares no wire type; left out");
        let at = self
            .sources
            .error((span.start as usize, span.size() as usize), message);
        self.notes.push(format!("note: {}", at.one_line()));
    }

    /// `namespace Ns { ... }` (or `module Ns`, `namespace A.B`): its declarations, in `Ns`.
    fn namespace<'r, 'a>(
        &mut self,
        ns: &'r TSNamespaceDeclaration<'a>,
        scope: &[String],
        out: &mut Vec<Scoped<'r, 'a>>,
    ) {
        let mut path = scope.to_vec();
        path.push(ns.id.name.as_str().to_owned());
        match &ns.body {
            TSNamespaceDeclarationBody::TSModuleBlock(b) => self.declarations(&b.body, &path, out),
            TSNamespaceDeclarationBody::TSNamespaceDeclaration(inner) => {
                self.namespace(inner, &path, out)
            }
        }
    }

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
        self.resolve(&text)
            .or_else(|| matches!(r.type_name, TSTypeName::IdentifierReference(_)).then_some(text))
    }

    /// A qualified name as a type: a declared type or an enum member's value.
    pub(super) fn qualified(
        &mut self,
        name: &TSTypeName<'_>,
        context: &str,
        span: Span,
    ) -> Option<Ty> {
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
