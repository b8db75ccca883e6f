//! What the A2A examples share: an echo agent serving every rpc of the generated gRPC
//! skeleton (`a2a_service_server::A2AService`) from an in-memory task store, on the gRPC,
//! JSON-RPC and HTTP+JSON bindings at once (the skeleton's `a2_a_service_routes`, whose
//! version gate holds all three to the `A2A-Version` service parameter), with its Agent Card
//! at the well-known path; the A2A errors as gRPC statuses, which the JSON bindings map to
//! their forms.
//!
//! The agent answers each message with a task whose artifact is the message's text. A text
//! starting with `wait` leaves the task working until it is canceled, so that cancellation
//! and resubscription can be shown; `reject` rejects the task. Every update of a task also
//! goes to the webhooks registered for it (push notifications, `push`).

mod client;
mod push;
mod service;
mod status;
mod store;

use std::pin::Pin;
use std::sync::Arc;

use agentwire_protocols::a2a::{
    AgentCapabilities, AgentCard, AgentInterface, AgentSkill, Artifact, Message, Part, Role,
    SendMessageRequest, StreamResponse, Task, TaskArtifactUpdateEvent, TaskState, TaskStatus,
    TaskStatusUpdateEvent, part, stream_response::Payload,
};
pub use agentwire_protocols::skeletons::a2a::a2_a_service_server::A2AServiceServer;
use agentwire_protocols::skeletons::a2a::{JSONRPC_HTTP, a2_a_service_routes};
use agentwire_transport::grpc_jsonrpc::{ProfileError, VersionGate};
use agentwire_transport::tokio::sync::{broadcast, mpsc};
use agentwire_transport::tonic::service::Routes;
use agentwire_transport::tonic::service::interceptor::InterceptedService;
use agentwire_transport::tonic::{self, Request, Status};
use futures_util::Stream;

pub use agentwire_transport::webhook::{Policy as WebhookPolicy, Stats as PushStats};
pub use client::{A2aClient, BINDINGS, Refused, UpdateStream, fetch_card, pick};
pub use push::{Pusher, TOKEN_HEADER};
pub use status::{A2aError, reason_of};
pub use store::{Store, is_terminal, state_of};

/// The protocol version this agent speaks (3.6), as the `A2A-Version` service parameter
/// names it.
pub const VERSION: &str = "1.0";
/// The service parameter naming the version, as gRPC metadata spells it (lower case, 10.2).
pub const VERSION_KEY: &str = "a2a-version";

/// A stream of updates, as both streaming rpcs answer.
pub type Updates = Pin<Box<dyn Stream<Item = Result<StreamResponse, Status>> + Send>>;

/// The echo agent.
#[derive(Clone)]
pub struct EchoAgent {
    store: Arc<Store>,
    card: AgentCard,
}

impl EchoAgent {
    /// An agent whose card names `url` as its JSON-RPC, gRPC and HTTP+JSON interfaces (all
    /// served there by [`EchoAgent::routes`]), delivering push notifications only to public
    /// `https` webhooks. Call it on a tokio runtime: the deliveries run there.
    pub fn new(url: &str) -> Self {
        EchoAgent::with_webhook_policy(url, WebhookPolicy::default())
    }

    /// The same agent delivering push notifications under `policy`: pass
    /// [`WebhookPolicy::local`] to reach a receiver on this machine (a test, a local relay),
    /// an opt-in the guard never makes by itself.
    pub fn with_webhook_policy(url: &str, policy: WebhookPolicy) -> Self {
        EchoAgent {
            store: Arc::new(Store::with_pusher(Pusher::start(policy))),
            card: agent_card(url),
        }
    }

    /// What its push notifications came to so far.
    pub fn push_stats(&self) -> PushStats {
        self.store.pusher().map(Pusher::stats).unwrap_or_default()
    }

    /// Its tasks.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Its card.
    pub fn card(&self) -> &AgentCard {
        &self.card
    }

    /// The gRPC binding alone, behind the version gate, ready for
    /// `Server::builder().add_service`.
    pub fn service(self) -> InterceptedService<A2AServiceServer<EchoAgent>, VersionGate> {
        A2AServiceServer::with_interceptor(self, VersionGate::new(&JSONRPC_HTTP))
    }

    /// Every binding and the card at its well-known path, for
    /// `Server::builder().accept_http1(true).add_routes`.
    pub fn routes(self) -> Result<Routes, ProfileError> {
        let card = self.card.clone();
        a2_a_service_routes(self, Some(&card))
    }

    /// Starts the work a message asks for on `task`: an echo of its text as an artifact, or,
    /// for `wait`, nothing until the task is canceled. Every step is published, so streams
    /// and pollers see it.
    async fn work(store: Arc<Store>, task: Task, text: String) {
        let status = |state: TaskState| {
            Payload::StatusUpdate(TaskStatusUpdateEvent {
                task_id: task.id.clone(),
                context_id: task.context_id.clone(),
                status: Some(TaskStatus {
                    state: state as i32,
                    ..TaskStatus::default()
                }),
                metadata: None,
            })
        };
        if text.starts_with("reject") {
            store.publish(status(TaskState::Rejected));
            return;
        }
        store.publish(status(TaskState::Working));
        if text.starts_with("wait") {
            return;
        }
        store.publish(Payload::ArtifactUpdate(TaskArtifactUpdateEvent {
            task_id: task.id.clone(),
            context_id: task.context_id.clone(),
            artifact: Some(Artifact {
                artifact_id: "echo".to_owned(),
                name: "echo".to_owned(),
                parts: vec![text_part(&text)],
                ..Artifact::default()
            }),
            last_chunk: true,
            ..TaskArtifactUpdateEvent::default()
        }));
        store.publish(status(TaskState::Completed));
    }

