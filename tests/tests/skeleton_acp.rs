//! The generated ACP skeleton in-process, agent and client over an in-memory pipe: an agent
//! that writes only the three handlers every agent needs (initialize, session/new,
//! session/prompt) streams its updates and answers the requests ACP makes optional with -32601
//! by default (`answer: method_not_found` in spec/acp); the client's checker refuses to send a
//! request the agent did not declare. One agent endpoint serves a v1 and a v2 client, each in
//! its own version, and a client offering v2 falls back to an agent of v1 alone.

use std::sync::Arc;
use std::time::Duration;

use agentwire_protocols::acp::Version;
use agentwire_protocols::acp::v1::{
    AgentNotification, InitializeRequest, InitializeResponse, LoadSessionRequest,
    NewSessionRequest, NewSessionResponse, PromptRequest, PromptResponse, SessionNotification,
    SetSessionModeRequest,
};
use agentwire_protocols::skeletons::acp::{
    Agent, AgentHandler, AgentHandlers, AgentSender, Client, ClientHandlers, NegotiatedAgent,
    NegotiatedClient, v2,
};
use agentwire_runtime::jsonrpc::RpcError;
use agentwire_transport::jsonrpc::{CallError, Config, Connection};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio::time::timeout;

const BOUND: Duration = Duration::from_secs(20);

fn typed<T: DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("a value of the type")
}

/// An agent with only the handlers ACP requires of every agent.
struct Minimal;

impl AgentHandler for Minimal {
    /// Answers with version 1 whatever the client offers: ACP's negotiation has the agent
    /// answer with the client's version if it speaks it, else its newest, and this one speaks
    /// version 1 only.
    async fn initialize(
        &self,
        _: AgentSender,
        _: InitializeRequest,
    ) -> Result<InitializeResponse, RpcError> {
        Ok(typed(json!({"protocolVersion": 1})))
    }

    async fn session_new(
        &self,
        _: AgentSender,
        _: NewSessionRequest,
    ) -> Result<NewSessionResponse, RpcError> {
        Ok(typed(json!({"sessionId": "sess-1"})))
    }

    async fn session_prompt(
        &self,
        sender: AgentSender,
        p: PromptRequest,
    ) -> Result<PromptResponse, RpcError> {
        let update: SessionNotification = typed(json!({
            "sessionId": p.session_id,
            "update": {"sessionUpdate": "agent_message_chunk", "messageId": "m-1",
                       "content": {"type": "text", "text": "hello"}}}));
        sender.session_update(update).await.map_err(|e| RpcError {
            code: -32603,
            message: e.to_string(),
            data: None,
        })?;
        Ok(typed(json!({"stopReason": "end_turn"})))
    }
}

#[tokio::test]
async fn a_minimal_agent_streams_a_turn_and_refuses_what_it_did_not_declare() {
    let (a, b) = tokio::io::duplex(64 * 1024);
    let (ar, aw) = tokio::io::split(a);
    let (_agent, _agent_conn) = Agent::serve(Arc::new(Minimal), ar, aw, Config::default());
    let (cr, cw) = tokio::io::split(b);
    let (client, mut notes, _client_conn) = Client::connect(cr, cw, Config::default());
    timeout(BOUND, async {
        let init = client
            .initialize(typed(
                json!({"protocolVersion": 1, "clientCapabilities": {}}),
            ))
            .await
            .expect("initialize");
        assert_eq!(
            serde_json::to_value(&init.protocol_version).unwrap(),
            json!(1)
        );
        let session = client
            .session_new(typed(json!({"cwd": "/w", "mcpServers": []})))
            .await
            .expect("session/new");
        let done = client
            .session_prompt(typed(json!({"sessionId": session.session_id,
                                         "prompt": [{"type": "text", "text": "hi"}]})))
            .await
            .expect("session/prompt");
        assert_eq!(
            serde_json::to_value(&done).unwrap(),
            json!({"stopReason": "end_turn"})
        );
        match notes.recv().await.expect("an update") {
            AgentNotification::SessionUpdate(u) => {
                assert_eq!(u.update.kind(), "agent_message_chunk")
            }
            other => panic!("unexpected {other:?}"),
        }
        // The client's own checker refuses a load the agent did not declare, before sending it.
        let load: LoadSessionRequest =
            typed(json!({"sessionId": "sess-0", "cwd": "/w", "mcpServers": []}));
        match client.session_load(load).await {
            Err(CallError::Send(e)) => assert!(e.to_string().contains("loadSession"), "{e}"),
            other => panic!("session/load of an agent without loadSession: {other:?}"),
        }
        // A method the machine allows but the agent did not write is answered -32601.
        let mode: SetSessionModeRequest = typed(json!({"sessionId": "sess-1", "modeId": "code"}));
        match client.session_set_mode(mode).await {
            Err(CallError::Rpc(e)) => assert_eq!(e.code, -32601, "{e:?}"),
            other => panic!("session/set_mode of an agent without modes: {other:?}"),
        }
    })
    .await
    .expect("within the deadline");
}

