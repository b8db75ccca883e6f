//! Typed Rust names: one identifier, and a path of them, as the naming authority hands them
//! out. Plain data (no `proc_macro2` handle, so the machine model that keeps them is `Send`),
//! turned into tokens directly: nothing writes a name as text to parse it back.

use std::fmt;

use proc_macro2::{Ident, Span, TokenStream};
use quote::{ToTokens, quote};

/// One Rust identifier, written raw (`r#type`) when it is a keyword.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Name {
    text: String,
    raw: bool,
}

impl Name {
    /// `text`, an identifier the naming functions made (not a keyword).
    pub(crate) fn plain(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            raw: false,
        }
    }

    /// `r#text`, for a keyword that can be written raw.
    pub(crate) fn raw(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            raw: true,
        }
    }

    /// The identifier without its `r#` (what `_DEFAULT` constants and messages are built from).
    pub fn as_str(&self) -> &str {
        &self.text
    }

    pub fn ident(&self) -> Ident {
        if self.raw {
            Ident::new_raw(&self.text, Span::call_site())
        } else {
            Ident::new(&self.text, Span::call_site())
        }
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.raw {
            f.write_str("r#")?;
        }
        f.write_str(&self.text)
    }
}

impl ToTokens for Name {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        self.ident().to_tokens(tokens);
    }
}

/// A Rust path: relative to the protocol module (`agent_message::Payload`), or from a crate
/// the generated code depends on (`agentwire_runtime::jsonrpc::Outcome::Result`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RustPath {
    segments: Vec<Name>,
}

impl RustPath {
    pub fn new(segments: Vec<Name>) -> Self {
        Self { segments }
    }

    /// A path of plain identifiers (`["agentwire_runtime", "jsonrpc", "Outcome"]`).
    pub(crate) fn of_plain(segments: &[&str]) -> Self {
        Self::new(segments.iter().map(|s| Name::plain(*s)).collect())
    }

    /// This path with `name` appended (`Union` -> `Union::Case`).
    pub fn join(&self, name: Name) -> Self {
        let mut segments = self.segments.clone();
        segments.push(name);
        Self { segments }
    }
}

impl From<Name> for RustPath {
    fn from(name: Name) -> Self {
        Self::new(vec![name])
    }
}

impl fmt::Display for RustPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.segments.iter().enumerate() {
            if i > 0 {
                f.write_str("::")?;
            }
            write!(f, "{s}")?;
        }
        Ok(())
    }
}

impl ToTokens for RustPath {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        let segments = &self.segments;
        tokens.extend(quote!(#(#segments)::*));
    }
}
