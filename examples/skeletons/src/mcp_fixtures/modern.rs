//! The fixtures for 2026-07-28's requests, each served on its own: no session, the client's
//! version and capabilities in every request's `_meta`, `server/discover` instead of
//! `initialize`, caching hints on list and read results, and input-required results (see
//! [`super::flows`]) instead of requests to the client.

use std::time::Duration;

use agentwire_protocols::mcp::v2026_07_28::{
    CallToolRequestParams, CallToolResultResponseResult, CompleteRequestParams, CompleteResult,
    DiscoverResult, GetPromptRequestParams, GetPromptResultResponseResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResultResponseResult, RequestParams,
    SubscriptionsListenRequestParams, SubscriptionsListenResult,
};
use agentwire_protocols::skeletons::mcp::STREAMABLE_HTTP;
use agentwire_protocols::skeletons::mcp::v2026_07_28::{ServerHandler, ServerSender};
use agentwire_runtime::jsonrpc::RpcError;
use serde_json::{Value, json};

use super::flows;
use super::rounds::{Round, said};
use super::{SERVER_NAME, content};
use crate::mcp::{invalid_params, typed};

/// The 2026-07-28 fixtures; no state between calls (what a flow needs next travels, sealed,
/// in its request state).
pub struct Fixtures;

/// How long a client may keep a list or read result (server/utilities/caching.mdx).
const TTL_MS: u64 = 60_000;

/// Each tool the suite calls, with what it does.
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
        "test_tool_with_progress",
        "Reports progress 0, 50 and 100 of 100.",
    ),
    (
        "test_tool_with_logging",
        "Logs three messages at the level the request asks for.",
    ),
    (
        "test_logging_tool",
        "Logs three messages at the level the request asks for.",
    ),
    (
        "test_error_handling",
        "Always fails, with isError and a message.",
    ),
    (
        "test_missing_capability",
        "Asks the client's model; needs sampling.",
    ),
    (
        "test_streaming_elicitation",
        "Asks the user for a name; needs elicitation.",
    ),
    (
        "test_input_required_result_elicitation",
        "Asks the user for a name.",
    ),
    (
        "test_input_required_result_sampling",
        "Asks the client's model a question.",
    ),
    (
        "test_input_required_result_list_roots",
        "Asks for the client's roots.",
    ),
    (
        "test_input_required_result_request_state",
        "Asks for a confirmation, with state.",
    ),
    (
        "test_input_required_result_tampered_state",
        "Asks for a confirmation, with sealed state.",
    ),
    (
        "test_input_required_result_multiple_inputs",
        "Asks for three inputs at once.",
    ),
    (
        "test_input_required_result_multi_round",
        "Asks two questions in turn.",
    ),
    (
        "test_input_required_result_capabilities",
        "Asks only what the client can answer.",
    ),
];

/// The tool whose `region` a client over HTTP mirrors into the header `Mcp-Param-Region`
/// (basic/transports/streamable-http.mdx, "Custom Headers from Tool Parameters"); [`super::serve`]
/// has the transport refuse a call whose header is missing or says another region.
pub const HEADER_TOOL: &str = "test_param_header";

/// [`HEADER_TOOL`]'s input schema, with its `x-mcp-header` mark.
pub fn header_tool_schema() -> Value {
    json!({"type": "object", "required": ["region"], "properties": {
        "region": {"type": "string", "x-mcp-header": "Region",
            "description": "Where to run; mirrored into Mcp-Param-Region."}}})
}

/// A request's params as JSON (what the flows read: answers, state, `_meta`).
fn as_json<T: agentwire_runtime::serde::Serialize>(params: &T) -> Value {
    serde_json::to_value(params).unwrap_or(Value::Null)
}

/// The caching hints every list and read result carries.
fn cacheable(mut result: Value) -> Value {
    result["resultType"] = json!("complete");
    result["ttlMs"] = json!(TTL_MS);
    result["cacheScope"] = json!("public");
    result
}

