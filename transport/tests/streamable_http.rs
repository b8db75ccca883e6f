//! Streamable HTTP: the server and client against each other with a tiny in-test engine, and
//! raw HTTP checks of every status rule of the transport.

use std::collections::HashMap;
use std::time::Duration;

use agentwire_runtime::jsonrpc::RequestId;
use agentwire_transport::http_ws::ServerHandle;
use agentwire_transport::streamable_http::{
    Client, ClientConfig, ClientError, Delivered, Kind, Limits, Outgoing, Profile, ServerConfig,
    SessionPipe, classify, serve,
};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::mpsc;

/// The tiny engine: `initialize`, `ping`, `echo` (answers its params), `slow` (two progress
/// notifications on the request's stream, then the answer), `ask` (asks the client
/// `roots/list` while serving, answers with the client's result), `broadcast` (a notification
/// on the GET stream, then the answer); anything else is -32601.
fn engine(pipe: SessionPipe) {
    tokio::spawn(async move {
        let SessionPipe {
            mut inbound,
            outbound,
            ..
        } = pipe;
        let mut asked: HashMap<RequestId, RequestId> = HashMap::new();
        let mut held: Vec<RequestId> = Vec::new();
        let mut next = 0;
        while let Some(message) = inbound.recv().await {
            let text = message.text;
            let v: Value = serde_json::from_str(&text).unwrap();
            match classify(&text).unwrap() {
                Kind::Request { id, method } => {
                    let reply = |result: Value| {
                        Outgoing::unrelated(
                            json!({"jsonrpc":"2.0","id":id,"result":result}).to_string(),
                        )
                    };
                    let related = |m: Value| Outgoing::related_to(m.to_string(), id.clone());
                    let out = match method.as_str() {
                        "initialize" => vec![reply(json!({
                            "protocolVersion": "2025-11-25",
                            "capabilities": {},
                            "serverInfo": {"name": "echo", "version": "0"}
                        }))],
                        "ping" => vec![reply(json!({}))],
                        "echo" => vec![reply(v["params"].clone())],
                        "slow" => {
                            let token = &v["params"]["_meta"]["progressToken"];
                            let progress = |n: u32| {
                                let mut params = json!({"progress": n});
                                if !token.is_null() {
                                    params["progressToken"] = token.clone();
                                }
                                related(json!({"jsonrpc":"2.0","method":"notifications/progress","params":params}))
                            };
                            vec![progress(1), progress(2), reply(json!({"done": true}))]
                        }
                        "ask" => {
                            next += 1;
                            let sid = RequestId::String(format!("s{next}"));
                            asked.insert(sid.clone(), id.clone());
                            vec![related(json!({"jsonrpc":"2.0","id":sid,"method":"roots/list"}))]
                        }
                        "quiet" => {
                            held.push(id.clone());
                            vec![]
                        }
                        "hold" => {
                            // A notification now, the response once the client sends
                            // `release`: time for its connection to break in between.
                            held.push(id.clone());
                            vec![related(json!({"jsonrpc":"2.0","method":"notifications/message","params":{"data":"wait"}}))]
                        }
                        "broadcast" => vec![
                            Outgoing::unrelated(json!({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}).to_string()),
                            reply(json!({})),
                        ],
                        _ => vec![Outgoing::unrelated(
                            json!({"jsonrpc":"2.0","id":id,"error":{"code":-32601,"message":"no such method"}}).to_string(),
                        )],
                    };
                    for o in out {
                        if outbound.send(o).await.is_err() {
                            return;
                        }
                    }
                }
                Kind::Response { id } => {
                    if let Some(original) = asked.remove(&id) {
                        let m = json!({"jsonrpc":"2.0","id":original,"result":{"client said": v["result"]}});
                        let _ = outbound.send(Outgoing::unrelated(m.to_string())).await;
                    }
                }
                Kind::Notification { method } if method == "release" => {
                    for id in held.drain(..) {
                        let m = json!({"jsonrpc":"2.0","id":id,"result":{"held":true}});
                        let _ = outbound.send(Outgoing::unrelated(m.to_string())).await;
                    }
                }
                Kind::Notification { .. } => {}
            }
        }
    });
}

/// MCP's profile, as `spec/mcp/protocol.yaml` declares it (this crate's tests cannot use the
/// generated crate, which depends on it); the tests speak MCP, and one of them talks to the
/// official TypeScript SDK's server.
const MCP: Profile = Profile {
    path: "/mcp",
    session_header: "Mcp-Session-Id",
    version_header: "MCP-Protocol-Version",
    versions: &["2025-11-25", "2025-06-18", "2025-03-26"],
    opens_with: "initialize",
    version_member: "protocolVersion",
    priming_since: Some("2025-11-25"),
    version_source: None,
    unsupported_code: agentwire_transport::streamable_http::DEFAULT_UNSUPPORTED_CODE,
    mirror: &[],
    mirror_since: None,
    mirror_base64: None,
    mismatch_code: agentwire_transport::streamable_http::DEFAULT_MISMATCH_CODE,
    sealed_state: None,
    error_status: &[],
};

fn config() -> ServerConfig {
    ServerConfig::new(MCP)
}

async fn start(config: ServerConfig) -> (ServerHandle, String) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let handle = serve(listener, engine, config).unwrap();
    let url = format!("http://{}/mcp", handle.local_addr());
    (handle, url)
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;

async fn recv(rx: &mut mpsc::Receiver<Result<String, ClientError>>) -> Value {
    let item = tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .expect("a message in time")
        .expect("the receiver is open")
        .expect("no stream error");
    serde_json::from_str(&item).unwrap()
}

