//! An MCP server on the generated skeleton that offers the fixtures the official conformance
//! suite (`@modelcontextprotocol/conformance`) calls by name: `test_*` tools, `test://`
//! resources and `test_*` prompts. Each answers with content of this project's own making in
//! the shape the suite checks. `tests/tests/mcp_conformance.rs` runs the suite against it.
//!
//! `cargo run --example mcp_conformance_server -- [ADDR]` serves Streamable HTTP at
//! `http://ADDR/mcp` (default 127.0.0.1:8766), printing `listening on <url>` as its first
//! stdout line, until `quit`, the end of its input or Ctrl-C.

use std::sync::Arc;
use std::time::Duration;

use agentwire_examples::mcp::{invalid_params, typed};
use agentwire_protocols::mcp::v2025_11_25::{
    CallToolRequestParams, CallToolResult, CompleteRequestParams, CompleteResult, EmptyResult,
    GetPromptRequestParams, GetPromptResult, InitializeRequestParams, InitializeResult,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResult, SetLevelRequestParams,
    SubscribeRequestParams, UnsubscribeRequestParams,
};
use agentwire_protocols::skeletons::mcp::{STREAMABLE_HTTP, Server, ServerHandler, ServerSender};
use agentwire_runtime::jsonrpc::RpcError;
use agentwire_transport::streamable_http::ServerConfig;
use serde_json::{Value, json};

/// The protocol versions this server speaks, newest first.
const VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26"];
/// A 1x1 PNG, made for this example.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==";
/// Eight silent samples of 16-bit mono WAV at 8 kHz, made for this example.
const WAV: &str =
    "UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA";

fn text(s: &str) -> Value {
    json!({"type": "text", "text": s})
}

/// The fixtures' behaviour; no state between calls.
struct Fixtures;

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

/// The form of `test_elicitation_sep1034_defaults`: every primitive kind with a default.
fn defaults_form() -> Value {
    json!({"message": "Accept or change the defaults.", "requestedSchema": {"type": "object",
    "properties": {
        "name": {"type": "string", "default": "John Doe"},
        "age": {"type": "integer", "default": 30},
        "score": {"type": "number", "default": 95.5},
        "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
        "verified": {"type": "boolean", "default": true}
    }}})
}

/// The form of `test_elicitation_sep1330_enums`: single and multiple choice, titled or not.
fn enums_form() -> Value {
    json!({"message": "Pick some options.", "requestedSchema": {"type": "object",
    "properties": {
        "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
        "titledSingle": {"type": "string", "oneOf": [
            {"const": "value1", "title": "First"}, {"const": "value2", "title": "Second"}]},
        "legacyEnum": {"type": "string", "enum": ["opt1", "opt2"], "enumNames": ["One", "Two"]},
        "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2"]}},
        "titledMulti": {"type": "array", "items": {"anyOf": [
            {"const": "value1", "title": "First"}, {"const": "value2", "title": "Second"}]}}
    }}})
}

