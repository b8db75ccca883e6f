//! Hostile peers against the external-agents agent server, loopback only: trickled headers
//! and bodies are cut off at their deadlines, a declared length over the limit is refused
//! from the header, a flood of 3,000 `user_message` frames at a hanging `inputUrl` opens only
//! the capped forwards (the rest shed as error lines), the optional shared token guards the
//! create, the callback and the WebSocket (and the generated clients present it), and
//! generated session ids are random.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use agentwire_protocols::external_agents as proto;
use agentwire_protocols::skeletons::external_agents as sk;
use agentwire_transport::CheckMode;
use agentwire_transport::http_ws::{ClientError, Guard, Limits, ServerConfig, ServerHandle};
use agentwire_transport::store::sessions::{SessionStore, SqliteSessionStore};
use futures_util::{SinkExt, StreamExt};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::{sleep, timeout};
use tokio_tungstenite::tungstenite::Message;

const BOUND: Duration = Duration::from_secs(20);
/// How long a debug build on a loaded machine may take to store and answer a flood.
const FLOOD_BOUND: Duration = Duration::from_secs(90);

/// An external system whose `inputUrl` never answers; counts the forwards that reached it.
struct Hanging(Arc<AtomicUsize>);

impl sk::ExternalSystemHandler for Hanging {
    async fn forward_input(&self, _: proto::ExternalInputPayload) -> Result<(), sk::HandlerError> {
        self.0.fetch_add(1, Ordering::SeqCst);
        sleep(Duration::from_secs(60)).await;
        Ok(())
    }
}

struct Rig {
    server: ServerHandle,
    external: ServerHandle,
    base: String,
    reached: Arc<AtomicUsize>,
    store: Arc<dyn SessionStore>,
}

async fn rig(guard: Guard) -> Rig {
    let reached = Arc::new(AtomicUsize::new(0));
    let ext_listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let input_url = format!("http://{}/v1/input", ext_listener.local_addr().unwrap());
    let external = sk::ExternalSystemServer::new(Hanging(reached.clone()))
        .serve(ext_listener, "/v1/input")
        .unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let agents = [proto::AgentConfig::External(proto::ExternalAgentConfig {
        agent_id: "ext-a".into(),
        display_name: "External A".into(),
        description: None,
        external: proto::ExternalAgentConfigExternal {
            input_url,
            callback_base_url: base.clone(),
        },
    })];
    let store: Arc<dyn SessionStore> = Arc::new(SqliteSessionStore::in_memory().unwrap());
    let config = ServerConfig {
        owners: sk::owners(&agents),
        limits: Limits {
            forward_timeout: Duration::from_secs(30),
            ..Limits::default()
        },
        mode: CheckMode::Enforce,
        guard,
    };
    let server = sk::AgentServer::new(config, store.clone())
        .serve(listener)
        .unwrap();
    Rig {
        server,
        external,
        base,
        reached,
        store,
    }
}

impl Rig {
    fn addr(&self) -> String {
        self.base.trim_start_matches("http://").to_owned()
    }

    async fn stop(self) {
        self.server.shutdown().await.unwrap();
        self.external.shutdown().await.unwrap();
    }
}

/// The texts of the session's error lines, read back from the stored broadcasts.
fn error_lines(store: &dyn SessionStore, session: &str) -> Vec<String> {
    store
        .log(session)
        .unwrap()
        .into_iter()
        .filter_map(
            |e| match proto::AgentServerMessage::from_json(&e.value.to_string()) {
                Ok(proto::AgentServerMessage::Message(m))
                    if m.role == proto::ChatMessageBroadcastRole::Error =>
                {
                    Some(m.text)
                }
                _ => None,
            },
        )
        .collect()
}

/// Whether the server has closed `s` (end of stream or reset), looking for 1 ms.
async fn closed(s: &mut TcpStream) -> bool {
    let mut b = [0u8; 256];
    matches!(
        timeout(Duration::from_millis(1), s.read(&mut b)).await,
        Ok(Ok(0) | Err(_))
    )
}

/// The whole answer on `s` until the server closes it, as text.
async fn answer(s: &mut TcpStream) -> String {
    let mut out = Vec::new();
    let _ = timeout(BOUND, s.read_to_end(&mut out))
        .await
        .expect("closed in time");
    String::from_utf8_lossy(&out).into_owned()
}

