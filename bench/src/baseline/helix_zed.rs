//! Hand-written serde types for helix_zed: Helix's `{type, data}` frames and Zed's
//! `{session_id, event_type, data}` events.

use serde::Deserialize;

/// Helix -> Zed frames, told apart by `type`.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum HelixMessage {
    ChatMessage { data: ChatMessageData },
}

#[derive(Debug, Deserialize)]
pub struct ChatMessageData {
    pub helix_session_id: String,
    pub acp_thread_id: Option<String>,
    pub message: String,
    pub request_id: String,
}

/// Zed -> Helix events, told apart by `event_type`.
#[derive(Debug, Deserialize)]
#[serde(tag = "event_type", rename_all = "snake_case")]
pub enum ZedEvent {
    ContextCreated {
        session_id: String,
        data: ContextCreatedData,
    },
    MessageAdded {
        session_id: String,
        data: MessageAddedData,
    },
    MessageCompleted {
        session_id: String,
        data: MessageCompletedData,
    },
}

#[derive(Debug, Deserialize)]
pub struct ContextCreatedData {
    pub acp_thread_id: String,
    pub helix_session_id: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Assistant,
}

#[derive(Debug, Deserialize)]
pub struct MessageAddedData {
    pub acp_thread_id: String,
    pub message_id: String,
    pub role: Role,
    pub content: String,
    pub timestamp: u64,
}

#[derive(Debug, Deserialize)]
pub struct MessageCompletedData {
    pub acp_thread_id: String,
    pub message_id: String,
    pub request_id: String,
}
