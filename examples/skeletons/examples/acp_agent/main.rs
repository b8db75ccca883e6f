//! An ACP agent on the generated skeleton, speaking newline-delimited JSON-RPC on its stdin and
//! stdout (an editor starts it as a subprocess). Each prompt turn streams a thought and message
//! chunks, reports a tool call that reads a file (asking the user's permission first, then
//! reading through the client when it declared `fs.readTextFile`), runs a command in a client
//! terminal when the client declared `terminal`, and ends with `end_turn`; a `session/cancel`
//! ends the turn with `cancelled` (prompt-turn, "Cancellation").
//!
//! It speaks version 1 and the version 2 draft on one endpoint, as the client's `initialize`
//! offers: version 2's turn (`v2.rs`) is answered at once and reported through
//! `state_update`, since version 2 has no agent-side files or terminals.
//!
//! `cargo run --example acp_agent` waits for a client on stdin (try `--example acp_client`,
//! which starts this agent itself). The file read is the first `resource_link` of the prompt,
//! else `README.md` in the session's working directory. Logs go to stderr.

mod v2;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agentwire_examples::acp::{PROTOCOL_VERSION, blocks_text, internal, not_found, typed};
use agentwire_protocols::acp::v1::{
    CancelNotification, InitializeRequest, InitializeResponse, NewSessionRequest,
    NewSessionResponse, PromptRequest, PromptResponse,
};
use agentwire_protocols::skeletons::acp::{AgentHandler, AgentHandlers, AgentSender};
use agentwire_runtime::jsonrpc::RpcError;
use serde_json::{Value, json};
use tokio::sync::watch;

/// How long a cancelled turn still waits for the client's answers to its open requests (the
/// client answers a pending permission request `cancelled`).
const CANCEL_GRACE: Duration = Duration::from_secs(5);

/// The command the turn runs in a client terminal.
const COMMAND: (&str, &[&str]) = ("echo", &["hello from a client terminal"]);

struct Session {
    cwd: String,
    /// Set when the client cancels the session's running turn.
    cancel: watch::Sender<bool>,
}

/// The example agent: what the client declared, and the sessions of this connection.
#[derive(Default)]
struct ExampleAgent {
    client_caps: Mutex<Value>,
    sessions: Mutex<HashMap<String, Session>>,
    next: AtomicU64,
    turns: AtomicU64,
}

impl ExampleAgent {
    fn can(&self, pointer: &str) -> bool {
        let caps = self.client_caps.lock().unwrap_or_else(|e| e.into_inner());
        caps.pointer(pointer) == Some(&Value::Bool(true))
    }
}

/// One prompt turn: its session, the sender, and the cancel signal.
struct Turn {
    /// Numbers the turn's tool calls, whose ids are unique within the session.
    number: u64,
    sender: AgentSender,
    session: String,
    cancel: watch::Receiver<bool>,
}

/// Why a turn stopped early.
enum Stop {
    Cancelled,
    Failed(RpcError),
}

impl From<RpcError> for Stop {
    fn from(e: RpcError) -> Self {
        Stop::Failed(e)
    }
}

impl Turn {
    /// Sends one `session/update` of this session.
    async fn update(&self, update: Value) -> Result<(), Stop> {
        let note = typed(json!({"sessionId": self.session, "update": update}))?;
        self.sender
            .session_update(note)
            .await
            .map_err(|e| Stop::Failed(internal(format!("cannot send an update: {e}"))))
    }

    async fn chunk(&self, kind: &str, text: &str) -> Result<(), Stop> {
        self.update(json!({"sessionUpdate": kind, "content": {"type": "text", "text": text}}))
            .await
    }

    fn cancelled(&self) -> bool {
        *self.cancel.borrow()
    }

    fn check(&self) -> Result<(), Stop> {
        if self.cancelled() {
            Err(Stop::Cancelled)
        } else {
            Ok(())
        }
    }

    /// Awaits a request to the client; once the turn is cancelled, it still waits
    /// [`CANCEL_GRACE`] for the answer, then gives up with `Stop::Cancelled`.
    async fn ask<T, E: std::fmt::Display>(
        &self,
        what: &str,
        call: impl std::future::Future<Output = Result<T, E>>,
    ) -> Result<T, Stop> {
        let mut cancel = self.cancel.clone();
        tokio::pin!(call);
        let answer = tokio::select! {
            answer = &mut call => answer,
            () = async { drop(cancel.wait_for(|c| *c).await) } => {
                match tokio::time::timeout(CANCEL_GRACE, &mut call).await {
                    Ok(answer) => answer,
                    Err(_) => return Err(Stop::Cancelled),
                }
            }
        };
        answer.map_err(|e| Stop::Failed(internal(format!("{what} failed: {e}"))))
    }

