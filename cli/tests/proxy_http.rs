//! `agentwire proxy --listen --upstream` with peers nobody here wrote: the official
//! TypeScript and Python MCP SDK clients reach the example server through the proxy over
//! Streamable HTTP (POSTs answered in JSON or in SSE streams, the session header relayed)
//! and every check of theirs still passes; the findings the proxy prints live are exactly
//! the ones `trace check` prints on its recording. A browser page from another site is
//! refused on the listening side, and `--enforce` answers a bad request in JSON-RPC itself.
//! The official SDKs' servers (`peers/python/mcp_server.py`, `peers/node/mcp_server.cjs`) sit
//! behind the proxy too, driven by the Python SDK's client (`peers/python/mcp_sdk_client.py`):
//! progress, sampling, elicitation and roots travel in the servers' SSE streams and the
//! client's answers in POSTs, every check of the client passes, and the live findings are
//! `trace check`'s on the recording.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use agentwire_tests::examples::example_binary;
use agentwire_tests::peers::{node, on_a_free_port, python};
use serde_json::{Value, json};

fn agentwire() -> &'static str {
    env!("CARGO_BIN_EXE_agentwire")
}

/// The example server on Streamable HTTP at a free port; killed on drop.
struct Upstream {
    child: Child,
    url: String,
}

impl Upstream {
    fn start() -> Self {
        let mut child = Command::new(example_binary("mcp_server"))
            .args(["--http", "127.0.0.1:0"])
            .env("RUST_LOG", "error")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start mcp_server --http");
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        let url = first
            .trim()
            .strip_prefix("listening on ")
            .unwrap()
            .to_owned();
        Upstream { child, url }
    }
}

impl Drop for Upstream {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Upstream {
    /// The TypeScript SDK's server (`McpServer`) over Streamable HTTP; it picks its port and
    /// prints it.
    fn typescript_sdk() -> Self {
        let mut child = node("mcp_server.cjs")
            .arg("http")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start the TypeScript SDK server");
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        let port = first
            .trim()
            .strip_prefix("LISTENING ")
            .unwrap_or_else(|| panic!("unexpected first line {first:?}"))
            .to_owned();
        let url = format!("http://127.0.0.1:{port}/mcp");
        Upstream { child, url }
    }

    /// The Python SDK's server (FastMCP) over Streamable HTTP, on a port of its own.
    fn python_sdk() -> Self {
        let (child, port) = on_a_free_port(|port| {
            let mut cmd = python("mcp_server.py");
            cmd.args(["http", &port.to_string()])
                .env("PYTHONWARNINGS", "ignore")
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            cmd
        });
        let url = format!("http://127.0.0.1:{port}/mcp");
        Upstream { child, url }
    }
}

/// A proxy listening on a free port in front of `upstream`.
struct Proxy {
    child: Child,
    err: BufReader<std::process::ChildStderr>,
    /// `http://127.0.0.1:PORT`
    base: String,
}

impl Proxy {
    fn start(upstream: &str, extra: &[&str]) -> Self {
        let mut child = Command::new(agentwire())
            .args(["proxy", "--protocol", "mcp", "--listen", "127.0.0.1:0"])
            .args(["--upstream", upstream])
            .args(extra)
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the proxy");
        let mut err = BufReader::new(child.stderr.take().unwrap());
        let mut first = String::new();
        err.read_line(&mut first).unwrap();
        let base = first
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no address in {first:?}"))
            .trim_end_matches(',')
            .to_owned();
        Proxy { child, err, base }
    }

