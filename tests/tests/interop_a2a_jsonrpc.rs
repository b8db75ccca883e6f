//! The A2A JSON-RPC binding (specification 9) against the official Python SDK (`a2a-sdk`
//! 1.3.0; peers/python/a2a_jsonrpc_peer.py). The SDK's client reads our Agent Card at its
//! well-known path, picks the JSON-RPC interface it names and drives our agent (the one
//! handler serving gRPC and JSON-RPC through the generated `a2_a_service_routes`) through every
//! method, streaming, resubscription and cancellation included; A2A errors arrive as the SDK's
//! own exception classes, and bad input (a value the spec forbids, an unknown member or
//! method, broken JSON, a missing or old `A2A-Version`) as JSON-RPC errors with the codes of
//! 9.5 and 5.4. Our client reads the SDK server's card, picks its JSON-RPC interface, and
//! drives it the same way, its stream responses through the task-lifecycle checker.

use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::time::Duration;

use agentwire_examples::a2a::{EchoAgent, WebhookPolicy, user_message};
use agentwire_protocols::a2a::machine::{Checker, Message as Observed};
use agentwire_protocols::a2a::{
    AgentCard, CancelTaskRequest, GetTaskRequest, SendMessageRequest, SendMessageResponse,
    StreamResponse, SubscribeToTaskRequest, Task, TaskPushNotificationConfig, TaskState,
    send_message_response, stream_response::Payload,
};
use agentwire_protocols::skeletons::a2a::JSONRPC_HTTP;
use agentwire_tests::peers::python;
use agentwire_transport::grpc_jsonrpc::{CallError, Client, Updates, discover};
use agentwire_transport::tokio;
use serde_json::{Value, json};

const LIMIT: Duration = Duration::from_secs(90);
const DOMAIN: &str = "a2a-protocol.org";

/// Kills the peer if the test fails before it exits.
pub(crate) struct Peer(pub(crate) Child);

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_client_against_our_server() {
    tokio::task::spawn_blocking(agentwire_tests::peers::ensure_installed)
        .await
        .unwrap();
    let (addr, server) = serve_agent().await;
    let out = tokio::time::timeout(
        LIMIT,
        tokio::task::spawn_blocking(move || {
            python("a2a_jsonrpc_peer.py")
                .args(["client", &format!("http://{addr}")])
                .stderr(Stdio::inherit())
                .output()
                .expect("run the Python client")
        }),
    )
    .await
    .expect("the Python client finishes in time")
    .unwrap();
    server.abort();
    assert!(out.status.success(), "the Python client failed");
    let seen: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    let expected = json!({
        "interfaces": ["JSONRPC", "GRPC", "HTTP+JSON"],
        "card": "agentwire echo agent",
        "send": ["TASK_STATE_COMPLETED", ["hello"]],
        "stream": ["task:TASK_STATE_SUBMITTED", "status_update:TASK_STATE_WORKING",
                   "artifact_update", "status_update:TASK_STATE_COMPLETED"],
        "wait_stream": ["task:TASK_STATE_SUBMITTED", "status_update:TASK_STATE_WORKING"],
        "cancel": "TASK_STATE_CANCELED",
        "resubscribed": ["task:TASK_STATE_WORKING", "status_update:TASK_STATE_CANCELED"],
        "get": ["TASK_STATE_COMPLETED", 0],
        "list": [2, 3, true],
        "push": ["https://client.example/hook", 1, 0],
        // A2A's errors reach the SDK as its own classes, by their JSON-RPC codes (5.4).
        "subscribe_ended": "UnsupportedOperationError: task `task-6` has ended",
        "cancel_again": "TaskNotCancelableError: task `task-6` has ended",
        "not_found": "TaskNotFoundError: task `no-such-task` not found",
        // Bad input: JSON-RPC's codes (9.5); the version gate's -32009 (5.4, 3.6.2).
        "bad_enum": [200, -32602,
                     "invalid message: /message/role: 99 is not a value of lf.a2a.v1.Role [enum]"],
        "unknown_member": [200, -32602,
                           "Invalid parameters: unrecognized field name 'colour'"],
        "no_method": [200, -32601, "Method not found: `message/send`"],
        "not_json": [200, -32700,
                     "Invalid JSON payload: EOF while parsing an object at line 1 column 1"],
        "no_version": [200, -32009,
                       "A2A-Version 0.3 (no A2A-Version) is not supported; this server speaks 1.0"],
        "old_version": [200, -32009,
                        "A2A-Version 0.3 is not supported; this server speaks 1.0"],
    });
    assert_eq!(seen, expected);
}

