//! A minimal coven gateway: welcomes every agent, sends each one a user message, logs the
//! streamed answer, and pushes context to agents that declared `injection`.
//!
//! `cargo run --example coven_gateway [ADDR]` (or `$AGENTWIRE_ADDR`, default
//! `127.0.0.1:50051`); `quit`, end of input or Ctrl-C shut it down cleanly (every agent gets a Shutdown first).

use agentwire_protocols::coven::{
    InjectContext, InjectionAck, RegisterAgent, RegistrationError, SendMessage, Welcome,
    message_response::Event,
};
use agentwire_protocols::skeletons::coven::{AgentHandle, Gateway, GatewayConfig, GatewayHandler};
use agentwire_transport::tokio;

struct Demo;

impl GatewayHandler for Demo {
    async fn on_register(&self, register: &RegisterAgent) -> Result<Welcome, RegistrationError> {
        tracing::info!(agent_id = %register.agent_id, features = ?register.protocol_features, "registration");
        Ok(Welcome {
            server_id: "agentwire-demo-gateway".to_owned(),
            instance_id: register.agent_id.chars().take(6).collect(),
            ..Welcome::default()
        })
    }

    async fn on_connected(&self, agent: AgentHandle) {
        // Talk to the agent on its own task: handler methods run on the stream's reader.
        tokio::spawn(async move {
            let request = SendMessage {
                request_id: format!("{}-1", agent.agent_id()),
                thread_id: "demo".to_owned(),
                sender: "demo-user".to_owned(),
                content: "Hello from the agentwire gateway".to_owned(),
                attachments: vec![],
            };
            match agent.send_message(request).await {
                Ok(mut events) => {
                    while let Some(e) = events.next().await {
                        match e.event {
                            Some(Event::Text(t)) => tracing::info!(text = %t, "answer chunk"),
                            Some(Event::Done(d)) => tracing::info!(full = %d.full_response, "done"),
                            other => tracing::info!(event = ?other, "event"),
                        }
                    }
                }
                Err(e) => tracing::warn!(error = %e, "request not sent"),
            }
            if agent.has_feature("injection") {
                let ctx = InjectContext {
                    injection_id: "ctx-1".to_owned(),
                    content: "The demo gateway says hi.".to_owned(),
                    ..InjectContext::default()
                };
                if let Err(e) = agent.inject_context(ctx).await {
                    tracing::warn!(error = %e, "context not injected");
                }
            }
        });
    }

    async fn on_injection_ack(&self, agent: &AgentHandle, msg: InjectionAck) {
        tracing::info!(agent_id = %agent.agent_id(), accepted = msg.accepted, "injection ack");
    }

    async fn on_disconnected(&self, agent_id: &str) {
        tracing::info!(%agent_id, "agent gone");
    }
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let addr = agentwire_examples::listen_addr("127.0.0.1:50051");
    let listener = agentwire_examples::bind(&addr).await?;
    let at = listener.local_addr()?;
    tracing::info!(addr = %at, "coven gateway listening; {}", agentwire_examples::STOP_HINT);
    let gateway = Gateway::new(Demo, GatewayConfig::default());
    let stopper = gateway.clone();
    tokio::spawn(async move {
        agentwire_examples::wait_for_stop().await;
        stopper.shutdown();
    });
    gateway.serve(listener).await?;
    tracing::info!("gateway stopped");
    Ok(())
}

#[tokio::main]
async fn main() {
    agentwire_examples::init_logging();
    agentwire_examples::exit_on_error("coven_gateway", run().await);
}
