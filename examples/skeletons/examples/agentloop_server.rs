//! A minimal AgentLoop server: `cargo run --example agentloop_server [ADDR]`.
//!
//! Listens on ADDR (or `$AGENTWIRE_ADDR`, default 127.0.0.1:8766). Each turn announces a
//! shell command, asks for approval, waits for the decision and finishes; context info and
//! compaction requests get fixed figures. Stops on `quit`, end of input or Ctrl-C.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use agentwire_protocols::agentloop as al;
use agentwire_protocols::skeletons::agentloop::{Handler, Sender, serve};
use agentwire_transport::ws::{SendError, ServerConfig};
use serde_json::{Value, json};
use tokio::sync::oneshot;

#[derive(Default)]
struct DemoAgent {
    ids: AtomicU64,
    /// The decision a turn waits for, per connection.
    approvals: Mutex<HashMap<u64, oneshot::Sender<al::ReviewDecision>>>,
}

impl DemoAgent {
    /// A server message from its JSON; every frame gets a fresh id.
    fn msg(&self, kind: &str, payload: Value) -> al::ServerMessage {
        let id = format!("demo-{}", self.ids.fetch_add(1, Ordering::Relaxed));
        let frame = json!({"id": id, "type": kind, "payload": payload});
        al::ServerMessage::from_json(&frame.to_string()).expect("demo messages follow the spec")
    }

    async fn turn(&self, out: &Sender, msg: al::UserInputMessage) -> Result<(), SendError> {
        let text: Vec<&str> = msg
            .payload
            .input
            .iter()
            .flat_map(|item| item.content.iter().map(|c| c.text.as_str()))
            .collect();
        let (tx, rx) = oneshot::channel();
        if let Ok(mut approvals) = self.approvals.lock() {
            approvals.insert(out.connection(), tx);
        }
        out.send(&self.msg("loading_state", json!({"loading": true})))
            .await?;
        let say = format!("You asked: {}. I would like to run `ls`.", text.join(" "));
        out.send(&self.msg(
            "response_item",
            json!({"id": "item-1", "type": "message", "role": "assistant",
                   "content": [{"type": "output_text", "text": say}]}),
        ))
        .await?;
        out.send(&self.msg("approval_request", json!({"command": ["ls"]})))
            .await?;
        let review = rx.await.unwrap_or(al::ReviewDecision::NoExit);
        let output = match review {
            al::ReviewDecision::Yes | al::ReviewDecision::Always => "Cargo.toml\nsrc",
            _ => "command denied",
        };
        out.send(&self.msg(
            "response_item",
            json!({"id": "item-2", "type": "local_shell_call_output",
                   "output": json!({"output": output}).to_string()}),
        ))
        .await?;
        out.send(&self.msg("loading_state", json!({"loading": false})))
            .await?;
        out.send(&self.msg("agent_finished", json!({"responseId": "demo-response"})))
            .await
    }
}

impl Handler for DemoAgent {
    async fn user_input(&self, out: &Sender, msg: al::UserInputMessage) {
        tracing::info!(connection = out.connection(), id = %msg.id, "user_input");
        if let Err(e) = self.turn(out, msg).await {
            tracing::warn!(error = %e, "turn ended early");
        }
    }

    async fn approval_response(&self, out: &Sender, msg: al::ApprovalResponseMessage) {
        tracing::info!(connection = out.connection(), review = ?msg.payload.review, "approval_response");
        let waiting = self
            .approvals
            .lock()
            .ok()
            .and_then(|mut a| a.remove(&out.connection()));
        if let Some(tx) = waiting {
            let _ = tx.send(msg.payload.review);
        }
    }

    async fn get_context_info(&self, out: &Sender, _msg: al::GetContextInfoMessage) {
        tracing::info!(connection = out.connection(), "get_context_info");
        let info = json!({"tokenCount": 2048, "usagePercent": 1.6, "transcriptLength": 6,
                          "maxTokens": 128000, "strategy": "demo"});
        let _ = out.send(&self.msg("context_info", info)).await;
    }

    async fn manual_compact(&self, out: &Sender, _msg: al::ManualCompactMessage) {
        tracing::info!(connection = out.connection(), "manual_compact");
        let done = json!({"oldTokenCount": 2048, "newTokenCount": 512, "reductionPercent": 75,
                          "strategy": "demo"});
        let _ = out.send(&self.msg("context_compacted", done)).await;
    }

    async fn closed(&self, connection: u64) {
        if let Ok(mut approvals) = self.approvals.lock() {
            approvals.remove(&connection);
        }
    }
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let addr = agentwire_examples::listen_addr("127.0.0.1:8766");
    let listener = agentwire_examples::bind(&addr).await?;
    let server = serve(listener, DemoAgent::default(), ServerConfig::default()).await?;
    tracing::info!(url = %server.url(), "agentloop server listening; {}", agentwire_examples::STOP_HINT);
    agentwire_examples::wait_for_stop().await;
    Ok(server.shutdown().await?)
}

#[tokio::main]
async fn main() {
    agentwire_examples::init_logging();
    agentwire_examples::exit_on_error("agentloop_server", run().await);
}
