//! The generated eca skeleton in-process, client and server over in-memory pipes and loopback
//! TCP: correlation, streaming, broken frames, check modes, connection limits and shutdown.

use std::sync::Arc;
use std::time::Duration;

use agentwire_protocols::eca::{
    ChatCommand, ChatCommandType, ChatContent, ChatContentReceivedParams,
    ChatContentReceivedParamsRole, ChatDeleteParams, ChatDeleteResponse, ChatPromptParams,
    ChatPromptResponse, ChatPromptResponseStatus, ChatQueryCommandsParams,
    ChatQueryCommandsResponse, ChatQueryContextParams, ChatQueryContextResponse, InitializeParams,
    InitializeResponse, InitializedParams, ProgressContent, ProgressContentState,
    ServerNotification, TextContent,
};
use agentwire_protocols::skeletons::eca::{Client, Server, ServerHandler, ServerSender};
use agentwire_runtime::jsonrpc::RpcError;
use agentwire_transport::CheckMode;
use agentwire_transport::jsonrpc::{CallError, Config, ContentLengthCodec};
use agentwire_transport::tokio_util::codec::{FramedRead, FramedWrite};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, DuplexStream};
use tokio::time::timeout;

const BOUND: Duration = Duration::from_secs(20);

/// A server that answers every request and streams three pieces of content per prompt.
struct Echo;

impl ServerHandler for Echo {
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
        Ok(())
    }

    async fn chat_prompt(
        &self,
        sender: ServerSender,
        p: ChatPromptParams,
    ) -> Result<ChatPromptResponse, RpcError> {
        let chat_id = p.chat_id.unwrap_or_else(|| "c1".to_owned());
        let contents = [
            progress(ProgressContentState::Running),
            ChatContent::Text(TextContent { text: p.message }),
            progress(ProgressContentState::Finished),
        ];
        let id = chat_id.clone();
        tokio::spawn(async move {
            for content in contents {
                let params = ChatContentReceivedParams {
                    chat_id: id.clone(),
                    content,
                    role: ChatContentReceivedParamsRole::Assistant,
                };
                if sender.chat_content_received(params).await.is_err() {
                    return;
                }
            }
        });
        Ok(ChatPromptResponse {
            chat_id,
            model: "m".to_owned(),
            status: ChatPromptResponseStatus::Success,
        })
    }

    async fn chat_query_context(
        &self,
        _: ServerSender,
        p: ChatQueryContextParams,
    ) -> Result<ChatQueryContextResponse, RpcError> {
        if p.query == "slow" {
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
        Ok(ChatQueryContextResponse {
            chat_id: p.chat_id,
            contexts: Vec::new(),
        })
    }

    async fn chat_query_commands(
        &self,
        _: ServerSender,
        p: ChatQueryCommandsParams,
    ) -> Result<ChatQueryCommandsResponse, RpcError> {
        // Echo the query back, so concurrent calls can check they got their own answer.
        Ok(ChatQueryCommandsResponse {
            chat_id: None,
            commands: vec![ChatCommand {
                name: p.query,
                description: String::new(),
                r#type: ChatCommandType::Native,
                arguments: Vec::new(),
            }],
        })
    }

    async fn chat_delete(
        &self,
        _: ServerSender,
        p: ChatDeleteParams,
    ) -> Result<ChatDeleteResponse, RpcError> {
        // A handler bug on demand, to show it costs only its own request.
        assert_ne!(p.chat_id.as_deref(), Some("panic"), "handler bug");
        Ok(ChatDeleteResponse {})
    }
}

fn progress(state: ProgressContentState) -> ChatContent {
    ChatContent::Progress(ProgressContent {
        state,
        text: String::new(),
    })
}

fn init_params() -> InitializeParams {
    agentwire_runtime::decode_json(
        r#"{"processId": 1, "capabilities": {}, "workspaceFolders": []}"#,
    )
    .expect("valid params")
}

fn query(q: &str) -> ChatQueryCommandsParams {
    ChatQueryCommandsParams {
        chat_id: None,
        query: q.to_owned(),
    }
}

/// A raw JSON-RPC end talking to a server over an in-memory pipe.
struct Raw {
    rx: FramedRead<tokio::io::ReadHalf<DuplexStream>, ContentLengthCodec>,
    tx: FramedWrite<tokio::io::WriteHalf<DuplexStream>, ContentLengthCodec>,
}

