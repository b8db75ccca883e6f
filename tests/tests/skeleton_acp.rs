//! The generated ACP skeleton in-process, agent and client over an in-memory pipe: an agent
//! that writes only the three handlers every agent needs (initialize, session/new,
//! session/prompt) streams its updates and answers the requests ACP makes optional with -32601
//! by default (`answer: method_not_found` in spec/acp); the client's checker refuses to send a
//! request the agent did not declare.

use std::sync::Arc;
use std::time::Duration;

use agentwire_protocols::acp::v1::{
    AgentNotification, InitializeRequest, InitializeResponse, LoadSessionRequest,
    NewSessionRequest, NewSessionResponse, PromptRequest, PromptResponse, SessionNotification,
    SetSessionModeRequest,
};
use agentwire_protocols::skeletons::acp::{Agent, AgentHandler, AgentSender, Client};
use agentwire_runtime::jsonrpc::RpcError;
use agentwire_transport::jsonrpc::{CallError, Config};
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
    async fn initialize(
        &self,
        _: AgentSender,
        p: InitializeRequest,
    ) -> Result<InitializeResponse, RpcError> {
        Ok(typed(json!({"protocolVersion": p.protocol_version})))
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