    /// The task a message opens or continues, with the message's text; a push config that
    /// came with it is registered for the task before any work starts.
    fn accept(&self, request: SendMessageRequest) -> Result<(Task, String), Status> {
        let push = request
            .configuration
            .and_then(|c| c.task_push_notification_config);
        let message = request
            .message
            .ok_or_else(|| A2aError::InvalidParams.status("`message` is required"))?;
        if message.parts.is_empty() {
            return Err(A2aError::InvalidParams.status("`message.parts` must hold a part"));
        }
        let text = text_of(&message);
        let task = if message.task_id.is_empty() {
            let context = if message.context_id.is_empty() {
                self.store.fresh_id("context")
            } else {
                message.context_id.clone()
            };
            self.store.create(&context, message)
        } else {
            let id = message.task_id.clone();
            self.store
                .append_message(&id, message)
                .map_err(|e| e.status(format!("task `{id}` takes no more messages")))?
        };
        if let Some(mut config) = push {
            if config.url.is_empty() {
                return Err(A2aError::InvalidParams.status("the push config's `url` is required"));
            }
            config.task_id = task.id.clone();
            self.store
                .put_config_with_task(config)
                .map_err(|e| e.status(format!("task `{}`", task.id)))?;
        }
        Ok((task, text))
    }
}

/// The agent's card: its JSON-RPC interface (preferred), its gRPC and its HTTP+JSON
/// interfaces at `url` (8.3.1), streaming, the extended card, one skill.
pub fn agent_card(url: &str) -> AgentCard {
    let interface = |binding: &str, url: String| AgentInterface {
        url,
        protocol_binding: binding.to_owned(),
        protocol_version: VERSION.to_owned(),
        ..AgentInterface::default()
    };
    let base = url.trim_end_matches('/');
    AgentCard {
        name: "agentwire echo agent".to_owned(),
        description: "Answers every message with a task whose artifact echoes its text.".to_owned(),
        supported_interfaces: vec![
            interface("JSONRPC", format!("{base}{}", JSONRPC_HTTP.path)),
            interface("GRPC", base.to_owned()),
            interface("HTTP+JSON", base.to_owned()),
        ],
        version: env!("CARGO_PKG_VERSION").to_owned(),
        // Every update of a task goes to its webhooks (3.1.7, 4.3.3).
        capabilities: Some(AgentCapabilities {
            streaming: Some(true),
            push_notifications: Some(true),
            extended_agent_card: Some(true),
            ..AgentCapabilities::default()
        }),
        default_input_modes: vec!["text/plain".to_owned()],
        default_output_modes: vec!["text/plain".to_owned()],
        skills: vec![AgentSkill {
            id: "echo".to_owned(),
            name: "Echo".to_owned(),
            description: "Repeats the message's text as an artifact.".to_owned(),
            tags: vec!["echo".to_owned()],
            ..AgentSkill::default()
        }],
        ..AgentCard::default()
    }
}

/// A text part.
pub fn text_part(text: &str) -> Part {
    Part {
        content: Some(part::Content::Text(text.to_owned())),
        ..Part::default()
    }
}

/// A user message with one text part.
pub fn user_message(id: &str, text: &str) -> Message {
    Message {
        message_id: id.to_owned(),
        role: Role::User as i32,
        parts: vec![text_part(text)],
        ..Message::default()
    }
}

/// The text parts of a message, joined by newlines.
pub fn text_of(message: &Message) -> String {
    message
        .parts
        .iter()
        .filter_map(|p| match &p.content {
            Some(part::Content::Text(t)) => Some(t.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A request carrying this agent's version, as a client sends it.
pub fn versioned<T>(message: T) -> Request<T> {
    let mut request = Request::new(message);
    request.metadata_mut().insert(
        VERSION_KEY,
        tonic::metadata::MetadataValue::from_static(VERSION),
    );
    request
}

/// The stream of a task: its state when the stream opens, then every update until one
/// ends it with a terminal state (3.1.2). A stream too slow to keep up is ended with
/// `RESOURCE_EXHAUSTED` rather than skipping updates silently.
fn stream_of(first: Task, mut updates: broadcast::Receiver<StreamResponse>) -> Updates {
    let (tx, rx) = mpsc::channel(16);
    agentwire_transport::tokio::spawn(async move {
        let first = StreamResponse {
            payload: Some(Payload::Task(first)),
        };
        if tx.send(Ok(first)).await.is_err() {
            return;
        }
        loop {
            let next = match updates.recv().await {
                Ok(update) => update,
                Err(broadcast::error::RecvError::Lagged(n)) => {
                    let _ = tx
                        .send(Err(Status::resource_exhausted(format!(
                            "the stream fell {n} updates behind"
                        ))))
                        .await;
                    return;
                }
                Err(broadcast::error::RecvError::Closed) => return,
            };
            let ends = matches!(&next.payload, Some(Payload::StatusUpdate(u))
                if u.status.as_ref().is_some_and(|s| is_terminal(s.state)));
            if tx.send(Ok(next)).await.is_err() || ends {
                return;
            }
        }
    });
    Box::pin(futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|item| (item, rx))
    }))
}
