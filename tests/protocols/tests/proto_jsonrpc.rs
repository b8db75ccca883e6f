//! Protobuf types under a JSON transport: `tally` declares its types in a `.proto` and its
//! methods over JSON-RPC (newline framing). The generated server speaks ProtoJSON on the
//! wire (an `int64` as a string, a `Timestamp` as RFC 3339, either field-name spelling read),
//! refuses params that break the spec with an error response naming the pointer and rule,
//! and the generated client talks to it.

use std::sync::Arc;
use std::time::Duration;

use agentwire_runtime::jsonrpc::RpcError;
use agentwire_test_protocols::skeletons::tally::{Client, Server, ServerHandler, ServerSender};
use agentwire_test_protocols::tally::{self, AddParams, AddResult, Changed};
use agentwire_transport::jsonrpc::Config;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const WAIT: Duration = Duration::from_secs(10);

/// Adds `by` to one running total and announces it.
struct Tally;

impl ServerHandler for Tally {
    async fn tally_add(&self, sender: ServerSender, p: AddParams) -> Result<AddResult, RpcError> {
        let changed = Changed {
            counter_name: p.counter_name,
            total: p.by,
        };
        sender.tally_changed(changed).await.unwrap();
        Ok(AddResult { total: p.by })
    }
}

/// A server on one end of a pipe; the other end, as lines.
fn serve() -> (
    tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    tokio::io::WriteHalf<tokio::io::DuplexStream>,
    agentwire_transport::jsonrpc::Connection,
) {
    let (ours, theirs) = tokio::io::duplex(64 * 1024);
    let (sr, sw) = tokio::io::split(theirs);
    let (_, server) = Server::serve(Arc::new(Tally), sr, sw, Config::default());
    let (r, w) = tokio::io::split(ours);
    (BufReader::new(r).lines(), w, server)
}

async fn next(lines: &mut tokio::io::Lines<impl tokio::io::AsyncBufRead + Unpin>) -> Value {
    let line = tokio::time::timeout(WAIT, lines.next_line()).await.unwrap();
    serde_json::from_str(&line.unwrap().unwrap()).unwrap()
}

#[tokio::test]
async fn the_server_speaks_protojson_on_the_wire() {
    let (mut lines, mut w, _server) = serve();
    // The lowerCamelCase spelling ProtoJSON printers use by default, an int64 as a string.
    let add = r#"{"jsonrpc":"2.0","id":1,"method":"tally/add","params":{"counterName":"apples","by":"9007199254740993","at":"2026-11-27T09:00:00Z"}}"#;
    w.write_all(format!("{add}\n").as_bytes()).await.unwrap();
    let changed = next(&mut lines).await;
    assert_eq!(changed["method"], "tally/changed");
    assert_eq!(
        changed["params"],
        json!({"counter_name": "apples", "total": "9007199254740993"})
    );
    let answer = next(&mut lines).await;
    assert_eq!(
        answer,
        json!({"jsonrpc": "2.0", "id": 1, "result": {"total": "9007199254740993"}})
    );

    let bad =
        r#"{"jsonrpc":"2.0","id":2,"method":"tally/add","params":{"counter_name":"","by":"1"}}"#;
    w.write_all(format!("{bad}\n").as_bytes()).await.unwrap();
    let refused = next(&mut lines).await;
    assert_eq!(refused["id"], 2);
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let text = refused["error"].to_string();
    assert!(
        text.contains("/params/counter_name") && text.contains("min_length"),
        "{refused}"
    );
}

#[tokio::test]
async fn the_generated_client_and_server_agree() {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (sr, sw) = tokio::io::split(server_end);
    let (cr, cw) = tokio::io::split(client_end);
    let (_, _server) = Server::serve(Arc::new(Tally), sr, sw, Config::default());
    let (client, mut notifications, _connection): (Client, _, _) =
        Client::connect(cr, cw, Config::default());
    let params = AddParams {
        counter_name: "pears".to_owned(),
        by: -4,
        at: Some(pbjson_types::Timestamp {
            seconds: 1_800_000_000,
            nanos: 5_000_000,
        }),
    };
    let result = tokio::time::timeout(WAIT, client.tally_add(params)).await;
    assert_eq!(result.unwrap().unwrap().total, -4);
    let changed = tokio::time::timeout(WAIT, notifications.recv()).await;
    let tally::ServerNotification::TallyChanged(changed) = changed.unwrap().unwrap();
    assert_eq!(
        (changed.counter_name.as_str(), changed.total),
        ("pears", -4)
    );

    // The module's own decoder reads and re-encodes the same ProtoJSON.
    let line = r#"{"jsonrpc":"2.0","id":7,"method":"tally/add","params":{"counter_name":"x","by":3,"at":"2026-11-27T09:00:00.500Z"}}"#;
    let back = tally::decode_message("client", line).unwrap().unwrap();
    assert_eq!(back["params"]["by"], "3");
    assert_eq!(back["params"]["at"], "2026-11-27T09:00:00.500+00:00");
}