#[tokio::test]
async fn client_and_server_talk() {
    let (server, url) = start(config()).await;
    let (client, mut rx) = Client::new(&url, MCP, ClientConfig::default()).unwrap();
    client.send(INIT).await.unwrap();
    assert_eq!(recv(&mut rx).await["result"]["serverInfo"]["name"], "echo");
    let session = client.session_id().expect("a session id");
    assert_eq!(session.len(), 32);
    assert!(session.bytes().all(|b| (0x21..=0x7e).contains(&b)));
    assert_eq!(client.protocol_version().as_deref(), Some("2025-11-25"));
    client
        .send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .await
        .unwrap();

    client
        .send(r#"{"jsonrpc":"2.0","id":"1","method":"echo","params":{"x":[1,2]}}"#)
        .await
        .unwrap();
    let echoed = recv(&mut rx).await;
    assert_eq!(echoed["id"], "1");
    assert_eq!(echoed["result"], json!({"x":[1,2]}));

    // Streamed: the progress notifications, in order, then the response.
    client
        .send(r#"{"jsonrpc":"2.0","id":2,"method":"slow"}"#)
        .await
        .unwrap();
    assert_eq!(recv(&mut rx).await["params"]["progress"], 1);
    assert_eq!(recv(&mut rx).await["params"]["progress"], 2);
    assert_eq!(
        recv(&mut rx).await,
        json!({"jsonrpc":"2.0","id":2,"result":{"done":true}})
    );

    // A server request made while serving a client request, answered by the client.
    client
        .send(r#"{"jsonrpc":"2.0","id":3,"method":"ask"}"#)
        .await
        .unwrap();
    let asked = recv(&mut rx).await;
    assert_eq!(asked["method"], "roots/list");
    let answer = json!({"jsonrpc":"2.0","id":asked["id"],"result":{"roots":[]}});
    client.send(&answer.to_string()).await.unwrap();
    let done = recv(&mut rx).await;
    assert_eq!(done["id"], 3);
    assert_eq!(done["result"]["client said"], json!({"roots":[]}));

    // The GET stream carries what relates to no request.
    assert!(client.open_stream().await.unwrap());
    client
        .send(r#"{"jsonrpc":"2.0","id":4,"method":"broadcast"}"#)
        .await
        .unwrap();
    let mut got = [recv(&mut rx).await, recv(&mut rx).await];
    got.sort_by_key(|m| m.get("id").is_some());
    assert_eq!(got[0]["method"], "notifications/message");
    assert_eq!(got[1]["id"], 4);

    // After DELETE the session is gone: the client is told to initialize again.
    client.terminate().await.unwrap();
    assert_eq!(client.session_id(), None);
    let other = Client::new(&url, MCP, ClientConfig::default()).unwrap().0;
    other.send(INIT).await.unwrap();
    drop(other);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn ended_session_means_reinitialize() {
    let (server, url) = start(config()).await;
    let (client, mut rx) = Client::new(&url, MCP, ClientConfig::default()).unwrap();
    client.send(INIT).await.unwrap();
    recv(&mut rx).await;
    // Another client ends this session behind the first one's back.
    let raw = reqwest::Client::new();
    let status = raw
        .delete(&url)
        .header("mcp-session-id", client.session_id().unwrap())
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status, 200);
    let ping = r#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#;
    assert_eq!(client.send(ping).await, Err(ClientError::SessionExpired));
    assert_eq!(client.session_id(), None);
    client.send(INIT).await.unwrap();
    recv(&mut rx).await;
    client.send(ping).await.unwrap();
    assert_eq!(recv(&mut rx).await["id"], 9);
    server.shutdown().await.unwrap();
}

/// A raw POST with the headers a well-behaved client sends, plus `extra`.
async fn post(
    url: &str,
    session: Option<&str>,
    body: &str,
    extra: &[(&str, &str)],
) -> reqwest::Response {
    let mut r = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_owned());
    if let Some(s) = session {
        r = r.header("mcp-session-id", s);
    }
    for (k, v) in extra {
        r = r.header(*k, *v);
    }
    r.send().await.unwrap()
}

async fn open(url: &str) -> String {
    let r = post(url, None, INIT, &[]).await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "application/json");
    let id = r.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    let body: Value = serde_json::from_str(&r.text().await.unwrap()).unwrap();
    assert_eq!(body["id"], 0);
    id
}

async fn error_of(r: reqwest::Response) -> (u16, i64) {
    let status = r.status().as_u16();
    let body: Value = serde_json::from_str(&r.text().await.unwrap()).unwrap();
    assert_eq!(body["id"], Value::Null, "{body}");
    (status, body["error"]["code"].as_i64().unwrap())
}

#[tokio::test]
async fn status_rules() {
    let (server, url) = start(ServerConfig {
        limits: Limits {
            max_body_bytes: 1024,
            ..Limits::default()
        },
        ..config()
    })
    .await;
    let sid = open(&url).await;
    let s = Some(sid.as_str());
    let note = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;

    // A notification or a response: 202, no body.
    let r = post(&url, s, note, &[]).await;
    assert_eq!(r.status(), 202);
    assert!(r.bytes().await.unwrap().is_empty());
    let r = post(&url, s, r#"{"jsonrpc":"2.0","id":"x","result":{}}"#, &[]).await;
    assert_eq!(r.status(), 202);

    // A request: JSON answer when its response comes first.
    let r = post(&url, s, ping, &[]).await;
    assert_eq!(r.status(), 200);
    assert_eq!(
        r.text().await.unwrap(),
        r#"{"id":1,"jsonrpc":"2.0","result":{}}"#
    );

    // The session header: required (400), known (404).
    assert_eq!(error_of(post(&url, None, ping, &[]).await).await.0, 400);
    assert_eq!(
        error_of(post(&url, Some("nope"), ping, &[]).await).await,
        (404, -32001)
    );

    // The protocol version header: a supported one passes, another is 400.
    let ok = post(&url, s, ping, &[("mcp-protocol-version", "2025-06-18")]).await;
    assert_eq!(ok.status(), 200);
    let bad = post(&url, s, ping, &[("mcp-protocol-version", "1999-01-01")]).await;
    assert_eq!(error_of(bad).await.0, 400);

    // Bad bodies: not JSON (-32700), not one JSON-RPC message (-32600), too large (413).
    assert_eq!(
        error_of(post(&url, s, "{nope", &[]).await).await,
        (400, -32700)
    );
    assert_eq!(
        error_of(post(&url, s, "[]", &[]).await).await,
        (400, -32600)
    );
    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"echo","params":"{}"}}"#,
        "x".repeat(2000)
    );
    assert_eq!(error_of(post(&url, s, &huge, &[]).await).await.0, 413);

    server.shutdown().await.unwrap();
}

