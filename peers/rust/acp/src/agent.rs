//! The agent: an SDK v1 agent on stdio whose every prompt runs one scripted turn (a thought and
//! a message chunk, a tool call with updates, a permission request, a file read, a terminal run
//! and released, then requests the client must refuse), recording what the client answered.

use std::sync::{Arc, Mutex};

use agent_client_protocol::v1::{ConnectionTo, Responder, schema};
use agent_client_protocol::{
    Agent, Client, Error, Stdio, on_receive_notification, on_receive_request,
};
use serde_json::{Value, json};

use crate::{code, plain, typed};

/// The session this agent hands out.
const SESSION: &str = "sdk-session-1";

/// What the agent saw, written to the report file at the end.
#[derive(Default)]
struct State {
    seen: Value,
    cwd: String,
    cancelled: bool,
    turns: u64,
}

type Shared = Arc<Mutex<State>>;

fn lock(state: &Shared) -> std::sync::MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

fn text(t: &str) -> Value {
    json!({"type": "text", "text": t})
}

/// One scripted turn; its stop reason.
async fn turn(
    state: &Shared,
    cx: &ConnectionTo<Client>,
    call: &str,
) -> Result<&'static str, Error> {
    let update = |u: Value| -> Result<(), Error> {
        let note: schema::SessionNotification = typed(json!({"sessionId": SESSION, "update": u}))?;
        cx.send_notification(note)
    };
    update(json!({"sessionUpdate": "agent_thought_chunk", "content": text("Planning a read.")}))?;
    update(json!({"sessionUpdate": "agent_message_chunk", "content": text("Reading README.md.")}))?;
    let file = format!("{}/README.md", lock(state).cwd.trim_end_matches('/'));
    update(
        json!({"sessionUpdate": "tool_call", "toolCallId": call, "title": "Read README.md",
                  "kind": "read", "status": "pending", "locations": [{"path": file}]}),
    )?;
    let ask: schema::RequestPermissionRequest = typed(json!({
        "sessionId": SESSION,
        "toolCall": {"toolCallId": call, "title": "Read README.md"},
        "options": [{"optionId": "yes", "name": "Allow", "kind": "allow_once"},
                    {"optionId": "no", "name": "Reject", "kind": "reject_once"}]
    }))?;
    let outcome = plain(&cx.send_request(ask).block_task().await?.outcome);
    let said = outcome
        .get("optionId")
        .unwrap_or(&outcome["outcome"])
        .clone();
    if let Some(said_before) = lock(state).seen["permissions"].as_array_mut() {
        said_before.push(said);
    }
    if outcome["outcome"] != "selected" || lock(state).cancelled {
        update(
            json!({"sessionUpdate": "tool_call_update", "toolCallId": call, "status": "failed"}),
        )?;
        return Ok("cancelled");
    }
    update(
        json!({"sessionUpdate": "tool_call_update", "toolCallId": call, "status": "in_progress"}),
    )?;
    let read: schema::ReadTextFileRequest =
        typed(json!({"sessionId": SESSION, "path": file, "line": 1, "limit": 1}))?;
    let content = cx.send_request(read).block_task().await?.content;
    lock(state).seen["read"] = json!(content);
    update(
        json!({"sessionUpdate": "tool_call_update", "toolCallId": call, "status": "completed",
                  "content": [{"type": "content", "content": text(&content)}]}),
    )?;
    let terminal = run_terminal(state, cx, call).await?;
    update(
        json!({"sessionUpdate": "tool_call_update", "toolCallId": format!("{call}-run"),
                  "status": "completed"}),
    )?;
    bad_requests(state, cx, &terminal).await?;
    update(json!({"sessionUpdate": "agent_message_chunk", "content": text(" Done.")}))?;
    Ok("end_turn")
}

/// Runs `echo` in a client terminal, embedded in a tool call; waits, reads and releases it.
/// Returns the released terminal's id.
async fn run_terminal(
    state: &Shared,
    cx: &ConnectionTo<Client>,
    call: &str,
) -> Result<String, Error> {
    let create: schema::CreateTerminalRequest =
        typed(json!({"sessionId": SESSION, "command": "echo", "args": ["from", "the", "client"]}))?;
    let id = cx
        .send_request(create)
        .block_task()
        .await?
        .terminal_id
        .0
        .to_string();
    let note: schema::SessionNotification = typed(json!({"sessionId": SESSION, "update": {
        "sessionUpdate": "tool_call", "toolCallId": format!("{call}-run"), "title": "Run echo",
        "kind": "execute", "status": "in_progress",
        "content": [{"type": "terminal", "terminalId": id}]}}))?;
    cx.send_notification(note)?;
    let ids = json!({"sessionId": SESSION, "terminalId": id});
    let wait: schema::WaitForTerminalExitRequest = typed(ids.clone())?;
    let exit = plain(&cx.send_request(wait).block_task().await?);
    let output: schema::TerminalOutputRequest = typed(ids.clone())?;
    let output = cx.send_request(output).block_task().await?.output;
    let release: schema::ReleaseTerminalRequest = typed(ids)?;
    cx.send_request(release).block_task().await?;
    lock(state).seen["terminal"] = json!({"exitCode": exit["exitCode"], "output": output});
    Ok(id)
}

