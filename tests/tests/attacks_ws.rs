//! Hostile peers against the WebSocket server (helix_zed's Zed side), loopback only: slow
//! handshakes are dropped at their deadline and never take an upgraded peer's slot, broken
//! frames get the close code RFC 6455 names, and a silent connection is closed when idle.

use crate::ws_support;

use std::time::{Duration, Instant};

use agentwire_protocols::skeletons::helix_zed as hz_skel;
use agentwire_transport::ws::{ClientConfig, Server, ServerConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::{sleep, timeout};
use ws_support::{ScriptedZed, WAIT};

async fn server(config: ServerConfig) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    hz_skel::serve(listener, ScriptedZed::default(), config)
        .await
        .unwrap()
}

const UPGRADE: &str = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";

/// A raw socket past the upgrade: the `101` answer read and checked.
async fn upgraded(server: &Server) -> TcpStream {
    let mut s = TcpStream::connect(server.local_addr()).await.unwrap();
    s.write_all(UPGRADE.as_bytes()).await.unwrap();
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        let mut b = [0u8; 1];
        assert_eq!(
            s.read(&mut b).await.unwrap(),
            1,
            "server closed during upgrade"
        );
        head.push(b[0]);
    }
    assert!(
        head.starts_with(b"HTTP/1.1 101"),
        "{}",
        String::from_utf8_lossy(&head)
    );
    s
}

/// A client frame (masked with a zero key, which leaves the payload as is).
fn client_frame(opcode: u8, payload: &[u8]) -> Vec<u8> {
    let mut f = vec![0x80 | opcode];
    match payload.len() {
        n @ 0..=125 => f.push(0x80 | n as u8),
        n => {
            f.push(0x80 | 126);
            f.extend_from_slice(&(n as u16).to_be_bytes());
        }
    }
    f.extend_from_slice(&[0, 0, 0, 0]);
    f.extend_from_slice(payload);
    f
}

/// Reads server frames until a close frame and returns its status code (`None`: no code, or
/// the socket ended without a close frame).
async fn close_code(s: &mut TcpStream) -> Option<u16> {
    loop {
        let mut head = [0u8; 2];
        s.read_exact(&mut head).await.ok()?;
        let len = match head[1] & 0x7f {
            126 => {
                let mut l = [0u8; 2];
                s.read_exact(&mut l).await.ok()?;
                u16::from_be_bytes(l) as usize
            }
            127 => {
                let mut l = [0u8; 8];
                s.read_exact(&mut l).await.ok()?;
                u64::from_be_bytes(l) as usize
            }
            n => n as usize,
        };
        let mut payload = vec![0u8; len];
        s.read_exact(&mut payload).await.ok()?;
        if head[0] & 0x0f == 0x8 {
            return payload.get(..2).map(|c| u16::from_be_bytes([c[0], c[1]]));
        }
    }
}

#[tokio::test]
async fn slow_handshakes_are_dropped_and_never_starve_a_real_client() {
    let server = server(ServerConfig {
        handshake_timeout: Duration::from_millis(500),
        max_handshakes: 64,
        ..ServerConfig::default()
    })
    .await;
    // 50 sockets trickling the upgrade header, one byte every 100 ms.
    let mut slow = Vec::new();
    for _ in 0..50 {
        let mut s = TcpStream::connect(server.local_addr()).await.unwrap();
        s.write_all(b"G").await.unwrap();
        slow.push(s);
    }
    // A real client is upgraded while they trickle.
    let client = timeout(
        WAIT,
        hz_skel::Client::connect(&server.url(), ClientConfig::default()),
    )
    .await
    .expect("handshake in time")
    .unwrap();
    let started = Instant::now();
    let mut dropped = 0;
    for step in 1..40 {
        sleep(Duration::from_millis(100)).await;
        dropped = 0;
        for s in &mut slow {
            let byte = &UPGRADE.as_bytes()[step..=step];
            if s.write_all(byte).await.is_err() || peer_closed(s).await {
                dropped += 1;
            }
        }
        if dropped == slow.len() {
            break;
        }
    }
    assert_eq!(dropped, slow.len(), "slow handshakes still open");
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!(server.live_connections(), 1, "only the real client counts");
    drop(client);
    server.shutdown().await.unwrap();
}