/// The header rules (Accept, Content-Type, Origin, Host), other methods, the GET stream's
/// exclusivity and DELETE.
#[tokio::test]
async fn header_and_method_rules() {
    let (server, url) = start(config()).await;
    let sid = open(&url).await;
    let s = Some(sid.as_str());
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;

    // Headers: Accept must list both types (406), Content-Type must be JSON (415).
    let r = reqwest::Client::new()
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json")
        .header("mcp-session-id", &sid)
        .body(ping)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 406);
    let r = reqwest::Client::new()
        .post(&url)
        .header("content-type", "text/plain")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", &sid)
        .body(ping)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 415);

    // Origin: loopback passes, another host is 403 (DNS rebinding).
    let r = post(&url, s, ping, &[("origin", "http://localhost:5173")]).await;
    assert_eq!(r.status(), 200);
    let r = post(&url, s, ping, &[("origin", "http://evil.example")]).await;
    assert_eq!(error_of(r).await.0, 403);
    // Host: a rebound name arrives with the attacker's host name (403).
    let r = post(&url, s, ping, &[("host", "evil.example.com")]).await;
    assert_eq!(error_of(r).await.0, 403);

    // Methods other than GET, POST and DELETE: 405.
    let r = reqwest::Client::new()
        .put(&url)
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 405);

    // The GET stream: one at a time (409 for a second).
    let get = || {
        reqwest::Client::new()
            .get(&url)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", &sid)
            .send()
    };
    let stream = get().await.unwrap();
    assert_eq!(stream.status(), 200);
    assert_eq!(stream.headers()["content-type"], "text/event-stream");
    assert_eq!(get().await.unwrap().status(), 409);
    drop(stream);

    // GET and DELETE need the session header too.
    let r = reqwest::Client::new()
        .get(&url)
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    assert_eq!(
        reqwest::Client::new()
            .delete(&url)
            .send()
            .await
            .unwrap()
            .status(),
        400
    );

    // DELETE ends the session; afterwards it is 404.
    let d = reqwest::Client::new()
        .delete(&url)
        .header("mcp-session-id", &sid)
        .send()
        .await
        .unwrap();
    assert_eq!(d.status(), 200);
    assert_eq!(
        error_of(post(&url, s, ping, &[]).await).await,
        (404, -32001)
    );
    assert_eq!(get().await.unwrap().status(), 404);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn get_is_405_when_not_offered() {
    let (server, url) = start(ServerConfig {
        standalone_stream: false,
        ..config()
    })
    .await;
    let s = open(&url).await;
    let r = reqwest::Client::new()
        .get(&url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &s)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 405);
    let (client, _rx) = Client::new(&url, MCP, ClientConfig::default()).unwrap();
    client.send(INIT).await.unwrap();
    assert!(!client.open_stream().await.unwrap());
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn sse_framing_of_a_streamed_request() {
    let (server, url) = start(config()).await;
    let s = open(&url).await;
    let r = post(
        &url,
        Some(&s),
        r#"{"jsonrpc":"2.0","id":7,"method":"slow"}"#,
        &[],
    )
    .await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "text/event-stream");
    assert_eq!(r.headers()["mcp-session-id"], s.as_str());
    // The stream ends after the response.
    let body = tokio::time::timeout(Duration::from_secs(10), r.text())
        .await
        .unwrap()
        .unwrap();
    let expected = concat!(
        "event: message\nid: 1/1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":1}}\n\n",
        "event: message\nid: 1/2\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":2}}\n\n",
        "event: message\nid: 1/3\ndata: {\"id\":7,\"jsonrpc\":\"2.0\",\"result\":{\"done\":true}}\n\n",
    );
    assert_eq!(body, expected);

    // A 2025-11-25 client gets a priming event first: an id, the retry delay, empty data.
    let version = [("mcp-protocol-version", "2025-11-25")];
    let r = post(
        &url,
        Some(&s),
        r#"{"jsonrpc":"2.0","id":8,"method":"slow"}"#,
        &version,
    )
    .await;
    let body = r.text().await.unwrap();
    assert!(
        body.starts_with("id: 2/0\nretry: 1000\ndata: \n\nevent: message\nid: 2/1\n"),
        "{body}"
    );
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn limits_on_sessions() {
    let (server, url) = start(ServerConfig {
        limits: Limits {
            max_sessions: 1,
            idle_timeout: Duration::from_millis(200),
            ..Limits::default()
        },
        ..config()
    })
    .await;
    let s = open(&url).await;
    assert_eq!(error_of(post(&url, None, INIT, &[]).await).await.0, 503);
    // Idle past the timeout: the session is ended, and its slot is free again (a refused
    // initialize does not touch the idle session, so polling with it is fair).
    let started = std::time::Instant::now();
    let mut freed = false;
    while !freed && started.elapsed() < Duration::from_secs(10) {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let r = post(&url, None, INIT, &[]).await;
        freed = r.status() == 200;
        if !freed {
            assert_eq!(r.status(), 503);
        }
    }
    assert!(freed, "the idle session was not ended");
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    assert_eq!(error_of(post(&url, Some(&s), ping, &[]).await).await.0, 404);
    // initialize inside a session is refused: it opens a new one.
    assert_eq!(
        error_of(post(&url, Some(&s), INIT, &[]).await).await,
        (400, -32600)
    );
    server.shutdown().await.unwrap();
}

