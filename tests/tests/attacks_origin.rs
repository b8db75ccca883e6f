//! Cross-site requests against every HTTP and WebSocket server kind, loopback only: a web
//! page (`Origin: http://evil.example`, or `null` from a sandboxed frame or a `file:` page)
//! and a rebound DNS name (`Host: evil.example`) are refused with 403 before any route or
//! WebSocket upgrade runs, on the WebSocket skeletons (helix_zed, agentloop), the HTTP +
//! WebSocket session server (its create route, callback and WebSocket) and the receiver
//! its owners run; pages of this machine, clients without `Origin`, and configured origins
//! pass. Streamable HTTP has the same policy (transport/tests/streamable_http.rs). A JSON-RPC
//! TCP server closes a connection that opens with an HTTP request, so a page's `text/plain`
//! POST whose body is a JSON-RPC message is never served (cross-protocol request forgery: the
//! `Content-Length` framing skips the request line and takes the page's own headers).

use crate::ws_support;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use agentwire_protocols::eca;
use agentwire_protocols::external_agents as proto;
use agentwire_protocols::skeletons::eca as eca_skel;
use agentwire_protocols::skeletons::{
    agentloop as al_skel, external_agents as sk, helix_zed as hz_skel,
};
use agentwire_runtime::jsonrpc::RpcError;
use agentwire_transport::CheckMode;
use agentwire_transport::http_ws::{Guard, ServerConfig as HttpConfig, ServerHandle};
use agentwire_transport::origin::Origins;
use agentwire_transport::store::sessions::SqliteSessionStore;
use agentwire_transport::ws::ServerConfig;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::timeout;
use ws_support::{ScriptedAgentLoop, ScriptedZed};

const BOUND: Duration = Duration::from_secs(20);
const EVIL: &str = "http://evil.example";

/// The status code of a raw request's answer (its first line).
async fn status(addr: SocketAddr, request: &str) -> u16 {
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(request.as_bytes()).await.unwrap();
    let mut head = Vec::new();
    timeout(BOUND, async {
        while !head.ends_with(b"\r\n") {
            let mut b = [0u8; 1];
            if s.read(&mut b).await.unwrap() == 0 {
                break;
            }
            head.push(b[0]);
        }
    })
    .await
    .expect("answered in time");
    let line = String::from_utf8_lossy(&head);
    line.split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("no status line: {line:?}"))
}

/// A WebSocket upgrade of `path` with `host` and, when given, `origin`.
fn upgrade(path: &str, host: &str, origin: Option<&str>) -> String {
    let origin = origin.map_or(String::new(), |o| format!("Origin: {o}\r\n"));
    format!(
        "GET {path} HTTP/1.1\r\nHost: {host}\r\n{origin}Upgrade: websocket\r\n\
         Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
         Sec-WebSocket-Version: 13\r\n\r\n"
    )
}

/// A cross-site "simple" POST (no preflight): `text/plain`, as a page's form or fetch sends it.
fn simple_post(path: &str, host: &str, origin: Option<&str>, body: &str) -> String {
    let origin = origin.map_or(String::new(), |o| format!("Origin: {o}\r\n"));
    format!(
        "POST {path} HTTP/1.1\r\nHost: {host}\r\n{origin}Content-Type: text/plain\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// The upgrade rule of one WebSocket server at `addr`: hostile origins and hosts get 403,
/// a loopback page and a client without `Origin` get 101.
async fn websocket_policy(addr: SocketAddr, path: &str) {
    let host = addr.to_string();
    for (origin, host, want) in [
        (Some(EVIL), host.as_str(), 403),
        (Some("null"), host.as_str(), 403),
        (Some("http://localhost.evil.example"), host.as_str(), 403),
        (None, "evil.example", 403),
        (None, host.as_str(), 101),
        (Some("http://localhost:5173"), host.as_str(), 101),
        (Some("http://127.0.0.1"), "localhost", 101),
    ] {
        let got = status(addr, &upgrade(path, host, origin)).await;
        assert_eq!(got, want, "{path} Origin {origin:?} Host {host}");
    }
}

#[tokio::test]
async fn websocket_skeletons_refuse_cross_site_upgrades() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let zed = hz_skel::serve(listener, ScriptedZed::default(), ServerConfig::default())
        .await
        .unwrap();
    websocket_policy(zed.local_addr(), "/").await;
    zed.shutdown().await.unwrap();

    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let agentloop = al_skel::serve(
        listener,
        ScriptedAgentLoop::default(),
        ServerConfig::default(),
    )
    .await
    .unwrap();
    websocket_policy(agentloop.local_addr(), "/").await;
    agentloop.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_configured_origin_list_admits_exactly_its_pages() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let config = ServerConfig {
        origins: Origins::List(vec!["https://app.example".into()]),
        ..ServerConfig::default()
    };
    let zed = hz_skel::serve(listener, ScriptedZed::default(), config)
        .await
        .unwrap();
    let (addr, host) = (zed.local_addr(), zed.local_addr().to_string());
    for (origin, want) in [
        ("https://APP.example", 101),
        ("http://app.example", 403),
        ("http://localhost", 403),
        ("null", 403),
    ] {
        let got = status(addr, &upgrade("/", &host, Some(origin))).await;
        assert_eq!(got, want, "Origin {origin}");
    }
    zed.shutdown().await.unwrap();
}

/// The session server (no token, the default) and its receiver: no cross-site page may
/// create a session, post a callback or open the WebSocket; a same-machine client may.
#[tokio::test]
async fn the_session_server_refuses_cross_site_posts_and_upgrades() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let agents = [proto::AgentConfig::External(proto::ExternalAgentConfig {
        agent_id: "ext-a".into(),
        display_name: "External A".into(),
        description: None,
        external: proto::ExternalAgentConfigExternal {
            input_url: "http://127.0.0.1:9/v1/input".into(),
            callback_base_url: format!("http://{addr}"),
        },
    })];
    let config = HttpConfig {
        owners: sk::owners(&agents),
        limits: Default::default(),
        mode: CheckMode::Enforce,
        guard: Guard::default(),
    };
    let store = Arc::new(SqliteSessionStore::in_memory().unwrap());
    let server: ServerHandle = sk::AgentServer::new(config, store).serve(listener).unwrap();
    let host = addr.to_string();
    let create = "/api/plugins/sessions/operations/create";
    let body = r#"{"agentId":"ext-a","sessionId":"CSRF"}"#;
    for (origin, host, want) in [
        (Some(EVIL), host.as_str(), 403),
        (Some("null"), host.as_str(), 403),
        (None, "evil.example:80", 403),
        (None, host.as_str(), 201),
    ] {
        let got = status(addr, &simple_post(create, host, origin, body)).await;
        assert_eq!(got, want, "create, Origin {origin:?} Host {host}");
    }
    let callback = "/external/sessions/CSRF/messages";
    let got = status(addr, &simple_post(callback, &host, Some(EVIL), "hi")).await;
    assert_eq!(got, 403, "callback from another site");
    websocket_policy(addr, "/ws").await;
    server.shutdown().await.unwrap();

    // The receiver an owner runs for its `inputUrl` is an HTTP server too.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let receiver = sk::ExternalSystemServer::new(NoSystem)
        .serve(listener, "/v1/input")
        .unwrap();
    let got = status(
        addr,
        &simple_post("/v1/input", &addr.to_string(), Some(EVIL), "{}"),
    )
    .await;
    assert_eq!(got, 403, "receiver from another site");
    receiver.shutdown().await.unwrap();
}

