//! The generated external_agents skeletons end to end over loopback: web UI WebSocket ->
//! agent server -> `inputUrl` receiver -> callback -> broadcast; forward failures; refused
//! frames; limits; shutdown; and a restart over the same SQLite file.

use std::sync::Arc;
use std::time::Duration;

use agentwire_protocols::external_agents as proto;
use agentwire_protocols::skeletons::external_agents as sk;
use agentwire_transport::CheckMode;
use agentwire_transport::http_ws::{Limits, ServerConfig, ServerHandle};
use agentwire_transport::store::sessions::{SessionStore, SqliteSessionStore};
use tokio::sync::mpsc;

/// What the test's external system does with each forwarded input.
#[derive(Clone, Copy)]
enum Behaviour {
    Accept,
    Fail500,
    Hang,
}

struct Ext {
    tx: mpsc::UnboundedSender<proto::ExternalInputPayload>,
    behaviour: Behaviour,
}

impl sk::ExternalSystemHandler for Ext {
    async fn forward_input(
        &self,
        body: proto::ExternalInputPayload,
    ) -> Result<(), sk::HandlerError> {
        let _ = self.tx.send(body);
        match self.behaviour {
            Behaviour::Accept => Ok(()),
            Behaviour::Fail500 => Err(sk::HandlerError::new(500, "agent is down")),
            Behaviour::Hang => {
                tokio::time::sleep(Duration::from_secs(30)).await;
                Ok(())
            }
        }
    }
}

struct Rig {
    agent: sk::AgentServer,
    server: ServerHandle,
    external: ServerHandle,
    base: String,
    inputs: mpsc::UnboundedReceiver<proto::ExternalInputPayload>,
}

impl Rig {
    fn ws(&self) -> String {
        format!("{}/ws", self.base.replacen("http", "ws", 1))
    }

    async fn stop(self) {
        // The server's own output must have passed its sequence checkers throughout.
        assert_eq!(self.agent.violations(), 0);
        self.server.shutdown().await.unwrap();
        self.external.shutdown().await.unwrap();
    }
}

async fn rig(
    store: Arc<dyn SessionStore>,
    behaviour: Behaviour,
    limits: Limits,
    mode: CheckMode,
) -> Rig {
    let (tx, inputs) = mpsc::unbounded_channel();
    let ext_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let input_url = format!("http://{}/v1/input", ext_listener.local_addr().unwrap());
    let external = sk::ExternalSystemServer::new(Ext { tx, behaviour })
        .serve(ext_listener, "/v1/input")
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let agents = vec![
        proto::AgentConfig::External(proto::ExternalAgentConfig {
            agent_id: "ext-a".into(),
            display_name: "External A".into(),
            description: None,
            external: proto::ExternalAgentConfigExternal {
                input_url,
                callback_base_url: base.clone(),
            },
        }),
        proto::AgentConfig::Chat(proto::ChatAgentConfig {
            agent_id: "chat-b".into(),
            display_name: "Chat B".into(),
            description: None,
        }),
    ];
    let config = ServerConfig {
        owners: sk::owners(&agents),
        limits,
        mode,
        guard: Default::default(),
    };
    let agent = sk::AgentServer::new(config, store);
    let server = agent.serve(listener).unwrap();
    Rig {
        agent,
        server,
        external,
        base,
        inputs,
    }
}

async fn next(ui: &mut sk::WebUiClient) -> proto::AgentServerMessage {
    tokio::time::timeout(Duration::from_secs(5), ui.next())
        .await
        .expect("a frame in time")
        .expect("connection open")
        .expect("valid, in-sequence frame")
}

fn sid(s: &str) -> proto::SessionId {
    proto::SessionId(s.into())
}

async fn create(base: &str, agent: &str, session: &str) -> sk::CreateSessionReply {
    sk::WebUiHttp::new(base)
        .create_session(&proto::CreateSessionRequest {
            agent_id: agent.into(),
            session_id: Some(sid(session)),
        })
        .await
        .unwrap()
}

