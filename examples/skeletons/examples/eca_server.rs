//! A minimal scripted ECA server on the generated skeleton: it echoes each prompt as streamed
//! chat content and, when the prompt mentions "tool", runs a tool call that waits for the
//! user's approval.
//!
//! `cargo run --example eca_server` speaks on stdin/stdout (an editor or `eca_client` starts
//! it; `cargo run --example eca_client` does); `-- --tcp 127.0.0.1:7777` listens on TCP
//! instead, until `quit`, the end of input or Ctrl-C. Logs go to stderr.

use std::collections::{BTreeMap, HashMap};
use std::io::IsTerminal as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use agentwire_protocols::eca::{
    ChatBehavior, ChatCommand, ChatCommandType, ChatContent, ChatContentReceivedParams,
    ChatContentReceivedParamsRole as Role, ChatDeleteParams, ChatDeleteResponse, ChatPromptParams,
    ChatPromptResponse, ChatPromptResponseStatus, ChatQueryCommandsParams,
    ChatQueryCommandsResponse, ChatQueryContextParams, ChatQueryContextResponse,
    ChatToolCallApproveParams, ChatToolCallRejectParams, InitializeParams, InitializeResponse,
    InitializedParams, MessageType, ProgressContent, ProgressContentState, ShowMessageParams,
    TextContent, ToolCallOrigin, ToolCallOutput, ToolCallOutputType, ToolCallPrepareContent,
    ToolCallRejected, ToolCallRejectedReason, ToolCallRunContent, ToolCalledContent,
};
use agentwire_protocols::skeletons::eca::{ServerHandler, ServerSender};
use agentwire_runtime::jsonrpc::RpcError;
use agentwire_transport::jsonrpc::{Config, SendError};
use tokio::sync::oneshot;

const MODEL: &str = "echo-1";

/// The assistant: chat ids it handed out, and tool calls waiting for the user.
#[derive(Default)]
struct Assistant {
    next: AtomicU64,
    approvals: Mutex<HashMap<String, oneshot::Sender<bool>>>,
}

impl Assistant {
    fn fresh(&self, prefix: &str) -> String {
        format!("{prefix}-{}", self.next.fetch_add(1, Ordering::Relaxed) + 1)
    }

    fn answer(&self, id: &str, approved: bool) {
        let waiting = self.approvals.lock().ok().and_then(|mut m| m.remove(id));
        match waiting {
            Some(tx) => {
                let _ = tx.send(approved);
            }
            None => tracing::warn!(tool_call = id, "answer for no waiting tool call"),
        }
    }

    /// Streams the scripted answer to one prompt.
    async fn run_prompt(
        self: Arc<Self>,
        sender: ServerSender,
        chat_id: String,
        message: String,
    ) -> Result<(), SendError> {
        let send = |content: ChatContent| {
            sender.chat_content_received(ChatContentReceivedParams {
                chat_id: chat_id.clone(),
                content,
                role: Role::Assistant,
            })
        };
        send(progress(ProgressContentState::Running, "Thinking")).await?;
        send(ChatContent::Text(TextContent {
            text: format!("You said: {message}"),
        }))
        .await?;
        if message.contains("tool") {
            self.tool_call(&send).await?;
        }
        send(progress(ProgressContentState::Finished, "Done")).await
    }

