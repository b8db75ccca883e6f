//! Instances of ACP v1's messages, written for this test (none copied from ACP's repository),
//! through the built-in module generated from ACP's stable schema as its TypeScript SDK ships
//! it (`spec/acp`): `session/update` notifications of every kind the schema's `SessionUpdate`
//! union names, and the messages of a prompt turn, each decode as the sender's message and
//! re-encode to an equal JSON value. The schema itself (read by the `jsonschema` crate, a
//! reference validator) accepts every instance, so the module and the schema agree on them.

use agentwire_protocols::acp::v1 as acp;
use agentwire_tests::peers::{ensure_installed, target_dir};
use serde_json::{Value, json};

/// The schema the spec pins, where `scripts/install-peers` puts the SDK.
fn schema() -> Value {
    ensure_installed();
    let path =
        target_dir().join("peers/node/node_modules/@agentclientprotocol/sdk/schema/v1/schema.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A reference validator for one definition of the schema.
fn reference(doc: &Value, type_name: &str) -> jsonschema::Validator {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": doc["$defs"],
        "$ref": format!("#/$defs/{type_name}"),
    });
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(&schema)
        .unwrap()
}

/// `message` decodes as sent by `from` and comes back unchanged.
fn decodes_as(from: &str, message: &Value) {
    let back = acp::decode_message(from, &message.to_string())
        .unwrap_or_else(|| panic!("no role `{from}`"))
        .unwrap_or_else(|e| panic!("{from}: {message}: {e}"));
    assert_eq!(&back, message);
}

fn update(update: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": "session/update",
           "params": {"sessionId": "sess-1", "update": update}})
}

/// One update of each kind the v1 schema's `SessionUpdate` names.
fn every_update() -> Vec<Value> {
    let text = json!({"type": "text", "text": "Reading the file"});
    vec![
        json!({"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": "Fix the bug"}}),
        json!({"sessionUpdate": "agent_message_chunk", "content": text, "messageId": "m-1"}),
        json!({"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "Where is it?"}}),
        json!({"sessionUpdate": "agent_message_chunk",
               "content": {"type": "resource_link", "name": "main.rs", "uri": "file:///w/main.rs"}}),
        json!({"sessionUpdate": "agent_message_chunk",
               "content": {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}}),
        json!({"sessionUpdate": "tool_call", "toolCallId": "call-1", "title": "Read main.rs",
               "kind": "read", "status": "pending",
               "locations": [{"path": "/w/main.rs", "line": 12}],
               "rawInput": {"path": "/w/main.rs"}}),
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "call-1", "status": "in_progress"}),
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "call-1", "status": "completed",
               "content": [
                   {"type": "content", "content": {"type": "text", "text": "fn main() {}"}},
                   {"type": "diff", "path": "/w/main.rs", "oldText": "a", "newText": "b"},
                   {"type": "terminal", "terminalId": "term-1"}
               ],
               "rawOutput": {"bytes": 12}}),
        json!({"sessionUpdate": "plan", "entries": [
            {"content": "Find the bug", "priority": "high", "status": "completed"},
            {"content": "Fix it", "priority": "medium", "status": "in_progress"}]}),
        json!({"sessionUpdate": "available_commands_update", "availableCommands": [
            {"name": "test", "description": "Runs the tests", "input": {"hint": "a filter"}}]}),
        json!({"sessionUpdate": "current_mode_update", "currentModeId": "code"}),
        json!({"sessionUpdate": "config_option_update", "configOptions": []}),
        json!({"sessionUpdate": "session_info_update", "title": "Fixing the bug",
               "updatedAt": "2026-11-27T18:00:00Z"}),
        json!({"sessionUpdate": "usage_update", "used": 5300, "size": 200000,
               "cost": {"amount": 0.02, "currency": "USD"}}),
        json!({"sessionUpdate": "notice", "severity": "warning", "title": "Rate limited"}),
        json!({"sessionUpdate": "compaction_update", "compactionId": "c-1", "status": "in_progress"}),
        json!({"sessionUpdate": "compaction_summary_chunk", "compactionId": "c-1",
               "content": {"type": "text", "text": "Earlier: the user asked"}}),
    ]
}

#[test]
fn session_updates_of_every_kind_decode() {
    let doc = schema();
    let kinds: Vec<&str> = doc["$defs"]["SessionUpdate"]["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["properties"]["sessionUpdate"]["const"].as_str().unwrap())
        .collect();
    let updates = every_update();
    for kind in &kinds {
        assert!(
            updates.iter().any(|u| u["sessionUpdate"] == *kind),
            "no instance of the update kind `{kind}` the schema names"
        );
    }
    let oracle = reference(&doc, "SessionNotification");
    for u in updates {
        let message = update(u);
        let errors: Vec<String> = oracle
            .iter_errors(&message["params"])
            .map(|e| e.to_string())
            .collect();
        assert!(
            errors.is_empty(),
            "the schema refuses {message}: {errors:?}"
        );
        decodes_as("agent", &message);
    }
}

#[test]
fn a_prompt_turn_decodes_both_ways() {
    let client = [
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": 1,
            "clientCapabilities": {"fs": {"readTextFile": true, "writeTextFile": false}, "terminal": true},
            "clientInfo": {"name": "editor", "version": "1.0.0"}}}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "session/new",
               "params": {"cwd": "/w", "mcpServers": []}}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": {
            "sessionId": "sess-1", "prompt": [{"type": "text", "text": "Fix the bug"}]}}),
        json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "sess-1"}}),
        json!({"jsonrpc": "2.0", "id": "p-1",
               "result": {"outcome": {"outcome": "selected", "optionId": "allow"}}}),
        json!({"jsonrpc": "2.0", "id": "p-2", "result": {"outcome": {"outcome": "cancelled"}}}),
        json!({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 2}}),
    ];
    for message in &client {
        decodes_as("client", message);
    }
    let agent = [
        json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1,
            "agentCapabilities": {"loadSession": false},
            "authMethods": [{"id": "key", "name": "API key"}]}}),
        json!({"jsonrpc": "2.0", "id": 1, "result": {"sessionId": "sess-1"}}),
        json!({"jsonrpc": "2.0", "id": "p-1", "method": "session/request_permission", "params": {
            "sessionId": "sess-1",
            "toolCall": {"toolCallId": "call-1", "title": "Edit main.rs"},
            "options": [{"optionId": "allow", "name": "Allow", "kind": "allow_once"},
                        {"optionId": "deny", "name": "Deny", "kind": "reject_once"}]}}),
        json!({"jsonrpc": "2.0", "id": "f-1", "method": "fs/read_text_file",
               "params": {"sessionId": "sess-1", "path": "/w/main.rs", "line": 1, "limit": 20}}),
        json!({"jsonrpc": "2.0", "id": 2, "result": {"stopReason": "cancelled"}}),
        json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32602, "message": "Invalid params"}}),
    ];
    for message in &agent {
        decodes_as("agent", message);
    }
}

#[test]
fn a_message_of_the_other_side_is_refused() {
    let prompt = json!({"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": {
        "sessionId": "sess-1", "prompt": []}});
    let err = acp::decode_message("agent", &prompt.to_string())
        .unwrap()
        .unwrap_err()
        .to_string();
    assert!(err.contains("session/prompt"), "{err}");
}
