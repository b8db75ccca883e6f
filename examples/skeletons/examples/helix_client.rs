//! A minimal Helix side of helix_zed: `cargo run --example helix_client [URL] [MESSAGE]`.
//!
//! Connects to URL (or `$AGENTWIRE_URL`, default ws://127.0.0.1:8765/), sends MESSAGE in
//! session `ses_example` and prints the streamed reply. The session's thread id lives in a
//! SQLite file (`$HELIX_DB`, default `agentwire-helix.db` in the temp dir; or, built with
//! `--features postgres`, a `postgres://` URL several Helix instances share), so a second
//! run sends a follow-up on the same thread instead of a first message.

use agentwire_protocols::helix_zed as hz;
use agentwire_protocols::skeletons::helix_zed::HelixAgent;
use agentwire_transport::store::keyed::MappingStore;
use agentwire_transport::ws::ClientConfig;

#[tokio::main]
async fn main() {
    agentwire_examples::init_logging();
    agentwire_examples::exit_on_error("helix_client", run().await);
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let url = args
        .next()
        .or_else(|| std::env::var("AGENTWIRE_URL").ok())
        .unwrap_or_else(|| "ws://127.0.0.1:8765/".to_owned());
    let message = args.next().unwrap_or_else(|| "hello from helix".to_owned());
    let default_db = std::env::temp_dir().join("agentwire-helix.db");
    let db = std::env::var("HELIX_DB").unwrap_or_else(|_| default_db.display().to_string());
    let session = "ses_example";
    let request_id = format!(
        "req-{}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)?
            .as_millis()
    );

    let store = agentwire_transport::store::open_keyed_store(&db)?;
    let known = store.get(session)?;
    println!("session {session}: thread {known:?} (store {db})");
    let mut agent = HelixAgent::connect(&url, ClientConfig::default(), store)
        .await
        .map_err(|e| agentwire_examples::connect_error(&url, "zed_server", &e))?;
    agent.chat(session, &message, &request_id).await?;
    while let Some(event) = agent.next().await {
        match event? {
            hz::ZedEvent::ContextCreated(e) => {
                println!("context created: {}", e.data.acp_thread_id)
            }
            hz::ZedEvent::MessageAdded(e) => println!("... {}", e.data.content),
            hz::ZedEvent::MessageCompleted(e) => {
                println!("completed {}", e.data.request_id);
                break;
            }
        }
    }
    let state = agent.state(&request_id)?;
    println!("interaction {request_id}: {state:?}");
    agent.close().await;
    Ok(())
}