/// The v2 side of an agent: the three handlers every agent writes, in v2's types.
struct MinimalV2;

impl v2::AgentHandler for MinimalV2 {
    async fn initialize(
        &self,
        _: v2::AgentSender,
        _: agentwire_protocols::acp::v2::InitializeRequest,
    ) -> Result<agentwire_protocols::acp::v2::InitializeResponse, RpcError> {
        Ok(typed(
            json!({"protocolVersion": 2, "info": {"name": "agent", "version": "0.1.0"}}),
        ))
    }

    async fn session_new(
        &self,
        _: v2::AgentSender,
        _: agentwire_protocols::acp::v2::NewSessionRequest,
    ) -> Result<agentwire_protocols::acp::v2::NewSessionResponse, RpcError> {
        Ok(typed(json!({"sessionId": "sess-2"})))
    }

    async fn session_prompt(
        &self,
        sender: v2::AgentSender,
        p: agentwire_protocols::acp::v2::PromptRequest,
    ) -> Result<agentwire_protocols::acp::v2::PromptResponse, RpcError> {
        let update = typed(json!({
            "sessionId": p.session_id,
            "update": {"sessionUpdate": "agent_message_chunk", "messageId": "m-1",
                       "content": {"type": "text", "text": "hello v2"}}}));
        sender.session_update(update).await.map_err(|e| RpcError {
            code: -32603,
            message: e.to_string(),
            data: None,
        })?;
        Ok(typed(json!({"messageId": "m-0"})))
    }
}

/// One agent endpoint for both versions, serving `(reader, writer)` in a task.
fn serve_both<R, W>(
    reader: R,
    writer: W,
) -> tokio::task::JoinHandle<std::io::Result<(NegotiatedAgent, Connection)>>
where
    R: tokio::io::AsyncRead + Send + Unpin + 'static,
    W: tokio::io::AsyncWrite + Send + Unpin + 'static,
{
    let agent = AgentHandlers {
        v2: Arc::new(MinimalV2),
        v1: Arc::new(Minimal),
    };
    tokio::spawn(async move { agent.serve(reader, writer, Config::default()).await })
}

fn offer_v2() -> agentwire_protocols::acp::v2::InitializeRequest {
    typed(
        json!({"protocolVersion": 2, "info": {"name": "editor", "version": "1.0.0"},
                 "capabilities": {}}),
    )
}

#[tokio::test]
async fn one_agent_endpoint_serves_a_v2_client_in_v2() {
    let (a, b) = tokio::io::duplex(64 * 1024);
    let (ar, aw) = tokio::io::split(a);
    let served = serve_both(ar, aw);
    let (cr, cw) = tokio::io::split(b);
    timeout(BOUND, async {
        let (client, _connection) = ClientHandlers::none()
            .connect(cr, cw, offer_v2(), Config::default())
            .await
            .expect("the handshake agrees");
        let NegotiatedClient::V2(mut opened) = client else {
            panic!("v2 expected, got {:?}", client.version());
        };
        assert_eq!(
            serde_json::to_value(&opened.result.protocol_version).unwrap(),
            json!(2)
        );
        let session = opened
            .handle
            .session_new(typed(json!({"cwd": "/w", "mcpServers": []})))
            .await
            .expect("session/new");
        let done = opened
            .handle
            .session_prompt(typed(json!({"sessionId": session.session_id,
                                         "prompt": [{"type": "text", "text": "hi"}]})))
            .await
            .expect("session/prompt");
        assert_eq!(
            serde_json::to_value(&done).unwrap(),
            json!({"messageId": "m-0"})
        );
        match opened.notifications.recv().await.expect("an update") {
            agentwire_protocols::acp::v2::AgentNotification::SessionUpdate(u) => {
                let update = serde_json::to_value(&u.update).unwrap();
                assert_eq!(update["sessionUpdate"], "agent_message_chunk", "{update}")
            }
            other => panic!("unexpected {other:?}"),
        }
        let (agent, _) = served.await.unwrap().expect("served");
        assert_eq!(agent.version(), Version::V2);
    })
    .await
    .expect("within the deadline");
}

