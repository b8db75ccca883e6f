//! A JSON-RPC protocol whose server sends no method of its own still gets a message type for
//! each side (the server's holds only responses) and a checker that reads both.
#![deny(warnings)]

use agentwire::Protocol;

#[derive(Protocol)]
#[protocol(spec = "spec/one_way_rpc")]
pub(crate) struct OneWayRpc;

fn main() {
    let ask = one_way_rpc::ClientMessage::from_json(
        r#"{"jsonrpc":"2.0","id":1,"method":"echo","params":{"text":"hi"}}"#,
    )
    .unwrap();
    let answer =
        one_way_rpc::ServerMessage::from_json(r#"{"jsonrpc":"2.0","id":1,"result":{"text":"hi"}}"#)
            .unwrap();
    assert!(one_way_rpc::ServerMessage::from_json(r#"{"jsonrpc":"2.0","method":"echo"}"#).is_err());
    let mut checker = one_way_rpc::machine::Checker::new();
    checker.observe(one_way_rpc::machine::Message::Client(&ask)).unwrap();
    checker.observe(one_way_rpc::machine::Message::Server(&answer)).unwrap();
    checker.finish().unwrap();
}
