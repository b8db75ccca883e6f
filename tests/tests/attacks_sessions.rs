//! Hostile clients against the servers that keep sessions, loopback only: one client (one
//! peer address; the attacker binds 127.0.0.2, everyone else 127.0.0.1) opening sessions as
//! fast as it can takes its own share and no more, so another client still gets one; with a
//! shared token, a client without it creates nothing; and sessions left idle expire, so a
//! full store frees itself, also across a restart; a store that is down is answered 503 in
//! the API's error body.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use agentwire_protocols::external_agents as proto;
use agentwire_protocols::skeletons::external_agents as sk;
use agentwire_protocols::skeletons::helix_zed as hz_sk;
use agentwire_transport::CheckMode;
use agentwire_transport::http_ws::{Guard, Limits, ServerConfig, ServerHandle};
use agentwire_transport::store::StoreError;
use agentwire_transport::store::sessions::{
    LogEntry, SessionRecord, SessionStore, SqliteSessionStore,
};
use agentwire_transport::streamable_http::{self, Outgoing, SessionPipe};
use serde_json::{Value, json};
use tokio::net::TcpListener;

const ATTACKER: &str = "127.0.0.2";
const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;
/// More attempts than any default cap, so a server without a per-client share is filled.
const ATTEMPTS: usize = 1100;

/// An engine that answers `initialize` and nothing else.
fn engine(pipe: SessionPipe) {
    tokio::spawn(async move {
        let SessionPipe {
            mut inbound,
            outbound,
            ..
        } = pipe;
        while let Some(message) = inbound.recv().await {
            let text = message.text;
            let v: Value = serde_json::from_str(&text).unwrap_or_default();
            let result = json!({"protocolVersion": "2025-11-25", "capabilities": {},
                "serverInfo": {"name": "t", "version": "0"}});
            let answer = json!({"jsonrpc": "2.0", "id": v["id"], "result": result});
            if outbound
                .send(Outgoing::unrelated(answer.to_string()))
                .await
                .is_err()
            {
                return;
            }
        }
    });
}

fn client_from(addr: &str) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(addr.parse::<IpAddr>().unwrap())
        .build()
        .unwrap()
}

async fn initialize(client: &reqwest::Client, url: &str) -> u16 {
    client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(INIT)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

fn http_config() -> streamable_http::ServerConfig {
    streamable_http::ServerConfig::new(agentwire_protocols::skeletons::mcp::STREAMABLE_HTTP)
}

#[tokio::test]
async fn one_client_cannot_take_every_streamable_http_session() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = streamable_http::serve(listener, engine, http_config()).unwrap();
    let url = format!(
        "http://{}{}",
        server.local_addr(),
        agentwire_protocols::skeletons::mcp::STREAMABLE_HTTP.path
    );
    let attacker = client_from(ATTACKER);
    let started = Instant::now();
    let mut opened = 0;
    let mut refusal = 0;
    for _ in 0..ATTEMPTS {
        match initialize(&attacker, &url).await {
            200 => opened += 1,
            other => {
                refusal = other;
                break;
            }
        }
    }
    let took = started.elapsed();
    eprintln!("attacker: {opened} sessions in {took:?}, then {refusal}");
    let status = initialize(&client_from("127.0.0.1"), &url).await;
    eprintln!("another client: {status}");
    assert_eq!(
        status, 200,
        "another client was locked out after the attacker opened {opened}"
    );
    assert_eq!(refusal, 429, "the attacker is refused its share's next one");
    assert!(opened < http_config().limits.max_sessions);
    assert!(took < Duration::from_secs(120));
    server.shutdown().await.unwrap();
}

/// An agent server on an SQLite file (so a restart keeps its sessions), with one agent whose
/// input is stored and echoed only.
async fn agent_server(
    file: &std::path::Path,
    limits: Limits,
    token: Option<&str>,
) -> (ServerHandle, String) {
    let store: Arc<dyn SessionStore> = Arc::new(SqliteSessionStore::open(file).unwrap());
    agent_server_on(store, limits, token).await
}