/// Whether the server has closed `s` (end of stream or reset).
async fn peer_closed(s: &mut TcpStream) -> bool {
    let mut b = [0u8; 64];
    matches!(
        timeout(Duration::from_millis(1), s.read(&mut b)).await,
        Ok(Ok(0) | Err(_))
    )
}

#[tokio::test]
async fn handshakes_over_their_budget_are_closed_on_accept() {
    let server = server(ServerConfig {
        handshake_timeout: Duration::from_secs(20),
        max_handshakes: 4,
        ..ServerConfig::default()
    })
    .await;
    let mut held = Vec::new();
    for _ in 0..4 {
        let mut s = TcpStream::connect(server.local_addr()).await.unwrap();
        s.write_all(b"GET / HTTP/1.1\r\n").await.unwrap();
        held.push(s);
    }
    sleep(Duration::from_millis(200)).await;
    let mut fifth = TcpStream::connect(server.local_addr()).await.unwrap();
    let mut b = [0u8; 16];
    let read = timeout(WAIT, fifth.read(&mut b))
        .await
        .expect("closed at once");
    assert!(matches!(read, Ok(0) | Err(_)), "{read:?}");
    drop(held);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn broken_frames_get_the_close_code_rfc_6455_names() {
    let server = server(ServerConfig {
        max_frame_bytes: 64,
        ..ServerConfig::default()
    })
    .await;
    // 1009: a message over the limit.
    let mut s = upgraded(&server).await;
    s.write_all(&client_frame(0x1, &[b'x'; 200])).await.unwrap();
    assert_eq!(timeout(WAIT, close_code(&mut s)).await.unwrap(), Some(1009));
    // 1007: a text frame that is not UTF-8.
    let mut s = upgraded(&server).await;
    s.write_all(&client_frame(0x1, b"{\"a\":\"\xff\xfe\"}"))
        .await
        .unwrap();
    assert_eq!(timeout(WAIT, close_code(&mut s)).await.unwrap(), Some(1007));
    // 1002: an unmasked client frame, and a reserved opcode.
    for frame in [&[0x81, 0x02, b'h', b'i'][..], &client_frame(0x3, b"?")] {
        let mut s = upgraded(&server).await;
        s.write_all(frame).await.unwrap();
        assert_eq!(timeout(WAIT, close_code(&mut s)).await.unwrap(), Some(1002));
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_silent_connection_is_closed_and_a_live_one_is_kept() {
    let server = server(ServerConfig {
        idle_timeout: Some(Duration::from_millis(600)),
        ..ServerConfig::default()
    })
    .await;
    // A raw socket never answers the server's pings.
    let mut silent = upgraded(&server).await;
    // The skeleton client's WebSocket stack answers them.
    let mut live = hz_skel::Client::connect(&server.url(), ClientConfig::default())
        .await
        .unwrap();
    let started = Instant::now();
    assert_eq!(
        timeout(WAIT, close_code(&mut silent)).await.unwrap(),
        Some(1000)
    );
    assert!(started.elapsed() < Duration::from_secs(3));
    sleep(Duration::from_millis(900)).await;
    assert_eq!(server.live_connections(), 1);
    live.send(&ws_support::typed(serde_json::json!({
        "type": "chat_message",
        "data": {"helix_session_id": "s", "acp_thread_id": null, "message": "hi", "request_id": "r"}
    })))
    .await
    .unwrap();
    assert!(timeout(WAIT, live.next()).await.unwrap().unwrap().is_ok());
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_client_gives_up_on_a_server_that_never_answers_the_upgrade() {
    // A listener that accepts and then says nothing.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}/", listener.local_addr().unwrap());
    let hold = tokio::spawn(async move {
        let (s, _) = listener.accept().await.unwrap();
        sleep(Duration::from_secs(30)).await;
        drop(s);
    });
    let started = Instant::now();
    let config = ClientConfig {
        handshake_timeout: Duration::from_millis(300),
        ..ClientConfig::default()
    };
    let err = timeout(WAIT, hz_skel::Client::connect(&url, config))
        .await
        .expect("gave up in time")
        .unwrap_err();
    assert!(err.to_string().contains("did not finish in time"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(3));
    hold.abort();
}
