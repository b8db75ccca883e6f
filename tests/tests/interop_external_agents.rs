//! external_agents against a real third-party peer: `curl` (peers/curl/external_agents.sh)
//! creates, attaches, is refused, sends bad input and posts a heredoc Markdown callback to
//! the generated agent server; every answer is checked exactly.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use agentwire_protocols::external_agents as proto;
use agentwire_protocols::skeletons::external_agents as sk;
use agentwire_transport::CheckMode;
use agentwire_transport::http_ws::{Endpoints, Owner, ServerConfig, ServerHandle};
use agentwire_transport::store::sessions::{SessionStore, SqliteSessionStore};
use serde_json::Value;

const MARKDOWN: &str = "Here is a *Markdown* reply.\n\n- One\n- Two\n";

async fn start(store: Arc<dyn SessionStore>) -> (sk::AgentServer, ServerHandle, String) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let config = ServerConfig {
        owners: vec![
            Owner {
                id: "ext-a".into(),
                forward: Some(Endpoints {
                    // Nothing listens on the discard port: these tests send no user messages.
                    url: "http://127.0.0.1:9/input".into(),
                    callback_base: base.clone(),
                }),
            },
            Owner {
                id: "chat-b".into(),
                forward: None,
            },
        ],
        limits: Default::default(),
        mode: CheckMode::Enforce,
        guard: Default::default(),
    };
    let server = sk::AgentServer::new(config, store);
    let handle = server.serve(listener).unwrap();
    (server, handle, base)
}

/// Runs the curl script; returns `name -> (status, body)`.
async fn curl(args: &[&str]) -> HashMap<String, (u16, String)> {
    // The install script also brings curl onto a machine without it.
    agentwire_tests::peers::ensure_installed();
    let script = agentwire_tests::peers::workspace_root().join("peers/curl/external_agents.sh");
    let out = tokio::time::timeout(
        Duration::from_secs(30),
        tokio::process::Command::new("bash")
            .arg(script)
            .args(args)
            .output(),
    )
    .await
    .expect("curl script finishes in time")
    .expect("bash runs");
    assert!(
        out.status.success(),
        "curl script failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            let mut parts = line.splitn(3, '\t');
            let name = parts.next().unwrap().to_owned();
            let status = parts.next().unwrap().parse().unwrap();
            (name, (status, parts.next().unwrap_or("").to_owned()))
        })
        .collect()
}

fn json(body: &str) -> Value {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"))
}

/// Asserts an `ApiErrorResponse` with `code`, and that it decodes as the generated type.
fn assert_api_error(got: &(u16, String), status: u16, code: &str) {
    assert_eq!(got.0, status, "status of {}", got.1);
    let v = json(&got.1);
    assert_eq!(v["ok"], false);
    assert_eq!(v["error"]["code"], code, "{}", got.1);
    let typed: proto::ApiErrorResponse = agentwire_runtime::decode_json(&got.1).unwrap();
    agentwire_runtime::Validate::validate(&typed).unwrap();
}

