//! Derive macros of agentwire, a thin wrapper over `agentwire-codegen`: `#[derive(Protocol)]`
//! expands a spec folder into the same module `cargo xtask gen` writes under `generated/`, and
//! `#[derive(Validate)]` gives hand-written types the `Validate` impl generated types have.
//!
//! Use them through the `agentwire` facade crate, which documents both derives in full.
//!
//! ```ignore
//! use agentwire::{Protocol, Validate};
//!
//! /// Expands to `pub mod chat_relay { ... }` beside this struct.
//! #[derive(Protocol)]
//! #[protocol(spec = "spec/chat_relay")]
//! pub struct ChatRelay;
//!
//! #[derive(Validate)]
//! pub struct Config {
//!     #[validate(pattern = "^wss?://", max_length = 2048)]
//!     pub url: String,
//! }
//! ```

use proc_macro::TokenStream;

mod ctxt;
mod protocol;
mod serde_names;
mod validate;

#[cfg(test)]
mod front_doors;

/// Expands a protocol spec folder into a module of typed messages, validators and the
/// sequence checker. See the `agentwire` crate for the attribute's options.
#[proc_macro_derive(Protocol, attributes(protocol))]
pub fn derive_protocol(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    protocol::derive(&input).into()
}

/// Implements `Validate` from `#[validate(...)]` field attributes, with the same rules, JSON
/// pointers and error values as generated validators. See the `agentwire` crate.
#[proc_macro_derive(Validate, attributes(validate))]
pub fn derive_validate(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    validate::derive(&input).into()
}
