//! The derived coven module works like the checked-in one: proto3 JSON in the document's
//! form, prost's binary encoding, validation pointers, and the sequence checker.

use agentwire_example_grpc::coven::{self, AgentMessage, agent_message::Payload};
use prost::Message as _;

const REGISTER: &str = r#"{"register": {"agent_id": "a-1", "name": "mux-agent-1", "capabilities": ["chat"], "protocol_features": ["cancellation"]}}"#;

#[test]
fn proto3_json_and_binary_round_trip() {
    let msg = AgentMessage::from_json(REGISTER).unwrap();
    let Some(Payload::Register(r)) = &msg.payload else {
        panic!("not a register: {msg:?}");
    };
    assert_eq!(r.name, "mux-agent-1");
    assert_eq!(
        AgentMessage::decode(msg.encode_to_vec().as_slice()).unwrap(),
        msg
    );
}

#[test]
fn constraints_are_checked() {
    let err =
        AgentMessage::from_json(r#"{"register": {"agent_id": "", "name": "n"}}"#).unwrap_err();
    assert_eq!(err.errors[0].pointer, "/register/agent_id");
}

#[test]
fn the_checker_wants_register_first() {
    let heartbeat = AgentMessage::from_json(r#"{"heartbeat": {"timestamp_ms": "1"}}"#).unwrap();
    let mut checker = coven::machine::Checker::new();
    let violation = checker
        .observe(coven::machine::Message::Agent(&heartbeat))
        .unwrap_err();
    assert_eq!(violation.got, Some("agent.heartbeat"));
    assert_eq!(violation.state, "start");
}

#[test]
fn the_module_surface_matches_the_json_modules() {
    assert_eq!(coven::MODULE, "coven");
    assert_eq!(coven::ROLES, ["agent", "gateway"]);
    // The schema text is inline in the derived module (there is no `schemas/` folder here).
    let schema: serde_json::Value = serde_json::from_str(coven::SCHEMA).unwrap();
    assert!(schema["$defs"]["RegisterAgent"].is_object());

    // By role: an agent sends a register, the gateway does not.
    let value = coven::decode_message("agent", REGISTER).unwrap().unwrap();
    assert_eq!(value["register"]["agent_id"], "a-1");
    assert!(coven::decode_message("gateway", REGISTER).unwrap().is_err());
    assert!(coven::decode_message("nobody", REGISTER).is_none());

    // By type: any message, validated, re-encoded in proto3 JSON.
    let heartbeat = coven::decode_type("Heartbeat", r#"{"timestamp_ms": 5}"#)
        .unwrap()
        .unwrap();
    assert_eq!(heartbeat["timestamp_ms"], "5");
    let empty_id = coven::decode_type("RegisterAgent", r#"{"agent_id": ""}"#).unwrap();
    assert_eq!(empty_id.unwrap_err().errors[0].pointer, "/agent_id");
    assert!(coven::decode_type("NoSuchMessage", "{}").is_none());
}
