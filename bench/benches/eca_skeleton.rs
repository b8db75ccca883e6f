//! The eca skeleton end to end, in process over `tokio::io::duplex`: Content-Length framing,
//! decoding, validation, sequence checking and correlation on both sides.
//!
//! `eca_skeleton/call/<mode>`: 100 concurrent `chat/queryCommands` calls answered by the
//! generated server. `eca_skeleton/stream/<mode>`: one `chat/prompt` whose answer streams
//! 1,000 `chat/contentReceived` notifications to the client's notification stream. Each runs
//! with the checker enforcing and off, so the difference is the checker's cost.

use std::sync::Arc;

use agentwire_protocols::eca::{
    ChatBehavior, ChatContent, ChatContentReceivedParams, ChatContentReceivedParamsRole,
    ChatDeleteParams, ChatDeleteResponse, ChatPromptParams, ChatPromptResponse,
    ChatPromptResponseStatus, ChatQueryCommandsParams, ChatQueryCommandsResponse,
    ChatQueryContextParams, ChatQueryContextResponse, InitializeParams, InitializeResponse,
    InitializedParams, ProgressContent, ProgressContentState, TextContent,
};
use agentwire_protocols::skeletons::eca::{
    Client, ServerHandler, ServerNotifications, ServerSender, serve,
};
use agentwire_runtime::jsonrpc::RpcError;
use agentwire_transport::CheckMode;
use agentwire_transport::jsonrpc::Config;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

const CALLS: usize = 100;
const STREAMED: usize = 1_000;

struct Bench;

impl ServerHandler for Bench {
    async fn initialize(
        &self,
        _: ServerSender,
        _: InitializeParams,
    ) -> Result<InitializeResponse, RpcError> {
        Ok(InitializeResponse {
            models: vec!["m".to_owned()],
            chat_default_model: "m".to_owned(),
            chat_behaviors: vec![ChatBehavior::Agent],
            chat_default_behavior: ChatBehavior::Agent,
            chat_welcome_message: String::new(),
        })
    }

    async fn shutdown(&self, _: ServerSender) -> Result<(), RpcError> {
        Ok(())
    }

    async fn chat_prompt(
        &self,
        sender: ServerSender,
        p: ChatPromptParams,
    ) -> Result<ChatPromptResponse, RpcError> {
        let chat_id = p.chat_id.unwrap_or_default();
        let send = |content| {
            sender.chat_content_received(ChatContentReceivedParams {
                chat_id: chat_id.clone(),
                content,
                role: ChatContentReceivedParamsRole::Assistant,
            })
        };
        let progress = |state| {
            ChatContent::Progress(ProgressContent {
                state,
                text: String::new(),
            })
        };
        let failed = |_| RpcError {
            code: -32603,
            message: "stream failed".to_owned(),
            data: None,
        };
        send(progress(ProgressContentState::Running))
            .await
            .map_err(failed)?;
        for i in 0..STREAMED - 2 {
            let text = ChatContent::Text(TextContent {
                text: format!("token {i} "),
            });
            send(text).await.map_err(failed)?;
        }
        send(progress(ProgressContentState::Finished))
            .await
            .map_err(failed)?;
        Ok(ChatPromptResponse {
            chat_id: chat_id.clone(),
            model: "m".to_owned(),
            status: ChatPromptResponseStatus::Success,
        })
    }

    async fn chat_query_context(
        &self,
        _: ServerSender,
        _: ChatQueryContextParams,
    ) -> Result<ChatQueryContextResponse, RpcError> {
        Ok(ChatQueryContextResponse {
            chat_id: None,
            contexts: Vec::new(),
        })
    }

    async fn chat_query_commands(
        &self,
        _: ServerSender,
        _: ChatQueryCommandsParams,
    ) -> Result<ChatQueryCommandsResponse, RpcError> {
        Ok(ChatQueryCommandsResponse {
            chat_id: None,
            commands: Vec::new(),
        })
    }

    async fn chat_delete(
        &self,
        _: ServerSender,
        _: ChatDeleteParams,
    ) -> Result<ChatDeleteResponse, RpcError> {
        Ok(ChatDeleteResponse {})
    }
}

/// A connected, initialized client and server pair.
async fn pair(mode: CheckMode) -> (Client, ServerNotifications) {
    let config = Config {
        mode,
        ..Config::default()
    };
    let (a, b) = tokio::io::duplex(256 * 1024);
    let (sr, sw) = tokio::io::split(a);
    let _ = serve(Arc::new(Bench), sr, sw, config.clone());
    let (cr, cw) = tokio::io::split(b);
    let (client, notes, _conn) = Client::connect(cr, cw, config);
    let params = agentwire_runtime::decode_json(
        r#"{"processId": null, "capabilities": {}, "workspaceFolders": []}"#,
    )
    .expect("valid params");
    client.initialize(params).await.expect("initialize");
    client
        .initialized(InitializedParams {})
        .await
        .expect("initialized");
    (client, notes)
}

fn benches(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    for (name, mode) in [("enforce", CheckMode::Enforce), ("off", CheckMode::Off)] {
        let (client, mut notes) = rt.block_on(pair(mode));
        let mut group = c.benchmark_group("eca_skeleton");
        group.throughput(Throughput::Elements(CALLS as u64));
        group.bench_function(BenchmarkId::new("call", name), |b| {
            b.iter(|| {
                rt.block_on(async {
                    let calls = (0..CALLS).map(|_| {
                        client.chat_query_commands(ChatQueryCommandsParams {
                            chat_id: None,
                            query: String::new(),
                        })
                    });
                    for r in futures_util::future::join_all(calls).await {
                        r.expect("answered");
                    }
                })
            })
        });
        group.throughput(Throughput::Elements(STREAMED as u64));
        group.bench_function(BenchmarkId::new("stream", name), |b| {
            b.iter(|| {
                rt.block_on(async {
                    // One chat, prompted again each time: a finished chat takes a new prompt.
                    let prompt = client.chat_prompt(ChatPromptParams {
                        chat_id: Some("bench".to_owned()),
                        request_id: "r".to_owned(),
                        message: String::new(),
                        model: None,
                        behavior: None,
                        contexts: None,
                    });
                    let drain = async {
                        for _ in 0..STREAMED {
                            notes.recv().await.expect("streamed");
                        }
                    };
                    let (answer, ()) = tokio::join!(prompt, drain);
                    answer.expect("prompt answered");
                })
            })
        });
        group.finish();
    }
}

criterion_group!(skeleton, benches);
criterion_main!(skeleton);
