//! What the ACP examples share: typed values from JSON literals, ACP's error answers, and the
//! example client's answers to the agent's requests (permission, files, terminals), which the
//! interop tests reuse against the official SDKs' agents.

mod client;
mod terminals;

pub use client::{ClientAnswers, Permission};
pub use terminals::Terminals;

use agentwire_runtime::jsonrpc::{RpcError, codes};
use serde_json::Value;

/// ACP's "Resource not found" (a session, file or terminal that does not exist).
pub const RESOURCE_NOT_FOUND: i64 = -32002;

/// The protocol version the examples speak.
pub const PROTOCOL_VERSION: i64 = 1;

/// A typed value from a JSON literal (the schema's structs have many optional members).
pub fn typed<T: agentwire_runtime::serde::de::DeserializeOwned>(v: Value) -> Result<T, RpcError> {
    serde_json::from_value(v).map_err(|e| internal(format!("built a bad value: {e}")))
}

/// The -32603 answer with `message`.
pub fn internal(message: String) -> RpcError {
    RpcError {
        code: codes::INTERNAL_ERROR,
        message,
        data: None,
    }
}

/// The -32602 answer with `message`.
pub fn invalid_params(message: String) -> RpcError {
    RpcError {
        code: codes::INVALID_PARAMS,
        message,
        data: None,
    }
}

/// The -32002 answer naming what was not found.
pub fn not_found(what: String) -> RpcError {
    RpcError {
        code: RESOURCE_NOT_FOUND,
        message: format!("Resource not found: {what}"),
        data: None,
    }
}

/// The client capabilities the example client declares: it reads (and writes) text files and
/// runs terminals for the agent.
pub fn client_capabilities() -> Value {
    serde_json::json!({
        "fs": {"readTextFile": true, "writeTextFile": true},
        "terminal": true
    })
}

/// The text of a list of content blocks (ACP's `ContentBlock` as JSON): text blocks as they
/// are, resource links as their URI, anything else as `[type]`.
pub fn blocks_text(blocks: &Value) -> String {
    let parts: Vec<String> = blocks
        .as_array()
        .into_iter()
        .flatten()
        .map(|block| match block["type"].as_str() {
            Some("text") => block["text"].as_str().unwrap_or_default().to_owned(),
            Some("resource_link") => block["uri"].as_str().unwrap_or_default().to_owned(),
            other => format!("[{}]", other.unwrap_or("?")),
        })
        .collect();
    parts.join(" ")
}