#[tokio::test]
async fn one_agent_endpoint_serves_a_v1_client_in_v1() {
    let (a, b) = tokio::io::duplex(64 * 1024);
    let (ar, aw) = tokio::io::split(a);
    let served = serve_both(ar, aw);
    let (cr, cw) = tokio::io::split(b);
    // A client of v1 alone.
    let (client, _notes, _connection) = Client::connect(cr, cw, Config::default());
    timeout(BOUND, async {
        let init = client
            .initialize(typed(
                json!({"protocolVersion": 1, "clientCapabilities": {}}),
            ))
            .await
            .expect("initialize");
        assert_eq!(
            serde_json::to_value(&init.protocol_version).unwrap(),
            json!(1)
        );
        let session = client
            .session_new(typed(json!({"cwd": "/w", "mcpServers": []})))
            .await
            .expect("session/new");
        assert_eq!(session.session_id, "sess-1");
        let (agent, _) = served.await.unwrap().expect("served");
        assert_eq!(agent.version(), Version::V1);
    })
    .await
    .expect("within the deadline");
}

#[tokio::test]
async fn a_client_offering_v2_falls_back_to_an_agent_of_v1_alone() {
    let (a, b) = tokio::io::duplex(64 * 1024);
    let (ar, aw) = tokio::io::split(a);
    let (_agent, _agent_conn) = Agent::serve(Arc::new(Minimal), ar, aw, Config::default());
    let (cr, cw) = tokio::io::split(b);
    timeout(BOUND, async {
        let (client, _connection) = ClientHandlers::none()
            .connect(cr, cw, offer_v2(), Config::default())
            .await
            .expect("falls back to v1");
        let NegotiatedClient::V1(mut opened) = client else {
            panic!("v1 expected, got {:?}", client.version());
        };
        // The rest of the connection speaks v1: a v1 turn ends with a stop reason.
        let session = opened
            .handle
            .session_new(typed(json!({"cwd": "/w", "mcpServers": []})))
            .await
            .expect("session/new");
        let done = opened
            .handle
            .session_prompt(typed(json!({"sessionId": session.session_id,
                                         "prompt": [{"type": "text", "text": "hi"}]})))
            .await
            .expect("session/prompt");
        assert_eq!(
            serde_json::to_value(&done).unwrap(),
            json!({"stopReason": "end_turn"})
        );
        assert!(opened.notifications.recv().await.is_some());
    })
    .await
    .expect("within the deadline");
}

/// Sends each request to a freshly served `Minimal` agent, waiting for its answer (updates
/// in between are skipped), and returns the `error.code` of the answer to the last one.
async fn last_error_code(lines: &[Value]) -> Option<i64> {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let (a, b) = tokio::io::duplex(64 * 1024);
    let (ar, aw) = tokio::io::split(a);
    let (_agent, _conn) = Agent::serve(Arc::new(Minimal), ar, aw, Config::default());
    let (br, mut bw) = tokio::io::split(b);
    let mut answers = BufReader::new(br).lines();
    let mut last = None;
    for line in lines {
        bw.write_all(format!("{line}\n").as_bytes()).await.unwrap();
        let answer = loop {
            let text = answers.next_line().await.unwrap().expect("an answer");
            let msg: Value = serde_json::from_str(&text).unwrap();
            if msg.get("method").is_none() && msg["id"] == line["id"] {
                break msg;
            }
        };
        assert!(
            answer.get("result").is_some() != answer.get("error").is_some(),
            "{answer}"
        );
        last = answer["error"]["code"].as_i64();
    }
    last
}

#[tokio::test]
async fn the_generated_agent_answers_a_missing_session_with_the_code_its_machine_declares() {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                      "params": {"protocolVersion": 1, "clientCapabilities": {}}});
    let prompt = |session: &str| {
        json!({"jsonrpc": "2.0", "id": 2, "method": "session/prompt",
               "params": {"sessionId": session, "prompt": [{"type": "text", "text": "hi"}]}})
    };
    let new = json!({"jsonrpc": "2.0", "id": 1, "method": "session/new",
                     "params": {"cwd": "/w", "mcpServers": []}});
    timeout(BOUND, async {
        // spec/acp/machine.yaml: `{field: params.sessionId, in: sessions, code: -32002}`.
        assert_eq!(
            last_error_code(&[init.clone(), prompt("sess-9")]).await,
            Some(-32002)
        );
        // A session that exists is served.
        assert_eq!(
            last_error_code(&[init.clone(), new.clone(), prompt("sess-1")]).await,
            None
        );
        // Out of order without a declared code (before initialize): the default, -32600.
        assert_eq!(last_error_code(&[new]).await, Some(-32600));
    })
    .await
    .expect("within the deadline");
}
