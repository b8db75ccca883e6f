//! An A2A client that reads the agent's card at its well-known path and picks the first
//! interface it speaks (JSON-RPC, gRPC or HTTP+JSON, 8.3.2): it reads the agent's extended card, sends a
//! message and prints the task, streams a second one, then starts a task that waits,
//! resubscribes to it, cancels it and shows the canceled stream's end and the refusal of a
//! subscription to an ended task.
//!
//! `cargo run --example a2a_client [BASE_URL [BINDING]]` (default `http://127.0.0.1:50052`,
//! the `a2a_server` example's address; `BINDING` (`jsonrpc`, `grpc` or `http+json`) takes that interface
//! of the card rather than the first).

use agentwire_examples::a2a::{A2aClient, UpdateStream, fetch_card, pick, text_of, user_message};
use agentwire_protocols::a2a::{
    SendMessageRequest, StreamResponse, send_message_response, stream_response::Payload,
};
use agentwire_transport::tokio;

/// One line per stream update.
fn describe(update: &StreamResponse) -> String {
    match &update.payload {
        Some(Payload::Task(t)) => {
            format!("task {} ({:?})", t.id, t.status.as_ref().map(|s| s.state()))
        }
        Some(Payload::Message(m)) => format!("message: {}", text_of(m)),
        Some(Payload::StatusUpdate(u)) => {
            format!(
                "status of {}: {:?}",
                u.task_id,
                u.status.as_ref().map(|s| s.state())
            )
        }
        Some(Payload::ArtifactUpdate(u)) => format!(
            "artifact of {}: {}",
            u.task_id,
            u.artifact.as_ref().map(|a| a.parts.len()).unwrap_or(0)
        ),
        None => "empty update".to_owned(),
    }
}

fn send(id: &str, text: &str) -> SendMessageRequest {
    SendMessageRequest {
        message: Some(user_message(id, text)),
        ..SendMessageRequest::default()
    }
}

/// Prints every update of `stream` with `prefix`.
async fn print_all(
    stream: &mut UpdateStream,
    prefix: &str,
) -> Result<(), Box<dyn std::error::Error>> {
    while let Some(update) = stream.next().await? {
        println!("  {prefix}{}", describe(&update));
    }
    Ok(())
}

/// Starts a waiting task, resubscribes to it, cancels it, and tries to subscribe again.
async fn cancel_demo(client: &mut A2aClient) -> Result<(), Box<dyn std::error::Error>> {
    let mut stream = client.stream(send("m-3", "wait for me")).await?;
    let mut task_id = String::new();
    while let Some(update) = stream.next().await? {
        println!("  {}", describe(&update));
        if let Some(Payload::Task(t)) = &update.payload {
            task_id = t.id.clone();
        }
        if matches!(update.payload, Some(Payload::StatusUpdate(_))) {
            break; // working: the task now waits
        }
    }
    drop(stream);
    let mut again = client.subscribe(&task_id).await?;
    let canceled = client.cancel(&task_id).await?;
    println!(
        "canceled: {:?}",
        canceled.status.as_ref().map(|s| s.state())
    );
    print_all(&mut again, "resubscribed: ").await?;
    let refused = match client.subscribe(&task_id).await {
        Err(refused) => refused,
        Ok(mut stream) => match stream.next().await {
            Err(refused) => refused,
            Ok(_) => return Err("a subscription to an ended task was accepted".into()),
        },
    };
    println!("subscribing again: refused, {refused}");
    Ok(())
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let base = args
        .next()
        .unwrap_or_else(|| "http://127.0.0.1:50052".to_owned());
    let only = args.next();
    let card = fetch_card(&base).await.map_err(|e| {
        format!("cannot read the agent card at {base} (is `a2a_server` running?): {e}")
    })?;
    let (binding, url) =
        pick(&card, only.as_deref()).ok_or("the card names no interface this client speaks")?;
    println!(
        "agent: {} ({}); using {binding} at {url}",
        card.name, card.description
    );
    let mut client = A2aClient::connect(binding, url).await?;
    let extended = client.extended_card().await?;
    println!("extended card: {} skill(s)", extended.skills.len());
    let answer = client.send(send("m-1", "hello")).await?;
    if let Some(send_message_response::Payload::Task(t)) = answer.payload {
        let echo: Vec<String> = t
            .artifacts
            .iter()
            .flat_map(|a| a.parts.iter())
            .filter_map(|p| match &p.content {
                Some(agentwire_protocols::a2a::part::Content::Text(t)) => Some(t.clone()),
                _ => None,
            })
            .collect();
        println!(
            "task {}: {:?}, artifact {echo:?}",
            t.id,
            t.status.as_ref().map(|s| s.state())
        );
    }
    println!("streaming:");
    let mut stream = client.stream(send("m-2", "hello, streamed")).await?;
    print_all(&mut stream, "").await?;
    println!("a task that waits:");
    cancel_demo(&mut client).await?;
    let list = client.list().await?;
    println!("{} task(s) on the agent", list.total_size);
    Ok(())
}

#[tokio::main]
async fn main() {
    agentwire_examples::init_logging();
    agentwire_examples::exit_on_error("a2a_client", run().await);
}