async fn agent_server_on(
    store: Arc<dyn SessionStore>,
    limits: Limits,
    token: Option<&str>,
) -> (ServerHandle, String) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let agents = [proto::AgentConfig::Chat(proto::ChatAgentConfig {
        agent_id: "local".into(),
        display_name: "Local".into(),
        description: None,
    })];
    let config = ServerConfig {
        owners: sk::owners(&agents),
        limits,
        mode: CheckMode::Enforce,
        guard: Guard {
            token: token.map(str::to_owned),
            ..Guard::default()
        },
    };
    let server = sk::AgentServer::new(config, store).serve(listener).unwrap();
    (server, base)
}

async fn create(client: &reqwest::Client, base: &str, token: Option<&str>) -> u16 {
    let mut request = client
        .post(format!("{base}/api/plugins/sessions/operations/create"))
        .header("content-type", "application/json")
        .body(r#"{"agentId":"local"}"#);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().await.unwrap().status().as_u16()
}

/// Creates sessions from the attacker's address until one is refused; returns how many were
/// created and the refusal's status.
async fn fill(base: &str, attempts: usize) -> (usize, u16) {
    let attacker = client_from(ATTACKER);
    let mut created = 0;
    for _ in 0..attempts {
        match create(&attacker, base, None).await {
            201 => created += 1,
            other => return (created, other),
        }
    }
    (created, 201)
}

#[tokio::test]
async fn one_client_cannot_fill_the_agent_server_with_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits {
        max_sessions: 300,
        ..Limits::default()
    };
    let (server, base) = agent_server(&dir.path().join("s.sqlite"), limits, None).await;
    let started = Instant::now();
    let (created, refusal) = fill(&base, 400).await;
    eprintln!(
        "attacker: {created} sessions in {:?}, then {refusal}",
        started.elapsed()
    );
    let status = create(&client_from("127.0.0.1"), &base, None).await;
    eprintln!("another client: {status}");
    assert_eq!(
        status, 201,
        "another client was locked out after {created} creates"
    );
    assert_eq!(refusal, 429);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn with_a_shared_token_an_unauthenticated_client_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.sqlite");
    let (server, base) = agent_server(&file, Limits::default(), Some("s3cret")).await;
    let (created, refusal) = fill(&base, 10).await;
    eprintln!("without the token: {created} sessions, then {refusal}");
    assert_eq!((created, refusal), (0, 401));
    let with_token = create(&client_from("127.0.0.1"), &base, Some("s3cret")).await;
    assert_eq!(with_token, 201);
    server.shutdown().await.unwrap();
    let store = SqliteSessionStore::open(&file).unwrap();
    assert_eq!(store.live_sessions().unwrap(), 1);
}

#[tokio::test]
async fn a_full_store_frees_itself_as_sessions_expire_also_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.sqlite");
    let full = Limits {
        max_sessions: 20,
        ..Limits::default()
    };
    let (server, base) = agent_server(&file, full, None).await;
    assert_eq!(fill(&base, 30).await, (20, 503));
    server.shutdown().await.unwrap();
    // The same file after a restart, with sessions expiring after 300 ms idle: still full at
    // first (they were just used), then the expired ones make room.
    let expiring = Limits {
        session_idle_timeout: Duration::from_millis(300),
        ..full
    };
    let (server, base) = agent_server(&file, expiring, None).await;
    let other = client_from("127.0.0.1");
    let started = Instant::now();
    let mut status = create(&other, &base, None).await;
    while status == 503 && started.elapsed() < Duration::from_secs(20) {
        tokio::time::sleep(Duration::from_millis(50)).await;
        status = create(&other, &base, None).await;
    }
    eprintln!("after the restart: {status} in {:?}", started.elapsed());
    assert_eq!(status, 201);
    let store = SqliteSessionStore::open(&file).unwrap();
    assert!(store.live_sessions().unwrap() <= 20);
    server.shutdown().await.unwrap();
}

