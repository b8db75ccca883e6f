//! The A2A JSON bindings against the official JavaScript SDK (`@a2a-js/sdk` 1.3.0, which
//! speaks A2A 1.0; peers/node/a2a_client.cjs). On each binding the SDK's client supports
//! and our agent serves over HTTP (JSON-RPC and HTTP+JSON), the SDK's `ClientFactory` reads
//! our Agent Card, takes the interface of that binding, and drives our agent (the one handler
//! behind the generated `a2a_service_routes`): send, a stream, a task resubscribed to and
//! canceled, get, a paged list, and A2A errors arriving as the SDK's own classes for each
//! binding.

use std::process::Stdio;
use std::time::Duration;

use agentwire_tests::peers::node;
use agentwire_transport::tokio;
use serde_json::{Value, json};

use super::interop_a2a_jsonrpc::serve_agent;

const LIMIT: Duration = Duration::from_secs(90);

/// What the SDK's client reports after a run against a fresh agent on `binding`.
async fn run(binding: &'static str) -> Value {
    tokio::task::spawn_blocking(agentwire_tests::peers::ensure_installed)
        .await
        .unwrap();
    let (addr, server) = serve_agent().await;
    let out = tokio::time::timeout(
        LIMIT,
        tokio::task::spawn_blocking(move || {
            node("a2a_client.cjs")
                .args([&format!("http://{addr}"), binding])
                .stderr(Stdio::inherit())
                .output()
                .expect("run the JavaScript client")
        }),
    )
    .await
    .expect("the JavaScript client finishes in time")
    .unwrap();
    server.abort();
    assert!(
        out.status.success(),
        "the JavaScript client failed on {binding}"
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

/// The report of a run; `errors` is the prefix of the SDK's error classes on the binding.
fn expected(errors: &str) -> Value {
    json!({
        "card": "agentwire echo agent",
        "send": ["TASK_STATE_COMPLETED", ["hello"]],
        "stream": ["task:TASK_STATE_SUBMITTED", "status_update:TASK_STATE_WORKING",
                   "artifact_update", "status_update:TASK_STATE_COMPLETED"],
        "wait_stream": ["task:TASK_STATE_SUBMITTED", "status_update:TASK_STATE_WORKING"],
        "resubscribed": ["task:TASK_STATE_WORKING", "status_update:TASK_STATE_CANCELED"],
        "cancel": "TASK_STATE_CANCELED",
        "cancel_again": format!("{errors}TaskNotCancelableError: task `task-6` has ended"),
        "get": ["TASK_STATE_COMPLETED", 0],
        "list": [2, 3, true],
        "not_found": format!("{errors}TaskNotFoundError: task `no-such-task` not found"),
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn js_sdk_client_against_our_jsonrpc_binding() {
    assert_eq!(run("JSONRPC").await, expected("JsonRpc"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn js_sdk_client_against_our_http_json_binding() {
    assert_eq!(run("HTTP+JSON").await, expected("Rest"));
}
