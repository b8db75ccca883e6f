//! Hostile peers against the generated stdio servers: a client that starts a frame and never
//! finishes it, while keeping the server's standard input open, costs the connection after
//! `frame_timeout`, and the server process then exits on its own (no parked read of standard
//! input, no blocked write of standard output holds it up), for both framings.
//!
//! The test re-runs its own binary as the server: with `AGENTWIRE_STDIO_SERVER` set, the test
//! function serves that protocol on its stdio instead, the way a `main` would (its own runtime,
//! dropped when serving ends).

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use agentwire_protocols::eca::{
    ChatDeleteParams, ChatDeleteResponse, ChatPromptParams, ChatPromptResponse,
    ChatQueryCommandsParams, ChatQueryCommandsResponse, ChatQueryContextParams,
    ChatQueryContextResponse, InitializeParams, InitializeResponse,
};
use agentwire_protocols::mcp::v2025_11_25 as mcp;
use agentwire_protocols::skeletons::{eca as eca_sk, mcp as mcp_sk};
use agentwire_runtime::jsonrpc::RpcError;
use agentwire_transport::jsonrpc::Config;

const ROLE: &str = "AGENTWIRE_STDIO_SERVER";
/// What the child writes to stderr once it is about to serve (the parent's clock starts
/// then, so a slow start on a loaded machine is not taken for a hang).
const READY: &str = "stdio server starting";
/// The deadline the child serves with: short, so the test is quick.
const FRAME_TIMEOUT: Duration = Duration::from_millis(200);
/// How long the child gets to exit after the deadline fired (it needs well under a second).
const EXIT_BOUND: Duration = Duration::from_secs(10);

fn no() -> RpcError {
    RpcError {
        code: -32601,
        message: "not here".into(),
        data: None,
    }
}

struct Eca;

impl eca_sk::ServerHandler for Eca {
    async fn initialize(
        &self,
        _: eca_sk::ServerSender,
        _: InitializeParams,
    ) -> Result<InitializeResponse, RpcError> {
        Err(no())
    }
    async fn shutdown(&self, _: eca_sk::ServerSender) -> Result<(), RpcError> {
        Err(no())
    }
    async fn chat_prompt(
        &self,
        _: eca_sk::ServerSender,
        _: ChatPromptParams,
    ) -> Result<ChatPromptResponse, RpcError> {
        Err(no())
    }
    async fn chat_query_context(
        &self,
        _: eca_sk::ServerSender,
        _: ChatQueryContextParams,
    ) -> Result<ChatQueryContextResponse, RpcError> {
        Err(no())
    }
    async fn chat_query_commands(
        &self,
        _: eca_sk::ServerSender,
        _: ChatQueryCommandsParams,
    ) -> Result<ChatQueryCommandsResponse, RpcError> {
        Err(no())
    }
    async fn chat_delete(
        &self,
        _: eca_sk::ServerSender,
        _: ChatDeleteParams,
    ) -> Result<ChatDeleteResponse, RpcError> {
        Err(no())
    }
}

struct Mcp;

/// Handler methods that refuse whatever they are asked.
macro_rules! refuse {
    ($($name:ident($params:ty) -> $result:ty;)*) => {
        $(async fn $name(&self, _: mcp_sk::ServerSender, _: $params) -> Result<$result, RpcError> {
            Err(no())
        })*
    };
}

impl mcp_sk::ServerHandler for Mcp {
    refuse! {
        initialize(mcp::InitializeRequestParams) -> mcp::InitializeResult;
        resources_list(Option<mcp::PaginatedRequestParams>) -> mcp::ListResourcesResult;
        resources_templates_list(Option<mcp::PaginatedRequestParams>)
            -> mcp::ListResourceTemplatesResult;
        resources_read(mcp::ReadResourceRequestParams) -> mcp::ReadResourceResult;
        resources_subscribe(mcp::SubscribeRequestParams) -> mcp::ResultType;
        resources_unsubscribe(mcp::UnsubscribeRequestParams) -> mcp::ResultType;
        prompts_list(Option<mcp::PaginatedRequestParams>) -> mcp::ListPromptsResult;
        prompts_get(mcp::GetPromptRequestParams) -> mcp::GetPromptResult;
        tools_list(Option<mcp::PaginatedRequestParams>) -> mcp::ListToolsResult;
        tools_call(mcp::CallToolRequestParams) -> mcp::CallToolResult;
        logging_set_level(mcp::SetLevelRequestParams) -> mcp::ResultType;
        completion_complete(mcp::CompleteRequestParams) -> mcp::CompleteResult;
    }
}

