//! task_rpc's generated skeletons over newline-delimited JSON-RPC: methods both roles send,
//! omitted params, requests from the server to the client, request ids, progress and
//! cancellation, typed ids, and the JSON-RPC errors bad input gets with the session
//! surviving.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use agentwire_runtime::jsonrpc::{RequestId, RpcError};
use agentwire_transport::jsonrpc::{CallError, Config, Connection};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};
use tokio::sync::Mutex;

use crate::skeletons::task_rpc::{
    Client, ClientHandler, Server, ServerHandler, ServerNotifications, ServerSender,
};
use crate::task_rpc::{
    ClientRequest, ClientResult, ConfirmParams, ConfirmResult, Meta, PingParams, Pong,
    ProgressParams, ProgressToken, ReadyParams, RunParams, RunResult, ServerNotification,
};

const WAIT: Duration = Duration::from_secs(10);

/// Runs tasks; records what it saw so tests can look.
#[derive(Default)]
struct Runner {
    ids: Mutex<Vec<RequestId>>,
    ready: Mutex<Vec<Option<ReadyParams>>>,
    /// Set when a handler's future is dropped before it finished (aborted by a cancel).
    aborted: Arc<AtomicBool>,
}

/// Sets its flag when dropped unfinished.
struct AbortFlag(Arc<AtomicBool>, bool);

impl Drop for AbortFlag {
    fn drop(&mut self) {
        if !self.1 {
            self.0.store(true, Ordering::SeqCst);
        }
    }
}

impl ServerHandler for Runner {
    async fn ping(&self, _: ServerSender, params: Option<PingParams>) -> Result<Pong, RpcError> {
        Ok(Pong {
            note: params.and_then(|p| p.note),
        })
    }

    async fn task_run(&self, sender: ServerSender, p: RunParams) -> Result<RunResult, RpcError> {
        let mut flag = AbortFlag(Arc::clone(&self.aborted), false);
        self.ids
            .lock()
            .await
            .push(sender.request_id().cloned().unwrap());
        if p.confirm == Some(true) {
            let question = ConfirmParams {
                question: format!("run {}?", p.name),
            };
            let answer = sender
                .client_confirm(question)
                .await
                .map_err(|e| RpcError {
                    code: -32000,
                    message: e.to_string(),
                    data: None,
                })?;
            if !answer.yes {
                flag.1 = true;
                return Ok(RunResult { done: 0 });
            }
        }
        let incoming = sender.incoming().unwrap();
        for step in 1..=p.steps {
            tokio::time::sleep(Duration::from_millis(p.delay_ms.unwrap_or(0) as u64)).await;
            let progress = json!({"progress": step, "total": p.steps});
            incoming.progress(progress).await.unwrap();
        }
        flag.1 = true;
        Ok(RunResult { done: p.steps })
    }

    async fn session_ready(&self, _: ServerSender, params: Option<ReadyParams>) {
        self.ready.lock().await.push(params);
    }
}

/// Confirms every question, and answers the server's ping.
struct Confirmer;

impl ClientHandler for Confirmer {
    async fn ping(&self, handle: Client, _: Option<PingParams>) -> Result<Pong, RpcError> {
        Ok(Pong {
            note: handle.request_id().map(|id| format!("client answers {id}")),
        })
    }

    async fn client_confirm(&self, _: Client, _: ConfirmParams) -> Result<ConfirmResult, RpcError> {
        Ok(ConfirmResult { yes: true })
    }
}

struct Ends {
    client: Client,
    server: ServerSender,
    _notifications: ServerNotifications,
    _connections: [Connection; 2],
}

fn connect(runner: Arc<Runner>) -> Ends {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (sr, sw) = tokio::io::split(server_end);
    let (cr, cw) = tokio::io::split(client_end);
    let (server, s) = Server::serve(runner, sr, sw, Config::default());
    let (client, notifications, c) =
        Client::connect_with(Arc::new(Confirmer), cr, cw, Config::default());
    Ends {
        client,
        server,
        _notifications: notifications,
        _connections: [s, c],
    }
}

fn run(name: &str, steps: i64, delay_ms: i64, token: Option<i64>) -> RunParams {
    RunParams {
        meta: token.map(|t| Meta {
            progress_token: Some(ProgressToken::Integer(t)),
        }),
        name: name.to_owned(),
        steps,
        delay_ms: Some(delay_ms),
        confirm: None,
    }
}

