//! The eca skeleton end to end, in process over `tokio::io::duplex`: Content-Length framing,
//! decoding, validation, sequence checking and correlation on both sides.
//!
//! `eca_skeleton/call/<mode>`: 100 concurrent `chat/queryCommands` calls answered by the
//! generated server. `eca_skeleton/stream/<mode>`: one `chat/prompt` whose answer streams
//! 1,000 `chat/contentReceived` notifications to the client's notification stream. Each runs
//! with the checker enforcing and off, so the difference is the checker's cost, and with the
//! checker enforcing and every timeout and cap effectively off through the public config
//! (`enforce_limits_off`: no frame or idle deadline, caps far above the load), so the
//! difference is what the hardening limits cost. After them, stderr gets the defaults
//! against limits off as the median of alternating pairs of timed rounds.

use std::sync::Arc;

use agentwire_protocols::eca::{
    ChatBehavior, ChatContent, ChatContentReceivedParams, ChatContentReceivedParamsRole,
    ChatDeleteParams, ChatDeleteResponse, ChatPromptParams, ChatPromptResponse,
    ChatPromptResponseStatus, ChatQueryCommandsParams, ChatQueryCommandsResponse,
    ChatQueryContextParams, ChatQueryContextResponse, InitializeParams, InitializeResponse,
    InitializedParams, ProgressContent, ProgressContentState, TextContent,
};
use agentwire_protocols::skeletons::eca::{
    Client, Server, ServerHandler, ServerNotifications, ServerSender,
};
use agentwire_runtime::jsonrpc::RpcError;
use agentwire_transport::CheckMode;
use agentwire_transport::jsonrpc::Config;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::time::{Duration, Instant};

const CALLS: usize = 100;
const STREAMED: usize = 1_000;
/// Alternating pairs of the limits comparison, and batches (or prompts) timed per round.
const PAIRS: usize = 9;
const ROUNDS: usize = 20;

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

/// The connection config: safe defaults (`limits`), or every timeout and cap off.
fn config(mode: CheckMode, limits: bool) -> Config {
    if limits {
        return Config {
            mode,
            ..Config::default()
        };
    }
    const HUGE: usize = 1 << 30;
    Config {
        mode,
        max_frame_size: HUGE,
        max_in_flight: HUGE,
        max_outstanding: HUGE,
        frame_timeout: None,
        idle_timeout: None,
        request_timeout: None,
        ..Config::default()
    }
}

/// A connected, initialized client and server pair.
async fn pair(mode: CheckMode, limits: bool) -> (Client, ServerNotifications) {
    let config = config(mode, limits);
    let (a, b) = tokio::io::duplex(256 * 1024);
    let (sr, sw) = tokio::io::split(a);
    let _ = Server::serve(Arc::new(Bench), sr, sw, config.clone());
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

/// 100 concurrent `chat/queryCommands` calls.
async fn calls(client: &Client) {
    let calls = (0..CALLS).map(|_| {
        client.chat_query_commands(ChatQueryCommandsParams {
            chat_id: None,
            query: String::new(),
        })
    });
    for r in futures_util::future::join_all(calls).await {
        r.expect("answered");
    }
}

/// One `chat/prompt` streaming its notifications, all drained.
async fn stream(client: &Client, notes: &mut ServerNotifications) {
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
}

fn benches(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    for (name, mode, limits) in [
        ("enforce", CheckMode::Enforce, true),
        ("off", CheckMode::Off, true),
        ("enforce_limits_off", CheckMode::Enforce, false),
    ] {
        let (client, mut notes) = rt.block_on(pair(mode, limits));
        let mut group = c.benchmark_group("eca_skeleton");
        group.throughput(Throughput::Elements(CALLS as u64));
        group.bench_function(BenchmarkId::new("call", name), |b| {
            b.iter(|| rt.block_on(calls(&client)))
        });
        group.throughput(Throughput::Elements(STREAMED as u64));
        group.bench_function(BenchmarkId::new("stream", name), |b| {
            b.iter(|| rt.block_on(stream(&client, &mut notes)))
        });
        group.finish();
    }
    limits_summary(&rt);
}

/// Defaults against limits off, both enforcing: per pair, `ROUNDS` batches (or prompts) on
/// each connection in alternating order; prints the median throughput ratio of the pairs.
fn limits_summary(rt: &tokio::runtime::Runtime) {
    let (on, mut on_notes) = rt.block_on(pair(CheckMode::Enforce, true));
    let (off, mut off_notes) = rt.block_on(pair(CheckMode::Enforce, false));
    let time = |f: &mut dyn FnMut()| {
        let started = Instant::now();
        f();
        started.elapsed()
    };
    let mut call_ratios = Vec::new();
    let mut stream_ratios = Vec::new();
    let (mut call_times, mut stream_times) = ([Duration::ZERO; 2], [Duration::ZERO; 2]);
    for i in 0..PAIRS {
        let mut round = |limits: bool| {
            let (client, notes) = if limits {
                (&on, &mut on_notes)
            } else {
                (&off, &mut off_notes)
            };
            let call = time(&mut || (0..ROUNDS).for_each(|_| rt.block_on(calls(client))));
            let streamed = time(&mut || {
                (0..ROUNDS).for_each(|_| rt.block_on(stream(client, notes)));
            });
            (call, streamed)
        };
        let ((c_on, s_on), (c_off, s_off)) = if i % 2 == 0 {
            let a = round(true);
            (a, round(false))
        } else {
            let b = round(false);
            (round(true), b)
        };
        call_ratios.push(c_off.as_secs_f64() / c_on.as_secs_f64());
        stream_ratios.push(s_off.as_secs_f64() / s_on.as_secs_f64());
        call_times[0] += c_on;
        call_times[1] += c_off;
        stream_times[0] += s_on;
        stream_times[1] += s_off;
    }
    let per_s = |n: usize, d: Duration| (n * ROUNDS * PAIRS) as f64 / d.as_secs_f64();
    for (what, n, times, ratios) in [
        ("call", CALLS, call_times, &mut call_ratios),
        ("stream", STREAMED, stream_times, &mut stream_ratios),
    ] {
        ratios.sort_by(f64::total_cmp);
        eprintln!(
            "eca_skeleton/{what}: default limits {:.0}/s, limits off {:.0}/s; throughput ratio per alternating pair: median {:.3} (min {:.3}, max {:.3}, {PAIRS} pairs)",
            per_s(n, times[0]),
            per_s(n, times[1]),
            ratios[PAIRS / 2],
            ratios[0],
            ratios[PAIRS - 1]
        );
    }
}

criterion_group!(skeleton, benches);
criterion_main!(skeleton);
