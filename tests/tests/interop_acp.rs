//! ACP v1 interop with the three official SDKs, both directions. Each SDK's peer (our code on
//! the SDK's public API: peers/python/acp_peer.py on `agent-client-protocol` 0.12.1,
//! peers/node/acp_peer.cjs on `@agentclientprotocol/sdk` 2.4.0, peers/rust/acp on the
//! `agent-client-protocol` crate 5.2.0) runs one scenario:
//!
//! - their client against the `acp_agent` example (our generated agent skeleton): initialize,
//!   a session, a turn with thought and message chunks, two tool calls with their updates, a
//!   permission allowed, a file read and a terminal run for the agent; a second turn the client
//!   cancels when asked for permission; then bad input, each answered in ACP's error form;
//! - our generated client (with the examples' [`ClientAnswers`]) against their agent: the same
//!   turn from the other side (their agent asks, our client answers permission, the file and
//!   the terminal), the cancelled turn, their agent's bad requests refused by our client, and
//!   our bad input answered by their agent.
//!
//! Both sides' observations are compared whole, so a peer that skips or reorders a step, or
//! answers with another code, fails the test. Every run has a deadline.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use agentwire_examples::acp::{ClientAnswers, Permission, client_capabilities};
use agentwire_protocols::acp::v1::AgentNotification;
use agentwire_protocols::skeletons::acp::{AgentNotifications, Client};
use agentwire_runtime::jsonrpc::{Outcome, Response, RpcError};
use agentwire_tests::examples::example_binary;
use agentwire_tests::peers::{node, python, target_dir, workspace_root};
use agentwire_transport::jsonrpc::{CallError, Config};
use agentwire_transport::tokio;
use serde_json::{Value, json};

/// The longest one direction with one SDK may take (the peers' own limit is 60 s).
const LIMIT: Duration = Duration::from_secs(90);

/// The first line of the README the scenario reads.
const README: &str = "# interop\nsecond line\nthird line\nfourth line\n";

/// A working directory holding the README; its canonical path (as the peers see their cwd).
fn workdir() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("README.md"), README).unwrap();
    let path = dir.path().canonicalize().unwrap();
    (dir, path)
}

/// The Rust SDK's peer, built (once per test process) into this target folder from its own
/// manifest and lock file.
fn rust_peer() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let manifest = workspace_root().join("peers/rust/acp/Cargo.toml");
            let started = Instant::now();
            let status = agentwire_tests::examples::cargo()
                .args(["build", "-q", "--locked", "--manifest-path"])
                .arg(&manifest)
                .env("CARGO_TARGET_DIR", target_dir())
                .status()
                .expect("run cargo build");
            assert!(status.success(), "building the Rust SDK peer failed");
            eprintln!("the Rust SDK peer built in {:?}", started.elapsed());
            target_dir().join("debug/acp-sdk-peer")
        })
        .clone()
}

/// The command that runs an SDK's peer with `args`.
fn peer(sdk: &str, args: &[&str]) -> std::process::Command {
    let mut cmd = match sdk {
        "python" => python("acp_peer.py"),
        "typescript" => node("acp_peer.cjs"),
        "rust" => std::process::Command::new(rust_peer()),
        other => panic!("no {other} peer"),
    };
    cmd.args(args);
    cmd
}

// -- their client, our agent ---------------------------------------------------------------

/// What every SDK's client must see from the `acp_agent` example in `cwd`.
fn expected_from_our_agent(cwd: &Path) -> Value {
    let text = format!(
        "Let me look at the workspace. Done: {}/README.md starts with \"# interop\"; `echo` \
         exited with 0 printing \"hello from a client terminal\".",
        cwd.display()
    );
    json!({
        "initialize": {"protocolVersion": 1, "agent": "agentwire-acp-example"},
        "turn1": {
            "stop": "end_turn",
            "updates": [
                "agent_thought_chunk", "agent_message_chunk",
                "tool_call read-1 pending", "tool_call_update read-1 in_progress",
                "tool_call_update read-1 completed",
                "tool_call run-1 in_progress", "tool_call_update run-1",
                "tool_call_update run-1 completed",
                "agent_message_chunk"
            ],
            "text": text
        },
        "turn2": {
            "stop": "cancelled",
            "updates": ["agent_thought_chunk", "agent_message_chunk", "tool_call read-2 pending"]
        },
        "permissions": [["read-1", "allow"], ["read-2", "cancelled"]],
        "reads": [["README.md", 1, 3]],
        "terminal": ["create echo", "wait_for_exit", "output", "release"],
        "errors": {
            // A prompt naming no session is refused by the generated sequence checker, with
            // the code machine.yaml declares for it: -32002 "Resource not found", as every
            // SDK's own agent answers it (below).
            "unknown_session": [-32002],
            "unknown_method": [-32601],
            "invalid_params": [-32602]
        }
    })
}

