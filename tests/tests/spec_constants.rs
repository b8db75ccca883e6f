//! The constants the built-in specs declare, as the generated code uses them: a field's
//! `@default` read through its accessor, a union member's default tag when decoding, the
//! transport's default port, Content-Type and WebSocket path, and `default` in the schemas.

use agentwire_protocols::{coven, eca, external_agents};
use agentwire_runtime::Validate;
use serde_json::Value;

#[test]
fn an_agent_config_without_type_is_a_chat_agent() {
    let config: external_agents::AgentConfig =
        serde_json::from_str(r#"{"agentId": "helper", "displayName": "Helper"}"#).unwrap();
    let external_agents::AgentConfig::Chat(chat) = &config else {
        panic!("{config:?}");
    };
    assert_eq!(chat.agent_id, "helper");
    assert!(config.validate().is_ok());
    // It is written back in the spelled-out form.
    let written: Value = serde_json::to_value(&config).unwrap();
    assert_eq!(written["type"], "chat");
    // Decoded alone, the member reads without its tag too; another member still needs one.
    let alone =
        external_agents::decode_type("ChatAgentConfig", r#"{"agentId": "a", "displayName": "A"}"#)
            .expect("a known type");
    assert!(alone.is_ok(), "{alone:?}");
    let external = external_agents::decode_type(
        "ExternalAgentConfig",
        r#"{"agentId": "a", "displayName": "A", "external": {"inputUrl": "http://x/in", "callbackBaseUrl": "http://x"}}"#,
    )
    .expect("a known type");
    assert!(external.is_err(), "{external:?}");
    // A wrong tag is still refused rather than defaulted.
    let wrong: Result<external_agents::AgentConfig, _> =
        serde_json::from_str(r#"{"agentId": "a", "displayName": "A", "type": "robot"}"#);
    assert!(wrong.is_err());
}

#[test]
fn a_tool_timeout_left_out_reads_as_thirty_seconds() {
    let tool: coven::ToolDefinition =
        serde_json::from_str(r#"{"name": "grep", "description": "search"}"#).unwrap();
    assert_eq!(
        tool.timeout_seconds, 0,
        "proto3 reads an absent int32 as zero"
    );
    assert_eq!(tool.timeout_seconds_or_default(), 30);
    assert_eq!(coven::ToolDefinition::TIMEOUT_SECONDS_DEFAULT, 30);
    let tool: coven::ToolDefinition =
        serde_json::from_str(r#"{"name": "grep", "timeout_seconds": 45}"#).unwrap();
    assert_eq!(tool.timeout_seconds_or_default(), 45);
}

#[test]
fn transport_constants_are_in_the_modules_and_the_skeletons() {
    assert_eq!(coven::DEFAULT_PORT, 50051);
    assert_eq!(
        agentwire_protocols::skeletons::coven::default_endpoint("gateway.local"),
        "http://gateway.local:50051"
    );
    assert_eq!(
        eca::CONTENT_TYPE,
        "application/vscode-jsonrpc; charset=utf-8"
    );
    assert_eq!(external_agents::WEBSOCKET_PATH, "/ws");
}

#[test]
fn the_schemas_carry_the_declared_defaults() {
    let coven: Value = serde_json::from_str(coven::SCHEMA).unwrap();
    assert_eq!(
        coven["$defs"]["ToolDefinition"]["properties"]["timeout_seconds"]["default"],
        30
    );
    let ext: Value = serde_json::from_str(external_agents::SCHEMA).unwrap();
    let chat = &ext["$defs"]["ChatAgentConfig"];
    assert_eq!(chat["properties"]["type"]["default"], "chat");
    assert!(
        !chat["required"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r == "type")
    );
}
