//! The A2A gRPC binding against the official Python SDK (`a2a-sdk` 1.3.0, its gRPC
//! transport and server; peers/python/a2a_peer.py): the SDK's client drives our agent (the
//! generated `A2AService` skeleton serving `agentwire_examples::a2a::EchoAgent`) through every
//! rpc, streaming, resubscription and cancellation included, and gets A2A's errors as the
//! SDK's own exception classes; our generated client drives an agent written with the SDK's
//! server. Both directions' stream responses go through the generated task-lifecycle
//! checker, and bad input is answered with a gRPC status.

use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::time::Duration;

use agentwire_examples::a2a::{EchoAgent, reason_of, user_message, versioned};
use agentwire_protocols::a2a::machine::{Checker, Message as Observed};
use agentwire_protocols::a2a::{
    CancelTaskRequest, GetTaskRequest, SendMessageRequest, StreamResponse, SubscribeToTaskRequest,
    TaskPushNotificationConfig, send_message_response, stream_response::Payload,
};
use agentwire_protocols::skeletons::a2a::a2_a_service_client::A2AServiceClient;
use agentwire_tests::peers::python;
use agentwire_transport::tokio;
use serde_json::{Value, json};
use tonic::transport::Channel;

const LIMIT: Duration = Duration::from_secs(90);

