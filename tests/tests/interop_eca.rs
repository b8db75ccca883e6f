//! The eca skeleton against a JSON-RPC implementation nobody in this project wrote: npm
//! `vscode-jsonrpc` 8.2.1, the library VS Code's language clients use. A Node client drives our
//! example server over its stdio, and our generated client drives a Node server over its stdio;
//! each side also sends broken input and checks the answer.

use std::process::Stdio;
use std::time::Duration;

use agentwire_protocols::eca::{
    ChatContent, ChatPromptParams, ChatQueryCommandsParams, ChatToolCallApproveParams,
    ChatToolCallRejectParams, InitializeParams, InitializedParams, ProgressContentState,
    ServerNotification,
};
use agentwire_protocols::skeletons::eca::{Client, ServerNotifications};
use agentwire_runtime::jsonrpc::{Outcome, codes};
use agentwire_tests::examples::example_binary;
use agentwire_tests::peers::node;
use agentwire_transport::jsonrpc::{CallError, Config, SendError};
use tokio::time::timeout;

const BOUND: Duration = Duration::from_secs(120);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vscode_jsonrpc_client_drives_our_server_over_stdio() {
    let server = example_binary("eca_server");
    let mut cmd = tokio::process::Command::from(node("eca_client.js"));
    cmd.arg(&server)
        .env("RUST_LOG", "error")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let out = timeout(BOUND, cmd.output())
        .await
        .expect("the node client finishes in time")
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.trim_end().ends_with("PASS"),
        "node client reported failures:\n{stdout}\n{stderr}"
    );
    // Every check of the script ran (a script that stopped early would print fewer).
    let passed = stdout.lines().filter(|l| l.starts_with("ok ")).count();
    assert_eq!(passed, 20, "{stdout}");
}

fn initialize_params() -> InitializeParams {
    agentwire_runtime::decode_json(
        r#"{"processId": null, "clientInfo": {"name": "agentwire test"},
            "capabilities": {"codeAssistant": {"chat": true}},
            "workspaceFolders": [{"uri": "file:///tmp/w", "name": "w"}]}"#,
    )
    .expect("valid initialize params")
}

/// Reads chat content until the prompt's `progress finished`, answering the tool call on the
/// way; returns the content types in order.
async fn run_prompt(
    client: &Client,
    notes: &mut ServerNotifications,
    approve: bool,
) -> Vec<String> {
    let response = client
        .chat_prompt(ChatPromptParams {
            chat_id: None,
            request_id: "r1".to_owned(),
            message: "use a tool please".to_owned(),
            model: None,
            behavior: None,
            contexts: None,
        })
        .await
        .expect("chat/prompt answered");
    let mut kinds = Vec::new();
    loop {
        let note = notes.recv().await.expect("stream open until finished");
        let ServerNotification::ChatContentReceived(p) = note else {
            continue;
        };
        assert_eq!(p.chat_id, response.chat_id);
        kinds.push(p.content.kind().to_owned());
        match p.content {
            ChatContent::ToolCallRun(run) if run.manual_approval => {
                let (chat_id, tool_call_id) = (p.chat_id.clone(), run.id.clone());
                let sent = if approve {
                    client
                        .chat_tool_call_approve(ChatToolCallApproveParams {
                            chat_id,
                            tool_call_id,
                        })
                        .await
                } else {
                    client
                        .chat_tool_call_reject(ChatToolCallRejectParams {
                            chat_id,
                            tool_call_id,
                        })
                        .await
                };
                sent.expect("approval answer sent");
            }
            ChatContent::Progress(pr) if pr.state == ProgressContentState::Finished => break,
            _ => {}
        }
    }
    kinds
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_drives_vscode_jsonrpc_server_over_stdio() {
    let cmd = tokio::process::Command::from(node("eca_server.js"));
    let (client, mut notes, connection, mut child) =
        Client::spawn(cmd, Config::default()).expect("spawn the node server");
    timeout(BOUND, async {
        let init = client
            .initialize(initialize_params())
            .await
            .expect("initialize");
        assert_eq!(init.chat_default_model, "node-echo");
        client
            .initialized(InitializedParams {})
            .await
            .expect("initialized");
        let first = notes.recv().await.expect("a greeting");
        assert!(
            matches!(first, ServerNotification::ShowMessage(_)),
            "{first:?}"
        );
        let second = notes.recv().await.expect("a tool server update");
        assert!(
            matches!(second, ServerNotification::ToolServerUpdated(_)),
            "{second:?}"
        );

        let approved = run_prompt(&client, &mut notes, true).await;
        assert_eq!(
            approved,
            [
                "progress",
                "text",
                "toolCallPrepare",
                "toolCallRun",
                "toolCalled",
                "progress"
            ]
        );
        let rejected = run_prompt(&client, &mut notes, false).await;
        assert_eq!(rejected[4], "toolCallRejected");
        // The server's malformed notification (one per prompt, no `role`) never reached us.
        assert_eq!(client.peer().stats().refused, 2);

        // Broken input from our side, answered by vscode-jsonrpc.
        let unknown = client
            .peer()
            .request_raw("chat/noSuchMethod", Some(serde_json::json!({})))
            .await
            .expect("answered");
        assert!(
            matches!(&unknown.outcome, Outcome::Error(e) if e.code == codes::METHOD_NOT_FOUND),
            "{unknown:?}"
        );
        let bad = client
            .peer()
            .request_raw(
                "chat/prompt",
                Some(serde_json::json!({"requestId": "x", "message": 5})),
            )
            .await
            .expect("answered");
        assert!(
            matches!(&bad.outcome, Outcome::Error(e) if e.code == codes::INVALID_PARAMS),
            "{bad:?}"
        );
        // Out of sequence on our side: approving a tool call nobody asked about is refused
        // before it is sent.
        let stray = client
            .chat_tool_call_approve(ChatToolCallApproveParams {
                chat_id: "nope".to_owned(),
                tool_call_id: "never-announced".to_owned(),
            })
            .await;
        assert!(matches!(stray, Err(SendError::Violation(_))), "{stray:?}");
        // The connection still works.
        let commands = client
            .chat_query_commands(ChatQueryCommandsParams {
                chat_id: None,
                query: String::new(),
            })
            .await
            .expect("query commands");
        assert_eq!(commands.commands[0].name, "echo");

        client.shutdown().await.expect("shutdown");
        // After shutdown the checker refuses new requests on our side too.
        let late = client
            .chat_query_commands(ChatQueryCommandsParams {
                chat_id: None,
                query: String::new(),
            })
            .await;
        assert!(
            matches!(late, Err(CallError::Send(SendError::Violation(_)))),
            "{late:?}"
        );
        client.exit().await.expect("exit");
        let status = child.wait().await.expect("node exits");
        assert!(status.success(), "node server exit status {status}");
        connection.join().await.expect("clean end of connection");
    })
    .await
    .expect("the flow finishes in time");
}
