//! The MCP skeleton against MCP's official SDKs, which nobody in this project wrote: the
//! TypeScript SDK (`@modelcontextprotocol/sdk` 1.32.2 on npm) and the Python SDK (`mcp` 1.30.0
//! on PyPI) as clients of our example server, over stdio and Streamable HTTP. The client runs tools, progress, sampling back to
//! itself, resources and prompts, then sends bad input (an unknown method, bad params, a huge
//! message, a request before initialize) and checks the JSON-RPC answer and that the session
//! goes on. The other way round, our generated client drives a server written on each SDK
//! (`peers/node/mcp_server.cjs`, `peers/python/mcp_server.py`), over both transports too.

use std::io::BufRead as _;
use std::process::Stdio;
use std::time::Duration;

use agentwire_tests::examples::example_binary;
use agentwire_tests::peers::{node, python};
use tokio::time::timeout;

pub(crate) const BOUND: Duration = Duration::from_secs(180);

/// Runs `peers/node/mcp_client.js` with `args`; asserts all `checks` of it ran and passed.
async fn run_node_client(args: &[&str], checks: usize) {
    run_client(node("mcp_client.js"), args, checks).await;
}

/// Runs `peers/python/mcp_client.py` with `args`; asserts all `checks` of it ran and passed.
async fn run_python_client(args: &[&str], checks: usize) {
    let mut cmd = python("mcp_client.py");
    // pydantic warns about the deliberately malformed requests; the checks say what matters.
    cmd.env("PYTHONWARNINGS", "ignore");
    run_client(cmd, args, checks).await;
}

