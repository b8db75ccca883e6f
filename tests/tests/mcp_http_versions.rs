//! MCP's two eras on one Streamable HTTP endpoint (`examples/skeletons`'s conformance
//! fixtures, served by `serve_versions_http` with the profile `spec/mcp` declares): a
//! 2026-07-28 request is served alone, with the spec's codes for a version it does not speak,
//! headers that disagree with the body and a method it does not have; `initialize` still
//! opens a 2025 session, in the version offered; and an input-required flow continues on
//! another instance holding the same sealing key, while changed state reaches no handler.

use std::time::Duration;

use agentwire_examples::mcp_fixtures;
use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};

const KEY: &[u8] = b"mcp test sealing key, 32 bytes!!";

/// One instance of the fixtures on a fresh port; its address.
async fn start(key: &[u8]) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = mcp_fixtures::serve(listener, key).unwrap();
    let addr = server.local_addr().to_string();
    // The test ends the process; the server lives as long.
    std::mem::forget(server);
    addr
}

/// Relays each connection accepted on one address to the next of `backends` in turn.
async fn round_robin(backends: Vec<String>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    tokio::spawn(async move {
        let mut next = 0;
        while let Ok((mut inbound, _)) = listener.accept().await {
            let backend = backends[next % backends.len()].clone();
            next += 1;
            tokio::spawn(async move {
                if let Ok(mut outbound) = TcpStream::connect(backend).await {
                    let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                }
            });
        }
    });
    addr
}

