//! What the gRPC binding needs to know of the proto: a union's oneof name and the Rust type
//! of each case of the response's event oneof.

use heck::ToUpperCamelCase;
use proc_macro2::TokenStream;
use protox::prost_reflect::{FieldDescriptor, Kind, MessageDescriptor};
use quote::{format_ident, quote};

use crate::front::proto::ProtoSpec;

pub struct View<'a> {
    spec: &'a ProtoSpec,
}

/// How a reply helper takes one event case.
pub enum CaseArg {
    /// A scalar or message value, taken as is (`proto::ToolUse`, `String`, ...).
    Value(TokenStream),
    /// A message with one string field: the helper takes the text (`impl Into<String>`)
    /// and builds the message.
    Text { message: TokenStream, field: String },
}

impl<'a> View<'a> {
    pub fn new(spec: &'a ProtoSpec) -> Self {
        Self { spec }
    }

    fn message(&self, name: &str) -> Option<MessageDescriptor> {
        // Top-level messages of the spec's own files, by their short name (as the catalogue
        // writes them).
        self.spec
            .pool
            .all_messages()
            .find(|m| m.name() == name && m.parent_message().is_none())
    }

    /// The name of the (only non-synthetic) oneof of `message`.
    pub fn oneof_of(&self, message: &str) -> Option<String> {
        let m = self.message(message)?;
        let mut oneofs = m.oneofs().filter(|o| !o.is_synthetic());
        let first = oneofs.next()?;
        Some(first.name().to_owned())
    }

    /// The cases of `message`'s oneof `oneof`, by name, with how a helper takes each.
    pub fn cases(&self, message: &str, oneof: &str) -> Vec<(String, Option<CaseArg>)> {
        let Some(m) = self.message(message) else {
            return Vec::new();
        };
        let Some(o) = m.oneofs().find(|o| o.name() == oneof) else {
            return Vec::new();
        };
        o.fields()
            .map(|f| (f.name().to_owned(), case_arg(&f)))
            .collect()
    }
}

fn rust_message(m: &MessageDescriptor) -> Option<TokenStream> {
    // Nested messages live in modules named after their parents; helpers cover top-level
    // ones, and `event()` takes any.
    if m.parent_message().is_some() || m.full_name().starts_with("google.") {
        return None;
    }
    let t = format_ident!("{}", m.name().to_upper_camel_case());
    Some(quote!(proto::#t))
}

fn case_arg(f: &FieldDescriptor) -> Option<CaseArg> {
    if f.is_list() || f.is_map() {
        return None;
    }
    let t = match f.kind() {
        Kind::String => quote!(String),
        Kind::Bool => quote!(bool),
        Kind::Int32 | Kind::Sint32 | Kind::Sfixed32 | Kind::Enum(_) => quote!(i32),
        Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 => quote!(i64),
        Kind::Uint32 | Kind::Fixed32 => quote!(u32),
        Kind::Uint64 | Kind::Fixed64 => quote!(u64),
        Kind::Float => quote!(f32),
        Kind::Double => quote!(f64),
        // prost may be configured to use `Bytes`: no helper, `event()` takes it.
        Kind::Bytes => return None,
        Kind::Message(m) => {
            let path = rust_message(&m)?;
            let fields: Vec<_> = m.fields().collect();
            if let [only] = fields.as_slice()
                && matches!(only.kind(), Kind::String)
                && !only.is_list()
                && only.containing_oneof().is_none()
            {
                return Some(CaseArg::Text {
                    message: path,
                    field: only.name().to_owned(),
                });
            }
            path
        }
    };
    Some(CaseArg::Value(t))
}
