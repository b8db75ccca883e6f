//! Sequence tests: every recorded flow of the five protocols passes its generated checker, and
//! every trace that breaks a rule gets exactly the violations listed beside it.

use std::path::{Path, PathBuf};

use agentwire_runtime::machine::Violation;
use serde_json::{Value, json};

/// Runs one trace through a protocol's checker: every message violation, then every
/// end-of-stream violation. Lines that do not decode are test failures. A gRPC status line
/// (`{"from", "status": {"code"}}`, spec/README.md "Trace files") ends the stream: nothing may
/// follow it, and a code other than OK answers every instance it left mid-flow.
macro_rules! run_trace {
    ($($module:ident)::+, $path:expr) => {{
        use agentwire_protocols::$($module)::+::machine::{Checker, Recorded};
        let text = std::fs::read_to_string($path).unwrap();
        let mut checker = Checker::new();
        let mut violations: Vec<Violation> = Vec::new();
        let mut status: Option<String> = None;
        for (n, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let entry: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{}:{}: not JSON: {e}", $path.display(), n + 1));
            assert!(
                status.is_none(),
                "{}:{}: a line after the status",
                $path.display(),
                n + 1
            );
            if let Some(code) = entry.get("status").map(|s| s["code"].clone()) {
                let code = code
                    .as_str()
                    .unwrap_or_else(|| panic!("{}:{}: status code", $path.display(), n + 1));
                status = Some(code.to_owned());
                continue;
            }
            let from = entry["from"].as_str().unwrap_or_default();
            let recorded = Recorded::decode(from, &entry)
                .unwrap_or_else(|| panic!("{}:{}: unknown sender `{from}`", $path.display(), n + 1))
                .unwrap_or_else(|e| panic!("{}:{}: invalid message: {e}", $path.display(), n + 1));
            if let Err(v) = checker.observe(recorded.as_message()) {
                violations.push(v);
            }
        }
        if let Err(end) = checker.finish()
            && status.as_deref().is_none_or(|code| code == "OK")
        {
            violations.extend(end);
        }
        violations
    }};
}

/// The traces of `module` (a path under `tests/fixtures`: `acp/traces/v2` is `acp/v2`).
fn traces(module: &str) -> Vec<PathBuf> {
    let (module, sub) = module.split_once('/').unwrap_or((module, ""));
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(module)
        .join("traces")
        .join(sub);
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    out.sort();
    out
}

/// A violation as `.expect.json` lists it; `code` only when the failed check declares one.
fn as_json(v: &Violation) -> Value {
    let mut out = json!({"index": v.index, "machine": v.machine, "key": v.key, "state": v.state, "got": v.got});
    if let Some(code) = v.code() {
        out["code"] = code.into();
    }
    out
}

fn check_module(module: &str, run: fn(&Path) -> Vec<Violation>) -> (usize, usize) {
    let (mut accepted, mut rejected) = (0, 0);
    let mut failures = Vec::new();
    for path in traces(module) {
        let expect_path = path.with_extension("expect.json");
        let expected: Vec<Value> = match std::fs::read_to_string(&expect_path) {
            Ok(text) => serde_json::from_str(&text).unwrap(),
            Err(_) => Vec::new(),
        };
        let got = run(&path);
        if expected.is_empty() {
            accepted += 1;
        } else {
            rejected += 1;
        }
        let got_json: Vec<Value> = got.iter().map(as_json).collect();
        if got_json != expected {
            let lines: Vec<String> = got.iter().map(ToString::to_string).collect();
            failures.push(format!(
                "{}:\n  expected {}\n  got      {}\n  {}",
                path.display(),
                Value::from(expected),
                Value::from(got_json),
                lines.join("\n  ")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} trace(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        accepted > 0 && rejected > 0,
        "{module}: {accepted} accepted, {rejected} rejected traces"
    );
    (accepted, rejected)
}

#[test]
fn helix_zed_traces() {
    check_module("helix_zed", |p| run_trace!(helix_zed, p));
}

#[test]
fn agentloop_traces() {
    check_module("agentloop", |p| run_trace!(agentloop, p));
}

#[test]
fn external_agents_traces() {
    check_module("external_agents", |p| run_trace!(external_agents, p));
}

#[test]
fn eca_traces() {
    check_module("eca", |p| run_trace!(eca, p));
}

#[test]
fn coven_traces() {
    check_module("coven", |p| run_trace!(coven, p));
}

/// Version 2025-11-25's traces in `traces/`, 2026-07-28's in `traces/v2026_07_28/`, each
/// through its version's checker (`trace check` picks the version from the stream; `cli`
/// tests that).
#[test]
fn mcp_traces() {
    check_module("mcp", |p| run_trace!(mcp::v2025_11_25, p));
    check_module("mcp/v2026_07_28", |p| run_trace!(mcp::v2026_07_28, p));
}

#[test]
fn a2a_traces() {
    check_module("a2a", |p| run_trace!(a2a, p));
}

/// Version 1's traces in `traces/`, version 2's in `traces/v2/`, each through its version's
/// checker (`trace check` picks the version from the `initialize` answer; `cli` tests that).
#[test]
fn acp_traces() {
    check_module("acp", |p| run_trace!(acp::v1, p));
    check_module("acp/v2", |p| run_trace!(acp::v2, p));
}