impl Raw {
    fn serve(config: Config) -> Raw {
        let (ours, theirs) = tokio::io::duplex(64 * 1024);
        let (r, w) = tokio::io::split(theirs);
        let _ = Server::serve(Arc::new(Echo), r, w, config);
        let (r, w) = tokio::io::split(ours);
        Raw {
            rx: FramedRead::new(r, ContentLengthCodec::default()),
            tx: FramedWrite::new(w, ContentLengthCodec::default()),
        }
    }

    async fn send(&mut self, v: Value) {
        self.tx.send(v.to_string()).await.expect("pipe open");
    }

    async fn send_bytes(&mut self, bytes: &[u8]) {
        use tokio::io::AsyncWriteExt;
        self.tx.get_mut().write_all(bytes).await.expect("pipe open");
    }

    /// The next message from the server, skipping notifications.
    async fn answer(&mut self) -> Value {
        loop {
            let frame = timeout(BOUND, self.rx.next())
                .await
                .expect("answer in time")
                .expect("stream open")
                .expect("no I/O error")
                .expect("a well-framed answer");
            let v: Value = serde_json::from_str(&frame).expect("JSON answer");
            if v.get("method").is_none() {
                return v;
            }
        }
    }

    async fn initialize(&mut self) {
        self.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"processId": null, "capabilities": {}, "workspaceFolders": []}}))
            .await;
        // Errors about earlier garbage (null ids) may come first.
        let mut a = self.answer().await;
        while a["id"].is_null() {
            assert_eq!(a["error"]["code"], -32700, "{a}");
            a = self.answer().await;
        }
        assert_eq!(a["id"], 1);
        assert!(a.get("result").is_some(), "{a}");
        self.send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
            .await;
    }
}

#[tokio::test]
async fn typed_client_and_server_stream_and_correlate_concurrent_calls() {
    let (a, b) = tokio::io::duplex(64 * 1024);
    let (sr, sw) = tokio::io::split(a);
    let (_sender, server_conn) = Server::serve(Arc::new(Echo), sr, sw, Config::default());
    let (cr, cw) = tokio::io::split(b);
    let (client, mut notes, client_conn) = Client::connect(cr, cw, Config::default());
    timeout(BOUND, async {
        client.initialize(init_params()).await.expect("initialize");
        client
            .initialized(InitializedParams {})
            .await
            .expect("initialized");
        let res = client
            .chat_prompt(ChatPromptParams {
                chat_id: None,
                request_id: "r".to_owned(),
                message: "hi".to_owned(),
                model: None,
                behavior: None,
                contexts: None,
            })
            .await
            .expect("prompt");
        let mut kinds = Vec::new();
        while kinds.len() < 3 {
            match notes.recv().await.expect("content") {
                ServerNotification::ChatContentReceived(p) => {
                    assert_eq!(p.chat_id, res.chat_id);
                    kinds.push(p.content.kind());
                }
                other => panic!("unexpected {other:?}"),
            }
        }
        assert_eq!(kinds, ["progress", "text", "progress"]);

        // 200 calls in flight at once, each must get its own answer back.
        let calls = (0..200).map(|i| {
            let client = client.clone();
            async move { (i, client.chat_query_commands(query(&format!("q{i}"))).await) }
        });
        for (i, r) in futures_util::future::join_all(calls).await {
            assert_eq!(r.expect("answered").commands[0].name, format!("q{i}"));
        }
        assert_eq!(client.peer().stats().violations, 0);
        assert_eq!(client.peer().stats().refused, 0);

        client.shutdown().await.expect("shutdown");
        client.exit().await.expect("exit");
        client.close();
        client_conn.join().await.expect("client ends cleanly");
        server_conn.join().await.expect("server sees the end");
        assert!(
            notes.recv().await.is_none(),
            "stream ends with the connection"
        );
    })
    .await
    .expect("bounded");
}

