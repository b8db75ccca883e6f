//! The Rust names prost gives the types of a protobuf spec, which agentwire's own code (the
//! validators, defaults, checker and skeletons) must name exactly as prost-build writes them.

use heck::{ToSnakeCase, ToUpperCamelCase};
use proc_macro2::TokenStream;
use quote::{ToTokens, quote};

use super::keywords::{can_be_raw, is_keyword};
use super::name::{Name, RustPath};
use crate::ir::{Scalar, Ty, WellKnown};

/// prost's escaping of an identifier: raw for a keyword, `_` appended for the ones that
/// cannot be raw (and `extern`, which prost also suffixes), `_` prepended before a digit.
fn sanitize(ident: String) -> Name {
    if ident == "_" || ident == "extern" || (is_keyword(&ident) && !can_be_raw(&ident)) {
        Name::plain(format!("{ident}_"))
    } else if is_keyword(&ident) {
        Name::raw(ident)
    } else if ident.starts_with(|c: char| c.is_ascii_digit()) {
        Name::plain(format!("_{ident}"))
    } else {
        Name::plain(ident)
    }
}

/// prost's name of a message field or oneof member.
pub fn prost_field(name: &str) -> Name {
    sanitize(name.to_snake_case())
}

/// prost's name of a oneof variant (a case's field name in UpperCamelCase).
pub fn prost_variant(name: &str) -> Name {
    sanitize(name.to_upper_camel_case())
}

/// The Rust path, relative to the package module, of an IR type of a protobuf spec:
/// `Outer.Inner` is `outer::Inner`, the oneof `AgentMessage.payload` is
/// `agent_message::Payload` (prost nests both in a module named after the message).
pub fn prost_path(name: &str) -> RustPath {
    let parts: Vec<&str> = name.split('.').collect();
    let (last, parents) = parts.split_last().unwrap_or((&"", &[]));
    let mut segments: Vec<Name> = parents.iter().map(|p| prost_field(p)).collect();
    segments.push(prost_variant(last));
    RustPath::new(segments)
}

/// The Rust type prost gives a protobuf scalar, as written (`i32`, `Vec<u8>`).
pub fn scalar_rust(s: Scalar) -> &'static str {
    match s {
        Scalar::Int32 => "i32",
        Scalar::Uint32 => "u32",
        Scalar::Int64 => "i64",
        Scalar::Uint64 => "u64",
        Scalar::Float => "f32",
        Scalar::Double => "f64",
        Scalar::Bytes => "Vec<u8>",
    }
}

/// [`scalar_rust`] as tokens.
pub fn scalar_ty(s: Scalar) -> TokenStream {
    match s {
        Scalar::Bytes => quote!(Vec<u8>),
        _ => Name::plain(scalar_rust(s)).to_token_stream(),
    }
}

/// The path of a well-known type in the `pbjson_types` crate (`pbjson_types::Timestamp`).
pub fn well_known_path(w: &WellKnown) -> RustPath {
    let name = match w {
        WellKnown::Wrapper(inner) => match inner.as_ref() {
            Ty::Bool => "BoolValue",
            Ty::String => "StringValue",
            Ty::Scalar(Scalar::Bytes) => "BytesValue",
            Ty::Scalar(Scalar::Int32) => "Int32Value",
            Ty::Scalar(Scalar::Uint32) => "UInt32Value",
            Ty::Scalar(Scalar::Int64) => "Int64Value",
            Ty::Scalar(Scalar::Uint64) => "UInt64Value",
            Ty::Scalar(Scalar::Float) => "FloatValue",
            _ => "DoubleValue",
        }
        .to_owned(),
        WellKnown::Other { name, .. } => {
            let mut segments = vec![Name::plain("pbjson_types")];
            let below = name.trim_start_matches("google.protobuf.");
            segments.extend(below.split('.').map(Name::plain));
            return RustPath::new(segments);
        }
        other => format!("{other:?}"),
    };
    RustPath::new(vec![Name::plain("pbjson_types"), Name::plain(name)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_as_prost_writes_them() {
        assert_eq!(prost_field("type").to_string(), "r#type");
        assert_eq!(prost_field("self").to_string(), "self_");
        assert_eq!(prost_field("extern").to_string(), "extern_");
        assert_eq!(prost_field("sessionId").to_string(), "session_id");
        assert_eq!(prost_variant("user_input").to_string(), "UserInput");
        assert_eq!(prost_variant("self").to_string(), "Self_");
        assert_eq!(
            prost_path("AgentMessage.payload").to_string(),
            "agent_message::Payload"
        );
        assert_eq!(
            well_known_path(&WellKnown::Timestamp).to_string(),
            "pbjson_types::Timestamp"
        );
        let wrapper = WellKnown::Wrapper(Box::new(Ty::Scalar(Scalar::Uint32)));
        assert_eq!(
            well_known_path(&wrapper).to_string(),
            "pbjson_types::UInt32Value"
        );
        assert_eq!(scalar_ty(Scalar::Bytes).to_string(), "Vec < u8 >");
    }
}