/// A store whose database is down: every call fails.
struct Down;

fn down<T>() -> Result<T, StoreError> {
    Err(StoreError::Backend("connection refused".into()))
}

impl SessionStore for Down {
    fn session(&self, _: &str) -> Result<Option<SessionRecord>, StoreError> {
        down()
    }
    fn put_session(&self, _: &SessionRecord) -> Result<(), StoreError> {
        down()
    }
    fn delete_session(&self, _: &str) -> Result<bool, StoreError> {
        down()
    }
    fn live_sessions(&self) -> Result<usize, StoreError> {
        down()
    }
    fn append(&self, _: &str, _: &Value) -> Result<i64, StoreError> {
        down()
    }
    fn log(&self, _: &str) -> Result<Vec<LogEntry>, StoreError> {
        down()
    }
    fn touch(&self, _: &[String]) -> Result<(), StoreError> {
        down()
    }
    fn expire_idle(&self, _: Duration) -> Result<Vec<String>, StoreError> {
        down()
    }
}

#[tokio::test]
async fn a_store_that_is_down_is_a_503_in_the_apis_error_body() {
    let (server, base) = agent_server_on(Arc::new(Down), Limits::default(), None).await;
    let http = reqwest::Client::new();
    let create = http
        .post(format!("{base}/api/plugins/sessions/operations/create"))
        .header("content-type", "application/json")
        .body(r#"{"agentId":"local","sessionId":"S-1"}"#);
    let callback = http
        .post(format!("{base}/external/sessions/S-1/messages"))
        .body("hi");
    for request in [create, callback] {
        let answer = request.send().await.unwrap();
        let status = answer.status().as_u16();
        let body = answer.text().await.unwrap();
        eprintln!("{status} {body}");
        assert_eq!(status, 503, "{body}");
        let error: proto::ApiErrorResponse = serde_json::from_str(&body).unwrap();
        assert_eq!(error.error.code, proto::ApiErrorCode::InvalidRequest);
    }
    server.shutdown().await.unwrap();
}

/// A Zed-side server that ignores every chat message (only connections matter here).
struct Silent;

impl hz_sk::Handler for Silent {
    async fn chat_message(
        &self,
        _: &hz_sk::Sender,
        _: agentwire_protocols::helix_zed::ChatMessage,
    ) {
    }
}

/// A WebSocket handshake from `from` to `addr`: the connection, or the refusal's status.
async fn ws_connect(from: &str, addr: std::net::SocketAddr) -> Result<impl Sized, u16> {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(format!("{from}:0").parse().unwrap()).unwrap();
    let stream = socket.connect(addr).await.unwrap();
    match tokio_tungstenite::client_async(format!("ws://{addr}/"), stream).await {
        Ok((ws, _)) => Ok(ws),
        Err(tokio_tungstenite::tungstenite::Error::Http(answer)) => Err(answer.status().as_u16()),
        Err(e) => panic!("{e}"),
    }
}

#[tokio::test]
async fn one_client_cannot_take_every_websocket_connection() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = hz_sk::serve(
        listener,
        Silent,
        agentwire_transport::ws::ServerConfig::default(),
    )
    .await
    .unwrap();
    let addr = server.local_addr();
    let started = Instant::now();
    let mut held = Vec::new();
    let mut refusal = 0;
    for _ in 0..ATTEMPTS {
        match ws_connect(ATTACKER, addr).await {
            Ok(ws) => held.push(ws),
            Err(status) => {
                refusal = status;
                break;
            }
        }
    }
    eprintln!(
        "attacker: {} connections in {:?}, then {refusal}",
        held.len(),
        started.elapsed()
    );
    let other = ws_connect("127.0.0.1", addr).await.map(|_| 101);
    eprintln!("another client: {other:?}");
    assert_eq!(other, Ok(101), "another client was locked out");
    assert_eq!(refusal, 429);
    drop(held);
    server.shutdown().await.unwrap();
}
