//! A protocol without ordering rules (no `machine.yaml`, or `machines: []`) still gets its
//! types, validators, schema and a `machine::Checker`, which accepts every message in any
//! order, so skeletons observe through the same path as for any other protocol.
#![deny(warnings)]

use agentwire::Protocol;

#[derive(Protocol)]
#[protocol(spec = "spec/no_machine")]
pub(crate) struct NoMachine;

#[derive(Protocol)]
#[protocol(spec = "spec/empty_machines")]
pub(crate) struct EmptyMachines;

fn main() {
    let pong = no_machine::ServerMessage::from_json(r#"{"type":"pong","id":"p1"}"#).unwrap();
    let ping = no_machine::ClientMessage::from_json(r#"{"type":"ping","id":"p1"}"#).unwrap();
    assert!(no_machine::ClientMessage::from_json(r#"{"type":"ping","id":""}"#).is_err());
    let mut checker = no_machine::machine::Checker::new();
    // Out of any conceivable order: nothing is a violation.
    checker.observe(no_machine::machine::Message::Server(&pong)).unwrap();
    checker.observe(no_machine::machine::Message::Client(&ping)).unwrap();
    checker.observe(no_machine::machine::Message::Client(&ping)).unwrap();
    assert_eq!(checker.live_instances(), 0);
    checker.finish().unwrap();
    assert!(no_machine::SCHEMA.contains("\"Pong\""));

    let ping = empty_machines::ClientMessage::from_json(r#"{"type":"ping","id":"p2"}"#).unwrap();
    let limits = agentwire::runtime::machine::Limits::default();
    let mut checker = empty_machines::machine::Checker::with_limits(limits);
    checker.observe(empty_machines::machine::Message::Client(&ping)).unwrap();
    checker.finish().unwrap();
}
