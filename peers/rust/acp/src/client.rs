//! The client: an SDK v1 client that starts the agent, initializes (declaring fs and terminal),
//! opens a session in the current directory, runs a turn allowing what the agent asks (answering
//! permission, `fs/read_text_file` and the `terminal/*` requests), a turn it cancels when asked
//! for permission, then sends bad input: a prompt naming no session, an unknown method, and
//! `session/new` with a number for `cwd`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use agent_client_protocol::v1::{ConnectionTo, Responder, schema};
use agent_client_protocol::{
    AcpAgent, Agent, Client, Error, UntypedMessage, on_receive_notification, on_receive_request,
};
use serde_json::{Value, json};
use tokio::sync::watch;

use crate::{code, plain, typed, update_line};

/// A command run for the agent: its exit code and output once it ended.
struct Terminal {
    done: watch::Receiver<Option<(i32, String)>>,
    task: tokio::task::JoinHandle<()>,
}

/// What the client saw; `cancel_next` makes the next permission request cancel the turn.
#[derive(Default)]
struct State {
    updates: Vec<String>,
    text: String,
    permissions: Vec<Value>,
    reads: Vec<Value>,
    terminal: Vec<String>,
    cancel_next: bool,
    terminals: HashMap<String, Terminal>,
    next_terminal: u64,
}

type Shared = Arc<Mutex<State>>;

fn lock(state: &Shared) -> std::sync::MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

fn not_found(id: &str) -> Error {
    schema::Error::resource_not_found(Some(id.to_owned())).into()
}

/// Starts `command`; its exit and output arrive on the terminal's channel.
fn start_terminal(state: &Shared, command: String, args: Vec<String>) -> String {
    let (tx, done) = watch::channel(None);
    let task = tokio::spawn(async move {
        let ran = tokio::process::Command::new(command)
            .args(args)
            .kill_on_drop(true)
            .output()
            .await;
        let result = match ran {
            Ok(out) => (
                out.status.code().unwrap_or(-1),
                String::from_utf8_lossy(&out.stdout).into_owned(),
            ),
            Err(e) => (-1, e.to_string()),
        };
        let _ = tx.send(Some(result));
    });
    let mut st = lock(state);
    st.next_terminal += 1;
    let id = format!("term-{}", st.next_terminal);
    st.terminals.insert(id.clone(), Terminal { done, task });
    id
}

/// The terminal's exit code and output, once it ended.
async fn ended(state: &Shared, id: &str) -> Result<(i32, String), Error> {
    let mut done = lock(state)
        .terminals
        .get(id)
        .map(|t| t.done.clone())
        .ok_or_else(|| not_found(id))?;
    let ended = done
        .wait_for(Option::is_some)
        .await
        .map_err(Error::into_internal_error)?;
    Ok(ended.clone().unwrap_or_default())
}

/// Answers the agent's permission request: the first allow option, or, when the turn is to
/// be cancelled, `session/cancel` then the outcome `cancelled` (prompt-turn, "Cancellation").
fn permission(
    state: &Shared,
    req: &schema::RequestPermissionRequest,
    cx: &ConnectionTo<Agent>,
) -> Result<Value, Error> {
    let p = plain(req);
    let call = p["toolCall"]["toolCallId"].clone();
    if lock(state).cancel_next {
        let cancel: schema::CancelNotification = typed(json!({"sessionId": p["sessionId"]}))?;
        cx.send_notification(cancel)?;
        lock(state).permissions.push(json!([call, "cancelled"]));
        return Ok(json!({"outcome": {"outcome": "cancelled"}}));
    }
    let options = p["options"].as_array().cloned().unwrap_or_default();
    let chosen = options
        .iter()
        .find(|o| o["kind"].as_str().is_some_and(|k| k.starts_with("allow")))
        .map(|o| o["optionId"].clone())
        .ok_or_else(|| Error::invalid_params().data("no allow option"))?;
    lock(state).permissions.push(json!([call, chosen]));
    Ok(json!({"outcome": {"outcome": "selected", "optionId": chosen}}))
}

/// Reads lines `line..line+limit` of an absolute path.
fn read_file(state: &Shared, req: &schema::ReadTextFileRequest) -> Result<Value, Error> {
    if !req.path.is_absolute() {
        return Err(Error::invalid_params().data(json!({"path": req.path})));
    }
    let cwd = std::env::current_dir().map_err(Error::into_internal_error)?;
    let shown = req.path.strip_prefix(&cwd).unwrap_or(&req.path);
    lock(state).reads.push(json!([shown, req.line, req.limit]));
    let text =
        std::fs::read_to_string(&req.path).map_err(|_| not_found(&req.path.to_string_lossy()))?;
    let start = req.line.unwrap_or(1).max(1) as usize - 1;
    let take = req.limit.map_or(usize::MAX, |l| l as usize);
    let content: String = text.split_inclusive('\n').skip(start).take(take).collect();
    Ok(json!({"content": content}))
}

/// One prompt; its stop reason.
async fn prompt(cx: &ConnectionTo<Agent>, session: &Value, text: &str) -> Result<Value, Error> {
    let req: schema::PromptRequest =
        typed(json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]}))?;
    Ok(plain(&cx.send_request(req).block_task().await?.stop_reason))
}

/// Bad input; the error code each got (or "answered").
async fn bad_input(cx: &ConnectionTo<Agent>) -> Result<Value, Error> {
    let outcome =
        |r: Result<Value, Error>| r.map_or_else(|e| json!([code(&e)]), |_| json!("answered"));
    let unknown_session = prompt(cx, &json!("no-such-session"), "hi").await;
    let unknown_method = cx
        .send_request(UntypedMessage::new("_agentwire/unknown", json!({}))?)
        .block_task()
        .await;
    let bad_params = UntypedMessage::new("session/new", json!({"cwd": 7, "mcpServers": []}))?;
    let invalid_params = cx.send_request(bad_params).block_task().await;
    Ok(json!({
        "unknown_session": outcome(unknown_session),
        "unknown_method": outcome(unknown_method),
        "invalid_params": outcome(invalid_params),
    }))
}