#[tokio::test]
async fn trickled_headers_are_cut_off_and_a_real_client_is_still_served() {
    let rig = rig(Guard {
        header_timeout: Duration::from_millis(500),
        ..Guard::default()
    })
    .await;
    let request = b"POST /api/plugins/sessions/operations/create HTTP/1.1\r\nHost: 127.0.0.1\r\n";
    let mut slow = Vec::new();
    for _ in 0..50 {
        let mut s = TcpStream::connect(rig.addr()).await.unwrap();
        s.write_all(&request[..1]).await.unwrap();
        slow.push(s);
    }
    let reply = sk::WebUiHttp::new(&rig.base)
        .create_session(&proto::CreateSessionRequest {
            agent_id: "ext-a".into(),
            session_id: None,
        })
        .await
        .unwrap();
    assert!(
        matches!(reply, sk::CreateSessionReply::Status201(_)),
        "{reply:?}"
    );
    let started = Instant::now();
    let mut open = slow.len();
    for step in 1..request.len() {
        sleep(Duration::from_millis(100)).await;
        open = 0;
        for s in &mut slow {
            if s.write_all(&request[step..=step]).await.is_ok() && !closed(s).await {
                open += 1;
            }
        }
        if open == 0 {
            break;
        }
    }
    assert_eq!(open, 0, "trickling connections still open");
    assert!(started.elapsed() < Duration::from_secs(4));
    rig.stop().await;
}

#[tokio::test]
async fn a_declared_length_over_the_limit_is_refused_before_any_body_byte() {
    let rig = rig(Guard::default()).await;
    let mut s = TcpStream::connect(rig.addr()).await.unwrap();
    s.write_all(
        b"POST /external/sessions/X/messages HTTP/1.1\r\nHost: 127.0.0.1\r\n\
          Content-Type: application/json\r\nContent-Length: 10000000000\r\n\r\n",
    )
    .await
    .unwrap();
    let started = Instant::now();
    let text = answer(&mut s).await;
    assert!(text.starts_with("HTTP/1.1 413"), "{text}");
    assert!(text.contains("payload_too_large"), "{text}");
    assert!(started.elapsed() < Duration::from_secs(3));
    rig.stop().await;
}

#[tokio::test]
async fn a_trickled_body_is_cut_off_at_the_body_deadline() {
    let rig = rig(Guard {
        body_timeout: Duration::from_millis(400),
        ..Guard::default()
    })
    .await;
    let mut s = TcpStream::connect(rig.addr()).await.unwrap();
    s.write_all(
        b"POST /api/plugins/sessions/operations/create HTTP/1.1\r\nHost: 127.0.0.1\r\n\
          Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{",
    )
    .await
    .unwrap();
    let started = Instant::now();
    let trickle = async {
        for _ in 0..50 {
            sleep(Duration::from_millis(100)).await;
            if s.write_all(b" ").await.is_err() {
                break;
            }
        }
    };
    let _ = timeout(Duration::from_secs(3), trickle).await;
    let text = answer(&mut s).await;
    assert!(text.starts_with("HTTP/1.1 413"), "{text}");
    assert!(started.elapsed() < Duration::from_secs(4));
    rig.stop().await;
}

