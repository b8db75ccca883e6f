//! `agentwire mock` sends what the machines say the peer waits for, unprompted: the opening
//! a client owes (MCP's `initialize`, then `notifications/initialized`) against the official
//! Python MCP SDK's server, which answers it and finds nothing wrong; and, for a spec whose
//! machine waits for a server notification after a client request (the `kv_rpc` test
//! protocol: each `store/put` is announced by a `store/changed` of its handle), that
//! notification before the answer.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use agentwire_tests::peers::python;
use serde_json::Value;

fn agentwire() -> &'static str {
    env!("CARGO_BIN_EXE_agentwire")
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn lines(file: &Path) -> Vec<Value> {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn the_mock_client_opens_the_session_with_the_sdk_server() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("c.jsonl");
    let server = python("mcp_server.py");
    let out = Command::new(agentwire())
        .args(["mock", "--role", "client", "--idle", "8", "--spec"])
        .arg(root().join("spec/mcp"))
        .arg("--record")
        .arg(&record)
        .arg("--")
        .arg(server.get_program())
        .args(server.get_args())
        .arg("stdio")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let got = lines(&record);
    let said: Vec<(String, String)> = got
        .iter()
        .map(|l| {
            let m = &l["message"];
            let what = m["method"]
                .as_str()
                .map_or_else(|| format!("answer to {}", m["id"]), str::to_owned);
            (l["from"].as_str().unwrap_or("").to_owned(), what)
        })
        .collect();
    let expected = [
        ("client", "initialize"),
        ("server", "answer to 1"),
        ("client", "notifications/initialized"),
    ]
    .map(|(a, b)| (a.to_owned(), b.to_owned()));
    assert_eq!(said, expected, "{got:?}\n{stderr}");
    // The params are the document's example's; the SDK server answered as itself.
    assert_eq!(
        got[0]["message"]["params"]["clientInfo"]["name"],
        "example-client"
    );
    assert_eq!(
        got[1]["message"]["result"]["serverInfo"]["name"],
        "python-sdk-peer"
    );
    let check = Command::new(agentwire())
        .args(["trace", "check", "--protocol", "mcp"])
        .arg(&record)
        .output()
        .unwrap();
    assert!(check.status.success(), "{check:?}");
}

fn frame(text: &str) -> String {
    format!("Content-Length: {}\r\n\r\n{text}", text.len())
}

/// The bodies of Content-Length frames.
fn bodies(mut bytes: &str) -> Vec<Value> {
    let mut out = Vec::new();
    while let Some(start) = bytes.find("\r\n\r\n") {
        let len: usize = bytes[..start]
            .trim()
            .strip_prefix("Content-Length: ")
            .unwrap()
            .parse()
            .unwrap();
        let body = &bytes[start + 4..start + 4 + len];
        out.push(serde_json::from_str(body).unwrap());
        bytes = &bytes[start + 4 + len..];
    }
    out
}

#[test]
fn the_mock_server_sends_the_notification_its_machine_waits_for_before_answering() {
    let mut mock = Command::new(agentwire())
        .args(["mock", "--role", "server", "--spec"])
        .arg(root().join("tests/protocols/kv_rpc"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let input = [
        r#"{"jsonrpc":"2.0","id":1,"method":"store/open","params":{"name":"s"}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"store/put","params":{"handle":"h7","key":"k","value":{"kind":"number","number":1}}}"#,
    ]
    .map(frame)
    .concat();
    mock.stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = mock.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let sent = bodies(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(sent.len(), 3, "{sent:?}");
    assert_eq!(sent[0]["id"], 1);
    assert_eq!(sent[1]["method"], "store/changed", "{sent:?}");
    assert_eq!(sent[1]["params"]["handle"], "h7");
    assert_eq!(sent[1]["params"]["key"], "k");
    assert!(sent[1].get("id").is_none());
    assert_eq!(sent[2]["id"], 2);
    assert!(sent[2]["result"]["version"].is_u64(), "{sent:?}");
}
