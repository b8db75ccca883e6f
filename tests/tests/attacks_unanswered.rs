//! A refused request is always answered, with its id when the id can be read: a valid
//! request nested deeper than every consumer reads (serde_json's 128 levels) gets one answer,
//! -32700 with its id, from the Streamable HTTP transport (400 at once, where its POST used
//! to stay open for ever holding an in-flight slot) and from the JSON-RPC engine on a byte
//! stream (where it used to be answered with a null id, which answers nothing). Loopback and
//! in-memory pipes only; the eca skeleton is the engine.

use std::sync::Arc;
use std::time::Duration;

use agentwire_protocols::eca::{
    ChatDeleteParams, ChatDeleteResponse, ChatPromptParams, ChatPromptResponse,
    ChatQueryCommandsParams, ChatQueryCommandsResponse, ChatQueryContextParams,
    ChatQueryContextResponse, InitializeParams, InitializeResponse,
};
use agentwire_protocols::skeletons::eca::{Server, ServerHandler, ServerSender};
use agentwire_runtime::jsonrpc::RpcError;
use agentwire_transport::jsonrpc::{CancellationToken, Config, ContentLengthCodec};
use agentwire_transport::streamable_http::{self, Outgoing, ServerConfig, SessionPipe};
use agentwire_transport::tokio_util::codec::{FramedRead, FramedWrite};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::time::timeout;

const BOUND: Duration = Duration::from_secs(20);

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":1,"clientInfo":{"name":"t","version":"0"},"capabilities":{"codeAssistant":{"chat":true}},"workspaceFolders":[]}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#;

/// A `chat/queryContext` request with id `id` whose params hold a member nested `depth`
/// levels deep (past 127 no consumer reads it).
fn deep_request(id: u32, depth: usize) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"chat/queryContext","params":{{"chatId":"c","query":"q","contexts":[],"x":{}1{}}}}}"#,
        "[".repeat(depth),
        "]".repeat(depth)
    )
}

/// Opens the session, then answers every request with an error (never with a result).
struct Plain;

fn no() -> RpcError {
    RpcError {
        code: -32601,
        message: "not here".into(),
        data: None,
    }
}

impl ServerHandler for Plain {
    async fn initialize(
        &self,
        _: ServerSender,
        _: InitializeParams,
    ) -> Result<InitializeResponse, RpcError> {
        Ok(InitializeResponse {
            models: vec!["m".to_owned()],
            chat_default_model: "m".to_owned(),
            chat_behaviors: Vec::new(),
            chat_default_behavior: agentwire_protocols::eca::ChatBehavior::Agent,
            chat_welcome_message: String::new(),
        })
    }
    async fn shutdown(&self, _: ServerSender) -> Result<(), RpcError> {
        Err(no())
    }
    async fn chat_prompt(
        &self,
        _: ServerSender,
        _: ChatPromptParams,
    ) -> Result<ChatPromptResponse, RpcError> {
        Err(no())
    }
    async fn chat_query_context(
        &self,
        _: ServerSender,
        _: ChatQueryContextParams,
    ) -> Result<ChatQueryContextResponse, RpcError> {
        Err(no())
    }
    async fn chat_query_commands(
        &self,
        _: ServerSender,
        _: ChatQueryCommandsParams,
    ) -> Result<ChatQueryCommandsResponse, RpcError> {
        Err(no())
    }
    async fn chat_delete(
        &self,
        _: ServerSender,
        _: ChatDeleteParams,
    ) -> Result<ChatDeleteResponse, RpcError> {
        Err(no())
    }
}

/// One engine per Streamable HTTP session, as a server built on the skeleton composes them.
fn engine(pipe: SessionPipe) {
    let (_sender, link, _connection) =
        Server::serve_messages(Arc::new(Plain), CancellationToken::new(), Config::default());
    pipe.bridge(link.incoming, link.outgoing, |o| Outgoing {
        json: o.text,
        related: if o.answers.is_some() { None } else { o.related },
    });
}

async fn post(url: &str, session: Option<&str>, body: String) -> reqwest::Response {
    let mut req = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body);
    if let Some(s) = session {
        req = req.header("mcp-session-id", s);
    }
    timeout(BOUND, req.send())
        .await
        .expect("answered in time")
        .unwrap()
}

#[tokio::test]
async fn streamable_http_answers_a_request_nested_too_deep_with_its_id() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = streamable_http::serve(
        listener,
        engine,
        ServerConfig::new(agentwire_protocols::skeletons::mcp::STREAMABLE_HTTP),
    )
    .unwrap();
    let url = format!(
        "http://{}{}",
        server.local_addr(),
        agentwire_protocols::skeletons::mcp::STREAMABLE_HTTP.path
    );
    let opened = post(&url, None, INITIALIZE.to_owned()).await;
    assert_eq!(opened.status(), 200);
    let sid = opened.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let s = Some(sid.as_str());
    assert_eq!(post(&url, s, INITIALIZED.to_owned()).await.status(), 202);
    for depth in [130, 5_000] {
        let r = post(&url, s, deep_request(7, depth)).await;
        assert_eq!(r.status(), 400, "depth {depth}");
        let text = timeout(BOUND, r.text())
            .await
            .expect("a body, not an open stream")
            .unwrap();
        let body: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(body["id"], json!(7), "{body}");
        assert_eq!(body["error"]["code"], json!(-32700), "{body}");
    }
    // Just under the limit the request reaches the engine, which answers it.
    let r = post(&url, s, deep_request(8, 100)).await;
    let text = timeout(BOUND, r.text()).await.expect("answered").unwrap();
    assert!(text.contains(r#""id":8"#), "{text}");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn the_engine_answers_a_request_nested_too_deep_with_its_id() {
    let (client, server) = tokio::io::duplex(1 << 20);
    let (server_read, server_write) = tokio::io::split(server);
    let (_sender, _connection) = Server::serve(
        Arc::new(Plain),
        server_read,
        server_write,
        Config::default(),
    );
    let (client_read, client_write) = tokio::io::split(client);
    let mut tx = FramedWrite::new(client_write, ContentLengthCodec::default());
    let mut rx = FramedRead::new(client_read, ContentLengthCodec::default());
    let mut next = async || -> Value {
        let frame = timeout(BOUND, rx.next())
            .await
            .expect("answered in time")
            .expect("an answer")
            .unwrap()
            .expect("a whole frame");
        serde_json::from_str(&frame).unwrap()
    };
    tx.send(INITIALIZE.to_owned()).await.unwrap();
    assert_eq!(next().await["id"], json!(1));
    tx.send(INITIALIZED.to_owned()).await.unwrap();
    for (id, depth) in [(5, 130), (6, 5_000)] {
        tx.send(deep_request(id, depth)).await.unwrap();
        let answer = next().await;
        assert_eq!(answer["id"], json!(id), "depth {depth}: {answer}");
        assert_eq!(answer["error"]["code"], json!(-32700), "{answer}");
    }
    // Bytes that are not JSON have no id to read: a null id, as JSON-RPC says.
    tx.send("{\"jsonrpc\":".to_owned()).await.unwrap();
    let answer = next().await;
    assert_eq!(answer["id"], Value::Null, "{answer}");
    assert_eq!(answer["error"]["code"], json!(-32700), "{answer}");
}
