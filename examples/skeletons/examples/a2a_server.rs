//! An A2A agent on the generated skeleton of `lf.a2a.v1.A2AService`, serving its gRPC,
//! JSON-RPC and HTTP+JSON bindings on one address with one handler, and its Agent Card at
//! `/.well-known/agent-card.json`: it answers every message with a task whose artifact echoes
//! the text, streams the task's updates, keeps a task starting with `wait` working until it
//! is canceled, and serves tasks, lists, push configs and its extended card
//! (`agentwire_examples::a2a::EchoAgent`); every update of a task is POSTed to the webhooks
//! registered for it, public `https` ones only (the SSRF guard's default).
//!
//! `cargo run --example a2a_server [ADDR]` (or `$AGENTWIRE_ADDR`, default
//! `127.0.0.1:50052`); `quit`, end of input or Ctrl-C stop it.

use agentwire_examples::a2a::EchoAgent;
use agentwire_transport::tokio;
use agentwire_transport::tonic::codegen::tokio_stream::wrappers::TcpListenerStream;
use agentwire_transport::tonic::transport::Server;

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let addr = agentwire_examples::listen_addr("127.0.0.1:50052");
    let listener = agentwire_examples::bind(&addr).await?;
    let at = listener.local_addr()?;
    tracing::info!(addr = %at, "A2A agent listening (gRPC, JSON-RPC and HTTP+JSON); {}", agentwire_examples::STOP_HINT);
    let agent = EchoAgent::new(&format!("http://{at}"));
    // HTTP/1.1 too: JSON-RPC clients speak it; gRPC arrives over HTTP/2 on the same port.
    Server::builder()
        .accept_http1(true)
        .add_routes(agent.routes()?)
        .serve_with_incoming_shutdown(TcpListenerStream::new(listener), async {
            agentwire_examples::wait_for_stop().await;
        })
        .await?;
    tracing::info!("A2A agent stopped");
    Ok(())
}

#[tokio::main]
async fn main() {
    agentwire_examples::init_logging();
    agentwire_examples::exit_on_error("a2a_server", run().await);
}