#[tokio::test]
async fn broken_frames_are_answered_and_the_connection_keeps_working() {
    let mut raw = Raw::serve(Config {
        max_frame_size: 1024,
        ..Config::default()
    });
    timeout(BOUND, async {
        // Oversize: refused from the header alone, its body skipped.
        let body = "x".repeat(2000);
        raw.send_bytes(format!("Content-Length: 2000\r\n\r\n{body}").as_bytes()).await;
        let a = raw.answer().await;
        assert_eq!(a["error"]["code"], -32700, "{a}");
        assert_eq!(a["id"], Value::Null);
        assert!(a["error"]["message"].as_str().unwrap().contains("exceeds the limit"));
        // A header without a usable length.
        raw.send_bytes(b"Content-Length: ten\r\n\r\n").await;
        assert_eq!(raw.answer().await["error"]["code"], -32700);
        // Broken JSON, a non-object, a batch, a request without jsonrpc, an unknown method,
        // bad params: each answered with its code.
        raw.send_bytes(b"Content-Length: 5\r\n\r\n{bad}").await;
        assert_eq!(raw.answer().await["error"]["code"], -32700);
        raw.send(json!("hello")).await;
        assert_eq!(raw.answer().await["error"]["code"], -32600);
        raw.send(json!([{"jsonrpc": "2.0", "id": 1, "method": "shutdown"}])).await;
        assert_eq!(raw.answer().await["error"]["code"], -32600);
        raw.send(json!({"id": 3, "method": "initialize"})).await;
        let a = raw.answer().await;
        assert_eq!((a["id"].clone(), a["error"]["code"].clone()), (json!(3), json!(-32600)));
        raw.send(json!({"jsonrpc": "2.0", "id": 4, "method": "nope"})).await;
        assert_eq!(raw.answer().await["error"]["code"], -32601);
        raw.send(json!({"jsonrpc": "2.0", "id": 5, "method": "initialize", "params": {"processId": "x"}}))
            .await;
        let a = raw.answer().await;
        assert_eq!((a["id"].clone(), a["error"]["code"].clone()), (json!(5), json!(-32602)));
        // A bad notification gets no answer (JSON-RPC never answers notifications): the next
        // answer is the one to the following request.
        raw.send(json!({"jsonrpc": "2.0", "method": "initialized", "params": 7})).await;
        // Garbage without any frame structure, then a good request.
        let mut seed = 7u64;
        let junk: Vec<u8> = (0..3000)
            .map(|_| {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                b"abcdefgh {}[]\"\r\n"[(seed >> 60) as usize]
            })
            .collect();
        raw.send_bytes(&junk).await;
        raw.initialize().await;
        // A handler that panics: its request gets -32603, the connection lives on.
        raw.send(json!({"jsonrpc": "2.0", "id": 8, "method": "chat/delete", "params": {"chatId": "panic"}}))
            .await;
        let a = raw.answer().await;
        assert_eq!((a["id"].clone(), a["error"]["code"].clone()), (json!(8), json!(-32603)));
        raw.send(json!({"jsonrpc": "2.0", "id": 9, "method": "chat/queryCommands", "params": {"query": "ok"}}))
            .await;
        let a = raw.answer().await;
        assert_eq!(a["id"], 9, "{a}");
        assert_eq!(a["result"]["commands"][0]["name"], "ok");
    })
    .await
    .expect("bounded");
}

#[tokio::test]
async fn enforce_refuses_out_of_sequence_requests_and_warn_lets_them_through() {
    let prompt = json!({"jsonrpc": "2.0", "id": 1, "method": "chat/queryCommands",
        "params": {"query": "early"}});
    timeout(BOUND, async {
        let mut enforce = Raw::serve(Config::default());
        enforce.send(prompt.clone()).await;
        let a = enforce.answer().await;
        assert_eq!(a["error"]["code"], -32600, "{a}");
        assert_eq!(a["error"]["data"]["machine"], "lifecycle");
        assert_eq!(a["error"]["data"]["state"], "start");
        // The refused request left the checker where it was: initialize still works.
        enforce.initialize().await;

        let mut warn = Raw::serve(Config {
            mode: CheckMode::Warn,
            ..Config::default()
        });
        warn.send(prompt.clone()).await;
        assert_eq!(
            warn.answer().await["result"]["commands"][0]["name"],
            "early"
        );

        let mut off = Raw::serve(Config {
            mode: CheckMode::Off,
            ..Config::default()
        });
        off.send(prompt).await;
        assert!(off.answer().await.get("result").is_some());
    })
    .await
    .expect("bounded");
}

