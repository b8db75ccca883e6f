//! The generated WebSocket skeletons (helix_zed, agentloop) against each other and against
//! raw WebSocket frames: flows, refusals, checker modes, limits, shutdown, restart.

use crate::ws_support;

use std::sync::Arc;

use agentwire_protocols::agentloop as al;
use agentwire_protocols::helix_zed as hz;
use agentwire_protocols::skeletons::{agentloop as al_skel, helix_zed as hz_skel};
use agentwire_transport::CheckMode;
use agentwire_transport::store::keyed::{MappingStore, SqliteKeyedStore, StateStore};
use agentwire_transport::ws::{ClientConfig, Refused, SendError, Server, ServerConfig};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::time::timeout;
use tokio_tungstenite::tungstenite::Message;
use ws_support::{ScriptedAgentLoop, ScriptedZed, WAIT};

async fn listener() -> TcpListener {
    TcpListener::bind("127.0.0.1:0").await.unwrap()
}

/// A handler shared with the test through an `Arc`.
struct Shared<H>(Arc<H>);

impl hz_skel::Handler for Shared<ScriptedZed> {
    async fn chat_message(&self, out: &hz_skel::Sender, msg: hz::ChatMessage) {
        hz_skel::Handler::chat_message(&*self.0, out, msg).await
    }
}

async fn zed_server(config: ServerConfig) -> (Server, Arc<ScriptedZed>) {
    let zed = Arc::new(ScriptedZed::default());
    let server = hz_skel::serve(listener().await, Shared(zed.clone()), config)
        .await
        .unwrap();
    (server, zed)
}

async fn agentloop_server(config: ServerConfig) -> Server {
    al_skel::serve(listener().await, ScriptedAgentLoop::default(), config)
        .await
        .unwrap()
}

fn chat(session: &str, thread: Option<&str>, text: &str, request: &str) -> hz::ChatMessage {
    hz::ChatMessage {
        data: hz::ChatMessageData {
            helix_session_id: session.into(),
            acp_thread_id: thread.map(Into::into),
            message: text.into(),
            request_id: request.into(),
        },
    }
}

/// Reads a HelixAgent's events up to message_completed; returns them by kind.
async fn helix_turn<St: MappingStore + StateStore>(
    agent: &mut hz_skel::HelixAgent<St>,
) -> Vec<hz::ZedEvent> {
    let mut events = Vec::new();
    loop {
        let ev = timeout(WAIT, agent.next())
            .await
            .expect("reply in time")
            .expect("connection open")
            .expect("valid event");
        let done = matches!(ev, hz::ZedEvent::MessageCompleted(_));
        events.push(ev);
        if done {
            return events;
        }
    }
}

fn count(events: &[hz::ZedEvent], kind: &str) -> usize {
    events.iter().filter(|e| e.kind() == kind).count()
}