impl ServerHandler for Fixtures {
    async fn initialize(
        &self,
        _sender: ServerSender,
        params: InitializeRequestParams,
    ) -> Result<InitializeResult, RpcError> {
        let version = VERSIONS
            .iter()
            .find(|v| **v == params.protocol_version)
            .unwrap_or(&VERSIONS[0]);
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
            "serverInfo": {"name": "agentwire-mcp-conformance-fixtures", "version": env!("CARGO_PKG_VERSION")}
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
        let image = json!({"type": "image", "data": PNG, "mimeType": "image/png"});
        let resource = json!({"type": "resource", "resource": {
            "uri": "test://embedded-resource", "mimeType": "text/plain", "text": "An embedded resource."}});
        match params.name.as_str() {
            "test_simple_text" => typed(json!({"content": [text("A simple text answer.")]})),
            "test_image_content" => typed(json!({ "content": [image] })),
            "test_audio_content" => {
                typed(json!({"content": [{"type": "audio", "data": WAV, "mimeType": "audio/wav"}]}))
            }
            "test_embedded_resource" => typed(json!({ "content": [resource] })),
            "test_multiple_content_types" => {
                typed(json!({"content": [text("Three kinds of content:"), image, resource]}))
            }
            "test_tool_with_logging" => Fixtures::log_three(&sender).await,
            "test_tool_with_progress" => Fixtures::progress(&sender).await,
            "test_error_handling" => typed(json!({
                "content": [text("this tool fails on purpose")], "isError": true})),
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
        typed(json!({"resources": [
            {"uri": "test://static-text", "name": "static text", "mimeType": "text/plain"},
            {"uri": "test://static-binary", "name": "static binary", "mimeType": "image/png"},
            {"uri": "test://watched-resource", "name": "watched", "mimeType": "text/plain"}
        ]}))
    }

    async fn resources_templates_list(
        &self,
        _sender: ServerSender,
        _params: Option<PaginatedRequestParams>,
    ) -> Result<ListResourceTemplatesResult, RpcError> {
        typed(json!({"resourceTemplates": [{
            "uriTemplate": "test://template/{id}/data", "name": "data by id", "mimeType": "application/json"
        }]}))
    }

    async fn resources_read(
        &self,
        _sender: ServerSender,
        params: ReadResourceRequestParams,
    ) -> Result<ReadResourceResult, RpcError> {
        let uri = params.uri.as_str();
        let content = match uri {
            "test://static-text" | "test://watched-resource" => {
                json!({"uri": uri, "mimeType": "text/plain", "text": "Static text of the fixtures."})
            }
            "test://static-binary" => json!({"uri": uri, "mimeType": "image/png", "blob": PNG}),
            _ => match uri
                .strip_prefix("test://template/")
                .and_then(|rest| rest.strip_suffix("/data"))
            {
                Some(id) => json!({"uri": uri, "mimeType": "application/json",
                    "text": json!({"id": id}).to_string()}),
                None => {
                    return Err(RpcError {
                        code: -32002,
                        message: format!("resource not found: {uri}"),
                        data: Some(json!({ "uri": uri })),
                    });
                }
            },
        };
        typed(json!({ "contents": [content] }))
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
        typed(json!({"prompts": [
            {"name": "test_simple_prompt", "description": "A prompt without arguments."},
            {"name": "test_prompt_with_arguments", "description": "Uses arg1 and arg2.",
             "arguments": [{"name": "arg1", "required": true}, {"name": "arg2", "required": true}]},
            {"name": "test_prompt_with_embedded_resource", "description": "Embeds a resource.",
             "arguments": [{"name": "resourceUri", "required": true}]},
            {"name": "test_prompt_with_image", "description": "Shows an image."}
        ]}))
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
        let user = |content: Value| json!({"role": "user", "content": content});
        let messages = match params.name.as_str() {
            "test_simple_prompt" => vec![user(text("A prompt without arguments."))],
            "test_prompt_with_arguments" => vec![user(text(&format!(
                "arg1 is '{}' and arg2 is '{}'",
                arg("arg1"),
                arg("arg2")
            )))],
            "test_prompt_with_embedded_resource" => vec![
                user(json!({"type": "resource", "resource": {
                    "uri": arg("resourceUri"), "mimeType": "text/plain", "text": "The embedded resource."}})),
                user(text("Read the resource above.")),
            ],
            "test_prompt_with_image" => vec![
                user(json!({"type": "image", "data": PNG, "mimeType": "image/png"})),
                user(text("Describe the image above.")),
            ],
            other => return Err(invalid_params(format!("unknown prompt `{other}`"))),
        };
        typed(json!({ "messages": messages }))
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
        typed(json!({"completion": {"values": ["one", "two"], "total": 2, "hasMore": false}}))
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    agentwire_examples::init_logging();
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8766".to_owned());
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    let handler = Arc::new(Fixtures);
    let http = ServerConfig::new(STREAMABLE_HTTP);
    let config = agentwire_transport::jsonrpc::Config::default();
    let handle = Server::serve_http(listener, handler, http, config)?;
    let url = format!("http://{}{}", handle.local_addr(), STREAMABLE_HTTP.path);
    println!("listening on {url}");
    tracing::info!("{}", agentwire_examples::STOP_HINT);
    agentwire_examples::wait_for_stop().await;
    handle.shutdown().await
}
