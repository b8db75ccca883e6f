//! `agentwire trace check --protocol mcp` on a recorded MCP session (the TypeScript SDK's
//! client against the example server): it passes as recorded, and a response is typed by the
//! request it answers, so a result that breaks that request's result type, or an answer under
//! the string id `"2"` to the request with the number id `2`, is reported. A request the check
//! refuses is one finding: its answer is none; a version probe answered with an error before
//! the handshake is none either; a log message needs the `logging` capability.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn recorded() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .join("tests/fixtures/mcp/traces/sdk_client_session.jsonl")
}

/// Runs the binary on `file` and returns (exit status, stdout, stderr).
fn check(file: &Path) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_agentwire"))
        .args(["trace", "check", "--protocol", "mcp"])
        .arg(file)
        .output()
        .expect("the binary runs");
    (
        out.status.code().expect("exited normally"),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The recorded session with line `line` (1-based) changed by `edit`, written to `dir`.
fn edited(dir: &Path, line: usize, edit: impl Fn(&mut Value)) -> PathBuf {
    let text = std::fs::read_to_string(recorded()).unwrap();
    let mut out = String::new();
    for (n, l) in text.lines().enumerate() {
        let mut v: Value = serde_json::from_str(l).unwrap();
        if n + 1 == line {
            edit(&mut v);
        }
        out.push_str(&v.to_string());
        out.push('\n');
    }
    let path = dir.join("edited.jsonl");
    std::fs::write(&path, out).unwrap();
    path
}

#[test]
fn the_recorded_session_passes() {
    let (code, stdout, stderr) = check(&recorded());
    assert_eq!(code, 0, "{stdout}{stderr}");
    // The progress token of the recorded call is the number 5, which keys a progress
    // instance like a string token would.
    assert_eq!(
        stdout.trim(),
        "ok: 30 message(s) in 1 stream(s), 15 sequence instance(s), protocol mcp \
         (version 2025-11-25: 1 stream(s))"
    );
}

#[test]
fn a_result_is_typed_by_its_request() {
    let dir = tempfile::tempdir().unwrap();
    // Line 7 answers `tools/call` (id 2): its content blocks are CallToolResult's.
    let file = edited(dir.path(), 7, |v| {
        v["message"]["result"]["content"][0]["type"] = "bogus".into();
    });
    let (code, stdout, _) = check(&file);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains(
            "edited.jsonl:line 7: /message/result/content/0/type: unknown `type` value `bogus`"
        ),
        "{stdout}"
    );
}

#[test]
fn an_answer_under_the_string_id_is_not_the_answer_to_the_number_id() {
    let dir = tempfile::tempdir().unwrap();
    let file = edited(dir.path(), 7, |v| v["message"]["id"] = "2".into());
    let (code, stdout, _) = check(&file);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("line 7: client_request \"2\" in state idle: got server.response"),
        "{stdout}"
    );
    assert!(
        stdout.contains("end of stream: client_request 2 in state pending"),
        "{stdout}"
    );
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .join("tests/fixtures/mcp/traces")
        .join(name)
}

#[test]
fn a_tool_call_to_a_server_that_declared_no_tools_is_a_violation() {
    let (code, stdout, _) = check(&fixture("tools_call_without_tools_capability.jsonl"));
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains(
            "tools_call_without_tools_capability.jsonl:line 4: lifecycle connection in state running: got client.tools/call, but \"tools\" in server_caps does not hold"
        ),
        "{stdout}"
    );
    // The refused request started nothing; its answer (line 5) is the refusal's consequence,
    // not a second finding.
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
}

#[test]
fn a_tool_call_to_a_server_that_declared_tools_is_accepted() {
    let (code, stdout, stderr) = check(&fixture("tools_call_with_tools_capability.jsonl"));
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.starts_with("ok: 5 message(s) in 1 stream(s)"),
        "{stdout}"
    );
}

#[test]
fn subscribing_needs_the_subscribe_capability() {
    let (code, stdout, _) = check(&fixture("subscribe_without_subscribe_capability.jsonl"));
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains(
            "line 6: lifecycle connection in state running: got client.resources/subscribe, but \"resources.subscribe\" in server_caps does not hold"
        ),
        "{stdout}"
    );
    // Its answer is no second finding.
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
}