async fn their_client_against_our_agent(sdk: &'static str) {
    tokio::task::spawn_blocking(agentwire_tests::peers::ensure_installed)
        .await
        .unwrap();
    let agent = example_binary("acp_agent");
    let (_dir, cwd) = workdir();
    let mut cmd = peer(sdk, &["client", agent.to_str().unwrap()]);
    cmd.current_dir(&cwd)
        .env("RUST_LOG", "off")
        .stdin(Stdio::null())
        .stderr(Stdio::inherit());
    let started = Instant::now();
    let out = tokio::time::timeout(LIMIT, tokio::task::spawn_blocking(move || cmd.output()))
        .await
        .unwrap_or_else(|_| panic!("the {sdk} SDK's client finishes within {LIMIT:?}"))
        .unwrap()
        .expect("run the SDK's client");
    eprintln!("{sdk} client -> our agent: {:?}", started.elapsed());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the {sdk} SDK's client failed: {stdout}"
    );
    let seen: Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("one JSON object from the {sdk} client ({e}): {stdout}"));
    assert_eq!(seen, expected_from_our_agent(&cwd), "{sdk}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_client_against_our_agent() {
    their_client_against_our_agent("python").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_sdk_client_against_our_agent() {
    their_client_against_our_agent("typescript").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rust_sdk_client_against_our_agent() {
    their_client_against_our_agent("rust").await;
}

// -- our client, their agent ---------------------------------------------------------------

type Boxed = Box<dyn std::error::Error + Send + Sync>;

fn typed<T: agentwire_runtime::serde::de::DeserializeOwned>(v: Value) -> T {
    serde_json::from_value(v).expect("a valid ACP value")
}

/// The normal form of a session update the peers use: kind, then tool call id and status (a
/// new tool call's status defaults to `pending`).
fn update_line(note: &AgentNotification) -> Option<String> {
    let AgentNotification::SessionUpdate(u) = note else {
        return None;
    };
    let update = serde_json::to_value(&u.update).unwrap_or_default();
    let kind = update["sessionUpdate"].as_str().unwrap_or("?");
    let mut parts = vec![kind.to_owned()];
    if let Some(id) = update["toolCallId"].as_str() {
        parts.push(id.to_owned());
    }
    match update["status"].as_str() {
        Some(status) => parts.push(status.to_owned()),
        None if kind == "tool_call" => parts.push("pending".to_owned()),
        None => {}
    }
    Some(parts.join(" "))
}

fn chunk_text(note: &AgentNotification) -> String {
    let AgentNotification::SessionUpdate(u) = note else {
        return String::new();
    };
    let update = serde_json::to_value(&u.update).unwrap_or_default();
    if update["sessionUpdate"] != "agent_message_chunk" {
        return String::new();
    }
    update["content"]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// One prompt turn: its stop reason, the session's updates in normal form and the text of
/// the agent's message chunks.
async fn turn(
    client: &Client,
    notes: &mut AgentNotifications,
    session: &str,
    text: &str,
) -> Result<Value, Boxed> {
    let params = typed(json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]}));
    let prompt = client.session_prompt(params);
    tokio::pin!(prompt);
    let mut seen = Vec::new();
    let done = loop {
        tokio::select! {
            done = &mut prompt => break done?,
            Some(note) = notes.recv() => seen.push(note),
        }
    };
    // Updates sent before the answer may still be queued behind it.
    while let Ok(Some(note)) = tokio::time::timeout(Duration::from_millis(50), notes.recv()).await {
        seen.push(note);
    }
    let updates: Vec<String> = seen.iter().filter_map(update_line).collect();
    let chunks: String = seen.iter().map(chunk_text).collect();
    Ok(json!({"stop": serde_json::to_value(done.stop_reason)?, "updates": updates, "text": chunks}))
}

/// The error code of a raw request's answer, or "answered".
async fn raw_code(client: &Client, method: &str, params: Value) -> Value {
    match client.peer().request_raw(method, Some(params)).await {
        Ok(Response {
            outcome: Outcome::Error(RpcError { code, .. }),
            ..
        }) => json!(code),
        Ok(_) => json!("answered"),
        Err(CallError::Rpc(e)) => json!(e.code),
        Err(e) => json!(format!("failed: {e}")),
    }
}