/// Our echo agent on every binding of one port: its address and the serving task.
pub(crate) async fn serve_agent() -> (std::net::SocketAddr, tokio::task::JoinHandle<()>) {
    let (addr, server, _) = serve_agent_with(WebhookPolicy::default()).await;
    (addr, server)
}

/// Our echo agent delivering push notifications under `policy`, on every binding of one
/// port: its address, the serving task and a handle on the agent (its push statistics).
pub(crate) async fn serve_agent_with(
    policy: WebhookPolicy,
) -> (std::net::SocketAddr, tokio::task::JoinHandle<()>, EchoAgent) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let agent = EchoAgent::with_webhook_policy(&format!("http://{addr}"), policy);
    let handle = agent.clone();
    let routes = agent.routes().expect("the profiles fit their descriptors");
    let server = tokio::spawn(async move {
        let incoming = tonic::codegen::tokio_stream::wrappers::TcpListenerStream::new(listener);
        let serving = tonic::transport::Server::builder()
            .accept_http1(true)
            .add_routes(routes)
            .serve_with_incoming(incoming);
        serving.await.expect("the agent serves");
    });
    (addr, server, handle)
}

impl Peer {
    /// Ends the peer's standard input, its stop signal, and waits for a clean exit.
    pub(crate) fn stop(mut self) {
        drop(self.0.stdin.take());
        assert!(
            self.0.wait().unwrap().success(),
            "the SDK server exits cleanly"
        );
    }
}

/// Starts the SDK's echo agent of `script`; returns it and its base URL.
pub(crate) fn python_server(script: &str) -> (Peer, String) {
    agentwire_tests::peers::ensure_installed();
    let mut command = python(script);
    command.arg("server");
    sdk_server(command)
}

/// Starts an SDK's server, which picks its own port and prints `listening PORT` first;
/// returns it and its base URL.
pub(crate) fn sdk_server(mut command: std::process::Command) -> (Peer, String) {
    let mut peer = Peer(
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start the SDK server"),
    );
    let stdout = peer.0.stdout.take().unwrap();
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    let port = line
        .trim()
        .strip_prefix("listening ")
        .unwrap_or_else(|| panic!("the SDK server says where it listens: {line:?}"));
    (peer, format!("http://127.0.0.1:{port}"))
}

pub(crate) fn send(id: &str, text: &str) -> SendMessageRequest {
    SendMessageRequest {
        message: Some(user_message(id, text)),
        ..SendMessageRequest::default()
    }
}

/// The case of a stream response and, for a task or status update, its state.
pub(crate) fn kind(update: &StreamResponse) -> String {
    match &update.payload {
        Some(Payload::Task(t)) => format!("task:{:?}", t.status.as_ref().map(|s| s.state())),
        Some(Payload::StatusUpdate(u)) => {
            format!("status_update:{:?}", u.status.as_ref().map(|s| s.state()))
        }
        Some(Payload::ArtifactUpdate(_)) => "artifact_update".to_owned(),
        Some(Payload::Message(_)) => "message".to_owned(),
        None => "none".to_owned(),
    }
}

/// Every update of a stream, each shown to the lifecycle checker.
async fn drain(stream: &mut Updates<StreamResponse>, checker: &mut Checker) -> Vec<String> {
    let mut kinds = Vec::new();
    while let Some(update) = stream.next().await {
        let update = update.expect("a stream update");
        checker
            .observe(Observed::Server(&update))
            .unwrap_or_else(|v| panic!("the SDK server broke the task lifecycle: {v}"));
        kinds.push(kind(&update));
    }
    kinds
}

/// The JSON-RPC code and `ErrorInfo` reason of a call that must fail.
fn refusal<T: std::fmt::Debug>(answer: Result<T, CallError>) -> (i64, Option<String>) {
    match answer {
        Err(e @ CallError::Rpc { code, .. }) => (code, e.reason(DOMAIN)),
        other => panic!("a JSON-RPC error, not {other:?}"),
    }
}

