//! The generated MCP server against one written with `rmcp` (the official Rust MCP SDK), in
//! one process, driven by the same client code so that only the servers differ.
//!
//! Each sample is one session: `initialize`, `notifications/initialized`, then 1,000
//! sequential `tools/call` of one tool whose result is 1 KB of text, each answer checked
//! (id, and the text byte for byte). Two transports:
//!
//! - `mcp_rmcp/stdio/<server>`: newline-delimited JSON-RPC over an in-process
//!   `tokio::io::duplex` pair, the way a stdio server is spoken to, without the process;
//! - `mcp_rmcp/http/<server>`: Streamable HTTP on loopback, one reqwest POST per message with
//!   `Mcp-Session-Id` and `MCP-Protocol-Version`, the session ended with DELETE. A request's
//!   answer is read as `application/json` or as a `text/event-stream`, whichever the server
//!   chose (the generated server answers with JSON, rmcp with an SSE stream).
//!
//! Both servers run with their defaults (the generated one validates every message and
//! enforces MCP's sequence rules on both directions). After the runs, stderr gets each
//! variant's median session and the ratio agentwire ÷ rmcp per transport (below 1: agentwire
//! is faster).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use agentwire_protocols::mcp::v2025_11_25 as aw;
use agentwire_protocols::skeletons::mcp::{STREAMABLE_HTTP, Server, ServerHandler, ServerSender};
use agentwire_runtime::jsonrpc::{RpcError, codes};
use agentwire_transport::jsonrpc::{CancellationToken, Config};
use agentwire_transport::streamable_http::{self, Outgoing, ServerConfig, SessionPipe};
use axum::serve::ListenerExt;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rmcp::ServiceExt;
use rmcp::model as rm;
use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;
use tokio::runtime::Runtime;

const CALLS: usize = 1_000;
const RESULT_BYTES: usize = 1024;
const TOOL: &str = "payload";
const VERSION: &str = "2025-11-25";

/// The tool's result text, the same 1 KB from both servers.
fn payload() -> String {
    "abcdefghijklmnopqrstuvwxyz012345"
        .chars()
        .cycle()
        .take(RESULT_BYTES)
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The agentwire server: the generated skeleton's `ServerHandler`.

struct Agentwire {
    payload: String,
}

fn not_offered() -> RpcError {
    RpcError {
        code: codes::METHOD_NOT_FOUND,
        message: "this server offers one tool only".to_owned(),
        data: None,
    }
}

impl ServerHandler for Agentwire {
    async fn initialize(
        &self,
        _: ServerSender,
        _: aw::InitializeRequestParams,
    ) -> Result<aw::InitializeResult, RpcError> {
        serde_json::from_value(json!({
            "protocolVersion": VERSION,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "agentwire-bench", "version": "1"}
        }))
        .map_err(|e| RpcError {
            code: codes::INTERNAL_ERROR,
            message: e.to_string(),
            data: None,
        })
    }

    async fn ping(
        &self,
        _: ServerSender,
        _: Option<aw::RequestParams>,
    ) -> Result<aw::EmptyResult, RpcError> {
        Err(not_offered())
    }

    async fn resources_list(
        &self,
        _: ServerSender,
        _: Option<aw::PaginatedRequestParams>,
    ) -> Result<aw::ListResourcesResult, RpcError> {
        Err(not_offered())
    }

    async fn resources_templates_list(
        &self,
        _: ServerSender,
        _: Option<aw::PaginatedRequestParams>,
    ) -> Result<aw::ListResourceTemplatesResult, RpcError> {
        Err(not_offered())
    }

    async fn resources_read(
        &self,
        _: ServerSender,
        _: aw::ReadResourceRequestParams,
    ) -> Result<aw::ReadResourceResult, RpcError> {
        Err(not_offered())
    }

    async fn resources_subscribe(
        &self,
        _: ServerSender,
        _: aw::SubscribeRequestParams,
    ) -> Result<aw::EmptyResult, RpcError> {
        Err(not_offered())
    }

    async fn resources_unsubscribe(
        &self,
        _: ServerSender,
        _: aw::UnsubscribeRequestParams,
    ) -> Result<aw::EmptyResult, RpcError> {
        Err(not_offered())
    }

    async fn prompts_list(
        &self,
        _: ServerSender,
        _: Option<aw::PaginatedRequestParams>,
    ) -> Result<aw::ListPromptsResult, RpcError> {
        Err(not_offered())
    }

    async fn prompts_get(
        &self,
        _: ServerSender,
        _: aw::GetPromptRequestParams,
    ) -> Result<aw::GetPromptResult, RpcError> {
        Err(not_offered())
    }

    async fn tools_list(
        &self,
        _: ServerSender,
        _: Option<aw::PaginatedRequestParams>,
    ) -> Result<aw::ListToolsResult, RpcError> {
        Err(not_offered())
    }

    async fn tools_call(
        &self,
        _: ServerSender,
        params: aw::CallToolRequestParams,
    ) -> Result<aw::CallToolResult, RpcError> {
        if params.name != TOOL {
            return Err(RpcError {
                code: codes::INVALID_PARAMS,
                message: format!("unknown tool `{}`", params.name),
                data: None,
            });
        }
        Ok(aw::CallToolResult {
            meta: None,
            content: vec![aw::ContentBlock::Text(aw::TextContent {
                text: self.payload.clone(),
                annotations: None,
                meta: None,
            })],
            structured_content: None,
            is_error: None,
            extra: Default::default(),
        })
    }

    async fn logging_set_level(
        &self,
        _: ServerSender,
        _: aw::SetLevelRequestParams,
    ) -> Result<aw::EmptyResult, RpcError> {
        Err(not_offered())
    }

    async fn completion_complete(
        &self,
        _: ServerSender,
        _: aw::CompleteRequestParams,
    ) -> Result<aw::CompleteResult, RpcError> {
        Err(not_offered())
    }

    async fn tasks_get(
        &self,
        _: ServerSender,
        _: aw::GetTaskRequestParams,
    ) -> Result<aw::GetTaskResult, RpcError> {
        Err(not_offered())
    }

    async fn tasks_result(
        &self,
        _: ServerSender,
        _: aw::GetTaskPayloadRequestParams,
    ) -> Result<aw::GetTaskPayloadResult, RpcError> {
        Err(not_offered())
    }

    async fn tasks_list(
        &self,
        _: ServerSender,
        _: Option<aw::PaginatedRequestParams>,
    ) -> Result<aw::ListTasksResult, RpcError> {
        Err(not_offered())
    }

    async fn tasks_cancel(
        &self,
        _: ServerSender,
        _: aw::CancelTaskRequestParams,
    ) -> Result<aw::CancelTaskResult, RpcError> {
        Err(not_offered())
    }
}