async fn attached(rig: &Rig, session: &str) -> sk::WebUiClient {
    let mut ui = sk::WebUiClient::connect(&rig.ws(), CheckMode::Enforce)
        .await
        .unwrap();
    ui.hello(proto::HelloMessage {
        session_id: sid(session),
    })
    .await
    .unwrap();
    match next(&mut ui).await {
        proto::AgentServerMessage::SessionReady(r) => assert_eq!(r.session_id.0, session),
        other => panic!("expected session_ready, got {other:?}"),
    }
    ui
}

fn chat(msg: proto::AgentServerMessage) -> proto::ChatMessageBroadcast {
    match msg {
        proto::AgentServerMessage::Message(m) => m,
        other => panic!("expected a message, got {other:?}"),
    }
}

fn ws_error(msg: proto::AgentServerMessage) -> proto::WsErrorCode {
    match msg {
        proto::AgentServerMessage::Error(e) => e.code,
        other => panic!("expected an error frame, got {other:?}"),
    }
}

/// The session's conversation log, as the broadcasts it stored.
fn log(store: &dyn SessionStore, session: &str) -> Vec<proto::ChatMessageBroadcast> {
    store
        .log(session)
        .unwrap()
        .into_iter()
        .map(|e| chat(proto::AgentServerMessage::from_json(&e.value.to_string()).unwrap()))
        .collect()
}

fn memory() -> Arc<dyn SessionStore> {
    Arc::new(SqliteSessionStore::in_memory().unwrap())
}

