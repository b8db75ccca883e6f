//! MCP's official SDKs of the 2.x line as peers, per protocol version: the TypeScript SDK
//! (`@modelcontextprotocol/client` and `/server` 2.4.0 on npm) and the Python SDK (`mcp` 2.3.0
//! on PyPI, in a virtual environment of its own beside the 1.x of `interop_mcp.rs`).
//!
//! Their clients (`peers/node/mcp2_client.cjs`, `peers/python/mcp2_client.py`) against our
//! example server serving both eras on one endpoint (`mcp_server --all-versions`), over stdio
//! and over Streamable HTTP: negotiating as they do by default (probe with `server/discover`)
//! they land on 2026-07-28, told to use the handshake they land on 2025-11-25; in each they run
//! tools, progress, resources and a template, prompts, completion, sampling, an elicitation
//! and roots answered by their handlers (input-required results on 2026-07-28, requests to
//! the client on 2025-11-25), a subscription told of a change, a cancellation the server sees,
//! and bad input.
//!
//! Our generated clients drive their servers (`peers/node/mcp2_server.cjs`,
//! `peers/python/mcp2_server.py`, each serving both eras from one factory) over stdio once in
//! each era: 2025-11-25 through the `initialize` handshake, 2026-07-28 with every request
//! naming its version in `_meta`, with tools, progress, a templated resource, prompts,
//! completion, an elicitation round trip (pushed to our handler in 2025-11-25, an
//! input-required result answered by retrying in 2026-07-28), a cancellation the server
//! sees, and bad input.

use std::process::Command;

use agentwire_tests::examples::example_binary;
use agentwire_tests::peers::{node, on_a_free_port, python_mcp2};
use tokio::time::timeout;

use crate::interop_mcp::{
    BOUND, PeerServer, assert_checks, http_server_with, node_http_server, run_client,
};

fn ts2_client() -> Command {
    node("mcp2_client.cjs")
}

fn python2_client() -> Command {
    let mut cmd = python_mcp2("mcp2_client.py");
    cmd.env("PYTHONWARNINGS", "ignore");
    cmd
}

/// The checks `mcp2_client` runs against our server: the connection, 10 flows, the
/// elicitation and the cancellation (3), sampling, roots and the subscription (3), and 3 of
/// bad input.
const OURS: usize = 20;

/// Runs `client` with `mode` (how it negotiates) and `era` (where it must land) against our
/// example server serving both eras over stdio.
async fn against_our_stdio(client: Command, mode: &str, era: &str) {
    let server = example_binary("mcp_server");
    let server = server.to_string_lossy();
    let args = [mode, era, "ours", &server, "--all-versions"];
    run_client(client, &args, OURS).await;
}

