//! The external_agents agent server: sessions, `/ws`, forwarding to an external agent's
//! `inputUrl`, and the callback endpoint, over a SQLite file that survives restarts.
//!
//! ```sh
//! cargo run --example external_agent_server [ADDR]     # listens on 127.0.0.1:8080
//! cargo run --example external_system -- --demo        # in another terminal
//! ```
//!
//! Environment: `EA_ADDR` (listen address when no ADDR is given), `EA_INPUT_URL` (the external agent's inputUrl,
//! default `http://127.0.0.1:8081/v1/input`), `EA_DB` (SQLite file, default in the system
//! temp dir; or, built with `--features postgres`, a `postgres://` URL that several instances
//! share), `EA_CALLBACK_BASE` (the base of the callback URLs handed to the external agent,
//! default this instance's own address; behind a load balancer, the balancer's), `EA_TOKEN`
//! (a shared token every route and the WebSocket then demand, as `Authorization: Bearer`;
//! give `external_system` the same one). Stops cleanly on `quit`, end of input or Ctrl-C.

use agentwire_protocols::external_agents as proto;
use agentwire_protocols::skeletons::external_agents as sk;
use agentwire_transport::CheckMode;
use agentwire_transport::http_ws::{Guard, ServerConfig};

/// Whether `EA_TOKEN` sets a shared token.
fn config_has_token() -> bool {
    std::env::var("EA_TOKEN").is_ok_and(|t| !t.is_empty())
}

fn env_or(key: &str, default: &str) -> String {
    std::env::var(key).unwrap_or_else(|_| default.to_owned())
}

#[tokio::main]
async fn main() {
    agentwire_examples::init_logging();
    agentwire_examples::exit_on_error("external_agent_server", run().await);
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| env_or("EA_ADDR", "127.0.0.1:8080"));
    let input_url = env_or("EA_INPUT_URL", "http://127.0.0.1:8081/v1/input");
    let default_db = std::env::temp_dir().join("agentwire-external-agents.sqlite");
    let db = env_or("EA_DB", &default_db.to_string_lossy());

    let listener = agentwire_examples::bind(&addr).await?;
    let base = format!("http://{}", listener.local_addr()?);
    let callback_base = env_or("EA_CALLBACK_BASE", &base);
    let agents = [
        proto::AgentConfig::External(proto::ExternalAgentConfig {
            agent_id: "external-agent-a".into(),
            display_name: "External Agent A".into(),
            description: Some("Async external agent via inputUrl".into()),
            external: proto::ExternalAgentConfigExternal {
                input_url: input_url.clone(),
                callback_base_url: callback_base,
            },
        }),
        proto::AgentConfig::Chat(proto::ChatAgentConfig {
            agent_id: "chat-agent".into(),
            display_name: "Chat Agent".into(),
            description: None,
        }),
    ];
    let config = ServerConfig {
        owners: sk::owners(&agents),
        limits: Default::default(),
        mode: CheckMode::Enforce,
        guard: Guard {
            token: std::env::var("EA_TOKEN").ok().filter(|t| !t.is_empty()),
            ..Guard::default()
        },
    };
    let store = agentwire_transport::store::open_session_store(&db)?;
    let server = sk::AgentServer::new(config, store).serve(listener)?;
    let token = if config_has_token() {
        "required"
    } else {
        "none"
    };
    tracing::info!(%base, %input_url, %db, token, "agent server listening; {}", agentwire_examples::STOP_HINT);
    agentwire_examples::wait_for_stop().await;
    server.shutdown().await?;
    tracing::info!("agent server stopped");
    Ok(())
}