    /// Asks permission to run `tool_call`; `Ok(true)` when an allow option was chosen.
    async fn permission(&self, tool_call: &str, title: &str) -> Result<bool, Stop> {
        let params = typed(json!({
            "sessionId": self.session,
            "toolCall": {"toolCallId": tool_call, "title": title},
            "options": [
                {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
                {"optionId": "reject", "name": "Reject", "kind": "reject_once"}
            ]
        }))?;
        let answer = self
            .ask(
                "session/request_permission",
                self.sender.session_request_permission(params),
            )
            .await?;
        let outcome = serde_json::to_value(&answer.outcome).unwrap_or_default();
        match outcome["outcome"].as_str() {
            Some("selected") => Ok(outcome["optionId"] == "allow"),
            _ => Err(Stop::Cancelled),
        }
    }
}

/// The file a prompt asks about: its first `resource_link` with a `file://` URI, else
/// `README.md` in the session's directory.
fn file_of(prompt: &Value, cwd: &str) -> String {
    prompt
        .as_array()
        .into_iter()
        .flatten()
        .filter(|b| b["type"] == "resource_link")
        .find_map(|b| {
            b["uri"]
                .as_str()?
                .strip_prefix("file://")
                .map(str::to_owned)
        })
        .unwrap_or_else(|| format!("{}/README.md", cwd.trim_end_matches('/')))
}

fn text_content(text: &str) -> Value {
    json!([{"type": "content", "content": {"type": "text", "text": text}}])
}

/// The tool call that reads `path`: announced, permitted, read through the client.
async fn read_file(turn: &Turn, agent: &ExampleAgent, path: &str) -> Result<String, Stop> {
    let id = &format!("read-{}", turn.number);
    turn.update(json!({
        "sessionUpdate": "tool_call", "toolCallId": id, "title": format!("Read {path}"),
        "kind": "read", "status": "pending", "locations": [{"path": path}],
        "rawInput": {"path": path}
    }))
    .await?;
    if !turn.permission(id, &format!("Read {path}")).await? {
        turn.update(
            json!({"sessionUpdate": "tool_call_update", "toolCallId": id,
                           "status": "failed", "content": text_content("the user declined")}),
        )
        .await?;
        return Ok("the user declined the read".to_owned());
    }
    turn.update(
        json!({"sessionUpdate": "tool_call_update", "toolCallId": id,
                       "status": "in_progress"}),
    )
    .await?;
    if !agent.can("/fs/readTextFile") {
        let why = "the client does not share its files";
        turn.update(
            json!({"sessionUpdate": "tool_call_update", "toolCallId": id,
                           "status": "failed", "content": text_content(why)}),
        )
        .await?;
        return Ok(why.to_owned());
    }
    let params = typed(json!({"sessionId": turn.session, "path": path, "line": 1, "limit": 3}))?;
    let read = turn
        .ask("fs/read_text_file", turn.sender.fs_read_text_file(params))
        .await;
    let (status, said) = match read {
        Ok(file) => ("completed", file.content),
        Err(Stop::Failed(e)) => ("failed", e.message),
        Err(Stop::Cancelled) => return Err(Stop::Cancelled),
    };
    turn.update(
        json!({"sessionUpdate": "tool_call_update", "toolCallId": id,
                       "status": status, "content": text_content(&said)}),
    )
    .await?;
    let first = said.lines().next().unwrap_or_default().to_owned();
    Ok(format!("{path} starts with {first:?}"))
}

/// The tool call that runs [`COMMAND`] in a client terminal, embedded in the tool call, and
/// releases the terminal whatever happens.
async fn run_command(turn: &Turn) -> Result<String, Stop> {
    let id = &format!("run-{}", turn.number);
    let (command, args) = COMMAND;
    turn.update(json!({"sessionUpdate": "tool_call", "toolCallId": id,
                       "title": format!("Run {command}"), "kind": "execute",
                       "status": "in_progress"}))
        .await?;
    let params = typed(
        json!({"sessionId": turn.session, "command": command, "args": args,
                              "outputByteLimit": 4096}),
    )?;
    let created = turn
        .ask("terminal/create", turn.sender.terminal_create(params))
        .await?;
    let terminal = created.terminal_id;
    let ran = async {
        turn.update(
            json!({"sessionUpdate": "tool_call_update", "toolCallId": id,
                           "content": [{"type": "terminal", "terminalId": terminal}]}),
        )
        .await?;
        let ids = json!({"sessionId": turn.session, "terminalId": terminal});
        let wait = turn.sender.terminal_wait_for_exit(typed(ids.clone())?);
        let exit = turn.ask("terminal/wait_for_exit", wait).await?;
        let output = turn
            .ask("terminal/output", turn.sender.terminal_output(typed(ids)?))
            .await?;
        let code = exit
            .exit_code
            .flatten()
            .map_or("a signal".to_owned(), |c| c.to_string());
        Ok::<_, Stop>((code, output.output))
    }
    .await;
    let ids = json!({"sessionId": turn.session, "terminalId": terminal});
    let released = turn
        .ask(
            "terminal/release",
            turn.sender.terminal_release(typed(ids)?),
        )
        .await;
    let (code, output) = ran?;
    released?;
    turn.update(
        json!({"sessionUpdate": "tool_call_update", "toolCallId": id,
                       "status": "completed"}),
    )
    .await?;
    Ok(format!(
        "`{command}` exited with {code} printing {:?}",
        output.trim_end()
    ))
}

/// The turn's steps; `Err(Stop::Cancelled)` from any of them ends it with `cancelled`.
async fn run_turn(
    turn: &Turn,
    agent: &ExampleAgent,
    prompt: &Value,
    cwd: &str,
) -> Result<(), Stop> {
    let asked = blocks_text(prompt);
    turn.chunk(
        "agent_thought_chunk",
        &format!("The user asked {asked:?}; I will look at a file."),
    )
    .await?;
    turn.chunk("agent_message_chunk", "Let me look at the workspace.")
        .await?;
    let path = file_of(prompt, cwd);
    let mut said = vec![read_file(turn, agent, &path).await?];
    turn.check()?;
    if agent.can("/terminal") {
        said.push(run_command(turn).await?);
        turn.check()?;
    }
    turn.chunk(
        "agent_message_chunk",
        &format!(" Done: {}.", said.join("; ")),
    )
    .await
}

impl AgentHandler for ExampleAgent {
    async fn initialize(
        &self,
        _sender: AgentSender,
        params: InitializeRequest,
    ) -> Result<InitializeResponse, RpcError> {
        let p = serde_json::to_value(&params).unwrap_or_default();
        *self.client_caps.lock().unwrap_or_else(|e| e.into_inner()) =
            p["clientCapabilities"].clone();
        let offered = p["protocolVersion"].as_i64().unwrap_or(PROTOCOL_VERSION);
        tracing::info!(offered, caps = %p["clientCapabilities"], "initialize");
        typed(json!({
            "protocolVersion": offered.min(PROTOCOL_VERSION),
            "agentCapabilities": {
                "loadSession": false,
                "promptCapabilities": {"image": false, "audio": false, "embeddedContext": false}
            },
            "agentInfo": {"name": "agentwire-acp-example", "version": env!("CARGO_PKG_VERSION")},
            "authMethods": []
        }))
    }

