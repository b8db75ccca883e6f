//! An ECA server handler that refuses every request: for tests that look only at framing,
//! deadlines and limits, where no handler result matters.

use agentwire_protocols::eca::{
    ChatDeleteParams, ChatDeleteResponse, ChatPromptParams, ChatPromptResponse,
    ChatQueryCommandsParams, ChatQueryCommandsResponse, ChatQueryContextParams,
    ChatQueryContextResponse, InitializeParams, InitializeResponse,
};
use agentwire_protocols::skeletons::eca::{ServerHandler, ServerSender};
use agentwire_runtime::jsonrpc::RpcError;

/// Answers every request with error -32601 ("not here").
pub struct EcaRefuser;

/// The error every request gets.
pub fn not_here() -> RpcError {
    RpcError {
        code: -32601,
        message: "not here".into(),
        data: None,
    }
}

impl ServerHandler for EcaRefuser {
    async fn initialize(
        &self,
        _: ServerSender,
        _: InitializeParams,
    ) -> Result<InitializeResponse, RpcError> {
        Err(not_here())
    }
    async fn shutdown(&self, _: ServerSender) -> Result<(), RpcError> {
        Err(not_here())
    }
    async fn chat_prompt(
        &self,
        _: ServerSender,
        _: ChatPromptParams,
    ) -> Result<ChatPromptResponse, RpcError> {
        Err(not_here())
    }
    async fn chat_query_context(
        &self,
        _: ServerSender,
        _: ChatQueryContextParams,
    ) -> Result<ChatQueryContextResponse, RpcError> {
        Err(not_here())
    }
    async fn chat_query_commands(
        &self,
        _: ServerSender,
        _: ChatQueryCommandsParams,
    ) -> Result<ChatQueryCommandsResponse, RpcError> {
        Err(not_here())
    }
    async fn chat_delete(
        &self,
        _: ServerSender,
        _: ChatDeleteParams,
    ) -> Result<ChatDeleteResponse, RpcError> {
        Err(not_here())
    }
}
