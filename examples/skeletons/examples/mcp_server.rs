//! An MCP server on the generated skeleton: tools (`echo`, `add`, `payload`, `progress`,
//! `sample`, `fail`), one resource and one resource template, one prompt, logging, completion,
//! progress notifications and sampling back to the client.
//!
//! `cargo run --example mcp_server` speaks newline-delimited JSON-RPC on stdin/stdout (point any
//! MCP client at it); `-- --http 127.0.0.1:8765` serves Streamable HTTP at
//! `http://127.0.0.1:8765/mcp` instead, printing `listening on <url>` as its first stdout line,
//! until stdin ends or reads `quit`. Logs go to stderr.

use std::sync::Arc;

use agentwire_examples::mcp::{invalid_params, typed};
use agentwire_protocols::mcp::v2025_11_25::{
    CallToolRequestParams, CallToolResult, CompleteRequestParams, CompleteResult, ContentBlock,
    CreateMessageRequestParams, EmptyResult, GetPromptRequestParams, GetPromptResult,
    InitializeRequestParams, InitializeResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResult, SamplingMessageContent, SamplingMessageContentBlock, SetLevelRequestParams,
    SubscribeRequestParams, TextContent, UnsubscribeRequestParams,
};
use agentwire_protocols::skeletons::mcp::{STREAMABLE_HTTP, Server, ServerHandler, ServerSender};
use agentwire_runtime::jsonrpc::RpcError;
use agentwire_transport::streamable_http::ServerConfig;
use serde_json::{Value, json};

/// The protocol versions this server speaks, newest first; a client offering another one
/// gets the newest.
const VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26"];

fn text(s: impl Into<String>) -> ContentBlock {
    ContentBlock::Text(TextContent {
        text: s.into(),
        annotations: None,
        meta: None,
    })
}

fn tool_result(content: Vec<ContentBlock>, is_error: bool) -> CallToolResult {
    CallToolResult {
        meta: None,
        content,
        structured_content: None,
        is_error: is_error.then_some(true),
        extra: Default::default(),
    }
}

/// The example's behaviour; it keeps no state between calls.
struct Example;

impl Example {
    /// `progress`: reports `steps` steps when the caller gave a progress token.
    async fn progress(sender: &ServerSender, steps: u64) -> Result<CallToolResult, RpcError> {
        let Some(call) = sender.incoming() else {
            return Ok(tool_result(vec![text("no request")], true));
        };
        // Each step stands for some work. The pause after the last report matters to clients
        // that handle notifications a tick later than responses (the TypeScript SDK does):
        // a report read together with the response would find its call already finished.
        let work = std::time::Duration::from_millis(50);
        for step in 1..=steps {
            tokio::time::sleep(work).await;
            let sent = call
                .progress(
                    json!({"progress": step, "total": steps, "message": format!("step {step}")}),
                )
                .await
                .unwrap_or(false);
            if !sent {
                break;
            }
        }
        tokio::time::sleep(work).await;
        Ok(tool_result(
            vec![text(format!("done in {steps} steps"))],
            false,
        ))
    }

    /// `sample`: asks the client's model and returns what it said.
    async fn sample(sender: &ServerSender, prompt: &str) -> Result<CallToolResult, RpcError> {
        let params: CreateMessageRequestParams = typed(json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": prompt}}],
            "maxTokens": 100
        }))?;
        match sender.sampling_create_message(params).await {
            Ok(result) => {
                let said = match result.content {
                    SamplingMessageContent::SamplingMessageContentBlock(
                        SamplingMessageContentBlock::Text(t),
                    ) => t.text,
                    _ => "(not text)".to_owned(),
                };
                Ok(tool_result(
                    vec![text(format!("{} said: {said}", result.model))],
                    false,
                ))
            }
            Err(e) => Ok(tool_result(
                vec![text(format!("sampling failed: {e}"))],
                true,
            )),
        }
    }
}

fn arg<'a>(p: &'a CallToolRequestParams, name: &str) -> Option<&'a Value> {
    p.arguments.as_ref().and_then(|a| a.get(name))
}

