//! Collects every attribute mistake of one derive so they are all reported in one compile,
//! each at its own span, instead of stopping at the first.

use proc_macro2::TokenStream;
use quote::ToTokens;

#[derive(Default)]
pub(crate) struct Ctxt {
    errors: Vec<syn::Error>,
}

impl Ctxt {
    /// Records a mistake pointing at `tokens`.
    pub(crate) fn error_at(&mut self, tokens: impl ToTokens, message: impl std::fmt::Display) {
        self.errors.push(syn::Error::new_spanned(tokens, message));
    }

    /// Records an error syn already produced (it carries its own span).
    pub(crate) fn push(&mut self, error: syn::Error) {
        self.errors.push(error);
    }

    pub(crate) fn has_errors(&self) -> bool {
        !self.errors.is_empty()
    }

    /// `Ok` when nothing was recorded, otherwise every error as `compile_error!` invocations.
    pub(crate) fn finish(self) -> Result<(), TokenStream> {
        let mut errors = self.errors.into_iter();
        let Some(mut first) = errors.next() else {
            return Ok(());
        };
        for e in errors {
            first.combine(e);
        }
        Err(first.to_compile_error())
    }
}