    async fn session_new(
        &self,
        _sender: AgentSender,
        params: NewSessionRequest,
    ) -> Result<NewSessionResponse, RpcError> {
        let id = format!("sess-{}", self.next.fetch_add(1, Ordering::Relaxed) + 1);
        let (cancel, _) = watch::channel(false);
        let session = Session {
            cwd: params.cwd.clone(),
            cancel,
        };
        self.sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id.clone(), session);
        tracing::info!(session = %id, cwd = %params.cwd, "session/new");
        typed(json!({"sessionId": id}))
    }

    async fn session_prompt(
        &self,
        sender: AgentSender,
        params: PromptRequest,
    ) -> Result<PromptResponse, RpcError> {
        let (cwd, cancel) = {
            let sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
            let session = sessions
                .get(&params.session_id)
                .ok_or_else(|| not_found(format!("session {}", params.session_id)))?;
            // A new turn starts uncancelled.
            session.cancel.send_replace(false);
            (session.cwd.clone(), session.cancel.subscribe())
        };
        let turn = Turn {
            number: self.turns.fetch_add(1, Ordering::Relaxed) + 1,
            sender,
            session: params.session_id.clone(),
            cancel,
        };
        let prompt = serde_json::to_value(&params.prompt).unwrap_or_default();
        let stop = match run_turn(&turn, self, &prompt, &cwd).await {
            Ok(()) => "end_turn",
            Err(Stop::Cancelled) => "cancelled",
            Err(Stop::Failed(e)) => return Err(e),
        };
        tracing::info!(session = %params.session_id, stop, "turn ended");
        typed(json!({"stopReason": stop}))
    }

    async fn session_cancel(&self, _sender: AgentSender, params: CancelNotification) {
        let sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(session) = sessions.get(&params.session_id) {
            tracing::info!(session = %params.session_id, "session/cancel");
            session.cancel.send_replace(true);
        }
    }
}

#[tokio::main]
async fn main() {
    agentwire_examples::init_logging();
    let agent = AgentHandlers {
        v2: Arc::new(v2::ExampleAgentV2::default()),
        v1: Arc::new(ExampleAgent::default()),
    };
    let served = agent
        .serve_stdio(agentwire_transport::jsonrpc::Config::default())
        .await;
    agentwire_examples::exit_on_error("acp_agent", served);
}