#[tokio::test]
async fn ping_goes_both_ways_with_and_without_params() {
    let ends = connect(Arc::new(Runner::default()));
    let pong = ends.client.ping(None).await.unwrap();
    assert_eq!(pong.note, None);
    let with = PingParams {
        note: Some("hi".to_owned()),
    };
    assert_eq!(
        ends.client.ping(Some(with)).await.unwrap().note.as_deref(),
        Some("hi")
    );
    // The server pings the client: the client's handler answers, seeing the request's id.
    let pong = ends.server.ping(None).await.unwrap();
    assert_eq!(pong.note.as_deref(), Some("client answers 1"));
}

#[tokio::test]
async fn omitted_params_decode_and_the_session_goes_on() {
    let runner = Arc::new(Runner::default());
    let ends = connect(Arc::clone(&runner));
    // As a peer writes it by hand: no `params` member at all.
    ends.client
        .peer()
        .send_frame(r#"{"jsonrpc":"2.0","method":"session/ready"}"#.to_owned())
        .await
        .unwrap();
    let raw = ends.client.peer().request_raw("ping", None).await.unwrap();
    let agentwire_runtime::jsonrpc::Outcome::Result(result) = raw.outcome else {
        panic!("a ping without params is answered: {raw:?}");
    };
    assert_eq!(result.get(), "{}");
    assert_eq!(runner.ready.lock().await.as_slice(), [None]);
    // Ready a second time breaks the session machine: the server drops it (the client's
    // checker never saw the raw first one) and the connection goes on.
    let again = ReadyParams {
        client: Some("again".to_owned()),
    };
    ends.client.session_ready(Some(again)).await.unwrap();
    ends.client.ping(None).await.unwrap();
    assert_eq!(runner.ready.lock().await.as_slice(), [None]);
    assert_eq!(ends.server.peer().stats().violations, 1);
}

#[tokio::test]
async fn the_server_asks_the_client_in_the_middle_of_a_request() {
    let ends = connect(Arc::new(Runner::default()));
    let mut params = run("confirmed", 2, 0, None);
    params.confirm = Some(true);
    assert_eq!(ends.client.task_run(params).await.unwrap().done, 2);
}

#[tokio::test]
async fn a_caller_sees_its_id_and_the_progress_of_its_call() {
    let runner = Arc::new(Runner::default());
    let ends = connect(Arc::clone(&runner));
    let request = ClientRequest::TaskRun(run("progress", 3, 0, Some(42)));
    let mut pending = ends.client.peer().start(request).await.unwrap();
    let id = pending.id().clone();
    let mut progress = pending
        .take_progress()
        .expect("the request carries a token");
    let ClientResult::TaskRun(result) = pending.result().await.unwrap() else {
        panic!("a task/run result");
    };
    assert_eq!(result.done, 3);
    let mut seen = Vec::new();
    while let Ok(Some(n)) = tokio::time::timeout(Duration::from_millis(200), progress.recv()).await
    {
        let ServerNotification::NotificationsProgress(ProgressParams {
            progress_token,
            progress,
            ..
        }) = n
        else {
            panic!("only progress reaches the call: {n:?}");
        };
        assert_eq!(progress_token, ProgressToken::Integer(42));
        seen.push(progress);
    }
    assert_eq!(seen, [1.0, 2.0, 3.0]);
    // The handler saw the same id the caller holds.
    assert_eq!(runner.ids.lock().await.as_slice(), [id]);
}

#[tokio::test]
async fn cancelling_aborts_the_handler_and_the_session_goes_on() {
    let runner = Arc::new(Runner::default());
    let ends = connect(Arc::clone(&runner));
    let request = ClientRequest::TaskRun(run("slow", 1, 60_000, None));
    let pending = ends.client.peer().start(request).await.unwrap();
    // Wait until the handler runs, then cancel.
    tokio::time::timeout(WAIT, async {
        while runner.ids.lock().await.is_empty() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .unwrap();
    pending.cancel().await.unwrap();
    ends.client.ping(None).await.unwrap();
    tokio::time::timeout(WAIT, async {
        while !runner.aborted.load(Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("the handler task is aborted");
}

/// A raw client: writes lines to a served `Runner`, reads the lines it answers.
struct Raw {
    write: WriteHalf<DuplexStream>,
    read: BufReader<ReadHalf<DuplexStream>>,
    _connection: Connection,
}

impl Raw {
    fn new(config: Config) -> Self {
        let (client_end, server_end) = tokio::io::duplex(1024 * 1024);
        let (sr, sw) = tokio::io::split(server_end);
        let (_, connection) = Server::serve(Arc::new(Runner::default()), sr, sw, config);
        let (read, write) = tokio::io::split(client_end);
        Raw {
            write,
            read: BufReader::new(read),
            _connection: connection,
        }
    }

    async fn send(&mut self, line: &str) {
        self.write.write_all(line.as_bytes()).await.unwrap();
        self.write.write_all(b"\n").await.unwrap();
    }

    async fn recv(&mut self) -> Value {
        let mut line = String::new();
        tokio::time::timeout(WAIT, self.read.read_line(&mut line))
            .await
            .expect("an answer")
            .unwrap();
        serde_json::from_str(&line).unwrap()
    }
}

#[tokio::test]
async fn a_cancelled_request_gets_no_answer_and_ids_are_typed() {
    let mut raw = Raw::new(Config::default());
    let slow = |id: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"task/run","params":{{"name":"t","steps":1,"delay_ms":300}}}}"#
        )
    };
    raw.send(&slow("2")).await;
    raw.send(&slow("\"2\"")).await;
    raw.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"2"}}"#)
        .await;
    raw.send(r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#)
        .await;
    // The ping first, then the numeric request 2; never the cancelled string "2".
    assert_eq!(
        raw.recv().await,
        json!({"jsonrpc": "2.0", "id": 3, "result": {}})
    );
    assert_eq!(
        raw.recv().await,
        json!({"jsonrpc": "2.0", "id": 2, "result": {"done": 1}})
    );
    raw.send(r#"{"jsonrpc":"2.0","id":4,"method":"ping","params":{"note":"after"}}"#)
        .await;
    assert_eq!(
        raw.recv().await,
        json!({"jsonrpc": "2.0", "id": 4, "result": {"note": "after"}})
    );
}

#[tokio::test]
async fn bad_input_gets_the_json_rpc_errors_and_the_session_survives() {
    let config = Config {
        max_frame_size: 4096,
        ..Config::default()
    };
    let mut raw = Raw::new(config);
    let cases: [(String, Value, i64); 5] = [
        ("this is not json".to_owned(), Value::Null, -32700),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"no/such"}"#.to_owned(),
            json!(1),
            -32601,
        ),
        (
            r#"{"jsonrpc":"2.0","id":"b","method":"task/run","params":{"name":"","steps":0}}"#
                .to_owned(),
            json!("b"),
            -32602,
        ),
        (
            r#"{"jsonrpc":"1.0","id":5,"method":"ping"}"#.to_owned(),
            json!(5),
            -32600,
        ),
        (
            format!(
                r#"{{"jsonrpc":"2.0","id":6,"method":"ping","params":{{"note":"{}"}}}}"#,
                "x".repeat(10_000)
            ),
            Value::Null,
            -32700,
        ),
    ];
    for (line, id, code) in cases {
        raw.send(&line).await;
        let answer = raw.recv().await;
        assert_eq!(answer["id"], id, "{answer}");
        assert_eq!(answer["error"]["code"], code, "{answer}");
        raw.send(r#"{"jsonrpc":"2.0","id":99,"method":"ping"}"#)
            .await;
        assert_eq!(
            raw.recv().await["id"],
            99,
            "the session survives `{line:.40}`"
        );
    }
}

#[tokio::test]
async fn a_method_only_the_server_sends_is_named_as_such() {
    let mut raw = Raw::new(Config::default());
    raw.send(r#"{"jsonrpc":"2.0","id":7,"method":"client/confirm","params":{"question":"?"}}"#)
        .await;
    let answer = raw.recv().await;
    assert_eq!(answer["id"], 7, "{answer}");
    assert_eq!(answer["error"]["code"], -32601, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("`client/confirm` is sent by the server, not the client"),
        "{answer}"
    );
}

#[tokio::test]
async fn a_result_of_the_wrong_type_fails_the_call() {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (cr, cw) = tokio::io::split(client_end);
    let (client, _notifications, _connection) = Client::connect(cr, cw, Config::default());
    let (read, mut write) = tokio::io::split(server_end);
    let mut read = BufReader::new(read);
    let call = tokio::spawn(async move { client.task_run(run("x", 1, 0, None)).await });
    let mut line = String::new();
    read.read_line(&mut line).await.unwrap();
    let request: Value = serde_json::from_str(&line).unwrap();
    let answer = json!({"jsonrpc": "2.0", "id": request["id"], "result": {"done": "many"}});
    write
        .write_all(format!("{answer}\n").as_bytes())
        .await
        .unwrap();
    let result = tokio::time::timeout(WAIT, call).await.unwrap().unwrap();
    let Err(CallError::InvalidResult(invalid)) = result else {
        panic!("expected an invalid result, got {result:?}");
    };
    assert!(invalid.to_string().contains("/result/done"), "{invalid}");
}
