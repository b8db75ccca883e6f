//! The built-ins crate builds only what its features ask for: one protocol's types pull in no
//! transport (no axum, tonic, reqwest, SQLite or PostgreSQL client), and `--all-features`
//! does. Read from `cargo tree` offline, so it needs only the lock file's crates.

use std::collections::BTreeSet;
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
