//! The built-ins crate builds only what its features ask for: one protocol's types pull in no
//! transport (no axum, tonic, reqwest, SQLite or PostgreSQL client), and `--all-features`
//! does. And the commands that build part of the workspace after `cargo test --workspace`
//! reuse what it compiled. Read from `cargo tree` and cargo's unit graphs offline, so it needs
//! only the lock file's crates.

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

/// A library a cargo command compiles, with what decides whether cargo can reuse it: the
/// package, whether it is built for the host (what build scripts and procedural macros link,
/// which cargo resolves with features of their own) or for the target, its features and its
/// profile's settings (the profile's name, `dev` or `test`, does not count).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Unit {
    package: String,
    host: bool,
    features: Vec<String>,
    profile: String,
}

/// The library units of `cargo COMMAND` run in `dir`, from its unit graph. `--unit-graph` is
/// unstable; `RUSTC_BOOTSTRAP` lets the stable cargo print it, offline, without building.
/// `cargo tree` merges a package's host and target builds into one line, and missed that the
/// derive linked the generator with fewer features than the test build gives it.
fn units_in(dir: &Path, command: &[&str]) -> BTreeSet<Unit> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let out = Command::new(cargo)
        .current_dir(dir)
        .env("RUSTC_BOOTSTRAP", "1")
        .args(command)
        .args(["--offline", "--unit-graph", "-Z", "unstable-options"])
        .output()
        .expect("cargo runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "cargo {command:?} failed: {stderr}");
    let graph: serde_json::Value = serde_json::from_slice(&out.stdout).expect("a unit graph");
    let units = graph["units"].as_array().expect("units");
    let kind = |i: usize| units[i]["target"]["kind"][0].as_str().unwrap_or_default();
    // The roots' dependencies are built for the target, up to a procedural macro or a build
    // script, below which everything is built for the host. A package both roles give the same
    // features is one unit with both roles.
    let mut roles = BTreeSet::new();
    let mut todo: Vec<(bool, usize)> = graph["roots"]
        .as_array()
        .expect("roots")
        .iter()
        .filter_map(|i| i.as_u64())
        .map(|i| (false, i as usize))
        .collect();
    while let Some((host, i)) = todo.pop() {
        let host = host || matches!(kind(i), "proc-macro" | "custom-build");
        if roles.insert((host, i)) {
            let deps = units[i]["dependencies"].as_array().into_iter().flatten();
            todo.extend(
                deps.filter_map(|d| d["index"].as_u64())
                    .map(|d| (host, d as usize)),
            );
        }
    }
    roles
        .into_iter()
        .filter(|&(_, i)| units[i]["mode"] == "build" && matches!(kind(i), "lib" | "proc-macro"))
        .map(|(host, i)| {
            let unit = &units[i];
            let mut profile = unit["profile"].clone();
            if let Some(settings) = profile.as_object_mut() {
                settings.remove("name");
            }
            Unit {
                package: package_of(unit["pkg_id"].as_str().unwrap_or_default()),
                host,
                features: serde_json::from_value(unit["features"].clone()).unwrap_or_default(),
                profile: profile.to_string(),
            }
        })
        .collect()
}

/// `name version` of a unit graph's package id (`registry+https://...#serde@1.0.228`, or
/// `path+file:///.../agentwire#0.1.0` when the folder has the package's name).
fn package_of(id: &str) -> String {
    let (source, spec) = id.split_once('#').unwrap_or((id, ""));
    match spec.split_once('@') {
        Some((name, version)) => format!("{name} {version}"),
        None => format!("{} {spec}", source.rsplit('/').next().unwrap_or(source)),
    }
}

