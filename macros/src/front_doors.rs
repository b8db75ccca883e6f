//! The two front doors agree: for each spec folder (the built-ins and the test protocols), the module `#[derive(Protocol)]` expands
//! to (the same `expand_spec` the proc macro calls) has the same items as the files
//! `cargo xtask gen` checked in (under `generated/`, or the test protocols' crate).
//!
//! Both sides are compared as prettyplease output of parsed token streams, file by file.
//! What differs by design, and is normalized before comparing:
//! - the `// @generated` header line of each checked-in file (a plain comment, gone once
//!   parsed);
//! - the module wrapper: each inline `mod name { ... }` of the expansion is compared with the
//!   file `name.rs` it came from and then stands as `mod name;`, its inner attributes (the
//!   file's `//!` docs and `#![allow]`s) going back to that file;
//! - the `use <runtime> as agentwire_runtime;` alias the derive puts first in every module;
//! - `SCHEMA`: the expansion holds the schema text where the checked-in file has
//!   `include_str!("../schemas/<module>.schema.json")`; the text must equal that file, and the
//!   expression is then put back as the `include_str!`;
//! - the `include_str!` consts for the spec files and the lint `#[allow]` on the module, which
//!   sit outside the module and are not part of `Expansion::module`.
//!
//! - the skeleton: the expansion holds it as `<module>::skeleton`, which is compared with the
//!   checked-in `src/skeletons/<module>.rs` moved there the same documented way
//!   (`agentwire_codegen::inline`), and then taken out.
//!
//! The expansion compared is the `schemars` one (the checked-in crate has a `schemars`
//! feature); a last check shows the default expansion differs from it only by the
//! schemars-gated items and attributes.

use std::path::{Path, PathBuf};

use quote::quote;
use syn::{Item, ItemMod};

use agentwire_codegen::inline::{SKELETON_MODULE, inline_files};
use agentwire_codegen::options::{included_path, runtime_alias, strip_schemars};
use agentwire_codegen::{Contents, OutputFile};

use crate::protocol::{Settings, expand_spec};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the macros crate sits in the workspace")
        .to_path_buf()
}

/// Every spec folder `cargo xtask gen` generates, with the crate it generates it into: the
/// built-ins (`spec/` into `generated/`) and the test protocols (inside their own crate).
fn spec_folders() -> Vec<(PathBuf, PathBuf)> {
    let root = workspace();
    let mut out = Vec::new();
    for (specs, generated) in [
        (root.join("spec"), root.join("generated")),
        (root.join("tests/protocols"), root.join("tests/protocols")),
    ] {
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(&specs)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.join("protocol.yaml").is_file())
            .collect();
        dirs.sort();
        out.extend(dirs.into_iter().map(|d| (d, generated.clone())));
    }
    assert!(out.len() >= 7, "spec folders missing: {out:?}");
    // Pinned registry files (`types: {npm: ...}`) come into the local cache the way
    // `cargo xtask gen` fetches them, so this test runs on a clean clone too.
    let dirs: Vec<PathBuf> = out.iter().map(|(d, _)| d.clone()).collect();
    if let Err(e) = agentwire_codegen::front::fetch::fetch_all(&dirs) {
        panic!("{e}");
    }
    out
}

/// A spec folder's spec files: everything but its talk test, traces and staged files (a
/// version being written, which the generator does not read yet), with the files of its
/// subfolders (a `.proto` may import one from there).
fn spec_files_on_disk(dir: &Path) -> Vec<PathBuf> {
    let mut on_disk = Vec::new();
    for path in std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()) {
        if path.is_dir() && !path.ends_with("traces") && !path.ends_with("staged") {
            on_disk.extend(spec_files_on_disk(&path));
        } else if path.is_file() && !path.ends_with("talk.rs") {
            on_disk.push(path);
        }
    }
    on_disk.sort();
    on_disk
}