#[tokio::test]
async fn helix_state_survives_a_client_restart_mid_session() {
    let (server, zed) = zed_server(ServerConfig::default()).await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("helix.db");

    let store = SqliteKeyedStore::open(&db).unwrap();
    let mut agent = hz_skel::HelixAgent::connect(&server.url(), ClientConfig::default(), store)
        .await
        .unwrap();
    agent.chat("ses_1", "hello zed", "req-1").await.unwrap();
    assert_eq!(
        agent.state("req-1").unwrap(),
        Some(hz::InteractionState::Waiting)
    );
    let events = helix_turn(&mut agent).await;
    assert_eq!(count(&events, "context_created"), 1);
    assert!(count(&events, "message_added") >= 2);
    let hz::ZedEvent::ContextCreated(created) = &events[0] else {
        panic!("context_created comes first here: {events:?}");
    };
    let thread = created.data.acp_thread_id.clone();
    assert_eq!(agent.thread("ses_1").unwrap(), Some(thread.clone()));
    assert_eq!(
        agent.state("req-1").unwrap(),
        Some(hz::InteractionState::Complete)
    );

    // Restart: the connection, the agent, the store and the Zed server all go away.
    drop(agent.close().await);
    server.shutdown().await.unwrap();
    let received_before = zed.received.lock().unwrap().len();
    assert_eq!(received_before, 1);
    let (server, zed) = zed_server(ServerConfig::default()).await;

    let store = SqliteKeyedStore::open(&db).unwrap();
    let mut agent = hz_skel::HelixAgent::connect(&server.url(), ClientConfig::default(), store)
        .await
        .unwrap();
    agent.chat("ses_1", "still there?", "req-2").await.unwrap();
    let events = helix_turn(&mut agent).await;
    assert_eq!(count(&events, "context_created"), 0, "{events:?}");
    for ev in &events {
        match ev {
            hz::ZedEvent::MessageAdded(m) => assert_eq!(m.data.acp_thread_id, thread),
            hz::ZedEvent::MessageCompleted(m) => assert_eq!(m.data.request_id, "req-2"),
            hz::ZedEvent::ContextCreated(_) => unreachable!(),
        }
    }
    let received = zed.received.lock().unwrap().clone();
    assert_eq!(received.len(), 1);
    assert_eq!(
        received[0].data.acp_thread_id.as_deref(),
        Some(thread.as_str())
    );
    assert_eq!(
        agent.state("req-1").unwrap(),
        Some(hz::InteractionState::Complete)
    );
    assert_eq!(
        agent.state("req-2").unwrap(),
        Some(hz::InteractionState::Complete)
    );
    agent.close().await;
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn helix_interactions_left_waiting_become_error_when_the_connection_ends() {
    let (server, _zed) = zed_server(ServerConfig::default()).await;
    let store = SqliteKeyedStore::in_memory().unwrap();
    let mut agent = hz_skel::HelixAgent::connect(&server.url(), ClientConfig::default(), store)
        .await
        .unwrap();
    // A reply long enough that shutdown lands mid-turn.
    agent.chat("ses_x", "stream 100000", "req-x").await.unwrap();
    let first = timeout(WAIT, agent.next()).await.unwrap().unwrap().unwrap();
    assert_eq!(first.kind(), "context_created");
    server.shutdown().await.unwrap();
    while let Some(item) = timeout(WAIT, agent.next()).await.unwrap() {
        item.unwrap();
    }
    assert_eq!(
        agent.state("req-x").unwrap(),
        Some(hz::InteractionState::Error)
    );
}

#[tokio::test]
async fn zed_server_drops_bad_frames_and_keeps_the_connection() {
    let (server, zed) = zed_server(ServerConfig::default()).await;
    let (mut ws, _) = tokio_tungstenite::connect_async(server.url())
        .await
        .unwrap();
    ws.send(Message::text("not json at all")).await.unwrap();
    ws.send(Message::binary(vec![0u8, 1, 2])).await.unwrap();
    ws.send(Message::text(r#"{"type":"chat_message","data":{}}"#))
        .await
        .unwrap();
    // A follow-up whose thread this connection never saw is a resumed session; a first
    // message and then the same first message again is out of sequence.
    let first = chat("ses_b", None, "hi", "r1");
    let json = hz::HelixMessage::ChatMessage(first).to_json();
    ws.send(Message::text(json.clone())).await.unwrap();
    ws.send(Message::text(json)).await.unwrap();
    let mut kinds = Vec::new();
    while let Some(frame) = timeout(WAIT, ws.next()).await.unwrap() {
        let text = frame.unwrap().into_text().unwrap();
        let ev = hz::ZedEvent::from_json(text.as_str()).unwrap();
        kinds.push(ev.kind());
        if ev.kind() == "message_completed" {
            break;
        }
    }
    assert_eq!(kinds[0], "context_created");
    assert_eq!(kinds.last(), Some(&"message_completed"));
    assert_eq!(count_str(&kinds, "context_created"), 1);
    // Only the first chat_message reached the handler.
    assert_eq!(zed.received.lock().unwrap().len(), 1);
    server.shutdown().await.unwrap();
}

fn count_str(kinds: &[&str], kind: &str) -> usize {
    kinds.iter().filter(|k| **k == kind).count()
}

#[tokio::test]
async fn the_client_checker_refuses_out_of_sequence_sends_unless_told_otherwise() {
    let (server, _zed) = zed_server(ServerConfig {
        mode: CheckMode::Off,
        ..ServerConfig::default()
    })
    .await;
    let client = hz_skel::Client::connect(&server.url(), ClientConfig::default())
        .await
        .unwrap();
    client
        .chat_message(chat("s", None, "one", "r1"))
        .await
        .unwrap();
    let err = client
        .chat_message(chat("s", None, "two", "r2"))
        .await
        .unwrap_err();
    assert!(matches!(err, SendError::Violation(_)), "{err}");

    let warn = hz_skel::Client::connect(
        &server.url(),
        ClientConfig {
            mode: CheckMode::Warn,
            ..ClientConfig::default()
        },
    )
    .await
    .unwrap();
    warn.chat_message(chat("s", None, "one", "r1"))
        .await
        .unwrap();
    warn.chat_message(chat("s", None, "two", "r2"))
        .await
        .unwrap();
    client.close().await;
    warn.close().await;
    server.shutdown().await.unwrap();
}

async fn next_msg(c: &mut al_skel::Client) -> al::ServerMessage {
    timeout(WAIT, c.next()).await.unwrap().unwrap().unwrap()
}

#[tokio::test]
async fn live_sessions_per_connection_are_capped() {
    let (server, zed) = zed_server(ServerConfig {
        max_sessions: 2,
        ..ServerConfig::default()
    })
    .await;
    // The client's own cap refuses the third session before it is sent.
    let capped = hz_skel::Client::connect(
        &server.url(),
        ClientConfig {
            max_sessions: 2,
            ..ClientConfig::default()
        },
    )
    .await
    .unwrap();
    for s in ["a", "b"] {
        capped
            .chat_message(chat(s, None, "stream 100000", "r"))
            .await
            .unwrap();
    }
    let err = capped
        .chat_message(chat("c", None, "hi", "r"))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("live instances"), "{err}");
    capped.close().await;

    // Unchecked, the third session reaches the server, whose cap drops it.
    let mut open = hz_skel::Client::connect(
        &server.url(),
        ClientConfig {
            mode: CheckMode::Off,
            ..ClientConfig::default()
        },
    )
    .await
    .unwrap();
    let mut threads = std::collections::HashMap::new();
    for s in ["d", "e"] {
        open.chat_message(chat(s, None, "hi", "r")).await.unwrap();
        loop {
            match timeout(WAIT, open.next()).await.unwrap().unwrap().unwrap() {
                hz::ZedEvent::ContextCreated(c) => {
                    threads.insert(s, c.data.acp_thread_id);
                }
                hz::ZedEvent::MessageCompleted(_) => break,
                hz::ZedEvent::MessageAdded(_) => {}
            }
        }
    }
    open.chat_message(chat("f", None, "hi", "r")).await.unwrap();
    // Frames are handled in order: once the follow-up is answered, `f` has been dealt with.
    open.chat_message(chat("d", Some(&threads["d"]), "again", "r2"))
        .await
        .unwrap();
    loop {
        let ev = timeout(WAIT, open.next()).await.unwrap().unwrap().unwrap();
        assert_ne!(ev.kind(), "context_created", "{ev:?}");
        if let hz::ZedEvent::MessageCompleted(done) = ev {
            assert_eq!(done.session_id, "d");
            break;
        }
    }
    let seen: Vec<String> = zed
        .received
        .lock()
        .unwrap()
        .iter()
        .map(|m| m.data.helix_session_id.clone())
        .collect();
    assert_eq!(seen[seen.len() - 3..], ["d", "e", "d"], "{seen:?}");
    open.close().await;
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn agentloop_turn_with_an_approval_through_the_generated_client() {
    let server = agentloop_server(ServerConfig::default()).await;
    let mut client = al_skel::Client::connect(&server.url(), ClientConfig::default())
        .await
        .unwrap();
    client
        .get_context_info(ws_support::typed(
            json!({"type": "get_context_info", "id": "c1"}),
        ))
        .await
        .unwrap();
    assert_eq!(next_msg(&mut client).await.kind(), "context_info");

    client
        .user_input(ws_support::typed(
            json!({"type": "user_input", "id": "u1", "payload": {"input": [
            {"type": "message", "role": "user",
             "content": [{"type": "input_text", "text": "list"}]}]}}),
        ))
        .await
        .unwrap();
    let mut kinds = Vec::new();
    loop {
        let msg = next_msg(&mut client).await;
        kinds.push(msg.kind());
        match msg {
            al::ServerMessage::ApprovalRequest(req) => {
                assert_eq!(req.payload.command, vec!["ls".to_owned()]);
                client
                    .approval_response(ws_support::typed(
                        json!({"type": "approval_response", "id": "a1", "payload": {"review": "yes"}}),
                    ))
                    .await
                    .unwrap();
            }
            al::ServerMessage::AgentFinished(_) => break,
            _ => {}
        }
    }
    assert_eq!(
        kinds,
        [
            "loading_state",
            "response_item",
            "approval_request",
            "response_item",
            "loading_state",
            "agent_finished"
        ]
    );
    client
        .manual_compact(ws_support::typed(
            json!({"type": "manual_compact", "id": "m1"}),
        ))
        .await
        .unwrap();
    assert_eq!(next_msg(&mut client).await.kind(), "context_compacted");
    client.close().await;
    server.shutdown().await.unwrap();
}

async fn expect_error(
    ws: &mut (impl StreamExt<Item = Result<Message, impl std::fmt::Debug>> + Unpin),
) -> Value {
    let frame = timeout(WAIT, ws.next()).await.unwrap().unwrap().unwrap();
    let text = frame.into_text().unwrap();
    let msg = al::ServerMessage::from_json(text.as_str()).unwrap();
    assert_eq!(msg.kind(), "error", "{text}");
    serde_json::from_str(text.as_str()).unwrap()
}

#[tokio::test]
async fn agentloop_server_answers_bad_frames_with_its_error_message() {
    let server = agentloop_server(ServerConfig::default()).await;
    let (mut ws, _) = tokio_tungstenite::connect_async(server.url())
        .await
        .unwrap();

    ws.send(Message::text("{oops")).await.unwrap();
    let e = expect_error(&mut ws).await;
    assert_eq!(e["payload"]["details"]["errors"][0]["rule"], "syntax");

    ws.send(Message::text(r#"{"id":"","type":"get_context_info"}"#))
        .await
        .unwrap();
    let e = expect_error(&mut ws).await;
    assert_eq!(e["payload"]["details"]["errors"][0]["pointer"], "/id");
    assert_eq!(e["payload"]["details"]["errors"][0]["rule"], "min_length");

    ws.send(Message::binary(vec![1u8; 10])).await.unwrap();
    let e = expect_error(&mut ws).await;
    assert_eq!(e["payload"]["details"]["frame"], "binary");

    ws.send(Message::text(
        r#"{"id":"y","type":"approval_response","payload":{"review":"yes"}}"#,
    ))
    .await
    .unwrap();
    let e = expect_error(&mut ws).await;
    assert_eq!(e["payload"]["details"]["got"], "client.approval_response");

    // Still serving.
    ws.send(Message::text(r#"{"id":"z","type":"get_context_info"}"#))
        .await
        .unwrap();
    let frame = timeout(WAIT, ws.next()).await.unwrap().unwrap().unwrap();
    let msg = al::ServerMessage::from_json(frame.into_text().unwrap().as_str()).unwrap();
    assert_eq!(msg.kind(), "context_info");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn the_client_reports_refused_inbound_frames_and_goes_on() {
    // A raw server that sends one invalid and one valid agentloop message.
    let listener = listener().await;
    let url = format!("ws://{}/", listener.local_addr().unwrap());
    let peer = tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.unwrap();
        let mut ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
        ws.send(Message::text(
            r#"{"id":"1","type":"loading_state","payload":{"loading":"yes"}}"#,
        ))
        .await
        .unwrap();
        ws.send(Message::text(r#"{"id":"2","type":"context_compacted","payload":{"oldTokenCount":10,"newTokenCount":5,"reductionPercent":50,"strategy":"s"}}"#))
            .await
            .unwrap();
        let _ = ws.next().await;
    });
    let mut client = al_skel::Client::connect(&url, ClientConfig::default())
        .await
        .unwrap();
    let first = timeout(WAIT, client.next()).await.unwrap().unwrap();
    assert!(matches!(first, Err(Refused::Invalid(_))), "{first:?}");
    let second = timeout(WAIT, client.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(second.kind(), "context_compacted");
    client.close().await;
    peer.await.unwrap();
}

#[tokio::test]
async fn connection_limit_and_frame_limit_hold() {
    let (server, _zed) = zed_server(ServerConfig {
        max_connections: 1,
        max_frame_bytes: 1024,
        ..ServerConfig::default()
    })
    .await;
    let (mut first, _) = tokio_tungstenite::connect_async(server.url())
        .await
        .unwrap();
    let refused = tokio_tungstenite::connect_async(server.url()).await;
    assert!(refused.is_err(), "a second connection got in");

    // An oversized frame ends its connection, which frees the slot.
    first.send(Message::text("x".repeat(4096))).await.unwrap();
    let ended = timeout(WAIT, async {
        while let Some(Ok(_)) = first.next().await {}
    })
    .await;
    assert!(ended.is_ok());
    timeout(WAIT, async {
        while server.live_connections() > 0 {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    })
    .await
    .unwrap();
    let mut client = hz_skel::Client::connect(&server.url(), ClientConfig::default())
        .await
        .unwrap();
    client
        .chat_message(chat("s", None, "hi", "r"))
        .await
        .unwrap();
    let ev = timeout(WAIT, client.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(ev.kind(), "context_created");
    client.close().await;
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn shutdown_closes_live_connections_and_stops_accepting() {
    let (server, _zed) = zed_server(ServerConfig::default()).await;
    let url = server.url();
    let mut client = hz_skel::Client::connect(&url, ClientConfig::default())
        .await
        .unwrap();
    timeout(WAIT, server.shutdown()).await.unwrap().unwrap();
    assert!(timeout(WAIT, client.next()).await.unwrap().is_none());
    assert!(
        hz_skel::Client::connect(&url, ClientConfig::default())
            .await
            .is_err()
    );
}

/// The correctness half of the load test (the throughput half is `bench/benches/ws_load.rs`):
/// concurrent sessions, one connection each, every snapshot arrives once and in order with
/// the checker on at both ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_sessions_lose_and_reorder_nothing() {
    const SESSIONS: usize = 20;
    const UPDATES: usize = 200;
    let (server, _zed) = zed_server(ServerConfig::default()).await;
    let url = server.url();
    let mut tasks = Vec::new();
    for s in 0..SESSIONS {
        let url = url.clone();
        tasks.push(tokio::spawn(async move {
            let mut client = hz_skel::Client::connect(&url, ClientConfig::default())
                .await
                .unwrap();
            let session = format!("ses_{s}");
            client
                .chat_message(chat(&session, None, &format!("stream {UPDATES}"), "r"))
                .await
                .unwrap();
            let mut added = 0;
            loop {
                let ev = client.next().await.unwrap().unwrap();
                match ev {
                    hz::ZedEvent::ContextCreated(c) => {
                        assert_eq!(added, 0);
                        assert_eq!(c.session_id, session);
                    }
                    hz::ZedEvent::MessageAdded(m) => {
                        added += 1;
                        assert_eq!(m.session_id, session);
                        assert_eq!(m.data.content.len(), added, "lost or reordered");
                    }
                    hz::ZedEvent::MessageCompleted(_) => break,
                }
            }
            client.close().await;
            added
        }));
    }
    for t in tasks {
        let added = timeout(WAIT * 3, t).await.unwrap().unwrap();
        assert_eq!(added, UPDATES);
    }
    server.shutdown().await.unwrap();
}

/// Every prefix of a valid frame, and the frame with each byte replaced by a few others:
/// deterministic garbage that exercises every decoding branch.
fn mangled(frame: &str) -> Vec<String> {
    let bytes = frame.as_bytes();
    let mut out: Vec<String> = (0..bytes.len())
        .map(|i| String::from_utf8_lossy(&bytes[..i]).into_owned())
        .collect();
    for i in 0..bytes.len() {
        for b in [b'"', b'{', b'0', b'\\', 0xff] {
            let mut m = bytes.to_vec();
            m[i] = b;
            out.push(String::from_utf8_lossy(&m).into_owned());
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mangled_frames_never_break_the_agentloop_server() {
    let server = agentloop_server(ServerConfig::default()).await;
    let (ws, _) = tokio_tungstenite::connect_async(server.url())
        .await
        .unwrap();
    let valid = r#"{"id":"u1","type":"user_input","payload":{"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}]}}"#;
    let frames = mangled(valid);
    let (mut tx, mut rx) = ws.split();
    let reader = tokio::spawn(async move {
        // Everything before the context_info is an error answer or part of a turn that a
        // mangled-but-valid frame started.
        let mut errors = 0usize;
        loop {
            let frame = timeout(WAIT, rx.next()).await.unwrap().unwrap().unwrap();
            let msg = al::ServerMessage::from_json(frame.into_text().unwrap().as_str()).unwrap();
            match msg.kind() {
                "error" => errors += 1,
                "context_info" => return errors,
                _ => {}
            }
        }
    });
    for f in &frames {
        tx.send(Message::text(f.clone())).await.unwrap();
    }
    tx.send(Message::text(r#"{"id":"last","type":"get_context_info"}"#))
        .await
        .unwrap();
    let errors = reader.await.unwrap();
    assert!(
        errors >= frames.len() / 2,
        "{errors} errors for {} frames",
        frames.len()
    );
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mangled_frames_never_break_the_zed_server() {
    let (server, zed) = zed_server(ServerConfig::default()).await;
    let (mut ws, _) = tokio_tungstenite::connect_async(server.url())
        .await
        .unwrap();
    let valid = r#"{"type":"chat_message","data":{"helix_session_id":"s1","acp_thread_id":null,"message":"m","request_id":"r1"}}"#;
    for f in mangled(valid) {
        ws.send(Message::text(f)).await.unwrap();
    }
    let last = hz::HelixMessage::ChatMessage(chat("final", None, "hi", "rf")).to_json();
    ws.send(Message::text(last)).await.unwrap();
    loop {
        let frame = timeout(WAIT, ws.next()).await.unwrap().unwrap().unwrap();
        let ev = hz::ZedEvent::from_json(frame.into_text().unwrap().as_str()).unwrap();
        if let hz::ZedEvent::MessageCompleted(done) = ev
            && done.session_id == "final"
        {
            break;
        }
    }
    assert!(
        zed.received
            .lock()
            .unwrap()
            .iter()
            .any(|m| m.data.helix_session_id == "final")
    );
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_is_not_held_up_by_a_peer_that_stopped_reading() {
    let (server, _zed) = zed_server(ServerConfig::default()).await;
    let (mut ws, _) = tokio_tungstenite::connect_async(server.url())
        .await
        .unwrap();
    let msg = hz::HelixMessage::ChatMessage(chat("s", None, "stream 100000", "r")).to_json();
    ws.send(Message::text(msg)).await.unwrap();
    // Wait until the reply has filled the socket buffers and the outbound queue.
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    timeout(WAIT, server.shutdown())
        .await
        .expect("shutdown finished in time")
        .unwrap();
    drop(ws);
}
