//! One protocol as a single inline module: the files the generator writes for a spec folder
//! (`src/<module>.rs` and its submodules, and with `transport` its skeleton), nested into one
//! `mod <module> { ... }`. `#[derive(Protocol)]` splices it beside the deriving struct and
//! `agentwire-build` prints it into `OUT_DIR`, so the derive, the build script, `cargo xtask
//! gen` and `agentwire gen` share every item.
//!
//! The skeleton, which the generated crate keeps at `crate::skeletons::<module>`, becomes
//! `<module>::skeleton`; its paths into the protocol module (`crate::<module>::...`) are
//! rewritten to `super::super::<module>::...`, which names the same module from there wherever
//! the inline module sits, and `use <transport> as agentwire_transport;` opens it.

use std::path::{Path, PathBuf};

use proc_macro2::{Spacing, TokenStream, TokenTree};
use quote::quote;
use syn::{Attribute, Item, ItemMod};

use crate::diag::{SpecError, SpecErrors};
use crate::generate::{generate_with, skeleton_path};
use crate::options::Options;
use crate::output::{Contents, OutputFile};

/// The name of the skeleton's module inside the inline protocol module.
pub const SKELETON_MODULE: &str = "skeleton";

/// How the inline module is shaped.
#[derive(Clone)]
pub struct InlineSettings {
    /// Keep the `feature = "schemars"` gated derives and items.
    pub schemars: bool,
    /// Where emitted code finds the runtime, e.g. `::agentwire::runtime`.
    pub runtime: syn::Path,
    /// Where the skeleton finds the transport crate, e.g. `::agentwire::transport`; `None`
    /// leaves the skeleton out.
    pub transport: Option<syn::Path>,
}

impl std::fmt::Debug for InlineSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InlineSettings")
            .field("schemars", &self.schemars)
            .field("skeleton", &self.transport.is_some())
            .finish()
    }
}

/// A spec folder's protocol as one module.
#[derive(Clone)]
pub struct Inlined {
    /// The module, private; its items are the generated files' items.
    pub module: ItemMod,
    /// Every spec file the generator read (for `include_str!` or `rerun-if-changed`).
    pub spec_files: Vec<PathBuf>,
    /// Whether the skeleton was spliced in.
    pub skeleton: bool,
}

impl std::fmt::Debug for Inlined {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inlined")
            .field("module", &self.module.ident.to_string())
            .field("spec_files", &self.spec_files)
            .field("skeleton", &self.skeleton)
            .finish()
    }
}

/// Runs the generator on `spec_dir` and nests its files into one module.
pub fn inline_spec(spec_dir: &Path, settings: &InlineSettings) -> Result<Inlined, SpecErrors> {
    let options = Options {
        schemars: settings.schemars,
        inline_assets: true,
        runtime: Some(settings.runtime.clone()),
    };
    let generated = generate_with(spec_dir, &options)?;
    let module = inline_files(
        &generated.files,
        &generated.module,
        settings.transport.as_ref(),
    )
    .map_err(|e| SpecErrors::from(SpecError::new(e)))?;
    let skeleton = settings.transport.is_some()
        && generated
            .files
            .iter()
            .any(|f| f.path == skeleton_path(&generated.module));
    Ok(Inlined {
        module,
        spec_files: generated.spec.files.clone(),
        skeleton,
    })
}

/// Nests `files` (the generator's output for `module`, or the same files read back from a
/// generated crate) into one module; with `transport`, the skeleton file too, if there is one.
pub fn inline_files(
    files: &[OutputFile],
    module: &str,
    transport: Option<&syn::Path>,
) -> Result<ItemMod, String> {
    let root = [format!("src/{module}.rs"), format!("src/{module}/mod.rs")]
        .into_iter()
        .find(|p| files.iter().any(|f| &f.path == p))
        .ok_or_else(|| format!("internal error: the generator wrote no module for {module}"))?;
    let (attrs, mut items) = load_module(files, &root)?;
    if let Some(transport) = transport
        && files.iter().any(|f| f.path == skeleton_path(module))
    {
        if items
            .iter()
            .any(|i| matches!(i, Item::Mod(m) if m.ident == SKELETON_MODULE))
        {
            return Err(format!(
                "module `{module}` already has an item named `{SKELETON_MODULE}`; the skeleton cannot be added beside it"
            ));
        }
        items.push(skeleton_module(files, module, transport)?);
    }
    let ident = syn::parse_str::<syn::Ident>(module)
        .map_err(|_| format!("protocol name `{module}` is not a Rust identifier"))?;
    Ok(ItemMod {
        attrs,
        vis: syn::Visibility::Inherited,
        unsafety: None,
        mod_token: Default::default(),
        ident,
        content: Some((Default::default(), items)),
        semi: None,
    })
}

