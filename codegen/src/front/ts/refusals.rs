//! What to write instead of a construct the loader refuses, for the shapes real protocol
//! schemas use that are not supported yet (unions of inline objects, open objects) or
//! cannot be (primitives of one JSON type).

use oxc_ast::ast::{TSSignature, TSType, TSTypeName};

use super::{BUILTIN_INTEGER, strip_parens};

/// The diagnostic for a union the loader cannot represent.
pub(super) fn union(members: &[&TSType<'_>]) -> &'static str {
    let members: Vec<&TSType<'_>> = members.iter().map(|t| strip_parens(t)).collect();
    let primitive = |t: &&TSType<'_>| match t {
        TSType::TSStringKeyword(_) | TSType::TSNumberKeyword(_) | TSType::TSBooleanKeyword(_) => {
            true
        }
        TSType::TSTypeReference(r) => {
            matches!(&r.type_name, TSTypeName::IdentifierReference(id) if id.name == BUILTIN_INTEGER)
        }
        _ => false,
    };
    if members.iter().all(primitive) {
        "a union of primitives of one JSON type (`number | integer`, `string | string`) cannot be told apart on the wire; write one of them"
    } else if members
        .iter()
        .any(|t| matches!(t, TSType::TSTypeLiteral(_)))
    {
        "a union of inline object types is not supported; declare each as an interface with a shared literal field (`type: 'a'`) and name the union as a type alias"
    } else {
        "unsupported union: name it as a type alias whose members are interfaces sharing a literal field"
    }
}

/// The diagnostic for an interface member other than a plain property.
pub(super) fn member(m: &TSSignature<'_>) -> &'static str {
    match m {
        TSSignature::TSIndexSignature(_) => {
            "an index signature beside named properties (an open object) is not supported yet; drop it (unknown members are ignored on decode) or write `{ [key: string]: T }` alone"
        }
        _ => {
            "only plain properties are supported in an interface; leave methods and call signatures out of the message types"
        }
    }
}