#[tokio::test]
async fn user_message_is_forwarded_and_the_callback_reaches_every_attached_client() {
    let mut rig = rig(
        memory(),
        Behaviour::Accept,
        Limits::default(),
        CheckMode::Enforce,
    )
    .await;
    assert!(matches!(
        create(&rig.base, "ext-a", "E2E-1").await,
        sk::CreateSessionReply::Status201(_)
    ));
    let mut ui = attached(&rig, "E2E-1").await;
    let mut other = attached(&rig, "E2E-1").await;

    ui.user_message(proto::UserMessageMessage {
        text: "hello".into(),
    })
    .await
    .unwrap();
    let echo = chat(next(&mut ui).await);
    assert_eq!(
        (echo.role, echo.text.as_str()),
        (proto::ChatMessageBroadcastRole::User, "hello")
    );
    assert_eq!(chat(next(&mut other).await), echo);

    let input = tokio::time::timeout(Duration::from_secs(5), rig.inputs.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(input.session_id.0, "E2E-1");
    assert_eq!(input.agent_id, "ext-a");
    assert_eq!(input.message.text, "hello");
    assert_eq!(input.message.created_at, echo.created_at);
    assert_eq!(
        input.callback_url,
        format!("{}/external/sessions/E2E-1/messages", rig.base)
    );

    // The external system answers through the callback URL it was given.
    let reply = sk::ExternalSystemHttp::new(&rig.base)
        .inject_message("E2E-1", "**done**")
        .await
        .unwrap();
    assert!(
        matches!(reply, sk::InjectMessageReply::Status200(_)),
        "{reply:?}"
    );
    for client in [&mut ui, &mut other] {
        let m = chat(next(client).await);
        assert_eq!(
            (m.role, m.text.as_str()),
            (proto::ChatMessageBroadcastRole::Assistant, "**done**")
        );
    }
    rig.stop().await;
}

async fn forward_failure_injects_an_error_line(behaviour: Behaviour, expect: &str) {
    let limits = Limits {
        forward_timeout: Duration::from_millis(300),
        ..Limits::default()
    };
    let store = memory();
    let rig = rig(store.clone(), behaviour, limits, CheckMode::Enforce).await;
    create(&rig.base, "ext-a", "FAIL-1").await;
    let mut ui = attached(&rig, "FAIL-1").await;
    ui.user_message(proto::UserMessageMessage {
        text: "ping".into(),
    })
    .await
    .unwrap();
    assert_eq!(
        chat(next(&mut ui).await).role,
        proto::ChatMessageBroadcastRole::User
    );
    let err = chat(next(&mut ui).await);
    assert_eq!(err.role, proto::ChatMessageBroadcastRole::Error);
    assert!(err.text.contains(expect), "{}", err.text);
    let roles: Vec<proto::ChatMessageBroadcastRole> =
        log(&*store, "FAIL-1").iter().map(|e| e.role).collect();
    assert_eq!(
        roles,
        [
            proto::ChatMessageBroadcastRole::User,
            proto::ChatMessageBroadcastRole::Error
        ]
    );
    rig.stop().await;
}

#[tokio::test]
async fn a_non_2xx_forward_injects_an_error_message() {
    forward_failure_injects_an_error_line(Behaviour::Fail500, "HTTP 500").await;
}

#[tokio::test]
async fn a_forward_timeout_injects_an_error_message() {
    forward_failure_injects_an_error_line(Behaviour::Hang, "did not answer within").await;
}

#[tokio::test]
async fn refused_frames_get_error_frames_and_the_connection_keeps_working() {
    for mode in [CheckMode::Enforce, CheckMode::Warn, CheckMode::Off] {
        let rig = rig(memory(), Behaviour::Accept, Limits::default(), mode).await;
        create(&rig.base, "chat-b", "BAD-1").await;
        // A raw client: the typed one would refuse to send these.
        let (mut ws, _) = tokio_tungstenite::connect_async(rig.ws()).await.unwrap();
        use futures_util::{SinkExt, StreamExt};
        use tokio_tungstenite::tungstenite::Message as M;
        let mut ask = async |frame: &str| -> proto::AgentServerMessage {
            ws.send(M::text(frame.to_owned())).await.unwrap();
            let got = tokio::time::timeout(Duration::from_secs(5), ws.next())
                .await
                .unwrap_or_else(|_| panic!("no answer to {frame:.80} in {mode:?}"));
            let text = got.unwrap().unwrap().into_text().unwrap();
            proto::AgentServerMessage::from_json(text.as_str()).unwrap()
        };
        let cases = [
            (
                r#"{"type":"user_message","text":"too early"}"#,
                proto::WsErrorCode::HelloRequired,
            ),
            ("not json", proto::WsErrorCode::InvalidMessage),
            (r#"{"type":"shout"}"#, proto::WsErrorCode::InvalidMessage),
            (
                r#"{"type":"user_message","text":""}"#,
                proto::WsErrorCode::InvalidMessage,
            ),
            (
                r#"{"type":"hello","sessionId":"a/b"}"#,
                proto::WsErrorCode::InvalidSessionId,
            ),
            (
                r#"{"type":"hello","sessionId":"NOPE"}"#,
                proto::WsErrorCode::SessionNotFound,
            ),
        ];
        for (frame, code) in cases {
            assert_eq!(ws_error(ask(frame).await), code, "{frame} in {mode:?}");
        }
        let oversized = format!(
            r#"{{"type":"user_message","text":"{}"}}"#,
            "x".repeat(70_000)
        );
        assert_eq!(
            ws_error(ask(&oversized).await),
            proto::WsErrorCode::InvalidMessage
        );
        // Still usable: attach (trimmed id), then talk.
        let ready = ask(r#"{"type":"hello","sessionId":" BAD-1 "}"#).await;
        assert!(
            matches!(ready, proto::AgentServerMessage::SessionReady(_)),
            "{ready:?}"
        );
        let echo = chat(ask(r#"{"type":"user_message","text":"hi"}"#).await);
        assert_eq!(echo.text, "hi");
        rig.stop().await;
    }
}

#[tokio::test]
async fn connection_and_body_limits_are_enforced() {
    let limits = Limits {
        max_connections: 1,
        max_body_bytes: 48,
        max_sessions: 1,
        ..Limits::default()
    };
    let rig = rig(memory(), Behaviour::Accept, limits, CheckMode::Enforce).await;
    assert!(matches!(
        create(&rig.base, "ext-a", "L-1").await,
        sk::CreateSessionReply::Status201(_)
    ));
    match create(&rig.base, "ext-a", "L-2").await {
        sk::CreateSessionReply::Status503(e) => {
            assert_eq!(e.error.code, proto::ApiErrorCode::InvalidRequest);
        }
        other => panic!("expected 503 past the session limit, got {other:?}"),
    }
    let _first = attached(&rig, "L-1").await;
    assert!(
        sk::WebUiClient::connect(&rig.ws(), CheckMode::Enforce)
            .await
            .is_err()
    );
    match sk::ExternalSystemHttp::new(&rig.base)
        .inject_message("L-1", &"a reply longer than the body limit ".repeat(2))
        .await
        .unwrap()
    {
        sk::InjectMessageReply::Status413(e) => {
            assert_eq!(e.error.code, proto::ApiErrorCode::PayloadTooLarge);
        }
        other => panic!("expected 413, got {other:?}"),
    }
    rig.stop().await;
}

#[tokio::test]
async fn shutdown_closes_open_websockets() {
    let rig = rig(
        memory(),
        Behaviour::Accept,
        Limits::default(),
        CheckMode::Enforce,
    )
    .await;
    create(&rig.base, "ext-a", "SD-1").await;
    let mut ui = attached(&rig, "SD-1").await;
    let stop = tokio::spawn(rig.stop());
    let end = tokio::time::timeout(Duration::from_secs(5), ui.next())
        .await
        .unwrap();
    assert!(end.is_none(), "expected the close, got {end:?}");
    tokio::time::timeout(Duration::from_secs(5), stop)
        .await
        .unwrap()
        .unwrap();
}

#[tokio::test]
async fn a_restarted_server_keeps_sessions_and_conversations() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agent-server.sqlite");
    let open = || -> Arc<dyn SessionStore> { Arc::new(SqliteSessionStore::open(&path).unwrap()) };

    let mut first = rig(
        open(),
        Behaviour::Accept,
        Limits::default(),
        CheckMode::Enforce,
    )
    .await;
    create(&first.base, "ext-a", "KEEP-1").await;
    let mut ui = attached(&first, "KEEP-1").await;
    ui.user_message(proto::UserMessageMessage {
        text: "before".into(),
    })
    .await
    .unwrap();
    chat(next(&mut ui).await);
    first.inputs.recv().await.unwrap();
    sk::ExternalSystemHttp::new(&first.base)
        .inject_message("KEEP-1", "reply 1")
        .await
        .unwrap();
    chat(next(&mut ui).await);
    first.stop().await;

    // A new server instance over the same file: a fresh checker, the same state.
    let mut second = rig(
        open(),
        Behaviour::Accept,
        Limits::default(),
        CheckMode::Enforce,
    )
    .await;
    match create(&second.base, "ext-a", "KEEP-1").await {
        sk::CreateSessionReply::Status200(r) => assert_eq!(r.result.agent_id, "ext-a"),
        other => panic!("expected attach, got {other:?}"),
    }
    match create(&second.base, "chat-b", "KEEP-1").await {
        sk::CreateSessionReply::Status409(e) => {
            assert_eq!(e.error.code, proto::ApiErrorCode::SessionAgentMismatch);
        }
        other => panic!("expected 409, got {other:?}"),
    }
    let reply = sk::ExternalSystemHttp::new(&second.base)
        .inject_message("KEEP-1", "reply 2")
        .await
        .unwrap();
    assert!(matches!(reply, sk::InjectMessageReply::Status200(_)));
    let mut ui = attached(&second, "KEEP-1").await;
    ui.user_message(proto::UserMessageMessage {
        text: "after".into(),
    })
    .await
    .unwrap();
    chat(next(&mut ui).await);
    assert_eq!(second.inputs.recv().await.unwrap().message.text, "after");
    use proto::ChatMessageBroadcastRole::{Assistant, User};
    let log: Vec<(proto::ChatMessageBroadcastRole, String)> = log(&*open(), "KEEP-1")
        .into_iter()
        .map(|e| (e.role, e.text))
        .collect();
    assert_eq!(
        log,
        [
            (User, "before".to_owned()),
            (Assistant, "reply 1".to_owned()),
            (Assistant, "reply 2".to_owned()),
            (User, "after".to_owned()),
        ]
    );
    second.stop().await;
}

#[test]
fn arbitrary_frames_each_get_one_answer_and_never_break_the_connection() {
    use futures_util::{SinkExt, StreamExt};
    use proptest::prelude::*;
    use tokio_tungstenite::tungstenite::Message as M;

    let rt = tokio::runtime::Runtime::new().unwrap();
    let (rig, ws) = rt.block_on(async {
        let rig = rig(
            memory(),
            Behaviour::Accept,
            Limits::default(),
            CheckMode::Enforce,
        )
        .await;
        let (ws, _) = tokio_tungstenite::connect_async(rig.ws()).await.unwrap();
        (rig, ws)
    });
    let ws = tokio::sync::Mutex::new(ws);
    // Frames near the protocol's shape find more paths than plain noise.
    let frame = prop_oneof![
        any::<String>(),
        "[a-z_]{0,12}".prop_map(|t| format!(r#"{{"type":"{t}"}}"#)),
        "\\PC{0,40}".prop_map(|id| format!(r#"{{"type":"hello","sessionId":{id:?}}}"#)),
        any::<String>().prop_map(|t| format!(r#"{{"type":"user_message","text":{t:?},"x":1}}"#)),
    ];
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(64));
    runner
        .run(&frame, |text| {
            rt.block_on(async {
                let mut ws = ws.lock().await;
                ws.send(M::text(text.clone())).await.unwrap();
                let got = tokio::time::timeout(Duration::from_secs(5), ws.next())
                    .await
                    .expect("an answer in time")
                    .expect("connection open")
                    .expect("a frame");
                let msg = proto::AgentServerMessage::from_json(got.into_text().unwrap().as_str())
                    .expect("a valid server frame");
                prop_assert!(
                    matches!(msg, proto::AgentServerMessage::Error(_)),
                    "{text:?} -> {msg:?}"
                );
                Ok(())
            })
        })
        .unwrap();
    rt.block_on(rig.stop());
}

#[tokio::test]
async fn a_hello_sent_right_after_a_user_message_is_answered_after_its_echo() {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message as M;

    let rig = rig(
        memory(),
        Behaviour::Accept,
        Limits::default(),
        CheckMode::Enforce,
    )
    .await;
    create(&rig.base, "chat-b", "R-0").await;
    create(&rig.base, "chat-b", "R-1").await;
    let (mut ws, _) = tokio_tungstenite::connect_async(rig.ws()).await.unwrap();
    ws.send(M::text(r#"{"type":"hello","sessionId":"R-0"}"#))
        .await
        .unwrap();
    for i in 0..20 {
        let (from, to) = (format!("R-{}", i % 2), format!("R-{}", (i + 1) % 2));
        // Both frames leave before anything is read back.
        ws.send(M::text(format!(
            r#"{{"type":"user_message","text":"m{i}"}}"#
        )))
        .await
        .unwrap();
        ws.send(M::text(format!(r#"{{"type":"hello","sessionId":"{to}"}}"#)))
            .await
            .unwrap();
        let mut answers = Vec::new();
        while answers.len() < if i == 0 { 3 } else { 2 } {
            let got = tokio::time::timeout(Duration::from_secs(5), ws.next())
                .await
                .unwrap();
            let text = got.unwrap().unwrap().into_text().unwrap();
            answers.push(proto::AgentServerMessage::from_json(text.as_str()).unwrap());
        }
        let answers = if i == 0 {
            answers.split_off(1)
        } else {
            answers
        };
        let echo = chat(answers[0].clone());
        assert_eq!(
            (echo.session_id.0.as_str(), echo.text.as_str()),
            (from.as_str(), format!("m{i}").as_str())
        );
        match &answers[1] {
            proto::AgentServerMessage::SessionReady(r) => assert_eq!(r.session_id.0, to),
            other => panic!("round {i}: expected session_ready, got {other:?}"),
        }
    }
    rig.stop().await;
}