/// The child's side: serves `role` on this process's stdio with a short frame deadline, from
/// a runtime of its own that is dropped afterwards, as `#[tokio::main]` does.
fn serve(role: &str) {
    let config = Config {
        frame_timeout: Some(FRAME_TIMEOUT),
        ..Config::default()
    };
    let runtime = tokio::runtime::Runtime::new().unwrap();
    eprintln!("{READY}");
    let served = runtime.block_on(async {
        match role {
            "eca" => eca_sk::Server::serve_stdio(Eca, config).await,
            "mcp" => mcp_sk::Server::serve_stdio(Mcp, config).await,
            other => panic!("unknown role {other}"),
        }
    });
    drop(runtime);
    eprintln!("served: {served:?}");
}

/// Starts this test as the `role` server, sends it `partial` (a frame started and never
/// finished) with its standard input left open, and returns how long it took to exit and
/// whether its standard output reached its end; when it was still alive after the deadline
/// and `EXIT_BOUND`, its log (it is killed then).
fn attack(role: &str, partial: &[u8]) -> Result<(Duration, bool), Vec<String>> {
    let me = std::env::current_exe().unwrap();
    // The harness names a test by its module path without the crate's name: this file is a
    // module of the `integration` binary (tests/main.rs).
    let name = match module_path!().split_once("::") {
        Some((_, module)) => {
            format!("{module}::a_stdio_server_exits_after_closing_a_slow_connection")
        }
        None => "a_stdio_server_exits_after_closing_a_slow_connection".to_owned(),
    };
    let mut child = Command::new(me)
        .args(["--exact", &name, "--nocapture", "--test-threads=1"])
        .env(ROLE, role)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let (line_tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in stderr.lines().map_while(Result::ok) {
            let _ = line_tx.send(line);
        }
    });
    let ready = lines.recv_timeout(Duration::from_secs(60));
    assert_eq!(
        ready.as_deref(),
        Ok(READY),
        "{role}: the child did not start"
    );
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(partial).unwrap();
    stdin.flush().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let (eof_tx, eof_rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut sink = Vec::new();
        let _ = eof_tx.send(stdout.read_to_end(&mut sink).is_ok());
    });
    let started = Instant::now();
    let bound = FRAME_TIMEOUT * 2 + EXIT_BOUND;
    let exited = loop {
        if child.try_wait().unwrap().is_some() {
            break Some(started.elapsed());
        }
        if started.elapsed() > bound {
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let eof = eof_rx.recv_timeout(Duration::from_secs(1)).unwrap_or(false);
    let _ = child.kill();
    let _ = child.wait();
    // Held open to the end: the server must not need its input closed to stop.
    drop(stdin);
    exited
        .map(|took| (took, eof))
        .ok_or_else(|| lines.try_iter().collect())
}

#[test]
fn a_stdio_server_exits_after_closing_a_slow_connection() {
    if let Ok(role) = std::env::var(ROLE) {
        return serve(&role);
    }
    let cases: [(&str, &[u8]); 2] = [
        ("eca", b"Content-Length: 100\r\n\r\n{\"jsonrpc\""),
        ("mcp", b"{\"jsonrpc\":\"2.0\",\"method\""),
    ];
    for (role, partial) in cases {
        let outcome = attack(role, partial);
        eprintln!("{role}: exited after {outcome:?}");
        let (took, eof) = outcome.unwrap_or_else(|log| {
            panic!("the {role} stdio server was still running {EXIT_BOUND:?} after its deadline: {log:?}")
        });
        assert!(eof, "{role}: standard output reached its end");
        assert!(
            took >= FRAME_TIMEOUT,
            "{role}: closed after {took:?}, before its deadline"
        );
    }
}