/// Creates `session` and floods it with `count` `user_message` frames from one raw
/// WebSocket client as fast as it can write them, draining the server's frames meanwhile
/// (a client that stops reading is a different attack, answered by its own limit), until
/// `shed` of them are error lines.
async fn flood(rig: &Rig, session: &str, count: usize, shed: usize) {
    sk::WebUiHttp::new(&rig.base)
        .create_session(&proto::CreateSessionRequest {
            agent_id: "ext-a".into(),
            session_id: Some(proto::SessionId(session.into())),
        })
        .await
        .unwrap();
    let url = format!("{}/ws", rig.base.replacen("http", "ws", 1));
    let (mut ws, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    let hello = format!(r#"{{"type":"hello","sessionId":"{session}"}}"#);
    ws.send(Message::text(hello)).await.unwrap();
    let ready = timeout(BOUND, ws.next()).await.unwrap().unwrap().unwrap();
    assert!(
        ready.to_text().unwrap().contains("session_ready"),
        "{ready}"
    );
    let (mut sink, mut stream) = ws.split();
    let drain = tokio::spawn(async move { while let Some(Ok(_)) = stream.next().await {} });
    for i in 0..count {
        let frame = format!(r#"{{"type":"user_message","text":"m{i}"}}"#);
        sink.feed(Message::text(frame)).await.unwrap();
    }
    sink.flush().await.unwrap();
    // Every message is stored and the `shed` ones end as an error line at once.
    let deadline = Instant::now() + FLOOD_BOUND;
    while error_lines(&*rig.store, session).len() < shed && Instant::now() < deadline {
        sleep(Duration::from_millis(50)).await;
    }
    let _ = sink.close().await;
    drain.abort();
}

#[tokio::test]
async fn a_flood_of_user_messages_to_a_hanging_input_url_opens_a_capped_number_of_forwards() {
    // The campaign's attack: 3,000 user_message frames at an inputUrl that never answers
    // opened 3,000 outbound connections. Per-session cap at its default (8), total at 12.
    let rig = rig(Guard {
        max_forwards: 12,
        ..Guard::default()
    })
    .await;
    let per_session = Guard::default().max_forwards_per_session;
    flood(&rig, "FLOOD", 3_000, 3_000 - per_session).await;
    let log = error_lines(&*rig.store, "FLOOD");
    assert_eq!(log.len(), 3_000 - per_session);
    assert!(
        log.iter()
            .all(|text| text.contains("forwards of this session are already in flight")),
        "the shed answer names the cap"
    );
    // A second session meets the total cap: 4 more slots, the rest shed.
    flood(&rig, "SECOND", 100, 100 - 4).await;
    let log = error_lines(&*rig.store, "SECOND");
    assert_eq!(log.len(), 100 - 4);
    assert!(
        log.iter()
            .all(|text| text.contains("12 forwards are already in flight")),
        "{:?}",
        log.first()
    );
    sleep(Duration::from_millis(200)).await;
    assert_eq!(
        rig.reached.load(Ordering::SeqCst),
        12,
        "only the capped number of forwards went out"
    );
    rig.stop().await;
}

#[tokio::test]
async fn the_shared_token_guards_the_create_the_callback_and_the_websocket() {
    let rig = rig(Guard {
        token: Some("s3cret".into()),
        ..Guard::default()
    })
    .await;
    let http = reqwest::Client::new();
    // Creating a session is guarded like the rest: it adds state.
    let create = || {
        http.post(format!(
            "{}/api/plugins/sessions/operations/create",
            rig.base
        ))
        .body(r#"{"agentId":"ext-a","sessionId":"AUTH"}"#)
        .header("content-type", "application/json")
    };
    assert_eq!(create().send().await.unwrap().status(), 401);
    let created = create().bearer_auth("s3cret").send().await.unwrap();
    assert_eq!(created.status(), 201);
    let callback = format!("{}/external/sessions/AUTH/messages", rig.base);
    let body = "**hi**";
    for auth in [
        None,
        Some("Bearer wrong"),
        Some("Bearer s3cre"),
        Some("Basic s3cret"),
    ] {
        let mut req = http
            .post(&callback)
            .body(body)
            .header("content-type", "text/plain");
        if let Some(a) = auth {
            req = req.header("authorization", a);
        }
        assert_eq!(req.send().await.unwrap().status(), 401, "{auth:?}");
    }
    // In the URL the token would land in access logs: only the WebSocket takes it there.
    let in_url = http
        .post(format!("{callback}?token=s3cret"))
        .body(body)
        .header("content-type", "text/plain")
        .send()
        .await
        .unwrap();
    assert_eq!(in_url.status(), 401);
    let ok = http
        .post(&callback)
        .body(body)
        .header("content-type", "text/plain")
        .header("authorization", "Bearer s3cret")
        .send()
        .await
        .unwrap();
    assert!(ok.status().is_success(), "{}", ok.status());
    let ws = format!("{}/ws", rig.base.replacen("http", "ws", 1));
    assert!(
        sk::WebUiClient::connect(&ws, CheckMode::Enforce)
            .await
            .is_err()
    );
    let with_token = format!("{ws}?token=s3cret");
    assert!(
        sk::WebUiClient::connect(&with_token, CheckMode::Enforce)
            .await
            .is_ok()
    );
    rig.stop().await;
}

#[tokio::test]
async fn the_generated_clients_present_the_shared_token() {
    let rig = rig(Guard {
        token: Some("s3cret".into()),
        ..Guard::default()
    })
    .await;
    let created = sk::WebUiHttp::new(&rig.base)
        .with_token("s3cret")
        .unwrap()
        .create_session(&proto::CreateSessionRequest {
            agent_id: "ext-a".into(),
            session_id: Some(proto::SessionId("TOK".into())),
        })
        .await
        .unwrap();
    assert!(
        matches!(created, sk::CreateSessionReply::Status201(_)),
        "{created:?}"
    );
    // The WebSocket: refused without the token and with a wrong one, then attached with it.
    let ws = format!("{}/ws", rig.base.replacen("http", "ws", 1));
    let refused = [
        sk::WebUiClient::connect(&ws, CheckMode::Enforce).await,
        sk::WebUiClient::connect_with_token(&ws, "s3cre", CheckMode::Enforce).await,
    ];
    for attempt in refused {
        let err = attempt.unwrap_err();
        assert!(err.to_string().contains("401"), "{err}");
    }
    let mut ui = sk::WebUiClient::connect_with_token(&ws, "s3cret", CheckMode::Enforce)
        .await
        .unwrap();
    ui.hello(proto::HelloMessage {
        session_id: proto::SessionId("TOK".into()),
    })
    .await
    .unwrap();
    let ready = timeout(BOUND, ui.next()).await.unwrap().unwrap().unwrap();
    assert!(
        matches!(ready, proto::AgentServerMessage::SessionReady(_)),
        "{ready:?}"
    );
    // The callback: the documented 401 without the token and with a wrong one.
    let wrong = [
        sk::ExternalSystemHttp::new(&rig.base),
        sk::ExternalSystemHttp::new(&rig.base)
            .with_token("S3CRET")
            .unwrap(),
    ];
    for client in &wrong {
        match client.inject_message("TOK", "**no**").await.unwrap() {
            sk::InjectMessageReply::Status401(e) => {
                assert_eq!(e.error.code, proto::ApiErrorCode::InvalidRequest);
                assert_eq!(e.error.message, "a valid token is required");
            }
            other => panic!("{other:?}"),
        }
    }
    // With it, end to end: stored, and broadcast to the attached web UI.
    let external = sk::ExternalSystemHttp::new(&rig.base)
        .with_token("s3cret")
        .unwrap();
    let reply = external.inject_message("TOK", "**hi**").await.unwrap();
    assert!(
        matches!(reply, sk::InjectMessageReply::Status200(_)),
        "{reply:?}"
    );
    let broadcast = timeout(BOUND, ui.next()).await.unwrap().unwrap().unwrap();
    let proto::AgentServerMessage::Message(m) = broadcast else {
        panic!("{broadcast:?}");
    };
    assert_eq!(
        (m.role, m.text.as_str()),
        (proto::ChatMessageBroadcastRole::Assistant, "**hi**")
    );
    // A token no header can carry is refused before anything is sent.
    assert!(matches!(
        sk::ExternalSystemHttp::new(&rig.base).with_token("a\nb"),
        Err(ClientError::Token)
    ));
    rig.stop().await;
}

#[tokio::test]
async fn generated_session_ids_are_random_128_bit() {
    let rig = rig(Guard::default()).await;
    let mut ids = Vec::new();
    for _ in 0..2 {
        let reply = sk::WebUiHttp::new(&rig.base)
            .create_session(&proto::CreateSessionRequest {
                agent_id: "ext-a".into(),
                session_id: None,
            })
            .await
            .unwrap();
        let sk::CreateSessionReply::Status201(created) = reply else {
            panic!("{reply:?}");
        };
        ids.push(created.result.session_id.0);
    }
    assert_ne!(ids[0], ids[1]);
    for id in &ids {
        assert_eq!(id.len(), 33, "{id}");
        assert!(id.starts_with('s') && id[1..].bytes().all(|b| b.is_ascii_hexdigit()));
    }
    rig.stop().await;
}

#[tokio::test]
async fn a_websocket_frame_that_is_not_utf8_is_closed_with_1007() {
    let rig = rig(Guard::default()).await;
    let mut s = TcpStream::connect(rig.addr()).await.unwrap();
    s.write_all(
        b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
          Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
    )
    .await
    .unwrap();
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        let mut b = [0u8; 1];
        assert_eq!(s.read(&mut b).await.unwrap(), 1);
        head.push(b[0]);
    }
    assert!(head.starts_with(b"HTTP/1.1 101"));
    // A masked (zero key) text frame whose payload is not UTF-8.
    s.write_all(&[0x81, 0x82, 0, 0, 0, 0, 0xff, 0xfe])
        .await
        .unwrap();
    let mut frame = Vec::new();
    let _ = timeout(BOUND, s.read_to_end(&mut frame)).await.unwrap();
    // The server's close frame: opcode 8, then the status code.
    let close = frame
        .windows(2)
        .position(|w| w[0] == 0x88)
        .expect("a close frame");
    assert_eq!(&frame[close + 2..close + 4], &1007u16.to_be_bytes());
    rig.stop().await;
}