/// The workspace root and the cargo target folder, with the peers installed in it.
async fn peers() -> (std::path::PathBuf, std::path::PathBuf) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root")
        .to_path_buf();
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let install = tokio::process::Command::new(root.join("scripts/install-peers"))
        .output()
        .await
        .expect("run scripts/install-peers");
    assert!(
        install.status.success(),
        "scripts/install-peers failed: {}",
        String::from_utf8_lossy(&install.stderr)
    );
    (root, target)
}

/// Our client against the official TypeScript SDK's server: initialize, tools/list, a
/// tools/call answered on an SSE stream carrying a progress notification and a server
/// request (`roots/list`) the client answers, DELETE, then 404 -> SessionExpired.
#[tokio::test]
async fn typescript_sdk_server() {
    use tokio::io::AsyncBufReadExt;
    let (root, target) = peers().await;
    let mut child = tokio::process::Command::new("node")
        .env("NODE_PATH", target.join("peers/node/node_modules"))
        .arg(root.join("peers/node/streamhttp_ts_server.cjs"))
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("run node");
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .expect("the TypeScript server starts in time")
        .unwrap()
        .expect("a LISTENING line");
    let port = line.strip_prefix("LISTENING ").expect("LISTENING <port>");
    let url = format!("http://127.0.0.1:{port}/mcp");

    let (client, mut rx) = Client::new(&url, MCP, ClientConfig::default()).unwrap();
    client.send(INIT).await.unwrap();
    let init = recv(&mut rx).await;
    assert_eq!(
        init["result"]["serverInfo"]["name"], "ts-peer-server",
        "{init}"
    );
    assert!(client.session_id().is_some());
    assert_eq!(client.protocol_version().as_deref(), Some("2025-11-25"));
    client
        .send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .await
        .unwrap();
    client
        .send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
        .await
        .unwrap();
    let tools = recv(&mut rx).await;
    assert_eq!(tools["result"]["tools"][0]["name"], "echo", "{tools}");

    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"progressToken":"p"}}}"#;
    client.send(call).await.unwrap();
    let progress = recv(&mut rx).await;
    assert_eq!(progress["method"], "notifications/progress", "{progress}");
    assert_eq!(progress["params"]["progressToken"], "p");
    let ask = recv(&mut rx).await;
    assert_eq!(ask["method"], "roots/list", "{ask}");
    let roots = json!({"jsonrpc":"2.0","id":ask["id"],"result":{"roots":[{"uri":"file:///a"}]}});
    client.send(&roots.to_string()).await.unwrap();
    let done = recv(&mut rx).await;
    assert_eq!(done["id"], 2);
    assert_eq!(
        done["result"]["content"][0]["text"], "hi (1 roots)",
        "{done}"
    );

    let session = client.session_id().unwrap();
    client.terminate().await.unwrap();
    let raw = post(
        &url,
        Some(&session),
        r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#,
        &[],
    )
    .await;
    assert_eq!(raw.status(), 404);
    let _ = child.kill().await;
}