    /// Announces a tool call that needs approval, waits for the answer, reports the outcome.
    async fn tool_call<F, Fut>(&self, send: &F) -> Result<(), SendError>
    where
        F: Fn(ChatContent) -> Fut,
        Fut: Future<Output = Result<(), SendError>>,
    {
        let id = self.fresh("tool");
        let name = "list_files".to_owned();
        let arguments = BTreeMap::from([("path".to_owned(), ".".to_owned())]);
        let (tx, rx) = oneshot::channel();
        if let Ok(mut m) = self.approvals.lock() {
            m.insert(id.clone(), tx);
        }
        send(ChatContent::ToolCallPrepare(ToolCallPrepareContent {
            origin: ToolCallOrigin::Native,
            id: id.clone(),
            name: name.clone(),
            arguments_text: "{\"path\": \".\"}".to_owned(),
            manual_approval: true,
            summary: Some("List the files of the workspace".to_owned()),
            details: None,
        }))
        .await?;
        send(ChatContent::ToolCallRun(ToolCallRunContent {
            origin: ToolCallOrigin::Native,
            id: id.clone(),
            name: name.clone(),
            arguments: arguments.clone(),
            manual_approval: true,
            summary: None,
            details: None,
        }))
        .await?;
        // A connection that ends first drops the sender: treated as a rejection.
        let approved = rx.await.unwrap_or(false);
        let content = if approved {
            ChatContent::ToolCalled(ToolCalledContent {
                origin: ToolCallOrigin::Native,
                id,
                name,
                arguments: vec![".".to_owned()],
                error: false,
                outputs: vec![ToolCallOutput {
                    r#type: ToolCallOutputType::Text,
                    content: "Cargo.toml\nsrc/".to_owned(),
                }],
                summary: None,
                details: None,
            })
        } else {
            ChatContent::ToolCallRejected(ToolCallRejected {
                origin: ToolCallOrigin::Native,
                id,
                name,
                arguments,
                reason: ToolCallRejectedReason::User,
                summary: None,
                details: None,
            })
        };
        send(content).await
    }
}

fn progress(state: ProgressContentState, text: &str) -> ChatContent {
    ChatContent::Progress(ProgressContent {
        state,
        text: text.to_owned(),
    })
}

/// The handler is shared by every connection, so it holds the assistant behind an `Arc`.
#[derive(Default, Clone)]
struct Handler(Arc<Assistant>);

impl ServerHandler for Handler {
    async fn initialize(
        &self,
        _sender: ServerSender,
        params: InitializeParams,
    ) -> Result<InitializeResponse, RpcError> {
        let client = params.client_info.map(|c| c.name).unwrap_or_default();
        tracing::info!(%client, "initialize");
        Ok(InitializeResponse {
            models: vec![MODEL.to_owned()],
            chat_default_model: MODEL.to_owned(),
            chat_behaviors: vec![ChatBehavior::Agent, ChatBehavior::Plan],
            chat_default_behavior: ChatBehavior::Agent,
            chat_welcome_message: "Echo assistant: say anything; mention a tool to see approval."
                .to_owned(),
        })
    }

    async fn shutdown(&self, _sender: ServerSender) -> Result<(), RpcError> {
        tracing::info!("shutdown");
        Ok(())
    }

    async fn chat_prompt(
        &self,
        sender: ServerSender,
        params: ChatPromptParams,
    ) -> Result<ChatPromptResponse, RpcError> {
        let chat_id = params.chat_id.unwrap_or_else(|| self.0.fresh("chat"));
        tracing::info!(chat = %chat_id, request = %params.request_id, "chat/prompt");
        // The answer streams after the response, from its own task, so the response is not
        // held back by a tool call waiting for approval.
        let assistant = Arc::clone(&self.0);
        let (id, message) = (chat_id.clone(), params.message);
        tokio::spawn(async move {
            if let Err(e) = assistant.run_prompt(sender, id, message).await {
                tracing::warn!(error = %e, "prompt stream stopped");
            }
        });
        Ok(ChatPromptResponse {
            chat_id,
            model: params.model.unwrap_or_else(|| MODEL.to_owned()),
            status: ChatPromptResponseStatus::Success,
        })
    }

    async fn chat_query_context(
        &self,
        _sender: ServerSender,
        params: ChatQueryContextParams,
    ) -> Result<ChatQueryContextResponse, RpcError> {
        Ok(ChatQueryContextResponse {
            chat_id: params.chat_id,
            contexts: Vec::new(),
        })
    }