/// The same against our example server on Streamable HTTP.
async fn against_our_http(client: Command, mode: &str, era: &str) {
    let server = http_server_with(&["--all-versions"]);
    run_client(client, &[mode, era, "ours", &server.url], OURS).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_sdk2_client_speaks_2026_07_28_with_our_server_over_stdio() {
    against_our_stdio(ts2_client(), "auto", "modern").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_sdk2_client_speaks_2025_11_25_with_our_server_over_stdio() {
    against_our_stdio(ts2_client(), "legacy", "legacy").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_sdk2_client_speaks_2026_07_28_with_our_server_over_streamable_http() {
    against_our_http(ts2_client(), "auto", "modern").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_sdk2_client_speaks_2025_11_25_with_our_server_over_streamable_http() {
    against_our_http(ts2_client(), "legacy", "legacy").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk2_client_speaks_2026_07_28_with_our_server_over_stdio() {
    against_our_stdio(python2_client(), "auto", "2026-07-28").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk2_client_speaks_2025_11_25_with_our_server_over_stdio() {
    against_our_stdio(python2_client(), "legacy", "2025-11-25").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk2_client_speaks_2026_07_28_with_our_server_over_streamable_http() {
    against_our_http(python2_client(), "auto", "2026-07-28").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk2_client_speaks_2025_11_25_with_our_server_over_streamable_http() {
    against_our_http(python2_client(), "legacy", "2025-11-25").await;
}

// ---- Our clients against their 2.x servers, in each era -------------------------------------

mod drive {
    use std::sync::Arc;
    use std::time::Duration;

    use agentwire_protocols::mcp::{v2025_11_25 as v25, v2026_07_28 as v26};
    use agentwire_protocols::skeletons::mcp::{v2025_11_25 as s25, v2026_07_28 as s26};
    use agentwire_runtime::jsonrpc::Outcome;
    use agentwire_transport::jsonrpc::Config;
    use agentwire_transport::streamable_http::{ClientConfig, Era};
    use serde_json::{Value, json};

    use crate::interop_mcp::our_client::{Answers, Asked, Checks};

    fn typed<T: serde::de::DeserializeOwned>(v: Value) -> T {
        serde_json::from_value(v).expect("a valid literal")
    }

    fn value(v: &impl serde::Serialize) -> Value {
        serde_json::to_value(v).unwrap_or_default()
    }

    /// The first text of a tool result.
    fn text(result: &Value) -> String {
        result["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    /// What a 2026-07-28 request carries in `_meta`: its version, who we are, what we can do.
    fn meta() -> Value {
        json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "agentwire-interop", "version": "1.0.0"},
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}
        })
    }

    /// `params` with our `_meta` (and a progress token when given) added.
    fn with_meta(mut params: Value, token: Option<&str>) -> Value {
        params["_meta"] = meta();
        if let Some(t) = token {
            params["_meta"]["progressToken"] = json!(t);
        }
        params
    }

    /// How a raw request was answered: its error code, or "a result".
    fn outcome(answer: Result<agentwire_runtime::jsonrpc::Response, impl ToString>) -> String {
        match answer {
            Ok(r) => match r.outcome {
                Outcome::Error(e) => e.code.to_string(),
                Outcome::Result(_) => "a result".to_owned(),
            },
            Err(e) => e.to_string(),
        }
    }

    /// Polls the server's `was_cancelled` tool until the slow call has ended.
    async fn seen_cancelled<F, Fut>(call: F) -> String
    where
        F: Fn() -> Fut,
        Fut: std::future::Future<Output = String>,
    {
        let mut seen = String::new();
        for _ in 0..100 {
            seen = call().await;
            if seen != "running" {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        seen
    }

    /// Our 2025-11-25 client against `cmd`: the handshake, then every flow.
    pub async fn legacy(cmd: std::process::Command, server_name: &str) -> Checks {
        let asked = Arc::new(Asked::default());
        let mut cmd = tokio::process::Command::from(cmd);
        cmd.kill_on_drop(true);
        let answers = Arc::new(Answers(Arc::clone(&asked)));
        let (client, _notes, _connection, mut child) =
            s25::Client::spawn_with(answers, cmd, Config::default()).expect("the server starts");
        let checks = legacy_flows(&client, &asked, server_name, true).await;
        client.close();
        let _ = child.kill().await;
        checks
    }

    /// Our 2025-11-25 client against the Streamable HTTP endpoint `url`: the same, the
    /// session ended at the end. `sessions` says whether the server keeps sessions (checked):
    /// one that serves each request on its own has no way to ask the client anything or to
    /// hear a cancellation, so those two flows are left out against it.
    pub async fn legacy_http(url: &str, server_name: &str, sessions: bool) -> Checks {
        let asked = Arc::new(Asked::default());
        let answers = Arc::new(Answers(Arc::clone(&asked)));
        let connected = s25::Client::connect_http(
            url,
            s25::STREAMABLE_HTTP,
            answers,
            ClientConfig::default(),
            Config::default(),
        );
        let (client, _notes, session, _connection) = connected.expect("a valid endpoint");
        let mut checks = legacy_flows(&client, &asked, server_name, sessions).await;
        let id = session.http.session_id();
        checks.check(
            id.is_some() == sessions,
            format!("the server keeps sessions: {sessions} (session id {id:?})"),
        );
        let ended = session.close(&client).await;
        checks.check(ended.is_ok(), format!("the session ends ({ended:?})"));
        checks
    }

    /// Every flow of 2025-11-25, from the handshake on; the elicitation and the cancellation
    /// only when the server can `push` (it keeps sessions).
    async fn legacy_flows(
        client: &s25::Client,
        asked: &Asked,
        server_name: &str,
        pushes: bool,
    ) -> Checks {
        let mut checks = Checks::default();
        let init = client
            .initialize(typed(json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {"elicitation": {"form": {}}},
                "clientInfo": {"name": "agentwire-interop", "version": "1.0.0"}
            })))
            .await
            .expect("initialize answered");
        checks.check(
            init.protocol_version == "2025-11-25" && init.server_info.name == server_name,
            format!(
                "initialize agrees on {} with {}",
                init.protocol_version, init.server_info.name
            ),
        );
        client.notifications_initialized(None).await.unwrap();
        let call = |name: &'static str, args: Value| {
            let client = client.clone();
            async move {
                let params = typed(json!({"name": name, "arguments": args}));
                client
                    .tools_call(params)
                    .await
                    .map(|r| text(&value(&r)))
                    .unwrap_or_else(|e| e.to_string())
            }
        };
        checks.check(
            call("echo", json!({"text": "hello"})).await == "hello",
            "tools/call echo",
        );
        let params = typed(
            json!({"name": "progress", "arguments": {"steps": 3}, "_meta": {"progressToken": "p-1"}}),
        );
        let mut pending = client
            .peer()
            .start(v25::ClientRequest::ToolsCall(params))
            .await
            .expect("sent");
        let mut progress = pending.take_progress().expect("a progress token was sent");
        let done = pending.result().await.map(|r| value(&r));
        let mut seen = Vec::new();
        while let Ok(v25::ServerNotification::NotificationsProgress(p)) = progress.try_recv() {
            seen.push(p.progress);
        }
        let done = done.map(|r| text(&r)).unwrap_or_default();
        checks.check(
            seen == [1.0, 2.0, 3.0] && done == "done in 3 steps",
            format!("progress {seen:?} then {done:?}"),
        );
        let read = client
            .resources_read(typed(json!({"uri": "greeting://Ada"})))
            .await
            .map(|r| value(&r));
        let read = read
            .map(|r| r["contents"][0]["text"].clone())
            .unwrap_or_default();
        checks.check(
            read == json!("Hello, Ada."),
            format!("a templated resource ({read})"),
        );
        let prompt = client
            .prompts_get(typed(
                json!({"name": "greet", "arguments": {"name": "Ada"}}),
            ))
            .await
            .map(|r| value(&r));
        let prompt = prompt
            .map(|p| p["messages"][0]["content"]["text"].clone())
            .unwrap_or_default();
        checks.check(
            prompt == json!("Please greet Ada."),
            format!("prompts/get ({prompt})"),
        );
        let done = client
            .completion_complete(typed(json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "A"}})))
            .await
            .map(|r| value(&r));
        let values = done
            .map(|d| d["completion"]["values"].clone())
            .unwrap_or_default();
        checks.check(
            values == json!(["Ada", "Alan"]),
            format!("completion/complete ({values})"),
        );
        // Both need a session: the client's answer to the server's request, and its
        // cancellation, each come in a POST of their own, which only a session id routes to
        // the call waiting for them.
        if pushes {
            // The server asks us for the form: pushed as elicitation/create, answered by our
            // handler with the form's default name.
            let confirmed = call("confirm", json!({})).await;
            checks.check(
                confirmed == "hello Ada" && asked.elicited() == 1,
                format!("elicitation/create answered by our handler ({confirmed})"),
            );
            let params = typed(
                json!({"name": "slow", "arguments": {}, "_meta": {"progressToken": "p-slow"}}),
            );
            let mut pending = client
                .peer()
                .start(v25::ClientRequest::ToolsCall(params))
                .await
                .expect("sent");
            let mut running = pending.take_progress().expect("a progress token was sent");
            let started = tokio::time::timeout(Duration::from_secs(60), running.recv()).await;
            pending
                .cancel()
                .await
                .expect("notifications/cancelled sent");
            let seen = seen_cancelled(|| call("was_cancelled", json!({}))).await;
            checks.check(
                matches!(started, Ok(Some(_))) && seen == "yes",
                format!("the server saw the call cancelled ({seen})"),
            );
        }
        let unknown = outcome(
            client
                .peer()
                .request_raw("no/such/method", Some(json!({})))
                .await,
        );
        checks.check(
            unknown == "-32601",
            format!("an unknown method is answered with {unknown}"),
        );
        checks.check(
            call("echo", json!({"text": "still"})).await == "still",
            "the session survives bad input",
        );
        checks
    }

    /// Our 2026-07-28 client against `cmd`: no handshake, every request naming its version.
    pub async fn modern(cmd: std::process::Command, server_name: &str) -> Checks {
        let mut cmd = tokio::process::Command::from(cmd);
        cmd.kill_on_drop(true);
        let (client, _notes, _connection, mut child) =
            s26::Client::spawn(cmd, Config::default()).expect("the server starts");
        let checks = modern_flows(&client, server_name).await;
        client.close();
        let _ = child.kill().await;
        checks
    }

    /// Our negotiating client against the Streamable HTTP endpoint `url`: the
    /// `server/discover` probe finds 2026-07-28, then every request goes on its own, a
    /// cancellation closing the answer's stream.
    pub async fn modern_http(url: &str, server_name: &str) -> Checks {
        let probe = v26::ClientRequest::ServerDiscover(typed(with_meta(json!({}), None)));
        let wait = Duration::from_secs(60);
        let era = s26::Client::negotiate_http(
            url,
            s26::STREAMABLE_HTTP,
            &probe,
            ClientConfig::default(),
            wait,
        )
        .await;
        let connected = s26::Client::connect_http(
            url,
            s26::STREAMABLE_HTTP,
            Arc::new(s26::NoRequests),
            ClientConfig::default(),
            Config::default(),
        );
        let (client, _notes, session, _connection) = connected.expect("a valid endpoint");
        let mut checks = modern_flows(&client, server_name).await;
        checks.check(
            matches!(&era, Ok(Era::Named(v)) if v == "2026-07-28"),
            format!("the version probe lands on 2026-07-28 ({era:?})"),
        );
        let _ = session.close(&client).await;
        checks
    }

    /// Every flow of 2026-07-28, from `server/discover` on.
    async fn modern_flows(client: &s26::Client, server_name: &str) -> Checks {
        let mut checks = Checks::default();
        let discover = client
            .server_discover(typed(with_meta(json!({}), None)))
            .await
            .map(|r| value(&r));
        let discover = discover.unwrap_or_else(|e| json!({"error": e.to_string()}));
        let name = discover
            .pointer("/_meta/io.modelcontextprotocol~1serverInfo/name")
            .cloned()
            .unwrap_or_default();
        checks.check(
            discover["supportedVersions"]
                .as_array()
                .is_some_and(|v| v.contains(&json!("2026-07-28")))
                && name == json!(server_name),
            format!("server/discover lists 2026-07-28 ({name})"),
        );
        let call = |params: Value| {
            let client = client.clone();
            async move {
                client
                    .tools_call(typed(with_meta(params, None)))
                    .await
                    .map(|r| value(&r))
                    .unwrap_or_else(|e| json!({"error": e.to_string()}))
            }
        };
        let echo = call(json!({"name": "echo", "arguments": {"text": "hello"}})).await;
        checks.check(
            text(&echo) == "hello" && echo["resultType"] == "complete",
            format!("tools/call echo ({echo})"),
        );
        let params = typed(with_meta(
            json!({"name": "progress", "arguments": {"steps": 3}}),
            Some("p-1"),
        ));
        let mut pending = client
            .peer()
            .start(v26::ClientRequest::ToolsCall(params))
            .await
            .expect("sent");
        let mut progress = pending.take_progress().expect("a progress token was sent");
        let done = pending.result().await.map(|r| value(&r));
        let mut seen = Vec::new();
        while let Ok(v26::ServerNotification::NotificationsProgress(p)) = progress.try_recv() {
            seen.push(p.progress);
        }
        let done = done.map(|r| text(&r)).unwrap_or_default();
        checks.check(
            seen == [1.0, 2.0, 3.0] && done == "done in 3 steps",
            format!("progress {seen:?} then {done:?}"),
        );
        let read = client
            .resources_read(typed(with_meta(json!({"uri": "greeting://Ada"}), None)))
            .await
            .map(|r| value(&r));
        let read = read
            .map(|r| r["contents"][0]["text"].clone())
            .unwrap_or_default();
        checks.check(
            read == json!("Hello, Ada."),
            format!("a templated resource ({read})"),
        );
        let prompt = client
            .prompts_get(typed(with_meta(
                json!({"name": "greet", "arguments": {"name": "Ada"}}),
                None,
            )))
            .await
            .map(|r| value(&r));
        let prompt = prompt
            .map(|p| p["messages"][0]["content"]["text"].clone())
            .unwrap_or_default();
        checks.check(
            prompt == json!("Please greet Ada."),
            format!("prompts/get ({prompt})"),
        );
        let complete = json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "A"}});
        let done = client
            .completion_complete(typed(with_meta(complete, None)))
            .await
            .map(|r| value(&r));
        let values = done
            .map(|d| d["completion"]["values"].clone())
            .unwrap_or_default();
        checks.check(
            values == json!(["Ada", "Alan"]),
            format!("completion/complete ({values})"),
        );
        // The input-required round trip: the first call asks for the form; the retry carries
        // our answer under the key the server chose (and its request state, when it gave one).
        let first = call(json!({"name": "confirm", "arguments": {}})).await;
        let key = first["inputRequests"]
            .as_object()
            .and_then(|m| m.keys().next().cloned())
            .unwrap_or_default();
        let asks = first["inputRequests"][&key]["method"].clone();
        let mut retry = json!({"name": "confirm", "arguments": {},
            "inputResponses": {key.clone(): {"action": "accept", "content": {"name": "Grace"}}}});
        if let Some(state) = first.get("requestState") {
            retry["requestState"] = state.clone();
        }
        let done = call(retry).await;
        checks.check(
            first["resultType"] == "input_required"
                && asks == "elicitation/create"
                && text(&done) == "hello Grace",
            format!("an input-required round trip ({asks} under {key:?}, then {done})"),
        );
        let params = typed(with_meta(
            json!({"name": "slow", "arguments": {}}),
            Some("p-slow"),
        ));
        let mut pending = client
            .peer()
            .start(v26::ClientRequest::ToolsCall(params))
            .await
            .expect("sent");
        let mut running = pending.take_progress().expect("a progress token was sent");
        let started = tokio::time::timeout(Duration::from_secs(60), running.recv()).await;
        pending
            .cancel()
            .await
            .expect("notifications/cancelled sent");
        let seen = seen_cancelled(|| async {
            text(&call(json!({"name": "was_cancelled", "arguments": {}})).await)
        })
        .await;
        checks.check(
            matches!(started, Ok(Some(_))) && seen == "yes",
            format!("the server saw the call cancelled ({seen})"),
        );
        let unknown = outcome(
            client
                .peer()
                .request_raw("no/such/method", Some(with_meta(json!({}), None)))
                .await,
        );
        checks.check(
            unknown == "-32601",
            format!("an unknown method is answered with {unknown}"),
        );
        let still = call(json!({"name": "echo", "arguments": {"text": "still"}})).await;
        checks.check(text(&still) == "still", "the connection survives bad input");
        checks
    }
}

