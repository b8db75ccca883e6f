//! `const X = "2.0"` (exported or not, optionally `as const`) and `typeof X`: a string
//! constant declared once and used as a literal type, as a JSON-RPC schema writes its `jsonrpc` version.
//! A numeric constant (`export declare const PARSE_ERROR = -32700;`) is read too; `typeof` of
//! one is a number (`integer` when the constant is whole): the IR has no numeric literal type.

use oxc_ast::ast::{
    BindingPattern, Expression, TSType, TSTypeName, TSTypeQuery, TSTypeQueryExprName,
    VariableDeclaration, VariableDeclarationKind,
};

use super::{Loader, single_string_literal, strip_parens};

/// What to write instead of a constant the loader cannot read.
const CONST_HELP: &str = "only string and number constants are read (`export const X = \"2.0\";`); write the literal type (`'2.0'`) where the constant is used";

impl Loader<'_> {
    /// Records the string constants of a `const` declaration; anything else is refused.
    pub(super) fn record_consts(&mut self, decl: &VariableDeclaration<'_>) {
        if decl.kind != VariableDeclarationKind::Const {
            self.error(
                decl.span,
                format!("`let` and `var` are not read; {CONST_HELP}"),
            );
            return;
        }
        for d in &decl.declarations {
            let BindingPattern::BindingIdentifier(id) = &d.id else {
                self.error(d.span, format!("destructuring is not read; {CONST_HELP}"));
                continue;
            };
            if let Some(whole) = d.init.as_ref().and_then(numeric_value) {
                if self
                    .numeric_consts
                    .insert(id.name.as_str().to_owned(), whole)
                    .is_some()
                    || self.consts.contains_key(id.name.as_str())
                {
                    self.error(id.span, format!("`{}` is declared twice", id.name));
                }
                continue;
            }
            let value = d.init.as_ref().and_then(string_value);
            let Some(value) = value else {
                self.error(
                    d.span,
                    format!(
                        "`{}` is not a string or number constant; {CONST_HELP}",
                        id.name
                    ),
                );
                continue;
            };
            if self
                .consts
                .insert(id.name.as_str().to_owned(), value)
                .is_some()
            {
                self.error(id.span, format!("`{}` is declared twice", id.name));
            }
        }
    }

    /// The type of `typeof X` when X is a numeric constant: `integer` for a whole number.
    pub(super) fn typeof_number(&self, q: &TSTypeQuery<'_>) -> Option<crate::ir::Ty> {
        let TSTypeQueryExprName::IdentifierReference(id) = &q.expr_name else {
            return None;
        };
        let whole = *self.numeric_consts.get(id.name.as_str())?;
        Some(if whole {
            crate::ir::Ty::Integer
        } else {
            crate::ir::Ty::Number
        })
    }

    /// The constant `typeof X` names, or an error saying why not.
    pub(super) fn typeof_value(&mut self, q: &TSTypeQuery<'_>) -> Option<String> {
        let name = match &q.expr_name {
            TSTypeQueryExprName::IdentifierReference(id) if q.type_arguments.is_none() => {
                id.name.as_str()
            }
            _ => {
                self.error(
                    q.span,
                    format!("only `typeof` of a constant of this file is read; {CONST_HELP}"),
                );
                return None;
            }
        };
        let value = self.consts.get(name).cloned();
        if value.is_none() {
            self.error(
                q.span,
                format!("`{name}` is not a string constant of this file; {CONST_HELP}"),
            );
        }
        value
    }

    /// The string a type fixes a member to: a string literal or `typeof` of a constant.
    pub(super) fn fixed_string(&self, t: &TSType<'_>) -> Option<String> {
        if let TSType::TSTypeQuery(q) = strip_parens(t)
            && let TSTypeQueryExprName::IdentifierReference(id) = &q.expr_name
        {
            return self.consts.get(id.name.as_str()).cloned();
        }
        if let Some(value) = self.enum_member_text(t) {
            return Some(value);
        }
        single_string_literal(t).map(str::to_owned)
    }
}

/// A number literal, negated or not, maybe `as const`: whether it is whole.
fn numeric_value(e: &Expression<'_>) -> Option<bool> {
    match e {
        Expression::NumericLiteral(n) => Some(n.value.fract() == 0.0),
        Expression::UnaryExpression(u)
            if matches!(
                u.operator,
                oxc_ast::ast::UnaryOperator::UnaryNegation | oxc_ast::ast::UnaryOperator::UnaryPlus
            ) =>
        {
            numeric_value(&u.argument)
        }
        Expression::TSAsExpression(a) => numeric_value(&a.expression),
        Expression::ParenthesizedExpression(p) => numeric_value(&p.expression),
        _ => None,
    }
}

/// `"2.0"` or `"2.0" as const`.
fn string_value(e: &Expression<'_>) -> Option<String> {
    match e {
        Expression::StringLiteral(s) => Some(s.value.as_str().to_owned()),
        Expression::TSAsExpression(a)
            if matches!(&a.type_annotation, TSType::TSTypeReference(r)
                if matches!(&r.type_name, TSTypeName::IdentifierReference(id) if id.name == "const")) =>
        {
            string_value(&a.expression)
        }
        Expression::ParenthesizedExpression(p) => string_value(&p.expression),
        _ => None,
    }
}