/// The `_meta` of a 2026-07-28 request declaring `capabilities`.
fn meta(version: &str, capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientInfo": {"name": "agentwire-test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

/// A `tools/call` of `tool` in 2026-07-28 with `extra` params merged in.
fn call(id: i64, tool: &str, extra: Value) -> Value {
    let mut params = json!({"name": tool, "arguments": {},
        "_meta": meta("2026-07-28", json!({"elicitation": {}, "sampling": {}, "roots": {}}))});
    if let (Some(p), Some(e)) = (params.as_object_mut(), extra.as_object()) {
        p.extend(e.clone());
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

/// The headers a conforming 2026-07-28 client sends with `body`.
fn standard(body: &Value) -> Vec<(&'static str, String)> {
    let mut headers = vec![
        ("MCP-Protocol-Version", "2026-07-28".to_owned()),
        (
            "Mcp-Method",
            body["method"].as_str().unwrap_or("").to_owned(),
        ),
    ];
    if let Some(name) = body["params"]["name"].as_str() {
        headers.push(("Mcp-Name", name.to_owned()));
    }
    headers
}

/// POSTs `body` with `headers` to `addr`'s endpoint on a connection of its own: the status,
/// the session header (if any) and the JSON-RPC answer (the last event of an SSE answer).
async fn post(
    addr: &str,
    headers: &[(&str, String)],
    body: &Value,
) -> (u16, Option<String>, Value) {
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap();
    let mut request = client
        .post(format!("http://{addr}/mcp"))
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .body(body.to_string());
    for (name, value) in headers {
        request = request.header(*name, value);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let text = response.text().await.unwrap();
    let json = text
        .lines()
        .filter_map(|l| l.strip_prefix("data:").map(str::trim))
        .rfind(|d| !d.is_empty())
        .unwrap_or(text.trim());
    (
        status,
        session,
        serde_json::from_str(json).unwrap_or(Value::Null),
    )
}

#[tokio::test]
async fn a_2026_request_is_served_alone_and_refused_with_the_spec_codes() {
    let addr = start(KEY).await;
    let body = call(1, "test_simple_text", json!({}));
    let (status, session, answer) = post(&addr, &standard(&body), &body).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(session, None, "2026-07-28 has no session");
    assert_eq!(answer["result"]["resultType"], "complete", "{answer}");
    assert_eq!(answer["result"]["content"][0]["type"], "text", "{answer}");

    // A version this server does not speak: 400, -32022, the versions it does.
    let mut odd = body.clone();
    odd["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let mut headers = standard(&odd);
    headers[0].1 = "2099-01-01".to_owned();
    let (status, _, answer) = post(&addr, &headers, &odd).await;
    assert_eq!(
        (status, &answer["error"]["code"]),
        (400, &json!(-32022)),
        "{answer}"
    );
    assert_eq!(answer["error"]["data"]["requested"], "2099-01-01");
    let supported = answer["error"]["data"]["supported"].as_array().unwrap();
    assert!(supported.contains(&json!("2026-07-28")) && supported.contains(&json!("2025-11-25")));

    // A header that disagrees with the body, or is missing: 400, -32020.
    let mut renamed = standard(&body);
    renamed[2].1 = "test_image_content".to_owned();
    let (status, _, answer) = post(&addr, &renamed, &body).await;
    assert_eq!(
        (status, &answer["error"]["code"]),
        (400, &json!(-32020)),
        "{answer}"
    );
    let (status, _, answer) = post(&addr, &standard(&body)[..2], &body).await;
    assert_eq!(
        (status, &answer["error"]["code"]),
        (400, &json!(-32020)),
        "{answer}"
    );

    // A body whose `_meta` lacks what 2026-07-28 requires: 400, -32602.
    let mut bare = body.clone();
    bare["params"]["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
    let (status, _, answer) = post(&addr, &standard(&bare), &bare).await;
    assert_eq!(
        (status, &answer["error"]["code"]),
        (400, &json!(-32602)),
        "{answer}"
    );

    // A method 2026-07-28 does not have, `initialize` included: 404, -32601.
    for method in ["initialize", "ping", "unknown/method"] {
        let removed = json!({"jsonrpc": "2.0", "id": 7, "method": method,
            "params": {"_meta": meta("2026-07-28", json!({}))}});
        let (status, _, answer) = post(&addr, &standard(&removed), &removed).await;
        assert_eq!(
            (status, &answer["error"]["code"]),
            (404, &json!(-32601)),
            "{method}: {answer}"
        );
        assert_eq!(answer["id"], 7);
    }
}

#[tokio::test]
async fn initialize_still_opens_a_session_in_the_version_offered() {
    let addr = start(KEY).await;
    for offered in ["2025-11-25", "2025-06-18"] {
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": offered, "capabilities": {},
            "clientInfo": {"name": "agentwire-test", "version": "1"}}});
        let (status, session, answer) = post(&addr, &[], &init).await;
        assert_eq!(status, 200, "{answer}");
        assert!(session.is_some(), "a 2025 session is opened");
        assert_eq!(answer["result"]["protocolVersion"], offered, "{answer}");
    }
}

#[tokio::test]
async fn an_input_required_flow_continues_on_another_instance_and_refuses_changed_state() {
    let front = round_robin(vec![start(KEY).await, start(KEY).await]).await;
    let tool = "test_input_required_result_request_state";
    let first = call(1, tool, json!({}));
    let (status, _, asked) = post(&front, &standard(&first), &first).await;
    assert_eq!(status, 200, "{asked}");
    let result = &asked["result"];
    assert_eq!(result["resultType"], "input_required", "{asked}");
    assert_eq!(
        result["inputRequests"]["confirm"]["method"],
        "elicitation/create"
    );
    let state = result["requestState"]
        .as_str()
        .expect("request state")
        .to_owned();
    assert!(
        !state.contains(tool),
        "sealed, not the handler's plain JSON: {state}"
    );

    // The retry reaches the other instance, which opens the state the first one sealed.
    let answers = json!({"confirm": {"action": "accept", "content": {"ok": true}}});
    let retry = call(
        2,
        tool,
        json!({"inputResponses": answers, "requestState": state}),
    );
    let (status, _, done) = post(&front, &standard(&retry), &retry).await;
    assert_eq!(status, 200, "{done}");
    assert_eq!(done["result"]["resultType"], "complete", "{done}");
    let said = done["result"]["content"][0]["text"].as_str().unwrap_or("");
    assert!(said.contains("state-ok"), "{done}");

    // Changed state, or state sealed under another key, is refused before any handler.
    let foreign = start(b"another sealing key, 32 bytes!!!").await;
    let mut changed = state.clone().into_bytes();
    changed[5] = if changed[5] == b'A' { b'B' } else { b'A' };
    let changed = String::from_utf8(changed).unwrap();
    for (addr, token) in [(&front, changed.as_str()), (&foreign, state.as_str())] {
        let retry = call(
            3,
            tool,
            json!({"inputResponses": answers, "requestState": token}),
        );
        let (status, _, refused) = post(addr, &standard(&retry), &retry).await;
        assert_eq!(
            (status, &refused["error"]["code"]),
            (400, &json!(-32602)),
            "{refused}"
        );
        assert_eq!(refused["error"]["data"]["member"], "requestState");
    }
}
