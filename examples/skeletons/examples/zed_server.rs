//! A minimal Zed side of helix_zed: `cargo run --example zed_server [ADDR]`.
//!
//! Listens on ADDR (or `$AGENTWIRE_ADDR`, default 127.0.0.1:8765). Each chat_message gets a
//! context (first message of a session only) and a reply streamed word by word. Stops on
//! `quit`, end of input or Ctrl-C.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use agentwire_protocols::helix_zed as hz;
use agentwire_protocols::skeletons::helix_zed::{Handler, Sender, serve};
use agentwire_transport::ws::{SendError, ServerConfig};

#[derive(Default)]
struct EchoZed {
    threads: AtomicU64,
}

impl EchoZed {
    async fn reply(&self, out: &Sender, msg: hz::ChatMessage) -> Result<(), SendError> {
        let d = msg.data;
        let session = d.helix_session_id;
        let thread = match d.acp_thread_id {
            Some(thread) => thread,
            None => {
                let thread = format!("thread-{}", self.threads.fetch_add(1, Ordering::Relaxed));
                out.context_created(hz::ContextCreatedEvent {
                    session_id: session.clone(),
                    data: hz::ContextCreatedData {
                        acp_thread_id: thread.clone(),
                        helix_session_id: session.clone(),
                    },
                })
                .await?;
                thread
            }
        };
        let message_id = format!("reply-{}", d.request_id);
        let mut content = String::new();
        for word in format!("You said: {}", d.message).split(' ') {
            if !content.is_empty() {
                content.push(' ');
            }
            content.push_str(word);
            out.message_added(hz::MessageAddedEvent {
                session_id: session.clone(),
                data: hz::MessageAddedData {
                    acp_thread_id: thread.clone(),
                    message_id: message_id.clone(),
                    role: hz::MessageAddedDataRole::Assistant,
                    content: content.clone(),
                    timestamp: unix_now(),
                },
            })
            .await?;
        }
        out.message_completed(hz::MessageCompletedEvent {
            session_id: session,
            data: hz::MessageCompletedData {
                acp_thread_id: thread,
                message_id,
                request_id: d.request_id,
            },
        })
        .await
    }
}

fn unix_now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

impl Handler for EchoZed {
    async fn chat_message(&self, out: &Sender, msg: hz::ChatMessage) {
        tracing::info!(
            session = %msg.data.helix_session_id,
            request = %msg.data.request_id,
            "chat_message"
        );
        if let Err(e) = self.reply(out, msg).await {
            tracing::warn!(error = %e, "reply not sent");
        }
    }
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let addr = agentwire_examples::listen_addr("127.0.0.1:8765");
    let listener = agentwire_examples::bind(&addr).await?;
    let server = serve(listener, EchoZed::default(), ServerConfig::default()).await?;
    tracing::info!(url = %server.url(), "zed side listening; {}", agentwire_examples::STOP_HINT);
    agentwire_examples::wait_for_stop().await;
    Ok(server.shutdown().await?)
}

#[tokio::main]
async fn main() {
    agentwire_examples::init_logging();
    agentwire_examples::exit_on_error("zed_server", run().await);
}
