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
    let mut cmd = std::process::Command::new(env!("CARGO"));
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