#[test]
fn derive_and_xtask_gen_produce_the_same_items() {
    let root = workspace();
    for (dir, generated) in spec_folders() {
        let module = dir.file_name().unwrap().to_string_lossy().into_owned();
        let settings = Settings {
            schemars: true,
            transport: Some(syn::parse_quote!(::agentwire::transport)),
            ..Settings::default()
        };
        let mut expansion =
            expand_spec(&dir, &root, &settings).unwrap_or_else(|e| panic!("{module}: {e:?}"));
        compare_skeleton(&generated, &module, &mut expansion.module);
        let file = if generated.join(format!("src/{module}.rs")).is_file() {
            format!("src/{module}.rs")
        } else {
            format!("src/{module}/mod.rs")
        };
        let compared = compare(&generated, &file, &expansion.module, &settings);
        // A types-only spec (no `transport`) has no machine module.
        let yaml = std::fs::read_to_string(dir.join("protocol.yaml")).unwrap();
        let types_only = !yaml.lines().any(|l| l.starts_with("transport:"));
        assert!(
            compared >= if types_only { 1 } else { 2 },
            "{module}: only {compared} files compared; the machine module is missing"
        );

        // Every file of the spec folder is included, so editing any of them rebuilds.
        let on_disk = spec_files_on_disk(&dir);
        // A pinned registry file is included from the cache, outside the folder.
        let mut included: Vec<PathBuf> = expansion
            .spec_files
            .iter()
            .filter(|p| p.starts_with(&dir))
            .cloned()
            .collect();
        included.sort();
        assert_eq!(included, on_disk, "{module}: spec files included");
    }
}