/// The official TypeScript SDK's client (`@modelcontextprotocol/sdk`, pinned in
/// peers/node/package.json, installed by scripts/install-peers) against this server.
#[tokio::test]
async fn typescript_sdk_client() {
    let (root, target) = peers().await;
    let (server, url) = start(config()).await;
    let run = tokio::process::Command::new("node")
        .env("NODE_PATH", target.join("peers/node/node_modules"))
        .arg(root.join("peers/node/streamhttp_ts_client.cjs"))
        .arg(&url)
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(Duration::from_secs(60), run)
        .await
        .expect("the TypeScript client finishes in time")
        .expect("run node");
    assert!(
        out.status.success(),
        "the TypeScript client failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: Value = serde_json::from_slice(&out.stdout).expect("one JSON line");
    assert_eq!(seen["session"].as_str().map(str::len), Some(32), "{seen}");
    assert_eq!(seen["version"]["name"], "echo");
    assert_eq!(seen["ping"], json!({}));
    assert_eq!(seen["echo"], json!({"x": [1, 2]}));
    assert_eq!(seen["slow"], json!({"done": true}));
    assert_eq!(seen["progress"], json!([1, 2]));
    assert_eq!(
        seen["ask"]["client said"]["roots"][0]["uri"], "file:///tmp",
        "{seen}"
    );
    assert_eq!(seen["broadcast"], json!({}));
    assert_eq!(seen["logged"], "hi", "the GET stream's message: {seen}");
    assert_eq!(seen["errors"], json!([]), "{seen}");
    assert_eq!(seen["nope"], -32601);
    assert_eq!(seen["after"], "forgotten");
    server.shutdown().await.unwrap();
}

/// A POST stream whose connection breaks before its response is resumed by a GET with
/// `Last-Event-ID`: the events after that id are replayed, the response follows.
#[tokio::test]
async fn resumption_after_a_broken_stream() {
    let (server, url) = start(ServerConfig {
        limits: Limits {
            keep_alive: Duration::from_millis(50),
            ..Limits::default()
        },
        ..config()
    })
    .await;
    let s = open(&url).await;
    let version = [("mcp-protocol-version", "2025-11-25")];
    let mut r = post(
        &url,
        Some(&s),
        r#"{"jsonrpc":"2.0","id":"h","method":"hold"}"#,
        &version,
    )
    .await;
    assert_eq!(r.headers()["content-type"], "text/event-stream");
    let mut seen = String::new();
    while !seen.contains("\"wait\"") {
        let chunk = r.chunk().await.unwrap().expect("more of the stream");
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    assert!(seen.starts_with("id: 1/0\n"), "{seen}");
    assert!(seen.contains("id: 1/1\n"), "{seen}");
    drop(r);

    let resume = |last: &'static str| {
        reqwest::Client::new()
            .get(&url)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", &s)
            .header("last-event-id", last)
            .send()
    };
    assert_eq!(resume("nonsense").await.unwrap().status(), 400);
    assert_eq!(resume("9/1").await.unwrap().status(), 400);
    // The server parks the stream once it notices the broken connection (its keep-alive
    // write fails); until then there is nothing to resume.
    let mut again = resume("1/0").await.unwrap();
    for _ in 0..100 {
        if again.status() == 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        again = resume("1/0").await.unwrap();
    }
    assert_eq!(again.status(), 200);
    let release = post(
        &url,
        Some(&s),
        r#"{"jsonrpc":"2.0","method":"release"}"#,
        &[],
    )
    .await;
    assert_eq!(release.status(), 202);
    let body = tokio::time::timeout(Duration::from_secs(5), again.text())
        .await
        .unwrap()
        .unwrap();
    let expected = concat!(
        "event: message\nid: 1/1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"data\":\"wait\"}}\n\n",
        "event: message\nid: 1/2\ndata: {\"id\":\"h\",\"jsonrpc\":\"2.0\",\"result\":{\"held\":true}}\n\n",
    );
    assert_eq!(body, expected);
    // Finished: nothing is left to resume.
    assert_eq!(resume("1/2").await.unwrap().status(), 400);
    server.shutdown().await.unwrap();
}

/// Hostile input: garbage on the socket, a trickled body, odd header bytes, many malformed
/// bodies. Each gets its status; none brings the server down.
#[tokio::test]
async fn hostile_input() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let (server, url) = start(ServerConfig {
        limits: Limits {
            body_timeout: Duration::from_millis(300),
            ..Limits::default()
        },
        ..config()
    })
    .await;
    let addr = server.local_addr();
    let sid = open(&url).await;

    let mut garbage = tokio::net::TcpStream::connect(addr).await.unwrap();
    garbage
        .write_all(b"\x00\xff\r\n\r\nGARBAGE / HTTP/9\r\n\r\n")
        .await
        .unwrap();
    let mut sink = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), garbage.read_to_end(&mut sink)).await;

    // A body announced at 100 bytes that stops after 10: 408 once the body deadline passes.
    let mut slow = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n\
         accept: application/json, text/event-stream\r\nmcp-session-id: {sid}\r\n\
         content-length: 100\r\n\r\n{{\"jsonrpc\""
    );
    slow.write_all(head.as_bytes()).await.unwrap();
    let mut answer = vec![0u8; 12];
    tokio::time::timeout(Duration::from_secs(5), slow.read_exact(&mut answer))
        .await
        .expect("an answer before the peer finishes")
        .unwrap();
    assert_eq!(&answer, b"HTTP/1.1 408");

    let bodies = [
        "",
        "null",
        "\"x\"",
        "{}",
        "[{}]",
        "{\"jsonrpc\":\"1.0\",\"method\":\"x\"}",
        "{\"jsonrpc\":\"2.0\",\"method\":7}",
        "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"x\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"result\":1}",
        "\u{feff}{}",
    ];
    for body in bodies {
        let status = post(&url, Some(&sid), body, &[]).await.status();
        assert_eq!(status, 400, "{body:?}");
    }
    let weird = reqwest::header::HeaderValue::from_bytes(b"\xff\xfe").unwrap();
    let r = reqwest::Client::new()
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", weird.clone())
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    let r = post(&url, Some(&sid), "{}", &[]).await;
    assert_eq!(r.status(), 400);

    // Still serving the session.
    let r = post(
        &url,
        Some(&sid),
        r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#,
        &[],
    )
    .await;
    assert_eq!(r.status(), 200);
    server.shutdown().await.unwrap();
}

/// The client's own limits: a message over its size cap, and a stream gone silent.
#[tokio::test]
async fn client_limits() {
    let (server, url) = start(config()).await;
    let config = ClientConfig {
        max_message_bytes: 200,
        ..ClientConfig::default()
    };
    let (client, mut rx) = Client::new(&url, MCP, config).unwrap();
    client.send(INIT).await.unwrap();
    recv(&mut rx).await;
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"echo","params":"{}"}}"#,
        "x".repeat(300)
    );
    assert_eq!(client.send(&big).await, Err(ClientError::TooLarge(200)));
    server.shutdown().await.unwrap();

    // A server that opens an SSE answer and then says nothing.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let (mut sock, _) = listener.accept().await.unwrap();
        let mut buf = vec![0u8; 4096];
        let _ = sock.read(&mut buf).await;
        let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";
        sock.write_all(head.as_bytes()).await.unwrap();
        tokio::time::sleep(Duration::from_secs(30)).await;
    });
    let config = ClientConfig {
        read_timeout: Duration::from_millis(300),
        ..ClientConfig::default()
    };
    let (client, mut rx) = Client::new(&format!("http://{addr}/mcp"), MCP, config).unwrap();
    client.send(INIT).await.unwrap();
    let item = tokio::time::timeout(Duration::from_secs(5), rx.recv())
        .await
        .unwrap()
        .unwrap();
    assert!(matches!(item, Err(ClientError::Timeout { .. })), "{item:?}");
}

