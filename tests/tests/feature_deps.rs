//! The built-ins crate builds only what its features ask for: one protocol's types pull in no
//! transport (no axum, tonic, reqwest, SQLite or PostgreSQL client), and `--all-features`
//! does. Read from `cargo tree` offline, so it needs only the lock file's crates.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// The transport crates only the skeletons (and protobuf modules) may pull in.
const TRANSPORT: &[&str] = &["axum", "tonic", "reqwest", "rusqlite", "tokio-postgres"];

/// The crate names of the built-ins crate's normal dependency tree with `features`.
fn tree(features: &[&str]) -> BTreeSet<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(root).args([
        "tree",
        "--offline",
        "-p",
        "agentwire-protocols",
        "-e",
        "normal",
        "--prefix",
        "none",
    ]);
    cmd.args(features);
    let out = cmd.output().expect("cargo runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "cargo tree {features:?} failed: {stderr}"
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

#[test]
fn one_protocols_types_build_no_transport() {
    let crates = tree(&["--no-default-features", "--features", "mcp"]);
    assert!(crates.contains("agentwire-runtime"), "{crates:?}");
    let present: Vec<&&str> = TRANSPORT.iter().filter(|c| crates.contains(**c)).collect();
    assert!(present.is_empty(), "mcp's types alone pull in {present:?}");
    // A second JSON protocol, over another transport kind, is as lean.
    let crates = tree(&["--no-default-features", "--features", "agentloop"]);
    let present: Vec<&&str> = TRANSPORT.iter().filter(|c| crates.contains(**c)).collect();
    assert!(
        present.is_empty(),
        "agentloop's types alone pull in {present:?}"
    );
}

#[test]
fn all_features_build_every_transport() {
    let crates = tree(&["--all-features"]);
    let missing: Vec<&&str> = TRANSPORT.iter().filter(|c| !crates.contains(**c)).collect();
    assert!(missing.is_empty(), "--all-features lacks {missing:?}");
}

/// The OAuth stack (the transport's `oauth-resource` and `oauth-client` features) is for
/// applications that ask for it: no feature of the built-ins crate, skeletons included, pulls
/// it in.
#[test]
fn no_feature_builds_the_oauth_stack() {
    let crates = tree(&["--all-features"]);
    for oauth in ["oauth2", "jsonwebtoken"] {
        assert!(!crates.contains(oauth), "--all-features pulls in {oauth}");
    }
}

#[test]
fn no_features_build_nothing_but_the_runtime() {
    let crates = tree(&["--no-default-features"]);
    assert!(!crates.contains("agentwire-transport"), "{crates:?}");
    assert!(!crates.contains("prost"), "{crates:?}");
}

/// Every package of a `cargo tree` with `args` over the dependency kinds `edges`, with the
/// features it is built with there (a package built for the host and for the target counts
/// once, with both sets merged, on both sides of a comparison).
fn features_of(args: &[&str], edges: &str) -> BTreeMap<String, BTreeSet<String>> {
    features_in(
        Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap(),
        args,
        edges,
    )
}

/// [`features_of`] for the package or workspace at `dir`.
fn features_in(dir: &Path, args: &[&str], edges: &str) -> BTreeMap<String, BTreeSet<String>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let out = Command::new(cargo)
        .current_dir(dir)
        .args(["tree", "--offline", "-e", edges, "--prefix", "none"])
        .args(["--format", "{p}|{f}"])
        .args(args)
        .output()
        .expect("cargo runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "cargo tree {args:?} failed: {stderr}");
    let mut packages: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        // A package shown before is marked ` (*)` at the end of its line.
        let line = line.strip_suffix(" (*)").unwrap_or(line);
        let Some((package, features)) = line.split_once('|') else {
            continue;
        };
        // `name vX.Y.Z (path)`, `(proc-macro)` or `(*)` after it: the name and version say
        // which package it is.
        let package: Vec<&str> = package.split_whitespace().take(2).collect();
        let features = features
            .split(',')
            .filter(|f| !f.is_empty())
            .map(str::to_owned);
        packages
            .entry(package.join(" "))
            .or_default()
            .extend(features);
    }
    packages
}

/// The README's commands that run after `cargo test --workspace` (`cargo xtask`, `cargo run -p
/// agentwire-cli`, `cargo run --example NAME`), and CI's builds of the generator with one front
/// end, reuse what the test build compiled: every package
/// in their graphs is built with the features the workspace build gives it. A package with other
/// features is compiled again, and so is everything above it; before the workspace-features
/// crate, `serde` without `rc` alone made each of the three rebuild nearly its whole graph
/// (minutes of `scripts/readme-commands` in CI). The fix for a failure here is running
/// `scripts/workspace-features` (or, for the generated crate's features, a line in the
/// command's `workspace-features` feature).
#[test]
fn the_readmes_commands_reuse_the_test_builds_dependencies() {
    let workspace = features_of(&["--workspace"], "normal,build,dev");
    let one_front = [
        "-p",
        "agentwire-codegen",
        "--no-default-features",
        "--features",
    ];
    let leaves: [(&str, Vec<&str>, &str); 7] = [
        (
            "cargo test -p agentwire-tests",
            vec!["-p", "agentwire-tests"],
            "normal,build,dev",
        ),
        (
            "cargo test -p agentwire-test-protocols",
            vec!["-p", "agentwire-test-protocols"],
            "normal,build,dev",
        ),
        ("cargo xtask", vec!["-p", "xtask"], "normal,build"),
        (
            "cargo run -p agentwire-cli",
            vec!["-p", "agentwire-cli"],
            "normal,build",
        ),
        (
            "cargo run --example",
            vec!["-p", "agentwire-examples"],
            "normal,build,dev",
        ),
        (
            "CI's TypeScript-only generator",
            [&one_front[..], &["typescript"]].concat(),
            "normal,build,dev",
        ),
        (
            "CI's protobuf-only generator",
            [&one_front[..], &["proto"]].concat(),
            "normal,build,dev",
        ),
    ];
    let mut differ = Vec::new();
    for (command, args, edges) in leaves {
        for (package, features) in features_of(&args, edges) {
            // The one-front-end runs build the generator with other features on purpose.
            if package.starts_with("agentwire-codegen ") && command.starts_with("CI's") {
                continue;
            }
            let wanted = workspace.get(&package).cloned().unwrap_or_default();
            if features != wanted {
                let missing: Vec<&String> = wanted.difference(&features).collect();
                let extra: Vec<&String> = features.difference(&wanted).collect();
                differ.push(format!(
                    "{command}: {package} lacks {missing:?}, adds {extra:?}"
                ));
            }
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}

/// The crate the published-schema tests build (`agentwire_tests::published`, outside the
/// workspace) reuses the test build's dependencies too, so each of those tests compiles only
/// its generated modules.
#[test]
fn the_published_schema_crate_reuses_the_test_builds_dependencies() {
    use agentwire_tests::published::{PROTO_DEPS, manifest};
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let workspace = features_of(&["--workspace"], "normal,build,dev");
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/lib.rs"), "").unwrap();
    std::fs::write(dir.path().join("Cargo.toml"), manifest(PROTO_DEPS)).unwrap();
    std::fs::copy(root.join("Cargo.lock"), dir.path().join("Cargo.lock")).unwrap();
    let mut differ = Vec::new();
    for (package, features) in features_in(dir.path(), &["--features", "schemars"], "normal,build")
    {
        let Some(wanted) = workspace.get(&package) else {
            continue; // the crate itself
        };
        if &features != wanted {
            let missing: Vec<&String> = wanted.difference(&features).collect();
            differ.push(format!("{package} lacks {missing:?}"));
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}
