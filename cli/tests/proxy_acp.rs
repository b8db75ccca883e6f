//! Real ACP traffic through `agentwire proxy`, recorded and checked: the official Python SDK's
//! own example client (`examples/client.py` of `agent-client-protocol` 0.12.1's source
//! distribution, unpacked by `scripts/install-peers`) talking to the SDK's own example agent
//! (`examples/agent.py`), and the `acp_client` example talking to the `acp_agent` example in
//! each version (v1: a turn with permission, a file read, a terminal and a cancel; v2, which
//! both examples agree on when both offer it: a turn reported through `state_update`, with
//! permission, and a cancel). `trace check --protocol acp` finds nothing in any recording (it
//! reads each in the version its `initialize` agreed on), and the proxy closes the agent's
//! input when the client's ends, so each agent exits by itself.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use agentwire_tests::examples::example_binary;
use agentwire_tests::peers::{ensure_installed, target_dir};

fn agentwire() -> &'static str {
    env!("CARGO_BIN_EXE_agentwire")
}

/// `trace check --protocol acp` on `file`: its exit status and standard output.
fn trace_check(file: &Path) -> (Option<i32>, String) {
    let out = Command::new(agentwire())
        .args(["trace", "check", "--protocol", "acp"])
        .arg(file)
        .output()
        .expect("run trace check");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// The methods of a recording's messages, in order (`result` for an answer).
fn methods(file: &Path) -> Vec<String> {
    std::fs::read_to_string(file)
        .expect("the recording")
        .lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
            let m = &v["message"];
            let what = m["method"]
                .as_str()
                .unwrap_or(if m.get("result").is_some() {
                    "result"
                } else {
                    "error"
                });
            format!("{} {what}", v["from"].as_str().unwrap_or("?"))
        })
        .collect()
}

/// The Python SDK's unpacked examples folder.
fn sdk_examples() -> PathBuf {
    ensure_installed();
    target_dir().join("peers/acp-python/agent_client_protocol-0.12.1/examples")
}

#[test]
fn the_python_sdk_example_pair_recorded_through_the_proxy_has_no_finding() {
    let examples = sdk_examples();
    let python = target_dir().join("peers/venv/bin/python");
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("sdk.jsonl");
    let mut child = Command::new(&python)
        .arg(examples.join("client.py"))
        .arg(agentwire())
        .args(["proxy", "--protocol", "acp", "--record"])
        .arg(&record)
        .arg("--")
        .arg(&python)
        .arg(examples.join("agent.py"))
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the SDK's example client");
    // The example client reads one prompt a line until its input ends.
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"hello\nsecond prompt\n").unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("| Agent: second prompt"),
        "{stdout}\n{stderr}"
    );
    let seen = methods(&record);
    for expected in [
        "client initialize",
        "client session/new",
        "client session/prompt",
        "agent session/update",
        "agent result",
    ] {
        assert!(seen.iter().any(|m| m == expected), "{expected}: {seen:?}");
    }
    assert_eq!(
        seen.iter()
            .filter(|m| *m == "client session/prompt")
            .count(),
        2
    );
    let (code, report) = trace_check(&record);
    assert_eq!(code, Some(0), "{report}");
    assert!(
        report.starts_with(&format!("ok: {} message(s)", seen.len())),
        "{report}"
    );
}

/// Runs the `acp_client` example (with `args` before the agent's command) against the
/// `acp_agent` example through `agentwire proxy --record`: the client's output and the
/// recording's methods, once trace check found nothing in it.
fn record_the_examples(args: &[&str]) -> (String, Vec<String>) {
    let client = example_binary("acp_client");
    let agent = example_binary("acp_agent");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("README.md"), "# recorded\n").unwrap();
    let record = dir.path().join("ours.jsonl");
    let out = Command::new(client)
        .args(args)
        .arg(agentwire())
        .args(["proxy", "--protocol", "acp", "--record"])
        .arg(&record)
        .arg("--")
        .arg(agent)
        .current_dir(dir.path())
        .env("RUST_LOG", "off")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{stdout}");
    // The agent saw the end of its input through the proxy and exited by itself.
    assert!(stdout.contains("agent exited: exit status: 0"), "{stdout}");
    let seen = methods(&record);
    let (code, report) = trace_check(&record);
    assert_eq!(code, Some(0), "{report}");
    assert!(
        report.starts_with(&format!("ok: {} message(s)", seen.len())),
        "{report}"
    );
    (stdout, seen)
}

#[test]
fn the_acp_examples_recorded_through_the_proxy_have_no_finding_in_v1() {
    let (stdout, seen) = record_the_examples(&["--v1"]);
    assert!(stdout.contains("speaking ACP version 1"), "{stdout}");
    for expected in [
        "agent session/request_permission",
        "agent fs/read_text_file",
        "agent terminal/create",
        "agent terminal/release",
        "client session/cancel",
    ] {
        assert!(seen.iter().any(|m| m == expected), "{expected}: {seen:?}");
    }
}

#[test]
fn the_acp_examples_recorded_through_the_proxy_have_no_finding_in_v2() {
    let (stdout, seen) = record_the_examples(&[]);
    assert!(stdout.contains("speaking ACP version 2"), "{stdout}");
    for expected in [
        "client initialize",
        "client session/new",
        "client session/prompt",
        "agent session/update",
        "agent session/request_permission",
        "client session/cancel",
    ] {
        assert!(seen.iter().any(|m| m == expected), "{expected}: {seen:?}");
    }
    // Version 2 lends the agent no files and no terminals.
    assert!(
        !seen
            .iter()
            .any(|m| m.contains("fs/") || m.contains("terminal/")),
        "{seen:?}"
    );
}