/// `SessionPipe::bridge` joins the server to an engine driven by message channels (the shape
/// of the JSON-RPC engine's message link); ending the session ends the engine's input.
#[tokio::test]
async fn bridge_to_a_message_engine() {
    let (ended_tx, mut ended_rx) = mpsc::channel::<()>(4);
    let service = move |pipe: SessionPipe| {
        let (in_tx, mut in_rx) = mpsc::channel::<Delivered>(8);
        let (out_tx, out_rx) = mpsc::channel::<(String, Option<RequestId>)>(8);
        let ended = ended_tx.clone();
        tokio::spawn(async move {
            while let Some(message) = in_rx.recv().await {
                if let Ok(Kind::Request { id, .. }) = classify(&message.text) {
                    let note =
                        json!({"jsonrpc":"2.0","method":"notifications/message","params":{}});
                    let _ = out_tx.send((note.to_string(), Some(id.clone()))).await;
                    let reply =
                        json!({"jsonrpc":"2.0","id":id,"result":{"protocolVersion":"2025-06-18"}});
                    let _ = out_tx.send((reply.to_string(), Some(id))).await;
                }
            }
            let _ = ended.send(()).await;
        });
        pipe.bridge(in_tx, out_rx, |(json, related)| Outgoing { json, related });
    };
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = serve(listener, service, config()).unwrap();
    let url = format!("http://{}/mcp", server.local_addr());
    let (client, mut rx) = Client::new(&url, MCP, ClientConfig::default()).unwrap();
    client.send(INIT).await.unwrap();
    assert_eq!(recv(&mut rx).await["method"], "notifications/message");
    assert_eq!(recv(&mut rx).await["id"], 0);
    assert_eq!(client.protocol_version().as_deref(), Some("2025-06-18"));
    client
        .send(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
        .await
        .unwrap();
    recv(&mut rx).await;
    assert_eq!(recv(&mut rx).await["id"], 1);
    client.terminate().await.unwrap();
    tokio::time::timeout(Duration::from_secs(5), ended_rx.recv())
        .await
        .expect("the engine's input ends with the session");
    server.shutdown().await.unwrap();
}

/// Reads one request's head (and a small JSON body, when it has one) from a raw socket.
async fn read_request(sock: &mut tokio::net::TcpStream) -> String {
    use tokio::io::AsyncReadExt;
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let n = sock.read(&mut buf).await.unwrap();
        seen.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&seen).into_owned();
        let Some((head, body)) = text.split_once("\r\n\r\n") else {
            continue;
        };
        let has_body = head.to_ascii_lowercase().contains("content-length");
        if n == 0 || !has_body || body.ends_with('}') {
            return text;
        }
    }
}

/// Our client resumes a POST stream the server closed before the response: after the
/// server's `retry` delay it sends GET with `Last-Event-ID` and reads the rest there.
#[tokio::test]
async fn client_resumes_a_broken_stream() {
    use tokio::io::AsyncWriteExt;
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (heads_tx, mut heads) = mpsc::channel::<String>(4);
    tokio::spawn(async move {
        let (mut sock, _) = listener.accept().await.unwrap();
        heads_tx.send(read_request(&mut sock).await).await.unwrap();
        let first = concat!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nmcp-session-id: abc\r\n",
            "connection: close\r\n\r\n",
            "id: 5/0\nretry: 20\ndata: \n\n",
            "event: message\nid: 5/1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n\n",
        );
        sock.write_all(first.as_bytes()).await.unwrap();
        drop(sock);
        let (mut sock, _) = listener.accept().await.unwrap();
        heads_tx.send(read_request(&mut sock).await).await.unwrap();
        let rest = concat!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n",
            "event: message\nid: 5/2\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
        );
        sock.write_all(rest.as_bytes()).await.unwrap();
    });
    let (client, mut rx) =
        Client::new(&format!("http://{addr}/mcp"), MCP, ClientConfig::default()).unwrap();
    client
        .send(r#"{"jsonrpc":"2.0","id":1,"method":"x"}"#)
        .await
        .unwrap();
    assert_eq!(recv(&mut rx).await["method"], "notifications/message");
    assert_eq!(
        recv(&mut rx).await,
        json!({"jsonrpc":"2.0","id":1,"result":{}})
    );
    let post = heads.recv().await.unwrap();
    assert!(post.starts_with("POST /mcp"), "{post}");
    let get = heads.recv().await.unwrap().to_ascii_lowercase();
    assert!(get.starts_with("get /mcp"), "{get}");
    assert!(get.contains("last-event-id: 5/1\r\n"), "{get}");
    assert!(get.contains("mcp-session-id: abc\r\n"), "{get}");
}

/// Many requests in flight at once on one session, half streamed: each answer reaches the
/// POST that carried its request, whatever the order they finish in.
#[tokio::test]
async fn concurrent_requests_are_routed_to_their_posts() {
    let (server, url) = start(config()).await;
    let s = open(&url).await;
    let started = std::time::Instant::now();
    let calls = (0..200).map(|i| {
        let (url, s) = (url.clone(), s.clone());
        async move {
            let method = if i % 2 == 0 { "echo" } else { "slow" };
            let body = json!({"jsonrpc":"2.0","id":i,"method":method,"params":{"i":i}}).to_string();
            let r = post(&url, Some(&s), &body, &[]).await;
            assert_eq!(r.status(), 200);
            let text = r.text().await.unwrap();
            let last = text.trim_end().rsplit("data: ").next().unwrap().to_owned();
            let answer: Value = serde_json::from_str(&last).unwrap();
            assert_eq!(answer["id"], i, "{text}");
            if i % 2 == 0 {
                assert_eq!(answer["result"]["i"], i);
            } else {
                assert_eq!(text.matches("notifications/progress").count(), 2, "{text}");
            }
        }
    });
    futures_util::future::join_all(calls).await;
    eprintln!(
        "200 concurrent requests (100 streamed) in {:?}",
        started.elapsed()
    );

    // And one after another through the client (one kept-alive connection).
    let (client, mut rx) = Client::new(&url, MCP, ClientConfig::default()).unwrap();
    client.send(INIT).await.unwrap();
    recv(&mut rx).await;
    let started = std::time::Instant::now();
    for i in 1..=500 {
        let ping = json!({"jsonrpc":"2.0","id":i,"method":"ping"}).to_string();
        client.send(&ping).await.unwrap();
        assert_eq!(recv(&mut rx).await["id"], i);
    }
    eprintln!("500 sequential pings in {:?}", started.elapsed());
    server.shutdown().await.unwrap();
}

