//! `string | number` and other unions of primitives told apart by their JSON type: an
//! untagged union that keeps `2` and `"2"` apart; and `'a' | 'b' | string`, an open enum: the
//! known values as an enum of their own, any other string kept as it came.

use oxc_ast::ast::{Expression, TSLiteral, TSType, TSTypeName};

use super::{BUILTIN_INTEGER, single_string_literal, strip_parens};
use crate::ir::Ty;

/// The members of a union of two or more distinct primitive JSON types (`string`, one of
/// `number` or `integer`, `boolean`); `None` for any other union.
pub(super) fn primitive_members(types: &[&TSType<'_>]) -> Option<Vec<Ty>> {
    if types.len() < 2 {
        return None;
    }
    let mut out: Vec<Ty> = Vec::new();
    for t in types {
        let ty = match strip_parens(t) {
            TSType::TSStringKeyword(_) => Ty::String,
            TSType::TSNumberKeyword(_) => Ty::Number,
            TSType::TSBooleanKeyword(_) => Ty::Bool,
            TSType::TSTypeReference(r)
                if r.type_arguments.is_none()
                    && matches!(&r.type_name, TSTypeName::IdentifierReference(id) if id.name == BUILTIN_INTEGER) =>
            {
                Ty::Integer
            }
            _ => return None,
        };
        let numeric = |t: &Ty| matches!(t, Ty::Number | Ty::Integer);
        // Two members of one JSON type could not be told apart on the wire.
        if out.iter().any(|o| *o == ty || (numeric(o) && numeric(&ty))) {
            return None;
        }
        out.push(ty);
    }
    Some(out)
}

/// The known values of an open enum, `'a' | 'b' | string`: string literals and `string`.
pub(super) fn open_enum(types: &[&TSType<'_>]) -> Option<Vec<String>> {
    let mut values = Vec::new();
    let mut open = false;
    for t in types {
        match strip_parens(t) {
            TSType::TSStringKeyword(_) if !open => open = true,
            other => values.push(single_string_literal(other)?.to_owned()),
        }
    }
    (open && !values.is_empty()).then_some(values)
}

/// `-32700 | -32600 | number`: number literals beside `number` (an open set of codes) are a
/// `number`: any number goes, the literals only name the known values.
pub(super) fn open_number(types: &[&TSType<'_>]) -> Option<Ty> {
    let mut open = false;
    for t in types {
        match strip_parens(t) {
            TSType::TSNumberKeyword(_) => open = true,
            TSType::TSLiteralType(l) => match &l.literal {
                TSLiteral::NumericLiteral(_) => {}
                TSLiteral::UnaryExpression(u)
                    if matches!(&u.argument, Expression::NumericLiteral(_)) => {}
                _ => return None,
            },
            _ => return None,
        }
    }
    open.then_some(Ty::Number)
}
