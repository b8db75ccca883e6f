//! A minimal coven agent: registers with `injection` and `cancellation`, answers every user
//! message by streaming it back word by word, takes injected context, stops on a cancel
//! request, and leaves when the gateway sends Shutdown.
//!
//! `cargo run --example coven_agent [ENDPOINT] [AGENT_ID]` (default `http://127.0.0.1:50051`).

use std::time::Duration;

use agentwire_protocols::coven::{AgentMetadata, InjectContext, RegisterAgent, SendMessage};
use agentwire_protocols::skeletons::coven::{AgentConfig, AgentHandler, Reply, connect};
use agentwire_transport::tokio;

struct Echo;

impl AgentHandler for Echo {
    async fn on_send_message(&self, msg: SendMessage, mut reply: Reply) {
        tracing::info!(request_id = %msg.request_id, content = %msg.content, "request");
        let _ = reply.thinking("echoing").await;
        let mut full = String::new();
        for word in msg.content.split_inclusive(' ') {
            if reply.is_cancelled() {
                // Returning without a terminal event: the skeleton answers `cancelled`.
                return;
            }
            full.push_str(word);
            let _ = reply.text(word).await;
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let _ = reply.done(full).await;
    }

    async fn on_inject_context(&self, msg: InjectContext) -> Result<(), String> {
        tracing::info!(content = %msg.content, "context injected");
        Ok(())
    }
}

#[tokio::main]
async fn main() {
    agentwire_examples::init_logging();
    agentwire_examples::exit_on_error("coven_agent", run().await);
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let endpoint = args
        .next()
        .unwrap_or_else(|| "http://127.0.0.1:50051".to_owned());
    let agent_id = args
        .next()
        .unwrap_or_else(|| "agentwire-demo-agent".to_owned());
    let register = RegisterAgent {
        agent_id,
        name: "agentwire echo agent".to_owned(),
        capabilities: vec!["chat".to_owned()],
        metadata: Some(AgentMetadata {
            os: std::env::consts::OS.to_owned(),
            backend: "direct".to_owned(),
            ..AgentMetadata::default()
        }),
        protocol_features: vec!["injection".to_owned(), "cancellation".to_owned()],
    };
    let agent = connect(endpoint.clone(), AgentConfig::new(register), Echo)
        .await
        .map_err(|e| agentwire_examples::connect_error(&endpoint, "coven_gateway", &e))?;
    tracing::info!(welcome = ?agent.session().welcome(), "registered");
    agent.wait().await?;
    tracing::info!("stream closed");
    Ok(())
}
