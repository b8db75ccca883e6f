//! Peers that try to flood the server's log, loopback and in-memory only: every warning a
//! peer can trigger is rate-limited per call site (5 lines per 10 s, the next one counting
//! what was left out), so thousands of dropped notifications or refused frames write a
//! handful of lines. The campaign's attack (a GET stream that never reads) wrote one WARN line
//! per dropped notification: 16 MB of stderr in 60 s.

use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use agentwire_protocols::skeletons::helix_zed as hz_skel;
mod eca_refuser;
use agentwire_transport::jsonrpc::ContentLengthCodec;
use agentwire_transport::streamable_http::{
    self, Kind, Limits, Outgoing, ServerConfig, SessionPipe, classify,
};
use agentwire_transport::throttle::BURST;
use agentwire_transport::tokio_util::codec::{FramedRead, FramedWrite};
use agentwire_transport::ws::ServerConfig as WsConfig;
use eca_refuser::EcaRefuser;
use futures_util::{SinkExt, StreamExt};
use serde_json::json;
use tokio::net::TcpListener;
use tokio::time::timeout;
use tokio_tungstenite::tungstenite::Message;

const BOUND: Duration = Duration::from_secs(30);

/// Every log line of this test binary (all its tests share one subscriber).
fn log() -> &'static Mutex<Vec<u8>> {
    static LOG: OnceLock<&'static Mutex<Vec<u8>>> = OnceLock::new();
    LOG.get_or_init(|| {
        let buf: &'static Mutex<Vec<u8>> = Box::leak(Box::new(Mutex::new(Vec::new())));
        let subscriber = tracing_subscriber::fmt()
            .with_ansi(false)
            .with_max_level(agentwire_transport::tracing::Level::INFO)
            .with_writer(move || Lines(buf))
            .finish();
        agentwire_transport::tracing::subscriber::set_global_default(subscriber)
            .expect("the only subscriber of this binary");
        buf
    })
}

struct Lines(&'static Mutex<Vec<u8>>);

impl Write for Lines {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The lines logged so far that contain `text`.
fn lines_with(text: &str) -> Vec<String> {
    let log = log().lock().unwrap();
    String::from_utf8_lossy(&log)
        .lines()
        .filter(|l| l.contains(text))
        .map(str::to_owned)
        .collect()
}

/// An engine that answers `initialize`, and answers `flood` (params: a count) after sending
/// that many notifications for the GET stream.
fn flooding_engine(pipe: SessionPipe) {
    tokio::spawn(async move {
        let SessionPipe {
            mut inbound,
            outbound,
            ..
        } = pipe;
        while let Some(message) = inbound.recv().await {
            let text = message.text;
            let Ok(Kind::Request { id, method }) = classify(&text) else {
                continue;
            };
            let v: serde_json::Value = serde_json::from_str(&text).unwrap();
            if method == "flood" {
                for n in 0..v["params"]["count"].as_u64().unwrap() {
                    let note =
                        json!({"jsonrpc":"2.0","method":"notifications/message","params":{"n":n}});
                    if outbound
                        .send(Outgoing::unrelated(note.to_string()))
                        .await
                        .is_err()
                    {
                        return;
                    }
                }
            }
            let reply = json!({"jsonrpc":"2.0","id":id,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"f","version":"0"}}});
            let _ = outbound.send(Outgoing::unrelated(reply.to_string())).await;
        }
    });
}

async fn post(url: &str, session: Option<&str>, body: String) -> reqwest::Response {
    let mut req = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body);
    if let Some(s) = session {
        req = req.header("mcp-session-id", s);
    }
    timeout(BOUND, req.send()).await.expect("answered").unwrap()
}

#[tokio::test]
async fn a_get_stream_nobody_reads_costs_a_few_warnings_not_one_per_dropped_message() {
    log();
    let config = ServerConfig {
        limits: Limits {
            max_queued: 4,
            ..Limits::default()
        },
        ..ServerConfig::new(agentwire_protocols::skeletons::mcp::STREAMABLE_HTTP)
    };
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = streamable_http::serve(listener, flooding_engine, config).unwrap();
    let url = format!(
        "http://{}{}",
        server.local_addr(),
        agentwire_protocols::skeletons::mcp::STREAMABLE_HTTP.path
    );
    let init = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}});
    let opened = post(&url, None, init.to_string()).await;
    let sid = opened.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    // 5,000 notifications for a GET stream nobody reads: 4 are queued, the rest dropped.
    let flood = json!({"jsonrpc":"2.0","id":2,"method":"flood","params":{"count":5000}});
    let answered = post(&url, Some(&sid), flood.to_string()).await;
    assert_eq!(answered.status(), 200);
    let warnings = lines_with("GET stream queue full");
    assert!(!warnings.is_empty(), "the drops are reported");
    assert!(
        warnings.len() <= BURST as usize,
        "{} warning lines for 4,996 dropped notifications",
        warnings.len()
    );
    assert!(warnings.iter().all(|l| l.contains("WARN")));
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn thousands_of_bad_json_rpc_frames_cost_a_few_warnings() {
    log();
    use agentwire_protocols::skeletons::eca::Server;
    let (client, server) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server);
    let config = agentwire_transport::jsonrpc::Config::default();
    let (_sender, _connection) =
        Server::serve(Arc::new(EcaRefuser), server_read, server_write, config);
    let (client_read, client_write) = tokio::io::split(client);
    let mut tx = FramedWrite::new(client_write, ContentLengthCodec::default());
    let mut rx = FramedRead::new(client_read, ContentLengthCodec::default());
    let count = 2_000;
    let reader = tokio::spawn(async move {
        for _ in 0..count {
            timeout(BOUND, rx.next())
                .await
                .expect("answered")
                .unwrap()
                .unwrap()
                .unwrap();
        }
    });
    for n in 0..count {
        let bad = json!({"jsonrpc":"2.0","id":n,"method":"chat/prompt","params":{"nope":true}});
        tx.send(bad.to_string()).await.unwrap();
    }
    reader.await.unwrap();
    let warnings = lines_with("invalid message answered with an error");
    assert!(!warnings.is_empty(), "the refusals are reported");
    assert!(
        warnings.len() <= BURST as usize,
        "{} warning lines for {count} refused requests",
        warnings.len()
    );
}

#[tokio::test]
async fn thousands_of_refused_websocket_frames_cost_a_few_warnings() {
    log();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = hz_skel::serve(listener, NoZed, WsConfig::default())
        .await
        .unwrap();
    let (mut ws, _) = tokio_tungstenite::connect_async(server.url())
        .await
        .unwrap();
    let count = 2_000;
    for _ in 0..count {
        ws.send(Message::text(r#"{"type":"nope"}"#)).await.unwrap();
    }
    // A ping after the flood: its pong means every frame before it was read.
    ws.send(Message::Ping(Default::default())).await.unwrap();
    timeout(BOUND, async {
        while let Some(Ok(m)) = ws.next().await {
            if matches!(m, Message::Pong(_)) {
                break;
            }
        }
    })
    .await
    .expect("pong");
    let warnings = lines_with("inbound frame refused");
    assert!(!warnings.is_empty(), "the refusals are reported");
    assert!(
        warnings.len() <= BURST as usize,
        "{} warning lines for {count} refused frames",
        warnings.len()
    );
    server.shutdown().await.unwrap();
}

struct NoZed;

impl hz_skel::Handler for NoZed {
    async fn chat_message(
        &self,
        _: &hz_skel::Sender,
        _: agentwire_protocols::helix_zed::ChatMessage,
    ) {
    }
}
