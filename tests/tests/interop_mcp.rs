//! The MCP skeleton against MCP's official SDKs, which nobody in this project wrote: the
//! TypeScript SDK (`@modelcontextprotocol/sdk` 1.32.2 on npm) and the Python SDK (`mcp` 1.30.0
//! on PyPI) as clients of our example server, over stdio and Streamable HTTP. The client runs tools, progress, sampling back to
//! itself, resources and prompts, then sends bad input (an unknown method, bad params, a huge
//! message, a request before initialize) and checks the JSON-RPC answer and that the session
//! goes on.

use std::io::BufRead as _;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::OnceLock;
use std::time::Duration;

use agentwire_tests::peers::{node, python, target_dir, workspace_root};
use tokio::time::timeout;

const BOUND: Duration = Duration::from_secs(180);

/// Builds the `mcp_server` example once per test process and returns its path.
fn mcp_server_binary() -> PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let status = std::process::Command::new(env!("CARGO"))
            .current_dir(workspace_root())
            .args([
                "build",
                "-q",
                "-p",
                "agentwire-examples",
                "--example",
                "mcp_server",
            ])
            .status()
            .expect("run cargo build");
        assert!(status.success(), "building the mcp_server example failed");
        target_dir().join("debug/examples/mcp_server")
    })
    .clone()
}

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

async fn run_client(cmd: std::process::Command, args: &[&str], checks: usize) {
    let mut cmd = tokio::process::Command::from(cmd);
    cmd.args(args)
        .env("RUST_LOG", "error")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let out = timeout(BOUND, cmd.output())
        .await
        .expect("the node client finishes in time")
        .expect("node runs");
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
    let server = mcp_server_binary();
    let server = server.to_string_lossy();
    run_node_client(&["stdio", &server], 20).await;
}

/// The example server on Streamable HTTP at a free port; killed on drop.
struct HttpServer {
    _child: std::process::Child,
    url: String,
}

fn http_server() -> HttpServer {
    let mut child = std::process::Command::new(mcp_server_binary())
        .args(["--http", "127.0.0.1:0"])
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
    let server = mcp_server_binary();
    let server = server.to_string_lossy();
    run_python_client(&["stdio", &server], 12).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_client_drives_our_server_over_streamable_http() {
    let server = http_server();
    run_python_client(&["http", &server.url], 12).await;
}
