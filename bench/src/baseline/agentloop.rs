//! Hand-written serde types for agentloop's `{id, type, payload}` frames and the response
//! items they carry.

use serde::Deserialize;

/// Client -> server frames, told apart by `type`.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMessage {
    UserInput {
        id: String,
        payload: UserInputPayload,
    },
    ApprovalResponse {
        id: String,
        payload: ApprovalResponsePayload,
    },
    GetContextInfo {
        id: String,
        #[serde(default)]
        payload: Option<Empty>,
    },
    ManualCompact {
        id: String,
        #[serde(default)]
        payload: Option<Empty>,
    },
}

/// A payload that carries nothing.
#[derive(Debug, Deserialize)]
pub struct Empty {}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UserInputPayload {
    pub input: Vec<ResponseInputItem>,
    #[serde(default)]
    pub previous_response_id: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ResponseInputItem {
    Message {
        role: MessageRole,
        content: Vec<ContentItem>,
    },
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalResponsePayload {
    pub review: ReviewDecision,
    #[serde(default)]
    pub apply_patch: Option<ApplyPatchCommand>,
    #[serde(default)]
    pub custom_deny_message: Option<String>,
    #[serde(default)]
    pub explanation: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReviewDecision {
    Yes,
    NoExit,
    NoContinue,
    Always,
    Explain,
}

#[derive(Debug, Deserialize)]
pub struct ApplyPatchCommand {
    pub patch: String,
}

/// Server -> client frames, told apart by `type`.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMessage {
    ResponseItem {
        id: String,
        payload: ResponseItem,
    },
    LoadingState {
        id: String,
        payload: LoadingStatePayload,
    },
    ApprovalRequest {
        id: String,
        payload: ApprovalRequestPayload,
    },
    AgentFinished {
        id: String,
        payload: AgentFinishedPayload,
    },
    ContextInfo {
        id: String,
        payload: ContextInfoPayload,
    },
    ContextCompacted {
        id: String,
        payload: ContextCompactedPayload,
    },
    Error {
        id: String,
        payload: ErrorPayload,
    },
}

#[derive(Debug, Deserialize)]
pub struct LoadingStatePayload {
    pub loading: bool,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalRequestPayload {
    pub command: Vec<String>,
    #[serde(default)]
    pub apply_patch: Option<ApplyPatchCommand>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentFinishedPayload {
    pub response_id: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextInfoPayload {
    pub token_count: u64,
    pub usage_percent: f64,
    pub transcript_length: u64,
    pub max_tokens: u64,
    pub strategy: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextCompactedPayload {
    pub old_token_count: u64,
    pub new_token_count: u64,
    pub reduction_percent: f64,
    pub strategy: String,
}

#[derive(Debug, Deserialize)]
pub struct ErrorPayload {
    pub message: String,
    #[serde(default)]
    pub details: Option<serde_json::Value>,
}

/// One output item of the agent, told apart by `type`.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ResponseItem {
    Message {
        id: String,
        role: MessageRole,
        content: Vec<ContentItem>,
    },
    FunctionCall {
        id: String,
        call_id: String,
        name: String,
        arguments: String,
    },
    FunctionCallOutput {
        id: String,
        call_id: String,
        output: String,
    },
    LocalShellCall {
        id: String,
        action: LocalShellCallAction,
        status: LocalShellCallStatus,
    },
    LocalShellCallOutput {
        id: String,
        output: String,
    },
    Reasoning {
        id: String,
        content: Vec<ContentItem>,
        #[serde(default)]
        duration_ms: Option<u64>,
    },
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageRole {
    User,
    Assistant,
    System,
}

#[derive(Debug, Deserialize)]
pub struct ContentItem {
    #[serde(rename = "type")]
    pub kind: ContentItemType,
    pub text: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ContentItemType {
    InputText,
    OutputText,
}

#[derive(Debug, Deserialize)]
pub struct LocalShellCallAction {
    pub command: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LocalShellCallStatus {
    InProgress,
    Completed,
    Incomplete,
}