/// `pub mod skeleton { ... }`: the skeleton file, relocated under the protocol module.
fn skeleton_module(
    files: &[OutputFile],
    module: &str,
    transport: &syn::Path,
) -> Result<Item, String> {
    let (attrs, items) = load_module(files, &skeleton_path(module))?;
    let body = quote!(#(#items)*);
    let body = relocate(body, module);
    let ident = syn::Ident::new(SKELETON_MODULE, proc_macro2::Span::call_site());
    let tokens = quote! {
        pub mod #ident {
            #(#attrs)*
            #[allow(unused_imports)]
            use #transport as agentwire_transport;
            #body
        }
    };
    syn::parse2(tokens).map_err(|e| {
        format!("internal error: the skeleton of {module} does not parse once moved: {e}")
    })
}

/// Rewrites the skeleton's paths for its new place, `<module>::skeleton`: `crate :: <module>`
/// becomes `super :: super :: <module>`, one more `super` inside each module the skeleton
/// nests (tonic's server and client modules); and inside those nested modules the
/// `agentwire_transport` alias, which the skeleton module opens with, is reached through
/// `super` as well (a `use` is not seen by child modules).
fn relocate(tokens: TokenStream, module: &str) -> TokenStream {
    relocate_at(tokens, module, 0)
}

/// [`relocate`] for tokens `nested` modules below the skeleton module.
fn relocate_at(tokens: TokenStream, module: &str, nested: usize) -> TokenStream {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out: Vec<TokenTree> = Vec::with_capacity(trees.len());
    let supers = |n: usize| -> TokenStream { (0..n).map(|_| quote!(super::)).collect() };
    let is_path_sep = |i: usize| {
        matches!(trees.get(i), Some(TokenTree::Punct(p)) if p.as_char() == ':' && p.spacing() == Spacing::Joint)
            && matches!(trees.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == ':')
    };
    let mut i = 0;
    while i < trees.len() {
        let ident =
            |at: usize, name: &str| matches!(trees.get(at), Some(TokenTree::Ident(x)) if x == name);
        if ident(i, "crate") && is_path_sep(i + 1) && ident(i + 3, module) {
            out.extend(supers(nested + 2));
            i += 3;
            continue;
        }
        let after_path_or_as = i > 0
            && (matches!(&trees[i - 1], TokenTree::Punct(p) if p.as_char() == ':')
                || ident(i - 1, "as"));
        if nested > 0 && ident(i, "agentwire_transport") && is_path_sep(i + 1) && !after_path_or_as
        {
            out.extend(supers(nested));
        }
        // `mod name { ... }`: its body is one module further down.
        let module_body =
            i >= 2 && ident(i - 2, "mod") && matches!(trees.get(i - 1), Some(TokenTree::Ident(_)));
        match &trees[i] {
            TokenTree::Group(g) => {
                let depth = if module_body && g.delimiter() == proc_macro2::Delimiter::Brace {
                    nested + 1
                } else {
                    nested
                };
                let stream = relocate_at(g.stream(), module, depth);
                let mut group = proc_macro2::Group::new(g.delimiter(), stream);
                group.set_span(g.span());
                out.push(TokenTree::Group(group));
            }
            other => out.push(other.clone()),
        }
        i += 1;
    }
    out.into_iter().collect()
}

