//! The `jsonrpc` scaffold: JSON-RPC 2.0 with `Content-Length` framing, one request from the
//! client and one notification from the server; the test runs both generated skeletons over
//! an in-memory pipe.

use super::Template;

pub const TEMPLATE: Template = Template {
    protocol_yaml: r#"# @NAME@: a protocol scaffolded by `agentwire new`. Change it and run `cargo test`; the
# format is described in agentwire's spec/README.md.
protocol: @NAME@
title: @TITLE@
summary: A client asks questions over JSON-RPC; the server reports progress and answers each one.
transport:
  kind: jsonrpc
  framing: content-length
roles: [client, server]
types: messages.ts
jsonrpc:
  methods:
    - method: ask
      call: request
      from: client
      params: AskParams
      result: AskResult
      summary: Asks a question; the result is the answer.
    - method: progress
      call: notification
      from: server
      params: ProgressParams
      summary: Tells the client what the server is doing about a question.
"#,
    messages_ts: r#"// @NAME@: the params and results.

interface AskParams {
  /**
   * The question.
   * @minLength 1
   * @maxLength 2000
   */
  text: string;
}

interface AskResult {
  text: string;
}

interface ProgressParams {
  /**
   * What the server is doing.
   * @minLength 1
   */
  text: string;
}
"#,
    machine_yaml: r#"# @NAME@ sequence rules: per request id, and per connection for progress.
machines:
  - name: request
    summary: Every response answers an outstanding request id, once.
    key:
      - on: client.ask
        field: id
      - on: server.response
        field: id
    initial: idle
    accepting: [idle, answered]
    final: [answered]
    transitions:
      - from: idle
        on: client.ask
        to: pending
      - from: pending
        on: server.response
        to: answered
  - name: progress
    summary: The server may report progress at any time.
    key: connection
    initial: open
    accepting: [open]
    transitions:
      - from: open
        on: server.progress
      - from: open
        on: client.*
      - from: open
        on: server.response
"#,
    trace: r#"{"from": "client", "message": {"jsonrpc": "2.0", "id": 1, "method": "ask", "params": {"text": "hi"}}}
{"from": "server", "message": {"jsonrpc": "2.0", "method": "progress", "params": {"text": "thinking"}}}
{"from": "server", "message": {"jsonrpc": "2.0", "id": 1, "result": {"text": "HI"}}}
"#,
    doc_intro: "JSON-RPC 2.0 with `Content-Length` framing: the client calls `ask` with a \
question and gets the answer as its result; meanwhile the server may send `progress` \
notifications.",
    doc_example: r#"{"text": "hi"}"#,
    test_rs: r##"//! @NAME@'s generated skeletons talking over an in-memory pipe, and a bad message
//! refused with the JSON pointer and rule that failed.

use std::sync::Arc;
use std::time::Duration;

use agentwire::runtime::jsonrpc::RpcError;
use agentwire::transport::jsonrpc::Config;
use agentwire::transport::tokio;
use @NAME@::@NAME@::skeleton::{Client, Server, ServerHandler, ServerSender};
use @NAME@::@NAME@::{AskParams, AskResult, ProgressParams, ServerNotification};

/// Answers every question in capitals, after one progress notification.
struct Shout;

impl ServerHandler for Shout {
    async fn ask(&self, sender: ServerSender, p: AskParams) -> Result<AskResult, RpcError> {
        let progress = ProgressParams {
            text: "thinking".to_owned(),
        };
        sender.progress(progress).await.unwrap();
        Ok(AskResult {
            text: p.text.to_uppercase(),
        })
    }
}

#[test]
fn a_question_is_answered_over_the_generated_skeletons() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let (client_end, server_end) = tokio::io::duplex(64 * 1024);
        let (sr, sw) = tokio::io::split(server_end);
        let (cr, cw) = tokio::io::split(client_end);
        let (_, _server) = Server::serve(Arc::new(Shout), sr, sw, Config::default());
        let (client, mut notifications, _connection) = Client::connect(cr, cw, Config::default());
        let ask = AskParams {
            text: "hi".to_owned(),
        };
        assert_eq!(client.ask(ask).await.unwrap().text, "HI");
        let note = tokio::time::timeout(Duration::from_secs(10), notifications.recv())
            .await
            .unwrap()
            .unwrap();
        let ServerNotification::Progress(progress) = note;
        assert_eq!(progress.text, "thinking");
        client.close();
    });
}

#[test]
fn a_bad_message_is_refused_with_its_pointer_and_rule() {
    let refused = @NAME@::@NAME@::decode_type("AskParams", r#"{"text":""}"#)
        .expect("a type of the spec")
        .unwrap_err();
    let errors: Vec<_> = refused
        .errors
        .iter()
        .map(|e| (e.pointer.as_str(), e.rule.name()))
        .collect();
    assert_eq!(errors, [("/text", "min_length")]);
}
"##,
};
