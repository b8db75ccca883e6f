//! Skeleton emitter for WebSocket protocols with JSON text frames (helix_zed, agentloop).

use proc_macro2::TokenStream;

use crate::ir::Protocol;

/// Not emitted yet: returns `None`.
pub fn emit(_p: &Protocol) -> Option<TokenStream> {
    None
}