/// The checks [`drive::legacy`] and [`drive::modern`] run.
const LEGACY: usize = 10;
const MODERN: usize = 10;

fn ts2_server() -> Command {
    let mut cmd = node("mcp2_server.cjs");
    cmd.arg("stdio");
    cmd
}

fn python2_server() -> Command {
    let mut cmd = python_mcp2("mcp2_server.py");
    cmd.arg("stdio").env("PYTHONWARNINGS", "ignore");
    cmd
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_2025_11_25_client_drives_the_typescript_sdk2_server_over_stdio() {
    let run = timeout(BOUND, drive::legacy(ts2_server(), "ts-sdk2-peer"))
        .await
        .expect("in time");
    assert_checks(&run, LEGACY);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_2026_07_28_client_drives_the_typescript_sdk2_server_over_stdio() {
    let run = timeout(BOUND, drive::modern(ts2_server(), "ts-sdk2-peer"))
        .await
        .expect("in time");
    assert_checks(&run, MODERN);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_2025_11_25_client_drives_the_python_sdk2_server_over_stdio() {
    let run = timeout(BOUND, drive::legacy(python2_server(), "python-sdk2-peer"))
        .await
        .expect("in time");
    assert_checks(&run, LEGACY);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_2026_07_28_client_drives_the_python_sdk2_server_over_stdio() {
    let run = timeout(BOUND, drive::modern(python2_server(), "python-sdk2-peer"))
        .await
        .expect("in time");
    assert_checks(&run, MODERN);
}

/// The TypeScript SDK's 2.x server on Streamable HTTP (both eras on one endpoint).
fn ts2_http_server() -> (PeerServer, String) {
    let mut cmd = node("mcp2_server.cjs");
    cmd.arg("http");
    node_http_server(cmd)
}

/// The Python SDK's 2.x server on Streamable HTTP (both eras on one endpoint), on a free port.
fn python2_http_server() -> (PeerServer, String) {
    let (child, port) = on_a_free_port(|port| {
        let mut cmd = python_mcp2("mcp2_server.py");
        cmd.args(["http", &port.to_string()])
            .env("PYTHONWARNINGS", "ignore")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::inherit());
        cmd
    });
    (PeerServer(child), format!("http://127.0.0.1:{port}/mcp"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_2025_11_25_client_drives_the_typescript_sdk2_server_over_streamable_http() {
    let (_server, url) = ts2_http_server();
    // Its handler serves 2025-11-25 without sessions (each request on its own).
    let run = timeout(BOUND, drive::legacy_http(&url, "ts-sdk2-peer", false))
        .await
        .expect("in time");
    // Two flows left out; the session checks added.
    assert_checks(&run, LEGACY - 2 + 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_2026_07_28_client_drives_the_typescript_sdk2_server_over_streamable_http() {
    let (_server, url) = ts2_http_server();
    let run = timeout(BOUND, drive::modern_http(&url, "ts-sdk2-peer"))
        .await
        .expect("in time");
    assert_checks(&run, MODERN + 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_2025_11_25_client_drives_the_python_sdk2_server_over_streamable_http() {
    let (_server, url) = python2_http_server();
    let run = timeout(BOUND, drive::legacy_http(&url, "python-sdk2-peer", true))
        .await
        .expect("in time");
    assert_checks(&run, LEGACY + 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_2026_07_28_client_drives_the_python_sdk2_server_over_streamable_http() {
    let (_server, url) = python2_http_server();
    let run = timeout(BOUND, drive::modern_http(&url, "python-sdk2-peer"))
        .await
        .expect("in time");
    assert_checks(&run, MODERN + 1);
}
