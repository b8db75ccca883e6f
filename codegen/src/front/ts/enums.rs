//! `enum`, `declare enum` and `const enum` (as quicktype, ts-proto and hey-api write them):
//! string members make an enum of their values, number members (given or counted on from the
//! previous one, as TypeScript numbers them) a bounded integer. A member named as a type
//! (`Kind.Text`) is its value, a literal type.

use oxc_ast::ast::{Expression, TSEnumDeclaration, TSEnumMemberName};

use super::Loader;
use super::literals::{number_expression, number_set};
use crate::ir::TypeKind;

/// The value of one enum member.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Member {
    Text(String),
    Number(f64),
}

impl Loader<'_> {
    /// Loads the enum `e` as the type `name` and records its members for `name.Member`.
    pub(super) fn enum_decl(&mut self, name: &str, e: &TSEnumDeclaration<'_>) {
        let doc = self.doc(e.span.start);
        let mut members: Vec<(String, Member)> = Vec::new();
        let mut next = Some(0.0);
        for m in &e.body.members {
            let key = match &m.id {
                TSEnumMemberName::Identifier(id) => id.name.as_str().to_owned(),
                TSEnumMemberName::String(s) | TSEnumMemberName::ComputedString(s) => {
                    s.value.as_str().to_owned()
                }
                TSEnumMemberName::ComputedTemplateString(t) => {
                    self.error(
                        t.span,
                        "an enum member's name must be an identifier or a string",
                    );
                    continue;
                }
            };
            let value = match &m.initializer {
                None => next.map(Member::Number),
                Some(Expression::StringLiteral(s)) => {
                    Some(Member::Text(s.value.as_str().to_owned()))
                }
                Some(init) => number_expression(init).map(Member::Number),
            };
            let Some(value) = value else {
                self.error(
                    m.span,
                    format!("the value of enum member `{key}` is not a literal; write it as a string or number literal (`{key} = \"{key}\"` or `{key} = 1`)"),
                );
                next = None;
                continue;
            };
            next = match value {
                Member::Number(n) => Some(n + 1.0),
                Member::Text(_) => None,
            };
            members.push((key, value));
        }
        let texts: Vec<String> = members
            .iter()
            .filter_map(|(_, v)| match v {
                Member::Text(t) => Some(t.clone()),
                Member::Number(_) => None,
            })
            .collect();
        let numbers: Vec<f64> = members
            .iter()
            .filter_map(|(_, v)| match v {
                Member::Number(n) => Some(*n),
                Member::Text(_) => None,
            })
            .collect();
        let kind = match (texts.is_empty(), numbers.is_empty()) {
            (false, true) => {
                let mut values: Vec<String> = Vec::new();
                for t in texts {
                    if !values.contains(&t) {
                        values.push(t);
                    }
                }
                TypeKind::Enum(values)
            }
            (true, false) => number_set(&numbers),
            (false, false) => {
                self.error(
                    e.id.span,
                    format!("enum `{name}` mixes string and number members, which no single JSON type holds; give every member a string value or every member a number"),
                );
                return;
            }
            (true, true) => {
                if e.body.members.is_empty() {
                    self.error(e.id.span, format!("enum `{name}` has no members, so no value is one of it; give it a member"));
                }
                return;
            }
        };
        for (key, value) in members {
            self.enum_members.insert((name.to_owned(), key), value);
        }
        self.add(name, doc.text, e.id.span, kind);
    }
}
