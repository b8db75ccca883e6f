//! The fixtures for sessions of 2025-11-25 and the versions before it, opened by
//! `initialize`: the server asks the client itself (sampling, elicitation) while a tool runs.

use std::time::Duration;

use agentwire_protocols::mcp::v2025_11_25::{
    CallToolRequestParams, CallToolResult, CompleteRequestParams, CompleteResult, EmptyResult,
    GetPromptRequestParams, GetPromptResult, InitializeRequestParams, InitializeResult,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResult, SetLevelRequestParams,
    SubscribeRequestParams, UnsubscribeRequestParams,
};
use agentwire_protocols::skeletons::mcp::{ServerHandler, ServerSender};
use agentwire_runtime::jsonrpc::RpcError;
use serde_json::{Value, json};

use super::{SERVER_NAME, content, defaults_form, enums_form, text};
use crate::mcp::{invalid_params, typed};

/// The versions a session may agree on, newest first.
pub const LEGACY_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26"];

/// The 2025-11-25 fixtures; no state between calls.
pub struct Fixtures;

/// Each tool the suite calls, with what it checks in the answer.
const TOOLS: &[(&str, &str)] = &[
    ("test_simple_text", "Answers with one text block."),
    ("test_image_content", "Answers with one PNG image block."),
    ("test_audio_content", "Answers with one WAV audio block."),
    (
        "test_embedded_resource",
        "Answers with one embedded text resource.",
    ),
    (
        "test_multiple_content_types",
        "Answers with text, an image and a resource.",
    ),
    (
        "test_tool_with_logging",
        "Logs three messages while it runs.",
    ),
    (
        "test_tool_with_progress",
        "Reports progress 0, 50 and 100 of 100.",
    ),
    (
        "test_error_handling",
        "Always fails, with isError and a message.",
    ),
    ("test_sampling", "Asks the client's model with `prompt`."),
    (
        "test_elicitation",
        "Asks the user, through the client, for a name and an email.",
    ),
    (
        "test_elicitation_sep1034_defaults",
        "Asks for a form whose every field has a default.",
    ),
    (
        "test_elicitation_sep1330_enums",
        "Asks for a form with each kind of enum field.",
    ),
];

