//! The `websocket` scaffold: a client asks questions over one WebSocket, the server answers
//! each; the test runs both generated skeletons over loopback.

use super::Template;

pub const TEMPLATE: Template = Template {
    protocol_yaml: r#"# @NAME@: a protocol scaffolded by `agentwire new`. Change it and run `cargo test`; the
# format is described in agentwire's spec/README.md.
protocol: @NAME@
title: @TITLE@
summary: A client asks questions over a WebSocket and the server answers each one.
transport:
  kind: websocket
  framing: json-text
roles: [client, server]
types: messages.ts
channels:
  - from: client
    to: server
    union: ClientMessage
  - from: server
    to: client
    union: ServerMessage
messages:
  - kind: ask
    from: client
    type: Ask
    summary: A question, under an id the client picks.
  - kind: cancel
    from: client
    type: Cancel
    summary: Withdraws a question not yet answered.
  - kind: answer
    from: server
    type: Answer
    summary: The answer to a question.
  - kind: error
    from: server
    type: ErrorMessage
    summary: Refuses a frame.
"#,
    messages_ts: r#"// @NAME@: the message types.

/**
 * An id the client picks for a question.
 * @minLength 1
 * @maxLength 64
 */
type QuestionId = string;

/** Every frame the client sends, dispatched on `type`. */
type ClientMessage = Ask | Cancel;

/** A question. */
interface Ask {
  type: 'ask';
  id: QuestionId;
  /**
   * The question.
   * @minLength 1
   * @maxLength 2000
   */
  text: string;
}

/** Withdraws a question. */
interface Cancel {
  type: 'cancel';
  id: QuestionId;
}

/** Every frame the server sends, dispatched on `type`. */
type ServerMessage = Answer | ErrorMessage;

/** The answer to a question. */
interface Answer {
  type: 'answer';
  id: QuestionId;
  text: string;
}

/** A refused frame. */
interface ErrorMessage {
  type: 'error';
  payload: {
    /**
     * What went wrong.
     * @minLength 1
     */
    message: string;
    /** The failing rule and where, as data. */
    details?: any;
  };
}
"#,
    machine_yaml: r#"# @NAME@ sequence rules: per question, and per connection for refusals.
machines:
  - name: question
    summary: A question is answered or cancelled once.
    key:
      - on: client.ask
        field: id
      - on: client.cancel
        field: id
      - on: server.answer
        field: id
    initial: idle
    accepting: [idle, closed]
    final: [closed]
    transitions:
      - from: idle
        on: client.ask
        to: asked
      - from: asked
        on: server.answer
        to: closed
      - from: asked
        on: client.cancel
        to: closed
  - name: refusals
    summary: The server may refuse any frame, at any time.
    key: connection
    initial: open
    accepting: [open]
    transitions:
      - from: open
        on: server.error
      - from: open
        on: server.answer
      - from: open
        on: client.*
"#,
    trace: r#"{"from": "client", "message": {"type": "ask", "id": "q1", "text": "hi"}}
{"from": "server", "message": {"type": "answer", "id": "q1", "text": "HI"}}
"#,
    doc_intro: "A client asks questions over one WebSocket (one JSON message per text frame) and \
the server answers each: the client sends `ask` and may withdraw it with `cancel`; the server \
sends `answer`, or `error` when it refuses a frame.",
    doc_example: r#"{"type": "ask", "id": "q1", "text": "hi"}"#,
    test_rs: r##"//! @NAME@'s generated skeletons talking over loopback WebSocket, and a bad message
//! refused with the JSON pointer and rule that failed.

use std::time::Duration;

use agentwire::transport::tokio;
use agentwire::transport::ws::{ClientConfig, ServerConfig};
use @NAME@::@NAME@::skeleton::{Client, Handler, Sender, serve};
use @NAME@::@NAME@::{Answer, Ask, Cancel, ClientMessage, QuestionId, ServerMessage};

/// Answers every question in capitals.
struct Shout;

impl Handler for Shout {
    async fn ask(&self, out: &Sender, msg: Ask) {
        let answer = Answer {
            id: msg.id,
            text: msg.text.to_uppercase(),
        };
        out.answer(answer).await.unwrap();
    }

    async fn cancel(&self, _: &Sender, _: Cancel) {}
}

#[test]
fn a_question_is_answered_over_the_generated_skeletons() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let server = serve(listener, Shout, ServerConfig::default()).await.unwrap();
        let mut client = Client::connect(&server.url(), ClientConfig::default())
            .await
            .unwrap();
        let ask = Ask {
            id: QuestionId("q1".to_owned()),
            text: "hi".to_owned(),
        };
        client.ask(ask).await.unwrap();
        let got = tokio::time::timeout(Duration::from_secs(10), client.next())
            .await
            .unwrap();
        let ServerMessage::Answer(answer) = got.expect("connection open").expect("a valid frame")
        else {
            panic!("expected an answer");
        };
        assert_eq!((answer.id.0.as_str(), answer.text.as_str()), ("q1", "HI"));
        client.close().await;
        server.shutdown().await.unwrap();
    });
}

#[test]
fn a_bad_message_is_refused_with_its_pointer_and_rule() {
    let refused = ClientMessage::from_json(r#"{"type":"ask","id":"","text":"hi"}"#).unwrap_err();
    let errors: Vec<_> = refused
        .errors
        .iter()
        .map(|e| (e.pointer.as_str(), e.rule.name()))
        .collect();
    assert_eq!(errors, [("/id", "min_length")]);
}
"##,
};