// ---------------------------------------------------------------------------------------------
// The rmcp server: `ServerHandler` with `call_tool` written out (no tool router), the
// leanest server rmcp offers.

#[derive(Clone)]
struct Rmcp {
    payload: Arc<str>,
}

impl rmcp::ServerHandler for Rmcp {
    fn get_info(&self) -> rm::ServerConfig {
        rm::ServerConfig::new(rm::ServerCapabilities::builder().enable_tools().build())
    }

    async fn call_tool(
        &self,
        request: rm::CallToolRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<rm::CallToolResponse, rmcp::ErrorData> {
        if request.name != TOOL {
            return Err(rmcp::ErrorData::invalid_params(
                format!("unknown tool `{}`", request.name),
                None,
            ));
        }
        Ok(rm::CallToolResult::success(vec![rm::ContentBlock::text(&*self.payload)]).into())
    }
}

// ---------------------------------------------------------------------------------------------
// The client, the same for both servers.

fn initialize_request() -> String {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": VERSION,
        "capabilities": {},
        "clientInfo": {"name": "mcp-rmcp-bench", "version": "1"}
    }})
    .to_string()
}

const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

fn call_request(id: usize) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{TOOL}","arguments":{{}}}}}}"#
    )
}

/// Checks one response: it answers `id`, and (for a call) carries exactly the payload.
fn check(answer: &Value, id: usize, expected: Option<&str>) {
    assert_eq!(
        answer["id"],
        json!(id),
        "answer to another request: {answer}"
    );
    let result = &answer["result"];
    assert!(result.is_object(), "not a result: {answer}");
    if let Some(text) = expected {
        assert_eq!(result["content"][0]["type"], "text", "{answer}");
        assert_eq!(result["content"][0]["text"].as_str(), Some(text));
    }
}