/// Runs the SDK client `cmd` with `args`; asserts it passed all `checks` and ran every one.
pub(crate) async fn run_client(cmd: std::process::Command, args: &[&str], checks: usize) {
    let mut cmd = tokio::process::Command::from(cmd);
    cmd.args(args)
        .env("RUST_LOG", "error")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let out = timeout(BOUND, cmd.output())
        .await
        .expect("the SDK client finishes in time")
        .expect("the SDK client runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.trim_end().ends_with("all checks passed"),
        "the SDK client reported failures:\n{stdout}\n{stderr}"
    );
    // Every check of the script ran (a script that stopped early would print fewer).
    let passed = stdout.lines().filter(|l| l.starts_with("ok ")).count();
    assert_eq!(passed, checks, "{stdout}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_sdk_client_drives_our_server_over_stdio() {
    let server = example_binary("mcp_server");
    let server = server.to_string_lossy();
    run_node_client(&["stdio", &server], 20).await;
}

/// The example server on Streamable HTTP at a free port; killed on drop.
pub(crate) struct HttpServer {
    _child: std::process::Child,
    pub(crate) url: String,
}

fn http_server() -> HttpServer {
    http_server_with(&[])
}

/// [`http_server`] with more arguments (`--all-versions`).
pub(crate) fn http_server_with(more: &[&str]) -> HttpServer {
    let mut child = std::process::Command::new(example_binary("mcp_server"))
        .args(["--http", "127.0.0.1:0"])
        .args(more)
        .env("RUST_LOG", "error")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start mcp_server --http");
    let stdout = child.stdout.take().expect("piped stdout");
    let mut first = String::new();
    std::io::BufReader::new(stdout)
        .read_line(&mut first)
        .expect("the server prints its address");
    let url = first
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {first:?}"))
        .to_owned();
    HttpServer { _child: child, url }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self._child.kill();
        let _ = self._child.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_sdk_client_drives_our_server_over_streamable_http() {
    let server = http_server();
    // Over HTTP a request before initialize is refused by the transport (no session yet), so
    // the stdio run's "initialize still works after it" has no counterpart.
    run_node_client(&["http", &server.url], 19).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_client_drives_our_server_over_stdio() {
    let server = example_binary("mcp_server");
    let server = server.to_string_lossy();
    run_python_client(&["stdio", &server], 12).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_client_drives_our_server_over_streamable_http() {
    let server = http_server();
    run_python_client(&["http", &server.url], 12).await;
}

// ---- Our client against the SDKs' servers --------------------------------------------------
//
// `peers/node/mcp_server.cjs` (the TypeScript SDK's `McpServer`) and `peers/python/mcp_server.py`
// (the Python SDK's FastMCP), over stdio and Streamable HTTP, driven by the generated client:
// initialize, tools/list, tools/call with progress, the server's sampling, elicitation and roots
// requests answered by our `ClientHandler`, a cancelled call the server sees cancelled, then bad
// input from our side (an unknown method, bad params, a frame that is not JSON) and a ping that
// shows the session survived.

pub(crate) mod our_client {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use agentwire_protocols::mcp::v2025_11_25::{
        CallToolResult, ClientRequest, ClientResult, CreateMessageRequestParams,
        CreateMessageResult, ElicitRequestParams, ElicitResult, ListRootsResult, RequestParams,
        ServerNotification,
    };
    use agentwire_protocols::skeletons::mcp::{Client, ClientHandler};
    use agentwire_runtime::jsonrpc::{Outcome, RpcError};
    use agentwire_transport::jsonrpc::Config;
    use agentwire_transport::streamable_http;
    use serde_json::{Value, json};

    /// The model name our sampling answers carry.
    const MODEL: &str = "agentwire-test-model";
    /// The root our client reports.
    const ROOT: &str = "file:///tmp/agentwire-root";

    fn typed<T: serde::de::DeserializeOwned>(v: Value) -> T {
        serde_json::from_value(v).expect("a valid literal")
    }

    /// How many of each request the server sent us.
    #[derive(Debug, Default)]
    pub struct Asked {
        sampling: AtomicUsize,
        elicitation: AtomicUsize,
        roots: AtomicUsize,
    }

    impl Asked {
        /// How many elicitation requests the server sent.
        pub fn elicited(&self) -> usize {
            self.elicitation.load(Ordering::SeqCst)
        }
    }

    /// Our client's answers to the server's requests.
    pub struct Answers(pub Arc<Asked>);

    impl ClientHandler for Answers {
        async fn sampling_create_message(
            &self,
            _handle: Client,
            _params: CreateMessageRequestParams,
        ) -> Result<CreateMessageResult, RpcError> {
            self.0.sampling.fetch_add(1, Ordering::SeqCst);
            Ok(typed(json!({
                "role": "assistant",
                "content": {"type": "text", "text": "hi from agentwire"},
                "model": MODEL
            })))
        }

        async fn elicitation_create(
            &self,
            _handle: Client,
            params: ElicitRequestParams,
        ) -> Result<ElicitResult, RpcError> {
            self.0.elicitation.fetch_add(1, Ordering::SeqCst);
            // Accept the form with the defaults it declares.
            let params = serde_json::to_value(&params).unwrap();
            let content: serde_json::Map<String, Value> = params["requestedSchema"]["properties"]
                .as_object()
                .into_iter()
                .flatten()
                .filter_map(|(k, v)| Some((k.clone(), v.get("default")?.clone())))
                .collect();
            Ok(typed(json!({"action": "accept", "content": content})))
        }

        async fn roots_list(
            &self,
            _handle: Client,
            _params: Option<RequestParams>,
        ) -> Result<ListRootsResult, RpcError> {
            self.0.roots.fetch_add(1, Ordering::SeqCst);
            Ok(typed(
                json!({"roots": [{"uri": ROOT, "name": "test root"}]}),
            ))
        }
    }

    /// Checks that ran, and the ones that failed.
    #[derive(Debug, Default)]
    pub struct Checks {
        pub passed: Vec<String>,
        pub failed: Vec<String>,
    }

    impl Checks {
        pub fn check(&mut self, ok: bool, what: impl Into<String>) {
            let what = what.into();
            if ok {
                self.passed.push(what);
            } else {
                self.failed.push(what);
            }
        }
    }

    fn text(result: &CallToolResult) -> String {
        let content = serde_json::to_value(&result.content).unwrap();
        content[0]["text"].as_str().unwrap_or_default().to_owned()
    }

    async fn call(client: &Client, name: &str, arguments: Value) -> Result<String, String> {
        let params = typed(json!({"name": name, "arguments": arguments}));
        client
            .tools_call(params)
            .await
            .map(|r| text(&r))
            .map_err(|e| e.to_string())
    }

    /// The error code a raw request was answered with.
    async fn error_code(client: &Client, method: &str, params: Value) -> String {
        match client.peer().request_raw(method, Some(params)).await {
            Ok(r) => match r.outcome {
                Outcome::Error(e) => e.code.to_string(),
                Outcome::Result(_) => "a result".to_owned(),
            },
            Err(e) => e.to_string(),
        }
    }

    /// What the server expects from the client on the wire; the bad-input answers differ by SDK.
    pub struct Expect {
        pub server_name: &'static str,
        /// The code an unknown method gets (`-32601` is the spec's).
        pub unknown_method: i64,
        /// The code a request with bad params gets (`-32602` is the spec's).
        pub bad_params: i64,
    }

    /// Starts `tools/call name` asking for progress.
    async fn start(
        client: &Client,
        name: &str,
        arguments: Value,
        token: &str,
    ) -> agentwire_transport::jsonrpc::Pending<agentwire_protocols::skeletons::mcp::ClientSide>
    {
        let params = typed(json!({
            "name": name, "arguments": arguments, "_meta": {"progressToken": token}
        }));
        client
            .peer()
            .start(ClientRequest::ToolsCall(params))
            .await
            .expect("tools/call sent")
    }

    fn progress_of(note: &ServerNotification) -> Option<f64> {
        match note {
            ServerNotification::NotificationsProgress(p) => Some(p.progress),
            _ => None,
        }
    }

    /// Initialize and the main flows.
    pub async fn flows(
        client: &Client,
        http: Option<&streamable_http::Client>,
        asked: &Asked,
        expect: &Expect,
        checks: &mut Checks,
    ) {
        let init = client
            .initialize(typed(json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {"sampling": {}, "roots": {}, "elicitation": {"form": {}}},
                "clientInfo": {"name": "agentwire-interop", "version": "1.0.0"}
            })))
            .await
            .expect("initialize answered");
        checks.check(
            init.server_info.name == expect.server_name,
            format!("initialize names the server ({})", init.server_info.name),
        );
        client.notifications_initialized(None).await.unwrap();
        if let Some(http) = http {
            // The Python SDK sends its own requests (roots/list) on the GET stream.
            let open = http.open_stream().await;
            checks.check(open == Ok(true), format!("the GET stream opens ({open:?})"));
        }
        let tools = client.tools_list(None).await.expect("tools/list");
        let names: Vec<&str> = tools.tools.iter().map(|t| t.name.as_str()).collect();
        checks.check(
            [
                "echo",
                "progress",
                "sample",
                "elicit",
                "roots",
                "slow",
                "was_cancelled",
            ]
            .iter()
            .all(|n| names.contains(n)),
            format!("tools/list names every tool ({names:?})"),
        );
        let echo = call(client, "echo", json!({"text": "hello"})).await;
        checks.check(
            echo.as_deref() == Ok("hello"),
            format!("tools/call echo ({echo:?})"),
        );

        let mut pending = start(client, "progress", json!({"steps": 3}), "p-1").await;
        let mut progress = pending.take_progress().expect("a progress token was sent");
        let result = pending.result().await;
        let mut seen = Vec::new();
        while let Ok(note) = progress.try_recv() {
            seen.extend(progress_of(&note));
        }
        let done = match result {
            Ok(ClientResult::ToolsCall(r)) => text(&r),
            other => format!("{other:?}"),
        };
        checks.check(
            seen == [1.0, 2.0, 3.0] && done == "done in 3 steps",
            format!("tools/call with progress: reports {seen:?}, result {done:?}"),
        );

        let sampled = call(client, "sample", json!({"prompt": "Say hi"})).await;
        checks.check(
            sampled.as_deref() == Ok(&format!("{MODEL} said: hi from agentwire") as &str)
                && asked.sampling.load(Ordering::SeqCst) == 1,
            format!("sampling/createMessage answered by our handler ({sampled:?})"),
        );
        let elicited = call(client, "elicit", json!({})).await;
        checks.check(
            elicited.as_deref() == Ok("accept: Ada")
                && asked.elicitation.load(Ordering::SeqCst) == 1,
            format!("elicitation/create answered with the form's defaults ({elicited:?})"),
        );
        let roots = call(client, "roots", json!({})).await;
        checks.check(
            roots.as_deref() == Ok(ROOT) && asked.roots.load(Ordering::SeqCst) == 1,
            format!("roots/list answered by our handler ({roots:?})"),
        );
    }

    /// A call cancelled once the server reports it running; the server must see it cancelled.
    pub async fn cancellation(client: &Client, checks: &mut Checks) {
        let mut pending = start(client, "slow", json!({}), "p-slow").await;
        let mut progress = pending.take_progress().expect("a progress token was sent");
        let running = tokio::time::timeout(Duration::from_secs(20), progress.recv()).await;
        checks.check(
            matches!(running, Ok(Some(_))),
            "the slow call reports that it runs",
        );
        pending
            .cancel()
            .await
            .expect("notifications/cancelled sent");
        let mut seen = String::new();
        for _ in 0..50 {
            seen = call(client, "was_cancelled", json!({}))
                .await
                .unwrap_or_default();
            if seen != "running" {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        checks.check(
            seen == "yes",
            format!("the server saw the call cancelled ({seen:?})"),
        );
    }

    /// Bad input from our side, then a ping: the session must go on.
    pub async fn bad_input(
        client: &Client,
        http: Option<&streamable_http::Client>,
        url: Option<&str>,
        expect: &Expect,
        checks: &mut Checks,
    ) {
        let unknown = error_code(client, "no/such/method", json!({})).await;
        checks.check(
            unknown == expect.unknown_method.to_string(),
            format!("an unknown method is answered with {unknown}"),
        );
        let bad = error_code(client, "tools/call", json!({"arguments": {}})).await;
        checks.check(
            bad == expect.bad_params.to_string(),
            format!("tools/call without a name is answered with {bad}"),
        );
        match (http, url) {
            (Some(http), Some(url)) => {
                // Over HTTP a body that is not JSON is the transport's to refuse: 400, -32700.
                let mut request = reqwest::Client::new()
                    .post(url)
                    .header("content-type", "application/json")
                    .header("accept", "application/json, text/event-stream")
                    .body("{\"jsonrpc\": \"2.0\", \"id\": 99, \"method\": ");
                if let Some(id) = http.session_id() {
                    request = request.header("mcp-session-id", id);
                }
                if let Some(v) = http.protocol_version() {
                    request = request.header("mcp-protocol-version", v);
                }
                let response = request.send().await.expect("the server answers");
                let status = response.status().as_u16();
                let body = response.text().await.unwrap_or_default();
                let body: Value = serde_json::from_str(&body).unwrap_or_default();
                let code = &body["error"]["code"];
                checks.check(
                    status == 400 && *code == json!(-32700),
                    format!("a body that is not JSON: HTTP {status}, code {code}"),
                );
            }
            _ => {
                // Over stdio neither SDK answers a line that is not JSON (nothing in it names a
                // request to answer); what matters is that the session goes on.
                client
                    .peer()
                    .send_frame("{\"jsonrpc\": \"2.0\", \"id\": 99, \"method\": ".to_owned())
                    .await
                    .unwrap();
            }
        }
        let ping = client.ping(None).await;
        checks.check(
            ping.is_ok(),
            format!("the session survives the bad input, a broken frame included ({ping:?})"),
        );
    }

    /// The whole run over one connection.
    pub async fn drive(
        client: &Client,
        http: Option<&streamable_http::Client>,
        url: Option<&str>,
        asked: &Asked,
        expect: &Expect,
    ) -> Checks {
        let mut checks = Checks::default();
        flows(client, http, asked, expect, &mut checks).await;
        cancellation(client, &mut checks).await;
        bad_input(client, http, url, expect, &mut checks).await;
        checks
    }

    /// Spawns `cmd` as a stdio server and drives it.
    pub async fn over_stdio(cmd: std::process::Command, expect: Expect) -> Checks {
        let asked = Arc::new(Asked::default());
        let mut cmd = tokio::process::Command::from(cmd);
        cmd.env("RUST_LOG", "error");
        let (client, _notes, _connection, mut child) = Client::spawn_with(
            Arc::new(Answers(Arc::clone(&asked))),
            cmd,
            Config::default(),
        )
        .expect("the peer server starts");
        let checks = drive(&client, None, None, &asked, &expect).await;
        client.close();
        let _ = child.kill().await;
        checks
    }

    /// Drives the Streamable HTTP endpoint `url`.
    pub async fn over_http(url: &str, expect: Expect) -> Checks {
        let asked = Arc::new(Asked::default());
        let (client, _notes, session, _connection) = Client::connect_http(
            url,
            agentwire_protocols::skeletons::mcp::STREAMABLE_HTTP,
            Arc::new(Answers(Arc::clone(&asked))),
            streamable_http::ClientConfig::default(),
            Config::default(),
        )
        .unwrap();
        let checks = drive(&client, Some(&session.http), Some(url), &asked, &expect).await;
        let ended = session.close(&client).await;
        let mut checks = checks;
        checks.check(
            ended.is_ok(),
            format!("DELETE ends the session ({ended:?})"),
        );
        checks
    }
}

/// Asserts every check of a run passed and that all `expected` ran.
pub(crate) fn assert_checks(run: &our_client::Checks, expected: usize) {
    eprintln!(
        "{} of {} checks passed",
        run.passed.len(),
        run.passed.len() + run.failed.len()
    );
    assert!(
        run.failed.is_empty(),
        "failed: {:#?}\npassed: {:#?}",
        run.failed,
        run.passed
    );
    assert_eq!(run.passed.len(), expected, "{:#?}", run.passed);
}

/// The TypeScript SDK answers an unknown method with JSON-RPC's -32601; params its schema
/// refuses throw inside the handler, and a throw without a code is answered "internal error"
/// (-32603), not -32602.
fn ts_expect() -> our_client::Expect {
    our_client::Expect {
        server_name: "ts-sdk-peer",
        unknown_method: -32601,
        bad_params: -32603,
    }
}

/// The Python SDK validates a request against its union of known requests before it looks at
/// the method, so an unknown method is answered "invalid params" (-32602), not -32601; bad
/// params get -32602 as JSON-RPC says.
fn python_expect() -> our_client::Expect {
    our_client::Expect {
        server_name: "python-sdk-peer",
        unknown_method: -32602,
        bad_params: -32602,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_drives_the_typescript_sdk_server_over_stdio() {
    let mut cmd = node("mcp_server.cjs");
    cmd.arg("stdio");
    let run = timeout(BOUND, our_client::over_stdio(cmd, ts_expect()))
        .await
        .expect("in time");
    assert_checks(&run, 12);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_drives_the_python_sdk_server_over_stdio() {
    let mut cmd = python("mcp_server.py");
    cmd.arg("stdio").env("PYTHONWARNINGS", "ignore");
    let run = timeout(BOUND, our_client::over_stdio(cmd, python_expect()))
        .await
        .expect("in time");
    assert_checks(&run, 12);
}

/// A peer server process, killed on drop.
pub(crate) struct PeerServer(pub(crate) std::process::Child);

impl Drop for PeerServer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts the Node.js peer server `cmd`, which listens on a free port of its own and prints
/// `LISTENING <port>` first: the process and its endpoint's URL.
pub(crate) fn node_http_server(mut cmd: std::process::Command) -> (PeerServer, String) {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start the TypeScript SDK server");
    let mut first = String::new();
    std::io::BufReader::new(child.stdout.take().expect("piped stdout"))
        .read_line(&mut first)
        .expect("the server prints its port");
    let server = PeerServer(child);
    let port = first
        .trim()
        .strip_prefix("LISTENING ")
        .unwrap_or_else(|| panic!("unexpected first line {first:?}"))
        .to_owned();
    (server, format!("http://127.0.0.1:{port}/mcp"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_drives_the_typescript_sdk_server_over_streamable_http() {
    let mut cmd = node("mcp_server.cjs");
    cmd.arg("http");
    let (_server, url) = node_http_server(cmd);
    let run = timeout(BOUND, our_client::over_http(&url, ts_expect()))
        .await
        .expect("in time");
    assert_checks(&run, 15);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_drives_the_python_sdk_server_over_streamable_http() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = python("mcp_server.py")
        .args(["http", &port.to_string()])
        .env("PYTHONWARNINGS", "ignore")
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start the Python SDK server");
    let _server = PeerServer(child);
    // uvicorn says nothing machine-readable when it is up: wait until the port accepts.
    let up = timeout(Duration::from_secs(60), async {
        while tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err()
        {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await;
    assert!(up.is_ok(), "the Python SDK server never listened on {port}");
    let url = format!("http://127.0.0.1:{port}/mcp");
    let run = timeout(BOUND, our_client::over_http(&url, python_expect()))
        .await
        .expect("in time");
    assert_checks(&run, 15);
}
