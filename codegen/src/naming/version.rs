//! The names a declared protocol version gets: its Rust module (`v` and the version string
//! with every other character than a letter or digit as `_`), its variant in the generated
//! `Version` enum, its unstable form's module and feature, and where its files go in the
//! generated crate.

use crate::ir::Protocol;

/// The module of version `name`: `2025-11-25` is `v2025_11_25`, `2` is `v2`, `beta.1` is
/// `vbeta_1`; always a plain snake_case identifier that is no keyword.
pub fn version_module(name: &str) -> String {
    let mut out = String::from("v");
    for c in name.chars() {
        out.push(if c.is_ascii_alphanumeric() {
            c.to_ascii_lowercase()
        } else {
            '_'
        });
    }
    out
}

/// The module of a version's unstable form (`versions[].unstable`): `v1` is `v1_unstable`.
pub fn unstable_module(version_module: &str) -> String {
    format!("{version_module}_unstable")
}

/// The cargo feature of the generated crate that builds a protocol's unstable modules:
/// `<module>-unstable`, beside the protocol's own feature, which it turns on.
pub fn unstable_feature(module: &str) -> String {
    format!("{module}-unstable")
}

/// The `Version` enum's variant of a version module (`v2025_11_25` is `V2025_11_25`).
pub fn version_variant(module: &str) -> String {
    let mut out = module.to_owned();
    out.replace_range(0..1, "V");
    out
}

/// The path of `p`'s module below the crate root: `tick` for a protocol of one version (or a
/// versioned folder's dispatching module), `tick::v2` for one version, as a skeleton names it
/// after `crate::`.
pub fn module_path(p: &Protocol) -> proc_macro2::TokenStream {
    let m = quote::format_ident!("{}", p.module);
    match &p.version {
        None => quote::quote!(#m),
        Some(v) => {
            let v = quote::format_ident!("{}", v.module);
            quote::quote!(#m::#v)
        }
    }
}

/// Where a protocol's files go: `src/<module>.rs` and `schemas/<module>.schema.json` for a
/// protocol of one version (and a versioned folder's dispatching module), and
/// `src/<module>/<version>.rs`, `schemas/<module>/<version>.schema.json` for one version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePaths {
    /// The Rust file, relative to the crate root.
    pub rust: String,
    /// The folder of the module's own submodules (`machine.rs`).
    pub dir: String,
    pub schema: String,
    pub diagrams: String,
    /// The path from the Rust file's folder up to the crate root.
    pub up_to_root: &'static str,
    /// The `$id` of the JSON Schema.
    pub schema_id: String,
}

impl FilePaths {
    pub fn of(p: &Protocol) -> Self {
        let m = &p.module;
        match &p.version {
            None => FilePaths {
                rust: format!("src/{m}.rs"),
                dir: format!("src/{m}"),
                schema: format!("schemas/{m}.schema.json"),
                diagrams: format!("diagrams/{m}.md"),
                up_to_root: "..",
                schema_id: format!("urn:agentwire:{m}"),
            },
            Some(v) => {
                let vm = &v.module;
                FilePaths {
                    rust: format!("src/{m}/{vm}.rs"),
                    dir: format!("src/{m}/{vm}"),
                    schema: format!("schemas/{m}/{vm}.schema.json"),
                    diagrams: format!("diagrams/{m}/{vm}.md"),
                    up_to_root: "../..",
                    schema_id: format!("urn:agentwire:{m}:{vm}"),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_modules_are_identifiers() {
        assert_eq!(version_module("2025-11-25"), "v2025_11_25");
        assert_eq!(version_module("2"), "v2");
        assert_eq!(version_module("Beta.1"), "vbeta_1");
        assert_eq!(version_variant("v2025_11_25"), "V2025_11_25");
    }
}