async fn scenario(state: &Shared, cx: ConnectionTo<Agent>) -> Result<Value, Error> {
    let init: schema::InitializeRequest = typed(json!({
        "protocolVersion": 1,
        "clientCapabilities": {"fs": {"readTextFile": true, "writeTextFile": false}, "terminal": true},
        "clientInfo": {"name": "rust-sdk-peer", "version": "0"}
    }))?;
    let init = plain(&cx.send_request(init).block_task().await?);
    let cwd = std::env::current_dir().map_err(Error::into_internal_error)?;
    let new: schema::NewSessionRequest = typed(json!({"cwd": cwd, "mcpServers": []}))?;
    let session = plain(&cx.send_request(new).block_task().await?.session_id);
    let first = prompt(&cx, &session, "What does the README say?").await?;
    let turn1 = {
        let mut st = lock(state);
        st.cancel_next = true;
        json!({"stop": first, "updates": std::mem::take(&mut st.updates), "text": std::mem::take(&mut st.text)})
    };
    let second = prompt(&cx, &session, "Read it again.").await?;
    let turn2 = json!({"stop": second, "updates": std::mem::take(&mut lock(state).updates)});
    let errors = bad_input(&cx).await?;
    let st = lock(state);
    Ok(json!({
        "initialize": {"protocolVersion": init["protocolVersion"], "agent": init["agentInfo"]["name"]},
        "turn1": turn1,
        "turn2": turn2,
        "permissions": st.permissions,
        "reads": st.reads,
        "terminal": st.terminal,
        "errors": errors,
    }))
}

pub async fn run(agent: &[String]) -> Result<Value, Error> {
    let state: Shared = Arc::default();
    let (s1, s2, s3, s4, s5, s6, s7, s8) = (
        state.clone(),
        state.clone(),
        state.clone(),
        state.clone(),
        state.clone(),
        state.clone(),
        state.clone(),
        state.clone(),
    );
    Client
        .v1()
        .name("rust-sdk-peer")
        .on_receive_notification(
            async move |note: schema::SessionNotification, _cx: ConnectionTo<Agent>| {
                let u = plain(&note.update);
                let mut st = lock(&s1);
                st.updates.push(update_line(&u));
                if u["sessionUpdate"] == "agent_message_chunk" {
                    let chunk = u["content"]["text"].as_str().unwrap_or_default().to_owned();
                    st.text.push_str(&chunk);
                }
                Ok(())
            },
            on_receive_notification!(),
        )
        .on_receive_request(
            async move |req: schema::RequestPermissionRequest,
                        responder: Responder<schema::RequestPermissionResponse>,
                        cx: ConnectionTo<Agent>| {
                match permission(&s2, &req, &cx) {
                    Ok(answer) => responder.respond(typed(answer)?),
                    Err(e) => responder.respond_with_error(e),
                }
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |req: schema::ReadTextFileRequest,
                        responder: Responder<schema::ReadTextFileResponse>,
                        _cx: ConnectionTo<Agent>| {
                match read_file(&s3, &req) {
                    Ok(answer) => responder.respond(typed(answer)?),
                    Err(e) => responder.respond_with_error(e),
                }
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |req: schema::CreateTerminalRequest,
                        responder: Responder<schema::CreateTerminalResponse>,
                        _cx: ConnectionTo<Agent>| {
                lock(&s4).terminal.push(format!("create {}", req.command));
                let id = start_terminal(&s4, req.command.clone(), req.args.clone());
                responder.respond(typed(json!({"terminalId": id}))?)
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |req: schema::WaitForTerminalExitRequest,
                        responder: Responder<schema::WaitForTerminalExitResponse>,
                        cx: ConnectionTo<Agent>| {
                lock(&s5).terminal.push("wait_for_exit".to_owned());
                let (state, id) = (s5.clone(), req.terminal_id.0.to_string());
                // The command may run long: waited for outside the dispatch loop.
                cx.spawn(async move {
                    match ended(&state, &id).await {
                        Ok((code, _)) => responder.respond(typed(json!({"exitCode": code}))?),
                        Err(e) => responder.respond_with_error(e),
                    }
                })
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |req: schema::TerminalOutputRequest,
                        responder: Responder<schema::TerminalOutputResponse>,
                        _cx: ConnectionTo<Agent>| {
                lock(&s6).terminal.push("output".to_owned());
                match ended(&s6, &req.terminal_id.0).await {
                    Ok((_, output)) => {
                        responder.respond(typed(json!({"output": output, "truncated": false}))?)
                    }
                    Err(e) => responder.respond_with_error(e),
                }
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |req: schema::ReleaseTerminalRequest,
                        responder: Responder<schema::ReleaseTerminalResponse>,
                        _cx: ConnectionTo<Agent>| {
                let mut st = lock(&s7);
                st.terminal.push("release".to_owned());
                match st.terminals.remove(&*req.terminal_id.0) {
                    Some(t) => {
                        t.task.abort();
                        drop(st);
                        responder.respond(typed(json!({}))?)
                    }
                    None => {
                        drop(st);
                        responder.respond_with_error(not_found(&req.terminal_id.0))
                    }
                }
            },
            on_receive_request!(),
        )
        .connect_with(
            AcpAgent::from_args(agent)?,
            async move |cx: ConnectionTo<Agent>| scenario(&s8, cx).await,
        )
        .await
}