/// Drives their agent through the scenario; what our client saw.
async fn drive(
    client: &Client,
    notes: &mut AgentNotifications,
    answers: &ClientAnswers,
    cwd: &Path,
) -> Result<Value, Boxed> {
    let init = client
        .initialize(typed(json!({
            "protocolVersion": 1,
            "clientCapabilities": client_capabilities(),
            "clientInfo": {"name": "agentwire-interop", "version": "0"}
        })))
        .await?;
    let init = serde_json::to_value(&init)?;
    let session = client
        .session_new(typed(json!({"cwd": cwd, "mcpServers": []})))
        .await?
        .session_id;
    let turn1 = turn(client, notes, &session, "What does the README say?").await?;
    answers.set_permission(Permission::CancelTurn);
    let turn2 = turn(client, notes, &session, "Read it again.").await?;
    let errors = json!({
        "unknown_session": raw_code(client, "session/prompt",
            json!({"sessionId": "no-such-session", "prompt": [{"type": "text", "text": "hi"}]})).await,
        "unknown_method": raw_code(client, "_agentwire/unknown", json!({})).await,
        "invalid_params": raw_code(client, "session/new", json!({"cwd": 7, "mcpServers": []})).await,
    });
    Ok(json!({
        "initialize": {"protocolVersion": init["protocolVersion"], "agent": init["agentInfo"]["name"]},
        "session": session,
        "turn1": turn1,
        "turn2": turn2,
        "cancelled_by_permission": answers.take_cancelled(),
        "live_terminals": answers.live_terminals(),
        "errors": errors,
    }))
}

async fn our_client_against_their_agent(sdk: &'static str) {
    tokio::task::spawn_blocking(agentwire_tests::peers::ensure_installed)
        .await
        .unwrap();
    let (_dir, cwd) = workdir();
    let report = cwd.join("agent-report.json");
    let mut cmd = tokio::process::Command::from(peer(sdk, &["agent", report.to_str().unwrap()]));
    cmd.current_dir(&cwd).stderr(Stdio::inherit());
    if sdk == "rust" {
        // Built outside the deadline: the first build compiles the SDK.
        tokio::task::spawn_blocking(rust_peer).await.unwrap();
    }
    let started = Instant::now();
    let answers = Arc::new(ClientAnswers::new(false));
    let (client, mut notes, _connection, mut child) =
        Client::spawn_with(Arc::clone(&answers), cmd, Config::default())
            .expect("start their agent");
    let seen = tokio::time::timeout(LIMIT, drive(&client, &mut notes, &answers, &cwd))
        .await
        .unwrap_or_else(|_| panic!("the {sdk} SDK's agent finishes the scenario within {LIMIT:?}"))
        .unwrap_or_else(|e| panic!("the scenario with the {sdk} SDK's agent failed: {e}"));
    client.close();
    let status = tokio::time::timeout(Duration::from_secs(10), child.wait())
        .await
        .unwrap_or_else(|_| panic!("the {sdk} SDK's agent exits at the end of its input"))
        .unwrap();
    eprintln!("our client -> {sdk} agent: {:?}", started.elapsed());
    assert!(
        status.success(),
        "the {sdk} SDK's agent exited with {status}"
    );
    let name = format!("{sdk}-sdk-agent");
    assert_eq!(
        seen,
        json!({
            "initialize": {"protocolVersion": 1, "agent": name},
            "session": "sdk-session-1",
            "turn1": {
                "stop": "end_turn",
                "updates": [
                    "agent_thought_chunk", "agent_message_chunk",
                    "tool_call call-1 pending", "tool_call_update call-1 in_progress",
                    "tool_call_update call-1 completed",
                    "tool_call call-1-run in_progress", "tool_call_update call-1-run completed",
                    "agent_message_chunk"
                ],
                "text": "Reading README.md. Done."
            },
            "turn2": {
                "stop": "cancelled",
                "updates": ["agent_thought_chunk", "agent_message_chunk",
                            "tool_call call-2 pending", "tool_call_update call-2 failed"],
                "text": "Reading README.md."
            },
            "cancelled_by_permission": true,
            "live_terminals": 0,
            "errors": {"unknown_session": -32002, "unknown_method": -32601, "invalid_params": -32602},
        }),
        "{sdk}"
    );
    // What their agent saw of our client.
    let mut theirs: Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("their agent's report"))
            .unwrap();
    let caps = theirs["initialize"]["capabilities"].take();
    assert_eq!(caps["fs"]["readTextFile"], true, "{sdk}: {caps}");
    assert_eq!(caps["terminal"], true, "{sdk}: {caps}");
    assert_eq!(
        theirs,
        json!({
            "initialize": {"protocolVersion": 1, "capabilities": null, "client": "agentwire-interop"},
            "cancels": 1,
            "permissions": ["yes", "cancelled"],
            "read": "# interop\n",
            "terminal": {"exitCode": 0, "output": "from the client\n"},
            // Our client refuses a relative path (invalid params) and a released terminal
            // (-32002 "Resource not found": machine.yaml's code for a terminal that is gone).
            "bad_requests": {"relative_path": -32602, "released_terminal": -32002},
        }),
        "{sdk}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_against_the_python_sdk_agent() {
    our_client_against_their_agent("python").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_against_the_typescript_sdk_agent() {
    our_client_against_their_agent("typescript").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_against_the_rust_sdk_agent() {
    our_client_against_their_agent("rust").await;
}
