//! The fixtures MCP's official conformance suite (`@modelcontextprotocol/conformance`) calls by
//! name (`test_*` tools, `test://` resources, `test_*` prompts), for both eras of the protocol
//! on one endpoint: [`legacy`] answers sessions of 2025-11-25 and before (opened by
//! `initialize`), [`modern`] answers 2026-07-28's requests, each served on its own, and asks
//! the client for input with input-required results whose state the transport seals. The
//! content is this project's own, in the shapes the suite checks.
//! `examples/mcp_conformance_server` serves them; `tests/tests/mcp_conformance.rs` runs the
//! suite against it.

mod content;
mod flows;
pub mod legacy;
pub mod modern;
pub mod rounds;

use std::io::Read as _;
use std::sync::Arc;
use std::time::Duration;

use agentwire_protocols::skeletons::mcp::{STREAMABLE_HTTP, ServerHandlers};
use agentwire_transport::http_ws::ServerHandle;
use agentwire_transport::jsonrpc::{Config, serve_versions_http};
use agentwire_transport::seal::Sealer;
use agentwire_transport::streamable_http::{ServerConfig, SharedSealer};
use serde_json::{Value, json};
use tokio::net::TcpListener;

use crate::mcp_param_headers::{ToolHeaders, marks};

/// The name both eras' fixtures give as theirs.
pub const SERVER_NAME: &str = "agentwire-mcp-conformance-fixtures";
/// A 1x1 PNG, made for this example.
pub const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==";
/// Eight silent samples of 16-bit mono WAV at 8 kHz, made for this example.
pub const WAV: &str =
    "UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA";
/// How long sealed request state stays valid: a user answering a form takes minutes.
pub const STATE_TTL: Duration = Duration::from_secs(600);
/// The environment variable holding the sealing key (32 bytes or more): instances that share
/// it continue each other's input-required flows.
pub const KEY_VARIABLE: &str = "MCP_SEAL_KEY";

/// A text content block.
pub fn text(s: &str) -> Value {
    json!({"type": "text", "text": s})
}

/// The form of `test_elicitation_sep1034_defaults`: every primitive kind with a default.
pub fn defaults_form() -> Value {
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
pub fn enums_form() -> Value {
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

/// The sealing key: `$MCP_SEAL_KEY` when set (every instance given the same key continues the
/// others' flows), else 32 fresh random bytes (this instance alone opens what it sealed).
pub fn seal_key() -> std::io::Result<Vec<u8>> {
    if let Some(key) = std::env::var_os(KEY_VARIABLE) {
        return Ok(key.into_encoded_bytes());
    }
    let mut key = vec![0; 32];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut key)?;
    Ok(key)
}

/// Serves both eras' fixtures on `listener` at [`STREAMABLE_HTTP`]'s path, sealing request
/// state under `key` (at least 32 bytes), until the handle's shutdown.
pub fn serve(listener: TcpListener, key: &[u8]) -> std::io::Result<ServerHandle> {
    let sealer = Sealer::new(key, STATE_TTL)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e.to_string()))?;
    let mut http = ServerConfig::new(STREAMABLE_HTTP);
    http.sealer = Some(SharedSealer(Arc::new(sealer)));
    // The headers its tools declare: the transport refuses a call that does not carry them.
    let declared = ToolHeaders::default();
    let marked = marks(&modern::header_tool_schema())
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
    declared.learn(modern::HEADER_TOOL, marked);
    http.expected = Some(declared.deriver());
    let handlers = ServerHandlers {
        v2026_07_28: Arc::new(modern::Fixtures),
        v2025_11_25: Arc::new(legacy::Fixtures),
    };
    serve_versions_http(Arc::new(handlers), listener, http, Config::default())
}
