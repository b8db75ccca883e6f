//! The guard of crates whose integration tests are folded into one binary (`autotests = false`).

use std::path::Path;

/// Panics naming every `tests/*.rs` file of the crate at `manifest_dir` that neither a `mod`
/// line of `tests/main.rs` nor a `path` of a `[[test]]` in its `Cargo.toml` names: with
/// `autotests = false`, cargo would never compile it, and its tests would silently not run.
pub fn assert_every_file_is_a_module(manifest_dir: &str) {
    let root = Path::new(manifest_dir);
    let read = |path: &Path| {
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    let main = read(&root.join("tests/main.rs"));
    let manifest = read(&root.join("Cargo.toml"));
    let entries = std::fs::read_dir(root.join("tests")).expect("the tests folder");
    let mut missing: Vec<String> = entries
        .map(|entry| {
            entry
                .expect("a folder entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter_map(|name| Some(name.strip_suffix(".rs")?.to_owned()))
        .filter(|stem| stem != "main")
        .filter(|stem| {
            let named = |line: &str| line.trim() == format!("mod {stem};");
            !main.lines().any(named) && !manifest.contains(&format!("\"tests/{stem}.rs\""))
        })
        .collect();
    missing.sort();
    assert!(
        missing.is_empty(),
        "{}: tests/{{{}}}.rs not compiled: add `mod NAME;` to tests/main.rs (one test binary for \
         the crate) or a `[[test]]` to Cargo.toml",
        root.display(),
        missing.join(",")
    );
}