/// One stdio session on `stream`, the other end of which a server serves.
async fn stdio_session(stream: tokio::io::DuplexStream, expected: &str) {
    let (reader, mut writer) = tokio::io::split(stream);
    let mut lines = BufReader::new(reader).lines();
    let mut send = async |text: &str| {
        writer.write_all(text.as_bytes()).await.expect("write");
        writer.write_all(b"\n").await.expect("write");
        writer.flush().await.expect("flush");
    };
    send(&initialize_request()).await;
    let answer = lines.next_line().await.expect("read").expect("answered");
    check(&serde_json::from_str(&answer).expect("JSON"), 0, None);
    send(INITIALIZED).await;
    for id in 1..=CALLS {
        send(&call_request(id)).await;
        let answer = lines.next_line().await.expect("read").expect("answered");
        check(
            &serde_json::from_str(&answer).expect("JSON"),
            id,
            Some(expected),
        );
    }
}

/// One Streamable HTTP session against `url`.
async fn http_session(http: &reqwest::Client, url: &str, expected: &str) {
    let post = |body: String, session: Option<&str>| {
        let mut req = http
            .post(url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body);
        if let Some(s) = session {
            req = req
                .header(STREAMABLE_HTTP.session_header, s)
                .header(STREAMABLE_HTTP.version_header, VERSION);
        }
        req.send()
    };
    let resp = post(initialize_request(), None).await.expect("initialize");
    let session = resp
        .headers()
        .get(STREAMABLE_HTTP.session_header)
        .and_then(|v| v.to_str().ok())
        .expect("a session id")
        .to_owned();
    check(&read_answer(resp).await, 0, None);
    let resp = post(INITIALIZED.to_owned(), Some(&session)).await;
    assert_eq!(resp.expect("initialized").status(), 202);
    for id in 1..=CALLS {
        let resp = post(call_request(id), Some(&session)).await.expect("call");
        check(&read_answer(resp).await, id, Some(expected));
    }
    let end = http
        .delete(url)
        .header(STREAMABLE_HTTP.session_header, &session)
        .header(STREAMABLE_HTTP.version_header, VERSION)
        .send()
        .await
        .expect("delete");
    assert!(end.status().is_success(), "DELETE: {}", end.status());
}

/// The JSON-RPC response in a POST's answer: the body itself, or the SSE event that holds a
/// response (other events, priming ones included, are skipped). The whole body is read, so
/// the connection goes back to the pool.
async fn read_answer(resp: reqwest::Response) -> Value {
    assert!(resp.status().is_success(), "status {}", resp.status());
    let sse = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("text/event-stream"));
    let body = resp.text().await.expect("body");
    if !sse {
        return serde_json::from_str(&body).expect("JSON body");
    }
    body.split("\n\n")
        .filter_map(|event| {
            let data: Vec<&str> = event
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(|d| d.strip_prefix(' ').unwrap_or(d))
                .collect();
            serde_json::from_str::<Value>(&data.join("\n")).ok()
        })
        .find(|m| m.get("result").is_some() || m.get("error").is_some())
        .expect("a response event")
}

// ---------------------------------------------------------------------------------------------
// Running the servers.

/// A stdio session with a fresh agentwire server on the other end of the pipe.
async fn stdio_agentwire(expected: &str) {
    let (client, server) = tokio::io::duplex(64 * 1024);
    let (sr, sw) = tokio::io::split(server);
    let handler = Arc::new(Agentwire { payload: payload() });
    let (_sender, connection) = Server::serve(handler, sr, sw, Config::default());
    stdio_session(client, expected).await;
    // The client's end is gone: the server sees end of input and stops.
    connection.join().await.expect("server stopped cleanly");
}

/// The same with a fresh rmcp server.
async fn stdio_rmcp(expected: &str) {
    let (client, server) = tokio::io::duplex(64 * 1024);
    let handler = Rmcp {
        payload: payload().into(),
    };
    let running = tokio::spawn(async move {
        let (sr, sw) = tokio::io::split(server);
        let service = handler.serve((sr, sw)).await.expect("rmcp handshake");
        service
            .waiting()
            .await
            .expect("rmcp server stopped cleanly");
    });
    stdio_session(client, expected).await;
    running.await.expect("rmcp server task");
}

/// The generated server over Streamable HTTP; returns its URL.
async fn http_agentwire() -> (String, agentwire_transport::http_ws::ServerHandle) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let handler = Arc::new(Agentwire { payload: payload() });
    let open = move |pipe: SessionPipe| {
        let (_sender, link, _connection) = Server::serve_messages(
            Arc::clone(&handler),
            CancellationToken::new(),
            Config::default(),
        );
        pipe.bridge(link.incoming, link.outgoing, |o| Outgoing {
            json: o.text,
            related: if o.answers.is_some() { None } else { o.related },
        });
    };
    let server =
        streamable_http::serve(listener, open, ServerConfig::new(STREAMABLE_HTTP)).expect("serve");
    let path = STREAMABLE_HTTP.path;
    (format!("http://{}{path}", server.local_addr()), server)
}

