//! Hand-written serde types for ECA's JSON-RPC traffic. The envelope is what serde users
//! usually reach for: the method and its params as an adjacently tagged enum flattened into
//! the envelope, and an untagged enum to tell a server notification from a response, whose
//! `result` is decoded afterwards by the method of the request it answers.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    Number(i64),
    String(String),
}

/// Anything the client sends: requests (with an `id`) and notifications.
#[derive(Debug, Deserialize)]
pub struct ClientMessage {
    pub jsonrpc: String,
    #[serde(default)]
    pub id: Option<RequestId>,
    #[serde(flatten)]
    pub call: ClientCall,
}

/// The client's methods with their params.
#[derive(Debug, Deserialize)]
#[serde(tag = "method", content = "params")]
pub enum ClientCall {
    #[serde(rename = "initialize")]
    Initialize(InitializeParams),
    #[serde(rename = "initialized")]
    Initialized(Empty),
    #[serde(rename = "shutdown")]
    Shutdown,
    #[serde(rename = "exit")]
    Exit,
    #[serde(rename = "chat/prompt")]
    ChatPrompt(ChatPromptParams),
    #[serde(rename = "chat/toolCallApprove")]
    ChatToolCallApprove(ToolCallDecisionParams),
    #[serde(rename = "chat/toolCallReject")]
    ChatToolCallReject(ToolCallDecisionParams),
    #[serde(rename = "chat/queryContext")]
    ChatQueryContext(ChatQueryContextParams),
    #[serde(rename = "chat/queryCommands")]
    ChatQueryCommands(ChatQueryCommandsParams),
    #[serde(rename = "chat/promptStop")]
    ChatPromptStop(ChatIdParams),
    #[serde(rename = "chat/delete")]
    ChatDelete(ChatDeleteParams),
    #[serde(rename = "mcp/stopServer")]
    McpStopServer(McpServerParams),
    #[serde(rename = "mcp/startServer")]
    McpStartServer(McpServerParams),
}

/// Anything the server sends: notifications, and responses to the client's requests.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum ServerMessage {
    Notification(ServerNotificationMessage),
    Response(Response),
}

#[derive(Debug, Deserialize)]
pub struct ServerNotificationMessage {
    pub jsonrpc: String,
    #[serde(flatten)]
    pub call: ServerNotification,
}

/// The server's notifications with their params.
#[derive(Debug, Deserialize)]
#[serde(tag = "method", content = "params")]
pub enum ServerNotification {
    #[serde(rename = "chat/contentReceived")]
    ChatContentReceived(ChatContentReceivedParams),
    #[serde(rename = "tool/serverUpdated")]
    ToolServerUpdated(ToolServerUpdatedParams),
    #[serde(rename = "$/showMessage")]
    ShowMessage(ShowMessageParams),
}

#[derive(Debug, Deserialize)]
pub struct Response {
    pub jsonrpc: String,
    pub id: Option<RequestId>,
    #[serde(default)]
    pub result: Option<Value>,
    #[serde(default)]
    pub error: Option<RpcError>,
}

#[derive(Debug, Deserialize)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    #[serde(default)]
    pub data: Option<Value>,
}

/// A response's result, typed once the request's method is known.
#[derive(Debug)]
pub enum ClientResult {
    Initialize(InitializeResponse),
    Shutdown,
    ChatPrompt(ChatPromptResponse),
    ChatQueryContext(ChatQueryContextResponse),
    ChatQueryCommands(ChatQueryCommandsResponse),
    ChatDelete(Empty),
}

impl ClientResult {
    /// Decodes the `result` of a response to a `method` request.
    pub fn from_value(method: &str, result: Option<Value>) -> serde_json::Result<Self> {
        use serde::de::Error;
        let result = result.unwrap_or(Value::Null);
        Ok(match method {
            "initialize" => Self::Initialize(serde_json::from_value(result)?),
            "shutdown" => {
                <()>::deserialize(result)?;
                Self::Shutdown
            }
            "chat/prompt" => Self::ChatPrompt(serde_json::from_value(result)?),
            "chat/queryContext" => Self::ChatQueryContext(serde_json::from_value(result)?),
            "chat/queryCommands" => Self::ChatQueryCommands(serde_json::from_value(result)?),
            "chat/delete" => Self::ChatDelete(serde_json::from_value(result)?),
            other => return Err(serde_json::Error::custom(format!("no request `{other}`"))),
        })
    }
}

