//! `#[derive(Protocol)]`: runs the generator on a spec folder and splices the files it would
//! write under `generated/` into one inline module beside the deriving struct.
//!
//! The expansion of `#[derive(Protocol)] #[protocol(spec = "spec/chat_relay")] pub struct X;`:
//!
//! ```ignore
//! const _: &str = include_str!("/abs/path/spec/chat_relay/protocol.yaml"); // one per file read
//! #[allow(missing_docs, unreachable_pub, clippy::all, clippy::pedantic, clippy::nursery)]
//! pub mod chat_relay {                 // named by the spec's `protocol:`, visibility of X
//!     //! (the generated module's own docs)
//!     #[allow(unused_imports)]
//!     use ::agentwire::runtime as agentwire_runtime;
//!     // ... every item of src/chat_relay.rs ...
//!     pub mod machine {                // src/chat_relay/machine.rs, inlined
//!         #[allow(unused_imports)]
//!         use ::agentwire::runtime as agentwire_runtime;
//!         // ...
//!     }
//! }
//! ```
//!
//! The generated files are taken as syntax trees from `agentwire_codegen::generate_with` (the
//! generator `cargo xtask gen` runs, which prints the same trees), with the attribute's
//! options passed in: `schemars`, the runtime path, and assets inlined; so both front doors
//! share every item.
//! Three things differ by design: each `mod name;` is replaced by the file it names, inline;
//! `SCHEMA`'s `include_str!` of the schema file becomes the schema text itself (there is no
//! `schemas/` folder downstream); and unless the attribute says `schemars`, the items and
//! attributes gated on `feature = "schemars"` are dropped, so a crate that declares no such
//! feature gets no `unexpected_cfgs` warnings.

use std::path::{Path, PathBuf};

use agentwire_codegen::inline::{InlineSettings, inline_spec};
use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::{DeriveInput, Expr, LitStr};

use crate::ctxt::Ctxt;

/// How the module is expanded, from the `#[protocol(...)]` options other than `spec`.
pub(crate) struct Settings {
    /// Keep the `feature = "schemars"` gated derives and items (`#[protocol(schemars)]`).
    pub(crate) schemars: bool,
    /// Where emitted code finds the runtime (`#[protocol(crate = "...")]`).
    pub(crate) runtime: syn::Path,
    /// Where the skeleton finds the transport crate; `None` leaves the skeleton out. Set by
    /// this crate's `skeletons` feature, which the facade's `skeletons` feature turns on
    /// together with its `transport` re-export.
    pub(crate) transport: Option<syn::Path>,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            schemars: false,
            runtime: syn::parse_quote!(::agentwire::runtime),
            transport: cfg!(feature = "skeletons")
                .then(|| syn::parse_quote!(::agentwire::transport)),
        }
    }
}

struct Options {
    spec: LitStr,
    settings: Settings,
}