impl ServerHandler for Example {
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
            "serverInfo": {"name": "agentwire-mcp-example", "version": env!("CARGO_PKG_VERSION")},
            "instructions": "Tools: echo, add, payload, progress, sample, fail."
        }))
    }

    async fn resources_list(
        &self,
        _sender: ServerSender,
        _params: Option<PaginatedRequestParams>,
    ) -> Result<ListResourcesResult, RpcError> {
        typed(json!({"resources": [{
            "uri": "file:///greeting.txt", "name": "greeting", "mimeType": "text/plain"
        }]}))
    }

    async fn resources_templates_list(
        &self,
        _sender: ServerSender,
        _params: Option<PaginatedRequestParams>,
    ) -> Result<ListResourceTemplatesResult, RpcError> {
        typed(json!({"resourceTemplates": [{
            "uriTemplate": "greeting://{name}", "name": "greeting for a name", "mimeType": "text/plain"
        }]}))
    }

    async fn resources_read(
        &self,
        _sender: ServerSender,
        params: ReadResourceRequestParams,
    ) -> Result<ReadResourceResult, RpcError> {
        let body = if params.uri == "file:///greeting.txt" {
            "Hello from agentwire.".to_owned()
        } else if let Some(name) = params.uri.strip_prefix("greeting://") {
            format!("Hello, {name}.")
        } else {
            return Err(RpcError {
                code: -32002,
                message: format!("resource not found: {}", params.uri),
                data: Some(json!({"uri": params.uri})),
            });
        };
        typed(json!({"contents": [{"uri": params.uri, "mimeType": "text/plain", "text": body}]}))
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
        typed(json!({"prompts": [{
            "name": "greet", "description": "Greets someone by name.",
            "arguments": [{"name": "name", "required": true}]
        }]}))
    }

    async fn prompts_get(
        &self,
        _sender: ServerSender,
        params: GetPromptRequestParams,
    ) -> Result<GetPromptResult, RpcError> {
        if params.name != "greet" {
            return Err(invalid_params(format!("unknown prompt `{}`", params.name)));
        }
        let Some(name) = params.arguments.as_ref().and_then(|a| a.get("name")) else {
            return Err(invalid_params(
                "prompt `greet` needs the argument `name`".into(),
            ));
        };
        typed(json!({"messages": [{
            "role": "user", "content": {"type": "text", "text": format!("Please greet {name}.")}
        }]}))
    }

    async fn tools_list(
        &self,
        _sender: ServerSender,
        _params: Option<PaginatedRequestParams>,
    ) -> Result<ListToolsResult, RpcError> {
        let text_arg = |name: &str| json!({"type": "object", "properties": {name: {"type": "string"}}, "required": [name]});
        typed(json!({"tools": [
            {"name": "echo", "description": "Returns its text.", "inputSchema": text_arg("text")},
            {"name": "add", "description": "Adds two numbers.", "inputSchema": {
                "type": "object",
                "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                "required": ["a", "b"]}},
            {"name": "payload", "description": "Returns `size` bytes of text.", "inputSchema": {
                "type": "object", "properties": {"size": {"type": "integer"}}, "required": ["size"]}},
            {"name": "progress", "description": "Reports progress in `steps` steps.", "inputSchema": {
                "type": "object", "properties": {"steps": {"type": "integer"}}}},
            {"name": "sample", "description": "Asks the client's model.", "inputSchema": text_arg("prompt")},
            {"name": "fail", "description": "Always fails (isError).", "inputSchema": {"type": "object"}}
        ]}))
    }

    async fn tools_call(
        &self,
        sender: ServerSender,
        params: CallToolRequestParams,
    ) -> Result<CallToolResult, RpcError> {
        let str_arg = |name: &str| arg(&params, name).and_then(Value::as_str);
        let num_arg = |name: &str| arg(&params, name).and_then(Value::as_f64);
        match params.name.as_str() {
            "echo" => match str_arg("text") {
                Some(t) => Ok(tool_result(vec![text(t)], false)),
                None => Err(invalid_params("`echo` needs a string `text`".into())),
            },
            "add" => match (num_arg("a"), num_arg("b")) {
                (Some(a), Some(b)) => Ok(tool_result(vec![text(format!("{}", a + b))], false)),
                _ => Err(invalid_params("`add` needs numbers `a` and `b`".into())),
            },
            "payload" => {
                let size = arg(&params, "size").and_then(Value::as_u64).unwrap_or(1024);
                if size > 16 * 1024 * 1024 {
                    return Err(invalid_params("`size` is at most 16 MiB".into()));
                }
                let body: String = "abcdefghijklmnopqrstuvwxyz012345"
                    .chars()
                    .cycle()
                    .take(usize::try_from(size).unwrap_or(0))
                    .collect();
                Ok(tool_result(vec![text(body)], false))
            }
            "progress" => {
                let steps = arg(&params, "steps").and_then(Value::as_u64).unwrap_or(3);
                Self::progress(&sender, steps.min(100)).await
            }
            "sample" => Self::sample(&sender, str_arg("prompt").unwrap_or("Say hello")).await,
            "fail" => Ok(tool_result(vec![text("this tool always fails")], true)),
            other => Err(invalid_params(format!("unknown tool `{other}`"))),
        }
    }

    async fn logging_set_level(
        &self,
        _sender: ServerSender,
        params: SetLevelRequestParams,
    ) -> Result<EmptyResult, RpcError> {
        tracing::info!(level = ?params.level, "log level set");
        typed(json!({}))
    }

    async fn completion_complete(
        &self,
        _sender: ServerSender,
        _params: CompleteRequestParams,
    ) -> Result<CompleteResult, RpcError> {
        typed(json!({"completion": {"values": ["Ada", "Alan"], "total": 2, "hasMore": false}}))
    }

    // This server runs no request as a task (it does not declare `tasks`).
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    agentwire_examples::init_logging();
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().position(|a| a == "--http") {
        None => {
            agentwire_protocols::skeletons::mcp::Server::serve_stdio(
                Example,
                agentwire_transport::jsonrpc::Config::default(),
            )
            .await
        }
        Some(i) => {
            let addr = args.get(i + 1).map_or("127.0.0.1:8765", String::as_str);
            let listener = tokio::net::TcpListener::bind(addr).await?;
            let handler = Arc::new(Example);
            let http = ServerConfig::new(STREAMABLE_HTTP);
            let config = agentwire_transport::jsonrpc::Config::default();
            let handle = Server::serve_http(listener, handler, http, config)?;
            let url = format!("http://{}{}", handle.local_addr(), STREAMABLE_HTTP.path);
            println!("listening on {url}");
            tracing::info!(%url, "mcp server listening; {}", agentwire_examples::STOP_HINT);
            agentwire_examples::wait_for_stop().await;
            handle.shutdown().await
        }
    }
}