/// The units of `command` that the test build (`cargo test --workspace`) does not compile the
/// same way, so cargo compiles them again: one line each, naming the package and both feature
/// sets. Units of packages the test build does not have at all (a crate of its own) and of
/// `own` built for the target (a command that builds one package with other features on
/// purpose) are not compared.
fn rebuilt(
    command: &str,
    units: &BTreeSet<Unit>,
    workspace: &BTreeSet<Unit>,
    own: Option<&str>,
) -> Vec<String> {
    let mut differ = Vec::new();
    for unit in units {
        let is_own = own.is_some_and(|p| unit.package.starts_with(&format!("{p} "))) && !unit.host;
        let same_role = |w: &&Unit| w.package == unit.package && w.host == unit.host;
        let known: Vec<&Unit> = workspace.iter().filter(same_role).collect();
        if is_own || known.is_empty() || workspace.contains(unit) {
            continue;
        }
        let role = if unit.host { "for the host" } else { "" };
        let theirs: Vec<&Vec<String>> = known.iter().map(|w| &w.features).collect();
        differ.push(format!(
            "{command}: {} {role} is built with {:?}; the test build has {theirs:?}",
            unit.package, unit.features
        ));
    }
    differ
}

/// The test build's units: what every other command should reuse.
fn test_build_units() -> BTreeSet<Unit> {
    units_in(workspace_root(), &["test", "--workspace"])
}

fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

/// The README's commands that run after `cargo test --workspace` (`cargo xtask`, `cargo run -p
/// agentwire-cli`, `cargo run --example NAME`), a helper's `cargo test -p`, and CI's builds of
/// the generator with one front end, reuse every library the test build compiled: each unit of
/// theirs is built with the features and settings the test build gives it. A library with
/// other features is compiled again, and so is everything above it; before the
/// workspace-features crate, `serde` without `rc` alone made each of them rebuild nearly its
/// whole graph, and the generator the derive links, built with fewer features, made `cargo run
/// -p agentwire-cli` compile it, the derive, the facade and the CLI again (minutes of
/// `scripts/readme-commands` in CI). The fix for a failure here is running
/// `scripts/workspace-features` (or, for the generated crate's features, a line in the
/// command's `workspace-features` feature).
#[test]
fn the_readmes_commands_reuse_the_test_builds_dependencies() {
    let workspace = test_build_units();
    let one_front = [
        "-p",
        "agentwire-codegen",
        "--no-default-features",
        "--features",
    ];
    let commands: [(&str, Vec<&str>); 7] = [
        (
            "cargo test -p agentwire-tests",
            vec!["test", "-p", "agentwire-tests"],
        ),
        (
            "cargo test -p agentwire-test-protocols",
            vec!["test", "-p", "agentwire-test-protocols"],
        ),
        ("cargo xtask", vec!["build", "-p", "xtask"]),
        (
            "cargo run -p agentwire-cli",
            vec!["build", "-p", "agentwire-cli"],
        ),
        (
            "cargo run --example",
            vec!["build", "-p", "agentwire-examples", "--examples"],
        ),
        (
            "CI's TypeScript-only generator",
            [
                &["test"],
                &one_front[..],
                &["typescript", "--test", "fronts"],
            ]
            .concat(),
        ),
        (
            "CI's protobuf-only generator",
            [&["test"], &one_front[..], &["proto", "--test", "fronts"]].concat(),
        ),
    ];
    let mut differ = Vec::new();
    for (name, command) in commands {
        // The one-front-end runs build the generator with other features on purpose.
        let own = name.starts_with("CI's").then_some("agentwire-codegen");
        let units = units_in(workspace_root(), &command);
        differ.extend(rebuilt(name, &units, &workspace, own));
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}

/// The crate the published-schema tests build (`agentwire_tests::published`, outside the
/// workspace) reuses the test build's libraries too, so each of those tests compiles only its
/// generated modules.
#[test]
fn the_published_schema_crate_reuses_the_test_builds_dependencies() {
    use agentwire_tests::published::{PROTO_DEPS, manifest};
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/lib.rs"), "").unwrap();
    std::fs::write(dir.path().join("Cargo.toml"), manifest(PROTO_DEPS)).unwrap();
    std::fs::copy(
        workspace_root().join("Cargo.lock"),
        dir.path().join("Cargo.lock"),
    )
    .unwrap();
    let units = units_in(dir.path(), &["build", "--features", "schemars"]);
    let differ = rebuilt(
        "the published-schema crate",
        &units,
        &test_build_units(),
        None,
    );
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}