/// The expansion for one derive input, errors included.
pub(crate) fn derive(input: &DeriveInput) -> TokenStream {
    let mut cx = Ctxt::default();
    let options = parse_options(input, &mut cx);
    if let Err(errors) = cx.finish() {
        return errors;
    }
    let Some(options) = options else {
        return TokenStream::new();
    };
    let span = options.spec.span();
    let Some(manifest_dir) = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from) else {
        return spanned_errors(
            span,
            ["CARGO_MANIFEST_DIR is not set: build with cargo".to_owned()],
        );
    };
    let spec = options.spec.value();
    let spec_dir = manifest_dir.join(&spec);
    match expand_spec(&spec_dir, &manifest_dir, &options.settings) {
        Ok(expansion) => expansion.to_tokens(&input.vis),
        Err(messages) => {
            let mut out = spanned_errors(span, messages);
            // An empty module of the expected name keeps uses of it from adding a second,
            // less useful error to every line that names it.
            let folder = Path::new(&spec)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if let Ok(ident) = syn::parse_str::<syn::Ident>(&folder) {
                let vis = &input.vis;
                out.extend(quote!(#vis mod #ident {}));
            }
            out
        }
    }
}

fn spanned_errors(span: Span, messages: impl IntoIterator<Item = String>) -> TokenStream {
    messages
        .into_iter()
        .map(|m| quote_spanned!(span=> ::core::compile_error!(#m);))
        .collect()
}

fn parse_options(input: &DeriveInput, cx: &mut Ctxt) -> Option<Options> {
    let mut spec: Option<LitStr> = None;
    let mut schemars: Option<syn::Path> = None;
    let mut runtime: Option<syn::Path> = None;
    let mut seen_attr = false;
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("protocol")) {
        seen_attr = true;
        if let Err(e) = attr.meta.require_list() {
            cx.push(e);
            continue;
        }
        let parsed = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("spec") {
                let lit: LitStr = meta.value()?.parse()?;
                if spec.is_some() {
                    cx.error_at(&meta.path, "duplicate `spec`: name one spec folder");
                } else if lit.value().trim().is_empty() {
                    cx.error_at(&lit, "`spec` is empty: name a folder, e.g. \"spec/my_protocol\"");
                } else {
                    spec = Some(lit);
                }
            } else if meta.path.is_ident("schemars") {
                if schemars.is_some() {
                    cx.error_at(&meta.path, "duplicate `schemars`");
                }
                schemars = Some(meta.path.clone());
            } else if meta.path.is_ident("crate") {
                let lit: LitStr = meta.value()?.parse()?;
                if runtime.is_some() {
                    cx.error_at(&meta.path, "duplicate `crate`");
                }
                match lit.parse::<syn::Path>() {
                    Ok(path) => runtime = Some(path),
                    Err(_) => cx.error_at(
                        &lit,
                        "`crate` must be a path to the runtime, e.g. \"::agentwire::runtime\"",
                    ),
                }
            } else {
                let name = meta.path.to_token_stream().to_string().replace(' ', "");
                cx.error_at(
                    &meta.path,
                    format!(
                        "unknown protocol attribute `{name}`; expected `spec = \"...\"`, `schemars` or `crate = \"...\"`"
                    ),
                );
                skip_value(&meta)?;
            }
            Ok(())
        });
        if let Err(e) = parsed {
            cx.push(e);
        }
    }
    if !seen_attr {
        cx.error_at(
            &input.ident,
            "`#[derive(Protocol)]` needs `#[protocol(spec = \"spec/<folder>\")]`, the spec folder relative to Cargo.toml",
        );
        return None;
    }
    if spec.is_none() && !cx.has_errors() {
        cx.error_at(
            &input.ident,
            "missing `spec = \"...\"` in `#[protocol(...)]`: name the spec folder relative to Cargo.toml",
        );
    }
    let spec = spec?;
    let mut settings = Settings {
        schemars: schemars.is_some(),
        ..Settings::default()
    };
    if let Some(path) = runtime {
        settings.runtime = path;
    }
    Some(Options { spec, settings })
}

/// Consumes whatever follows an unknown key (`= value` or `(...)`) so parsing can go on and
/// report the attribute's other mistakes too.
fn skip_value(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        let _: Expr = meta.value()?.parse()?;
    } else if meta.input.peek(syn::token::Paren) {
        let _: proc_macro2::Group = meta.input.parse()?;
    }
    Ok(())
}

/// Everything the derive emits for one spec, before it becomes tokens.
pub(crate) struct Expansion {
    /// The generated module with every submodule inline; its visibility is set on output.
    pub(crate) module: syn::ItemMod,
    /// Every spec file the generator read.
    pub(crate) spec_files: Vec<PathBuf>,
}

impl Expansion {
    fn to_tokens(&self, vis: &syn::Visibility) -> TokenStream {
        let includes = self.spec_files.iter().map(|p| {
            let path = p.to_string_lossy();
            quote!(
                const _: &str = ::core::include_str!(#path);
            )
        });
        let mut module = self.module.clone();
        module.vis = vis.clone();
        quote! {
            #(#includes)*
            #[allow(missing_docs, unreachable_pub, clippy::all, clippy::pedantic, clippy::nursery)]
            #module
        }
    }
}

/// Runs the generator on `spec_dir` and assembles its module (`agentwire_codegen::inline`,
/// which `agentwire-build` prints too). Errors start with one line,
/// `file:line:col: message (hint: ...)`, with paths relative to `manifest_dir`, followed by
/// the source line with the mistake underlined.
pub(crate) fn expand_spec(
    spec_dir: &Path,
    manifest_dir: &Path,
    settings: &Settings,
) -> Result<Expansion, Vec<String>> {
    let inline = InlineSettings {
        schemars: settings.schemars,
        runtime: settings.runtime.clone(),
        transport: settings.transport.clone(),
    };
    let inlined = inline_spec(spec_dir, &inline).map_err(|errors| {
        errors
            .errors
            .iter()
            .map(|e| relative_to(&e.render(), manifest_dir))
            .collect::<Vec<_>>()
    })?;
    Ok(Expansion {
        module: inlined.module,
        spec_files: inlined.spec_files,
    })
}

/// Rewrites absolute paths under the crate as paths relative to it, so messages read
/// `spec/x/messages.ts:3:7` the same on every machine.
fn relative_to(line: &str, manifest_dir: &Path) -> String {
    let prefix = format!("{}{}", manifest_dir.display(), std::path::MAIN_SEPARATOR);
    line.replace(&prefix, "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_paths_relative_to_the_crate() {
        let dir = Path::new("/nowhere/crate");
        let line = format!(
            "{}: bad",
            dir.join("spec/x/messages.ts:3:7").to_string_lossy()
        );
        assert_eq!(relative_to(&line, dir), "spec/x/messages.ts:3:7: bad");
    }
}
