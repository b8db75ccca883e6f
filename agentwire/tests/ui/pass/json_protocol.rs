//! A JSON protocol expanded by the derive compiles warning-free (no unexpected_cfgs from the
//! schemars gates, which are dropped) and its module decodes, validates and checks.
#![deny(warnings)]

use agentwire::Protocol;

#[derive(Protocol)]
#[protocol(spec = "spec/ping")]
pub(crate) struct Ping;

fn main() {
    let ok = ping::ClientMessage::from_json(r#"{"type":"ping","id":"p1"}"#).unwrap();
    assert_eq!(ok.to_json(), r#"{"type":"ping","id":"p1"}"#);
    let bad = ping::ClientMessage::from_json(r#"{"type":"ping","id":""}"#).unwrap_err();
    assert_eq!(bad.errors[0].pointer, "/id");
    let mut checker = ping::machine::Checker::new();
    checker.observe(ping::machine::Message::Client(&ok)).unwrap();
    checker.finish().unwrap();
    assert!(ping::SCHEMA.contains("\"Ping\""));
}
