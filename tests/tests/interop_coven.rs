//! The coven skeletons against grpcio peers nobody in this project wrote: Python stubs are
//! generated from `spec/coven/coven.proto` by grpcio-tools at test time. A Python agent
//! registers with our tonic gateway; our Rust agent registers with a Python gateway. Each
//! peer also sends bad input and checks the answer.

use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::time::Duration;

use agentwire_protocols::coven::{InjectContext, RegisterAgent, SendMessage, Shutdown, Welcome};
use agentwire_protocols::coven::{RegistrationError, message_response::Event};
use agentwire_protocols::skeletons::coven::{
    AgentConfig, AgentHandle, AgentHandler, Gateway, GatewayConfig, GatewayHandler, Reply,
};
use agentwire_tests::peers::{python, workspace_root};
use agentwire_transport::tokio;
use tokio::sync::mpsc;

const LIMIT: Duration = Duration::from_secs(60);

fn proto_path() -> String {
    workspace_root()
        .join("spec/coven/coven.proto")
        .display()
        .to_string()
}

/// Kills the peer if the test fails before it exits.
struct Peer(Child);

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Lets every agent in; hands connected agents and acknowledgements to the test.
struct TestGateway {
    connected: mpsc::UnboundedSender<AgentHandle>,
    acks: mpsc::UnboundedSender<(String, bool)>,
}

impl GatewayHandler for TestGateway {
    async fn on_register(&self, register: &RegisterAgent) -> Result<Welcome, RegistrationError> {
        Ok(Welcome {
            server_id: "agentwire-test".to_owned(),
            agent_id: register.agent_id.clone(),
            instance_id: "t1".to_owned(),
            ..Welcome::default()
        })
    }

    async fn on_connected(&self, agent: AgentHandle) {
        let _ = self.connected.send(agent);
    }

    async fn on_injection_ack(
        &self,
        _agent: &AgentHandle,
        msg: agentwire_protocols::coven::InjectionAck,
    ) {
        let _ = self.acks.send((msg.injection_id, msg.accepted));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_agent_against_our_gateway() {
    tokio::time::timeout(LIMIT, async {
        let (connected_tx, mut connected) = mpsc::unbounded_channel();
        let (acks_tx, mut acks) = mpsc::unbounded_channel();
        let gateway = Gateway::new(
            TestGateway {
                connected: connected_tx,
                acks: acks_tx,
            },
            GatewayConfig::default(),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = tokio::spawn(gateway.clone().serve(listener));

        let mut peer = Peer(
            python("coven_agent.py")
                .args([proto_path(), addr.to_string(), "py-agent-1".to_owned()])
                .stdout(Stdio::piped())
                .spawn()
                .expect("start the Python agent"),
        );
        let stdout = peer.0.stdout.take().unwrap();
        let lines = tokio::task::spawn_blocking(move || {
            BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
                .collect::<Vec<_>>()
        });

        let agent = connected.recv().await.expect("the Python agent registers");
        assert_eq!(agent.agent_id(), "py-agent-1");
        assert!(agent.has_feature("injection"));
        let events = agent
            .send_message(SendMessage {
                request_id: "req-1".to_owned(),
                thread_id: "thread-1".to_owned(),
                sender: "tester".to_owned(),
                content: "ping".to_owned(),
                attachments: vec![],
            })
            .await
            .unwrap()
            .collect()
            .await;
        let text: String = events
            .iter()
            .filter_map(|e| match &e.event {
                Some(Event::Text(t)) => Some(t.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(text, "echo: ping!");
        assert!(matches!(
            events.last().and_then(|e| e.event.as_ref()),
            Some(Event::Done(d)) if d.full_response == "echo: ping!"
        ));

        agent
            .inject_context(InjectContext {
                injection_id: "inj-1".to_owned(),
                content: "more context".to_owned(),
                ..InjectContext::default()
            })
            .await
            .unwrap();
        assert_eq!(acks.recv().await, Some(("inj-1".to_owned(), true)));

        agent
            .shutdown(Shutdown {
                reason: "test over".to_owned(),
            })
            .await
            .unwrap();
        let lines = lines.await.unwrap();
        let status = peer.0.wait().unwrap();
        assert!(
            status.success(),
            "Python agent failed:\n{}",
            lines.join("\n")
        );
        let log = lines.join("\n");
        assert!(log.contains(r#""code": "FAILED_PRECONDITION""#), "{log}");
        assert!(log.contains(r#""code": "INVALID_ARGUMENT""#), "{log}");
        assert!(log.contains(r#""step": "closed""#), "{log}");

        gateway.shutdown();
        server.await.unwrap().unwrap();
    })
    .await
    .expect("bounded in time");
}

/// Streams an answer; waits for cancellation when asked to.
struct TestAgent;

impl AgentHandler for TestAgent {
    async fn on_send_message(&self, msg: SendMessage, mut reply: Reply) {
        if msg.content == "wait for cancel" {
            reply.cancelled().await;
            let _ = reply.cancel_done().await;
            return;
        }
        let _ = reply.thinking("reading").await;
        // Long enough for a second request to arrive while this one is in flight.
        tokio::time::sleep(Duration::from_millis(100)).await;
        for chunk in ["you said: ", msg.content.as_str()] {
            let _ = reply.text(chunk).await;
        }
        let _ = reply.done(format!("you said: {}", msg.content)).await;
    }

    async fn on_inject_context(&self, _msg: InjectContext) -> Result<(), String> {
        Ok(())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_agent_against_python_gateway() {
    tokio::time::timeout(LIMIT, async {
        let mut peer = Peer(
            python("coven_gateway.py")
                .arg(proto_path())
                .stdout(Stdio::piped())
                .spawn()
                .expect("start the Python gateway"),
        );
        let stdout = peer.0.stdout.take().unwrap();
        let (port_tx, port_rx) = tokio::sync::oneshot::channel();
        let lines = tokio::task::spawn_blocking(move || {
            let mut lines = BufReader::new(stdout).lines().map_while(Result::ok);
            let first = lines.next().unwrap_or_default();
            let _ = port_tx.send(first);
            lines.collect::<Vec<_>>()
        });
        let first = port_rx.await.unwrap();
        let port = first
            .strip_prefix("PORT ")
            .unwrap_or_else(|| panic!("expected `PORT <n>`, got {first:?}"));

        let mut config = AgentConfig::new(RegisterAgent {
            agent_id: "rust-agent-1".to_owned(),
            name: "agentwire".to_owned(),
            capabilities: vec!["chat".to_owned()],
            protocol_features: vec!["injection".to_owned(), "cancellation".to_owned()],
            ..RegisterAgent::default()
        });
        config.limits.heartbeat_interval = Duration::from_millis(50);
        let agent = agentwire_protocols::skeletons::coven::connect(
            format!("http://127.0.0.1:{port}"),
            config,
            TestAgent,
        )
        .await
        .expect("registered with the Python gateway");
        assert_eq!(agent.session().welcome().server_id, "python-gateway");
        agent.wait().await.expect("the stream ends cleanly");

        let lines = lines.await.unwrap();
        let status = peer.0.wait().unwrap();
        let log = lines.join("\n");
        assert!(status.success(), "Python gateway found problems:\n{log}");
        assert!(log.contains(r#""r2": ["error"]"#), "{log}");
        assert!(
            log.contains(r#""step": "cancelled", "reason": "user_requested""#),
            "{log}"
        );
        assert!(
            log.contains(r#""step": "injection_ack", "accepted": true"#),
            "{log}"
        );
    })
    .await
    .expect("bounded in time");
}