    /// Stops the proxy as Ctrl-C would; its exit status and the rest of its standard error.
    fn stop(mut self) -> (Option<i32>, String) {
        let pid = self.child.id().to_string();
        Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        let mut rest = String::new();
        self.err.read_to_string(&mut rest).unwrap();
        (self.child.wait().unwrap().code(), rest)
    }
}

/// `trace check` on `file`: its finding lines, without the summary.
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

/// The finding lines of the proxy's standard error that name `file` (or one of its
/// streams, `FILE#N`).
fn live(stderr: &str, file: &Path) -> Vec<String> {
    let prefix = file.display().to_string();
    stderr
        .lines()
        .filter(|l| l.starts_with(&prefix))
        .map(str::to_owned)
        .collect()
}

fn run_client(mut cmd: Command, url: &str, checks: usize) {
    let out = cmd.args(["http", url]).output().expect("the client runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.trim_end().ends_with("all checks passed"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        stdout.lines().filter(|l| l.starts_with("ok ")).count(),
        checks
    );
}

/// An SDK client drives the example server through the proxy; returns the recording's lines
/// and checks the live findings against `trace check`'s.
fn through_the_proxy(client: Command, checks: usize) -> Vec<Value> {
    let upstream = Upstream::start();
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("s.jsonl");
    let proxy = Proxy::start(&upstream.url, &["--record", record.to_str().unwrap()]);
    run_client(client, &format!("{}/mcp", proxy.base), checks);
    let (code, stderr) = proxy.stop();
    let live = live(&stderr, &record);
    assert_eq!(live, trace_check(&record), "{stderr}");
    // The client's deliberate mistakes were seen and exit status 1 says so.
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        live.iter()
            .any(|l| l.contains("unknown method `no/such/method`")),
        "{live:?}"
    );
    assert!(
        live.iter().any(|l| l.contains(": /message/params/")),
        "the bad params were seen: {live:?}"
    );
    std::fs::read_to_string(&record)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn the_typescript_sdk_client_over_streamable_http() {
    let lines = through_the_proxy(node("mcp_client.js"), 19);
    // Progress came in the tools/call's SSE stream, the sampling request too, and the
    // client's answer to it went up in a POST: each recorded with its sender.
    let sent = |from: &str, method: &str| {
        lines
            .iter()
            .any(|l| l["from"] == from && l["message"]["method"] == method)
    };
    assert!(sent("server", "notifications/progress"));
    assert!(sent("server", "sampling/createMessage"));
    assert!(sent("client", "notifications/initialized"));
    assert!(
        lines
            .iter()
            .any(|l| l["from"] == "client" && l["message"]["result"]["model"] == "node-model")
    );
}

#[test]
fn the_python_sdk_client_over_streamable_http() {
    let mut client = python("mcp_client.py");
    client.env("PYTHONWARNINGS", "ignore");
    let lines = through_the_proxy(client, 12);
    assert!(lines.iter().any(|l| l["from"] == "server"
        && l["message"]["result"]["serverInfo"]["name"] == "agentwire-mcp-example"));
}

/// The Python SDK's client drives `upstream` (an SDK server named `name`) through the proxy:
/// every check of the client passes, the live findings are `trace check`'s on the recording
/// and they are the client's deliberate mistakes; returns the recording's lines.
fn sdk_server_behind_the_proxy(upstream: &Upstream, name: &str) -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("s.jsonl");
    let proxy = Proxy::start(&upstream.url, &["--record", record.to_str().unwrap()]);
    let mut client = python("mcp_sdk_client.py");
    client
        .env("PYTHONWARNINGS", "ignore")
        .args(["http", &format!("{}/mcp", proxy.base), name]);
    let out = client.output().expect("the client runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let (code, stderr) = proxy.stop();
    assert!(
        out.status.success() && stdout.trim_end().ends_with("all checks passed"),
        "{stdout}\n{}\n{stderr}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout.lines().filter(|l| l.starts_with("ok ")).count(), 11);
    let live = live(&stderr, &record);
    assert_eq!(live, trace_check(&record), "{stderr}");
    assert_eq!(code, Some(1), "{stderr}");
    // Only the client's deliberate mistakes, once each: the unknown method (its error answer
    // is that refusal's consequence, not a second finding) and the tools/call without a name.
    // Nothing the server sent is a finding.
    let expected = [
        "unknown method `no/such/method`",
        "/message/params/name: missing field `name` [required]",
    ];
    assert_eq!(live.len(), expected.len(), "{live:#?}");
    for (line, what) in live.iter().zip(expected) {
        assert!(line.contains(what), "{what}: {live:#?}");
    }
    std::fs::read_to_string(&record)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The server's requests and notifications that came in its SSE streams, and the client's
/// answers to them that went up in POSTs, each recorded with its sender.
fn assert_both_ways(lines: &[Value]) {
    let sent = |from: &str, method: &str| {
        lines
            .iter()
            .any(|l| l["from"] == from && l["message"]["method"] == method)
    };
    for method in [
        "notifications/progress",
        "sampling/createMessage",
        "elicitation/create",
        "roots/list",
    ] {
        assert!(sent("server", method), "{method}: {lines:?}");
    }
    let answered = |member: &str| {
        lines
            .iter()
            .any(|l| l["from"] == "client" && l["message"]["result"][member].is_string())
    };
    assert!(answered("model") && answered("action"), "{lines:?}");
}

#[test]
fn the_python_sdk_server_behind_the_proxy() {
    let upstream = Upstream::python_sdk();
    let lines = sdk_server_behind_the_proxy(&upstream, "python-sdk-peer");
    assert_both_ways(&lines);
}

#[test]
fn the_typescript_sdk_server_behind_the_proxy() {
    let upstream = Upstream::typescript_sdk();
    let lines = sdk_server_behind_the_proxy(&upstream, "ts-sdk-peer");
    assert_both_ways(&lines);
}

fn post(
    base: &str,
    session: Option<&str>,
    body: &Value,
    origin: Option<&str>,
) -> (u16, String, Option<String>) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let mut req = reqwest::Client::new()
            .post(format!("{base}/mcp"))
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(body.to_string());
        if let Some(s) = session {
            req = req.header("mcp-session-id", s);
        }
        if let Some(o) = origin {
            req = req.header("origin", o);
        }
        let answer = req.send().await.unwrap();
        let status = answer.status().as_u16();
        let session = answer
            .headers()
            .get("mcp-session-id")
            .map(|v| v.to_str().unwrap().to_owned());
        (status, answer.text().await.unwrap(), session)
    })
}

