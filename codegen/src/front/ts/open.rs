//! Index signatures beside named properties (`{ _meta?: M; [key: string]: unknown }`): an open
//! object. The properties stay fields; members beyond them are kept, each of the signature's
//! value type (`TypeDef::open`), in order, and written back.

use oxc_ast::ast::{TSIndexSignature, TSType};

use super::Loader;
use crate::naming::pascal_case;

impl Loader<'_> {
    /// Records the index signature `ix` of the object `owner`: its value type becomes the
    /// type of `owner`'s extra members.
    pub(super) fn open_members(&mut self, owner: &str, ix: &TSIndexSignature<'_>) {
        let key_is_string = matches!(
            ix.parameter.type_annotation.type_annotation,
            TSType::TSStringKeyword(_)
        );
        if !key_is_string {
            self.error(
                ix.span,
                "index signatures must have string keys (`[key: string]: T`): JSON object keys are strings",
            );
            return;
        }
        if self.open.contains_key(owner) {
            self.error(
                ix.span,
                "an object has at most one index signature; write one whose value type is the union of theirs",
            );
            return;
        }
        let context = format!("{owner}{}", pascal_case("extra"));
        let Some(value) = self.ty(&ix.type_annotation.type_annotation, &context) else {
            return;
        };
        self.open.insert(owner.to_owned(), value);
    }
}