impl Fixtures {
    async fn log_three(sender: &ServerSender) -> Result<CallToolResult, RpcError> {
        for step in ["started", "working", "finished"] {
            let params = typed(json!({"level": "info", "logger": "fixtures", "data": step}))?;
            if let Err(e) = sender.notifications_message(params).await {
                tracing::warn!(%e, "log message not sent");
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        typed(json!({"content": [text("logged three messages")]}))
    }

    async fn progress(sender: &ServerSender) -> Result<CallToolResult, RpcError> {
        if let Some(call) = sender.incoming() {
            for done in [0, 50, 100] {
                let report = json!({"progress": done, "total": 100});
                call.progress(report).await.unwrap_or(false);
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
        let token = sender.progress_token().cloned().unwrap_or(Value::Null);
        typed(json!({"content": [text(&format!("progress token {token}"))]}))
    }

    async fn sample(sender: &ServerSender, prompt: &str) -> Result<CallToolResult, RpcError> {
        let params = typed(json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": prompt}}],
            "maxTokens": 100
        }))?;
        match sender.sampling_create_message(params).await {
            Ok(result) => {
                let said = serde_json::to_value(&result.content).unwrap_or(Value::Null);
                typed(json!({"content": [text(&format!("the model said: {said}"))]}))
            }
            Err(e) => {
                typed(json!({"content": [text(&format!("sampling failed: {e}"))], "isError": true}))
            }
        }
    }

    async fn elicit(sender: &ServerSender, form: Value) -> Result<CallToolResult, RpcError> {
        match sender.elicitation_create(typed(form)?).await {
            Ok(answer) => {
                let answer = serde_json::to_value(&answer).unwrap_or(Value::Null);
                typed(json!({"content": [text(&format!("the user answered: {answer}"))]}))
            }
            Err(e) => typed(
                json!({"content": [text(&format!("elicitation failed: {e}"))], "isError": true}),
            ),
        }
    }
}

impl ServerHandler for Fixtures {
    async fn initialize(
        &self,
        _sender: ServerSender,
        params: InitializeRequestParams,
    ) -> Result<InitializeResult, RpcError> {
        let version = LEGACY_VERSIONS
            .iter()
            .find(|v| **v == params.protocol_version)
            .unwrap_or(&LEGACY_VERSIONS[0]);
        tracing::info!(client = %params.client_info.name, version, "initialize");
        typed(json!({
            "protocolVersion": version,
            "capabilities": {
                "tools": {"listChanged": false},
                "resources": {"subscribe": true, "listChanged": false},
                "prompts": {"listChanged": false},
                "logging": {},
                "completions": {}
            },
            "serverInfo": {"name": SERVER_NAME, "version": env!("CARGO_PKG_VERSION")}
        }))
    }

    async fn tools_list(
        &self,
        _sender: ServerSender,
        _params: Option<PaginatedRequestParams>,
    ) -> Result<ListToolsResult, RpcError> {
        let tools: Vec<Value> = TOOLS
            .iter()
            .map(|(name, description)| {
                json!({"name": name, "description": description, "inputSchema": {"type": "object"}})
            })
            .collect();
        typed(json!({ "tools": tools }))
    }

    async fn tools_call(
        &self,
        sender: ServerSender,
        params: CallToolRequestParams,
    ) -> Result<CallToolResult, RpcError> {
        let arg = |name: &str| {
            let value = params.arguments.as_ref().and_then(|a| a.get(name));
            value.and_then(Value::as_str).unwrap_or("").to_owned()
        };
        if let Some((content, failed)) = content::tool(&params.name) {
            return typed(json!({"content": content, "isError": failed}));
        }
        match params.name.as_str() {
            "test_tool_with_logging" => Fixtures::log_three(&sender).await,
            "test_tool_with_progress" => Fixtures::progress(&sender).await,
            "test_sampling" => Fixtures::sample(&sender, &arg("prompt")).await,
            "test_elicitation" => {
                let form = json!({"message": arg("message"), "requestedSchema": {"type": "object",
                    "properties": {"username": {"type": "string"}, "email": {"type": "string", "format": "email"}},
                    "required": ["username", "email"]}});
                Fixtures::elicit(&sender, form).await
            }
            "test_elicitation_sep1034_defaults" => Fixtures::elicit(&sender, defaults_form()).await,
            "test_elicitation_sep1330_enums" => Fixtures::elicit(&sender, enums_form()).await,
            other => Err(invalid_params(format!("unknown tool `{other}`"))),
        }
    }

    async fn resources_list(
        &self,
        _sender: ServerSender,
        _params: Option<PaginatedRequestParams>,
    ) -> Result<ListResourcesResult, RpcError> {
        typed(json!({ "resources": content::resources(true) }))
    }

    async fn resources_templates_list(
        &self,
        _sender: ServerSender,
        _params: Option<PaginatedRequestParams>,
    ) -> Result<ListResourceTemplatesResult, RpcError> {
        typed(json!({ "resourceTemplates": content::templates() }))
    }

    async fn resources_read(
        &self,
        _sender: ServerSender,
        params: ReadResourceRequestParams,
    ) -> Result<ReadResourceResult, RpcError> {
        let uri = params.uri.as_str();
        match content::read(uri) {
            Some(content) => typed(json!({ "contents": [content] })),
            // 2025-11-25's resource-not-found code.
            None => Err(RpcError {
                code: -32002,
                message: format!("resource not found: {uri}"),
                data: Some(json!({ "uri": uri })),
            }),
        }
    }

    async fn resources_subscribe(
        &self,
        _sender: ServerSender,
        _params: SubscribeRequestParams,
    ) -> Result<EmptyResult, RpcError> {
        typed(json!({}))
    }

    async fn resources_unsubscribe(
        &self,
        _sender: ServerSender,
        _params: UnsubscribeRequestParams,
    ) -> Result<EmptyResult, RpcError> {
        typed(json!({}))
    }

    async fn prompts_list(
        &self,
        _sender: ServerSender,
        _params: Option<PaginatedRequestParams>,
    ) -> Result<ListPromptsResult, RpcError> {
        typed(json!({ "prompts": content::prompts(&[]) }))
    }

    async fn prompts_get(
        &self,
        _sender: ServerSender,
        params: GetPromptRequestParams,
    ) -> Result<GetPromptResult, RpcError> {
        let arg = |name: &str| {
            let value = params.arguments.as_ref().and_then(|a| a.get(name));
            value.map(String::as_str).unwrap_or("").to_owned()
        };
        match content::prompt(&params.name, arg) {
            Some(messages) => typed(json!({ "messages": messages })),
            None => Err(invalid_params(format!("unknown prompt `{}`", params.name))),
        }
    }

    async fn logging_set_level(
        &self,
        _sender: ServerSender,
        _params: SetLevelRequestParams,
    ) -> Result<EmptyResult, RpcError> {
        typed(json!({}))
    }

    async fn completion_complete(
        &self,
        _sender: ServerSender,
        _params: CompleteRequestParams,
    ) -> Result<CompleteResult, RpcError> {
        typed(json!({ "completion": content::completion() }))
    }
}
