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
