//! Generator options, for the derive: whether the `feature = "schemars"` gated items stay,
//! whether assets (the JSON Schema) are inlined where `cargo xtask gen` writes
//! `include_str!`, and which path the emitted code's `agentwire_runtime` stands for. Applied to
//! the syntax trees `generate` returns, before anything is printed.

use proc_macro2::TokenTree;
use syn::{Attribute, Expr, Item, LitStr};

use crate::output::{Contents, OutputFile};

/// How `generate_with` shapes its output.
#[derive(Clone)]
pub struct Options {
    /// Keep the `feature = "schemars"` gated derives and items.
    pub schemars: bool,
    /// Replace each `include_str!` of a generated asset by the asset's text (there is no
    /// `schemas/` folder beside a derive).
    pub inline_assets: bool,
    /// Where emitted code finds the runtime: `use <path> as agentwire_runtime;` opens every
    /// Rust file. `None`: the `agentwire_runtime` crate itself.
    pub runtime: Option<syn::Path>,
}

impl Default for Options {
    /// What `cargo xtask gen` writes.
    fn default() -> Self {
        Options {
            schemars: true,
            inline_assets: false,
            runtime: None,
        }
    }
}

impl std::fmt::Debug for Options {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Options")
            .field("schemars", &self.schemars)
            .field("inline_assets", &self.inline_assets)
            .field("runtime", &self.runtime.is_some())
            .finish()
    }
}

/// The `use` that lets emitted code name the runtime `agentwire_runtime`.
pub fn runtime_alias(runtime: &syn::Path) -> Item {
    syn::parse_quote! {
        #[allow(unused_imports)]
        use #runtime as agentwire_runtime;
    }
}

/// Applies `options` to every Rust file of `files`.
pub fn apply(files: &mut [OutputFile], options: &Options) -> Result<(), String> {
    let assets: Vec<(String, String)> = files
        .iter()
        .filter_map(|f| match &f.contents {
            Contents::Text(t) => Some((f.path.clone(), t.clone())),
            _ => None,
        })
        .collect();
    for file in files.iter_mut() {
        let Contents::Rust(tree) = &mut file.contents else {
            continue;
        };
        if !options.schemars {
            strip_schemars(&mut tree.items);
        }
        if options.inline_assets {
            let base = file.path.rsplit_once('/').map_or("", |(dir, _)| dir);
            inline_assets(&mut tree.items, base, &assets).map_err(|rel| {
                format!(
                    "internal error: {} includes {rel}, which the generator did not write",
                    file.path
                )
            })?;
        }
        if let Some(runtime) = &options.runtime {
            tree.items.insert(0, runtime_alias(runtime));
        }
    }
    Ok(())
}

/// Replaces `const X: &str = include_str!("rel");` by the text of the asset `rel` names.
fn inline_assets(
    items: &mut [Item],
    base: &str,
    assets: &[(String, String)],
) -> Result<(), String> {
    for item in items {
        let Item::Const(c) = item else { continue };
        let Some(rel) = included_path(&c.expr) else {
            continue;
        };
        let target = join(base, &rel);
        let (_, text) = assets.iter().find(|(p, _)| *p == target).ok_or(rel)?;
        let lit = LitStr::new(text, proc_macro2::Span::call_site());
        *c.expr = syn::parse_quote!(#lit);
    }
    Ok(())
}

/// The argument of `include_str!("...")`, when `expr` is one.
pub fn included_path(expr: &Expr) -> Option<String> {
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
pub fn strip_schemars(items: &mut Vec<Item>) {
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
    use quote::quote;

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
    fn assets_are_inlined_and_the_runtime_aliased() {
        let tree: syn::File = syn::parse_quote! {
            pub const SCHEMA: &str = include_str!("../schemas/m.schema.json");
        };
        let mut files = vec![
            OutputFile::rust("src/m.rs", tree),
            OutputFile::text("schemas/m.schema.json", "{}"),
        ];
        let options = Options {
            schemars: false,
            inline_assets: true,
            runtime: Some(syn::parse_quote!(::agentwire::runtime)),
        };
        apply(&mut files, &options).unwrap();
        let Contents::Rust(tree) = &files[0].contents else {
            panic!("not Rust");
        };
        let text = quote!(#tree).to_string();
        assert!(
            text.contains("use :: agentwire :: runtime as agentwire_runtime"),
            "{text}"
        );
        assert!(text.contains(r#"SCHEMA : & str = "{}""#), "{text}");
    }
}
