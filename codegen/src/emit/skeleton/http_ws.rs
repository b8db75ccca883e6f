//! Skeleton emitter for HTTP routes plus a WebSocket channel (external_agents).

use proc_macro2::TokenStream;

use crate::ir::Protocol;

/// Not emitted yet: returns `None`.
pub fn emit(_p: &Protocol) -> Option<TokenStream> {
    None
}
