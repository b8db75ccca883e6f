//! `agentwire mock --listen` over Streamable HTTP, with peers nobody here wrote: the official
//! Python and TypeScript MCP SDK clients connect to the mocked server at its URL (the SDKs
//! check the `initialize` answer, the doc's example with the offered version echoed, and
//! carry the session header the transport hands out); each client's session is a stream of
//! its own, the mock finds nothing wrong with either, and what it printed live is what
//! `trace check` prints on its recording.

use std::io::{BufRead, BufReader, Read};
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

/// A child killed when the test ends, passed or not.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn the_sdk_clients_over_streamable_http_against_the_mock() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("m.jsonl");
    let mut mock = Killed(
        Command::new(agentwire())
            .args([
                "mock",
                "--role",
                "server",
                "--listen",
                "127.0.0.1:0",
                "--spec",
            ])
            .arg(spec())
            .arg("--record")
            .arg(&record)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut err = BufReader::new(mock.0.stderr.take().unwrap());
    let mut first = String::new();
    err.read_line(&mut first).unwrap();
    let url = first
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("no URL in {first:?}"))
        .to_owned();
    assert!(url.ends_with("/mcp"), "{url}");

    let mut py = python("mcp_client.py");
    py.env("PYTHONWARNINGS", "ignore").args(["http", &url]);
    let py = py.output().unwrap();
    let py_out = String::from_utf8_lossy(&py.stdout);
    // The SDK refuses a version it does not support: the mock echoed the one offered.
    assert!(py_out.contains("ok   protocol version"), "{py_out}");

    let ts = node("mcp_client.js").args(["http", &url]).output().unwrap();
    let ts_out = String::from_utf8_lossy(&ts.stdout);
    assert!(ts_out.starts_with("ok   connected over http"), "{ts_out}");

    Command::new("kill")
        .args(["-TERM", &mock.0.id().to_string()])
        .status()
        .unwrap();
    let mut stderr = String::new();
    err.read_to_string(&mut stderr).unwrap();
    assert_eq!(mock.0.wait().unwrap().code(), Some(0), "{stderr}");
    let prefix = record.display().to_string();
    let live: Vec<&str> = stderr.lines().filter(|l| l.starts_with(&prefix)).collect();
    assert_eq!(live, trace_check(&record), "{stderr}");
    assert!(live.is_empty(), "{stderr}");

    let lines: Vec<Value> = std::fs::read_to_string(&record)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // One stream per client session, each opened with `initialize` and answered with the
    // doc's example.
    let mut streams: Vec<&str> = lines.iter().filter_map(|l| l["stream"].as_str()).collect();
    streams.sort_unstable();
    streams.dedup();
    assert_eq!(streams.len(), 2, "{lines:?}");
    for stream in streams {
        let answer = lines
            .iter()
            .find(|l| l["stream"] == stream && l["from"] == "server")
            .unwrap();
        assert_eq!(
            answer["message"]["result"]["serverInfo"]["name"], "example-server",
            "{answer}"
        );
    }
}