struct NoSystem;

impl sk::ExternalSystemHandler for NoSystem {
    async fn forward_input(&self, _: proto::ExternalInputPayload) -> Result<(), sk::HandlerError> {
        Ok(())
    }
}

/// Counts the sessions a page's POST manages to open.
struct Counting(Arc<AtomicUsize>);

impl eca_skel::ServerHandler for Counting {
    async fn initialize(
        &self,
        _: eca_skel::ServerSender,
        _: eca::InitializeParams,
    ) -> Result<eca::InitializeResponse, RpcError> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Ok(eca::InitializeResponse {
            models: vec!["m".to_owned()],
            chat_default_model: "m".to_owned(),
            chat_behaviors: Vec::new(),
            chat_default_behavior: eca::ChatBehavior::Agent,
            chat_welcome_message: String::new(),
        })
    }
    async fn shutdown(&self, _: eca_skel::ServerSender) -> Result<(), RpcError> {
        Err(refused())
    }
    async fn chat_prompt(
        &self,
        _: eca_skel::ServerSender,
        _: eca::ChatPromptParams,
    ) -> Result<eca::ChatPromptResponse, RpcError> {
        Err(refused())
    }
    async fn chat_query_context(
        &self,
        _: eca_skel::ServerSender,
        _: eca::ChatQueryContextParams,
    ) -> Result<eca::ChatQueryContextResponse, RpcError> {
        Err(refused())
    }
    async fn chat_query_commands(
        &self,
        _: eca_skel::ServerSender,
        _: eca::ChatQueryCommandsParams,
    ) -> Result<eca::ChatQueryCommandsResponse, RpcError> {
        Err(refused())
    }
    async fn chat_delete(
        &self,
        _: eca_skel::ServerSender,
        _: eca::ChatDeleteParams,
    ) -> Result<eca::ChatDeleteResponse, RpcError> {
        Err(refused())
    }
}

fn refused() -> RpcError {
    RpcError {
        code: -32601,
        message: "not here".into(),
        data: None,
    }
}

#[tokio::test]
async fn a_json_rpc_tcp_server_serves_no_frame_smuggled_in_a_pages_post() {
    let opened = Arc::new(AtomicUsize::new(0));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let config = agentwire_transport::jsonrpc::Config::default();
    let server =
        eca_skel::Server::serve_tcp(Arc::new(Counting(opened.clone())), listener, config, 4)
            .unwrap();
    let addr = server.local_addr();
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":1,"clientInfo":{"name":"t","version":"0"},"capabilities":{"codeAssistant":{"chat":true}},"workspaceFolders":[]}}"#;
    let frame = format!("Content-Length: {}\r\n\r\n{init}", init.len());
    let mut s = TcpStream::connect(addr).await.unwrap();
    // The page's own headers frame its body: `Content-Length` is one of them.
    s.write_all(simple_post("/", &addr.to_string(), Some(EVIL), init).as_bytes())
        .await
        .unwrap();
    // Whatever the server sends before it closes (or within 3 s, if it keeps the connection).
    let mut answer = Vec::new();
    let closed = timeout(Duration::from_secs(3), s.read_to_end(&mut answer)).await;
    let answer = String::from_utf8_lossy(&answer);
    assert!(
        !answer.contains("\"result\""),
        "the smuggled frame was served: {answer}"
    );
    assert_eq!(opened.load(Ordering::SeqCst), 0, "a session was opened");
    assert!(closed.is_ok(), "the connection is closed at once");
    // A JSON-RPC client on the same port is served.
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(frame.as_bytes()).await.unwrap();
    let mut head = vec![0u8; 64];
    let n = timeout(BOUND, s.read(&mut head))
        .await
        .expect("answered")
        .unwrap();
    assert!(
        head[..n].starts_with(b"Content-Length:"),
        "{:?}",
        String::from_utf8_lossy(&head[..n])
    );
    assert_eq!(opened.load(Ordering::SeqCst), 1);
    server.shutdown().await;
}
