//! The trace fixtures under `tests/fixtures/<module>/traces`, read the same way by the
//! tests and the checker benchmark.

use std::path::PathBuf;

use serde_json::Value;

use crate::peers::workspace_root;

/// The accepted traces of `module` (those without an `.expect.json` of violations), in file
/// name order, each as the JSON entries of its non-blank lines. A trace that records a gRPC
/// status (`{"from", "status"}`, spec/README.md "Trace files") is left out: it is accepted
/// through the status rule of the trace readers, which a checker fed messages never sees.
/// Panics on unreadable or malformed fixtures: they are the project's own files.
pub fn accepted_traces(module: &str) -> Vec<Vec<Value>> {
    let dir = workspace_root()
        .join("tests/fixtures")
        .join(module)
        .join("traces");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| {
            p.extension().is_some_and(|x| x == "jsonl") && !p.with_extension("expect.json").exists()
        })
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| {
            std::fs::read_to_string(p)
                .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(|l| {
                    serde_json::from_str(l)
                        .unwrap_or_else(|e| panic!("{}: bad trace line: {e}", p.display()))
                })
                .collect::<Vec<Value>>()
        })
        .filter(|trace| !trace.iter().any(|e| e.get("status").is_some()))
        .collect()
}
