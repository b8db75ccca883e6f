//! What both MCP example servers share: typed values from JSON literals, the JSON-RPC errors
//! they answer with, and the Streamable HTTP session glue.

use std::sync::Arc;

use agentwire_protocols::skeletons::mcp::{ServerHandler, serve_messages};
use agentwire_runtime::jsonrpc::{RpcError, codes};
use agentwire_transport::jsonrpc::{CancellationToken, Config};
use agentwire_transport::streamable_http::{Outgoing, SessionPipe};
use serde_json::Value;

/// A typed value from a JSON literal (the schema's structs have many optional members).
pub fn typed<T: agentwire_runtime::serde::de::DeserializeOwned>(v: Value) -> Result<T, RpcError> {
    serde_json::from_value(v).map_err(|e| RpcError {
        code: codes::INTERNAL_ERROR,
        message: format!("server built a bad result: {e}"),
        data: None,
    })
}

/// The -32602 answer with `message`.
pub fn invalid_params(message: String) -> RpcError {
    RpcError {
        code: codes::INVALID_PARAMS,
        message,
        data: None,
    }
}

/// The answer to every `tasks/*` request of a server that declares no `tasks` capability.
pub fn no_tasks() -> RpcError {
    RpcError {
        code: codes::METHOD_NOT_FOUND,
        message: "this server runs no tasks".to_owned(),
        data: None,
    }
}

/// Streamable HTTP: one engine per session, bridged to the session's pipe.
pub fn serve_session<H: ServerHandler>(handler: Arc<H>, pipe: SessionPipe) {
    let (_sender, link, _connection) =
        serve_messages(handler, CancellationToken::new(), Config::default());
    pipe.bridge(link.incoming, link.outgoing, |o| Outgoing {
        json: o.text,
        // A response is routed by its own id.
        related: if o.answers.is_some() { None } else { o.related },
    });
}
