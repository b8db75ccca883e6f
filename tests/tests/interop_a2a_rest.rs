//! The A2A HTTP+JSON binding (specification 11) against the official Python SDK (`a2a-sdk`
//! 1.3.0; peers/python/a2a_rest_peer.py). The SDK's client reads our Agent Card, picks the
//! HTTP+JSON interface it names and drives our agent (the one handler serving gRPC, JSON-RPC
//! and HTTP+JSON through the generated `a2_a_service_routes`) through every rpc, streaming,
//! resubscription and cancellation included; A2A errors arrive as the SDK's own exception
//! classes, and bad input (a value the spec forbids, an unknown member or query parameter, a
//! route that does not exist, broken JSON, a missing or old `A2A-Version`) as the
//! `google.rpc.Status` JSON of 11.6 with the HTTP status of 5.4. Our client reads the SDK
//! server's card, picks its HTTP+JSON interface, and drives it the same way, its stream
//! responses through the task-lifecycle checker.

use std::process::Stdio;
use std::time::Duration;

use agentwire_protocols::a2a::machine::{Checker, Message as Observed};
use agentwire_protocols::a2a::{
    AgentCard, CancelTaskRequest, GetTaskRequest, ListTasksRequest, ListTasksResponse,
    SendMessageResponse, StreamResponse, SubscribeToTaskRequest, Task, TaskPushNotificationConfig,
    TaskState, send_message_response, stream_response::Payload,
};
use agentwire_protocols::skeletons::a2a::{HTTP_JSON, JSONRPC_HTTP};
use agentwire_tests::peers::python;
use agentwire_transport::grpc_jsonrpc::{CallError, discover};
use agentwire_transport::grpc_rest::{Client, Updates};
use agentwire_transport::reqwest::header::{HeaderName, HeaderValue};
use agentwire_transport::tokio;
use serde_json::{Value, json};

use super::interop_a2a_jsonrpc::{kind, python_server, send, serve_agent};