/// Kills the peer if the test fails before it exits.
struct Peer(Child);

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_client_against_our_server() {
    // Installing the peers may take minutes the first time: not part of the exchange's limit.
    tokio::task::spawn_blocking(agentwire_tests::peers::ensure_installed)
        .await
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let agent = EchoAgent::new(&format!("http://{addr}"));
    let server = tokio::spawn(tonic::transport::Server::builder().serve_with_incoming(
        agent.service(),
        tonic::codegen::tokio_stream::wrappers::TcpListenerStream::new(listener),
    ));
    let out = tokio::time::timeout(
        LIMIT,
        tokio::task::spawn_blocking(move || {
            python("a2a_peer.py")
                .args(["client", &addr.to_string()])
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
        // A2A's errors reach the SDK as its own classes (ErrorInfo in the status details).
        "subscribe_ended": "UnsupportedOperationError: task `task-6` has ended",
        "cancel_again": "TaskNotCancelableError: task `task-6` has ended",
        "not_found": "TaskNotFoundError: task `no-such-task` not found",
        // Bad input: the spec's validators, and the version gate, answer before the handler
        // runs.
        "bad_enum": ["INVALID_ARGUMENT",
                     "invalid message: /message/role: 99 is not a value of lf.a2a.v1.Role [enum]"],
        "no_version": ["FAILED_PRECONDITION",
                       "A2A-Version 0.3 (no A2A-Version) is not supported; this server speaks 1.0"],
    });
    assert_eq!(seen, expected);
}

/// Starts the SDK's echo agent; returns it and its endpoint.
fn python_server() -> (Peer, String) {
    agentwire_tests::peers::ensure_installed();
    let mut peer = Peer(
        python("a2a_peer.py")
            .arg("server")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start the Python server"),
    );
    let stdout = peer.0.stdout.take().unwrap();
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    let port = line
        .trim()
        .strip_prefix("listening ")
        .unwrap_or_else(|| panic!("the Python server says where it listens: {line:?}"));
    (peer, format!("http://127.0.0.1:{port}"))
}

fn send(id: &str, text: &str) -> SendMessageRequest {
    SendMessageRequest {
        message: Some(user_message(id, text)),
        ..SendMessageRequest::default()
    }
}

/// The case of a stream response and, for a task or status update, its state.
fn kind(update: &StreamResponse) -> String {
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
async fn drain(
    stream: &mut tonic::Streaming<StreamResponse>,
    checker: &mut Checker,
) -> Vec<String> {
    let mut kinds = Vec::new();
    while let Some(update) = stream.message().await.expect("a stream update") {
        checker
            .observe(Observed::Server(&update))
            .unwrap_or_else(|v| panic!("the SDK server broke the task lifecycle: {v}"));
        kinds.push(kind(&update));
    }
    kinds
}

/// A task that waits: streamed until working, resubscribed, canceled; returns its id.
async fn cancel_round(client: &mut A2AServiceClient<Channel>, checker: &mut Checker) -> String {
    let mut stream = client
        .send_streaming_message(versioned(send("r-3", "wait for me")))
        .await
        .unwrap()
        .into_inner();
    let first = stream.message().await.unwrap().expect("the task first");
    checker.observe(Observed::Server(&first)).unwrap();
    let Some(Payload::Task(task)) = &first.payload else {
        panic!("a stream about a task opens with the task: {first:?}")
    };
    let working = stream.message().await.unwrap().expect("working");
    assert_eq!(kind(&working), "status_update:Some(Working)");
    drop(stream);
    let mut again = client
        .subscribe_to_task(versioned(SubscribeToTaskRequest {
            id: task.id.clone(),
            ..Default::default()
        }))
        .await
        .unwrap()
        .into_inner();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let canceled = client
        .cancel_task(versioned(CancelTaskRequest {
            id: task.id.clone(),
            ..Default::default()
        }))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        canceled.status.map(|s| s.state()),
        Some(agentwire_protocols::a2a::TaskState::Canceled)
    );
    // A fresh checker: a resubscription opens with the task again, as a new stream does.
    let kinds = drain(&mut again, &mut Checker::new()).await;
    assert_eq!(
        kinds.last().map(String::as_str),
        Some("status_update:Some(Canceled)")
    );
    task.id.clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_against_the_python_sdk_server() {
    let (mut peer, endpoint) = python_server();
    tokio::time::timeout(LIMIT, async {
        let mut client = A2AServiceClient::connect(endpoint).await.unwrap();
        let answer = client
            .send_message(versioned(send("r-1", "hello")))
            .await
            .unwrap();
        let Some(send_message_response::Payload::Task(task)) = answer.into_inner().payload else {
            panic!("the SDK agent answers with a task")
        };
        assert_eq!(
            task.status.map(|s| s.state()),
            Some(agentwire_protocols::a2a::TaskState::Completed)
        );
        assert_eq!(task.artifacts.len(), 1);

        let mut checker = Checker::new();
        let mut stream = client
            .send_streaming_message(versioned(send("r-2", "hi")))
            .await
            .unwrap()
            .into_inner();
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

        let ended = cancel_round(&mut client, &mut checker).await;
        // The SDK's answers to A2A errors carry the specification's ErrorInfo reasons.
        let refused = client
            .subscribe_to_task(versioned(SubscribeToTaskRequest {
                id: ended.clone(),
                ..Default::default()
            }))
            .await
            .expect_err("no subscription to an ended task");
        assert_eq!(
            refused.code(),
            tonic::Code::FailedPrecondition,
            "{refused:?}"
        );
        assert_eq!(
            reason_of(&refused).as_deref(),
            Some("UNSUPPORTED_OPERATION")
        );
        let missing = client
            .get_task(versioned(GetTaskRequest {
                id: "no-such-task".to_owned(),
                ..Default::default()
            }))
            .await
            .expect_err("an unknown task");
        assert_eq!(missing.code(), tonic::Code::NotFound);
        assert_eq!(reason_of(&missing).as_deref(), Some("TASK_NOT_FOUND"));
        let no_push = client
            .create_task_push_notification_config(versioned(TaskPushNotificationConfig {
                task_id: ended,
                url: "https://client.example/hook".to_owned(),
                ..Default::default()
            }))
            .await
            .expect_err("the SDK agent has no push notifications");
        assert_eq!(
            no_push.code(),
            tonic::Code::FailedPrecondition,
            "{no_push:?}"
        );
        assert_eq!(
            reason_of(&no_push).as_deref(),
            Some("PUSH_NOTIFICATION_NOT_SUPPORTED")
        );
        // A request that breaks the spec is not sent: the server never sees it.
        let mut bad = send("r-9", "x");
        if let Some(m) = bad.message.as_mut() {
            m.role = 99;
        }
        let unsent = client
            .send_message(versioned(bad))
            .await
            .expect_err("not sent");
        assert_eq!(unsent.code(), tonic::Code::Internal, "{unsent:?}");
    })
    .await
    .expect("the exchange finishes in time");
    // The end of its standard input stops the SDK server.
    drop(peer.0.stdin.take());
    assert!(peer.0.wait().unwrap().success());
}
