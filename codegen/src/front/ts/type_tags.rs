//! The tags that change a member's type rather than constrain it: `@TJS-type integer`
//! (typescript-json-schema) and `@asType integer` (ts-json-schema-generator) make a `number`
//! an `integer`, as schemas derived from Rust or protobuf integers write it; `@TJS-type number`
//! says what a `number` already is and changes nothing.

use oxc_span::Span;

use super::Loader;
use crate::ir::Ty;

/// The tags read, and the one value each may take.
const TYPE_TAGS: &[&str] = &["@TJS-type", "@asType"];

impl Loader<'_> {
    /// `ty` as the type tags in the JSDoc of the node starting at `start` make it.
    pub(super) fn apply_type_tags(&mut self, start: u32, ty: Ty, span: Span) -> Ty {
        let Some((raw, _)) = self.docs.get(&start) else {
            return ty;
        };
        let mut integer = false;
        let mut bad = Vec::new();
        for line in raw.lines() {
            let line = line
                .trim()
                .trim_start_matches("/**")
                .trim_start_matches('*')
                .trim();
            let line = line.trim_end_matches("*/").trim();
            let Some(tag) = TYPE_TAGS.iter().find(|t| {
                line.strip_prefix(**t)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with(char::is_whitespace))
            }) else {
                continue;
            };
            match line[tag.len()..].trim() {
                "integer" => integer = true,
                // What a `number` already is (published schemas write it on `number` members).
                "number" => {}
                other => bad.push(format!(
                    "`{tag} {other}` is not read: only `{tag} integer` and `{tag} number` are; write the type itself in TypeScript"
                )),
            }
        }
        for message in bad {
            self.error(span, message);
        }
        if !integer {
            return ty;
        }
        match to_integer(ty.clone()) {
            Some(t) => t,
            None => {
                self.error(
                    span,
                    "`@TJS-type integer` / `@asType integer` needs a `number` type (or a list, map or `| null` of one)",
                );
                ty
            }
        }
    }
}

/// `number` (inside lists, maps and `| null`) as `integer`; `None` when there is no number.
fn to_integer(ty: Ty) -> Option<Ty> {
    Some(match ty {
        Ty::Number | Ty::Integer => Ty::Integer,
        Ty::Array(t) => Ty::Array(Box::new(to_integer(*t)?)),
        Ty::Map(t) => Ty::Map(Box::new(to_integer(*t)?)),
        Ty::Nullable(t) => Ty::Nullable(Box::new(to_integer(*t)?)),
        _ => return None,
    })
}
