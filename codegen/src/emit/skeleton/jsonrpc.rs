//! Skeleton emitter for JSON-RPC 2.0 over Content-Length framing (eca).

use proc_macro2::TokenStream;

use crate::ir::Protocol;

/// Not emitted yet: returns `None`.
pub fn emit(_p: &Protocol) -> Option<TokenStream> {
    None
}