async fn next(rx: &mut mpsc::Receiver<Delivered>) -> Value {
    let message = tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .unwrap()
        .unwrap();
    serde_json::from_str(&message.text).unwrap()
}

/// `Client::bridge` runs a message-channel engine over the client: its messages are sent,
/// the server's come back in; a request the transport cannot deliver is answered with an
/// error instead of hanging.
#[tokio::test]
async fn client_bridge_for_a_message_engine() {
    let (server, url) = start(config()).await;
    let (client, received) = Client::new(&url, MCP, ClientConfig::default()).unwrap();
    let (in_tx, mut engine_in) = mpsc::channel::<Delivered>(16);
    let (engine_out, out_rx) = mpsc::channel::<String>(16);
    let bridge = client.clone().bridge(received, in_tx, out_rx, |t| t);
    engine_out.send(INIT.to_owned()).await.unwrap();
    assert_eq!(next(&mut engine_in).await["id"], 0);
    engine_out
        .send(r#"{"jsonrpc":"2.0","id":1,"method":"slow"}"#.to_owned())
        .await
        .unwrap();
    assert_eq!(next(&mut engine_in).await["params"]["progress"], 1);
    assert_eq!(next(&mut engine_in).await["params"]["progress"], 2);
    assert_eq!(next(&mut engine_in).await["id"], 1);
    // The session ends behind the client's back: the next request is answered with an error.
    client.terminate().await.unwrap();
    engine_out
        .send(r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#.to_owned())
        .await
        .unwrap();
    let failed = next(&mut engine_in).await;
    assert_eq!(failed["id"], 2);
    assert_eq!(failed["error"]["code"], -32000, "{failed}");
    drop(engine_out);
    tokio::time::timeout(Duration::from_secs(5), bridge)
        .await
        .unwrap()
        .unwrap();
    server.shutdown().await.unwrap();
}

/// With a token configured, every request needs `Authorization: Bearer <token>` (401
/// otherwise); the client sends it from its configured headers.
#[tokio::test]
async fn bearer_token() {
    let (server, url) = start(ServerConfig {
        token: Some("s3cret".to_owned()),
        ..config()
    })
    .await;
    let r = post(&url, None, INIT, &[]).await;
    assert_eq!(r.status(), 401);
    assert_eq!(r.headers()["www-authenticate"], "Bearer");
    let r = post(&url, None, INIT, &[("authorization", "Bearer s3creT")]).await;
    assert_eq!(r.status(), 401);
    let (client, _) = Client::new(&url, MCP, ClientConfig::default()).unwrap();
    assert!(matches!(
        client.send(INIT).await,
        Err(ClientError::Status { status: 401, .. })
    ));
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert("authorization", "Bearer s3cret".parse().unwrap());
    let config = ClientConfig {
        headers,
        ..ClientConfig::default()
    };
    let (client, mut rx) = Client::new(&url, MCP, config).unwrap();
    client.send(INIT).await.unwrap();
    assert_eq!(recv(&mut rx).await["id"], 0);
    client
        .send(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
        .await
        .unwrap();
    assert_eq!(recv(&mut rx).await["id"], 1);
    server.shutdown().await.unwrap();
}

/// A request answered slowly gets an SSE stream once `json_wait` passes (keep-alives, then
/// the response), not a silent connection.
#[tokio::test]
async fn slow_answers_become_streams() {
    let (server, url) = start(ServerConfig {
        json_wait: Duration::from_millis(100),
        limits: Limits {
            keep_alive: Duration::from_millis(50),
            ..Limits::default()
        },
        ..config()
    })
    .await;
    let (client, mut rx) = Client::new(&url, MCP, ClientConfig::default()).unwrap();
    client.send(INIT).await.unwrap();
    recv(&mut rx).await;
    // `hold` is a stream at once (its first message is a notification); `quiet` says nothing
    // until `release`, so its answer turns into a stream when `json_wait` passes.
    let s = client.session_id().unwrap();
    let r = post(
        &url,
        Some(&s),
        r#"{"jsonrpc":"2.0","id":"h","method":"hold"}"#,
        &[],
    )
    .await;
    assert_eq!(r.headers()["content-type"], "text/event-stream");
    drop(r);
    let body = r#"{"jsonrpc":"2.0","id":"q","method":"quiet"}"#;
    let quiet = tokio::spawn({
        let (url, s) = (url.clone(), s.clone());
        async move { post(&url, Some(&s), body, &[]).await }
    });
    let r = tokio::time::timeout(Duration::from_secs(10), quiet)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "text/event-stream");
    // Long enough for keep-alives (every 50 ms) to flow while the call runs.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let release = post(
        &url,
        Some(&s),
        r#"{"jsonrpc":"2.0","method":"release"}"#,
        &[],
    )
    .await;
    assert_eq!(release.status(), 202);
    let text = tokio::time::timeout(Duration::from_secs(10), r.text())
        .await
        .unwrap()
        .unwrap();
    assert!(text.contains(": keepalive\n\n"), "{text}");
    assert!(
        text.ends_with("data: {\"id\":\"q\",\"jsonrpc\":\"2.0\",\"result\":{\"held\":true}}\n\n"),
        "{text}"
    );
    server.shutdown().await.unwrap();
}

/// A request the engine never answers is answered by the transport once `answer_timeout`
/// passes, with error -32001 carrying its id: as JSON when nothing came for it before
/// (`quiet`), as the last event of its stream when something did (`hold`: a notification,
/// then silence). Its in-flight slot is freed each time (one at most here).
#[tokio::test]
async fn unanswered_requests_time_out() {
    let (server, url) = start(ServerConfig {
        limits: Limits {
            answer_timeout: Duration::from_millis(300),
            max_in_flight: 1,
            ..Limits::default()
        },
        ..config()
    })
    .await;
    let s = open(&url).await;
    for (id, method) in [("a", "quiet"), ("b", "hold"), ("c", "quiet")] {
        let body = format!(r#"{{"jsonrpc":"2.0","id":"{id}","method":"{method}"}}"#);
        let started = std::time::Instant::now();
        let r = post(&url, Some(&s), &body, &[]).await;
        assert_eq!(r.status(), 200, "{id} refused: the slot was not freed");
        let streamed = r.headers()["content-type"] == "text/event-stream";
        assert_eq!(streamed, method == "hold", "{id}");
        let text = tokio::time::timeout(Duration::from_secs(10), r.text())
            .await
            .expect("an answer, not a POST held for ever")
            .unwrap();
        assert!(started.elapsed() >= Duration::from_millis(300), "{id}");
        let last = text.trim_end().lines().last().unwrap();
        let answer: Value = serde_json::from_str(last.trim_start_matches("data: ")).unwrap();
        assert_eq!(answer["id"], id, "{text}");
        assert_eq!(
            answer["error"]["code"],
            agentwire_transport::streamable_http::TIMED_OUT,
            "{text}"
        );
    }
    // The engine's late answers go nowhere, and the session goes on.
    let release = post(
        &url,
        Some(&s),
        r#"{"jsonrpc":"2.0","method":"release"}"#,
        &[],
    )
    .await;
    assert_eq!(release.status(), 202);
    let r = post(
        &url,
        Some(&s),
        r#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#,
        &[],
    )
    .await;
    let body: Value = serde_json::from_str(&r.text().await.unwrap()).unwrap();
    assert_eq!(body, json!({"jsonrpc":"2.0","id":"p","result":{}}));
    server.shutdown().await.unwrap();
}

/// Nothing of one protocol is built into the transport: a profile with other names is served
/// and spoken under them, its wording included, and a profile HTTP cannot carry is refused.
#[tokio::test]
async fn another_profile_is_served_under_its_own_names() {
    const OTHER: Profile = Profile {
        path: "/rpc",
        session_header: "Example-Session",
        version_header: "Example-Version",
        versions: &["7", "6"],
        opens_with: "initialize",
        version_member: "protocolVersion",
        priming_since: None,
        version_source: None,
        unsupported_code: agentwire_transport::streamable_http::DEFAULT_UNSUPPORTED_CODE,
        mirror: &[],
        mirror_since: None,
        mirror_base64: None,
        mismatch_code: agentwire_transport::streamable_http::DEFAULT_MISMATCH_CODE,
        sealed_state: None,
        error_status: &[],
    };
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = serve(listener, engine, ServerConfig::new(OTHER)).unwrap();
    let base = format!("http://{}", server.local_addr());
    assert_eq!(
        post(&format!("{base}/mcp"), None, INIT, &[]).await.status(),
        404
    );
    let url = format!("{base}/rpc");
    let r = post(&url, None, INIT, &[]).await;
    assert_eq!(r.status(), 200);
    assert!(r.headers().get("mcp-session-id").is_none());
    let sid = r.headers()["example-session"].to_str().unwrap().to_owned();

    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let r = post(&url, None, ping, &[("mcp-session-id", &sid)]).await;
    assert_eq!(r.status(), 400);
    let body = r.text().await.unwrap();
    assert!(
        body.contains("Example-Session header is required (send initialize first)"),
        "{body}"
    );
    let versioned = |v| [("example-session", sid.as_str()), ("example-version", v)];
    let r = post(&url, None, ping, &versioned("2025-11-25")).await;
    assert_eq!(r.status(), 400);
    let body = r.text().await.unwrap();
    assert!(body.contains("Unsupported Example-Version"), "{body}");
    assert!(body.contains("(supported: 7, 6)"), "{body}");
    assert_eq!(post(&url, None, ping, &versioned("6")).await.status(), 200);

    // The client sends the profile's headers back: its ping passes.
    let (client, mut rx) = Client::new(&url, OTHER, ClientConfig::default()).unwrap();
    client.send(INIT).await.unwrap();
    assert_eq!(recv(&mut rx).await["id"], 0);
    assert!(client.session_id().is_some());
    client.set_protocol_version(Some("7".to_owned()));
    client.send(ping).await.unwrap();
    assert_eq!(recv(&mut rx).await["result"], json!({}));
    server.shutdown().await.unwrap();

    let bad = Profile {
        session_header: "no spaces",
        ..OTHER
    };
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let refused = serve(listener, engine, ServerConfig::new(bad))
        .err()
        .unwrap();
    assert_eq!(refused.kind(), std::io::ErrorKind::InvalidInput);
    let refused = Client::new(&url, bad, ClientConfig::default())
        .err()
        .unwrap();
    assert!(matches!(refused, ClientError::Profile(_)), "{refused:?}");
}