/// The generated file at `path` (inner attributes, items), with the files its `mod name;`
/// items name inlined.
fn load_module(files: &[OutputFile], path: &str) -> Result<(Vec<Attribute>, Vec<Item>), String> {
    let file = files
        .iter()
        .find(|f| f.path == path)
        .ok_or_else(|| format!("internal error: the generator wrote no {path}"))?;
    let parsed = match &file.contents {
        Contents::Rust(tree) => tree.clone(),
        Contents::Source(text) | Contents::Text(text) => syn::parse_file(text)
            .map_err(|e| format!("internal error: generated {path} does not parse: {e}"))?,
    };
    // `src/m.rs` and `src/m/mod.rs` both keep their submodules in `src/m/`.
    let children = path
        .strip_suffix("/mod.rs")
        .or_else(|| path.strip_suffix(".rs"))
        .unwrap_or(path)
        .to_owned();
    let mut items = Vec::new();
    for mut item in parsed.items {
        if let Item::Mod(m) = &mut item
            && m.content.is_none()
        {
            let name = m.ident.to_string();
            let child = [
                format!("{children}/{name}.rs"),
                format!("{children}/{name}/mod.rs"),
            ]
            .into_iter()
            .find(|p| files.iter().any(|f| &f.path == p))
            .ok_or_else(|| {
                format!("internal error: `mod {name};` in generated {path} has no file")
            })?;
            let (inner, child_items) = load_module(files, &child)?;
            m.attrs.extend(inner);
            m.content = Some((Default::default(), child_items));
            m.semi = None;
        }
        items.push(item);
    }
    Ok((parsed.attrs, items))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// tonic's server and client modules sit one module below the skeleton: their paths into
    /// the protocol take one more `super`, and the transport alias is reached through `super`.
    #[test]
    fn nested_modules_take_one_more_super() {
        let tokens = quote! {
            use agentwire_transport::grpc;
            pub mod meter_server {
                use agentwire_transport as t;
                fn f() -> crate::chat::Reading { agentwire_transport::grpc::ServerCodec::default() }
            }
        };
        let text = relocate(tokens, "chat").to_string();
        assert!(
            text.starts_with("use agentwire_transport :: grpc"),
            "{text}"
        );
        assert!(text.contains("use agentwire_transport as t"), "{text}");
        assert!(
            text.contains("-> super :: super :: super :: chat :: Reading"),
            "{text}"
        );
        assert!(
            text.contains("{ super :: agentwire_transport :: grpc :: ServerCodec"),
            "{text}"
        );
    }

    #[test]
    fn paths_into_the_protocol_module_are_relocated_at_any_depth() {
        let tokens = quote! {
            use crate::chat as proto;
            fn f() -> crate::chat::machine::Checker { crate::other::x(); { crate::chat::y() } }
        };
        let text = relocate(tokens, "chat").to_string();
        assert!(
            text.contains("use super :: super :: chat as proto"),
            "{text}"
        );
        assert!(
            text.contains("-> super :: super :: chat :: machine :: Checker"),
            "{text}"
        );
        assert!(text.contains("crate :: other :: x"), "{text}");
        assert!(
            text.contains("{ super :: super :: chat :: y () }"),
            "{text}"
        );
    }

    #[test]
    fn the_skeleton_is_nested_with_the_transport_alias() {
        let files = vec![
            OutputFile::rust(
                "src/chat.rs",
                syn::parse_quote!(
                    pub struct Ask;
                ),
            ),
            OutputFile::rust(
                "src/skeletons/chat.rs",
                syn::parse_quote!(
                    //! Both roles.
                    use crate::chat as proto;
                ),
            ),
        ];
        let transport: syn::Path = syn::parse_quote!(::agentwire::transport);
        let m = inline_files(&files, "chat", Some(&transport)).unwrap();
        let text = quote!(#m).to_string();
        assert!(text.contains("pub mod skeleton"), "{text}");
        assert!(
            text.contains("use :: agentwire :: transport as agentwire_transport"),
            "{text}"
        );
        assert!(
            text.contains("use super :: super :: chat as proto"),
            "{text}"
        );
        let without = inline_files(&files, "chat", None).unwrap();
        assert!(!quote!(#without).to_string().contains("skeleton"));
    }
}