#[test]
fn the_default_expansion_only_drops_schemars() {
    let root = workspace();
    for (dir, _) in spec_folders() {
        let module = dir.file_name().unwrap().to_string_lossy().into_owned();
        let plain = expand_spec(&dir, &root, &Settings::default()).unwrap();
        let with = expand_spec(
            &dir,
            &root,
            &Settings {
                schemars: true,
                ..Settings::default()
            },
        )
        .unwrap();
        let plain_item = Item::Mod(plain.module);
        let plain_text = quote!(#plain_item).to_string();
        assert!(!plain_text.contains("schemars"), "{module}");
        let mut stripped = vec![Item::Mod(with.module)];
        strip_schemars(&mut stripped);
        assert_eq!(quote!(#(#stripped)*).to_string(), plain_text, "{module}");
    }
}

/// Takes the skeleton out of the derive's module `m` and compares it with the checked-in
/// `src/skeletons/<module>.rs` of `generated`, moved under the module the way the derive
/// moves it; both are there or neither is.
fn compare_skeleton(generated: &Path, module: &str, m: &mut ItemMod) {
    let (_, items) = m.content.as_mut().expect("the derive inlines every module");
    let at = items
        .iter()
        .position(|i| matches!(i, Item::Mod(s) if s.ident == SKELETON_MODULE));
    let on_disk = generated.join(format!("src/skeletons/{module}.rs"));
    let Some(at) = at else {
        assert!(
            !on_disk.is_file(),
            "{module}: the derive left out the skeleton"
        );
        return;
    };
    let derived = items.remove(at);
    let text = std::fs::read_to_string(&on_disk).unwrap_or_else(|e| {
        panic!(
            "{module}: the derive made a skeleton, but {}: {e}",
            on_disk.display()
        )
    });
    let files = [
        OutputFile {
            path: format!("src/{module}.rs"),
            contents: Contents::Source(String::new()),
        },
        OutputFile {
            path: format!("src/skeletons/{module}.rs"),
            contents: Contents::Source(text),
        },
    ];
    let transport: syn::Path = syn::parse_quote!(::agentwire::transport);
    let checked_in = inline_files(&files, module, Some(&transport)).unwrap();
    let (_, checked_in) = checked_in.content.unwrap();
    let print = |item: &Item, alias: bool| {
        let Item::Mod(m) = item else {
            panic!("{module}: the skeleton is not a module")
        };
        let (_, items) = m.content.as_ref().unwrap();
        // The derive's files open with the runtime alias (after the transport alias); the
        // checked-in ones do not.
        let mut items = items.clone();
        if alias {
            items.remove(1);
        }
        let shell = Item::Mod(ItemMod {
            content: Some((Default::default(), items)),
            ..m.clone()
        });
        let once = prettyplease::unparse(&syn::File {
            shebang: None,
            attrs: Vec::new(),
            items: vec![shell],
        });
        // Printed, read and printed again: the emitter's trees hold invisible groups (from
        // `quote!` interpolation) that print wrapped differently from the same code read
        // from a file.
        prettyplease::unparse(&syn::parse_file(&once).unwrap())
    };
    let (actual, expected) = (print(&derived, true), print(&checked_in[0], false));
    assert!(
        actual == expected,
        "{module}: the derive's skeleton differs from src/skeletons/{module}.rs:\n{}",
        first_difference(&actual, &expected)
    );
}

fn first_difference(actual: &str, expected: &str) -> String {
    let line = actual
        .lines()
        .zip(expected.lines())
        .position(|(a, e)| a != e)
        .unwrap_or_else(|| actual.lines().count().min(expected.lines().count()));
    let show = |s: &str| {
        s.lines()
            .skip(line.saturating_sub(3))
            .take(7)
            .collect::<Vec<_>>()
            .join("\n")
    };
    format!(
        "line {}\n--- derive:\n{}\n--- checked in:\n{}",
        line + 1,
        show(actual),
        show(expected)
    )
}

/// Compares the inline module `m` with the checked-in `generated/<path>` and, recursively,
/// its submodules with theirs; returns how many files were compared.
fn compare(generated: &Path, path: &str, m: &ItemMod, settings: &Settings) -> usize {
    let text =
        std::fs::read_to_string(generated.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
    let expected = syn::parse_file(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    let (_, items) = m.content.as_ref().expect("the derive inlines every module");
    let mut items = items.clone();

    // The runtime alias comes first, exactly once.
    let alias = runtime_alias(&settings.runtime);
    assert_eq!(
        items.first().map(|i| quote!(#i).to_string()),
        Some(quote!(#alias).to_string()),
        "{path}: the runtime alias"
    );
    items.remove(0);

    let children = path
        .strip_suffix("/mod.rs")
        .or_else(|| path.strip_suffix(".rs"))
        .unwrap_or(path)
        .to_owned();
    let mut compared = 1;
    for item in &mut items {
        match item {
            // Only the modules the checked-in file declares as `mod name;` were inlined.
            Item::Mod(sub)
                if expected.items.iter().any(
                    |e| matches!(e, Item::Mod(e) if e.ident == sub.ident && e.content.is_none()),
                ) =>
            {
                let name = sub.ident.to_string();
                let child = if generated.join(format!("{children}/{name}.rs")).is_file() {
                    format!("{children}/{name}.rs")
                } else {
                    format!("{children}/{name}/mod.rs")
                };
                compared += compare(generated, &child, sub, settings);
                sub.attrs
                    .retain(|a| matches!(a.style, syn::AttrStyle::Outer));
                sub.content = None;
                sub.semi = Some(Default::default());
            }
            Item::Const(c) => {
                let original = expected.items.iter().find_map(|i| match i {
                    Item::Const(e) if e.ident == c.ident => Some(e),
                    _ => None,
                });
                if let Some(original) = original
                    && let Some(rel) = included_path(&original.expr)
                {
                    let base = Path::new(path).parent().unwrap_or(Path::new(""));
                    let included = std::fs::read_to_string(generated.join(base).join(&rel))
                        .unwrap_or_else(|e| panic!("{path}: {rel}: {e}"));
                    let syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(s),
                        ..
                    }) = &*c.expr
                    else {
                        panic!("{path}: `{}` should hold the included text", c.ident);
                    };
                    assert!(
                        s.value() == included,
                        "{path}: `{}` differs from {rel}",
                        c.ident
                    );
                    c.expr = original.expr.clone();
                }
            }
            _ => {}
        }
    }
    let inner: Vec<syn::Attribute> = m
        .attrs
        .iter()
        .filter(|a| matches!(a.style, syn::AttrStyle::Inner(_)))
        .cloned()
        .collect();
    let actual = syn::File {
        shebang: None,
        attrs: inner,
        items,
    };
    let actual = prettyplease::unparse(&actual);
    let expected = prettyplease::unparse(&expected);
    if actual != expected {
        let line = actual
            .lines()
            .zip(expected.lines())
            .position(|(a, e)| a != e)
            .unwrap_or_else(|| actual.lines().count().min(expected.lines().count()));
        let show = |s: &str| {
            s.lines()
                .skip(line.saturating_sub(3))
                .take(7)
                .collect::<Vec<_>>()
                .join("\n")
        };
        panic!(
            "{path}: the derive's items differ from the checked-in file at line {}\n--- derive:\n{}\n--- generated/{path}:\n{}",
            line + 1,
            show(&actual),
            show(&expected)
        );
    }
    compared
}