#[test]
fn the_number_id_and_the_string_id_are_two_requests() {
    let (code, stdout, stderr) = check(&fixture("number_and_string_ids.jsonl"));
    assert_eq!(code, 0, "{stdout}{stderr}");
    // The answer under "2" does not answer the initialize request 2: the session never starts.
    let (code, stdout, _) = check(&fixture("initialize_answered_under_string_id.jsonl"));
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("line 2: client_request \"2\" in state idle: got server.response"),
        "{stdout}"
    );
    assert!(
        stdout.contains("end of stream: lifecycle connection in state initializing"),
        "{stdout}"
    );
}

#[test]
fn the_capabilities_come_from_the_answer_to_initialize_only() {
    let dir = tempfile::tempdir().unwrap();
    // The recorded server declared tools; an answer without them refuses the later calls.
    let file = edited(dir.path(), 2, |v| {
        v["message"]["result"]["capabilities"]
            .as_object_mut()
            .unwrap()
            .remove("tools");
    });
    let (code, stdout, _) = check(&file);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("got client.tools/list, but \"tools\" in server_caps does not hold"),
        "{stdout}"
    );
}

/// `lines` (one JSON value each) written to `dir` as `name`.
fn written(dir: &Path, name: &str, lines: &[Value]) -> PathBuf {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn client(message: Value) -> Value {
    serde_json::json!({"from": "client", "message": message})
}

fn server(message: Value) -> Value {
    serde_json::json!({"from": "server", "message": message})
}

/// The 2025-11-25 handshake (ids `id` and on), the server declaring `caps`.
fn handshake(id: i64, caps: Value) -> Vec<Value> {
    use serde_json::json;
    vec![
        client(
            json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "trace-client", "version": "1.0.0"}}}),
        ),
        server(
            json!({"jsonrpc": "2.0", "id": id, "result": {"protocolVersion": "2025-11-25",
            "capabilities": caps, "serverInfo": {"name": "trace-server", "version": "1.0.0"}}}),
        ),
        client(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
    ]
}

#[test]
fn a_version_probe_answered_with_an_error_then_the_handshake_is_no_violation() {
    use serde_json::json;
    // A client of both eras probes in the newest; a server of the older era refuses the
    // method, and the client opens with the handshake on the same stream.
    let dir = tempfile::tempdir().unwrap();
    let mut lines = vec![
        client(
            json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}}),
        ),
        server(
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}}),
        ),
    ];
    lines.extend(handshake(2, json!({"tools": {}})));
    lines.push(client(
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}),
    ));
    lines.push(server(
        json!({"jsonrpc": "2.0", "id": 3, "result": {"tools": []}}),
    ));
    let (code, stdout, stderr) = check(&written(dir.path(), "probe.jsonl", &lines));
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains("(version 2025-11-25: 1 stream(s))"),
        "{stdout}"
    );
}

#[test]
fn a_refused_request_is_one_finding_and_its_answer_none() {
    use serde_json::json;
    let dir = tempfile::tempdir().unwrap();
    let mut lines = handshake(0, json!({"tools": {}}));
    lines.extend([
        // Not a method of the protocol: refused when read.
        client(json!({"jsonrpc": "2.0", "id": 1, "method": "no/such/method", "params": {}})),
        server(json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}})),
        // A method the server declared no capability for: refused by the sequence check.
        client(json!({"jsonrpc": "2.0", "id": 2, "method": "prompts/list"})),
        server(json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32601, "message": "Method not found"}})),
        // A later answer under a refused request's id is judged as any other: answered once.
        server(json!({"jsonrpc": "2.0", "id": 1, "result": {}})),
    ]);
    let (code, stdout, _) = check(&written(dir.path(), "refused.jsonl", &lines));
    assert_eq!(code, 1, "{stdout}");
    let findings: Vec<&str> = stdout.lines().filter(|l| l.contains(":line ")).collect();
    assert_eq!(findings.len(), 3, "{stdout}");
    assert!(
        findings[0].contains("line 4: /message/method: unknown method `no/such/method`"),
        "{stdout}"
    );
    assert!(
        findings[1]
            .contains("line 6: lifecycle connection in state running: got client.prompts/list"),
        "{stdout}"
    );
    assert!(
        findings[2].contains("line 8: client_request 1 in state idle: got server.response"),
        "{stdout}"
    );
}

#[test]
fn a_log_message_needs_the_logging_capability() {
    let (code, stdout, _) = check(&fixture("log_without_logging_capability.jsonl"));
    assert_eq!(code, 1, "{stdout}");
    // Before the initialize answer the server has declared nothing: its log is no finding.
    assert!(
        stdout.contains(
            "log_without_logging_capability.jsonl:line 6: lifecycle connection in state running: got server.notifications/message, but \"logging\" in server_caps does not hold"
        ),
        "{stdout}"
    );
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
}
