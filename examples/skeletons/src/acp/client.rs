//! How the example client answers the agent: a permission request by the policy it was given
//! (allow, reject, or the user cancelling the turn while asked), text files read and written
//! on disk, terminals run as local processes.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use agentwire_protocols::acp::v1::{
    CreateTerminalRequest, CreateTerminalResponse, KillTerminalRequest, KillTerminalResponse,
    ReadTextFileRequest, ReadTextFileResponse, ReleaseTerminalRequest, ReleaseTerminalResponse,
    RequestPermissionRequest, RequestPermissionResponse, TerminalOutputRequest,
    TerminalOutputResponse, WaitForTerminalExitRequest, WaitForTerminalExitResponse,
    WriteTextFileRequest, WriteTextFileResponse,
};
use agentwire_protocols::skeletons::acp::{Client, ClientHandler, v2};
use agentwire_runtime::jsonrpc::RpcError;
use serde_json::{Value, json};

use super::{Terminals, internal, invalid_params, not_found, typed};

/// What the user answers when the agent asks for permission.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Permission {
    /// The first option of an `allow_*` kind.
    Allow,
    /// The first option of a `reject_*` kind.
    Reject,
    /// The user cancels the turn instead: `session/cancel`, then the request is answered
    /// with the outcome `cancelled` (prompt-turn, "Cancellation").
    CancelTurn,
}

/// The example client's answers to the agent's requests.
#[derive(Debug)]
pub struct ClientAnswers {
    /// Print one line per answer on standard output.
    pub report: bool,
    permission: Mutex<Permission>,
    cancelled: AtomicBool,
    terminals: Terminals,
}

impl ClientAnswers {
    /// Answers that allow what the agent asks; `report` prints each answer.
    pub fn new(report: bool) -> Self {
        Self {
            report,
            permission: Mutex::new(Permission::Allow),
            cancelled: AtomicBool::new(false),
            terminals: Terminals::default(),
        }
    }

    /// How the next permission requests are answered.
    pub fn set_permission(&self, permission: Permission) {
        *self.permission.lock().unwrap_or_else(|e| e.into_inner()) = permission;
    }

    /// Whether a permission request made this client cancel a turn (and clears it).
    pub fn take_cancelled(&self) -> bool {
        self.cancelled.swap(false, Ordering::SeqCst)
    }

    /// The terminals the agent created and has not released.
    pub fn live_terminals(&self) -> usize {
        self.terminals.live()
    }

    fn say(&self, line: String) {
        if self.report {
            println!("{line}");
        }
    }
}

/// The id of the first option whose kind starts with `prefix` (`allow` or `reject`).
fn option_of(params: &Value, prefix: &str) -> Option<String> {
    params["options"]
        .as_array()?
        .iter()
        .find(|o| o["kind"].as_str().is_some_and(|k| k.starts_with(prefix)))?["optionId"]
        .as_str()
        .map(str::to_owned)
}

/// Runs a file operation off the runtime's threads (the examples' tokio has no `fs`).
async fn blocking<T: Send + 'static>(
    op: impl FnOnce(String) -> std::io::Result<T> + Send + 'static,
    path: String,
) -> std::io::Result<T> {
    tokio::task::spawn_blocking(move || op(path))
        .await
        .unwrap_or_else(|e| Err(std::io::Error::other(e)))
}

fn value_of<T: agentwire_runtime::serde::Serialize>(params: &T) -> Value {
    serde_json::to_value(params).unwrap_or_default()
}

impl ClientAnswers {
    /// The option this client's policy chooses among `params.options` (`None`: the user
    /// cancels the turn, which the caller sends before answering `cancelled`).
    fn choose(&self, params: &Value) -> Option<String> {
        match *self.permission.lock().unwrap_or_else(|e| e.into_inner()) {
            Permission::Allow => option_of(params, "allow"),
            Permission::Reject => option_of(params, "reject"),
            Permission::CancelTurn => None,
        }
    }

    /// The answer to a permission request for `title`, once a turn cancelled by the user
    /// (`chosen` is `None`) was cancelled.
    fn permission_answer<T: agentwire_runtime::serde::de::DeserializeOwned>(
        &self,
        title: &str,
        chosen: Option<String>,
    ) -> Result<T, RpcError> {
        let Some(option) = chosen else {
            self.cancelled.store(true, Ordering::SeqCst);
            self.say(format!(
                "permission for {title}: the user cancelled the turn"
            ));
            return typed(json!({"outcome": {"outcome": "cancelled"}}));
        };
        self.say(format!("permission for {title}: {option}"));
        typed(json!({"outcome": {"outcome": "selected", "optionId": option}}))
    }
}

