//! Hostile peers against the coven gateway, loopback only: the campaign's 1,024 streams that
//! never say hello (as many as the gateway's default stream cap) can neither keep a new agent
//! from registering nor take a registered agent's place, and each of them ends: displaced at
//! once by a newer stream, or closed at the register timeout.

use std::time::Duration;

use agentwire_protocols::coven::{
    AgentMessage, RegisterAgent, RegistrationError, SendMessage, ServerMessage, Welcome,
};
use agentwire_protocols::skeletons::coven::coven_control_client::CovenControlClient;
use agentwire_protocols::skeletons::coven::{
    AgentConfig, AgentHandle, AgentHandler, Gateway, GatewayConfig, GatewayHandler, Reply,
    RunningAgent, connect,
};
use agentwire_transport::tonic::{Code, Status, Streaming};
use tokio::sync::mpsc;
use tokio::time::timeout;

const LIMIT: Duration = Duration::from_secs(120);
const SILENT: usize = 1_024;
/// Streams opened per HTTP/2 connection, well under any server's concurrent-stream limit.
const PER_CONNECTION: usize = 128;

/// Welcomes every agent and hands over its handle.
struct Gw {
    connected: mpsc::UnboundedSender<AgentHandle>,
}

impl GatewayHandler for Gw {
    async fn on_register(&self, _: &RegisterAgent) -> Result<Welcome, RegistrationError> {
        Ok(Welcome {
            server_id: "gw".to_owned(),
            ..Welcome::default()
        })
    }

    async fn on_connected(&self, agent: AgentHandle) {
        let _ = self.connected.send(agent);
    }
}

/// Answers every request with "a", "b", then done.
struct Echo;

impl AgentHandler for Echo {
    async fn on_send_message(&self, _: SendMessage, mut reply: Reply) {
        let _ = reply.text("a").await;
        let _ = reply.text("b").await;
        let _ = reply.done("ab").await;
    }
}

async fn agent(addr: &str, id: &str) -> RunningAgent {
    let register = RegisterAgent {
        agent_id: id.to_owned(),
        name: id.to_owned(),
        ..RegisterAgent::default()
    };
    connect(addr.to_owned(), AgentConfig::new(register), Echo)
        .await
        .unwrap()
}

/// Whether the agent behind `handle` answers a request in full.
async fn served(handle: &AgentHandle, id: &str) -> bool {
    let request = SendMessage {
        request_id: id.to_owned(),
        content: "hi".to_owned(),
        ..SendMessage::default()
    };
    let answer = handle.send_message(request).await.unwrap().collect().await;
    answer.len() == 3
}

type Silent = (
    mpsc::Sender<AgentMessage>,
    Result<Streaming<ServerMessage>, Status>,
);

/// `SILENT` streams that open and then send nothing, `PER_CONNECTION` per connection.
async fn silent_streams(addr: &str) -> Vec<Silent> {
    let mut silent = Vec::with_capacity(SILENT);
    for _ in 0..SILENT / PER_CONNECTION {
        let client = CovenControlClient::connect(addr.to_owned()).await.unwrap();
        for _ in 0..PER_CONNECTION {
            let (tx, rx) = mpsc::channel(1);
            let out = futures_util::stream::unfold(rx, |mut rx| async move {
                rx.recv().await.map(|m| (m, rx))
            });
            let stream = client.clone().agent_stream(out).await;
            silent.push((tx, stream.map(|r| r.into_inner())));
        }
    }
    silent
}

/// The status that ends `stream` (or refused to open it).
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_streams_that_never_register_cannot_keep_an_agent_out() {
    timeout(LIMIT, async {
        // The default budgets; only the register timeout is shortened to keep the test quick.
        let mut config = GatewayConfig::default();
        assert_eq!(
            config.limits.max_streams, SILENT,
            "the campaign's stream cap"
        );
        let waiting_budget = config.limits.max_unregistered;
        config.limits.register_timeout = Duration::from_secs(2);
        config.shutdown_grace = Duration::from_millis(300);
        let (tx, mut connected) = mpsc::unbounded_channel();
        let gateway = Gateway::new(Gw { connected: tx }, config);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = format!("http://{}", listener.local_addr().unwrap());
        let server = tokio::spawn(gateway.clone().serve(listener));

        let early = agent(&addr, "early").await;
        let early_handle = connected.recv().await.unwrap();
        let silent = silent_streams(&addr).await;
        // With all of them open, a new agent registers, and both agents are served.
        let late = agent(&addr, "late").await;
        let late_handle = connected.recv().await.unwrap();
        assert!(
            served(&early_handle, "r1").await,
            "the early agent kept its place"
        );
        assert!(served(&late_handle, "r2").await, "the late agent got one");

        // Every silent stream ends: displaced at once, or at the register timeout; only
        // the waiting budget's worth ever waited that long.
        let mut timed_out = 0;
        for (_tx, stream) in silent {
            let status = final_status(stream).await;
            match status.code() {
                Code::ResourceExhausted => {}
                Code::DeadlineExceeded => timed_out += 1,
                _ => panic!("{status:?}"),
            }
        }
        assert!(timed_out <= waiting_budget, "{timed_out} waited");
        gateway.shutdown();
        early.wait().await.unwrap();
        late.wait().await.unwrap();
        server.await.unwrap().unwrap();
    })
    .await
    .unwrap();
}
