//! `agentwire mock --replay` with peers nobody here wrote: a session between the official
//! Python MCP SDK's client (`peers/python/mcp_client.py`) and the same SDK's server
//! (`peers/python/mcp_server.py`) is recorded through `agentwire proxy`; the server's side of
//! it is then replayed to the live SDK client, which prints exactly what it printed against
//! the real server, with no deviation reported and the mock's live findings equal to
//! `trace check` on its recording. A client that takes another path
//! (`peers/python/mcp_detour_client.py`) is reported at the request where it leaves the
//! recording.

use std::path::{Path, PathBuf};
use std::process::Command;

use agentwire_tests::peers::python;
use serde_json::Value;

fn agentwire() -> &'static str {
    env!("CARGO_BIN_EXE_agentwire")
}

/// `trace check --protocol mcp` on `file`: its finding lines, without the summary.
fn trace_check(file: &Path) -> Vec<String> {
    let out = Command::new(agentwire())
        .args(["trace", "check", "--protocol", "mcp"])
        .arg(file)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.starts_with("ok:"))
        .map(str::to_owned)
        .collect()
}

/// A finding line without its `file:line N: ` place.
fn what(line: &str) -> String {
    line.split_once(": ")
        .map_or(line, |(_, rest)| rest)
        .to_owned()
}

/// The Python SDK's server command: its interpreter and script.
fn sdk_server() -> Vec<String> {
    let server = python("mcp_server.py");
    let mut cmd = vec![server.get_program().to_string_lossy().into_owned()];
    cmd.extend(server.get_args().map(|a| a.to_string_lossy().into_owned()));
    cmd.push("stdio".into());
    cmd
}

/// Runs `client` (a Python SDK script) against the server command `server`; returns its
/// standard output and error.
fn run(client: &str, server: &[String]) -> (String, String) {
    let mut cmd = python(client);
    cmd.env("PYTHONWARNINGS", "ignore")
        .arg("stdio")
        .args(server);
    let out = cmd.output().expect("the client runs");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Records a session of the SDK client with the SDK server through the proxy; returns the
/// client's output.
fn record(file: &Path) -> String {
    let mut proxy = vec![
        agentwire().to_owned(),
        "proxy".into(),
        "--protocol".into(),
        "mcp".into(),
        "--record".into(),
        file.display().to_string(),
        "--".into(),
    ];
    proxy.extend(sdk_server());
    let (stdout, stderr) = run("mcp_client.py", &proxy);
    assert!(
        stdout.contains("ok   tools/list names echo"),
        "{stdout}\n{stderr}"
    );
    stdout
}

/// The mock replaying the server's side of `trace`, as a server command.
fn replaying(trace: &Path, record: Option<&PathBuf>) -> Vec<String> {
    let mut cmd = vec![
        agentwire().to_owned(),
        "mock".into(),
        "--protocol".into(),
        "mcp".into(),
        "--role".into(),
        "server".into(),
        "--replay".into(),
        trace.display().to_string(),
        "--replay-timeout".into(),
        "10".into(),
    ];
    if let Some(r) = record {
        cmd.extend(["--record".into(), r.display().to_string()]);
    }
    cmd
}

#[test]
fn the_sdk_client_gets_the_recorded_server_back() {
    let dir = tempfile::tempdir().unwrap();
    let recorded = dir.path().join("sdk.jsonl");
    let live = record(&recorded);
    let replayed = dir.path().join("replay.jsonl");
    let (stdout, stderr) = run("mcp_client.py", &replaying(&recorded, Some(&replayed)));
    // The client sees the same server: every check it makes comes out as it did live (its
    // checks written for agentwire's example server fail alike against both).
    assert_eq!(stdout, live, "{stderr}");
    assert!(!stderr.contains("replay:"), "{stderr}");
    // The mock's live findings are `trace check`'s on its recording, and the same findings as
    // on the original session (the client's deliberate bad requests).
    let prefix = format!("{}:", replayed.display());
    let printed: Vec<&str> = stderr.lines().filter(|l| l.starts_with(&prefix)).collect();
    let checked = trace_check(&replayed);
    assert_eq!(printed, checked, "{stderr}");
    let mut now: Vec<String> = checked.iter().map(|l| what(l)).collect();
    let mut then: Vec<String> = trace_check(&recorded).iter().map(|l| what(l)).collect();
    now.sort();
    then.sort();
    assert_eq!(now, then);
    // The same exchange, message for message: who sent what, in the recorded order.
    let exchange = |file: &Path| -> Vec<(String, String)> {
        std::fs::read_to_string(file)
            .unwrap()
            .lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                let m = &v["message"];
                let what = match (m["method"].as_str(), m.get("error")) {
                    (Some(method), _) => method.to_owned(),
                    (None, Some(_)) => "error".to_owned(),
                    (None, None) => "result".to_owned(),
                };
                (v["from"].as_str().unwrap_or("").to_owned(), what)
            })
            .collect()
    };
    let (a, b) = (exchange(&recorded), exchange(&replayed));
    assert_eq!(a, b);
    // It went as far as sampling (a server request inside a tool call) and progress.
    assert!(
        a.contains(&("server".into(), "sampling/createMessage".into())),
        "{a:?}"
    );
    assert!(
        a.contains(&("server".into(), "notifications/progress".into())),
        "{a:?}"
    );
}

#[test]
fn a_client_that_leaves_the_recording_is_reported_where_it_does() {
    let dir = tempfile::tempdir().unwrap();
    let recorded = dir.path().join("sdk.jsonl");
    record(&recorded);
    // Where the recorded client listed its tools, the detour client lists prompts.
    let text = std::fs::read_to_string(&recorded).unwrap();
    let line = text
        .lines()
        .position(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            v["from"] == "client" && v["message"]["method"] == "tools/list"
        })
        .expect("the recording lists tools")
        + 1;
    let (stdout, stderr) = run("mcp_detour_client.py", &replaying(&recorded, None));
    let expected = format!(
        "{}:line {line}: replay: the peer sent a request `prompts/list` where the recording has a request `tools/list`",
        recorded.display()
    );
    let replay_lines: Vec<&str> = stderr.lines().filter(|l| l.contains("replay:")).collect();
    assert_eq!(replay_lines, [expected.as_str()], "{stderr}");
    // Up to there the client got the recorded server; past it, the mock says it has no answer.
    assert!(
        stdout.contains("ok   initialized with python-sdk-peer"),
        "{stdout}\n{stderr}"
    );
    assert!(
        stdout.contains("prompts/list refused: -32601"),
        "{stdout}\n{stderr}"
    );
}
