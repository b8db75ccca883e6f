//! The campaign's last finding was that nothing was fuzzed. The defence is wiring rather than
//! code, so this test holds the wiring: every decoder, framer and checker the hardening
//! issue names has a cargo-fuzz target, every target is built, seeded by `scripts/fuzz` and
//! run by CI's smoke for 30 to 60 s. Dropping any of them fails here.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The targets the hardening issue asks for: every protocol's decoders, the JSON reader
/// against serde_json, both framers, the trace reader, the checkers and proto JSON.
const REQUIRED: [&str; 7] = [
    "decode",
    "json_differential",
    "content_length",
    "newline",
    "trace",
    "checkers",
    "proto_json",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ sits in the repository")
        .to_path_buf()
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The `[[bin]]` targets of fuzz/Cargo.toml, by the file they build.
fn declared_targets() -> BTreeSet<String> {
    read("fuzz/Cargo.toml")
        .lines()
        .filter_map(|l| l.trim().strip_prefix("path = \"fuzz_targets/"))
        .filter_map(|l| l.strip_suffix(".rs\""))
        .map(str::to_owned)
        .collect()
}

fn target_files() -> BTreeSet<String> {
    std::fs::read_dir(root().join("fuzz/fuzz_targets"))
        .expect("fuzz/fuzz_targets")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|n| n.strip_suffix(".rs").map(str::to_owned))
        .collect()
}

/// The target names in `scripts/fuzz`'s seed list (`targets = ["a", "b", ...]`).
fn seeded_targets() -> BTreeSet<String> {
    let script = read("scripts/fuzz");
    let line = script
        .lines()
        .find_map(|l| l.trim().strip_prefix("targets = ["))
        .expect("scripts/fuzz lists the targets it seeds");
    line.trim_end_matches(']')
        .split(',')
        .map(|t| t.trim().trim_matches('"').to_owned())
        .filter(|t| !t.is_empty())
        .collect()
}

/// The targets `scripts/fuzz` runs when given none (`TARGETS_ALL=(a b ...)`).
fn run_targets() -> BTreeSet<String> {
    let script = read("scripts/fuzz");
    let line = script
        .lines()
        .find_map(|l| l.trim().strip_prefix("TARGETS_ALL=("))
        .expect("scripts/fuzz lists the targets it runs");
    line.trim_end_matches(')')
        .split_whitespace()
        .map(str::to_owned)
        .collect()
}

#[test]
fn every_required_target_exists_is_built_and_seeded() {
    let files = target_files();
    let declared = declared_targets();
    let seeded = seeded_targets();
    for target in REQUIRED {
        assert!(files.contains(target), "no fuzz/fuzz_targets/{target}.rs");
    }
    assert_eq!(files, declared, "every target file is a [[bin]] and back");
    assert_eq!(files, seeded, "scripts/fuzz seeds every target");
    assert_eq!(files, run_targets(), "scripts/fuzz runs every target");
    for target in &files {
        let text = read(&format!("fuzz/fuzz_targets/{target}.rs"));
        assert!(
            text.contains("fuzz_target!"),
            "{target} is a libFuzzer target"
        );
    }
}

#[test]
fn ci_runs_every_target_for_a_short_smoke() {
    let ci = read(".ci/run");
    // A smoke line may set environment variables first (`FUZZ_DEV=1 scripts/fuzz 30`).
    let smokes: Vec<Vec<&str>> = ci
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .map(|l| {
            l.split_whitespace()
                .skip_while(|word| word.contains('=') && !word.starts_with('-'))
                .collect::<Vec<_>>()
        })
        .filter(|words| words.first() == Some(&"scripts/fuzz"))
        .collect();
    assert_eq!(smokes.len(), 1, "one fuzz smoke in .ci/run: {smokes:?}");
    let seconds: u64 = smokes[0]
        .get(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("the smoke names its seconds: {:?}", smokes[0]));
    assert!((30..=60).contains(&seconds), "{seconds} s");
    // Without target names the script runs every target it builds.
    assert_eq!(smokes[0].len(), 2, "{:?}", smokes[0]);
}