#[tokio::test]
async fn curl_drives_create_attach_reject_and_callbacks() {
    let store: Arc<dyn SessionStore> = Arc::new(SqliteSessionStore::in_memory().unwrap());
    let (agent, server, base) = start(store.clone()).await;
    let r = curl(&[&base, "flows"]).await;

    let created = &r["created"];
    assert_eq!(created.0, 201, "{}", created.1);
    let v = json(&created.1);
    assert_eq!(v["ok"], true);
    assert_eq!(v["result"]["sessionId"], "EXTERNAL-123");
    assert_eq!(v["result"]["agentId"], "ext-a");
    let created_at = v["result"]["createdAt"].as_str().unwrap().to_owned();

    // The padded id is trimmed and attaches to the same session, with the same createdAt.
    let attach = &r["attach"];
    assert_eq!(attach.0, 200, "{}", attach.1);
    assert_eq!(json(&attach.1)["result"]["sessionId"], "EXTERNAL-123");
    assert_eq!(json(&attach.1)["result"]["createdAt"], created_at.as_str());

    assert_api_error(&r["cross_agent"], 409, "session_agent_mismatch");
    assert_api_error(&r["unknown_agent"], 404, "agent_not_found");
    assert_api_error(&r["bad_session_id"], 400, "invalid_session_id");
    assert_api_error(&r["long_session_id"], 400, "invalid_session_id");
    assert_api_error(&r["bad_json"], 400, "invalid_request");
    assert_api_error(&r["missing_agent"], 400, "invalid_request");
    assert_api_error(&r["unknown_session"], 404, "session_not_found");
    assert_api_error(&r["bad_path_id"], 400, "invalid_session_id");
    assert_api_error(&r["blank_callback"], 400, "empty_message");
    assert_api_error(&r["not_utf8"], 400, "invalid_request");
    assert_api_error(&r["bad_path_encoding"], 400, "invalid_session_id");
    assert_eq!(r["callback"], (200, r#"{"ok":true}"#.to_owned()));

    // The heredoc body arrived byte for byte, as one assistant line of the conversation.
    let log = store.log("EXTERNAL-123").unwrap();
    assert_eq!(log.len(), 1);
    let entry = match proto::AgentServerMessage::from_json(&log[0].value.to_string()).unwrap() {
        proto::AgentServerMessage::Message(m) => m,
        other => panic!("expected a message, got {other:?}"),
    };
    assert_eq!(
        (entry.role, entry.text.as_str()),
        (proto::ChatMessageBroadcastRole::Assistant, MARKDOWN)
    );
    assert_eq!(agent.violations(), 0);
    server.shutdown().await.unwrap();
}

async fn next(ui: &mut sk::WebUiClient) -> proto::AgentServerMessage {
    tokio::time::timeout(Duration::from_secs(5), ui.next())
        .await
        .expect("a frame in time")
        .expect("connection open")
        .expect("valid frame")
}

#[tokio::test]
async fn curl_callback_is_broadcast_and_deleted_sessions_revive() {
    let store: Arc<dyn SessionStore> = Arc::new(SqliteSessionStore::in_memory().unwrap());
    let (agent, server, base) = start(store.clone()).await;
    let r = curl(&[&base, "create", "ext-a", "S-42"]).await;
    assert_eq!(r["create"].0, 201);

    let ws = format!("{}/ws", base.replacen("http", "ws", 1));
    let mut ui = sk::WebUiClient::connect(&ws, CheckMode::Enforce)
        .await
        .unwrap();
    ui.hello(proto::HelloMessage {
        session_id: proto::SessionId("S-42".into()),
    })
    .await
    .unwrap();
    assert!(matches!(
        next(&mut ui).await,
        proto::AgentServerMessage::SessionReady(_)
    ));

    assert_eq!(curl(&[&base, "callback", "S-42"]).await["callback"].0, 200);
    match next(&mut ui).await {
        proto::AgentServerMessage::Message(m) => {
            assert_eq!(m.role, proto::ChatMessageBroadcastRole::Assistant);
            assert_eq!(m.text, MARKDOWN);
            assert_eq!(m.session_id.0, "S-42");
        }
        other => panic!("expected the assistant message, got {other:?}"),
    }

    // Deleted: callbacks get 404; a create by the same agent revives it (200), others 409.
    assert!(store.delete_session("S-42").unwrap());
    assert_api_error(
        &curl(&[&base, "callback", "S-42"]).await["callback"],
        404,
        "session_not_found",
    );
    assert_api_error(
        &curl(&[&base, "create", "chat-b", "S-42"]).await["create"],
        409,
        "session_agent_mismatch",
    );
    assert_eq!(
        curl(&[&base, "create", "ext-a", "S-42"]).await["create"].0,
        200
    );
    assert_eq!(curl(&[&base, "callback", "S-42"]).await["callback"].0, 200);
    assert_eq!(store.log("S-42").unwrap().len(), 2);
    assert_eq!(agent.violations(), 0);
    server.shutdown().await.unwrap();
}