/// A task that waits: streamed until working, resubscribed, canceled; returns its id.
async fn cancel_round(client: &Client) -> String {
    let mut stream: Updates<StreamResponse> = client
        .stream("SendStreamingMessage", &send("r-3", "wait for me"))
        .await
        .unwrap();
    let first = stream.next().await.unwrap().expect("the task first");
    let Some(Payload::Task(task)) = &first.payload else {
        panic!("a stream about a task opens with the task: {first:?}")
    };
    let working = stream.next().await.unwrap().unwrap();
    assert_eq!(kind(&working), "status_update:Some(Working)");
    drop(stream);
    let subscribe = SubscribeToTaskRequest {
        id: task.id.clone(),
        ..Default::default()
    };
    let mut again: Updates<StreamResponse> =
        client.stream("SubscribeToTask", &subscribe).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let cancel = CancelTaskRequest {
        id: task.id.clone(),
        ..Default::default()
    };
    let canceled: Task = client.call("CancelTask", &cancel).await.unwrap();
    assert_eq!(
        canceled.status.map(|s| s.state()),
        Some(TaskState::Canceled)
    );
    let kinds = drain(&mut again, &mut Checker::new()).await;
    assert_eq!(
        kinds.last().map(String::as_str),
        Some("status_update:Some(Canceled)")
    );
    task.id.clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_against_the_python_sdk_server() {
    let (peer, base) = python_server("a2a_jsonrpc_peer.py");
    tokio::time::timeout(LIMIT, drive_sdk_server(&base))
        .await
        .expect("the exchange finishes in time");
    peer.stop();
}

/// Our JSON-RPC client against an SDK's echo agent at `base` (its card at the well-known
/// path naming a `JSONRPC` interface): send, a stream, a task resubscribed to and
/// canceled, the SDK's A2A errors by code and reason, the version refused, and an invalid
/// request kept from the wire. Every stream response passes the task-lifecycle checker.
pub(crate) async fn drive_sdk_server(base: &str) {
    let card: AgentCard = discover(base, &JSONRPC_HTTP).await.expect("the SDK's card");
    let url = card
        .supported_interfaces
        .iter()
        .find(|i| i.protocol_binding == "JSONRPC")
        .map(|i| i.url.clone())
        .expect("a JSON-RPC interface");
    let client = Client::new(&url, &JSONRPC_HTTP).unwrap();
    let answer: SendMessageResponse = client
        .call("SendMessage", &send("r-1", "hello"))
        .await
        .unwrap();
    let Some(send_message_response::Payload::Task(task)) = answer.payload else {
        panic!("the SDK agent answers with a task")
    };
    assert_eq!(task.status.map(|s| s.state()), Some(TaskState::Completed));
    assert_eq!(task.artifacts.len(), 1);

    let mut checker = Checker::new();
    let mut stream = client
        .stream("SendStreamingMessage", &send("r-2", "hi"))
        .await
        .unwrap();
    let kinds = drain(&mut stream, &mut checker).await;
    assert_eq!(
        kinds.first().map(String::as_str),
        Some("task:Some(Submitted)")
    );
    assert_eq!(
        kinds.last().map(String::as_str),
        Some("status_update:Some(Completed)")
    );
    assert!(kinds.contains(&"artifact_update".to_owned()), "{kinds:?}");

    let ended = cancel_round(&client).await;
    // The SDK's A2A errors carry the codes of 5.4 and the ErrorInfo reasons of 9.5.
    let subscribe = SubscribeToTaskRequest {
        id: ended.clone(),
        ..Default::default()
    };
    let refused = client
        .stream::<_, StreamResponse>("SubscribeToTask", &subscribe)
        .await;
    assert_eq!(
        refusal(refused.map(|_| ())),
        (-32004, Some("UNSUPPORTED_OPERATION".into()))
    );
    let missing = GetTaskRequest {
        id: "no-such-task".to_owned(),
        ..Default::default()
    };
    let (code, _) = refusal(client.call::<_, Task>("GetTask", &missing).await);
    assert_eq!(code, -32001);
    let push = TaskPushNotificationConfig {
        task_id: ended,
        url: "https://client.example/hook".to_owned(),
        ..Default::default()
    };
    let (code, _) = refusal(
        client
            .call::<_, TaskPushNotificationConfig>("CreateTaskPushNotificationConfig", &push)
            .await,
    );
    assert_eq!(code, -32003);
    // The version header: the SDK server refuses 0.3 with VersionNotSupportedError.
    let old = client
        .clone()
        .with_header(reqwest_name("a2a-version"), Some("0.3".parse().unwrap()));
    let (code, _) = refusal(old.call::<_, Task>("GetTask", &missing).await);
    assert_eq!(code, -32009);
    // A request that breaks the spec is not sent.
    let mut bad = send("r-9", "x");
    if let Some(m) = bad.message.as_mut() {
        m.role = 99;
    }
    let unsent = client
        .call::<_, SendMessageResponse>("SendMessage", &bad)
        .await;
    assert!(matches!(unsent, Err(CallError::Invalid(_))), "{unsent:?}");
}

fn reqwest_name(name: &'static str) -> agentwire_transport::reqwest::header::HeaderName {
    agentwire_transport::reqwest::header::HeaderName::from_static(name)
}
