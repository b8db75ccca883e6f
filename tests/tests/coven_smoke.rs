//! Smoke test of the generated coven module: proto3 JSON in the document's form, binary
//! round trips, and validation pointers.

use agentwire_protocols::coven::{AgentMessage, ServerMessage, agent_message::Payload};
use agentwire_runtime::Rule;
use prost::Message as _;
use serde_json::{Value, json};

fn register_example() -> Value {
    json!({
      "register": {
        "agent_id": "550e8400-e29b-41d4-a716-446655440000",
        "name": "mux-agent-1",
        "capabilities": ["chat", "base", "notes"],
        "metadata": {
          "working_directory": "/home/user/project",
          "hostname": "dev-machine",
          "os": "linux",
          "workspaces": ["dev", "personal"],
          "backend": "mux"
        },
        "protocol_features": ["token_usage", "tool_states", "injection", "cancellation"]
      }
    })
}

#[test]
fn register_example_round_trips() {
    let text = register_example().to_string();
    let msg = AgentMessage::from_json(&text).unwrap();
    assert_eq!(msg.kind(), Some("register"));
    let Some(Payload::Register(r)) = &msg.payload else {
        panic!("not a register: {msg:?}");
    };
    assert_eq!(r.name, "mux-agent-1");
    let back: Value = serde_json::from_str(&msg.to_json()).unwrap();
    assert_eq!(back, register_example());
    let bytes = msg.encode_to_vec();
    assert_eq!(AgentMessage::decode(bytes.as_slice()).unwrap(), msg);
}

#[test]
fn kinds_list_the_oneof_cases() {
    assert_eq!(AgentMessage::KINDS[0], "register");
    assert!(ServerMessage::KINDS.contains(&"pack_tool_result"));
    assert_eq!(ServerMessage::KINDS.len(), 8);
}

#[test]
fn enums_int64_and_bytes_use_proto3_json() {
    let text = r#"{"inject_context": {"injection_id": "i1", "content": "c", "priority": "INJECTION_PRIORITY_NORMAL"}}"#;
    let msg = ServerMessage::from_json(text).unwrap();
    assert!(msg.to_json().contains("\"INJECTION_PRIORITY_NORMAL\""));
    let hb =
        AgentMessage::from_json(r#"{"heartbeat": {"timestamp_ms": "1700000000000"}}"#).unwrap();
    assert_eq!(
        hb.to_json(),
        r#"{"heartbeat":{"timestamp_ms":"1700000000000"}}"#
    );
    let file =
        r#"{"send_message":{"request_id":"r","attachments":[{"filename":"a","data":"aGk="}]}}"#;
    let msg = ServerMessage::from_json(file).unwrap();
    assert!(msg.to_json().contains("\"aGk=\""));
}

#[test]
fn unknown_enum_numbers_are_invalid_but_still_serialize() {
    use agentwire_protocols::coven::{InjectContext, server_message};
    let msg = ServerMessage {
        payload: Some(server_message::Payload::InjectContext(InjectContext {
            injection_id: "i".into(),
            priority: 42,
            ..Default::default()
        })),
    };
    let e = agentwire_runtime::Validate::validate(&msg).unwrap_err();
    assert_eq!(e.errors[0].pointer, "/inject_context/priority");
    assert_eq!(e.errors[0].rule, Rule::Enum);
    assert!(msg.to_json().contains("\"priority\":42"));
}

#[test]
fn validation_names_pointer_and_rule() {
    let e = AgentMessage::from_json("{}").unwrap_err();
    assert_eq!(e.errors[0].pointer, "");
    assert_eq!(e.errors[0].rule, Rule::MissingKind);

    let e = AgentMessage::from_json(r#"{"register": {"agent_id": ""}}"#).unwrap_err();
    assert_eq!(e.errors[0].pointer, "/register/agent_id");
    assert_eq!(e.errors[0].rule, Rule::MinLength(1));

    let e = AgentMessage::from_json(r#"{"response": {"request_id": "r", "tool_use": {"id": ""}}}"#)
        .unwrap_err();
    assert_eq!(e.errors[0].pointer, "/response/tool_use/id");
}

#[test]
fn pbjson_decode_errors_are_classified() {
    let e = AgentMessage::from_json(r#"{"nope": {}}"#).unwrap_err();
    assert_eq!(
        (e.errors[0].pointer.as_str(), &e.errors[0].rule),
        ("/nope", &Rule::UnknownKind)
    );

    let two = r#"{"register": {"agent_id": "a"}, "heartbeat": {}}"#;
    let e = AgentMessage::from_json(two).unwrap_err();
    assert_eq!(e.errors[0].rule, Rule::Duplicate);

    let bad_enum = r#"{"inject_context": {"injection_id": "i", "priority": "LOUD"}}"#;
    let e = ServerMessage::from_json(bad_enum).unwrap_err();
    assert_eq!(e.errors[0].pointer, "/inject_context/priority");
    assert_eq!(e.errors[0].rule, Rule::Enum);

    let e = AgentMessage::from_json(r#"{"heartbeat": {"timestamp_ms": "soon"}}"#).unwrap_err();
    assert_eq!(e.errors[0].pointer, "/heartbeat/timestamp_ms");
    assert_eq!(e.errors[0].rule, Rule::Type);
}