/// Params or results that carry no fields.
#[derive(Debug, Deserialize)]
pub struct Empty {}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeParams {
    pub process_id: Option<i64>,
    #[serde(default)]
    pub client_info: Option<ClientInfo>,
    #[serde(default)]
    pub initialization_options: Option<InitializationOptions>,
    pub capabilities: ClientCapabilities,
    pub workspace_folders: Vec<WorkspaceFolder>,
}

#[derive(Debug, Deserialize)]
pub struct ClientInfo {
    pub name: String,
    #[serde(default)]
    pub version: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializationOptions {
    #[serde(default)]
    pub chat_behavior: Option<ChatBehavior>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientCapabilities {
    #[serde(default)]
    pub code_assistant: Option<CodeAssistant>,
}

#[derive(Debug, Deserialize)]
pub struct CodeAssistant {
    #[serde(default)]
    pub chat: Option<bool>,
    #[serde(default)]
    pub doc: Option<bool>,
    #[serde(default)]
    pub edit: Option<bool>,
    #[serde(default)]
    pub fix: Option<bool>,
}

#[derive(Debug, Deserialize)]
pub struct WorkspaceFolder {
    pub uri: String,
    pub name: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChatBehavior {
    Agent,
    Plan,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResponse {
    pub models: Vec<String>,
    pub chat_default_model: String,
    pub chat_behaviors: Vec<ChatBehavior>,
    pub chat_default_behavior: ChatBehavior,
    pub chat_welcome_message: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatPromptParams {
    #[serde(default)]
    pub chat_id: Option<String>,
    pub request_id: String,
    pub message: String,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub behavior: Option<ChatBehavior>,
    #[serde(default)]
    pub contexts: Option<Vec<ChatContext>>,
}

/// A context attached to a prompt, told apart by `type`.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum ChatContext {
    File {
        path: String,
        #[serde(default, rename = "linesRange")]
        lines_range: Option<LinesRange>,
    },
    Directory {
        path: String,
    },
    Web {
        url: String,
    },
    RepoMap,
    McpResource {
        uri: String,
        name: String,
        description: String,
        #[serde(rename = "mimeType")]
        mime_type: String,
        server: String,
    },
}

#[derive(Debug, Deserialize)]
pub struct LinesRange {
    pub start: i64,
    pub end: i64,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatPromptResponse {
    pub chat_id: String,
    pub model: String,
    pub status: PromptStatus,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PromptStatus {
    Success,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatContentReceivedParams {
    pub chat_id: String,
    pub content: ChatContent,
    pub role: ContentRole,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ContentRole {
    User,
    System,
    Assistant,
}

/// A piece of chat content, told apart by `type`.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum ChatContent {
    Text { text: String },
    Url { title: String, url: String },
    Progress { state: ProgressState, text: String },
    Usage(UsageContent),
    ReasonStarted { id: String },
    ReasonText { id: String, text: String },
    ReasonFinished { id: String },
    ToolCallPrepare(ToolCallPrepareContent),
    ToolCallRun(ToolCallRunContent),
    ToolCalled(ToolCalledContent),
    ToolCallRejected(ToolCallRejected),
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProgressState {
    Running,
    Finished,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UsageContent {
    pub message_input_tokens: u64,
    pub message_output_tokens: u64,
    pub session_tokens: u64,
    #[serde(default)]
    pub message_cost: Option<String>,
    #[serde(default)]
    pub session_cost: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallPrepareContent {
    pub origin: ToolCallOrigin,
    pub id: String,
    pub name: String,
    pub arguments_text: String,
    pub manual_approval: bool,
    #[serde(default)]
    pub summary: Option<String>,
    #[serde(default)]
    pub details: Option<ToolCallDetails>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallRunContent {
    pub origin: ToolCallOrigin,
    pub id: String,
    pub name: String,
    pub arguments: BTreeMap<String, String>,
    pub manual_approval: bool,
    #[serde(default)]
    pub summary: Option<String>,
    #[serde(default)]
    pub details: Option<ToolCallDetails>,
}

#[derive(Debug, Deserialize)]
pub struct ToolCalledContent {
    pub origin: ToolCallOrigin,
    pub id: String,
    pub name: String,
    pub arguments: Vec<String>,
    pub error: bool,
    pub outputs: Vec<ToolCallOutput>,
    #[serde(default)]
    pub summary: Option<String>,
    #[serde(default)]
    pub details: Option<ToolCallDetails>,
}

#[derive(Debug, Deserialize)]
pub struct ToolCallOutput {
    #[serde(rename = "type")]
    pub kind: OutputType,
    pub content: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OutputType {
    Text,
}

#[derive(Debug, Deserialize)]
pub struct ToolCallRejected {
    pub origin: ToolCallOrigin,
    pub id: String,
    pub name: String,
    pub arguments: BTreeMap<String, String>,
    pub reason: RejectReason,
    #[serde(default)]
    pub summary: Option<String>,
    #[serde(default)]
    pub details: Option<ToolCallDetails>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RejectReason {
    User,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolCallOrigin {
    Mcp,
    Native,
}

/// Extra information about a tool call, told apart by `type`.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum ToolCallDetails {
    FileChange {
        path: String,
        diff: String,
        #[serde(rename = "linesAdded")]
        lines_added: u64,
        #[serde(rename = "linesRemoved")]
        lines_removed: u64,
    },
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallDecisionParams {
    pub chat_id: String,
    pub tool_call_id: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatQueryContextParams {
    #[serde(default)]
    pub chat_id: Option<String>,
    pub query: String,
    pub contexts: Vec<ChatContext>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatQueryContextResponse {
    #[serde(default)]
    pub chat_id: Option<String>,
    pub contexts: Vec<ChatContext>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatQueryCommandsParams {
    #[serde(default)]
    pub chat_id: Option<String>,
    pub query: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatQueryCommandsResponse {
    #[serde(default)]
    pub chat_id: Option<String>,
    pub commands: Vec<ChatCommand>,
}

#[derive(Debug, Deserialize)]
pub struct ChatCommand {
    pub name: String,
    pub description: String,
    #[serde(rename = "type")]
    pub kind: ChatCommandType,
    pub arguments: Vec<ChatCommandArgument>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChatCommandType {
    McpPrompt,
    Native,
}

#[derive(Debug, Deserialize)]
pub struct ChatCommandArgument {
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    pub required: bool,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatIdParams {
    pub chat_id: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatDeleteParams {
    #[serde(default)]
    pub chat_id: Option<String>,
}

/// A tool server's new state, told apart by `type`.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum ToolServerUpdatedParams {
    Native {
        name: String,
        status: String,
        tools: Vec<ServerTool>,
    },
    Mcp {
        name: String,
        command: String,
        args: Vec<String>,
        status: McpStatus,
        #[serde(default)]
        tools: Option<Vec<ServerTool>>,
    },
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum McpStatus {
    Running,
    Starting,
    Stopped,
    Failed,
    Disabled,
}

#[derive(Debug, Deserialize)]
pub struct ServerTool {
    pub name: String,
    pub description: String,
    pub parameters: Value,
    #[serde(default)]
    pub disabled: Option<bool>,
}

#[derive(Debug, Deserialize)]
pub struct McpServerParams {
    pub name: String,
}

#[derive(Debug, Deserialize)]
pub struct ShowMessageParams {
    #[serde(rename = "type")]
    pub kind: MessageType,
    pub message: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MessageType {
    Error,
    Warning,
    Info,
}