    async fn chat_query_commands(
        &self,
        _sender: ServerSender,
        params: ChatQueryCommandsParams,
    ) -> Result<ChatQueryCommandsResponse, RpcError> {
        Ok(ChatQueryCommandsResponse {
            chat_id: params.chat_id,
            commands: vec![ChatCommand {
                name: "echo".to_owned(),
                description: "Repeat the prompt".to_owned(),
                r#type: ChatCommandType::Native,
                arguments: Vec::new(),
            }],
        })
    }

    async fn chat_delete(
        &self,
        _sender: ServerSender,
        _params: ChatDeleteParams,
    ) -> Result<ChatDeleteResponse, RpcError> {
        Ok(ChatDeleteResponse {})
    }

    async fn initialized(&self, sender: ServerSender, _params: InitializedParams) {
        let ready = ShowMessageParams {
            r#type: MessageType::Info,
            message: "echo assistant ready".to_owned(),
        };
        if let Err(e) = sender.show_message(ready).await {
            tracing::warn!(error = %e, "could not greet");
        }
    }

    async fn chat_tool_call_approve(&self, _sender: ServerSender, p: ChatToolCallApproveParams) {
        tracing::info!(tool_call = %p.tool_call_id, "chat/toolCallApprove");
        self.0.answer(&p.tool_call_id, true);
    }

    async fn chat_tool_call_reject(&self, _sender: ServerSender, p: ChatToolCallRejectParams) {
        tracing::info!(tool_call = %p.tool_call_id, "chat/toolCallReject");
        self.0.answer(&p.tool_call_id, false);
    }

    async fn exit(&self, sender: ServerSender) {
        tracing::info!("exit");
        sender.close();
    }
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    agentwire_examples::init_logging();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let handler = Handler::default();
    let result = match args.as_slice() {
        [] => serve_stdio(handler).await,
        [flag, addr] if flag == "--tcp" => serve_tcp(handler, addr).await,
        _ => {
            eprintln!("usage: eca_server [--tcp ADDR]");
            return std::process::ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("eca_server: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Serves one connection on stdin/stdout until it ends or the user presses Ctrl-C. The
/// transport reads and writes stdio on threads of its own, so returning ends the process
/// even while the client keeps its end open.
async fn serve_stdio(handler: Handler) -> Result<(), agentwire_examples::Failure> {
    if std::io::stdin().is_terminal() {
        // Typed at by hand, it would otherwise wait in silence.
        eprintln!(
            "eca_server: speaking ECA (JSON-RPC with Content-Length framing) on \
             stdin/stdout; run `cargo run --example eca_client` to drive it, or pass \
             `--tcp ADDR` to listen on TCP. Ctrl-D or Ctrl-C stops it."
        );
    }
    let served =
        agentwire_protocols::skeletons::eca::Server::serve_stdio(handler, Config::default());
    tokio::select! {
        result = served => result.map_err(|e| {
            agentwire_examples::Failure(format!("stdio connection failed: {e}"))
        }),
        Ok(()) = tokio::signal::ctrl_c() => {
            tracing::info!("stopping on Ctrl-C");
            Ok(())
        }
    }
}

/// Serves every TCP connection to `addr` until the user stops it.
async fn serve_tcp(handler: Handler, addr: &str) -> Result<(), agentwire_examples::Failure> {
    let listener = agentwire_examples::bind(addr).await?;
    let server = agentwire_protocols::skeletons::eca::Server::serve_tcp(
        Arc::new(handler),
        listener,
        Config::default(),
        64,
    )
    .map_err(|e| agentwire_examples::Failure(format!("cannot serve on {addr}: {e}")))?;
    tracing::info!(addr = %server.local_addr(), "eca server listening; {}", agentwire_examples::STOP_HINT);
    agentwire_examples::wait_for_stop().await;
    server.shutdown().await;
    Ok(())
}
