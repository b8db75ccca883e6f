//! An MCP server behind OAuth: the generated server skeleton over Streamable HTTP, behind the
//! transport's resource-server layer (`oauth::resource::ResourceServer`). Its one tool,
//! `whoami`, answers with the caller's identity as the layer found it for that very request
//! (subject, client and scopes), which the handler reads with `sender.extension::<Identity>()`.
//! The `mcp_auth_server` example runs it; the authorization interop tests drive it.

use std::sync::Arc;

use agentwire_protocols::mcp::v2025_11_25::{
    CallToolRequestParams, CallToolResult, CompleteRequestParams, CompleteResult, EmptyResult,
    GetPromptRequestParams, GetPromptResult, InitializeRequestParams, InitializeResult,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResult, SetLevelRequestParams,
    SubscribeRequestParams, UnsubscribeRequestParams,
};
use agentwire_protocols::skeletons::mcp::{STREAMABLE_HTTP, Server, ServerHandler, ServerSender};
use agentwire_runtime::jsonrpc::RpcError;
use agentwire_transport::http_ws::ServerHandle;
use agentwire_transport::oauth::resource::{Identity, ResourceServer};
use agentwire_transport::streamable_http::ServerConfig;
use serde_json::{Value, json};
use tokio::net::TcpListener;

use crate::mcp::{invalid_params, typed};

/// The protocol versions served, newest first.
const VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26"];

/// The caller of one request, as `whoami` reports it.
pub fn describe(identity: Option<&Identity>) -> Value {
    match identity {
        Some(who) => json!({
            "subject": who.subject,
            "client_id": who.client_id,
            "scopes": who.scopes,
        }),
        None => json!({"subject": null, "client_id": null, "scopes": []}),
    }
}

/// The server's behaviour: `whoami`, and empty lists for everything else.
#[derive(Debug, Clone, Copy, Default)]
pub struct WhoAmI;

impl ServerHandler for WhoAmI {
    async fn initialize(
        &self,
        _sender: ServerSender,
        params: InitializeRequestParams,
    ) -> Result<InitializeResult, RpcError> {
        let version = VERSIONS
            .iter()
            .find(|v| **v == params.protocol_version)
            .unwrap_or(&VERSIONS[0]);
        typed(json!({
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": false}},
            "serverInfo": {"name": "agentwire-mcp-auth-example", "version": env!("CARGO_PKG_VERSION")},
            "instructions": "Tool: whoami (who the server thinks you are)."
        }))
    }

    async fn resources_list(
        &self,
        _sender: ServerSender,
        _params: Option<PaginatedRequestParams>,
    ) -> Result<ListResourcesResult, RpcError> {
        typed(json!({"resources": []}))
    }

    async fn resources_templates_list(
        &self,
        _sender: ServerSender,
        _params: Option<PaginatedRequestParams>,
    ) -> Result<ListResourceTemplatesResult, RpcError> {
        typed(json!({"resourceTemplates": []}))
    }

    async fn resources_read(
        &self,
        _sender: ServerSender,
        params: ReadResourceRequestParams,
    ) -> Result<ReadResourceResult, RpcError> {
        Err(RpcError {
            code: -32002,
            message: format!("resource not found: {}", params.uri),
            data: Some(json!({"uri": params.uri})),
        })
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
        typed(json!({"prompts": []}))
    }

    async fn prompts_get(
        &self,
        _sender: ServerSender,
        params: GetPromptRequestParams,
    ) -> Result<GetPromptResult, RpcError> {
        Err(invalid_params(format!("unknown prompt `{}`", params.name)))
    }

    async fn tools_list(
        &self,
        _sender: ServerSender,
        _params: Option<PaginatedRequestParams>,
    ) -> Result<ListToolsResult, RpcError> {
        typed(json!({"tools": [{
            "name": "whoami",
            "description": "Who the server thinks the caller is: subject, client and scopes.",
            "inputSchema": {"type": "object"}
        }]}))
    }

    async fn tools_call(
        &self,
        sender: ServerSender,
        params: CallToolRequestParams,
    ) -> Result<CallToolResult, RpcError> {
        if params.name != "whoami" {
            return Err(invalid_params(format!("unknown tool `{}`", params.name)));
        }
        // The identity of this request, not of the session: a token refreshed or stepped
        // up mid-session shows here from the next request on.
        let who = describe(sender.extension::<Identity>());
        typed(json!({
            "content": [{"type": "text", "text": who.to_string()}],
            "structuredContent": who,
        }))
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
        typed(json!({"completion": {"values": [], "hasMore": false}}))
    }
}

/// Serves [`WhoAmI`] on `listener` behind `guard`: every request needs a token `guard`
/// accepts, and the metadata document is served beside the endpoint.
pub fn serve(listener: TcpListener, guard: &ResourceServer) -> std::io::Result<ServerHandle> {
    let guard = guard.clone();
    Server::serve_http_wrapped(
        listener,
        Arc::new(WhoAmI),
        ServerConfig::new(STREAMABLE_HTTP),
        agentwire_transport::jsonrpc::Config::default(),
        move |router| guard.protect(router),
    )
}
