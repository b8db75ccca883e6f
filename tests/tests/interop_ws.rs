//! The WebSocket skeletons against peers nobody here wrote: Python `websockets` clients
//! against our helix_zed and agentloop servers, and our clients against Python servers.

use crate::ws_support;

use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};

use agentwire_protocols::agentloop as al;
use agentwire_protocols::helix_zed as hz;
use agentwire_protocols::skeletons::{agentloop as al_skel, helix_zed as hz_skel};
use agentwire_tests::peers::python;
use agentwire_transport::store::keyed::{MappingStore, SqliteKeyedStore, StateStore};
use agentwire_transport::ws::TrackError as HelixError;
use agentwire_transport::ws::{ClientConfig, Refused, ServerConfig};
use serde_json::json;
use tokio::net::TcpListener;
use tokio::time::timeout;
use ws_support::{ScriptedAgentLoop, ScriptedZed, WAIT, typed};

/// Runs a Python client script against `url`; fails the test with its output unless it
/// exits 0.
async fn run_python_client(script: &'static str, url: String) {
    let out = timeout(
        WAIT * 3,
        tokio::task::spawn_blocking(move || python(script).arg(url).output()),
    )
    .await
    .expect("python peer finished in time")
    .unwrap()
    .expect("python peer ran");
    assert!(
        out.status.success(),
        "{script} failed:\nstdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A Python server process, killed when dropped.
struct PythonServer {
    child: Child,
    url: String,
}

impl PythonServer {
    fn start(which: &str) -> Self {
        let mut child = python("ws_servers.py")
            .arg(which)
            .stdout(Stdio::piped())
            .spawn()
            .expect("start python server");
        let stdout = child.stdout.take().unwrap();
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).unwrap();
        let port = line
            .trim()
            .strip_prefix("PORT ")
            .unwrap_or_else(|| panic!("python server said {line:?}"));
        Self {
            child,
            url: format!("ws://127.0.0.1:{port}/"),
        }
    }
}

impl Drop for PythonServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_helix_client_against_our_zed_server() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = hz_skel::serve(listener, ScriptedZed::default(), ServerConfig::default())
        .await
        .unwrap();
    run_python_client("helix_client.py", server.url()).await;
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_agentloop_client_against_our_server() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = al_skel::serve(
        listener,
        ScriptedAgentLoop::default(),
        ServerConfig::default(),
    )
    .await
    .unwrap();
    run_python_client("agentloop_client.py", server.url()).await;
    server.shutdown().await.unwrap();
}

/// Events of one turn up to message_completed; the refusals seen on the way are counted.
async fn turn<St: MappingStore + StateStore>(
    agent: &mut hz_skel::HelixAgent<St>,
) -> (Vec<hz::ZedEvent>, usize) {
    let mut events = Vec::new();
    let mut refused = 0;
    loop {
        match timeout(WAIT, agent.next()).await.unwrap().unwrap() {
            Ok(ev) => {
                let done = ev.kind() == "message_completed";
                events.push(ev);
                if done {
                    return (events, refused);
                }
            }
            Err(HelixError::Refused(Refused::Invalid(_))) => refused += 1,
            Err(e) => panic!("{e}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_helix_client_against_a_python_zed_server() {
    let peer = PythonServer::start("helix");
    let store = SqliteKeyedStore::in_memory().unwrap();
    let mut agent = hz_skel::HelixAgent::connect(&peer.url, ClientConfig::default(), store)
        .await
        .unwrap();
    agent.chat("ses_py", "hello python", "r1").await.unwrap();
    let (events, refused) = turn(&mut agent).await;
    assert_eq!(refused, 1, "the peer's malformed frame was not refused");
    let created: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            hz::ZedEvent::ContextCreated(c) => Some(c.data.acp_thread_id.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(created.len(), 1);
    assert_eq!(agent.thread("ses_py").unwrap(), Some(created[0].clone()));
    assert_eq!(
        agent.state("r1").unwrap(),
        Some(hz::InteractionState::Complete)
    );

    agent.chat("ses_py", "again", "r2").await.unwrap();
    let (events, refused) = turn(&mut agent).await;
    assert_eq!(refused, 0);
    assert!(events.iter().all(|e| e.kind() != "context_created"));
    let hz::ZedEvent::MessageAdded(last) = &events[events.len() - 2] else {
        panic!("{events:?}");
    };
    assert_eq!(last.data.content, "Python Zed heard: again");
    assert_eq!(last.data.acp_thread_id, created[0]);
    assert_eq!(
        agent.state("r2").unwrap(),
        Some(hz::InteractionState::Complete)
    );
    agent.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_agentloop_client_against_a_python_server() {
    let peer = PythonServer::start("agentloop");
    let mut client = al_skel::Client::connect(&peer.url, ClientConfig::default())
        .await
        .unwrap();
    client
        .user_input(typed(
            json!({"type": "user_input", "id": "u1", "payload": {"input": [
            {"type": "message", "role": "user",
             "content": [{"type": "input_text", "text": "list files"}]}]}}),
        ))
        .await
        .unwrap();
    let first = timeout(WAIT, client.next()).await.unwrap().unwrap();
    assert!(matches!(first, Err(Refused::Invalid(_))), "{first:?}");
    let mut kinds = Vec::new();
    loop {
        let msg = timeout(WAIT, client.next())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        kinds.push(msg.kind());
        match msg {
            al::ServerMessage::ApprovalRequest(_) => client
                .approval_response(typed(
                    json!({"type": "approval_response", "id": "a1", "payload": {"review": "yes"}}),
                ))
                .await
                .unwrap(),
            al::ServerMessage::AgentFinished(f) => {
                assert_eq!(f.payload.response_id, "resp-py-1");
                break;
            }
            _ => {}
        }
    }
    assert_eq!(
        kinds,
        [
            "loading_state",
            "response_item",
            "approval_request",
            "response_item",
            "loading_state",
            "agent_finished"
        ]
    );
    client
        .get_context_info(typed(json!({"type": "get_context_info", "id": "c1"})))
        .await
        .unwrap();
    let info = timeout(WAIT, client.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(info.kind(), "context_info");
    client.close().await;
}
