//! Forms code generators write that carry no new shape: number literal types (`code: 2`,
//! `1 | 2 | 3`), `T | undefined` (a member that may be left out), `?: never` (a member that
//! must be left out) and a bare `null`.

use oxc_ast::ast::{Expression, TSLiteral, TSType, UnaryOperator};
use oxc_span::{GetSpan, Span};

use super::{Loader, strip_parens};
use crate::ir::{Constraints, Ty, TypeKind};
use crate::rules::{MAXIMUM, MINIMUM, Value};

/// The number a type fixes a value to: `2`, `-1`, `1.5`.
pub(super) fn number_literal(t: &TSType<'_>) -> Option<f64> {
    let TSType::TSLiteralType(l) = strip_parens(t) else {
        return None;
    };
    match &l.literal {
        TSLiteral::NumericLiteral(n) => Some(n.value),
        TSLiteral::UnaryExpression(u) => signed(u.operator, &u.argument),
        _ => None,
    }
}

/// A number written as an expression (an enum member's initializer): `2`, `-1`, `(3)`.
pub(super) fn number_expression(e: &Expression<'_>) -> Option<f64> {
    match e {
        Expression::NumericLiteral(n) => Some(n.value),
        Expression::UnaryExpression(u) => signed(u.operator, &u.argument),
        Expression::ParenthesizedExpression(p) => number_expression(&p.expression),
        _ => None,
    }
}

fn signed(op: UnaryOperator, argument: &Expression<'_>) -> Option<f64> {
    let n = number_expression(argument)?;
    match op {
        UnaryOperator::UnaryNegation => Some(-n),
        UnaryOperator::UnaryPlus => Some(n),
        _ => None,
    }
}

/// The values of a union made only of number literals (`1 | 2 | 3`), at least one.
pub(super) fn number_literals(types: &[&TSType<'_>]) -> Option<Vec<f64>> {
    if types.is_empty() {
        return None;
    }
    types.iter().map(|t| number_literal(t)).collect()
}

/// Whether `t` is `undefined`.
pub(super) fn is_undefined(t: &TSType<'_>) -> bool {
    matches!(strip_parens(t), TSType::TSUndefinedKeyword(_))
}

/// Whether `t` is a union with an `undefined` member: JSON has no `undefined`, so a member of
/// that type may be left out (`JSON.stringify` drops it), as ts-proto writes `x: T | undefined`.
pub(super) fn admits_undefined(t: &TSType<'_>) -> bool {
    match strip_parens(t) {
        TSType::TSUnionType(u) => u.types.iter().any(|m| is_undefined(m)),
        other => is_undefined(other),
    }
}

/// The kind of a type holding one of the numbers `values`: an integer (or a number, if one is
/// not whole) bounded by the smallest and largest. Exact when the values leave no gap (a
/// literal, `-1 | 0 | 1`, an enum numbered in order); a set with gaps is checked as its range
/// (spec/README.md lists this reading).
pub(super) fn number_set(values: &[f64]) -> TypeKind {
    let whole = values.iter().all(|v| v.fract() == 0.0);
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut constraints = Constraints::default();
    constraints.set(&MINIMUM, Value::Number(min));
    constraints.set(&MAXIMUM, Value::Number(max));
    TypeKind::Alias {
        target: if whole { Ty::Integer } else { Ty::Number },
        constraints,
    }
}

impl Loader<'_> {
    /// A number literal type or a union of them, as the bounded integer type `context`.
    pub(super) fn number_literal_type(&mut self, context: &str, values: &[f64], span: Span) -> Ty {
        self.add_inline(context, span, number_set(values));
        Ty::Named(context.to_owned())
    }

    /// `key?: never`: the member must be absent, so the struct has no field for it; a member
    /// of that name that does come is treated as any undeclared member of a closed object
    /// (skipped on decode, spec/README.md). `true` when the member is one, and dealt with.
    pub(super) fn never_member(&mut self, key: &str, t: &TSType<'_>, optional: bool) -> bool {
        if !matches!(strip_parens(t), TSType::TSNeverKeyword(_)) {
            return false;
        }
        if !optional {
            self.error(
                t.span(),
                format!(
                    "`{key}: never` can hold no value, so no object has it; write `{key}?: never` for a member that must be absent, or leave it out"
                ),
            );
        }
        true
    }
}