impl Fixtures {
    async fn progress(sender: &ServerSender) -> Value {
        if let Some(call) = sender.incoming() {
            for done in [0, 50, 100] {
                let report = json!({"progress": done, "total": 100});
                call.progress(report).await.unwrap_or(false);
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
        let token = sender.progress_token().cloned().unwrap_or(Value::Null);
        said(&format!("progress token {token}"))
    }

    /// Logs three messages, but only when the request asked for a level that lets `info`
    /// through (basic/index.mdx: no log messages for a request that set no `logLevel`).
    async fn log_three(sender: &ServerSender, params: &Value) -> Result<Value, RpcError> {
        const LEVELS: &[&str] = &[
            "debug",
            "info",
            "notice",
            "warning",
            "error",
            "critical",
            "alert",
            "emergency",
        ];
        let wanted = params["_meta"]["io.modelcontextprotocol/logLevel"].as_str();
        let shown = wanted.and_then(|w| LEVELS.iter().position(|l| *l == w));
        if shown.is_some_and(|at| at <= 1) {
            for step in ["started", "working", "finished"] {
                let params = typed(json!({"level": "info", "logger": "fixtures", "data": step}))?;
                if let Err(e) = sender.notifications_message(params).await {
                    tracing::warn!(%e, "log message not sent");
                }
            }
        }
        Ok(said("logged at the level asked for"))
    }
}

impl ServerHandler for Fixtures {
    async fn server_discover(
        &self,
        _sender: ServerSender,
        _params: RequestParams,
    ) -> Result<DiscoverResult, RpcError> {
        typed(cacheable(json!({
            "supportedVersions": STREAMABLE_HTTP.versions,
            "capabilities": {
                "tools": {}, "resources": {}, "prompts": {}, "logging": {}, "completions": {}
            },
            "_meta": {"io.modelcontextprotocol/serverInfo":
                {"name": SERVER_NAME, "version": env!("CARGO_PKG_VERSION")}}
        })))
    }

    async fn tools_list(
        &self,
        _sender: ServerSender,
        _params: PaginatedRequestParams,
    ) -> Result<ListToolsResult, RpcError> {
        let mut tools: Vec<Value> = TOOLS
            .iter()
            .map(|(name, description)| {
                json!({"name": name, "description": description, "inputSchema": {"type": "object"}})
            })
            .collect();
        tools.push(
            json!({"name": HEADER_TOOL, "inputSchema": header_tool_schema(),
            "description": "Names the region its header and arguments agree on."}),
        );
        typed(cacheable(json!({ "tools": tools })))
    }

    async fn tools_call(
        &self,
        sender: ServerSender,
        params: CallToolRequestParams,
    ) -> Result<CallToolResultResponseResult, RpcError> {
        let name = params.name.as_str();
        let json = as_json(&params);
        if let Some((content, failed)) = content::tool(name) {
            return typed(json!({"resultType": "complete", "content": content, "isError": failed}));
        }
        let result = match name {
            "test_tool_with_progress" => Fixtures::progress(&sender).await,
            "test_tool_with_logging" | "test_logging_tool" => {
                Fixtures::log_three(&sender, &json).await?
            }
            HEADER_TOOL => match json["arguments"]["region"].as_str() {
                Some(region) => said(&format!("region {region}")),
                None => return Err(invalid_params("`region` must be a string".into())),
            },
            other => match flows::tool(other, &Round::of(&json)) {
                Some(answer) => answer?,
                None => return Err(invalid_params(format!("unknown tool `{other}`"))),
            },
        };
        typed(result)
    }

    async fn resources_list(
        &self,
        _sender: ServerSender,
        _params: PaginatedRequestParams,
    ) -> Result<ListResourcesResult, RpcError> {
        typed(cacheable(json!({ "resources": content::resources(false) })))
    }

    async fn resources_templates_list(
        &self,
        _sender: ServerSender,
        _params: PaginatedRequestParams,
    ) -> Result<ListResourceTemplatesResult, RpcError> {
        typed(cacheable(
            json!({ "resourceTemplates": content::templates() }),
        ))
    }

    async fn resources_read(
        &self,
        _sender: ServerSender,
        params: ReadResourceRequestParams,
    ) -> Result<ReadResourceResultResponseResult, RpcError> {
        let uri = params.uri.as_str();
        match content::read(uri) {
            Some(content) => typed(cacheable(json!({ "contents": [content] }))),
            // server/resources.mdx (2026-07-28): an unknown resource is -32602, with its URI
            // in `data` (2025-11-25's -32002 is retired).
            None => Err(RpcError {
                data: Some(json!({ "uri": uri })),
                ..invalid_params(format!("resource not found: {uri}"))
            }),
        }
    }

    async fn prompts_list(
        &self,
        _sender: ServerSender,
        _params: PaginatedRequestParams,
    ) -> Result<ListPromptsResult, RpcError> {
        let asking = json!({"name": "test_input_required_result_prompt",
            "description": "Asks for its context first."});
        typed(cacheable(json!({ "prompts": content::prompts(&[asking]) })))
    }

    async fn prompts_get(
        &self,
        _sender: ServerSender,
        params: GetPromptRequestParams,
    ) -> Result<GetPromptResultResponseResult, RpcError> {
        if params.name == "test_input_required_result_prompt" {
            return typed(flows::prompt(&Round::of(&as_json(&params)))?);
        }
        let arg = |name: &str| {
            let value = params.arguments.as_ref().and_then(|a| a.get(name));
            value.map(String::as_str).unwrap_or("").to_owned()
        };
        match content::prompt(&params.name, arg) {
            Some(messages) => typed(json!({"resultType": "complete", "messages": messages})),
            None => Err(invalid_params(format!("unknown prompt `{}`", params.name))),
        }
    }

    async fn completion_complete(
        &self,
        _sender: ServerSender,
        _params: CompleteRequestParams,
    ) -> Result<CompleteResult, RpcError> {
        typed(json!({"resultType": "complete", "completion": content::completion()}))
    }

    /// Nothing in these fixtures changes, so the subscription honours no notification kind:
    /// it is acknowledged (naming none) and held open until the client closes it.
    async fn subscriptions_listen(
        &self,
        sender: ServerSender,
        _params: SubscriptionsListenRequestParams,
    ) -> Result<SubscriptionsListenResult, RpcError> {
        let id = sender.request_id().map(as_json).unwrap_or(Value::Null);
        let ack = typed(json!({"notifications": {},
            "_meta": {"io.modelcontextprotocol/subscriptionId": id}}))?;
        if let Err(e) = sender.notifications_subscriptions_acknowledged(ack).await {
            tracing::warn!(%e, "subscription not acknowledged");
        }
        std::future::pending().await
    }
}