const LIMIT: Duration = Duration::from_secs(90);
const DOMAIN: &str = "a2a-protocol.org";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_rest_client_against_our_server() {
    tokio::task::spawn_blocking(agentwire_tests::peers::ensure_installed)
        .await
        .unwrap();
    let (addr, server) = serve_agent().await;
    let out = tokio::time::timeout(
        LIMIT,
        tokio::task::spawn_blocking(move || {
            python("a2a_rest_peer.py")
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
        // A2A's errors reach the SDK as its own classes, by their ErrorInfo reasons (11.6).
        "subscribe_ended": "UnsupportedOperationError: task `task-6` has ended",
        "cancel_again": "TaskNotCancelableError: task `task-6` has ended",
        "not_found": "TaskNotFoundError: task `no-such-task` not found",
        // Bad input: HTTP status, google.rpc.Status code and status, reasons, message.
        "bad_enum": [400, 400, "INVALID_ARGUMENT", [],
                     "invalid message: /message/role: 99 is not a value of lf.a2a.v1.Role [enum]"],
        "unknown_member": [400, 400, "INVALID_ARGUMENT", [],
                           "invalid request: unrecognized field name 'colour'"],
        "unknown_query": [400, 400, "INVALID_ARGUMENT", [],
                          "invalid request: query parameter `colour` is not a field of the request"],
        "bad_number": [400, 400, "INVALID_ARGUMENT", [],
                       "invalid request: `pageSize`: \"many\" is not an integer"],
        "no_route": [404, 404, "NOT_FOUND", [], "no rpc is served at GET /message:send"],
        "not_json": [400, 400, "INVALID_ARGUMENT", [],
                     "invalid request: the body is not JSON: EOF while parsing an object at line 1 column 1"],
        "no_version": [400, 400, "FAILED_PRECONDITION", ["VERSION_NOT_SUPPORTED"],
                       "A2A-Version 0.3 (no A2A-Version) is not supported; this server speaks 1.0"],
        "old_version": [400, 400, "FAILED_PRECONDITION", ["VERSION_NOT_SUPPORTED"],
                        "A2A-Version 0.3 is not supported; this server speaks 1.0"],
        "tenant": [404, 404, "NOT_FOUND", ["TASK_NOT_FOUND"], "task `no-such-task` not found"],
    });
    assert_eq!(seen, expected);
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

/// The HTTP status and `ErrorInfo` reason of a call that must fail.
fn refusal<T: std::fmt::Debug>(answer: Result<T, CallError>) -> (u16, Option<String>) {
    match answer {
        Err(e @ CallError::Status { http, .. }) => (http, e.reason(DOMAIN)),
        other => panic!("an HTTP+JSON error, not {other:?}"),
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
async fn our_rest_client_against_the_python_sdk_server() {
    let (peer, base) = python_server("a2a_rest_peer.py");
    tokio::time::timeout(LIMIT, drive_sdk_rest_server(&base))
        .await
        .expect("the exchange finishes in time");
    peer.stop();
}

/// Our HTTP+JSON client against an SDK's echo agent at `base` (its card at the well-known
/// path naming an `HTTP+JSON` interface): send, a stream, a page of tasks by query
/// parameters, a task resubscribed to and canceled, the SDK's A2A errors by HTTP status
/// and reason, the version refused, and an invalid request kept from the wire. Every
/// stream response passes the task-lifecycle checker.
pub(crate) async fn drive_sdk_rest_server(base: &str) {
    let card: AgentCard = discover(base, &JSONRPC_HTTP).await.expect("the SDK's card");
    let url = card
        .supported_interfaces
        .iter()
        .find(|i| i.protocol_binding == "HTTP+JSON")
        .map(|i| i.url.clone())
        .expect("an HTTP+JSON interface");
    let client = Client::new(&url, &HTTP_JSON)
        .unwrap()
        .with_header(header("a2a-version"), Some(HeaderValue::from_static("1.0")));
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

    // Query parameters: a page of one task, then the rest.
    let page = ListTasksRequest {
        page_size: Some(1),
        ..Default::default()
    };
    let listed: ListTasksResponse = client.call("ListTasks", &page).await.unwrap();
    assert_eq!(listed.tasks.len(), 1);
    assert!(!listed.next_page_token.is_empty());

    let ended = cancel_round(&client).await;
    // The SDK's A2A errors carry the HTTP statuses of 5.4 and the ErrorInfo of 11.6.
    let subscribe = SubscribeToTaskRequest {
        id: ended.clone(),
        ..Default::default()
    };
    let refused = client
        .stream::<_, StreamResponse>("SubscribeToTask", &subscribe)
        .await;
    let refused = match refused {
        Err(e) => Err(e),
        Ok(mut s) => s.next().await.expect("an answer").map(|_| ()),
    };
    assert_eq!(
        refusal(refused),
        (400, Some("UNSUPPORTED_OPERATION".into()))
    );
    let missing = GetTaskRequest {
        id: "no-such-task".to_owned(),
        ..Default::default()
    };
    assert_eq!(
        refusal(client.call::<_, Task>("GetTask", &missing).await),
        (404, Some("TASK_NOT_FOUND".into()))
    );
    let push = TaskPushNotificationConfig {
        task_id: ended,
        url: "https://client.example/hook".to_owned(),
        ..Default::default()
    };
    assert_eq!(
        refusal(
            client
                .call::<_, TaskPushNotificationConfig>("CreateTaskPushNotificationConfig", &push)
                .await
        ),
        (400, Some("PUSH_NOTIFICATION_NOT_SUPPORTED".into()))
    );
    // The version header: the SDK server refuses 0.3 with VersionNotSupportedError.
    let old = client
        .clone()
        .with_header(header("a2a-version"), Some(HeaderValue::from_static("0.3")));
    assert_eq!(
        refusal(old.call::<_, Task>("GetTask", &missing).await),
        (400, Some("VERSION_NOT_SUPPORTED".into()))
    );
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

fn header(name: &'static str) -> HeaderName {
    HeaderName::from_static(name)
}

/// A request the validators refuse names each failing field in a `google.rpc.BadRequest`
/// detail (9.5's `data`, 11.6's `details`), beside the message that says the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_requests_name_their_fields_on_both_json_bindings() {
    let (addr, server) = serve_agent().await;
    let http = agentwire_transport::reqwest::Client::new();
    let bad = json!({"message": {"messageId": "b-1", "role": 99, "parts": [{"text": "x"}]}});
    let rpc = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": bad});
    let answer = |r: agentwire_transport::reqwest::Response| async move {
        let bytes = r.bytes().await.unwrap();
        serde_json::from_slice::<Value>(&bytes).expect("a JSON error body")
    };
    let jsonrpc = answer(
        http.post(format!("http://{addr}/"))
            .header("A2A-Version", "1.0")
            .header("content-type", "application/json")
            .body(rpc.to_string())
            .send()
            .await
            .unwrap(),
    )
    .await;
    let rest = answer(
        http.post(format!("http://{addr}/message:send"))
            .header("A2A-Version", "1.0")
            .header("content-type", "application/json")
            .body(bad.to_string())
            .send()
            .await
            .unwrap(),
    )
    .await;
    server.abort();
    let violation = json!([{
        "@type": "type.googleapis.com/google.rpc.BadRequest",
        "fieldViolations": [{
            "field": "message.role",
            "description": "99 is not a value of lf.a2a.v1.Role [enum]"
        }]
    }]);
    assert_eq!(jsonrpc["error"]["code"], json!(-32602));
    assert_eq!(jsonrpc["error"]["data"], violation);
    assert_eq!(rest["error"]["status"], json!("INVALID_ARGUMENT"));
    assert_eq!(rest["error"]["details"], violation);
}

/// The version as a request parameter instead of the header (3.6.1): served when it names
/// 1.0, refused with `VERSION_NOT_SUPPORTED` when it names 0.3, and the header wins when
/// both are sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_version_may_come_as_a_query_parameter() {
    let (addr, server) = serve_agent().await;
    let http = agentwire_transport::reqwest::Client::new();
    let get = |query: &'static str, header: Option<&'static str>| {
        let mut request = http.get(format!("http://{addr}/tasks/no-such-task{query}"));
        if let Some(v) = header {
            request = request.header("A2A-Version", v);
        }
        async move {
            let response = request.send().await.unwrap();
            let status = response.status().as_u16();
            let body: Value = serde_json::from_slice(&response.bytes().await.unwrap()).unwrap();
            let reasons: Vec<Value> = body["error"]["details"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|d| d["reason"].clone())
                .collect();
            (status, reasons)
        }
    };
    let not_found = (404, vec![json!("TASK_NOT_FOUND")]);
    let refused = (400, vec![json!("VERSION_NOT_SUPPORTED")]);
    assert_eq!(get("?A2A-Version=1.0", None).await, not_found);
    assert_eq!(get("?a2a-version=1.0", None).await, not_found);
    assert_eq!(get("?A2A-Version=0.3", None).await, refused);
    assert_eq!(get("?A2A-Version=0.3", Some("1.0")).await, not_found);
    assert_eq!(get("", None).await, refused);
    server.abort();
}
