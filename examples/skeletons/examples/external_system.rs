//! An external system for external_agents: receives each forwarded user message on its
//! `inputUrl` and answers it later through the session's callback URL with a Markdown reply.
//!
//! ```sh
//! cargo run --example external_system [ADDR]           # inputUrl on 127.0.0.1:8081/v1/input
//! cargo run --example external_system -- --demo        # also plays the web UI once
//! ```
//!
//! With `--demo` it also acts as the web UI against the agent server (`EA_SERVER`, default
//! `http://127.0.0.1:8080`): creates session `DEMO-1`, sends `hello` and a `user_message`,
//! prints what the server broadcasts (the user echo, then this system's reply) and exits.
//! Environment: `EA_INPUT_ADDR` (listen address of the receiver when no ADDR is given),
//! `EA_TOKEN` (the agent server's shared token, presented on the callback and in the demo).
//! Without `--demo` it stops on `quit`, end of input or Ctrl-C.

use std::time::Duration;

use agentwire_protocols::external_agents as proto;
use agentwire_protocols::skeletons::external_agents as sk;
use agentwire_transport::CheckMode;

/// Answers every input after a short pause, as an asynchronous agent would.
struct EchoAgent;

impl sk::ExternalSystemHandler for EchoAgent {
    async fn forward_input(
        &self,
        body: proto::ExternalInputPayload,
    ) -> Result<(), sk::HandlerError> {
        tracing::info!(session = %body.session_id.0, text = %body.message.text, "input received");
        // Take the input now (2xx), answer later: the agent server waits at most 5 s.
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(200)).await;
            // The callback URL is `{callbackBaseUrl}/external/sessions/{id}/messages`.
            let base = body
                .callback_url
                .split("/external/sessions/")
                .next()
                .unwrap_or_default()
                .to_owned();
            let reply = format!(
                "You said:\n\n> {}\n\n- handled by *external_system*",
                body.message.text
            );
            let client = match token() {
                Some(t) => sk::ExternalSystemHttp::new(base).with_token(&t),
                None => Ok(sk::ExternalSystemHttp::new(base)),
            };
            let answered = match client {
                Ok(client) => client.inject_message(&body.session_id.0, &reply).await,
                Err(e) => Err(e),
            };
            match answered {
                Ok(r) => tracing::info!(reply = ?r, "callback answered"),
                Err(e) => tracing::warn!(error = %e, "callback failed"),
            }
        });
        Ok(())
    }
}

/// The shared token from `EA_TOKEN`, if set.
fn token() -> Option<String> {
    std::env::var("EA_TOKEN").ok().filter(|t| !t.is_empty())
}

async fn demo(server: &str) -> Result<(), Box<dyn std::error::Error>> {
    let http = match token() {
        Some(t) => sk::WebUiHttp::new(server).with_token(&t)?,
        None => sk::WebUiHttp::new(server),
    };
    let created = http
        .create_session(&proto::CreateSessionRequest {
            agent_id: "external-agent-a".into(),
            session_id: Some(proto::SessionId("DEMO-1".into())),
        })
        .await
        .map_err(|e| agentwire_examples::connect_error(server, "external_agent_server", &e))?;
    tracing::info!(?created, "create_session");
    let ws = format!("{}/ws", server.replacen("http", "ws", 1));
    let mut ui = match token() {
        Some(t) => sk::WebUiClient::connect_with_token(&ws, &t, CheckMode::Enforce).await?,
        None => sk::WebUiClient::connect(&ws, CheckMode::Enforce).await?,
    };
    ui.hello(proto::HelloMessage {
        session_id: proto::SessionId("DEMO-1".into()),
    })
    .await?;
    let mut sent = false;
    while let Some(msg) = tokio::time::timeout(Duration::from_secs(10), ui.next()).await? {
        let msg = msg?;
        println!("{}", msg.to_json());
        match &msg {
            proto::AgentServerMessage::SessionReady(_) if !sent => {
                ui.user_message(proto::UserMessageMessage {
                    text: "hello from the demo".into(),
                })
                .await?;
                sent = true;
            }
            proto::AgentServerMessage::Message(m)
                if m.role != proto::ChatMessageBroadcastRole::User =>
            {
                break;
            }
            _ => {}
        }
    }
    ui.close().await?;
    Ok(())
}

#[tokio::main]
async fn main() {
    agentwire_examples::init_logging();
    agentwire_examples::exit_on_error("external_system", run().await);
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let addr = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with("--"))
        .or_else(|| std::env::var("EA_INPUT_ADDR").ok())
        .unwrap_or_else(|| "127.0.0.1:8081".into());
    let listener = agentwire_examples::bind(&addr).await?;
    let receiver = sk::ExternalSystemServer::new(EchoAgent).serve(listener, "/v1/input")?;
    tracing::info!(input_url = %format!("http://{}/v1/input", receiver.local_addr()), "external system up");
    if std::env::args().any(|a| a == "--demo") {
        let server = std::env::var("EA_SERVER").unwrap_or_else(|_| "http://127.0.0.1:8080".into());
        let outcome = demo(&server).await;
        receiver.shutdown().await?;
        return outcome;
    }
    tracing::info!("{}", agentwire_examples::STOP_HINT);
    agentwire_examples::wait_for_stop().await;
    receiver.shutdown().await?;
    Ok(())
}
