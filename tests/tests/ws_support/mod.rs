//! Scripted peers for the WebSocket skeleton tests: a Zed side that streams a reply and an
//! AgentLoop server that asks for one approval per turn.

#![allow(dead_code)]

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use agentwire_protocols::agentloop as al;
use agentwire_protocols::helix_zed as hz;
use agentwire_protocols::skeletons::{agentloop as al_skel, helix_zed as hz_skel};
use agentwire_transport::tokio::sync::oneshot;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// Bound on every wait in these tests.
pub const WAIT: Duration = Duration::from_secs(20);

/// A generated message type from its JSON (a union member alone requires its discriminator).
pub fn typed<T: DeserializeOwned>(v: Value) -> T {
    serde_json::from_value(v).expect("test message matches its type")
}

/// Zed side: creates a thread for a session's first message, then streams the reply as
/// growing snapshots. A message `stream N` streams N snapshots growing one character each
/// (the load tests); anything else streams the words of "Zed heard: <message>".
#[derive(Default)]
pub struct ScriptedZed {
    pub threads: AtomicU64,
    /// Every chat_message received, in order.
    pub received: Mutex<Vec<hz::ChatMessage>>,
}

impl hz_skel::Handler for ScriptedZed {
    async fn chat_message(&self, out: &hz_skel::Sender, msg: hz::ChatMessage) {
        self.received.lock().unwrap().push(msg.clone());
        let d = msg.data;
        let session = d.helix_session_id;
        let thread = match d.acp_thread_id {
            Some(t) => t,
            None => {
                let t = format!("thread-{}", self.threads.fetch_add(1, Ordering::Relaxed));
                let created = hz::ContextCreatedEvent {
                    session_id: session.clone(),
                    data: hz::ContextCreatedData {
                        acp_thread_id: t.clone(),
                        helix_session_id: session.clone(),
                    },
                };
                if out.context_created(created).await.is_err() {
                    return;
                }
                t
            }
        };
        let message_id = format!("msg-{}", d.request_id);
        // Built lazily: a long stream must not materialise every snapshot up front.
        let snapshots: Box<dyn Iterator<Item = String> + Send> =
            match d.message.strip_prefix("stream ") {
                Some(n) => {
                    let n: usize = n.parse().unwrap_or(1);
                    Box::new((1..=n).map(|i| "x".repeat(i)))
                }
                None => {
                    let mut acc = String::new();
                    let words: Vec<String> = format!("Zed heard: {}", d.message)
                        .split(' ')
                        .map(str::to_owned)
                        .collect();
                    Box::new(words.into_iter().map(move |w| {
                        if !acc.is_empty() {
                            acc.push(' ');
                        }
                        acc.push_str(&w);
                        acc.clone()
                    }))
                }
            };
        for content in snapshots {
            let added = hz::MessageAddedEvent {
                session_id: session.clone(),
                data: hz::MessageAddedData {
                    acp_thread_id: thread.clone(),
                    message_id: message_id.clone(),
                    role: hz::MessageAddedDataRole::Assistant,
                    content,
                    timestamp: 1_700_000_000,
                },
            };
            if out.message_added(added).await.is_err() {
                return;
            }
        }
        let done = hz::MessageCompletedEvent {
            session_id: session,
            data: hz::MessageCompletedData {
                acp_thread_id: thread,
                message_id,
                request_id: d.request_id,
            },
        };
        let _ = out.message_completed(done).await;
    }
}

/// AgentLoop server: each turn says what it will do, asks to run `ls`, waits for the
/// decision, reports the output and finishes.
#[derive(Default)]
pub struct ScriptedAgentLoop {
    ids: AtomicU64,
    /// The turn waiting for an approval, per connection.
    pending: Mutex<HashMap<u64, oneshot::Sender<al::ReviewDecision>>>,
}

impl ScriptedAgentLoop {
    fn id(&self) -> String {
        format!("srv-{}", self.ids.fetch_add(1, Ordering::Relaxed))
    }
}

impl al_skel::Handler for ScriptedAgentLoop {
    async fn user_input(&self, out: &al_skel::Sender, _msg: al::UserInputMessage) {
        let (tx, rx) = oneshot::channel();
        self.pending.lock().unwrap().insert(out.connection(), tx);
        let steps = [
            json!({"type": "loading_state", "id": self.id(), "payload": {"loading": true}}),
            json!({"type": "response_item", "id": self.id(), "payload": {
                "id": "item-1", "type": "message", "role": "assistant",
                "content": [{"type": "output_text", "text": "Listing files."}]}}),
            json!({"type": "approval_request", "id": self.id(), "payload": {"command": ["ls"]}}),
        ];
        for step in steps {
            let msg = al::ServerMessage::from_json(&step.to_string()).unwrap();
            if out.send(&msg).await.is_err() {
                return;
            }
        }
        let Ok(review) = rx.await else { return };
        let text = if matches!(review, al::ReviewDecision::Yes | al::ReviewDecision::Always) {
            "a.txt b.txt"
        } else {
            "denied"
        };
        let _ = out
            .response_item(typed(
                json!({"type": "response_item", "id": self.id(), "payload": {
                "id": "item-2", "type": "local_shell_call_output",
                "output": json!({"output": text}).to_string()}}),
            ))
            .await;
        let _ = out
            .loading_state(typed(
                json!({"type": "loading_state", "id": self.id(), "payload": {"loading": false}}),
            ))
            .await;
        let _ = out
            .agent_finished(typed(
                json!({"type": "agent_finished", "id": self.id(), "payload": {"responseId": "resp-1"}}),
            ))
            .await;
    }

    async fn approval_response(&self, out: &al_skel::Sender, msg: al::ApprovalResponseMessage) {
        let waiting = self.pending.lock().unwrap().remove(&out.connection());
        if let Some(tx) = waiting {
            let _ = tx.send(msg.payload.review);
        }
    }

    async fn get_context_info(&self, out: &al_skel::Sender, _msg: al::GetContextInfoMessage) {
        let _ = out
            .context_info(typed(
                json!({"type": "context_info", "id": self.id(), "payload": {
                "tokenCount": 1000, "usagePercent": 0.5, "transcriptLength": 3,
                "maxTokens": 200000, "strategy": "sliding"}}),
            ))
            .await;
    }

    async fn manual_compact(&self, out: &al_skel::Sender, _msg: al::ManualCompactMessage) {
        let _ = out
            .context_compacted(typed(
                json!({"type": "context_compacted", "id": self.id(), "payload": {
                "oldTokenCount": 1000, "newTokenCount": 250, "reductionPercent": 75,
                "strategy": "sliding"}}),
            ))
            .await;
    }

    async fn closed(&self, connection: u64) {
        self.pending.lock().unwrap().remove(&connection);
    }
}
