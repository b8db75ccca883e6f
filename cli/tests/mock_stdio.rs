//! `agentwire mock` against peers nobody here wrote: the official TypeScript and Python MCP
//! SDK clients start `agentwire mock --role server` as their server and connect (the SDKs
//! validate the drawn `initialize` result, version included, and accept it); every answer
//! the mock sends passes `trace check` on its recording, and what the mock printed live is
//! what `trace check` prints. A peer's mistakes are reported and answered in JSON-RPC.

use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use agentwire_tests::peers::{node, python};
use serde_json::Value;

fn agentwire() -> &'static str {
    env!("CARGO_BIN_EXE_agentwire")
}

fn spec() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/mcp")
}

/// `trace check` on `file`: its finding lines, without the summary.
fn trace_check(file: &Path) -> Vec<String> {
    let out = Command::new(agentwire())
        .args(["trace", "check", "--spec"])
        .arg(spec())
        .arg(file)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.starts_with("ok:"))
        .map(str::to_owned)
        .collect()
}

/// Runs an SDK client against the mock; returns the client's output and the recording.
fn client_against_the_mock(mut client: Command) -> (String, Vec<Value>) {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("s.jsonl");
    let out = client
        .arg("stdio")
        .arg(agentwire())
        .args(["mock", "--role", "server", "--spec"])
        .arg(spec())
        .arg("--record")
        .arg(&record)
        .output()
        .expect("the client runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The mock's live findings are on the client's standard error (it inherits the
    // server's); the SDK client makes none here, and trace check agrees.
    let prefix = format!("{}:", record.display());
    let live: Vec<&str> = stderr.lines().filter(|l| l.starts_with(&prefix)).collect();
    assert_eq!(live, trace_check(&record), "{stderr}");
    assert!(live.is_empty(), "{stderr}");
    let lines = std::fs::read_to_string(&record)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (stdout, lines)
}

fn answered(lines: &[Value], method: &str) -> bool {
    let id = lines
        .iter()
        .find(|l| l["from"] == "client" && l["message"]["method"] == method)
        .map(|l| l["message"]["id"].clone());
    id.is_some_and(|id| {
        lines.iter().any(|l| {
            l["from"] == "server" && l["message"]["id"] == id && l["message"]["result"].is_object()
        })
    })
}

#[test]
fn the_typescript_sdk_client_connects_to_the_mock() {
    let (stdout, lines) = client_against_the_mock(node("mcp_client.js"));
    assert!(stdout.starts_with("ok   connected over stdio"), "{stdout}");
    assert!(answered(&lines, "initialize"), "{lines:?}");
    assert!(answered(&lines, "tools/list"), "{lines:?}");
}

#[test]
fn the_python_sdk_client_connects_to_the_mock() {
    let mut client = python("mcp_client.py");
    client.env("PYTHONWARNINGS", "ignore");
    let (stdout, lines) = client_against_the_mock(client);
    // The SDK refuses a version it does not support: the mock echoed the one offered.
    assert!(stdout.contains("ok   protocol version"), "{stdout}");
    assert!(answered(&lines, "initialize"), "{lines:?}");
}

#[test]
fn the_peers_mistakes_are_reported_and_answered() {
    let mut mock = Command::new(agentwire())
        .args(["mock", "--role", "server", "--spec"])
        .arg(spec())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let input = concat!(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{}}"#,
        "\n",
        "{not json\n",
        r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#,
        "\n",
    );
    mock.stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = mock.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let answers: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), 3, "{answers:?}");
    assert_eq!(answers[0]["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(answers[1]["error"]["code"], -32602, "{answers:?}");
    assert!(answers[2]["result"].is_object(), "{answers:?}");
    assert_eq!(answers[2]["id"], 3);
    assert!(
        stderr.contains("mock:line 4: /message/params/name: missing field `name`"),
        "{stderr}"
    );
    assert!(stderr.contains("mock:line 6: invalid JSON"), "{stderr}");
}

/// The mock's answers to `input` (JSON Lines), run with `extra` arguments.
fn answers_to(input: &str, extra: &[&OsStr]) -> (Vec<Value>, String) {
    let mut mock = Command::new(agentwire())
        .args(["mock", "--role", "server", "--spec"])
        .arg(spec())
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    mock.stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = mock.wait_with_output().unwrap();
    let answers = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (answers, String::from_utf8_lossy(&out.stderr).into_owned())
}

const INITIALIZE: &str = concat!(
    r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    "\n",
);

#[test]
fn the_mock_answers_with_the_docs_example_first() {
    // docs/protocols/mcp.md, found beside spec/, shows an `initialize` result: it is sent,
    // the offered version echoed into it.
    let (answers, stderr) = answers_to(INITIALIZE, &[]);
    assert_eq!(answers.len(), 1, "{answers:?}\n{stderr}");
    let result = &answers[0]["result"];
    assert_eq!(
        result["instructions"], "Call `echo` to test the connection.",
        "{result}"
    );
    assert_eq!(result["serverInfo"]["name"], "example-server", "{result}");
    assert_eq!(result["protocolVersion"], "2025-06-18", "{result}");
}

#[test]
fn a_doc_example_the_decoder_refuses_is_never_sent() {
    let dir = tempfile::tempdir().unwrap();
    let doc = dir.path().join("my.md");
    // The first example lacks `serverInfo`: the decoder refuses it; the second is sent. A
    // `ping` example that is no empty result is refused too, and the ping answer is drawn.
    std::fs::write(
        &doc,
        concat!(
            "# Mine\n\n## initialize\n\n",
            "```json\n{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{}}}\n```\n\n",
            "```json\n{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"serverInfo\":{\"name\":\"from-my-doc\",\"version\":\"2\"}}}\n```\n\n",
            "## ping\n\n```json\n{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":[1]}\n```\n",
        ),
    )
    .unwrap();
    let input = format!(
        "{INITIALIZE}{}\n",
        r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#
    );
    let (answers, stderr) = answers_to(&input, &[OsStr::new("--doc"), doc.as_os_str()]);
    assert_eq!(answers.len(), 2, "{answers:?}\n{stderr}");
    assert_eq!(answers[0]["result"]["serverInfo"]["name"], "from-my-doc");
    assert!(answers[0]["result"].get("instructions").is_none());
    assert!(answers[1]["result"].is_object(), "{answers:?}");
    assert!(!stderr.contains("mock:line"), "{stderr}");
}
