//! Skeleton emitter for gRPC bidi streams through tonic (coven).

use proc_macro2::TokenStream;

use crate::ir::Protocol;

/// Not emitted yet: returns `None`.
pub fn emit(_p: &Protocol) -> Option<TokenStream> {
    None
}
