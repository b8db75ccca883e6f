//! A minimal AgentLoop client: `cargo run --example agentloop_client [URL] [TEXT]`.
//!
//! Connects to URL (or `$AGENTWIRE_URL`, default ws://127.0.0.1:8766/), asks for context
//! info, submits TEXT as a turn, approves every command it is asked about and prints the
//! server's messages until the turn finishes.

use agentwire_protocols::agentloop as al;
use agentwire_protocols::skeletons::agentloop::Client;
use agentwire_transport::ws::ClientConfig;

fn client_msg(json: serde_json::Value) -> al::ClientMessage {
    al::ClientMessage::from_json(&json.to_string()).expect("client messages follow the spec")
}

#[tokio::main]
async fn main() {
    agentwire_examples::init_logging();
    agentwire_examples::exit_on_error("agentloop_client", run().await);
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let url = args
        .next()
        .or_else(|| std::env::var("AGENTWIRE_URL").ok())
        .unwrap_or_else(|| "ws://127.0.0.1:8766/".to_owned());
    let text = args.next().unwrap_or_else(|| "list the files".to_owned());

    let mut client = Client::connect(&url, ClientConfig::default())
        .await
        .map_err(|e| agentwire_examples::connect_error(&url, "agentloop_server", &e))?;
    client
        .send(&client_msg(
            serde_json::json!({"id": "info-1", "type": "get_context_info"}),
        ))
        .await?;
    client
        .send(&client_msg(serde_json::json!({
            "id": "turn-1",
            "type": "user_input",
            "payload": {"input": [{"type": "message", "role": "user",
                                   "content": [{"type": "input_text", "text": text}]}]}
        })))
        .await?;
    let mut approvals = 0;
    while let Some(item) = client.next().await {
        let msg = match item {
            Ok(msg) => msg,
            Err(refused) => {
                println!("refused a frame from the server: {refused}");
                continue;
            }
        };
        println!("{}", msg.to_json());
        match msg {
            al::ServerMessage::ApprovalRequest(req) => {
                approvals += 1;
                println!("approving {:?}", req.payload.command);
                client
                    .send(&client_msg(serde_json::json!({
                        "id": format!("approval-{approvals}"),
                        "type": "approval_response",
                        "payload": {"review": "yes"}
                    })))
                    .await?;
            }
            al::ServerMessage::AgentFinished(_) => break,
            _ => {}
        }
    }
    client.close().await;
    Ok(())
}
