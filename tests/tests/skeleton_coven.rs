//! The generated coven skeletons against each other and against a raw tonic client that
//! sends what the typed API cannot: registration rules, limits, bad input on one stream
//! leaving the others working, feature gating, one request at a time, enforce mode on
//! outbound messages, a clean shutdown, and one client (one peer address) that cannot take
//! every stream.

use std::time::Duration;

use agentwire_protocols::coven::{
    AgentMessage, CancelRequest, Heartbeat, InjectContext, MessageResponse, RegisterAgent,
    RegistrationError, SendMessage, ServerMessage, Welcome, agent_message, message_response,
    server_message,
};
use agentwire_protocols::skeletons::coven::coven_control_client::CovenControlClient;
use agentwire_protocols::skeletons::coven::{
    AgentConfig, AgentHandle, AgentHandler, Gateway, GatewayConfig, GatewayHandler, Reply,
    RunningAgent, connect,
};
use agentwire_transport::CheckMode;
use agentwire_transport::grpc::{ConnectError, GrpcLimits, SendError};
use agentwire_transport::tokio;
use agentwire_transport::tonic::{Code, Status, Streaming};
use tokio::sync::mpsc;

const LIMIT: Duration = Duration::from_secs(30);

/// Welcomes everyone except agent ids starting with `banned` (refused) or `stall` (never
/// answered).
struct Gw {
    connected: mpsc::UnboundedSender<AgentHandle>,
}

impl GatewayHandler for Gw {
    async fn on_register(&self, register: &RegisterAgent) -> Result<Welcome, RegistrationError> {
        if register.agent_id.starts_with("stall") {
            std::future::pending::<()>().await;
        }
        if register.agent_id.starts_with("banned") {
            return Err(RegistrationError {
                reason: "not approved".to_owned(),
                suggested_id: "guest".to_owned(),
            });
        }
        Ok(Welcome {
            server_id: "gw".to_owned(),
            ..Welcome::default()
        })
    }

    async fn on_connected(&self, agent: AgentHandle) {
        let _ = self.connected.send(agent);
    }
}

struct Running {
    gateway: Gateway<Gw>,
    addr: String,
    connected: mpsc::UnboundedReceiver<AgentHandle>,
    server: tokio::task::JoinHandle<Result<(), agentwire_transport::tonic::transport::Error>>,
}

async fn start(mut config: GatewayConfig) -> Running {
    // Raw streams in these tests never close on their own; keep shutdowns short.
    config.shutdown_grace = Duration::from_millis(300);
    let (tx, connected) = mpsc::unbounded_channel();
    let gateway = Gateway::new(Gw { connected: tx }, config);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = format!("http://{}", listener.local_addr().unwrap());
    let server = tokio::spawn(gateway.clone().serve(listener));
    Running {
        gateway,
        addr,
        connected,
        server,
    }
}

/// Answers "a" "b" then done; `silent` returns without a terminal event; `panic` panics;
/// `delay` answers after 200 ms; `slow` waits for a cancellation.
struct Echo;

impl AgentHandler for Echo {
    async fn on_send_message(&self, msg: SendMessage, mut reply: Reply) {
        match msg.content.as_str() {
            "silent" => {}
            "panic" => panic!("a handler bug"),
            "delay" => {
                tokio::time::sleep(Duration::from_millis(200)).await;
                let _ = reply.done("late").await;
            }
            "slow" => reply.cancelled().await,
            _ => {
                let _ = reply.text("a").await;
                let _ = reply.text("b").await;
                let _ = reply.done("ab").await;
            }
        }
    }
}

fn register(id: &str, features: &[&str]) -> RegisterAgent {
    RegisterAgent {
        agent_id: id.to_owned(),
        name: id.to_owned(),
        protocol_features: features.iter().map(|f| (*f).to_owned()).collect(),
        ..RegisterAgent::default()
    }
}

async fn agent(addr: &str, id: &str, features: &[&str]) -> RunningAgent {
    connect(
        addr.to_owned(),
        AgentConfig::new(register(id, features)),
        Echo,
    )
    .await
    .unwrap()
}

fn request(id: &str, content: &str) -> SendMessage {
    SendMessage {
        request_id: id.to_owned(),
        content: content.to_owned(),
        ..SendMessage::default()
    }
}

