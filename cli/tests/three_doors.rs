//! Three doors, one generator: for test protocols with skeletons (a WebSocket one and a
//! JSON-RPC one), the items `cargo xtask gen` checked in, the items `agentwire gen` writes
//! into a folder outside the repository, the module the build script (`agentwire-build`)
//! writes and the module `#[derive(Protocol)]` expands to are the same sets, compared as
//! parsed items module by module, the skeleton included.
//!
//! The derive side is `agentwire_codegen::inline::inline_spec` with the derive's settings,
//! the function the proc macro calls (a proc-macro crate exports nothing else to call);
//! `macros/src/front_doors.rs` checks the macro's own entry point against the checked-in files
//! for every spec. Written files are read back the way the derive nests them
//! (`inline_files`, `SCHEMA`'s `include_str!` replaced by the schema's text) and every side's
//! `use <runtime> as agentwire_runtime;` alias, which only the derive and the build script add,
//! is left out, as are the lint `#[allow]`s outside the module.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use agentwire_codegen::OutputFile;
use agentwire_codegen::inline::{InlineSettings, SKELETON_MODULE, inline_files, inline_spec};
use agentwire_codegen::options::{Options, apply};
use syn::{Item, ItemMod};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .into()
}

fn transport() -> syn::Path {
    syn::parse_quote!(::agentwire::transport)
}

/// The generated crate at `root`'s files for `module`, nested as the derive nests them.
fn read_back(root: &Path, module: &str) -> ItemMod {
    let mut files = Vec::new();
    let mut rust = vec![
        format!("src/{module}.rs"),
        format!("src/skeletons/{module}.rs"),
    ];
    if let Ok(entries) = std::fs::read_dir(root.join(format!("src/{module}"))) {
        for e in entries {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            rust.push(format!("src/{module}/{name}"));
        }
    }
    for rel in rust {
        let Ok(text) = std::fs::read_to_string(root.join(&rel)) else {
            continue;
        };
        let tree = syn::parse_file(&text).unwrap_or_else(|e| panic!("{rel}: {e}"));
        files.push(OutputFile::rust(rel, tree));
    }
    let schema = format!("schemas/{module}.schema.json");
    let text = std::fs::read_to_string(root.join(&schema)).unwrap();
    files.push(OutputFile::text(schema, text));
    let inline = Options {
        schemars: true,
        inline_assets: true,
        runtime: None,
    };
    apply(&mut files, &inline).unwrap();
    inline_files(&files, module, Some(&transport())).unwrap()
}

/// Every item of `m` at any depth as `path: item`, printed, with the runtime aliases left
/// out; a module contributes its attributes and, inline, its items.
fn item_set(m: &ItemMod) -> BTreeSet<String> {
    // Printed, read and printed again: emitted trees hold invisible groups that print
    // differently from the same code read from a file.
    let file = syn::File {
        shebang: None,
        attrs: Vec::new(),
        items: vec![Item::Mod(m.clone())],
    };
    let text = prettyplease::unparse(&file);
    let file = syn::parse_file(&text).unwrap();
    let Item::Mod(mut m) = file.items[0].clone() else {
        unreachable!()
    };
    // The top module's outer attributes (the build script's lint `#[allow]`) are not in any
    // generated file; the derive puts the same ones on its module.
    m.attrs
        .retain(|a| matches!(a.style, syn::AttrStyle::Inner(_)));
    let m = &m;
    let mut out = BTreeSet::new();
    collect(m, &m.ident.to_string(), &mut out);
    out
}

fn collect(m: &ItemMod, path: &str, out: &mut BTreeSet<String>) {
    let attrs = m.attrs.iter().map(|a| quote::quote!(#a).to_string());
    out.insert(format!(
        "{path}: attrs {}",
        attrs.collect::<Vec<_>>().join(" ")
    ));
    let Some((_, items)) = &m.content else { return };
    for item in items {
        match item {
            Item::Mod(sub) if sub.content.is_some() => {
                collect(sub, &format!("{path}::{}", sub.ident), out);
            }
            Item::Use(u)
                if quote::quote!(#u)
                    .to_string()
                    .ends_with("as agentwire_runtime ;") => {}
            other => {
                let one = syn::File {
                    shebang: None,
                    attrs: Vec::new(),
                    items: vec![other.clone()],
                };
                out.insert(format!("{path}: {}", prettyplease::unparse(&one)));
            }
        }
    }
}

/// A copy of the test protocol's spec files in a temporary folder outside the repository.
fn spec_copy(module: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let from = repo().join("tests/protocols").join(module);
    let to = tmp.path().join("spec").join(module);
    std::fs::create_dir_all(&to).unwrap();
    for name in ["protocol.yaml", "messages.ts", "machine.yaml"] {
        std::fs::copy(from.join(name), to.join(name)).unwrap();
    }
    (tmp, to)
}

fn check_module(module: &str) {
    // `cargo xtask gen`: the checked-in files.
    let xtask = item_set(&read_back(&repo().join("tests/protocols"), module));

    // `agentwire gen`, on a copy outside the repository.
    let (tmp, spec) = spec_copy(module);
    let out = tmp.path().join("crates/protocols");
    let run = Command::new(env!("CARGO_BIN_EXE_agentwire"))
        .args(["gen", "--spec"])
        .arg(&spec)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(run.status.success(), "{run:?}");
    let gen_cli = item_set(&read_back(&out, module));

    // The build script.
    let out_dir = tmp.path().join("out");
    let written = agentwire_build::configure()
        .out_dir(&out_dir)
        .skeletons(true)
        .schemars(true)
        .emit_rerun_if_changed(false)
        .compile(&[&spec])
        .unwrap();
    assert_eq!(written, [out_dir.join(format!("{module}.rs"))]);
    let text = std::fs::read_to_string(&written[0]).unwrap();
    assert!(
        text.starts_with("// @generated by agentwire-build from "),
        "{text:.200}"
    );
    let file = syn::parse_file(&text).unwrap();
    let [Item::Mod(built)] = &file.items[..] else {
        panic!("{module}: the build script's file is not one module");
    };
    let built = item_set(built);

    // The derive (its settings, with the facade's `skeletons` feature and a `schemars` crate).
    let settings = InlineSettings {
        schemars: true,
        runtime: syn::parse_quote!(::agentwire::runtime),
        transport: Some(transport()),
    };
    let derived = inline_spec(&spec, &settings).unwrap();
    assert!(derived.skeleton, "{module}: no skeleton");
    let derived = item_set(&derived.module);

    let skeleton = format!("{module}::{SKELETON_MODULE}:");
    let in_skeleton = xtask.iter().filter(|i| i.starts_with(&skeleton)).count();
    assert!(
        xtask.len() > 40 && in_skeleton > 10,
        "{module}: {} items, {in_skeleton} in the skeleton",
        xtask.len()
    );
    for (door, items) in [
        ("agentwire gen", &gen_cli),
        ("agentwire-build", &built),
        ("#[derive(Protocol)]", &derived),
    ] {
        let missing: Vec<_> = xtask.difference(items).take(3).collect();
        let extra: Vec<_> = items.difference(&xtask).take(3).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "{module}: {door} differs from `cargo xtask gen`\n--- only in xtask:\n{missing:#?}\n--- only in {door}:\n{extra:#?}"
        );
    }
}

#[test]
fn xtask_gen_build_script_and_derive_have_the_same_items_websocket() {
    check_module("room_chat");
}

#[test]
fn xtask_gen_build_script_and_derive_have_the_same_items_jsonrpc() {
    check_module("kv_rpc");
}
