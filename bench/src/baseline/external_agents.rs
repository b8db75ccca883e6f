//! Hand-written serde types for external_agents' WebSocket frames, both told apart by `type`.

use serde::Deserialize;

/// Web UI -> agent server.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum WebUiMessage {
    Hello {
        #[serde(rename = "sessionId")]
        session_id: String,
    },
    UserMessage {
        text: String,
    },
}

/// Agent server -> web UI.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AgentServerMessage {
    SessionReady {
        #[serde(rename = "sessionId")]
        session_id: String,
        #[serde(rename = "agentId")]
        agent_id: String,
    },
    Message(ChatMessageBroadcast),
    Error {
        code: WsErrorCode,
        message: String,
    },
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatMessageBroadcast {
    pub session_id: String,
    pub role: BroadcastRole,
    pub text: String,
    pub created_at: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BroadcastRole {
    User,
    Assistant,
    Error,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WsErrorCode {
    InvalidMessage,
    HelloRequired,
    InvalidSessionId,
    SessionNotFound,
}