fn events(rs: &[MessageResponse]) -> Vec<&message_response::Event> {
    rs.iter().filter_map(|r| r.event.as_ref()).collect()
}

/// A raw stream: the messages go out as given, the answers come back unchecked.
async fn raw(
    addr: &str,
    msgs: Vec<AgentMessage>,
) -> (
    mpsc::Sender<AgentMessage>,
    Result<Streaming<ServerMessage>, Status>,
) {
    let (tx, rx) = mpsc::channel(16);
    for m in msgs {
        tx.send(m).await.unwrap();
    }
    let mut client = CovenControlClient::connect(addr.to_owned()).await.unwrap();
    let out =
        futures_util::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|m| (m, rx)) });
    let r = client.agent_stream(out).await.map(|r| r.into_inner());
    (tx, r)
}

/// The status that ends `stream` (or refused to open it), reading past any messages.
async fn final_status(stream: Result<Streaming<ServerMessage>, Status>) -> Status {
    let mut stream = match stream {
        Ok(s) => s,
        Err(refused) => return refused,
    };
    loop {
        match stream.message().await {
            Ok(Some(_)) => continue,
            Ok(None) => return Status::ok(""),
            Err(s) => return s,
        }
    }
}

fn reg_msg(id: &str) -> AgentMessage {
    AgentMessage {
        payload: Some(agent_message::Payload::Register(register(id, &[]))),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_streams_to_its_terminal_event() {
    tokio::time::timeout(LIMIT, async {
        let mut gw = start(GatewayConfig::default()).await;
        let running = agent(&gw.addr, "a1", &[]).await;
        assert_eq!(
            running.session().welcome().agent_id,
            "a1",
            "empty welcome id filled in"
        );
        let handle = gw.connected.recv().await.unwrap();
        let answer = handle
            .send_message(request("r1", "hi"))
            .await
            .unwrap()
            .collect()
            .await;
        assert_eq!(
            events(&answer),
            [
                &message_response::Event::Text("a".to_owned()),
                &message_response::Event::Text("b".to_owned()),
                &message_response::Event::Done(agentwire_protocols::coven::Done {
                    full_response: "ab".to_owned()
                }),
            ]
        );
        // A handler that returns without a terminal event still ends its request.
        let answer = handle
            .send_message(request("r2", "silent"))
            .await
            .unwrap()
            .collect()
            .await;
        assert!(
            matches!(events(&answer)[..], [message_response::Event::Error(_)]),
            "{answer:?}"
        );
        // So does one whose handler panics, and the agent keeps serving.
        let answer = handle
            .send_message(request("r3", "panic"))
            .await
            .unwrap()
            .collect()
            .await;
        assert!(
            matches!(
                events(&answer)[..],
                [message_response::Event::Error(e)] if e == "the agent failed while answering"
            ),
            "{answer:?}"
        );
        let answer = handle
            .send_message(request("r4", "hi"))
            .await
            .unwrap()
            .collect()
            .await;
        assert_eq!(answer.len(), 3);
        // Shutdown with a request in flight: the agent gets Shutdown, finishes, then closes.
        let late = handle.send_message(request("r5", "delay")).await.unwrap();
        gw.gateway.shutdown();
        let answer = late.collect().await;
        assert!(
            matches!(
                events(&answer)[..],
                [message_response::Event::Done(d)] if d.full_response == "late"
            ),
            "{answer:?}"
        );
        running.wait().await.unwrap();
        gw.server.await.unwrap().unwrap();
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn features_busy_and_enforce_guard_what_the_gateway_sends() {
    tokio::time::timeout(LIMIT, async {
        let mut gw = start(GatewayConfig::default()).await;
        let plain = agent(&gw.addr, "plain", &[]).await;
        let plain_handle = gw.connected.recv().await.unwrap();
        let inject = InjectContext {
            injection_id: "i1".to_owned(),
            ..InjectContext::default()
        };
        assert!(matches!(
            plain_handle.inject_context(inject.clone()).await,
            Err(SendError::FeatureNotDeclared("injection"))
        ));
        let cancel = CancelRequest {
            request_id: "r1".to_owned(),
            reason: None,
        };
        assert!(matches!(
            plain_handle.cancel_request(cancel.clone()).await,
            Err(SendError::FeatureNotDeclared("cancellation"))
        ));

        let able = agent(&gw.addr, "able", &["cancellation"]).await;
        let able_handle = gw.connected.recv().await.unwrap();
        // No request in flight: the checker refuses a cancel request in enforce mode.
        assert!(matches!(
            able_handle.cancel_request(cancel.clone()).await,
            Err(SendError::Violation(_))
        ));
        // An invalid message is not sent, and leaves the agent free.
        assert!(matches!(
            able_handle.send_message(request("", "hi")).await,
            Err(SendError::Invalid(e)) if e.errors[0].pointer == "/send_message/request_id"
        ));
        let slow = able_handle
            .send_message(request("r1", "slow"))
            .await
            .unwrap();
        assert!(matches!(
            able_handle.send_message(request("r9", "hi")).await,
            Err(SendError::Busy(id)) if id == "r1"
        ));
        able_handle
            .cancel_request(CancelRequest {
                request_id: "r1".to_owned(),
                reason: Some("user_requested".to_owned()),
            })
            .await
            .unwrap();
        let answer = slow.collect().await;
        assert!(
            matches!(
                events(&answer)[..],
                [message_response::Event::Cancelled(c)] if c.reason == "user_requested"
            ),
            "{answer:?}"
        );
        // The other agent was never disturbed.
        let answer = plain_handle
            .send_message(request("p1", "hi"))
            .await
            .unwrap()
            .collect()
            .await;
        assert_eq!(answer.len(), 3);
        gw.gateway.shutdown();
        plain.wait().await.unwrap();
        able.wait().await.unwrap();
        gw.server.await.unwrap().unwrap();
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registration_rules_and_limits_answer_with_statuses() {
    tokio::time::timeout(LIMIT, async {
        let mut config = GatewayConfig::default();
        config.limits.max_streams = 2;
        config.limits.max_message_size = 1024;
        let mut gw = start(config).await;
        let first = agent(&gw.addr, "one", &[]).await;
        let handle = gw.connected.recv().await.unwrap();

        let heartbeat = AgentMessage {
            payload: Some(agent_message::Payload::Heartbeat(Heartbeat {
                timestamp_ms: 1,
            })),
        };
        let cases = [
            (vec![heartbeat], Code::FailedPrecondition),
            (vec![reg_msg("")], Code::InvalidArgument),
            (vec![reg_msg("one")], Code::AlreadyExists),
            (vec![AgentMessage::default()], Code::FailedPrecondition),
        ];
        for (msgs, code) in cases {
            let (_tx, stream) = raw(&gw.addr, msgs).await;
            assert_eq!(final_status(stream).await.code(), code);
        }
        // Oversized: refused by tonic before decoding.
        let mut big = register("big", &[]);
        big.name = "x".repeat(2048);
        let (_tx, stream) = raw(
            &gw.addr,
            vec![AgentMessage {
                payload: Some(agent_message::Payload::Register(big)),
            }],
        )
        .await;
        assert_eq!(final_status(stream).await.code(), Code::OutOfRange);

        // A registered raw stream that then sends an invalid response is ended alone.
        let bad_response = AgentMessage {
            payload: Some(agent_message::Payload::Response(MessageResponse {
                request_id: String::new(),
                event: None,
            })),
        };
        let (_tx, stream) = raw(&gw.addr, vec![reg_msg("two"), bad_response]).await;
        let mut stream = stream.unwrap();
        assert!(matches!(
            stream.message().await.unwrap().and_then(|m| m.payload),
            Some(server_message::Payload::Welcome(_))
        ));
        let _two = gw.connected.recv().await.unwrap();
        assert_eq!(final_status(Ok(stream)).await.code(), Code::InvalidArgument);

        // The handler's refusal is the protocol's own answer.
        match connect(
            gw.addr.clone(),
            AgentConfig::new(register("banned-1", &[])),
            Echo,
        )
        .await
        {
            Err(ConnectError::Rejected(e)) => assert_eq!(e.suggested_id, "guest"),
            other => panic!("expected a registration error, got {:?}", other.map(|_| ())),
        }

        // Full: "one" plus a held raw registration fill both slots.
        let (_held_tx, held) = raw(&gw.addr, vec![reg_msg("three")]).await;
        let mut held = held.unwrap();
        assert!(held.message().await.unwrap().is_some());
        let (_tx, stream) = raw(&gw.addr, vec![reg_msg("four")]).await;
        assert_eq!(final_status(stream).await.code(), Code::ResourceExhausted);

        // Through all of it the first agent kept working.
        let answer = handle
            .send_message(request("r1", "hi"))
            .await
            .unwrap()
            .collect()
            .await;
        assert_eq!(answer.len(), 3);
        gw.gateway.shutdown();
        first.wait().await.unwrap();
        drop(held);
        gw.server.await.unwrap().unwrap();
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quiet_stream_is_closed_and_heartbeats_keep_one_open() {
    tokio::time::timeout(LIMIT, async {
        let mut config = GatewayConfig::default();
        config.limits.idle_timeout = Some(Duration::from_millis(300));
        let mut gw = start(config).await;
        let (_tx, quiet) = raw(&gw.addr, vec![reg_msg("quiet")]).await;
        assert_eq!(final_status(quiet).await.code(), Code::Unavailable);

        // A registration nobody decides: the agent stops waiting after its own limit, the
        // gateway after its idle limit, which frees the slot.
        let mut cfg = AgentConfig::new(register("stall-1", &[]));
        cfg.limits.idle_timeout = Some(Duration::from_millis(100));
        match connect(gw.addr.clone(), cfg, Echo).await {
            Err(ConnectError::Status(s)) => assert_eq!(s.code(), Code::DeadlineExceeded),
            other => panic!("expected a deadline, got {:?}", other.map(|_| ())),
        }
        let (_tx, stalled) = raw(&gw.addr, vec![reg_msg("stall-2")]).await;
        assert_eq!(final_status(stalled).await.code(), Code::DeadlineExceeded);

        let mut cfg = AgentConfig::new(register("lively", &[]));
        cfg.limits = GrpcLimits {
            heartbeat_interval: Duration::from_millis(50),
            ..GrpcLimits::default()
        };
        let lively = connect(gw.addr.clone(), cfg, Echo).await.unwrap();
        let _quiet_handle = gw.connected.recv().await.unwrap();
        let handle = gw.connected.recv().await.unwrap();
        tokio::time::sleep(Duration::from_millis(600)).await;
        let answer = handle
            .send_message(request("r1", "hi"))
            .await
            .unwrap()
            .collect()
            .await;
        assert_eq!(
            answer.len(),
            3,
            "still connected after twice the idle timeout"
        );
        gw.gateway.shutdown();
        lively.wait().await.unwrap();
        gw.server.await.unwrap().unwrap();
    })
    .await
    .unwrap();
}

/// A response that answers no request: enforce ends the stream, warn logs it and keeps the
/// stream, off does not look.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_modes_decide_what_a_sequence_violation_costs() {
    tokio::time::timeout(LIMIT, async {
        let stray = AgentMessage {
            payload: Some(agent_message::Payload::Response(MessageResponse {
                request_id: "nobody-asked".to_owned(),
                event: Some(message_response::Event::Text("hi".to_owned())),
            })),
        };
        for mode in [CheckMode::Enforce, CheckMode::Warn, CheckMode::Off] {
            let mut gw = start(GatewayConfig {
                mode,
                ..GatewayConfig::default()
            })
            .await;
            let (_tx, stream) = raw(&gw.addr, vec![reg_msg("m"), stray.clone()]).await;
            let mut stream = stream.unwrap();
            assert!(matches!(
                stream.message().await.unwrap().and_then(|m| m.payload),
                Some(server_message::Payload::Welcome(_))
            ));
            let handle = gw.connected.recv().await.unwrap();
            if mode == CheckMode::Enforce {
                assert_eq!(
                    final_status(Ok(stream)).await.code(),
                    Code::FailedPrecondition
                );
            } else {
                // Still open: the next request reaches the agent.
                let _events = handle.send_message(request("r1", "hi")).await.unwrap();
                assert!(
                    matches!(
                        stream.message().await.unwrap().and_then(|m| m.payload),
                        Some(server_message::Payload::SendMessage(m)) if m.request_id == "r1"
                    ),
                    "{mode:?}"
                );
                drop(stream);
            }
            gw.gateway.shutdown();
            gw.server.await.unwrap().unwrap();
        }
    })
    .await
    .unwrap();
}

/// Streams that never register (the starvation attack): past the waiting budget each new
/// stream displaces the oldest waiting one, a waiting stream is closed after the register
/// timeout, and neither a registered agent nor one that registers now loses its place.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streams_that_never_register_cannot_starve_agents() {
    tokio::time::timeout(LIMIT, async {
        let mut config = GatewayConfig::default();
        config.limits.max_streams = 2;
        config.limits.max_unregistered = 4;
        config.limits.register_timeout = Duration::from_millis(400);
        let mut gw = start(config).await;
        let early = agent(&gw.addr, "early", &[]).await;
        let early_handle = gw.connected.recv().await.unwrap();

        // Twelve silent streams: three times the waiting budget.
        let mut silent = Vec::new();
        for _ in 0..12 {
            silent.push(raw(&gw.addr, Vec::new()).await);
        }
        // An agent that says hello at once still gets in, and the early one still works.
        let late = agent(&gw.addr, "late", &[]).await;
        let _late_handle = gw.connected.recv().await.unwrap();
        let answer = early_handle
            .send_message(request("r1", "hi"))
            .await
            .unwrap()
            .collect()
            .await;
        assert_eq!(answer.len(), 3, "the registered agent is served");

        // Every silent stream ends: displaced, or closed at the register timeout.
        for (_tx, stream) in silent {
            let status = final_status(stream).await;
            assert_ne!(status.code(), Code::Ok, "{status:?}");
        }
        gw.gateway.shutdown();
        early.wait().await.unwrap();
        late.wait().await.unwrap();
        gw.server.await.unwrap().unwrap();
    })
    .await
    .unwrap();
}

/// A raw stream from the local address `from` (a second loopback address is a second
/// client to the gateway's per-client share).
async fn raw_from(
    from: &str,
    addr: &str,
    msgs: Vec<AgentMessage>,
) -> (
    mpsc::Sender<AgentMessage>,
    Result<Streaming<ServerMessage>, Status>,
) {
    let (tx, rx) = mpsc::channel(16);
    for m in msgs {
        tx.send(m).await.unwrap();
    }
    let channel = agentwire_transport::tonic::transport::Endpoint::from_shared(addr.to_owned())
        .unwrap()
        .local_address(Some(from.parse().unwrap()))
        .connect()
        .await
        .unwrap();
    let mut client = CovenControlClient::new(channel);
    let out =
        futures_util::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|m| (m, rx)) });
    let r = client.agent_stream(out).await.map(|r| r.into_inner());
    (tx, r)
}

/// One client (127.0.0.2) registers as many streams as the gateway takes in all: it gets
/// its share and no more, so another client (127.0.0.1) still registers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_client_cannot_take_every_stream() {
    tokio::time::timeout(LIMIT, async {
        let mut config = GatewayConfig::default();
        config.limits.max_streams = 3;
        config.limits.max_streams_per_client = 2;
        let mut gw = start(config).await;
        let mut held = Vec::new();
        let mut refused = Vec::new();
        for i in 0..3 {
            let (tx, stream) =
                raw_from("127.0.0.2", &gw.addr, vec![reg_msg(&format!("a{i}"))]).await;
            let mut stream = match stream {
                Ok(stream) => stream,
                Err(status) => {
                    refused.push(status);
                    continue;
                }
            };
            match stream.message().await {
                Ok(Some(_welcome)) => {
                    let _ = gw.connected.recv().await.unwrap();
                    held.push((tx, stream));
                }
                Ok(None) => panic!("stream a{i} ended without an answer"),
                Err(status) => refused.push(status),
            }
        }
        let victim = connect(
            gw.addr.clone(),
            AgentConfig::new(register("victim", &[])),
            Echo,
        )
        .await
        .map_err(|e| format!("{e:?}"))
        .expect("another client still registers");
        let handle = gw.connected.recv().await.unwrap();
        assert_eq!(handle.agent_id(), "victim");
        assert_eq!(held.len(), 2, "the attacker holds its share: {refused:?}");
        let [status] = refused.as_slice() else {
            panic!("one attacker stream refused: {refused:?}");
        };
        assert_eq!(status.code(), Code::ResourceExhausted);
        assert!(
            status.message().contains("max_streams_per_client"),
            "{status:?}"
        );

        gw.gateway.shutdown();
        victim.wait().await.unwrap();
        drop(held);
        gw.server.await.unwrap().unwrap();
    })
    .await
    .unwrap();
}
