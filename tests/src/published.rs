//! Builds generated modules of published schemas in a crate of their own, every warning an
//! error, so a test proves the code a third-party schema gives compiles.

use std::path::Path;

use crate::peers::{target_dir, workspace_root};

/// One generated module: its name and its files (path in the crate, text).
pub struct Module {
    pub name: String,
    pub files: Vec<(String, String)>,
}

/// Writes `modules` into a crate at `dir` (with `schemars`) and builds it offline with the
/// workspace's lock file; panics with the compiler's output when it does not compile.
pub fn build_crate(dir: &Path, modules: &[Module]) {
    build_crate_with(dir, modules, "");
}

/// The dependencies generated protobuf modules name directly (prost's, tonic's and pbjson's
/// code), at the workspace's versions.
pub const PROTO_DEPS: &str = "prost = \"0.14\"\ntonic = { version = \"0.14\", default-features = false, features = [\"codegen\", \"transport\"] }\ntonic-prost = \"0.14\"\npbjson = \"0.9\"\npbjson-types = \"0.9\"\n";

/// The features the workspace's test build gives the transport crate. The crate a test builds
/// asks for the same, and depends on `agentwire-workspace-features` (the workspace's features of
/// the third-party packages), so it reuses every dependency the test build compiled and
/// compiles only the generated modules (with other features, tokio and everything above it
/// were compiled again, about two minutes on two cores).
pub const TRANSPORT_FEATURES: &str =
    "[\"streamable-http\", \"postgres\", \"oauth-client\", \"oauth-resource\"]";

/// The manifest of the crate [`build_crate_with`] writes, with more `[dependencies]` lines
/// (`extra`).
pub fn manifest(extra: &str) -> String {
    let root = workspace_root();
    format!(
        "[package]\nname = \"published-schemas\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         [workspace]\n\n[features]\nschemars = [\"dep:schemars\", \"agentwire-runtime/schemars\"]\n\n\
         [dependencies]\nagentwire-runtime = {{ path = {runtime:?} }}\n\
         agentwire-transport = {{ path = {transport:?}, features = {TRANSPORT_FEATURES} }}\n\
         agentwire-workspace-features = {{ path = {features:?} }}\n\
         serde = \"1\"\nserde_json = \"1\"\nschemars = {{ version = \"1\", optional = true }}\n{extra}\n\
         {profiles}",
        runtime = root.join("runtime"),
        transport = root.join("transport"),
        features = root.join("workspace-features"),
        profiles = workspace_profiles(),
    )
}

/// [`build_crate`] with more `[dependencies]` lines (`extra`, e.g. [`PROTO_DEPS`]).
pub fn build_crate_with(dir: &Path, modules: &[Module], extra: &str) {
    let root = workspace_root();
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let manifest = manifest(extra);
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    // The workspace's versions and profiles, so the build reuses what is already compiled.
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    let mut lib = String::from("#![deny(warnings)]\n");
    let mut skeletons = String::new();
    for m in modules {
        for (path, text) in &m.files {
            let path = dir.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        lib.push_str(&format!("pub mod {};\n", m.name));
        // A types-only spec has no skeleton.
        let skeleton = format!("src/skeletons/{}.rs", m.name);
        if m.files.iter().any(|(p, _)| *p == skeleton) {
            skeletons.push_str(&format!("pub mod {};\n", m.name));
        }
    }
    lib.push_str(&format!("pub mod skeletons {{\n{skeletons}}}\n"));
    std::fs::write(dir.join("src/lib.rs"), lib).unwrap();
    let out = std::process::Command::new(env!("CARGO"))
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target_dir())
        .args(["build", "--offline", "-q", "--features", "schemars"])
        .output()
        .expect("run cargo build");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let errors = stderr.lines().filter(|l| l.starts_with("error")).count();
    assert!(
        out.status.success(),
        "the generated crate does not compile ({errors} errors):\n{stderr}"
    );
}

/// The workspace's members the crate [`manifest`] writes links (the generator for the host,
/// through the workspace-features crate's build dependencies).
const MEMBERS: [&str; 4] = [
    "agentwire-runtime",
    "agentwire-transport",
    "agentwire-workspace-features",
    "agentwire-codegen",
];

/// The `[profile.*]` tables of the workspace's `Cargo.toml`, verbatim, and for each of
/// [`MEMBERS`] a table with `[profile.dev]`'s debug setting. A crate of its own builds with its
/// own profiles: without these, every dependency would be compiled again (with full debug info)
/// beside the workspace's copy, where with them cargo reuses each one the workspace built with
/// the same features. Outside their workspace the members are ordinary dependencies, which
/// `[profile.dev.package."*"]` would build without line tables, so again.
pub fn workspace_profiles() -> String {
    let tables = profile_tables();
    let debug = tables
        .split("[profile.dev]\n")
        .nth(1)
        .and_then(|t| {
            t.lines()
                .take_while(|l| !l.starts_with('['))
                .find(|l| l.starts_with("debug"))
        })
        .unwrap_or("debug = true")
        .to_owned();
    let members: String = MEMBERS
        .iter()
        .map(|m| format!("\n[profile.dev.package.{m}]\n{debug}\n"))
        .collect();
    tables + &members
}

/// The `[profile.*]` tables of the workspace's `Cargo.toml`, verbatim.
fn profile_tables() -> String {
    let manifest = std::fs::read_to_string(workspace_root().join("Cargo.toml"))
        .expect("read the workspace's Cargo.toml");
    let mut out = String::new();
    let mut in_profile = false;
    for line in manifest.lines() {
        if line.starts_with('[') {
            in_profile = line.starts_with("[profile.");
        }
        if in_profile {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}