/// The JSON-RPC message in an answer body, plain JSON or the data of an SSE event.
fn message(body: &str) -> Value {
    let text = body
        .lines()
        .find_map(|l| l.strip_prefix("data: ").filter(|d| !d.is_empty()))
        .unwrap_or(body);
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {body}"))
}

#[test]
fn enforce_answers_a_bad_request_and_other_sites_are_refused() {
    let upstream = Upstream::start();
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("s.jsonl");
    let proxy = Proxy::start(
        &upstream.url,
        &["--enforce", "--record", record.to_str().unwrap()],
    );
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "proxy-test", "version": "1"}}});
    // A page of another site never reaches the server (nor the recording).
    let (status, _, _) = post(&proxy.base, None, &init, Some("http://evil.example"));
    assert_eq!(status, 403);
    let (status, body, session) = post(&proxy.base, None, &init, Some("http://localhost:5173"));
    assert_eq!(status, 200, "{body}");
    assert!(message(&body)["result"]["serverInfo"].is_object(), "{body}");
    let session = session.expect("the session header is relayed");
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(&proxy.base, Some(&session), &note, None).0, 202);
    let bad = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {}});
    let (status, body, _) = post(&proxy.base, Some(&session), &bad, None);
    let refused = message(&body);
    assert_eq!(
        (status, &refused["error"]["code"]),
        (200, &json!(-32602)),
        "{body}"
    );
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("refused by agentwire proxy")
    );
    let ping = json!({"jsonrpc": "2.0", "id": 3, "method": "ping"});
    let (_, body, _) = post(&proxy.base, Some(&session), &ping, None);
    assert_eq!(message(&body)["result"], json!({}), "{body}");
    let (code, stderr) = proxy.stop();
    assert_eq!(code, Some(1), "{stderr}");
    let live = live(&stderr, &record);
    assert_eq!(live, trace_check(&record));
    assert_eq!(live.len(), 1, "{live:?}");
    let recorded = std::fs::read_to_string(&record).unwrap();
    assert_eq!(recorded.lines().count(), 7, "{recorded}");
}

/// An HTTP request to the proxy's endpoint with `method`, in `session`; its status.
fn send(base: &str, method: &str, session: &str) -> u16 {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let answer = reqwest::Client::new()
            .request(method, format!("{base}/mcp"))
            .header("mcp-session-id", session)
            .send()
            .await
            .unwrap();
        answer.status().as_u16()
    })
}

#[test]
fn concurrent_sessions_are_checked_apart() {
    let upstream = Upstream::start();
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("s.jsonl");
    let proxy = Proxy::start(&upstream.url, &["--record", record.to_str().unwrap()]);
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "proxy-test", "version": "1"}}});
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    // Two clients open sessions side by side, with the same request ids: read as one
    // stream, the second `initialize` and every repeated id would be findings.
    let (_, _, a) = post(&proxy.base, None, &init, None);
    let (_, _, b) = post(&proxy.base, None, &init, None);
    let (a, b) = (a.expect("session a"), b.expect("session b"));
    assert_ne!(a, b);
    for s in [&a, &b] {
        assert_eq!(post(&proxy.base, Some(s), &note, None).0, 202);
    }
    for s in [&a, &b] {
        let (_, body, _) = post(&proxy.base, Some(s), &list, None);
        assert!(message(&body)["result"]["tools"].is_array(), "{body}");
    }
    // The second client's mistake is its own.
    let bad = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {}});
    post(&proxy.base, Some(&b), &bad, None);
    assert!(send(&proxy.base, "DELETE", &a) < 300);
    let (code, stderr) = proxy.stop();
    assert_eq!(code, Some(1), "{stderr}");
    let live = live(&stderr, &record);
    assert_eq!(live, trace_check(&record), "{stderr}");
    assert!(!live.is_empty(), "{stderr}");
    assert!(
        live.iter()
            .all(|l| l.starts_with(&format!("{}#2:", record.display()))),
        "{live:?}"
    );
    assert!(stderr.contains("in 2 stream(s)"), "{stderr}");
    // The first session ended with its DELETE, and its stream with it.
    let recorded = std::fs::read_to_string(&record).unwrap();
    let ends: Vec<Value> = recorded
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|l| l["end"] == true)
        .collect();
    assert_eq!(ends, [json!({"stream": "1", "end": true})], "{recorded}");
}
