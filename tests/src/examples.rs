//! The example peers (`examples/skeletons`, package `agentwire-examples`) the interop tests run,
//! built the way `cargo test --workspace` builds them.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

use crate::peers::{target_dir, workspace_root};

/// Builds the example `name` (once per test process) and returns its path.
pub fn example_binary(name: &str) -> PathBuf {
    example_binary_with(name, &[])
}

/// [`example_binary`] with features of `agentwire-examples` turned on (e.g. `postgres`).
///
/// The build selects the whole workspace (`--workspace --example NAME`) so cargo resolves
/// features as `cargo test --workspace` does, over every member and its dev-dependencies. With
/// `-p agentwire-examples` alone it resolved them for that package only, and compiled the
/// generated protocols crate, the transport and some twenty dependencies a second time with
/// fewer features (a third time with `postgres`): minutes on two cores for an example the
/// workspace run had already built.
pub fn example_binary_with(name: &str, features: &[&str]) -> PathBuf {
    static BUILT: Mutex<Option<HashMap<String, PathBuf>>> = Mutex::new(None);
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    let key = format!("{name} {}", features.join(","));
    if let Some(path) = built.get_or_insert_default().get(&key) {
        return path.clone();
    }
    let features: Vec<String> = features
        .iter()
        .map(|f| format!("agentwire-examples/{f}"))
        .collect();
    let mut cmd = cargo();
    cmd.current_dir(workspace_root())
        .args(["build", "-q", "--workspace", "--example", name]);
    if !features.is_empty() {
        cmd.args(["--features", &features.join(",")]);
    }
    let status = cmd.status().expect("run cargo build");
    assert!(status.success(), "building the {name} example failed");
    let path = target_dir().join("debug/examples").join(name);
    built.get_or_insert_default().insert(key, path.clone());
    path
}

/// `cargo` for a build nested in a test, without the variables cargo sets for the test process
/// (`CARGO_MANIFEST_DIR`, `CARGO_PKG_*`, `CARGO_BIN_EXE_*`, `OUT_DIR`, ...). Cargo compares a
/// build script's `rerun-if-env-changed` variables in its own environment: ring's names
/// `CARGO_MANIFEST_DIR`, `CARGO_PKG_NAME` and `OUT_DIR`, so a nested build that inherited them
/// reran it and recompiled everything above ring (rustls, reqwest, the transport, the generated
/// crate, the examples: minutes on two cores), and the next build from a shell did it again.
pub fn cargo() -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO"));
    for (key, _) in std::env::vars_os() {
        let Some(key) = key.to_str() else { continue };
        let per_package = ["CARGO_PKG_", "CARGO_MANIFEST_", "CARGO_BIN_"]
            .iter()
            .any(|p| key.starts_with(p))
            || matches!(
                key,
                "CARGO_CRATE_NAME" | "CARGO_PRIMARY_PACKAGE" | "CARGO_TARGET_TMPDIR" | "OUT_DIR"
            );
        if per_package {
            cmd.env_remove(key);
        }
    }
    cmd
}