#[tokio::test]
async fn client_refuses_to_send_out_of_sequence_and_times_out_when_configured() {
    let (a, b) = tokio::io::duplex(64 * 1024);
    let (cr, cw) = tokio::io::split(b);
    // Nobody answers on the other end of this pipe.
    let _silent = a;
    let config = Config {
        request_timeout: Some(Duration::from_millis(200)),
        ..Config::default()
    };
    let (client, _notes, _conn) = Client::connect(cr, cw, config);
    timeout(BOUND, async {
        let early = client.chat_query_commands(query("x")).await;
        assert!(
            matches!(early, Err(CallError::Send(agentwire_transport::jsonrpc::SendError::Violation(ref v))) if v.machine == "lifecycle"),
            "{early:?}"
        );
        let slow = client.initialize(init_params()).await;
        assert!(matches!(slow, Err(CallError::Timeout(_))), "{slow:?}");
    })
    .await
    .expect("bounded");
}

#[tokio::test]
async fn tcp_server_caps_connections_and_shuts_down_cleanly() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let server = Server::serve_tcp(Arc::new(Echo), listener, Config::default(), 1).expect("serve");
    let addr = server.local_addr();
    timeout(BOUND, async {
        let (client, mut notes, conn) = Client::connect_tcp(addr, Config::default())
            .await
            .expect("connect");
        client
            .initialize(init_params())
            .await
            .expect("first connection served");
        // The second connection is over the limit: accepted and closed at once.
        let mut second = tokio::net::TcpStream::connect(addr).await.expect("connect");
        let mut buf = [0u8; 16];
        assert_eq!(
            second.read(&mut buf).await.expect("read"),
            0,
            "closed at once"
        );
        // The first still works.
        client
            .initialized(InitializedParams {})
            .await
            .expect("initialized");
        assert_eq!(
            client
                .chat_query_commands(query("still"))
                .await
                .expect("works")
                .commands[0]
                .name,
            "still"
        );
        // Shutdown closes it: its stream ends and calls fail.
        server.shutdown().await;
        assert!(notes.recv().await.is_none());
        conn.join().await.expect("clean close");
        assert!(client.chat_query_commands(query("late")).await.is_err());
    })
    .await
    .expect("bounded");
}

#[tokio::test]
async fn abandoned_calls_free_their_slot() {
    let (a, b) = tokio::io::duplex(64 * 1024);
    let (cr, cw) = tokio::io::split(b);
    let _silent = a;
    let config = Config {
        mode: CheckMode::Off,
        max_outstanding: 1,
        ..Config::default()
    };
    let (client, _notes, _conn) = Client::connect(cr, cw, config);
    for _ in 0..3 {
        // The caller gives up; the next call must still find a free slot.
        let gave_up = timeout(
            Duration::from_millis(50),
            client.chat_query_commands(query("x")),
        )
        .await;
        assert!(gave_up.is_err(), "nobody answers");
    }
    let (first, second) = tokio::join!(
        timeout(
            Duration::from_millis(200),
            client.chat_query_commands(query("a"))
        ),
        async {
            tokio::time::sleep(Duration::from_millis(20)).await;
            client.chat_query_commands(query("b")).await
        }
    );
    assert!(first.is_err(), "still unanswered");
    assert!(
        matches!(second, Err(CallError::TooManyOutstanding(1))),
        "{second:?}"
    );
}

#[tokio::test]
async fn requests_beyond_the_in_flight_limit_are_answered_busy() {
    let config = Config {
        max_in_flight: 1,
        ..Config::default()
    };
    let (a, b) = tokio::io::duplex(64 * 1024);
    let (sr, sw) = tokio::io::split(a);
    let _server = Server::serve(Arc::new(Echo), sr, sw, config);
    let (cr, cw) = tokio::io::split(b);
    let (client, _notes, _conn) = Client::connect(cr, cw, Config::default());
    timeout(BOUND, async {
        client.initialize(init_params()).await.expect("initialize");
        client.initialized(InitializedParams {}).await.expect("initialized");
        let slow = client.chat_query_context(agentwire_protocols::eca::ChatQueryContextParams {
            chat_id: None,
            query: "slow".to_owned(),
            contexts: Vec::new(),
        });
        let (slow, busy) = tokio::join!(slow, async {
            tokio::time::sleep(Duration::from_millis(50)).await;
            client.chat_query_commands(query("x")).await
        });
        assert!(slow.is_ok(), "{slow:?}");
        assert!(
            matches!(busy, Err(CallError::Rpc(ref e)) if e.code == agentwire_transport::jsonrpc::SERVER_BUSY),
            "{busy:?}"
        );
        // Once the slow one is done, requests are taken again.
        client.chat_query_commands(query("y")).await.expect("answered");
    })
    .await
    .expect("bounded");
}
