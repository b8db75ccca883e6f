//! Hostile peers against the eca JSON-RPC TCP server, loopback only: a frame trickled or left
//! incomplete (15 MiB of a declared 16 MB included) costs its connection, and with it the
//! buffer, after `frame_timeout`, a silent connection goes after `idle_timeout`, and a
//! declared length over the limit is refused from the header alone, and one client (peer
//! address) holding connections open takes its share of them, not all.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::eca_refuser;
use agentwire_protocols::skeletons::eca::Server;
use agentwire_transport::jsonrpc::{Config, ContentLengthCodec, TcpServer};
use agentwire_transport::tokio_util::codec::FramedRead;
use eca_refuser::EcaRefuser;
use futures_util::StreamExt;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::{sleep, timeout};

const BOUND: Duration = Duration::from_secs(20);

async fn server(config: Config) -> TcpServer {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    Server::serve_tcp(Arc::new(EcaRefuser), listener, config, 16).unwrap()
}

/// Waits until the server closes `s`; returns how long that took.
async fn closed_after(s: &mut TcpStream) -> Duration {
    let started = Instant::now();
    let mut buf = vec![0u8; 4096];
    loop {
        match timeout(BOUND, s.read(&mut buf))
            .await
            .expect("closed in time")
        {
            Ok(0) | Err(_) => return started.elapsed(),
            Ok(_) => {}
        }
    }
}

#[tokio::test]
async fn peers_holding_15_mib_of_a_declared_16_mb_frame_are_dropped_and_freed() {
    // The campaign's attack: 4 peers declare 16 MB (under the limit), send 15 MiB and stall,
    // which held ~64 MB for as long as they liked.
    let server = server(Config {
        // Room for a loaded machine to move 60 MiB through a debug build first.
        frame_timeout: Some(Duration::from_secs(3)),
        ..Config::default()
    })
    .await;
    let body = vec![b' '; 15 * 1024 * 1024];
    let mut held = Vec::new();
    for _ in 0..4 {
        let mut s = TcpStream::connect(server.local_addr()).await.unwrap();
        s.write_all(b"Content-Length: 16000000\r\n\r\n")
            .await
            .unwrap();
        held.push(s);
    }
    let sends = held.iter_mut().map(|s| s.write_all(&body));
    for sent in futures_util::future::join_all(sends).await {
        sent.expect("15 MiB sent before the deadline");
    }
    assert_eq!(
        server.live_connections(),
        4,
        "the attack holds its connections"
    );
    let started = Instant::now();
    for s in &mut held {
        closed_after(s).await;
    }
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    // A connection counts until its task (and with it every buffer) is gone.
    let deadline = Instant::now() + BOUND;
    while server.live_connections() > 0 && Instant::now() < deadline {
        sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(server.live_connections(), 0, "the buffers are freed");
    server.shutdown().await;
}

#[tokio::test]
async fn incomplete_and_trickled_frames_cost_the_connection_after_the_frame_timeout() {
    let server = server(Config {
        frame_timeout: Some(Duration::from_millis(300)),
        ..Config::default()
    })
    .await;
    // Four peers declare 16 MB (under the limit) and send only part of it.
    let mut held = Vec::new();
    for _ in 0..4 {
        let mut s = TcpStream::connect(server.local_addr()).await.unwrap();
        s.write_all(b"Content-Length: 16000000\r\n\r\n")
            .await
            .unwrap();
        s.write_all(&vec![b' '; 64 * 1024]).await.unwrap();
        held.push(s);
    }
    // One trickles a byte every 50 ms: progress on the socket is not progress on a frame.
    let mut trickle = TcpStream::connect(server.local_addr()).await.unwrap();
    trickle
        .write_all(b"Content-Length: 100\r\n\r\n")
        .await
        .unwrap();
    let trickled = async {
        for _ in 0..100 {
            sleep(Duration::from_millis(50)).await;
            if trickle.write_all(b" ").await.is_err() {
                return true;
            }
        }
        false
    };
    let (trickle_dropped, ()) = tokio::join!(trickled, async {
        for s in &mut held {
            assert!(closed_after(s).await < Duration::from_secs(3));
        }
    });
    assert!(trickle_dropped, "trickling peer still connected after 5 s");
    server.shutdown().await;
}

#[tokio::test]
async fn a_silent_connection_is_closed_after_the_idle_timeout() {
    let server = server(Config {
        frame_timeout: Some(Duration::from_millis(200)),
        idle_timeout: Some(Duration::from_millis(400)),
        ..Config::default()
    })
    .await;
    let mut s = TcpStream::connect(server.local_addr()).await.unwrap();
    let took = closed_after(&mut s).await;
    assert!(took >= Duration::from_millis(350), "closed early: {took:?}");
    assert!(took < Duration::from_secs(3), "closed late: {took:?}");
    server.shutdown().await;
}

#[tokio::test]
async fn a_declared_length_over_the_limit_is_refused_from_the_header() {
    let server = server(Config {
        max_frame_size: 1024,
        ..Config::default()
    })
    .await;
    let s = TcpStream::connect(server.local_addr()).await.unwrap();
    let (read, mut write) = s.into_split();
    // No body byte follows: the answer must come from the header alone.
    write
        .write_all(b"Content-Length: 10000000000\r\n\r\n")
        .await
        .unwrap();
    let mut answers = FramedRead::new(read, ContentLengthCodec::default());
    let answer = timeout(Duration::from_secs(5), answers.next())
        .await
        .expect("answered before any body byte")
        .unwrap()
        .unwrap()
        .unwrap();
    let answer: Value = serde_json::from_str(&answer).unwrap();
    assert_eq!(answer["error"]["code"], -32700, "{answer}");
    assert!(answer["id"].is_null());
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("exceeds the limit"),
        "{answer}"
    );
    server.shutdown().await;
}

/// Whether a connection from `from` is served: a request sent on it gets an answer.
async fn served(from: &str, addr: std::net::SocketAddr) -> bool {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(format!("{from}:0").parse().unwrap()).unwrap();
    let mut s = socket.connect(addr).await.unwrap();
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"shutdown"}"#;
    let frame = format!("Content-Length: {}\r\n\r\n{body}", body.len());
    if s.write_all(frame.as_bytes()).await.is_err() {
        return false;
    }
    let mut buf = vec![0u8; 4096];
    matches!(timeout(BOUND, s.read(&mut buf)).await, Ok(Ok(n)) if n > 0)
}

#[tokio::test]
async fn one_client_cannot_take_every_tcp_connection() {
    const MAX: usize = 300;
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = Server::serve_tcp(Arc::new(EcaRefuser), listener, Config::default(), MAX).unwrap();
    let addr = server.local_addr();
    // The attacker (127.0.0.2) opens more connections than the server takes, and keeps them.
    let mut held = Vec::new();
    for _ in 0..MAX + 20 {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind("127.0.0.2:0".parse().unwrap()).unwrap();
        held.push(socket.connect(addr).await.unwrap());
    }
    let started = Instant::now();
    while server.live_connections() < MAX.min(256) && started.elapsed() < BOUND {
        sleep(Duration::from_millis(10)).await;
    }
    sleep(Duration::from_millis(200)).await;
    let taken = server.live_connections();
    let other = served("127.0.0.1", addr).await;
    eprintln!("attacker holds {taken} of {MAX} connections; another client served: {other}");
    assert!(other, "another client was locked out");
    assert!(taken < MAX);
    drop(held);
    server.shutdown().await;
}
