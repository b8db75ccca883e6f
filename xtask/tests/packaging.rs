//! Every library crate of the workspace packages cleanly: `cargo package` (without building,
//! since the crates depend on each other and none is on crates.io) accepts every manifest
//! (a version beside each path dependency, a license and a description), and every file a
//! packaged source pulls in with `include_str!`, `include_bytes!` or `#[path]` is inside the
//! package, so the crate builds from its `.crate` alone.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn cargo(args: &[&str]) -> Output {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    Command::new(cargo)
        .current_dir(root())
        .args(args)
        .output()
        .expect("cargo runs")
}

/// Folders whose crates are this repository's own tests, benchmarks, examples and tooling,
/// never a dependency of a user's crate.
const NOT_LIBRARIES: [&str; 5] = ["tests", "bench", "examples", "xtask", "fuzz"];

/// The workspace members with a library (or proc-macro) target that a user's crate may
/// depend on: (name, manifest folder).
fn libraries() -> Vec<(String, PathBuf)> {
    let out = cargo(&[
        "metadata",
        "--no-deps",
        "--format-version",
        "1",
        "--offline",
    ]);
    assert!(out.status.success(), "{out:?}");
    let meta: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut libs = Vec::new();
    for p in meta["packages"].as_array().unwrap() {
        let dir = Path::new(p["manifest_path"].as_str().unwrap())
            .parent()
            .unwrap()
            .to_path_buf();
        let rel = dir.strip_prefix(root()).unwrap_or(&dir);
        let first = rel.components().next().map(|c| c.as_os_str().to_owned());
        if first.is_some_and(|f| NOT_LIBRARIES.iter().any(|n| f == *n)) {
            continue;
        }
        let lib = p["targets"].as_array().unwrap().iter().any(|t| {
            t["kind"]
                .as_array()
                .unwrap()
                .iter()
                .any(|k| k == "lib" || k == "proc-macro")
        });
        if lib {
            libs.push((p["name"].as_str().unwrap().to_owned(), dir));
        }
    }
    libs.sort();
    libs
}

/// The paths the library code of `text` pulls in at compile time, as written: comments and
/// the `#[cfg(test)]` module (built only by the crate's own tests, last in a file) aside.
fn included(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let code = text
        .lines()
        .take_while(|l| l.trim() != "#[cfg(test)]")
        .filter(|l| !l.trim_start().starts_with("//"));
    for line in code {
        for marker in ["include_str!(\"", "include_bytes!(\"", "#[path = \""] {
            let mut rest = line;
            while let Some(at) = rest.find(marker) {
                rest = &rest[at + marker.len()..];
                if let Some(end) = rest.find('"') {
                    out.push(rest[..end].to_owned());
                }
            }
        }
    }
    out
}

/// `path` with `.` and `..` resolved lexically; `None` when it climbs out of the package.
fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Some(out)
}

/// Files of the package `name` pulls in that the package does not hold.
fn missing_includes(name: &str, dir: &Path) -> Vec<String> {
    let out = cargo(&[
        "package",
        "-p",
        name,
        "--list",
        "--allow-dirty",
        "--offline",
    ]);
    assert!(out.status.success(), "{name}: {out:?}");
    let listed: BTreeSet<PathBuf> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(PathBuf::from)
        .collect();
    let mut missing = Vec::new();
    for file in listed
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "rs"))
    {
        // Tests and benchmarks are not built from a downloaded package.
        if !file.starts_with("src") {
            continue;
        }
        let text = std::fs::read_to_string(dir.join(file)).unwrap_or_default();
        for inc in included(&text) {
            // Generated code includes files of OUT_DIR or absolute paths; only relative ones
            // name package files.
            if inc.is_empty() || Path::new(&inc).is_absolute() || inc.contains("OUT_DIR") {
                continue;
            }
            let target = normalize(&file.parent().unwrap().join(&inc));
            if !target.is_some_and(|t| listed.contains(&t)) {
                missing.push(format!("{name}: {} includes {inc}", file.display()));
            }
        }
    }
    missing
}

#[test]
fn every_library_crate_packages_with_what_it_includes() {
    let libs = libraries();
    let names: Vec<&str> = libs.iter().map(|(n, _)| n.as_str()).collect();
    for expected in [
        "agentwire",
        "agentwire-runtime",
        "agentwire-codegen",
        "agentwire-cli",
    ] {
        assert!(names.contains(&expected), "{names:?}");
    }
    let target = tempfile::tempdir().unwrap();
    let mut args = vec![
        "package",
        "--no-verify",
        "--allow-dirty",
        "--exclude-lockfile",
    ];
    args.extend(["--offline", "--target-dir", target.path().to_str().unwrap()]);
    for n in &names {
        args.extend(["-p", n]);
    }
    let out = cargo(&args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "cargo package failed:\n{err}");
    for n in &names {
        assert!(
            err.contains(&format!("Packaging {n} v")),
            "{n} not packaged:\n{err}"
        );
    }
    // No repository address is published yet: that is the one warning allowed.
    let warnings: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("warning:"))
        .filter(|l| !l.contains("no documentation, homepage or repository"))
        .collect();
    assert!(warnings.is_empty(), "{warnings:?}\n{err}");
    let missing: Vec<String> = libs
        .iter()
        .flat_map(|(n, dir)| missing_includes(n, dir))
        .collect();
    assert!(
        missing.is_empty(),
        "outside their package:\n{}",
        missing.join("\n")
    );
}
