//! The example agent's version 2 side (ACP's v2 draft). A v2 prompt is answered as soon as it
//! is inserted into the conversation (`messageId`); the turn then runs on its own and reports
//! through `session/update`: the user message echoed, `state_update` `running`, a thought and
//! message chunks, a tool call whose permission it asks, and `state_update` `idle` with the
//! stop reason (`end_turn`, or `cancelled` after `session/cancel`; prompt-lifecycle,
//! "Cancellation"). Version 2 has no agent-side `fs/*` or `terminal/*`, so the tool call only
//! reports what it would do.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use agentwire_examples::acp::{blocks_text, internal, not_found, typed};
use agentwire_protocols::acp::v2::{
    CancelSessionNotification, InitializeRequest, InitializeResponse, NewSessionRequest,
    NewSessionResponse, PromptRequest, PromptResponse,
};
use agentwire_protocols::skeletons::acp::v2::{AgentHandler, AgentSender};
use agentwire_runtime::jsonrpc::RpcError;
use serde_json::{Value, json};
use tokio::sync::watch;

/// How long a cancelled turn still waits for the answer to its permission request.
const CANCEL_GRACE: Duration = Duration::from_secs(5);

/// The version 2 agent: the sessions of this connection, each with its cancel signal.
#[derive(Default)]
pub struct ExampleAgentV2 {
    sessions: Mutex<HashMap<String, watch::Sender<bool>>>,
    next: AtomicU64,
    turns: AtomicU64,
}

/// One running turn: its number (ids are unique within the session), an untied sender and the
/// cancel signal.
struct Turn {
    number: u64,
    sender: AgentSender,
    session: String,
    cancel: watch::Receiver<bool>,
}

/// Why a turn ended early.
enum Stop {
    Cancelled,
    Failed(String),
}

impl Turn {
    async fn update(&self, update: Value) -> Result<(), Stop> {
        let note = typed(json!({"sessionId": self.session, "update": update}))
            .map_err(|e| Stop::Failed(e.message))?;
        self.sender
            .session_update(note)
            .await
            .map_err(|e| Stop::Failed(format!("cannot send an update: {e}")))
    }

    async fn chunk(&self, kind: &str, id: &str, text: &str) -> Result<(), Stop> {
        self.update(json!({"sessionUpdate": kind, "messageId": id,
                           "content": {"type": "text", "text": text}}))
            .await
    }

    fn check(&self) -> Result<(), Stop> {
        if *self.cancel.borrow() {
            Err(Stop::Cancelled)
        } else {
            Ok(())
        }
    }

