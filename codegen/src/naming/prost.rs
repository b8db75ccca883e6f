//! The Rust names prost gives the types of a protobuf spec, which agentwire's own code (the
//! validators, defaults, checker and skeletons) must name exactly as prost-build writes them.

use heck::{ToSnakeCase, ToUpperCamelCase};

use super::keywords::{can_be_raw, is_keyword};
use super::name::{Name, RustPath};

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
    }
}
