//! An A2A client on the generated gRPC skeleton: reads the agent's extended card, sends a
//! message and prints the task, streams a second one, then starts a task that waits,
//! resubscribes to it, cancels it and shows the canceled stream's end and the refusal of a
//! subscription to an ended task.
//!
//! `cargo run --example a2a_client [ENDPOINT]` (default `http://127.0.0.1:50052`, the
//! `a2a_server` example's address).

use agentwire_examples::a2a::{reason_of, text_of, user_message, versioned};
use agentwire_protocols::a2a::{
    CancelTaskRequest, GetExtendedAgentCardRequest, ListTasksRequest, SendMessageRequest,
    StreamResponse, SubscribeToTaskRequest, send_message_response, stream_response::Payload,
};
use agentwire_protocols::skeletons::a2a::a2_a_service_client::A2AServiceClient;
use agentwire_transport::tokio;
use agentwire_transport::tonic::transport::Channel;

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

/// Starts a waiting task, resubscribes to it, cancels it, and tries to subscribe again.
async fn cancel_demo(
    client: &mut A2AServiceClient<Channel>,
) -> Result<(), Box<dyn std::error::Error>> {
    let mut stream = client
        .send_streaming_message(versioned(send("m-3", "wait for me")))
        .await?
        .into_inner();
    let mut task_id = String::new();
    while let Some(update) = stream.message().await? {
        println!("  {}", describe(&update));
        if let Some(Payload::Task(t)) = &update.payload {
            task_id = t.id.clone();
        }
        if matches!(update.payload, Some(Payload::StatusUpdate(_))) {
            break; // working: the task now waits
        }
    }
    let mut again = client
        .subscribe_to_task(versioned(SubscribeToTaskRequest {
            id: task_id.clone(),
            ..Default::default()
        }))
        .await?
        .into_inner();
    let canceled = client
        .cancel_task(versioned(CancelTaskRequest {
            id: task_id.clone(),
            ..Default::default()
        }))
        .await?
        .into_inner();
    println!(
        "canceled: {:?}",
        canceled.status.as_ref().map(|s| s.state())
    );
    while let Some(update) = again.message().await? {
        println!("  resubscribed: {}", describe(&update));
    }
    let refused = client
        .subscribe_to_task(versioned(SubscribeToTaskRequest {
            id: task_id,
            ..Default::default()
        }))
        .await
        .err()
        .ok_or("a subscription to an ended task was accepted")?;
    println!(
        "subscribing again: {:?} {:?}",
        refused.code(),
        reason_of(&refused)
    );
    Ok(())
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let endpoint = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "http://127.0.0.1:50052".to_owned());
    let mut client = A2AServiceClient::connect(endpoint.clone())
        .await
        .map_err(|e| agentwire_examples::connect_error(&endpoint, "a2a_server", &e))?;
    let card = client
        .get_extended_agent_card(versioned(GetExtendedAgentCardRequest::default()))
        .await?
        .into_inner();
    println!("agent: {} ({})", card.name, card.description);
    let answer = client
        .send_message(versioned(send("m-1", "hello")))
        .await?
        .into_inner();
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
    let mut stream = client
        .send_streaming_message(versioned(send("m-2", "hello, streamed")))
        .await?
        .into_inner();
    while let Some(update) = stream.message().await? {
        println!("  {}", describe(&update));
    }
    println!("a task that waits:");
    cancel_demo(&mut client).await?;
    let list = client
        .list_tasks(versioned(ListTasksRequest::default()))
        .await?
        .into_inner();
    println!("{} task(s) on the agent", list.total_size);
    Ok(())
}

#[tokio::main]
async fn main() {
    agentwire_examples::init_logging();
    agentwire_examples::exit_on_error("a2a_client", run().await);
}