impl ClientHandler for ClientAnswers {
    async fn session_request_permission(
        &self,
        handle: Client,
        params: RequestPermissionRequest,
    ) -> Result<RequestPermissionResponse, RpcError> {
        let p = value_of(&params);
        let title = p["toolCall"]["title"].as_str().unwrap_or("a tool call");
        let chosen = self.choose(&p);
        if chosen.is_none() {
            let cancel = json!({"sessionId": p["sessionId"]});
            handle
                .session_cancel(typed(cancel)?)
                .await
                .map_err(|e| internal(format!("cannot cancel the turn: {e}")))?;
        }
        self.permission_answer(title, chosen)
    }

    async fn fs_read_text_file(
        &self,
        _handle: Client,
        params: ReadTextFileRequest,
    ) -> Result<ReadTextFileResponse, RpcError> {
        let path = std::path::Path::new(&params.path);
        if !path.is_absolute() {
            return Err(invalid_params(format!("`{}` is not absolute", params.path)));
        }
        let text = blocking(std::fs::read_to_string, params.path.clone())
            .await
            .map_err(|e| not_found(format!("{}: {e}", params.path)))?;
        // ACP numbers lines from 1; `limit` is a count of lines.
        let line = params.line.flatten().unwrap_or(1).max(1);
        let skip = usize::try_from(line - 1).unwrap_or(0);
        let take = params
            .limit
            .flatten()
            .and_then(|l| usize::try_from(l).ok())
            .unwrap_or(usize::MAX);
        let content: String = text.split_inclusive('\n').skip(skip).take(take).collect();
        self.say(format!(
            "read {} ({} bytes) for the agent",
            params.path,
            content.len()
        ));
        typed(json!({"content": content}))
    }

    async fn fs_write_text_file(
        &self,
        _handle: Client,
        params: WriteTextFileRequest,
    ) -> Result<WriteTextFileResponse, RpcError> {
        if !std::path::Path::new(&params.path).is_absolute() {
            return Err(invalid_params(format!("`{}` is not absolute", params.path)));
        }
        let (path, content) = (params.path.clone(), params.content.clone());
        blocking(move |p| std::fs::write(p, content), path)
            .await
            .map_err(|e| internal(format!("cannot write {}: {e}", params.path)))?;
        self.say(format!("wrote {} for the agent", params.path));
        typed(json!({}))
    }

    async fn terminal_create(
        &self,
        _handle: Client,
        params: CreateTerminalRequest,
    ) -> Result<CreateTerminalResponse, RpcError> {
        let p = value_of(&params);
        let id = self.terminals.create(&p)?;
        self.say(format!("terminal {id}: {}", params.command));
        typed(json!({"terminalId": id}))
    }

    async fn terminal_output(
        &self,
        _handle: Client,
        params: TerminalOutputRequest,
    ) -> Result<TerminalOutputResponse, RpcError> {
        typed(self.terminals.output(&params.terminal_id)?)
    }

    async fn terminal_wait_for_exit(
        &self,
        _handle: Client,
        params: WaitForTerminalExitRequest,
    ) -> Result<WaitForTerminalExitResponse, RpcError> {
        typed(self.terminals.wait_for_exit(&params.terminal_id).await?)
    }

    async fn terminal_kill(
        &self,
        _handle: Client,
        params: KillTerminalRequest,
    ) -> Result<KillTerminalResponse, RpcError> {
        self.terminals.kill(&params.terminal_id)?;
        typed(json!({}))
    }

    async fn terminal_release(
        &self,
        _handle: Client,
        params: ReleaseTerminalRequest,
    ) -> Result<ReleaseTerminalResponse, RpcError> {
        self.terminals.release(&params.terminal_id)?;
        self.say(format!("terminal {} released", params.terminal_id));
        typed(json!({}))
    }
}

/// Version 2 (ACP's draft) asks only for permission: its permission request carries its own
/// `title`, and `session/cancel` is its cancellation.
impl v2::ClientHandler for ClientAnswers {
    async fn session_request_permission(
        &self,
        handle: v2::Client,
        params: agentwire_protocols::acp::v2::RequestPermissionRequest,
    ) -> Result<agentwire_protocols::acp::v2::RequestPermissionResponse, RpcError> {
        let p = value_of(&params);
        let chosen = self.choose(&p);
        if chosen.is_none() {
            let cancel = json!({"sessionId": p["sessionId"]});
            handle
                .session_cancel(typed(cancel)?)
                .await
                .map_err(|e| internal(format!("cannot cancel the turn: {e}")))?;
        }
        self.permission_answer(&params.title, chosen)
    }
}