    /// Asks permission for `tool_call`: `Ok(true)` when an allow option was chosen. Once the
    /// turn is cancelled it still waits [`CANCEL_GRACE`] for the answer.
    async fn permission(&self, tool_call: &str, title: &str) -> Result<bool, Stop> {
        let params = typed(json!({
            "sessionId": self.session,
            "title": title,
            "subject": {"type": "tool_call", "toolCall": {"toolCallId": tool_call}},
            "options": [
                {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
                {"optionId": "reject", "name": "Reject", "kind": "reject_once"}
            ]
        }))
        .map_err(|e| Stop::Failed(e.message))?;
        let call = self.sender.session_request_permission(params);
        tokio::pin!(call);
        let mut cancel = self.cancel.clone();
        let answer = tokio::select! {
            answer = &mut call => answer,
            () = async { drop(cancel.wait_for(|c| *c).await) } => {
                match tokio::time::timeout(CANCEL_GRACE, &mut call).await {
                    Ok(answer) => answer,
                    Err(_) => return Err(Stop::Cancelled),
                }
            }
        };
        let answer = answer.map_err(|e| Stop::Failed(format!("permission failed: {e}")))?;
        let outcome = serde_json::to_value(&answer.outcome).unwrap_or_default();
        match outcome["outcome"].as_str() {
            Some("selected") => Ok(outcome["optionId"] == "allow"),
            _ => Err(Stop::Cancelled),
        }
    }
}

/// The turn's steps after the prompt was inserted as `user_message`.
async fn steps(turn: &Turn, asked: &str) -> Result<(), Stop> {
    let n = turn.number;
    turn.update(json!({"sessionUpdate": "state_update", "state": "running"}))
        .await?;
    turn.chunk(
        "agent_thought_chunk",
        &format!("thought-{n}"),
        &format!("The user asked {asked:?}; I will plan a step."),
    )
    .await?;
    turn.chunk("agent_message_chunk", &format!("reply-{n}"), "Let me plan.")
        .await?;
    let id = format!("plan-{n}");
    turn.update(
        json!({"sessionUpdate": "tool_call_update", "toolCallId": id,
                       "title": "Plan the answer", "kind": "think", "status": "pending"}),
    )
    .await?;
    let allowed = turn.permission(&id, "Plan the answer").await?;
    turn.check()?;
    let (status, said) = if allowed {
        ("completed", "planned")
    } else {
        ("failed", "the user declined")
    };
    turn.update(json!({"sessionUpdate": "tool_call_update", "toolCallId": id, "status": status,
                       "content": [{"type": "content", "content": {"type": "text", "text": said}}]}))
        .await?;
    turn.chunk(
        "agent_message_chunk",
        &format!("reply-{n}"),
        &format!(" Done: {said}."),
    )
    .await
}

/// Runs a turn to its end and reports it `idle` with its stop reason.
async fn run_turn(turn: Turn, user: String, prompt: Value) {
    let echoed = json!({"sessionUpdate": "user_message", "messageId": user, "content": prompt});
    let ran = match turn.update(echoed).await {
        Ok(()) => steps(&turn, &blocks_text(&prompt)).await,
        Err(e) => Err(e),
    };
    let stop = match ran {
        Ok(()) => "end_turn",
        Err(Stop::Cancelled) => "cancelled",
        Err(Stop::Failed(why)) => {
            tracing::warn!(session = %turn.session, %why, "turn failed");
            "error"
        }
    };
    tracing::info!(session = %turn.session, stop, "turn ended");
    let mut idle = json!({"sessionUpdate": "state_update", "state": "idle", "stopReason": stop});
    if stop == "error" {
        idle["error"] = json!({"code": -32603, "message": "the turn failed"});
    }
    drop(turn.update(idle).await);
}

impl AgentHandler for ExampleAgentV2 {
    async fn initialize(
        &self,
        _sender: AgentSender,
        params: InitializeRequest,
    ) -> Result<InitializeResponse, RpcError> {
        let p = serde_json::to_value(&params).unwrap_or_default();
        tracing::info!(offered = %p["protocolVersion"], caps = %p["capabilities"], "initialize (v2)");
        typed(json!({
            "protocolVersion": 2,
            "info": {"name": "agentwire-acp-example", "version": env!("CARGO_PKG_VERSION")},
            "capabilities": {}
        }))
    }

    async fn session_new(
        &self,
        _sender: AgentSender,
        params: NewSessionRequest,
    ) -> Result<NewSessionResponse, RpcError> {
        let id = format!("sess-{}", self.next.fetch_add(1, Ordering::Relaxed) + 1);
        let (cancel, _) = watch::channel(false);
        self.sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id.clone(), cancel);
        let cwd = serde_json::to_value(&params.cwd).unwrap_or_default();
        tracing::info!(session = %id, %cwd, "session/new (v2)");
        typed(json!({"sessionId": id}))
    }

    async fn session_prompt(
        &self,
        sender: AgentSender,
        params: PromptRequest,
    ) -> Result<PromptResponse, RpcError> {
        let session = params.session_id.clone();
        let cancel = {
            let sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
            let signal = sessions
                .get(&session)
                .ok_or_else(|| not_found(format!("session {session}")))?;
            // A new turn starts uncancelled.
            signal.send_replace(false);
            signal.subscribe()
        };
        let number = self.turns.fetch_add(1, Ordering::Relaxed) + 1;
        let user = format!("user-{number}");
        let prompt = serde_json::to_value(&params.prompt)
            .map_err(|e| internal(format!("cannot read the prompt: {e}")))?;
        // The turn outlives this request: its sender is tied to no request.
        let turn = Turn {
            number,
            sender: AgentSender::new(sender.peer().clone()),
            session,
            cancel,
        };
        tokio::spawn(run_turn(turn, user.clone(), prompt));
        typed(json!({"messageId": user}))
    }

    async fn session_cancel(&self, _sender: AgentSender, params: CancelSessionNotification) {
        let sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(signal) = sessions.get(&params.session_id) {
            tracing::info!(session = %params.session_id, "session/cancel (v2)");
            signal.send_replace(true);
        }
    }
}