/// rmcp's Streamable HTTP service on axum; returns its URL and what stops it.
async fn http_rmcp() -> (String, CancellationToken) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    let stop = CancellationToken::new();
    let handler = Rmcp {
        payload: payload().into(),
    };
    let service = StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default().with_cancellation_token(stop.child_token()),
    );
    let app = axum::Router::new().nest_service("/mcp", service);
    // As the generated server does: without it, the SSE answer's last chunk waits for the
    // client's delayed ACK (Nagle), which would measure the kernel, not rmcp.
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    let until = stop.clone();
    tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(async move { until.cancelled().await })
            .await
            .expect("axum");
    });
    (format!("http://{addr}/mcp"), stop)
}

// ---------------------------------------------------------------------------------------------
// Measuring.

/// Every session's wall time per variant (stdio agentwire, stdio rmcp, http agentwire, http
/// rmcp), for the closing summary.
static TIMES: Mutex<[Vec<Duration>; 4]> = Mutex::new([const { Vec::new() }; 4]);

fn record(slot: usize, took: Duration) {
    TIMES.lock().expect("times")[slot].push(took);
}

/// The median of the recorded sessions (the machine is shared: the median resists the odd
/// session that lost its core to another process).
fn median(slot: usize) -> Option<Duration> {
    let mut times = TIMES.lock().expect("times")[slot].clone();
    times.sort();
    times.get(times.len() / 2).copied()
}

/// Times `iters` sessions of `session`, recording each in `slot`.
fn timed<F: Future<Output = ()>>(
    rt: &Runtime,
    slot: usize,
    iters: u64,
    session: impl Fn() -> F,
) -> Duration {
    (0..iters)
        .map(|_| {
            let start = Instant::now();
            rt.block_on(session());
            let took = start.elapsed();
            record(slot, took);
            took
        })
        .sum()
}

fn mcp_rmcp(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let expected = payload();
    let expected = expected.as_str();
    let (aw_url, aw_server) = rt.block_on(http_agentwire());
    let (rm_url, rm_stop) = rt.block_on(http_rmcp());
    let http = reqwest::Client::new();

    let mut group = c.benchmark_group("mcp_rmcp");
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(3));
    group.throughput(Throughput::Elements(CALLS as u64));
    group.bench_function(BenchmarkId::new("stdio", "agentwire"), |b| {
        b.iter_custom(|iters| timed(&rt, 0, iters, || stdio_agentwire(expected)))
    });
    group.bench_function(BenchmarkId::new("stdio", "rmcp"), |b| {
        b.iter_custom(|iters| timed(&rt, 1, iters, || stdio_rmcp(expected)))
    });
    group.bench_function(BenchmarkId::new("http", "agentwire"), |b| {
        b.iter_custom(|iters| timed(&rt, 2, iters, || http_session(&http, &aw_url, expected)))
    });
    group.bench_function(BenchmarkId::new("http", "rmcp"), |b| {
        b.iter_custom(|iters| timed(&rt, 3, iters, || http_session(&http, &rm_url, expected)))
    });
    group.finish();

    rt.block_on(aw_server.shutdown())
        .expect("agentwire server shut down");
    rm_stop.cancel();
    for (name, slots) in [("stdio", (0, 1)), ("http", (2, 3))] {
        if let (Some(ours), Some(theirs)) = (median(slots.0), median(slots.1)) {
            let rate = |d: Duration| CALLS as f64 / d.as_secs_f64();
            eprintln!(
                "mcp_rmcp {name}: {CALLS} tools/call of {RESULT_BYTES} B: agentwire {:.1} ms ({:.0} calls/s), rmcp {:.1} ms ({:.0} calls/s), agentwire / rmcp time {:.2}",
                ours.as_secs_f64() * 1e3,
                rate(ours),
                theirs.as_secs_f64() * 1e3,
                rate(theirs),
                ours.as_secs_f64() / theirs.as_secs_f64()
            );
        }
    }
}

criterion_group!(benches, mcp_rmcp);
criterion_main!(benches);