/// Requests the client must refuse, in ACP's error form: a relative path, a released terminal.
async fn bad_requests(
    state: &Shared,
    cx: &ConnectionTo<Client>,
    released: &str,
) -> Result<(), Error> {
    let relative: schema::ReadTextFileRequest =
        typed(json!({"sessionId": SESSION, "path": "README.md"}))?;
    let first = cx.send_request(relative).block_task().await.map(|_| ());
    let gone: schema::TerminalOutputRequest =
        typed(json!({"sessionId": SESSION, "terminalId": released}))?;
    let second = cx.send_request(gone).block_task().await.map(|_| ());
    let as_json = |r: Result<(), Error>| r.map_or_else(|e| json!(code(&e)), |()| json!("answered"));
    lock(state).seen["bad_requests"] =
        json!({"relative_path": as_json(first), "released_terminal": as_json(second)});
    Ok(())
}

pub async fn run(report: &str) -> Result<(), Error> {
    let state: Shared = Arc::default();
    lock(&state).seen = json!({"cancels": 0, "permissions": [], "bad_requests": {}});
    let (s1, s2, s3, s4) = (state.clone(), state.clone(), state.clone(), state.clone());
    let served = Agent
        .v1()
        .name("rust-sdk-agent")
        .on_receive_request(
            async move |req: schema::InitializeRequest,
                        responder: Responder<schema::InitializeResponse>,
                        _cx: ConnectionTo<Client>| {
                let p = plain(&req);
                lock(&s1).seen["initialize"] = json!({
                    "protocolVersion": p["protocolVersion"],
                    "capabilities": p.get("clientCapabilities").cloned().unwrap_or(json!({})),
                    "client": p["clientInfo"]["name"],
                });
                responder.respond(typed(json!({
                    "protocolVersion": 1,
                    "agentCapabilities": {"loadSession": false},
                    "agentInfo": {"name": "rust-sdk-agent", "version": "0"},
                    "authMethods": []
                }))?)
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |req: schema::NewSessionRequest,
                        responder: Responder<schema::NewSessionResponse>,
                        _cx: ConnectionTo<Client>| {
                lock(&s2).cwd = req.cwd.to_string_lossy().into_owned();
                responder.respond(typed(json!({"sessionId": SESSION}))?)
            },
            on_receive_request!(),
        )
        .on_receive_notification(
            async move |_note: schema::CancelNotification, _cx: ConnectionTo<Client>| {
                let mut st = lock(&s3);
                st.cancelled = true;
                let n = st.seen["cancels"].as_u64().unwrap_or(0);
                st.seen["cancels"] = json!(n + 1);
                Ok(())
            },
            on_receive_notification!(),
        )
        .on_receive_request(
            async move |req: schema::PromptRequest,
                        responder: Responder<schema::PromptResponse>,
                        cx: ConnectionTo<Client>| {
                if &*req.session_id.0 != SESSION {
                    let missing =
                        schema::Error::resource_not_found(Some(req.session_id.0.to_string()));
                    return responder.respond_with_error(missing.into());
                }
                let call = {
                    let mut st = lock(&s4);
                    st.turns += 1;
                    st.cancelled = false;
                    format!("call-{}", st.turns)
                };
                // The turn asks the client and waits for its answers: outside the dispatch loop.
                let (state, turn_cx) = (s4.clone(), cx.clone());
                cx.spawn(async move {
                    match turn(&state, &turn_cx, &call).await {
                        Ok(stop) => responder.respond(typed(json!({"stopReason": stop}))?),
                        Err(e) => responder.respond_with_error(e),
                    }
                })
            },
            on_receive_request!(),
        )
        .connect_to(Stdio::new())
        .await;
    let seen = lock(&state).seen.to_string();
    std::fs::write(report, seen).map_err(Error::into_internal_error)?;
    served
}
