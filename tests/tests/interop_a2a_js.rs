//! The A2A JSON bindings against the official JavaScript SDK (`@a2a-js/sdk` 1.3.0, which
//! speaks A2A 1.0; peers/node/a2a_client.cjs and a2a_server.cjs), in both directions.
//!
//! On each binding the SDK's client supports and our agent serves over HTTP (JSON-RPC and
//! HTTP+JSON), the SDK's `ClientFactory` reads our Agent Card, takes the interface of that
//! binding, and drives our agent (the one handler behind the generated
//! `a2a_service_routes`): send, a stream, a task resubscribed to and canceled, get, a paged
//! list, and A2A errors arriving as the SDK's own classes for each binding.
//!
//! The SDK's server (its `DefaultRequestHandler` behind its Express JSON-RPC and HTTP+JSON
//! handlers) is driven by our generated clients exactly as the Python SDK's is: send, a
//! stream, a task resubscribed to and canceled, the SDK's errors by code or HTTP status and
//! `ErrorInfo` reason, `A2A-Version: 0.3` refused, every stream response through the
//! task-lifecycle checker.

use std::process::Stdio;
use std::time::Duration;

use agentwire_tests::peers::node;
use agentwire_transport::tokio;
use serde_json::{Value, json};

use agentwire_examples::a2a::WebhookPolicy;

use super::interop_a2a_jsonrpc::{drive_sdk_server, kind, sdk_server, serve_agent_with};
use super::interop_a2a_push::{Received, Receiver};
use super::interop_a2a_rest::drive_sdk_rest_server;

const LIMIT: Duration = Duration::from_secs(90);

/// What the SDK's client reports after a run against a fresh agent on `binding`, and the
/// notifications the webhook it registered got.
async fn run(binding: &'static str) -> (Value, Vec<Received>, String) {
    tokio::task::spawn_blocking(agentwire_tests::peers::ensure_installed)
        .await
        .unwrap();
    let hook = Receiver::start().await;
    let url = hook.url.clone();
    let (addr, server, _) = serve_agent_with(WebhookPolicy::local()).await;
    let out = tokio::time::timeout(
        LIMIT,
        tokio::task::spawn_blocking(move || {
            node("a2a_client.cjs")
                .args([&format!("http://{addr}"), binding, &url])
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
    let seen = serde_json::from_slice(&out.stdout).expect("one JSON object");
    (seen, hook.wait_for(1).await, hook.url.clone())
}

/// The webhook the SDK registered got the cancellation, with the config's credentials.
fn assert_pushed(got: &[Received]) {
    assert_eq!(got.len(), 1, "{got:?}");
    let h = &got[0].headers;
    assert_eq!(
        h.get("authorization").map(String::as_str),
        Some("Bearer js-secret")
    );
    assert_eq!(
        h.get("x-a2a-notification-token").map(String::as_str),
        Some("js-token")
    );
    assert_eq!(kind(&got[0].update()), "status_update:Some(Canceled)");
}

/// The report of a run; `errors` is the prefix of the SDK's error classes on the binding.
fn expected(errors: &str, webhook: &str) -> Value {
    json!({
        "card": "agentwire echo agent",
        "send": ["TASK_STATE_COMPLETED", ["hello"]],
        "stream": ["task:TASK_STATE_SUBMITTED", "status_update:TASK_STATE_WORKING",
                   "artifact_update", "status_update:TASK_STATE_COMPLETED"],
        "wait_stream": ["task:TASK_STATE_SUBMITTED", "status_update:TASK_STATE_WORKING"],
        "resubscribed": ["task:TASK_STATE_WORKING", "status_update:TASK_STATE_CANCELED"],
        "push": [webhook, true, 1],
        "cancel": "TASK_STATE_CANCELED",
        "cancel_again": format!("{errors}TaskNotCancelableError: task `task-6` has ended"),
        "get": ["TASK_STATE_COMPLETED", 0],
        "list": [2, 3, true],
        "not_found": format!("{errors}TaskNotFoundError: task `no-such-task` not found"),
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn js_sdk_client_against_our_jsonrpc_binding() {
    let (seen, pushed, webhook) = run("JSONRPC").await;
    assert_eq!(seen, expected("JsonRpc", &webhook));
    assert_pushed(&pushed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn js_sdk_client_against_our_http_json_binding() {
    let (seen, pushed, webhook) = run("HTTP+JSON").await;
    assert_eq!(seen, expected("Rest", &webhook));
    assert_pushed(&pushed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_jsonrpc_client_against_the_js_sdk_server() {
    let (peer, base) = tokio::task::spawn_blocking(|| sdk_server(node("a2a_server.cjs")))
        .await
        .unwrap();
    tokio::time::timeout(LIMIT, drive_sdk_server(&base))
        .await
        .expect("the exchange finishes in time");
    peer.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_rest_client_against_the_js_sdk_server() {
    let (peer, base) = tokio::task::spawn_blocking(|| sdk_server(node("a2a_server.cjs")))
        .await
        .unwrap();
    tokio::time::timeout(LIMIT, drive_sdk_rest_server(&base))
        .await
        .expect("the exchange finishes in time");
    peer.stop();
}
