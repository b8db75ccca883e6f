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
//! The generated files are taken as syntax trees from `agentwire_codegen::generate` (the
//! call `cargo xtask gen` makes, which prints the same trees), so both front doors share every
//! item.
//! Three things differ by design: each `mod name;` is replaced by the file it names, inline;
//! `SCHEMA`'s `include_str!` of the schema file becomes the schema text itself (there is no
//! `schemas/` folder downstream); and unless the attribute says `schemars`, the items and
//! attributes gated on `feature = "schemars"` are dropped, so a crate that declares no such
//! feature gets no `unexpected_cfgs` warnings.

use std::path::{Path, PathBuf};

use agentwire_codegen::{Contents, OutputFile, generate};
use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Attribute, DeriveInput, Expr, Item, LitStr};

use crate::ctxt::Ctxt;

/// How the module is expanded, from the `#[protocol(...)]` options other than `spec`.
pub(crate) struct Settings {
    /// Keep the `feature = "schemars"` gated derives and items (`#[protocol(schemars)]`).
    pub(crate) schemars: bool,
    /// Where emitted code finds the runtime (`#[protocol(crate = "...")]`).
    pub(crate) runtime: syn::Path,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            schemars: false,
            runtime: syn::parse_quote!(::agentwire::runtime),
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

/// Runs the generator on `spec_dir` and assembles its module. Errors are one line each,
/// `file:line:col: message (hint: ...)`, with paths relative to `manifest_dir`.
pub(crate) fn expand_spec(
    spec_dir: &Path,
    manifest_dir: &Path,
    settings: &Settings,
) -> Result<Expansion, Vec<String>> {
    let generated = generate(spec_dir).map_err(|errors| {
        errors
            .errors
            .iter()
            .map(|e| relative_to(&e.one_line(), manifest_dir))
            .collect::<Vec<_>>()
    })?;
    let module = &generated.module;
    let root = [format!("src/{module}.rs"), format!("src/{module}/mod.rs")]
        .into_iter()
        .find(|p| generated.files.iter().any(|f| &f.path == p))
        .ok_or_else(|| {
            vec![format!(
                "internal error: the generator wrote no module for {module}"
            )]
        })?;
    let (attrs, mut items) = load_module(&generated.files, &root, settings).map_err(|e| vec![e])?;
    if !settings.schemars {
        strip_schemars(&mut items);
    }
    let ident = syn::parse_str::<syn::Ident>(module)
        .map_err(|_| vec![format!("protocol name `{module}` is not a Rust identifier")])?;
    let module = syn::ItemMod {
        attrs,
        vis: syn::Visibility::Inherited,
        unsafety: None,
        mod_token: Default::default(),
        ident,
        content: Some((Default::default(), items)),
        semi: None,
    };
    Ok(Expansion {
        module,
        spec_files: generated.spec.files.clone(),
    })
}

/// Rewrites absolute paths under the crate as paths relative to it, so messages read
/// `spec/x/messages.ts:3:7` the same on every machine.
fn relative_to(line: &str, manifest_dir: &Path) -> String {
    let prefix = format!("{}{}", manifest_dir.display(), std::path::MAIN_SEPARATOR);
    line.replace(&prefix, "")
}

/// The `use` that lets emitted code name the runtime `agentwire_runtime`.
pub(crate) fn runtime_alias(settings: &Settings) -> Item {
    let runtime = &settings.runtime;
    syn::parse_quote! {
        #[allow(unused_imports)]
        use #runtime as agentwire_runtime;
    }
}

/// Parses the generated file at `path` (inner attributes, items), inlining the files its
/// `mod name;` items name and the generated files it `include_str!`s.
fn load_module(
    files: &[OutputFile],
    path: &str,
    settings: &Settings,
) -> Result<(Vec<Attribute>, Vec<Item>), String> {
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
    let base = path.rsplit_once('/').map_or("", |(dir, _)| dir).to_owned();
    let mut items = vec![runtime_alias(settings)];
    for mut item in parsed.items {
        match &mut item {
            Item::Mod(m) if m.content.is_none() => {
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
                let (inner, child_items) = load_module(files, &child, settings)?;
                m.attrs.extend(inner);
                m.content = Some((Default::default(), child_items));
                m.semi = None;
            }
            Item::Const(c) => {
                if let Some(rel) = included_path(&c.expr) {
                    let target = join(&base, &rel);
                    let included = files.iter().find(|f| f.path == target).ok_or_else(|| {
                        format!("internal error: generated {path} includes {rel}, which the generator did not write")
                    })?;
                    let Contents::Text(included) = &included.contents else {
                        return Err(format!(
                            "internal error: generated {path} includes Rust source {rel}"
                        ));
                    };
                    let text = LitStr::new(included, c.expr.span());
                    *c.expr = syn::parse_quote!(#text);
                }
            }
            _ => {}
        }
        items.push(item);
    }
    Ok((parsed.attrs, items))
}

/// The argument of `include_str!("...")`, when `expr` is one.
pub(crate) fn included_path(expr: &Expr) -> Option<String> {
    let Expr::Macro(m) = expr else { return None };
    if !m.mac.path.is_ident("include_str") {
        return None;
    }
    m.mac.parse_body::<LitStr>().ok().map(|l| l.value())
}

/// `base/rel` with `.` and `..` segments resolved, `/`-separated.
fn join(base: &str, rel: &str) -> String {
    let mut parts: Vec<&str> = base.split('/').filter(|s| !s.is_empty()).collect();
    for seg in rel.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    parts.join("/")
}

/// Drops every item gated on `cfg(feature = "schemars")` and every
/// `cfg_attr(feature = "schemars", ...)` attribute, at any depth.
pub(crate) fn strip_schemars(items: &mut Vec<Item>) {
    items.retain(|item| !item_attrs(item).iter().any(is_schemars_cfg));
    for item in items {
        if let Some(attrs) = item_attrs_mut(item) {
            strip_attrs(attrs);
        }
        match item {
            Item::Struct(s) => strip_fields(&mut s.fields),
            Item::Enum(e) => {
                for v in &mut e.variants {
                    strip_attrs(&mut v.attrs);
                    strip_fields(&mut v.fields);
                }
            }
            Item::Mod(m) => {
                if let Some((_, items)) = &mut m.content {
                    strip_schemars(items);
                }
            }
            Item::Impl(i) => {
                i.items
                    .retain(|it| !impl_item_attrs(it).iter().any(is_schemars_cfg));
                for it in &mut i.items {
                    match it {
                        syn::ImplItem::Fn(f) => strip_attrs(&mut f.attrs),
                        syn::ImplItem::Const(c) => strip_attrs(&mut c.attrs),
                        syn::ImplItem::Type(t) => strip_attrs(&mut t.attrs),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
}

fn strip_fields(fields: &mut syn::Fields) {
    for f in fields.iter_mut() {
        strip_attrs(&mut f.attrs);
    }
}

fn strip_attrs(attrs: &mut Vec<Attribute>) {
    attrs.retain(|a| !is_schemars_cfg_attr(a));
}

fn impl_item_attrs(item: &syn::ImplItem) -> &[Attribute] {
    match item {
        syn::ImplItem::Fn(f) => &f.attrs,
        syn::ImplItem::Const(c) => &c.attrs,
        syn::ImplItem::Type(t) => &t.attrs,
        syn::ImplItem::Macro(m) => &m.attrs,
        _ => &[],
    }
}

fn item_attrs(item: &Item) -> &[Attribute] {
    match item {
        Item::Const(i) => &i.attrs,
        Item::Enum(i) => &i.attrs,
        Item::ExternCrate(i) => &i.attrs,
        Item::Fn(i) => &i.attrs,
        Item::ForeignMod(i) => &i.attrs,
        Item::Impl(i) => &i.attrs,
        Item::Macro(i) => &i.attrs,
        Item::Mod(i) => &i.attrs,
        Item::Static(i) => &i.attrs,
        Item::Struct(i) => &i.attrs,
        Item::Trait(i) => &i.attrs,
        Item::TraitAlias(i) => &i.attrs,
        Item::Type(i) => &i.attrs,
        Item::Union(i) => &i.attrs,
        Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

fn item_attrs_mut(item: &mut Item) -> Option<&mut Vec<Attribute>> {
    Some(match item {
        Item::Const(i) => &mut i.attrs,
        Item::Enum(i) => &mut i.attrs,
        Item::ExternCrate(i) => &mut i.attrs,
        Item::Fn(i) => &mut i.attrs,
        Item::ForeignMod(i) => &mut i.attrs,
        Item::Impl(i) => &mut i.attrs,
        Item::Macro(i) => &mut i.attrs,
        Item::Mod(i) => &mut i.attrs,
        Item::Static(i) => &mut i.attrs,
        Item::Struct(i) => &mut i.attrs,
        Item::Trait(i) => &mut i.attrs,
        Item::TraitAlias(i) => &mut i.attrs,
        Item::Type(i) => &mut i.attrs,
        Item::Union(i) => &mut i.attrs,
        Item::Use(i) => &mut i.attrs,
        _ => return None,
    })
}

/// Whether the first tokens of `attr`'s list are `feature = "schemars"`.
fn gated_on_schemars(attr: &Attribute) -> bool {
    let Ok(list) = attr.meta.require_list() else {
        return false;
    };
    let first: Vec<String> = list
        .tokens
        .clone()
        .into_iter()
        .take(3)
        .map(|t| match t {
            TokenTree::Literal(l) => l.to_string(),
            other => other.to_string(),
        })
        .collect();
    first == ["feature", "=", "\"schemars\""]
}

/// `#[cfg(feature = "schemars")]`.
fn is_schemars_cfg(attr: &Attribute) -> bool {
    attr.path().is_ident("cfg") && gated_on_schemars(attr)
}

/// `#[cfg_attr(feature = "schemars", ...)]`.
fn is_schemars_cfg_attr(attr: &Attribute) -> bool {
    attr.path().is_ident("cfg_attr") && gated_on_schemars(attr)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn include_paths_resolve_against_the_including_file() {
        assert_eq!(
            join("src", "../schemas/x.schema.json"),
            "schemas/x.schema.json"
        );
        assert_eq!(join("src/m", "./a.rs"), "src/m/a.rs");
    }

    #[test]
    fn schemars_gates_are_dropped_at_every_depth() {
        let mut items: Vec<Item> = vec![
            syn::parse_quote! {
                #[cfg_attr(feature = "schemars", derive(::schemars::JsonSchema))]
                #[derive(Debug)]
                pub struct A {
                    #[cfg_attr(feature = "schemars", schemars(length(min = 1u64)))]
                    pub id: String,
                }
            },
            syn::parse_quote! {
                #[cfg(feature = "schemars")]
                pub fn schemars_schema() {}
            },
            syn::parse_quote! {
                #[cfg(feature = "other")]
                pub fn kept() {}
            },
        ];
        strip_schemars(&mut items);
        let text = quote!(#(#items)*).to_string();
        assert!(!text.contains("schemars"), "{text}");
        assert!(text.contains("derive (Debug)"), "{text}");
        assert!(text.contains("fn kept"), "{text}");
    }

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
